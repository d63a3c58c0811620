# The harness itself, measured side by side in one run:
#  1. ceiling: calib (CPU only, no fs) must reach EC(ncpu) >= 0.95*ncpu,
#     in process and thread mode;
#  2. noise: stddev of T1 over 10 repetitions of `fsconc run -j 1` of the
#     extract workload next to a plain shell loop (mkfs; mount; time tar
#     xf) on the same kind of fresh file system.
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

echo "ceiling: calib, -j 1,$ncpu, 10 repetitions (target EC(ncpu) >= 0.95*ncpu)"
for mode in process thread; do
	"$FSCONC" run -w calib -O iterations=100000000 -j "1,$ncpu" -r 10 \
	    --mode $mode -o "$tmp/calib-$mode" >/dev/null 2>"$tmp/err" || {
		echo "  $mode: fsconc run failed: $(cat "$tmp/err")"; continue; }
	set=$(ls -d "$tmp/calib-$mode"/*/*/*/)
	set -- $(stats "$set/jobs-1.real"); m1=$1
	set -- $(stats "$set/jobs-$ncpu.real"); mn=$1
	awk -v n="$ncpu" -v a="$m1" -v b="$mn" -v mode=$mode 'BEGIN {
		ec = n * a / b
		printf "  %-7s T1 %.4fs  T%d %.4fs  EC(%d) = %.3f  EC/ncpu = %.3f  %s\n",
		    mode, a, n, b, n, ec, ec / n,
		    (ec >= 0.95 * n ? "(>= 0.95: met)" : "(< 0.95: NOT met)") }'
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
for disk in tmpfs loop; do
	if ! "$FSCONC" run -a "$tmp/a.tar" -j 1 -r 10 --disk $disk \
	    -o "$tmp/x-$disk" >/dev/null 2>"$tmp/err"; then
		echo "  $disk: fsconc run failed: $(head -n 3 "$tmp/err")"
		continue
	fi
	set -- $(stats "$(ls -d "$tmp/x-$disk"/*/*/*/)/jobs-1.real")
	fm=$1 fs=$2
	: >"$tmp/shell-$disk"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if [ $disk = tmpfs ]; then
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
		echo "$t1 - $t0" | bc -l >>"$tmp/shell-$disk"
		umount "$tmp/mnt"
	done
	set -- $(stats "$tmp/shell-$disk")
	awk -v d=$disk -v fm="$fm" -v fs="$fs" -v sm="$1" -v ss="$2" -v t="$(basename "$tar")" 'BEGIN {
		printf "  %-5s fsconc: mean %.4fs sd %.4fs (cv %.2f%%)   shell %s: mean %.4fs sd %.4fs (cv %.2f%%)   sd ratio fsconc/shell %.2f\n",
		    d, fm, fs, 100 * fs / fm, t, sm, ss, 100 * ss / sm, (ss > 0 ? fs / ss : 0) }'
done
