#!/bin/sh
# extract: one extraction by fsconc (the extract workload, -j 1) against
# "bsdtar xf" and GNU "tar xf" of the same archive into the same kind of
# fresh file system: tmpfs, and ext4 on a loop device whose image lives in
# memory.  As root all three restore owner, mode and times.  Repetitions
# are interleaved (fsconc, bsdtar, tar, fresh fs before each); the means of
# real, user and sys are printed with the ratios fsconc/tar and
# fsconc/bsdtar for each, so that the target "no slower than GNU tar" is
# read directly.  The tars' figures include exec and reading the archive
# (shown alone as "dd bs=10k"), which fsconc does before its clock starts,
# by design.  Figures on a shared machine are noisy: ratios only.
#   BENCH_REPS (5)  BENCH_BYTES (133m)  BENCH_FS ("tmpfs ext4")
#
# fsconc is timed by "fsconc run -w extract -j 1 -r 1" (a fresh disk each
# repetition, as users run it); the tars by bench/stopwatch.c, built here.
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
reps=${BENCH_REPS:-5}
bytes=${BENCH_BYTES:-133m}
fslist=${BENCH_FS:-tmpfs ext4}

if [ "$(id -u)" -ne 0 ]; then
	echo "extract: skipped: needs root to mount file systems"
	exit 0
fi
for t in bsdtar tar cc; do
	command -v $t >/dev/null 2>&1 || {
		echo "extract: skipped: $t missing"; exit 0; }
done

priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-extract.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
src=$priv/src mnt=$priv/mnt loopdev=
mkdir -p "$src" "$mnt"
mkdir -m 700 "$FSCONC_RUNDIR"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	mountpoint -q "$src" && umount "$src"
	rm -rf "$priv"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The archive and the loop image live in memory: no disk in the timing.
mount -t tmpfs -o size=3g fsconc-bench-src "$src" || exit 1
archive=$src/bindist.tar
"$fsconc" mkarchive --bytes "$bytes" "$archive" >/dev/null || exit 1

drv=$priv/stopwatch
cc -O2 -Wall -Wextra -Werror -o "$drv" "$top/bench/stopwatch.c" ||
    { echo "extract: cannot build bench/stopwatch.c"; exit 1; }

fresh() {	# fs
	mountpoint -q "$mnt" && umount "$mnt"
	case $1 in
	tmpfs)	mount -t tmpfs -o size=2g fsconc-bench "$mnt" ;;
	ext4)	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
		    "$loopdev" && mount "$loopdev" "$mnt" ;;
	esac || exit 1
	mkdir "$mnt/0"
}

echo "fsconc: fsconc run -w extract -j 1 -r 1, each rep"
echo "archive: $bytes, $(bsdtar -tf "$archive" | wc -l) entries; $reps reps"

for fs in $fslist; do
	if [ "$fs" = ext4 ]; then
		if ! command -v mkfs.ext4 >/dev/null 2>&1 ||
		    ! truncate -s 1g "$src/ext4.img" ||
		    ! loopdev=$(losetup -f --show "$src/ext4.img" 2>/dev/null); then
			echo "$fs: skipped: no loop device or mkfs.ext4"
			loopdev=
			continue
		fi
	fi
	out=$priv/$fs.txt
	: >"$out"
	disk=tmpfs
	[ "$fs" = ext4 ] && disk="loop:1g --fs ext4"
	r=1
	while [ $r -le "$reps" ]; do
		printf 'fsconc ' >>"$out"
		# shellcheck disable=SC2086
		"$fsconc" run -w extract -a "$archive" -j 1 -r 1 \
		    --disk $disk -R "$priv/res-$fs-$r" >/dev/null || exit 1
		d=$(dirname "$(find "$priv/res-$fs-$r" -name jobs-1.real)")
		paste -d ' ' "$d/jobs-1.real" "$d/jobs-1.user" \
		    "$d/jobs-1.sys" >>"$out"
		fresh "$fs"
		printf 'bsdtar ' >>"$out"
		"$drv" "$mnt/0" bsdtar xf "$archive" >>"$out" || exit 1
		fresh "$fs"
		printf 'tar ' >>"$out"
		"$drv" "$mnt/0" tar xf "$archive" >>"$out" || exit 1
		# What the tars pay to read the archive, which fsconc loads
		# before its clock starts (10 KiB: tar's record size).
		printf 'read ' >>"$out"
		"$drv" "$mnt/0" dd if="$archive" of=/dev/null bs=10k \
		    status=none >>"$out" || exit 1
		r=$((r + 1))
	done
	mountpoint -q "$mnt" && umount "$mnt"
	if [ -n "$loopdev" ]; then
		losetup -d "$loopdev"
		loopdev=
		rm -f "$src/ext4.img"
	fi
	awk -v fs="$fs" '
	{ n[$1]++; re[$1] += $2; us[$1] += $3; sy[$1] += $4 }
	END {
		printf "%s: mean of %d      real      user       sys\n", fs, n["tar"]
		split("fsconc bsdtar tar read", t, " ")
		for (i = 1; i <= 4; i++)
			printf "  %-18s %9.3f %9.3f %9.3f\n",
			    t[i] == "read" ? "(dd bs=10k, in tar)" : t[i],
			    re[t[i]] / n[t[i]], us[t[i]] / n[t[i]], sy[t[i]] / n[t[i]]
		for (i = 2; i <= 3; i++)
			printf "  fsconc/%-11s %9.2f %9.2f %9.2f\n", t[i],
			    (re["fsconc"] / n["fsconc"]) / (re[t[i]] / n[t[i]]),
			    (us["fsconc"] / n["fsconc"]) / (us[t[i]] / n[t[i]]),
			    (sy["fsconc"] / n["fsconc"]) / (sy[t[i]] / n[t[i]])
	}' "$out"
done
