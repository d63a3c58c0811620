#!/bin/sh
# Flame graphs against the number of sibling frames: fsconc report of a
# hand-made profiled set whose jobs-1 and jobs-2 profiles each hold K
# sibling frames under one parent (K = $FLAME_BENCH_SIZES, default 10000
# 20000 40000 80000 160000), the fastest of $FLAME_BENCH_RUNS (default 3)
# runs at each size, interleaved.  The time of the same report with 10
# frames is subtracted (gnuplot, the page), and the ratio of each size's
# time to the previous one's is printed: about 2x per doubling is linear
# growth, 4x quadratic.  No absolute threshold.
set -u
FSCONC=${FSCONC:-./fsconc}
case $FSCONC in /*) ;; *) FSCONC=$(pwd)/$FSCONC ;; esac
sizes=${FLAME_BENCH_SIZES:-10000 20000 40000 80000 160000}
runs=${FLAME_BENCH_RUNS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# mkset K: a set with K sibling frames in each of its two profiles, in
# an order that is not sorted (the reader sorts stacks; the tree must
# not depend on it).
mkset() {
	d=$dir/root/h/k$1/20261201T000000Z
	mkdir -p "$d/profile"
	cat >"$d/meta" <<EOF
format=1
host=h
label=k$1
created=2026-12-01T00:00:00Z
ncpu=2
workload=dirops
profile=perf record cpu-clock, system-wide, call chains
profile.hz=1000
profile.reps=1
end=2026-12-01T00:01:00Z
EOF
	{
		printf '# jobs\trep\treal\tuser\tsys\tnvcsw\tnivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\tdisturbed\tprofiled\treason\n'
		for r in 1 2 3; do
			printf '1\t%d\t0.1\t0.05\t0.05\t1\t1\t0\t0\tok\t0\t0\t0\t0\t0\t-\n' $r
			printf '2\t%d\t0.15\t0.1\t0.1\t1\t1\t0\t0\tok\t0\t0\t0\t0\t0\t-\n' $r
		done
		printf '1\t4\t0.2\t0.05\t0.05\t1\t1\t0\t0\tok\t0\t0\t0\t0\t1\t-\n'
		printf '2\t4\t0.3\t0.1\t0.1\t1\t1\t0\t0\tok\t0\t0\t0\t0\t1\t-\n'
	} >"$d/runs.tsv"
	printf '# jobs\trep\tworker\tcpuset\treal\tuser\tsys\tentries\tbytes\tstatus\treason\n' >"$d/workers.tsv"
	awk -v k="$1" -v s=1 'BEGIN { for (i = 0; i < k; i++)
		printf "worker;main;f%d_[k] %d\n", (i * 7919) % k, 1 + i % 3 }' \
	    >"$d/profile/jobs-1.folded"
	awk -v k="$1" 'BEGIN { for (i = 0; i < k; i++)
		printf "worker;main;f%d_[k] %d\n", (i * 104729) % k, 1 + i % 5 }' \
	    >"$d/profile/jobs-2.folded"
}

now() { date +%s%N; }

# ms K: fsconc report of set kK, in ms; 0 and a message on failure.
ms() {
	rm -rf "$dir/out"
	t0=$(now)
	if ! "$FSCONC" report -R "$dir/root" -o "$dir/out" "h/k$1" \
	    >/dev/null 2>"$dir/err"; then
		echo "flame: fsconc report failed at $1 frames: $(tail -2 "$dir/err")" >&2
		return 1
	fi
	t1=$(now)
	echo $(( (t1 - t0) / 1000000 ))
}

mkset 10
for k in $sizes; do mkset "$k"; done
# Interleaved: every size once per round, the fastest of the rounds.
r=0
while [ $r -lt "$runs" ]; do
	for k in 10 $sizes; do
		t=$(ms "$k") || exit 1
		eval "b=\${best_$k:-}"
		[ -z "$b" ] || [ "$t" -lt "$b" ] && eval "best_$k=$t"
	done
	r=$((r + 1))
done
base=$best_10
echo "flame: fsconc report with 2 x K sibling frames, fastest of $runs; the 10-frame report ($base ms) subtracted"
prev=
for k in $sizes; do
	eval "t=\$best_$k"
	net=$((t - base))
	[ "$net" -gt 0 ] || net=1
	if [ -n "$prev" ]; then
		ratio=$(echo "$net $prev" | awk '{ printf "%.2fx", $1 / $2 }')
	else
		ratio=-
	fi
	printf '  K %7d  report %7d ms  flame %7d ms  ratio to K/2 %s\n' "$k" "$t" "$net" "$ratio"
	prev=$net
done
echo "  (about 2x per doubling: linear; 4x: quadratic)"
