# False alarms and power of fsconc nightly at its default precision target
# (2%) and budget (10m):
#  1. by simulation for the rates (bench/verdict_sim.c, linked against
#     build/libfsconc.a: the library's own stop rule and verdict): NIGHTS
#     nights drawn from the batches of a real set, each judged against
#     the night before, at nightly's default confidence (99%) and at 95%;
#     beside each, the same night with a planted 3% slowdown.  Targets:
#     flagged <= 5% of nights before Holm, <= 1% after; planted 3%
#     slowdowns found in >= 90%.  Then the --precision stop's own
#     false alarms per test, first look at round 5 and 10 against 30
#     rounds fixed, on the pool and on normal batches (verdict_sim -g).
#  2. with the real harness: REAL calib nightlies of one label, each
#     judged against the night before, then PLANTS nights with a planted
#     +3% of work per batch (calib iterations x 1.03).
#   POOL=SET     the set to draw from (default: made here, POOL_REPS
#                repetitions of the default extract on DISK)
#   POOL_REPS (100), DISK (default disk), NIGHTS (1000), REAL (12),
#   PLANTS (3), BUDGET (of each real nightly, 2m: REAL + PLANTS nightlies
#   at the default 10m could take hours), ITER (calib iterations,
#   50000000), SIM=0 skips part 1
# Figures on a shared machine are provisional; nothing here asserts them.
set -u
FSCONC=${FSCONC:-./fsconc}
TOP=${FSCONC_TOP:-$(pwd)}
NIGHTS=${NIGHTS:-1000}
REAL=${REAL:-12}
PLANTS=${PLANTS:-3}
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
if [ "${SIM:-1}" = 0 ]; then
	echo "  simulation: skipped (SIM=0)"
elif [ ! -f "$lib" ]; then
	echo "  simulation: skipped: $lib not built (make)"
else
	flags="$(make -s -C "$TOP" print-CPPFLAGS | sed "s|-I\.|-I$TOP|") $(make -s -C "$TOP" print-XCFLAGS)"
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
			# --precision stops on widths: its false alarms per
			# test (threshold 0, one-sided: nominal 0.5% at 99%),
			# the first look at round 5 (before issue 42) and 10
			# (PREC_FIRST_LOOK), against 30 rounds fixed (the rule
			# met at once); on the pool, then on normal batches
			# of CV 1-3% (-g: no load of the pool's machine in it)
			for g in 0 1 2 3; do
				for l in "-l 5" "-l 10" "-m 30"; do
					echo "  --precision, $l, threshold 0, $([ $g = 0 ] && echo pool || echo "normal, CV $g%"):"
					"$tmp/verdict_sim" -c 99 -n "$NIGHTS" \
					    -t 2 -b 600 -T 0 -p 0.03 -g $g $l \
					    "$pool" | grep -E '^(precision|false)' |
					    sed 's/^/    /'
				done
			done
		fi
	fi
fi

# --- 2. the real harness: calib, one label night after night ---------
# REAL identical calib nightlies of one label, each judged against the
# night before (nightly's defaults: 99%, threshold 2%, --spread-nights
# 10, so from the fourth night on the night-to-night spread of the
# earlier ones is in every interval); then PLANTS nights with +3% of
# work per batch, each judged against the last identical night with the
# same history (a copy of the root each, so that one planted night is
# not history for the next).
it2=$(awk -v i="$ITER" 'BEGIN { printf "%.0f", i * 1.03 }')
night() {	# ROOT [options]
	_r=$1
	shift
	"$FSCONC" nightly -w calib -j 1,2 --budget "$BUDGET" -R "$_r" \
	    --label cal --no-report "$@"
}
# 1 if any test of a nightly's output has p below alpha (before Holm).
any_p() {	# FILE ALPHA
	sed -n 's/.* p=\([^ ]*\) holm=.*/\1/p' "$1" |
	    awk -v a="$2" '$1 + 0 < a { f = 1 } END { print f + 0 }'
}
t0=$(date +%s)
fa=0 fa0=0 pre=0 n=0 n0=0 met=0 inv=0 k=1
while [ "$k" -le "$REAL" ]; do
	night "$tmp/cal" -O iterations="$ITER" >"$tmp/same" 2>&1; rc=$?
	grep -q '^candidate: precision: target [^,]*, met[ ;]' "$tmp/same" &&
	    met=$((met + 1))
	[ $rc -eq 4 ] && inv=$((inv + 1))
	if [ "$k" -ge 4 ]; then
		n=$((n + 1))
		[ $rc -eq 3 ] && fa=$((fa + 1))
		pre=$((pre + $(any_p "$tmp/same" 0.01)))
	elif [ "$k" -ge 2 ]; then
		n0=$((n0 + 1))
		[ $rc -eq 3 ] && fa0=$((fa0 + 1))
	fi
	k=$((k + 1))
done
last=$(ls -d "$tmp"/cal/*/cal/* | tail -n 1)
found=0 p=1
while [ "$p" -le "$PLANTS" ]; do
	rm -rf "$tmp/plant"
	cp -a "$tmp/cal" "$tmp/plant"
	night "$tmp/plant" -O iterations="$it2" \
	    --baseline "$tmp/plant${last#"$tmp/cal"}" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 3 ] && found=$((found + 1))
	[ $rc -eq 3 ] || echo "    planted night $p: exit $rc: $(grep '^real .*jobs=1 ' "$tmp/out")"
	p=$((p + 1))
done
echo "  real harness (calib -O iterations=$ITER, -j 1,2, --budget $BUDGET): $REAL nights and $PLANTS planted in $(( $(date +%s) - t0 )) s; precision reached in $met of $REAL; invalid (exit 4) $inv of $REAL"
echo "    identical nights 4-$REAL (spread of the earlier nights known): flagged (exit 3) $fa of $n; a test at p < 0.01 before Holm in $pre of $n"
echo "    identical nights 2-3 (no spread yet): flagged $fa0 of $n0"
echo "    planted +3% of work per batch found (exit 3): $found of $PLANTS"
echo "  (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
