#!/bin/sh
# md-setup: refresh cycle time (umount + mkfs + mount) per backend and
# size, and write bandwidth with 1 MiB blocks to the raw device (the
# original study's "dd if=/dev/zero of=/dev/md0 bs=1m") next to the same
# write through the mounted file system, measured side by side.
#   bench/md.sh [REPS]      (root; sizes 512 MiB and 2 GiB)
set -u
FSCONC=${FSCONC:-./fsconc}
reps=${1:-5}
if [ "$(id -u)" -ne 0 ]; then
	echo "md: skipped (needs root)"
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-mdbench.XXXXXX")
export FSCONC_RUNDIR="$t/run"
trap '"$FSCONC" md destroy all >/dev/null 2>&1; rm -rf "$t"' EXIT

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }

# MiB/s of "dd ... 2>FILE": bytes and seconds from its last line.
ddrate() {
	awk '/bytes/ && /copied/ { b = $1; for (i = 1; i <= NF; i++)
	    if ($i ~ /^s,?$/) s = $(i - 1); gsub(",", ".", s)
	    if (s > 0) printf "%.0f", b / 1048576 / s }' "$1"
}

# Write COUNT MiB to TARGET; direct I/O where the target takes it.
ddwrite() {	# TARGET COUNT
	if ! dd if=/dev/zero of="$1" bs=1M count="$2" oflag=direct \
	    2>"$t/dd" && ! dd if=/dev/zero of="$1" bs=1M count="$2" \
	    conv=fsync 2>"$t/dd"; then
		echo "-"
		return
	fi
	ddrate "$t/dd"
}

printf '%-22s %5s %9s %9s %9s %9s %7s\n' backend size "refresh" "min" \
    "raw" "via-fs" "fs/raw"
printf '%-22s %5s %9s %9s %9s %9s %7s\n' "" "" "mean(s)" "(s)" "MiB/s" \
    "MiB/s" ""
for size in 512m 2g; do
	case $size in 512m) mib=256 ;; 2g) mib=1024 ;; esac
	for b in "loop ext4" "loop xfs" "loop btrfs" "zram ext4" \
	    "zram btrfs" "tmpfs -"; do
		set -- $b
		backend=$1 fs=$2
		fsopt=
		[ "$fs" != - ] && fsopt="--fs $fs"
		[ "$fs" != - ] && ! have mkfs.$fs && continue
		[ $backend = zram ] && [ ! -e /sys/class/zram-control ] && continue
		# Refresh cycle: a process-owned disk refreshed $reps times.
		out=$("$FSCONC" md cycle -n "$reps" $fsopt $backend:$size 2>&1) ||
		    { echo "$backend:$size $fs: $out" | tail -1; continue; }
		stats=$(echo "$out" | sed -n 's/^refresh_seconds=//p' |
		    awk '{ s += $1; if (min == "" || $1 < min) min = $1 }
		    END { printf "%.4f %.4f", s / NR, min }')
		# Bandwidth, each on a fresh disk: through the fs, then raw.
		line=$("$FSCONC" md create $fsopt $backend:$size) || continue
		id=${line%%	*} mnt=${line#*	}
		fsbw=$(ddwrite "$mnt/zero" $mib)
		"$FSCONC" md destroy "$id"
		line=$("$FSCONC" md create $fsopt $backend:$size) || continue
		id=${line%%	*} mnt=${line#*	}
		dev=$("$FSCONC" md list | awk -F'\t' -v id="$id" '$1 == id { print $6 }')
		raw=-
		# The raw write needs the fs out of the way: umount it first.
		if [ "$dev" != - ] && [ -b "$dev" ]; then
			umount "$mnt" && raw=$(ddwrite "$dev" $mib)
		fi
		"$FSCONC" md destroy "$id"
		ratio=-
		[ "$raw" != - ] && [ "$fsbw" != - ] &&
		    ratio=$(awk -v a="$fsbw" -v b="$raw" 'BEGIN { printf "%.2f", a / b }')
		printf '%-22s %5s %9s %9s %9s %9s %7s\n' "$backend $fs" $size \
		    $stats "$raw" "$fsbw" "$ratio"
	done
done
echo "($reps refreshes per row; $(nproc) CPUs; dd if=/dev/zero bs=1M, 256 MiB (512m) or"
echo " 1 GiB (2g), oflag=direct where taken, each on a fresh disk; zram stores"
echo " zero pages without compressing them, so its /dev/zero figures are a ceiling)"
