#!/bin/sh
# extract: fsconc's extract workload against GNU "tar xf" of the same
# archive, on the same kind of fresh file system (tmpfs, and ext4 on a
# loop device whose image lives in memory), at -j 1 and at -j N (ncpu):
# there the batch's wall time against N GNU tars started together, each
# into its own directory.  As root both restore owner, mode and times
# (tar: its root defaults, --same-owner --preserve-permissions; fsconc:
# extract's default flags).  Repetitions are interleaved (fsconc in each
# mode and tar, fresh fs before each, the order rotated every repetition:
# on a VM whose freed memory goes back to the host, who runs first pays to
# touch it again).  Printed per archive: the means of
# real, user and sys with the ratios fsconc/tar, system calls per entry
# (strace -f: fsconc's worker, tar's whole process), peak memory at -j N
# and fsconc's load times (untimed setup, from its meta file).
#
#   bench/extract.sh [-a FILE]...   archives (default: a mkarchive archive,
#                                   and Debian's linux-source-6.1 when
#                                   installed: scripts/install-deps --bench)
#   BENCH_REPS (3)  BENCH_BYTES (133m, mkarchive)  BENCH_FS ("tmpfs ext4")
#   BENCH_MODES ("process thread")  BENCH_JOBS (ncpu)  BENCH_BSDTAR (0)
#
# A compressed archive is given to fsconc as it is (it decompresses once,
# at load, untimed) and to tar decompressed, so that both time extraction
# alone; the tars' times include reading the archive (a copy in memory),
# fsconc's do not (it holds the image before its clock starts).  Figures
# on a shared machine are noisy: ratios measured side by side only.
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
reps=${BENCH_REPS:-3}
bytes=${BENCH_BYTES:-133m}
fslist=${BENCH_FS:-tmpfs ext4}
modes=${BENCH_MODES:-process thread}
njobs=${BENCH_JOBS:-$(getconf _NPROCESSORS_ONLN)}
bsd=${BENCH_BSDTAR:-0}
linux_src=/usr/src/linux-source-6.1.tar.xz

archives=
while getopts a: opt; do
	case $opt in
	a)	[ -f "$OPTARG" ] || { echo "extract: $OPTARG: no such file"; exit 2; }
		archives="$archives $(cd "$(dirname "$OPTARG")" && pwd)/$(basename "$OPTARG")" ;;
	*)	echo "usage: bench/extract.sh [-a archive]..." >&2; exit 2 ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "extract: skipped: needs root to mount file systems"
	exit 0
fi
for t in tar cc; do
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

if [ -z "$archives" ]; then
	archives="mkarchive"
	if [ -f "$linux_src" ]; then
		archives="$archives $linux_src"
	else
		echo "extract: $linux_src not installed (scripts/install-deps" \
		    "--bench installs linux-source-6.1): bench on mkarchive only"
	fi
fi

# The archives, the tars' plain copies and the loop images live in memory.
# (A tmpfs takes only what is written: its size is a bound.)
avail=$(awk '/^MemAvailable:/ { print int($2 / 1024 * 3 / 4) }' /proc/meminfo)
mount -t tmpfs -o size="${avail}m" fsconc-bench-src "$src" || exit 1

drv=$priv/stopwatch
cc -O2 -Wall -Wextra -Werror -o "$drv" "$top/bench/stopwatch.c" ||
    { echo "extract: cannot build bench/stopwatch.c"; exit 1; }

# fresh FS SIZE_MIB: a new file system on $mnt (ext4: on $loopdev).
fresh() {
	mountpoint -q "$mnt" && umount "$mnt"
	case $1 in
	tmpfs)	mount -t tmpfs -o size="$2m" fsconc-bench "$mnt" ;;
	ext4)	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
		    "$loopdev" && mount "$loopdev" "$mnt" ;;
	esac || exit 1
}

# tars N PLAIN: N GNU tars at once, each into its own directory; prints
# "wall user sys" (user and sys summed over the tars).
tars() {
	_i=0
	while [ $_i -lt "$1" ]; do mkdir "$mnt/$_i"; _i=$((_i + 1)); done
	_t0=$(date +%s.%N)
	_i=0
	while [ $_i -lt "$1" ]; do
		"$drv" "$mnt/$_i" tar xf "$2" >"$priv/tar.$_i" &
		_i=$((_i + 1))
	done
	wait
	_t1=$(date +%s.%N)
	cat "$priv"/tar.* | awk -v t0="$_t0" -v t1="$_t1" \
	    '{ u += $2; s += $3 } END { printf "%.6f %.6f %.6f\n", t1 - t0, u, s }'
	rm -f "$priv"/tar.*
}

# The fsconc process tree's peak proportional set size while PID runs,
# in KiB, plus the memfd image (held once, mapped by nobody).
peak_mem() {
	_peak=0 _img=0
	# Until it exits (a zombie, not yet waited for, counts as gone).
	while [ -r /proc/"$1"/stat ] &&
	    [ "$(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null)" != Z ]; do
		_pids=$(ps -o pid= --ppid "$1"; echo "$1")
		_sum=0
		for _p in $_pids; do
			_k=$(awk '/^Pss:/ { print $2 }' \
			    /proc/"$_p"/smaps_rollup 2>/dev/null)
			_sum=$((_sum + ${_k:-0}))
		done
		[ "$_sum" -gt "$_peak" ] && _peak=$_sum
		for _f in /proc/"$1"/fd/*; do
			case $(readlink "$_f" 2>/dev/null) in
			*memfd:fsconc-archive*)
				_s=$(stat -L -c %s "$_f" 2>/dev/null)
				[ "${_s:-0}" -gt $((_img * 1024)) ] &&
				    _img=$((_s / 1024)) ;;
			esac
		done
		sleep 0.1
	done
	echo "$_peak $_img"
}

meta_get() {	# KEY SETDIR
	sed -n "s/^$1=//p" "$2/meta"
}

n=0
for a in $archives; do
	n=$((n + 1))
	if [ "$a" = mkarchive ]; then
		a=$src/bindist.tar
		"$fsconc" mkarchive --bytes "$bytes" "$a" >/dev/null || exit 1
	else
		cp "$a" "$src/" || exit 1
		a=$src/$(basename "$a")
	fi
	# The tars read a plain copy (fsconc decompresses once, untimed).
	plain=$a
	case $a in
	*.xz|*.txz) dec="xz -dc" ;;
	*.gz|*.tgz) dec="gzip -dc" ;;
	*.zst)	dec="zstd -dc" ;;
	*.bz2)	dec="bzip2 -dc" ;;
	*)	dec= ;;
	esac
	if [ -n "$dec" ]; then
		plain=$src/plain-$n.tar
		$dec "$a" >"$plain" || exit 1
	fi
	res=$priv/res-$n
	# One load to read the archive's figures; its memory at -j N.
	"$fsconc" run -w extract -a "$a" -j "$njobs" -r 1 --disk tmpfs \
	    -R "$res/mem" >/dev/null 2>&1 &
	mem=$(peak_mem $!)
	wait $! || { echo "extract: fsconc run failed on $a"; exit 1; }
	set0=$(dirname "$(find "$res/mem" -name meta | head -1)")
	ent=$(meta_get archive_entries "$set0")
	img=$(meta_get archive_image_bytes "$set0")
	pay=$(meta_get archive_bytes "$set0")
	# Disk sizes (MiB): payload plus a block per entry, N times, and slack.
	fsmb=$(( (pay + ent * 4096) * njobs * 5 / 4 / 1048576 + 256 ))
	echo
	echo "archive: $(basename "$a"): $ent entries, image $((img / 1048576)) MiB," \
	    "$(meta_get archive_filters "$set0") ($(meta_get archive_image "$set0"))"
	echo "  fsconc load (untimed): read $(meta_get setup.archive_read_s "$set0") s," \
	    "hash $(meta_get setup.archive_hash_s "$set0") s," \
	    "decompress $(meta_get setup.archive_decompress_s "$set0") s," \
	    "walk $(meta_get setup.archive_walk_s "$set0") s"
	echo "$mem $img $njobs" | awk '{
		printf "  memory at -j %d (process): peak Pss of the tree %.1f MiB" \
		    " + image memfd %.1f MiB = %.1f MiB; image %.1f MiB:" \
		    " %.1f MiB per worker over it\n", $4, $1 / 1024, $2 / 1024,
		    ($1 + $2) / 1024, $3 / 1048576,
		    (($1 + $2) * 1024 - $3) / 1048576 / $4 }'

	# System calls per entry, on tmpfs, -j 1.
	if command -v strace >/dev/null 2>&1; then
		line="  syscalls per entry (-j 1, tmpfs):"
		for mode in $modes; do
			rm -rf "$priv/st" && mkdir "$priv/st"
			strace -f -ff -o "$priv/st/s" "$fsconc" run -w extract \
			    -a "$a" -j 1 -r 1 --mode "$mode" --disk tmpfs \
			    -R "$res/st" >/dev/null 2>&1
			# The worker: the process or thread that made the files.
			c=$(grep -l 'O_CREAT|O_EXCL' "$priv"/st/s.* | while read -r f; do
				grep -c '^[a-z_0-9]*(' "$f"; done | sort -n | tail -1)
			line="$line fsconc $mode $(echo "${c:-0} $ent" |
			    awk '{ printf "%.2f", $1 / $2 }'),"
		done
		fresh tmpfs "$fsmb"
		mkdir "$mnt/0"
		(cd "$mnt/0" && strace -f -c -o "$priv/st.tar" tar xf "$plain")
		c=$(awk '$NF == "total" { print $(NF - 2) }' "$priv/st.tar")
		echo "$line tar $(echo "$c $ent" | awk '{ printf "%.2f", $1 / $2 }')"
	else
		echo "  syscalls per entry: strace missing"
	fi

	for fs in $fslist; do
		if [ "$fs" = ext4 ]; then
			if ! command -v mkfs.ext4 >/dev/null 2>&1 ||
			    ! truncate -s "${fsmb}m" "$src/ext4.img" ||
			    ! loopdev=$(losetup -f --show "$src/ext4.img" 2>/dev/null); then
				echo "  $fs: skipped: no loop device or mkfs.ext4"
				loopdev=
				continue
			fi
		fi
		out=$priv/$fs-$n.txt
		: >"$out"
		disk=tmpfs:${fsmb}m
		[ "$fs" = ext4 ] && disk="loop:${fsmb}m --fs ext4"
		levels=1
		[ "$njobs" -gt 1 ] && levels=1,$njobs
		order="$modes tar"
		r=1
		while [ $r -le "$reps" ]; do
			for what in $order; do
				if [ "$what" = tar ]; then
					fresh "$fs" "$fsmb"
					printf 'tar 1 ' >>"$out"
					tars 1 "$plain" >>"$out"
					if [ "$bsd" = 1 ] &&
					    command -v bsdtar >/dev/null 2>&1; then
						fresh "$fs" "$fsmb"
						mkdir "$mnt/0"
						printf 'bsdtar 1 ' >>"$out"
						"$drv" "$mnt/0" bsdtar xf "$plain" >>"$out"
					fi
					if [ "$njobs" -gt 1 ]; then
						fresh "$fs" "$fsmb"
						printf 'tar %s ' "$njobs" >>"$out"
						tars "$njobs" "$plain" >>"$out"
					fi
					umount "$mnt"
					continue
				fi
				# shellcheck disable=SC2086
				"$fsconc" run -w extract -a "$a" -j $levels -r 1 \
				    --mode "$what" --disk $disk \
				    -R "$res/$fs-$what-$r" >/dev/null 2>&1 ||
				    { echo "extract: fsconc run failed"; exit 1; }
				d=$(dirname "$(find "$res/$fs-$what-$r" -name meta)")
				for j in 1 $njobs; do
					[ -f "$d/jobs-$j.real" ] || continue
					printf '%s %s ' "$what" "$j" >>"$out"
					paste -d ' ' "$d/jobs-$j.real" \
					    "$d/jobs-$j.user" "$d/jobs-$j.sys" >>"$out"
				done
			done
			# The next repetition starts with the next one: none is
			# always first after the memory the last one freed.
			order="${order#* } ${order%% *}"
			r=$((r + 1))
		done
		mountpoint -q "$mnt" && umount "$mnt"
		if [ -n "$loopdev" ]; then
			losetup -d "$loopdev"
			loopdev=
			rm -f "$src/ext4.img"
		fi
		awk -v fs="$fs" -v modes="$modes" '
		{ k = $1 " " $2; n[k]++; re[k] += $3; us[k] += $4; sy[k] += $5
		  r3[k, n[k]] = $3; r5[k, n[k]] = $5
		  if ($2 > 1) jn = $2 }
		END {
			nm = split(modes " tar bsdtar", t, " ")
			split("1 " jn, js, " ")
			for (jj = 1; jj <= (jn > 1 ? 2 : 1); jj++) {
				j = js[jj]
				printf "  %s -j %d, mean of %d       real      user       sys\n",
				    fs, j, n["tar " j]
				for (i = 1; i <= nm; i++) {
					k = t[i] " " j
					if (!(k in n)) continue
					printf "    %-22s %9.3f %9.3f %9.3f\n",
					    (t[i] ~ /tar/ ? t[i] : "fsconc " t[i]),
					    re[k] / n[k], us[k] / n[k], sy[k] / n[k]
				}
				for (i = 1; i <= nm; i++) {
					k = t[i] " " j
					if (t[i] ~ /tar/ || !(k in n)) continue
					b = "tar " j
					printf "    %-22s %9.2f %9.2f %9.2f\n",
					    "fsconc " t[i] "/tar",
					    (re[k] / n[k]) / (re[b] / n[b]),
					    (us[k] / n[k]) / (us[b] / n[b]),
					    (sy[k] / n[k]) / (sy[b] / n[b])
					# The spread: the ratio in each repetition.
					lo = slo = 1e9; hi = shi = 0
					for (r = 1; r <= n[k] && r <= n[b]; r++) {
						x = r3[k, r] / r3[b, r]
						y = r5[k, r] / r5[b, r]
						if (x < lo) lo = x
						if (x > hi) hi = x
						if (y < slo) slo = y
						if (y > shi) shi = y
					}
					printf "      (per repetition: real %.2f..%.2f," \
					    " sys %.2f..%.2f)\n", lo, hi, slo, shi
				}
			}
		}' "$out"
	done
	rm -f "$a" "$src"/plain-*.tar
done
