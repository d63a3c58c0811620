#!/bin/sh
# warmup: why a first batch is slow, and what --memory-guard and
# --warmup do about it.
#
# 1. The cause, without fsconc: firsttouch.c writes 2 GiB of fresh
#    anonymous memory after an idle spell, then again at once.  On a VM
#    whose balloon reports free pages, memory left free for seconds goes
#    back to the host and its next first write faults there: the first
#    figure is the cold one.
# 2. fsconc runs after the same idle spell with neither guard nor warm-up
#    ("idle"), right after firsttouch warmed more memory than a batch
#    writes ("touched"), with --warmup 1 ("idle+w1") and with
#    --memory-guard touch ("idle+guard"), on fsconc's default archive
#    (-j 1,2) and on a real one (a tar of /usr/share, -j 1).  Per level:
#    the first counted batch's real time over the mean of the others
#    (above 1: a cold first batch; w: is the warm-up batch, never
#    counted), and the counted batches' CV.
#   BENCH_TRIALS (3)  BENCH_REPS (6)  BENCH_IDLE (30, seconds)
#   BENCH_ARCHIVE (default: a tar of /usr/share, made here)
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
trials=${BENCH_TRIALS:-3}
reps=${BENCH_REPS:-6}
idle=${BENCH_IDLE:-30}

if [ "$(id -u)" -ne 0 ]; then
	echo "warmup: skipped: needs root for tmpfs disks"
	exit 0
fi
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-warmup.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP
touch_prog=$priv/firsttouch
cc -O2 -Wall -Wextra -Werror -o "$touch_prog" "$top/bench/firsttouch.c" ||
    { echo "warmup: cannot build bench/firsttouch.c"; exit 1; }
real=${BENCH_ARCHIVE:-}
if [ -z "$real" ]; then
	real=$priv/share.tar
	tar -cf "$real" -C /usr share 2>/dev/null ||
	    { echo "warmup: cannot tar /usr/share"; exit 1; }
fi
# The real archive's batch writes about its size; warm half as much again.
touch_mib=$(( $(wc -c < "$real") / 1048576 * 3 / 2 + 64 ))

# A counter of reported memory, where the kernel has one (not mainline).
counter=/sys/module/page_reporting/parameters/reported_kib
reported() { [ -r $counter ] && cat $counter || echo 0; }
rest() {
	r0=$(reported)
	sleep "$idle"
	[ -r $counter ] && printf '(%d MiB handed back while idle) ' \
	    $(( ($(reported) - r0) / 1024 ))
}

# run LABEL WARMUP GUARD ARGS...: one run, per level the first counted
# batch against the others.
run() {
	label=$1 w=$2 g=$3
	shift 3
	out=$("$fsconc" run -r "$reps" --warmup "$w" --memory-guard "$g" \
	    --disturb-limit off -R "$priv/res" --label "$label" "$@" 2>&1)
	set=$(echo "$out" | sed -n 's/^result set: //p')
	[ -n "$set" ] || { echo "warmup: fsconc run failed:"; echo "$out"; exit 1; }
	ec=$(echo "$out" | awk '$1 == 2 && NF >= 7 { print "EC(2) " $6 }')
	printf '%-8s ' "$label"
	awk -F'\t' -v ec="$ec" 'NR == 1 { for (i = 1; i <= NF; i++) {
		if ($i == "warmup") w = i; if ($i == "status") s = i }; next }
	    $s != "ok" { next }
	    $w == 1 { wt[$1] = $3; next }
	    { all[$1] += $3; sq[$1] += $3 * $3; na[$1]++
	      if (!($1 in first)) { first[$1] = $3; lv[++nl] = $1 }
	      else { sum[$1] += $3; n[$1]++ } }
	    END { for (k = 1; k <= nl; k++) { j = lv[k]; m = all[j] / na[j]
		printf " -j %d: %s%.3f / %.3f = %.2f cv %2.0f%% ", j,
		    (j in wt) ? sprintf("w:%.3f  ", wt[j]) : "", first[j],
		    sum[j] / n[j], first[j] / (sum[j] / n[j]),
		    100 * sqrt((sq[j] - na[j] * m * m) / (na[j] - 1)) / m }
		print "  " ec }' "$set/runs.tsv"
}

fpr=no
for d in /sys/bus/virtio/devices/*; do
	[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] &&
	    [ "$(cut -c6 "$d/features" 2>/dev/null)" = 1 ] && fpr=yes
done
echo "warmup: free page reporting: $fpr; idle spells of $idle s;" \
    "other load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'first write of 2 GiB, us a page: after idle '
rest
cold=$("$touch_prog" 2048 | cut -d' ' -f1)
again=$("$touch_prog" 2048 | cut -d' ' -f1)
echo "$cold, again at once $again"

t=1
while [ "$t" -le "$trials" ]; do
	echo "trial $t: first/others, real time (s)"
	for a in default real; do
		if [ $a = default ]; then
			set -- -j 1,2
		else
			set -- -a "$real" -j 1 --disk tmpfs:2g
		fi
		echo " archive: $a"
		printf '  '; rest; echo
		printf '  '; run idle 0 none "$@"
		"$touch_prog" "$touch_mib" >/dev/null
		printf '  '; run touched 0 none "$@"
		printf '  '; rest; echo
		printf '  '; run idle+w1 1 none "$@"
		printf '  '; rest; echo
		printf '  '; run idle+guard 0 touch "$@"
	done
	t=$((t + 1))
done
