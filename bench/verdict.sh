# False alarms and power of fsconc nightly at its default precision target
# (2%) and budget (10m):
#  1. by simulation for the rates (bench/verdict_sim.c, linked against
#     build/libfsconc.a: the library's own stop rule and verdict): NIGHTS
#     nights drawn from the batches of a real set, each judged against
#     the night before, at nightly's default confidence (99%) and at 95%;
#     beside each, the same night with a planted 3% slowdown.  Targets:
#     flagged <= 5% of nights before Holm, <= 1% after; planted 3%
#     slowdowns found in >= 90%.
#  2. with the real harness: CHAINS times, a calib nightly, the same
#     configuration again, and a planted +3% of work per batch (calib
#     iterations x 1.03), both judged against the first.
#   POOL=SET     the set to draw from (default: made here, POOL_REPS
#                repetitions of the default extract on DISK)
#   POOL_REPS (100), DISK (default disk), NIGHTS (1000), CHAINS (5),
#   BUDGET (of each real nightly, 2m: 3 x CHAINS nightlies at the default
#   10m would take hours), ITER (calib iterations, 50000000)
# Figures on a shared machine are provisional; nothing here asserts them.
set -u
FSCONC=${FSCONC:-./fsconc}
TOP=${FSCONC_TOP:-$(pwd)}
NIGHTS=${NIGHTS:-1000}
CHAINS=${CHAINS:-5}
BUDGET=${BUDGET:-2m}
ITER=${ITER:-50000000}
POOL_REPS=${POOL_REPS:-100}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
export FSCONC_RUNDIR="$tmp/rundir"
mkdir -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "verdict: false alarms and power at the default target and budget"
echo "  (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"

# --- 1. simulation ---------------------------------------------------
lib=$TOP/build/libfsconc.a
if [ ! -f "$lib" ]; then
	echo "  simulation: skipped: $lib not built (make)"
else
	flags="$(make -s -C "$TOP" print-CPPFLAGS | sed "s|-I\([a-z]\)|-I$TOP/\1|g") $(make -s -C "$TOP" print-XCFLAGS)"
	if ! cc $flags -O2 -o "$tmp/verdict_sim" "$TOP/bench/verdict_sim.c" \
	    "$lib" $(pkg-config --libs libarchive hwloc gsl nettle) -lm \
	    -pthread 2>"$tmp/err"; then
		echo "  simulation: build failed: $(head -n 3 "$tmp/err")"
	else
		pool=${POOL:-}
		if [ -z "$pool" ]; then
			disk=
			[ -n "${DISK:-}" ] && disk="--disk $DISK"
			echo "  pool: fsconc run -j 1,2 -r $POOL_REPS $disk (default archive)"
			"$FSCONC" run -j 1,2 -r "$POOL_REPS" $disk -R "$tmp/pool" \
			    >"$tmp/out" 2>"$tmp/err" || echo "  pool: $(head -n 2 "$tmp/err")"
			pool=$(ls -d "$tmp"/pool/*/*/*/ 2>/dev/null | head -n 1)
		fi
		if [ -n "$pool" ]; then
			# nightly's default confidence (99%), and 95% beside it
			for c in 99 95; do
				"$tmp/verdict_sim" -c $c -n "$NIGHTS" -t 2 \
				    -b 600 -T 2 -p 0.03 "$pool" | sed 's/^/  /'
			done
		fi
	fi
fi

# --- 2. the real harness: calib, planted +3% of work ------------------
it2=$(awk -v i="$ITER" 'BEGIN { printf "%.0f", i * 1.03 }')
night() {
	_c=$1
	shift
	"$FSCONC" nightly -w calib -j 1,2 --budget "$BUDGET" -R "$tmp/cal" \
	    --label "c$_c" --no-report "$@"
}
fa=0 found=0 met=0 n=0 t0=$(date +%s)
c=1
while [ "$c" -le "$CHAINS" ]; do
	night $c -O iterations="$ITER" >/dev/null 2>&1
	base=$(ls -d "$tmp"/cal/*/c$c/* | head -n 1)
	night $c -O iterations="$ITER" >"$tmp/same" 2>&1; rs=$?
	night $c -O iterations="$it2" --baseline "$base" >"$tmp/plant" 2>&1; rp=$?
	[ $rs -eq 3 ] && fa=$((fa + 1))
	[ $rp -eq 3 ] && found=$((found + 1))
	grep -q 'precision: target .* reached' "$tmp/same" &&
	    ! grep -q 'NOT reached' "$tmp/same" && met=$((met + 1))
	n=$((n + 1))
	c=$((c + 1))
done
echo "  real harness (calib -O iterations=$ITER, -j 1,2, --budget $BUDGET): $n chains in $(( $(date +%s) - t0 )) s"
echo "    identical configuration flagged (exit 3): $fa of $n; precision reached: $met of $n"
echo "    planted +3% of work per batch found (exit 3): $found of $n"
echo "  (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
