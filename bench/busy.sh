#!/bin/sh
# busy: the figure beside a competing load, and whether it is flagged.
# Runs the same experiment beside 0, 1 and 2 busy loops (a shell loop
# pinned to CPU i mod ncpu, a busy neighbour as another job would be)
# with the default disturbance policy (--disturb-limit 10%, 3 re-runs,
# then a wait for a quiet machine bounded by --disturb-wait) and prints
# for each: EC(2) with its 95% interval, whether it lies within the
# quiet run's interval, the tries re-run, the batches counted disturbed
# with the worst share, the flag and run's exit status.  A figure is
# right or flagged: "ok" when within the quiet interval or flagged,
# "WRONG" when outside it and unflagged.  The 0-loop run is the quiet
# reference only on a quiet machine: the load average is printed.
#   BENCH_REPS (10)  BENCH_WAIT (--disturb-wait, 20s)
#   BENCH_ARGS (root: "--disk tmpfs:2g"; else "-w calib -O iterations=20000000")
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
reps=${BENCH_REPS:-10}
wait=${BENCH_WAIT:-20s}
if [ "$(id -u)" -eq 0 ]; then
	args=${BENCH_ARGS:---disk tmpfs:2g}
else
	args=${BENCH_ARGS:--w calib -O iterations=20000000}
fi
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ]; then
	echo "busy: skipped: EC(2) needs 2 CPUs"
	exit 0
fi
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-busy.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
loops=
stop_loops() {
	for p in $loops; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	loops=
}
trap 'stop_loops; rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP
pin=
command -v taskset >/dev/null 2>&1 && pin=taskset

echo "busy: $reps repetitions, levels 1,2, $args, --disturb-wait $wait"
echo "other load: $(cut -d' ' -f1-3 /proc/loadavg) (load average, before)"
printf '%-5s %7s %17s %8s %7s %5s %7s %-9s %4s %s\n' loops "EC(2)" \
    "EC 95% CI" "in quiet" "re-run" kept worst flag exit verdict
qlo= qhi=
for k in 0 1 2; do
	i=0
	while [ $i -lt $k ]; do
		if [ -n "$pin" ]; then
			taskset -c $((i % ncpu)) sh -c 'while :; do :; done' &
		else
			sh -c 'while :; do :; done' &
		fi
		loops="$loops $!"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	out=$("$fsconc" run -j 1,2 -r "$reps" $args --disturb-wait "$wait" \
	    -R "$priv/res" --label "busy$k" 2>"$priv/err"); rc=$?
	stop_loops
	set=$(echo "$out" | sed -n 's/^result set: //p')
	if [ -z "$set" ] || [ ! -f "$set/meta" ]; then
		echo "busy: $k loops: fsconc run failed (exit $rc):"
		cat "$priv/err"
		exit 1
	fi
	row=$(echo "$out" | awk '$1 == 2 && $2 ~ /^[0-9]+$/ { ec = $6;
	    ci = substr($0, index($0, "[")); sub(/\].*/, "]", ci) }
	    END { print (ec == "" ? "-" : ec), (ci == "" ? "-" : ci) }')
	ec=${row%% *}
	ci=${row#* }
	reruns=$(sed -n 's/^disturbed_reruns=//p' "$set/meta")
	kept=$(sed -n 's/^disturbed_kept=//p' "$set/meta")
	worst=$(sed -n 's/^disturbed_worst=//p' "$set/meta")
	flag=-
	echo "$out" | grep -q '^flag: disturbed' && flag=disturbed
	if [ $k -eq 0 ]; then
		qlo=$(echo "$ci" | sed -n 's/^\[\([^,]*\),.*/\1/p')
		qhi=$(echo "$ci" | sed -n 's/.*, \([^]]*\)\]$/\1/p')
	fi
	within=$(awk -v e="$ec" -v lo="$qlo" -v hi="$qhi" 'BEGIN {
	    if (e == "-" || lo == "" || hi == "") print "?";
	    else print (e + 0 >= lo + 0 && e + 0 <= hi + 0) ? "yes" : "no" }')
	verdict=ok
	[ "$within" = no ] && [ "$flag" = - ] && verdict=WRONG
	printf '%-5s %7s %17s %8s %7s %5s %7s %-9s %4s %s\n' "$k" "$ec" \
	    "$ci" "$within" "$reruns" "$kept" "${worst:--}" "$flag" "$rc" \
	    "$verdict"
done
echo "other load: $(cut -d' ' -f1-3 /proc/loadavg) (load average, after)"
