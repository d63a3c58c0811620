#!/bin/sh
# syncend: how much the figures move when a batch ends with getting its
# data to the device (--batch-end syncfs) instead of its last worker's
# exit (the default), on ext4, xfs and btrfs on loop disks, both ends
# side by side in one run (--vary batch-end=exit,syncfs: cells
# interleaved batch by batch, so a loaded machine hits both alike).
# Per file system and end: mean T1, T2, EC(2) = 2 T1 / T2, and the
# dirty data left at the last worker's exit (runs.tsv dirty, MiB, the
# same in both cells: what the sync wrote); then syncfs over exit.
#   BENCH_REPS (3)  BENCH_FS ("ext4 xfs btrfs")  BENCH_DISK (loop:1g)
#   BENCH_ARCHIVE (default: a tar of /usr/include, made here)
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
reps=${BENCH_REPS:-3}
fss=${BENCH_FS:-ext4 xfs btrfs}
disk=${BENCH_DISK:-loop:1g}

if [ "$(id -u)" -ne 0 ]; then
	echo "syncend: skipped: needs root for loop disks"
	exit 0
fi
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-syncend.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP
arch=${BENCH_ARCHIVE:-}
if [ -z "$arch" ]; then
	arch=$priv/inc.tar
	tar -cf "$arch" -C /usr include 2>/dev/null ||
	    { echo "syncend: cannot tar /usr/include"; exit 1; }
fi
echo "syncend: $(wc -c <"$arch" | awk '{ printf "%.0f MiB", $1 / 1048576 }') archive, $disk, -j 1,2 -r $reps, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

# stats SET: mean T1, mean T2, EC(2), mean dirty MiB at 1 and 2, of the
# batches that count (status ok or warn, not disturbed, profiled or
# warm-up); columns by name.
stats() {
	awk -F'\t' 'NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
	    ($c["status"] == "ok" || $c["status"] == "warn") && $c["disturbed"] != 1 &&
	    $c["profiled"] != 1 && $c["warmup"] != 1 {
		j = $c["jobs"]; t[j] += $c["real"]; n[j]++
		if ($c["dirty"] != "-") { d[j] += $c["dirty"]; nd[j]++ }
	    }
	    END {
		t1 = n[1] ? t[1] / n[1] : 0; t2 = n[2] ? t[2] / n[2] : 0
		printf "%.3f %.3f %.3f %.0f %.0f\n", t1, t2, (t2 > 0 ? 2 * t1 / t2 : 0),
		    (nd[1] ? d[1] / nd[1] / 1024 : -1), (nd[2] ? d[2] / nd[2] / 1024 : -1)
	    }' "$1/runs.tsv"
}

printf '%-6s %-7s %9s %9s %7s %11s %11s\n' fs end "T1 (s)" "T2 (s)" "EC(2)" \
    "dirty1 MiB" "dirty2 MiB"
for fs in $fss; do
	if ! "$fsconc" run -a "$arch" --disk "$disk" --fs "$fs" -j 1,2 -r "$reps" \
	    --vary batch-end=exit,syncfs --disturb-limit off -R "$priv/r-$fs" \
	    >"$priv/$fs.log" 2>&1; then
		echo "$fs: run failed:"; tail -n 5 "$priv/$fs.log"
		continue
	fi
	for e in exit syncfs; do
		set=$(ls -d "$priv"/r-"$fs"/vary/*/*/*batch-end="$e"/*/ | head -n 1)
		stats "$set" >"$priv/$fs.$e"
		read -r t1 t2 ec d1 d2 <"$priv/$fs.$e"
		printf '%-6s %-7s %9s %9s %7s %11s %11s\n' "$fs" "$e" "$t1" "$t2" \
		    "$ec" "$d1" "$d2"
	done
	paste "$priv/$fs.exit" "$priv/$fs.syncfs" | awk -v fs="$fs" '{
	    printf "%-6s %-7s %9.2f %9.2f %7.2f   (syncfs / exit)\n", fs, "ratio",
		$6 / $1, $7 / $2, $8 / $3 }'
done
