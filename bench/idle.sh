#!/bin/sh
# idle: T1 and EC(2) under each --idle-guard (none, qos, spin), side by
# side: one "fsconc run --vary idle-guard=none,qos,spin" per disk, so the
# three guards take turns batch by batch (A B C for every level and
# repetition) and drift of the machine hits them alike.  On tmpfs and on
# ext4 on a loop device.  Prints, per disk and guard, mean T1 with its
# 95% interval, T1 / T1(none), EC(2) with its 95% interval (Fieller), and
# the largest disturbance (steal + foreign) seen.  Figures on a shared
# machine are noisy: read the ratios and the intervals.
#   BENCH_REPS (10)  BENCH_DISKS ("tmpfs:2g loop:2g")
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
reps=${BENCH_REPS:-10}
disks=${BENCH_DISKS:-tmpfs:2g loop:2g}

if [ "$(id -u)" -ne 0 ]; then
	echo "idle: skipped: needs root for disks and /dev/cpu_dma_latency"
	exit 0
fi
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
	echo "idle: skipped: EC(2) needs 2 CPUs"
	exit 0
fi
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-idle.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP

echo "idle: $reps repetitions, levels 1,2, guards interleaved batch by batch"
echo "other load: $(cut -d' ' -f1-3 /proc/loadavg) (load average)"
printf '%-9s %-5s %10s %9s %8s %7s %17s %8s\n' disk guard "T1 (s)" \
    "+/- 95%" "T1/none" "EC(2)" "EC 95% CI" "disturb"
for disk in $disks; do
	out=$("$fsconc" run -j 1,2 -r "$reps" --disk "$disk" \
	    --disturb-limit off --vary idle-guard=none,qos,spin \
	    -R "$priv/res" --label idle 2>&1) || {
		echo "idle: $disk: fsconc run failed:"; echo "$out"; exit 1; }
	base=
	for g in none qos spin; do
		# The run's own summary of the cell: T1 and its interval,
		# EC(2) and its interval, the largest disturbance.
		row=$(echo "$out" | awk -v g="$g" '
		    /^result set: / { on = index($0, "+idle-guard=" g "/") > 0 }
		    on && $1 == 1 { t1 = $3; hw = $4 }
		    on && $1 == 2 { ec = $6; ci = substr($0, index($0, "["));
			sub(/\].*/, "]", ci) }
		    on && /^disturbance: at most/ { d = $4 }
		    END { print t1, hw, ec, d, ci }')
		set -- $row
		[ -z "$base" ] && base=$1
		printf '%-9s %-5s %10s %9s %8.3f %7s %17s %8s\n' \
		    "${disk%%:*}" "$g" "$1" "$2" \
		    "$(echo "$1 $base" | awk '{ print $1 / $2 }')" "$3" \
		    "${5-} ${6-} ${7-}" "$4"
	done
done
