# The harness itself, measured side by side in one run:
#  1. ceiling: calib (CPU only, no fs) must reach EC(ncpu) >= 0.95*ncpu,
#     in process and thread mode;
#  2. noise: stddev of T1 over 10 repetitions of `fsconc run -j 1` of the
#     extract workload next to a plain shell loop (mkfs; mount; time tar
#     xf) on the same kind of fresh file system, alternating.
# Figures on a shared machine are provisional; nothing here asserts them.
set -u
FSCONC=${FSCONC:-./fsconc}
ncpu=$(getconf _NPROCESSORS_ONLN)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
export FSCONC_RUNDIR="$tmp/rundir"
mkdir -m 700 "$FSCONC_RUNDIR" && mkdir "$tmp/mnt"
cleanup() {
	mountpoint -q "$tmp/mnt" 2>/dev/null && umount "$tmp/mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# mean and stddev (two-pass) of the numbers in a file
stats() {
	awk '{ x[NR] = $1; s += $1 } END {
		if (NR == 0) { print "- -"; exit }
		m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		printf "%.6f %.6f\n", m, (NR > 1 ? sqrt(v / (NR - 1)) : 0) }' "$1"
}

echo "ceiling: calib, -j 1,$ncpu, 20 repetitions (target EC(ncpu) >= 0.95*ncpu)"
for mode in process thread; do
	# EC and its 95% interval (Fieller) from run's own summary row.
	"$FSCONC" run -w calib -O iterations=100000000 -j "1,$ncpu" -r 20 \
	    --mode $mode -R "$tmp/calib-$mode" >"$tmp/summary" 2>"$tmp/err" || {
		echo "  $mode: fsconc run failed: $(cat "$tmp/err")"; continue; }
	tr -d '[],' <"$tmp/summary" | awk -v n="$ncpu" -v mode=$mode '
	    $1 == 1 && NF >= 4 { t1 = $3 }
	    $1 == n && NF >= 9 { tn = $3; ec = $6; lo = $7; hi = $8 }
	    END {
		if (ec == "") { printf "  %-7s no EC row in the summary\n", mode; exit }
		printf "  %-7s T1 %.4fs  T%d %.4fs  EC(%d) = %.3f [%.3f, %.3f]  EC/ncpu = %.3f  %s\n",
		    mode, t1, n, tn, n, ec, lo, hi, ec / n,
		    (ec >= 0.95 * n ? "(>= 0.95: met)" : hi >= 0.95 * n ? \
		    "(0.95 within the 95% CI: not shown to be missed)" : \
		    "(< 0.95 with 95% confidence: NOT met)") }'
done

echo "noise: stddev of T1 over 10 repetitions, fsconc run -j 1 vs a shell loop"
if [ "$(id -u)" -ne 0 ]; then
	echo "  skipped: needs root (mount)"
	exit 0
fi
if ! "$FSCONC" mkarchive --files 2000 --bytes 32m "$tmp/a.tar" >/dev/null 2>"$tmp/err"; then
	echo "  skipped: fsconc mkarchive unavailable: $(head -n 1 "$tmp/err")"
	exit 0
fi
tar=$(command -v bsdtar || command -v tar)
# One shell repetition: fresh fs, time tar xf, umount.
shell_once() {
	if [ "$1" = tmpfs ]; then
		mount -t tmpfs -o size=1g fsconc-bench "$tmp/mnt"
	else
		rm -f "$tmp/img"
		truncate -s 1g "$tmp/img"
		mkfs.ext4 -q -F "$tmp/img"
		mount -o loop "$tmp/img" "$tmp/mnt"
	fi
	mkdir "$tmp/mnt/0"
	t0=$(date +%s.%N)
	"$tar" xf "$tmp/a.tar" -C "$tmp/mnt/0"
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
	umount "$tmp/mnt"
}
# The two methods alternate, repetition by repetition, so that the drift
# of a shared machine falls on both alike.
for disk in tmpfs loop; do
	: >"$tmp/fsconc-$disk"
	: >"$tmp/shell-$disk"
	failed=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if ! "$FSCONC" run -a "$tmp/a.tar" -j 1 -r 1 --disk $disk \
		    -R "$tmp/x-$disk-$i" >/dev/null 2>"$tmp/err"; then
			failed=$(head -n 3 "$tmp/err")
			break
		fi
		cat "$(ls -d "$tmp/x-$disk-$i"/*/*/*/)/jobs-1.real" >>"$tmp/fsconc-$disk"
		shell_once $disk >>"$tmp/shell-$disk"
	done
	if [ -n "$failed" ]; then
		echo "  $disk: fsconc run failed: $failed"
		continue
	fi
	set -- $(stats "$tmp/fsconc-$disk")
	fm=$1 fs=$2
	set -- $(stats "$tmp/shell-$disk")
	awk -v d=$disk -v fm="$fm" -v fs="$fs" -v sm="$1" -v ss="$2" -v t="$(basename "$tar")" 'BEGIN {
		printf "  %-5s fsconc: mean %.4fs sd %.4fs (cv %.2f%%)   shell %s: mean %.4fs sd %.4fs (cv %.2f%%)   sd ratio fsconc/shell %.2f\n",
		    d, fm, fs, 100 * fs / fm, t, sm, ss, 100 * ss / sm, (ss > 0 ? fs / ss : 0) }'
done
