#!/bin/sh
# busy: right or flagged beside a competing load.  One row of
# bench/README.md's table per load: RUNS runs of
#   fsconc run -j JOBS -r REPS --disk DISK
# with the default disturbance policy (--disturb-limit 10%, 3 re-runs,
# then a wait for a quiet machine), each beside the load started afresh:
#   quiet      nothing planted
#   loop       one shell busy loop, unpinned (a neighbour's job)
#   loops      a busy loop pinned to each CPU
#   part:A/B   a busy loop that runs A s of every B s (part = part:1/10)
# Prints a line per run (EC at the top level, tries over the limit of
# the tries checked, counted disturbed, flagged, exit status, the load
# average), then the row: runs, flagged, EC median and range, the share
# of tries over the limit (re-run or counted disturbed) over all runs,
# and the load average before and after.  Without --load, every load in
# turn.  Root only (it makes disks).
#   sh bench/busy.sh --runs 20 --load loop --disk tmpfs:512m
#   sh bench/busy.sh --runs 20 --load quiet --disk loop:1g
usage() {
	echo "usage: sh bench/busy.sh [--runs N] [--load quiet|loop|loops|part[:A/B]]" \
	    "[--disk SPEC] [--jobs LEVELS] [--reps N] [-- run options]" >&2
	exit 2
}
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
ncpu=$(getconf _NPROCESSORS_ONLN)
runs=20 loads= disk=tmpfs:512m jobs=1,$ncpu reps=10
while [ $# -gt 0 ]; do
	case $1 in
	--runs)	[ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
	--load)	[ $# -ge 2 ] || usage; loads="$loads $2"; shift 2 ;;
	--disk)	[ $# -ge 2 ] || usage; disk=$2; shift 2 ;;
	--jobs)	[ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	--reps)	[ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
	--)	shift; break ;;
	*)	usage ;;
	esac
done
case $runs$reps in *[!0-9]*|'') usage ;; esac
[ "$runs" -ge 1 ] && [ "$reps" -ge 2 ] || usage
: "${loads:=quiet loop loops part}"
for l in $loads; do
	case $l in
	quiet|loop|loops|part) ;;
	part:[0-9]*/[0-9]*) ;;
	*) usage ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "busy: skipped: needs root (it makes disks)"
	exit 0
fi
if [ "$ncpu" -lt 2 ]; then
	echo "busy: skipped: EC(N) needs 2 CPUs"
	exit 0
fi
command -v setsid >/dev/null 2>&1 || { echo "busy: skipped: no setsid"; exit 0; }
# The test hook decides nothing here: the measurement does.
unset FSCONC_TEST_FOREIGN
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-busy.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
pids=
# Each load is a session of its own (setsid): its children die with it.
stop_load() {
	for p in $pids; do
		kill -TERM "-$p" 2>/dev/null
		wait "$p" 2>/dev/null
		n=0
		while kill -0 "-$p" 2>/dev/null && [ $n -lt 100 ]; do
			kill -KILL "-$p" 2>/dev/null
			sleep 0.1
			n=$((n + 1))
		done
	done
	pids=
}
trap 'stop_load; "$fsconc" md cleanup >/dev/null 2>&1; rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP
spin='while :; do :; done'
start_load() {
	case $1 in
	quiet)	;;
	loop)	setsid sh -c "$spin" & pids=$! ;;
	loops)	i=0
		while [ $i -lt "$ncpu" ]; do
			setsid taskset -c $i sh -c "$spin" &
			pids="$pids $!"
			i=$((i + 1))
		done ;;
	part*)	on=1 period=10
		case $1 in part:*) on=${1#part:}; on=${on%/*}; period=${1#*/} ;; esac
		setsid sh -c "while :; do timeout $on sh -c '$spin'; sleep $((period - on)); done" &
		pids=$! ;;
	esac
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
topjobs=${jobs##*,}

echo "busy: fsconc run -j $jobs -r $reps --disk $disk $*; $runs runs a load; $ncpu CPUs"
[ "$ncpu" -eq 2 ] && [ "$jobs" = "1,$ncpu" ] &&
    echo "busy: on 2 CPUs -j 1,2 is -j 1,ncpu: one row stands for both"
for load in $loads; do
	before=$(loadavg)
	t0=$(date +%s)
	: >"$priv/row"
	k=1
	while [ $k -le "$runs" ]; do
		start_load "$load"
		# shellcheck disable=SC2086
		out=$("$fsconc" run -j "$jobs" -r "$reps" --disk "$disk" "$@" \
		    -R "$priv/res" --label "busy-$k" 2>"$priv/err"); rc=$?
		stop_load
		set=$(echo "$out" | sed -n 's/^result set: //p')
		if [ -z "$set" ] || [ ! -f "$set/meta" ]; then
			echo "busy: $load, run $k: fsconc run failed (exit $rc):"
			cat "$priv/err"
			exit 1
		fi
		ec=$(echo "$out" | awk -v n="$topjobs" '$1 == n && $2 ~ /^[0-9]+$/ \
		    { print $6 }')
		reruns=$(sed -n 's/^disturbed_reruns=//p' "$set/meta")
		kept=$(sed -n 's/^disturbed_kept=//p' "$set/meta")
		# Tries checked: every timed row (one per try).
		tries=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) {
		    if ($i == "warmup") w = i; if ($i == "profiled") p = i;
		    if ($i == "status") s = i }; next }
		    /^#/ { next } !(w && $w == 1) && !(p && $p == 1) &&
		    !(s && $s != "ok" && $s != "warn") { n++ }
		    END { print n + 0 }' "$set/runs.tsv")
		flag=no
		echo "$out" | grep -q '^flag: disturbed' && flag=yes
		printf 'busy: %s run %d: EC(%s) %s, tries over %d of %d, counted disturbed %s, flagged %s, exit %d, load %s\n' \
		    "$load" "$k" "$topjobs" "${ec:--}" \
		    $((${reruns:-0} + ${kept:-0})) "$tries" "${kept:-0}" \
		    "$flag" "$rc" "$(loadavg)"
		echo "${ec:--} $((${reruns:-0} + ${kept:-0})) $tries $flag" >>"$priv/row"
		rm -rf "$set"
		k=$((k + 1))
	done
	t1=$(date +%s)
	sort -n "$priv/row" | awk -v load="$load" -v disk="$disk" \
	    -v jobs="$jobs" -v top="$topjobs" -v before="$before" \
	    -v after="$(loadavg)" -v sec=$((t1 - t0)) '
	    $1 != "-" { ec[m++] = $1 }
	    { over += $2; tries += $3; if ($4 == "yes") fl++; n++
	      s = $3 > 0 ? $2 / $3 : 0
	      if (n == 1 || s < smin) smin = s; if (n == 1 || s > smax) smax = s }
	    END {
		if (m == 0) med = "-"
		else if (m % 2) med = sprintf("%.3f", ec[(m - 1) / 2])
		else med = sprintf("%.3f", (ec[m / 2 - 1] + ec[m / 2]) / 2)
		printf "row: load %s, disk %s, -j %s: runs %d, flagged %d, " \
		    "EC(%s) median %s [%s, %s], tries over the limit " \
		    "%.1f%% (%d of %d; a run %.0f-%.0f%%); load average " \
		    "%s before, %s after; %d s\n", load, disk, jobs, n,
		    fl + 0, top, med, m ? ec[0] : "-", m ? ec[m - 1] : "-",
		    tries ? 100 * over / tries : 0, over, tries,
		    100 * smin, 100 * smax, before, after, sec }'
done
