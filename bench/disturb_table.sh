#!/bin/sh
# disturb_table: is "foreign" someone else's?  For each disk kind
# (tmpfs, loop with ext4, xfs and btrfs, zram, brd, dir:) runs
# `fsconc run -a ARCHIVE -j 1,2 -r 3` on the machine as it is and beside
# each planted load: a busy loop (sh -c 'while :; do :; done'), a dd
# from another process onto another loop device (oflag=direct), and a
# competing bsdtar extraction of the same archive into another tmpfs,
# over and over.  Prints a table: kind, load, flagged or not (run's exit
# status 4 and its flag line), the largest foreign share of the machine
# among the batches ((steal + foreign) / (real x CPUs), re-runs
# included), the kernel threads' share (mean and largest of
# kthread / (real x CPUs)), and over the whole run the other processes
# and the kernel threads that took most CPU (from /proc/PID/stat), with
# run's "kernel threads" lines below.  Every batch is tried once
# (--disturb-reruns 0 --disturb-wait off) so each row shows what one
# try measures.  Meant for a quiet machine: the load average is printed
# first.  Root only (it makes disks).
#   DT_ARCHIVE  the archive (default: a tar of /usr/include, made here)
#   DT_KINDS    kinds to run (default: tmpfs ext4 xfs btrfs zram brd dir)
#   DT_LOADS    loads (default: none busy dd tar)
#   DT_ARGS     more run options (default: none)
#   DT_BRD_SIZE brd's size (default 2g; brd's size is fixed when it is loaded)
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
kinds=${DT_KINDS:-tmpfs ext4 xfs btrfs zram brd dir}
loads=${DT_LOADS:-none busy dd tar}
if [ "$(id -u)" -ne 0 ]; then
	echo "disturb_table: skipped: needs root (it makes disks)"
	exit 0
fi
for t in losetup mount bsdtar dd; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "disturb_table: skipped: no $t"
		exit 0
	}
done
# The test hook decides nothing here: the measurement does.
unset FSCONC_TEST_FOREIGN
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-dt.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
pids= loopdev= mnt=
# Each load is a session of its own (setsid): its children die with it.
stop_load() {
	for p in $pids; do
		kill -TERM "-$p" 2>/dev/null
		wait "$p" 2>/dev/null
		# Until the last of the group (a bsdtar, a dd) is gone.
		n=0
		while kill -0 "-$p" 2>/dev/null && [ $n -lt 100 ]; do
			kill -KILL "-$p" 2>/dev/null
			sleep 0.1
			n=$((n + 1))
		done
	done
	pids=
}
cleanup() {
	stop_load
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	mnt= loopdev=
	"$fsconc" cleanup >/dev/null 2>&1
	rm -rf "$priv"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

arc=${DT_ARCHIVE:-}
if [ -z "$arc" ]; then
	arc="$priv/include.tar"
	tar -C /usr -cf "$arc" include 2>/dev/null || {
		echo "disturb_table: tar of /usr/include failed"
		exit 1
	}
fi
printf 'archive %s, %s MiB; load average %s; %s CPUs\n' "$arc" \
    "$(( $(wc -c <"$arc") / 1048576 ))" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(getconf _NPROCESSORS_ONLN)"

# A load as a process of its own (not under fsconc): its pids in $pids.
start_load() {
	case $1 in
	none) ;;
	busy)
		setsid sh -c 'while :; do :; done' &
		pids="$!"
		;;
	dd)
		truncate -s 512M "$priv/dd.img"
		loopdev=$(losetup --find --show "$priv/dd.img") || return 1
		setsid sh -c "while :; do dd if=/dev/zero of=$loopdev bs=1M \
		    count=256 oflag=direct 2>/dev/null; done" &
		pids="$!"
		;;
	tar)
		mkdir -p "$priv/tar"
		mount -t tmpfs -o size=2g fsconc-dt "$priv/tar" || return 1
		mnt="$priv/tar"
		setsid sh -c "while :; do mkdir -p '$mnt/x' && \
		    bsdtar -xf '$arc' -C '$mnt/x'; rm -rf '$mnt/x'; done" &
		pids="$!"
		;;
	esac
	return 0
}
end_load() {
	stop_load
	[ -n "$mnt" ] && umount "$mnt"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	mnt= loopdev=
	rm -f "$priv/dd.img"
}

disk_args() {
	case $1 in
	tmpfs) echo "--disk tmpfs:2g" ;;
	ext4|xfs|btrfs) echo "--disk loop:2g --fs $1" ;;
	zram) echo "--disk zram:2g" ;;
	brd) echo "--disk brd:${DT_BRD_SIZE:-2g}" ;;
	dir) mkdir -p "$priv/dirdisk"; echo "--disk dir:$priv/dirdisk/d" ;;
	esac
}

# The shares of a set: largest (steal + foreign) / (real x ncpu), and
# mean and largest kthread / (real x ncpu), from runs.tsv's header.
shares() {
	awk -F'\t' -v n="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		r = $(c["real"]) * n
		if (r <= 0) next
		f = ($(c["steal"]) + $(c["foreign"])) / r
		if (f > fm) fm = f
		if ("kthread" in c && $(c["kthread"]) != "-") {
			k = $(c["kthread"]) / r
			ks += k; kn++
			if (k > km) km = k
		}
	}
	END {
		printf "%5.1f%% %5s %5s", 100 * fm,
		    kn ? sprintf("%.1f%%", 100 * ks / kn) : "-",
		    kn ? sprintf("%.1f%%", 100 * km) : "-"
	}' "$1"
}

# Every process's CPU ticks (utime + stime), "pid start kthread ticks
# name" a line: who else ran, over a whole run (processes alive at both
# readings or born since; fsconc's own are gone by the second).
proc_snap() {
	for f in /proc/[0-9]*/stat; do
		cat "$f" 2>/dev/null
		echo
	done | awk 'NF > 20 {
		n = $0; sub(/^[0-9]+ \(/, "", n); sub(/\) [^)]*$/, "", n)
		gsub(/[^!-~]/, "_", n)
		r = $0; sub(/^.*\) /, "", r); split(r, f, " ")
		print $1, f[20], int(f[7] / 2097152) % 2, f[12] + f[13], n
	}'
}
# The processes (k=0) or kernel threads (k=1) that took most between
# two snapshots: "name seconds" of the top 3.
proc_top() {
	awk -v k="$3" -v hz="$(getconf CLK_TCK)" '
	FNR == NR { t[$1 " " $2] = $4; next }
	$3 == k { d = $4 - t[$1 " " $2]; if (d > 0) s[$5] += d }
	END { for (n in s) printf "%s %.2f\n", n, s[n] / hz }' "$1" "$2" |
	    sort -k2 -rn | head -3 |
	    awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $1, $2 }'
}

ncpu=$(getconf _NPROCESSORS_ONLN)
printf '%-6s %-5s %-8s %6s %6s %6s  %s\n' kind load flagged "foreign" \
    "kt-avg" "kt-max" "exit, flag; others' processes; kernel threads"
for k in $kinds; do
	for l in $loads; do
		rm -rf "$priv/res" "$priv/dirdisk"
		if ! start_load "$l"; then
			printf '%-6s %-5s %s\n' "$k" "$l" "load not started"
			end_load
			continue
		fi
		proc_snap >"$priv/p0"
		# shellcheck disable=SC2046
		"$fsconc" run -a "$arc" -j 1,2 -r 3 -R "$priv/res" \
		    --disturb-reruns 0 --disturb-wait off $(disk_args "$k") \
		    ${DT_ARGS:-} >"$priv/out" 2>"$priv/err"
		rc=$?
		proc_snap >"$priv/p1"
		end_load
		set -- "$priv"/res/*/*/*/runs.tsv
		if [ ! -f "$1" ]; then
			printf '%-6s %-5s %s\n' "$k" "$l" \
			    "no set (exit $rc): $(tail -1 "$priv/err")"
			continue
		fi
		flag=$(grep -c '^flag: disturbed' "$priv/out")
		printf '%-6s %-5s %-8s %s  %d; %s; %s\n' "$k" "$l" \
		    "$([ "$flag" -gt 0 ] && echo yes || echo no)" \
		    "$(shares "$1" "$ncpu")" "$rc" \
		    "$(proc_top "$priv/p0" "$priv/p1" 0)" \
		    "$(proc_top "$priv/p0" "$priv/p1" 1)"
		grep '^kernel threads' "$priv/out" | sed 's/^/    /'
	done
done
