#!/bin/sh
# fsconc stat -A against ministat -A, side by side in one run: two files
# of 1,000,000 values, then 7 files of 100,000.  Prints the best of
# $STAT_BENCH_RUNS (default 5) interleaved runs of each, the speed ratio,
# and whether the outputs are identical.
set -u
FSCONC=${FSCONC:-./fsconc}
case $FSCONC in /*) ;; *) FSCONC=$(pwd)/$FSCONC ;; esac
runs=${STAT_BENCH_RUNS:-5}
if ! command -v ministat >/dev/null 2>&1; then
	echo "stat: SKIP ministat(1) is not installed"
	exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# gen N MEAN SD SEED: normal values (Box-Muller), 6 decimals.
gen() {
	awk -v n="$1" -v m="$2" -v s="$3" -v seed="$4" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++) {
			u = rand(); v = rand(); if (u < 1e-12) u = 1e-12
			printf "%.6f\n", m + s * sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
		}
	}'
}

now() { date +%s%N; }

# bench_pair LABEL FILE...: the fastest of $runs runs of each, in ms.
bench_pair() {
	label=$1; shift
	fbest= mbest=
	i=0
	while [ $i -lt "$runs" ]; do
		t0=$(now); "$FSCONC" stat -A "$@" >"$dir/f.out"; t1=$(now)
		ministat -A "$@" >"$dir/m.out"; t2=$(now)
		f=$(( (t1 - t0) / 1000000 )); m=$(( (t2 - t1) / 1000000 ))
		[ -z "$fbest" ] || [ "$f" -lt "$fbest" ] && fbest=$f
		[ -z "$mbest" ] || [ "$m" -lt "$mbest" ] && mbest=$m
		i=$((i + 1))
	done
	if cmp -s "$dir/f.out" "$dir/m.out"; then same=identical; else same=DIFFERENT; fi
	[ "$fbest" -gt 0 ] || fbest=1
	printf '%-26s fsconc %5d ms  ministat %5d ms  ratio %5.2fx  output %s\n' \
	    "$label" "$fbest" "$mbest" "$(echo "$mbest $fbest" | awk '{ print $1 / $2 }')" "$same"
}

gen 1000000 100 10 1 >"$dir/a"
gen 1000000 100.01 10 2 >"$dir/b"
(cd "$dir" && bench_pair "2 x 1,000,000 values" a b)
set --
for k in 1 2 3 4 5 6 7; do
	gen 100000 $((50 + k)) 5 $((10 + k)) >"$dir/s$k"
	set -- "$@" "s$k"
done
(cd "$dir" && bench_pair "7 x 100,000 values" "$@")
