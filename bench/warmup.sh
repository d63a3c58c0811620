#!/bin/sh
# warmup: the first-batch effect, with and without --warmup.  GNU tar
# extracts the archive onto the scratch directory's file system (another
# program's work, leaving its dirty pages), then fsconc runs -j 1 on
# tmpfs; per trial three runs after such an extraction: plain, with
# --warmup 1, and plain after a sync.  Prints every batch's real and sys
# time (w: a warm-up, not counted) and the first counted batch's sys
# over the mean of the others: above 1 is a cold first batch.
#   BENCH_TRIALS (3)  BENCH_REPS (4)
#   BENCH_ARCHIVE (default: fsconc mkarchive, 70000 entries, 256m)
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
trials=${BENCH_TRIALS:-3}
reps=${BENCH_REPS:-4}

if [ "$(id -u)" -ne 0 ]; then
	echo "warmup: skipped: needs root for tmpfs disks"
	exit 0
fi
if ! tar --version 2>/dev/null | grep -q 'GNU tar'; then
	echo "warmup: skipped: needs GNU tar"
	exit 0
fi
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-warmup.XXXXXX")
export FSCONC_RUNDIR="$priv/run"
mkdir -m 700 "$FSCONC_RUNDIR"
trap 'rm -rf "$priv"' EXIT
trap 'exit 1' INT TERM HUP
archive=${BENCH_ARCHIVE:-$priv/a.tar}
if [ ! -f "$archive" ]; then
	"$fsconc" mkarchive --files 70000 --bytes 256m "$archive" >/dev/null ||
	    { echo "warmup: mkarchive failed"; exit 1; }
fi
extract() {
	rm -rf "$priv/x"
	sync
	mkdir "$priv/x"
	tar xf "$archive" -C "$priv/x"
}
# run LABEL [ARGS]: one run; a line of its batches and the ratio.
run() {
	dirty=$(awk '/^Dirty:/ { print $2 }' /proc/meminfo)
	# shellcheck disable=SC2086
	out=$("$fsconc" run -a "$archive" -j 1 -r "$reps" --disk tmpfs:2g \
	    --disturb-limit off -R "$priv/res" --label "$1" ${2-} 2>&1)
	set=$(echo "$out" | sed -n 's/^result set: //p')
	[ -n "$set" ] || { echo "warmup: fsconc run failed:"; echo "$out"; exit 1; }
	printf '%-13s dirty %7s kB  ' "$1" "$dirty"
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "warmup")
		w = i; next }
	    { warm = w && $w == 1
	      printf "%s%.2f/%.2f  ", warm ? "w:" : "", $3, $5
	      if (warm) next
	      if (n++ == 0) first = $5; else { rest += $5; m++ } }
	    END { printf "first/rest sys %.2f\n", m ? first / (rest / m) : 0 }' \
	    "$set/runs.tsv"
}

echo "warmup: $trials trials, -j 1 -r $reps on tmpfs after GNU tar;" \
    "batch real/sys (s)"
echo "other load: $(cut -d' ' -f1-3 /proc/loadavg) (load average)"
t=1
while [ $t -le "$trials" ]; do
	extract; run after-tar
	extract; run after-tar+w1 "--warmup 1"
	extract; sync; run after-tar+sync
	t=$((t + 1))
done
rm -rf "$priv/x"
