# readtest against fio with the same file size, file system, block size
# and pattern: both read a cached 256 MiB file on tmpfs (/dev/shm) with
# pread(2), one worker, rounds alternating between the tools, medians
# compared; the ratio readtest/fio should be within 10% of 1.
# - Steady state: fio has a fixed start-up cost of about 0.25 s inside its
#   own timing window (it halves fio's figure on a 1 GiB run), so fio runs
#   time-based with a ramp excluded from its statistics, and readtest
#   reads 8 GiB (its clock starts at the gate anyway).
# - Each tool reads a file it has just written itself, every round: how a
#   tmpfs file was written moves read bandwidth by up to 1.6x (the same
#   fio read a file dd had filled from /dev/urandom at 2.7 GB/s, and one
#   it laid out itself at 4.1 GB/s), so reading different kinds of file
#   compares the files, not the readers.  A dir: disk is emptied when the
#   run ends, so the two cannot share one file.
# Then the random/sequential ratio each tool sees (the 2006 study's
# question).  Figures on a shared machine are provisional; nothing here
# asserts them.
set -u
FSCONC=${FSCONC:-./fsconc}
command -v fio >/dev/null || { echo "workloads: fio missing, skipped"; exit 0; }
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$base/fsconc-bench-wl.XXXXXX")
export FSCONC_RUNDIR="$tmp/rundir"
mkdir -p -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$tmp"' EXIT INT TERM
reps=3
size=256m

median() {
	sort -g "$1" | awk '{ x[NR] = $1 } END {
		if (NR == 0) print 0
		else if (NR % 2) print x[(NR + 1) / 2]
		else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}

ffile=$tmp/fio.dat
echo "readtest vs fio: $size file on $(df -P "$tmp" | awk 'NR == 2 { print $1 }'), pread, 1 worker, steady state (readtest 8 GiB, fio 3 s after a 1 s ramp), median of $reps"
printf '  %-4s %-7s %14s %14s %8s\n' bs pattern readtest fio ratio
for bs in 8k 32k 64k; do
	for pat in seq random; do
		rw=read
		[ $pat = random ] && rw=randread
		: >"$tmp/rt.bw"
		: >"$tmp/fio.bw"
		# Alternate the tools round by round so load from elsewhere
		# falls on both; a fresh dir: disk per round.
		k=0
		while [ $k -lt $reps ]; do
			k=$((k + 1))
			d=$tmp/d-$bs-$pat-$k
			mkdir "$d"
			"$FSCONC" run -w readtest -O size=$size -O bs=$bs \
			    -O pattern=$pat -O io=pread -O count=$((8388608 / ${bs%k})) \
			    -j 1 -r 1 --bind none \
			    --disk "dir:$d" -R "$tmp/r-$bs-$pat-$k" \
			    >/dev/null 2>"$tmp/err" ||
			    { echo "  fsconc run failed: $(cat "$tmp/err")"; break; }
			cat "$(ls -d "$tmp/r-$bs-$pat-$k"/*/*/*/)/jobs-1.bytes_per_s" \
			    >>"$tmp/rt.bw"
			# fio lays the file out itself, outside its timing.
			rm -f "$ffile"
			fio --name=rt --filename="$ffile" --rw=$rw \
			    --bs=$bs --size=$size --time_based --runtime=3 \
			    --ramp_time=1 --ioengine=psync \
			    --invalidate=0 --gtod_reduce=1 --randrepeat=1 \
			    --output-format=json >"$tmp/fio.json" 2>"$tmp/err" ||
			    { echo "  fio failed: $(cat "$tmp/err")"; break; }
			/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["bw_bytes"])' \
			    "$tmp/fio.json" >>"$tmp/fio.bw"
			rm -rf "$d"
		done
		rt=$(median "$tmp/rt.bw")
		fb=$(median "$tmp/fio.bw")
		echo "$bs $pat $rt $fb" >>"$tmp/table"
		awk -v bs=$bs -v p=$pat -v a="$rt" -v b="$fb" 'BEGIN {
			r = b > 0 ? a / b : 0
			printf "  %-4s %-7s %9.0f MB/s %9.0f MB/s %8.3f  %s\n",
			    bs, p, a / 1e6, b / 1e6, r,
			    (r >= 0.9 && r <= 1.1 ? "(within 10%)" : "(NOT within 10%)") }'
	done
done
echo "random/sequential bytes/s ratio"
awk '{ v[$1, $2, "rt"] = $3; v[$1, $2, "fio"] = $4; bs[$1] = 1 }
END {
	n = split("8k 32k 64k", order, " ")
	for (i = 1; i <= n; i++) {
		b = order[i]
		if (!((b, "seq", "rt") in v) || !((b, "random", "rt") in v))
			continue
		printf "  %-4s readtest %.3f  fio %.3f\n", b,
		    v[b, "random", "rt"] / v[b, "seq", "rt"],
		    v[b, "random", "fio"] / v[b, "seq", "fio"]
	}
}' "$tmp/table" 2>/dev/null
