#!/bin/sh
# run --profile's cost: in one run, profiled batches (perf record -a -g,
# cpu-clock at 1000 Hz and sched_switch) interleaved with timed ones; the
# ratio of their mean real times per level, with its 95% interval, as
# run's summary gives it.  $PROFILE_BENCH_REPS (default 6) of each;
# $PROFILE_BENCH_ARGS adds run options (default: the extract workload on
# tmpfs at -j 1,ncpu).
set -u
FSCONC=${FSCONC:-./fsconc}
reps=${PROFILE_BENCH_REPS:-6}
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$(id -u)" -ne 0 ]; then
	echo "profile: SKIP needs root (memory disks, system-wide samples)"
	exit 0
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "profile: SKIP perf is not installed (scripts/install-deps)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
if ! "$FSCONC" run -j "1,$ncpu" -r "$reps" --profile --profile-reps "$reps" \
    --disk tmpfs ${PROFILE_BENCH_ARGS:-} -R "$tmp" >"$tmp/out" 2>"$tmp/err"; then
	echo "profile: fsconc run --profile failed: $(tail -3 "$tmp/err")"
	exit 1
fi
echo "profile: $reps profiled and $reps timed batches per level, interleaved"
grep -E '^ +(jobs|[0-9]+) ' "$tmp/out" | sed 's/^/  /'
grep -E '^profile overhead' "$tmp/out" | sed 's/^/  /'
echo "  load during the run: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
