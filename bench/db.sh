#!/bin/sh
# fsconc db sync of 1,000 result sets into SQLite (a file in /tmp) and into
# PostgreSQL (a server of our own on a Unix socket, tests/pg.sh), side by
# side: $DB_BENCH_RUNS (default 3) interleaved rounds, each into a fresh
# database: the first sync (every set added) and a second (every set
# unchanged: read, hashed, looked up).  Prints sets per second, median
# and range over the rounds.  The sets are copies of one real run's set
# (fsconc run -w calib, levels 1,2,4,8, 5 repetitions: 20 batches, 75
# worker rows, its full meta; the jobs-N files, which sync does not
# read, left out) under 50 hosts x 20 nights.  Neither database flushes to disk
# at each commit (SQLite: WAL, synchronous=NORMAL as fsconc sets it; the
# test server: fsync=off): this is the cost of sync itself.
set -u
start=$(date +%s)
FSCONC=${FSCONC:-./fsconc}
case $FSCONC in /*) ;; *) FSCONC=$(pwd)/$FSCONC ;; esac
FSCONC_TOP=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
export FSCONC FSCONC_TOP
runs=${DB_BENCH_RUNS:-3}
. "$FSCONC_TOP/tests/lib.sh"
. "$FSCONC_TOP/tests/pg.sh"
unset FSCONC_DB
dir=$(scratch)

FSCONC_RUNDIR=$dir/rundir
export FSCONC_RUNDIR
mkdir -m 700 "$FSCONC_RUNDIR"
if ! "$FSCONC" run -w calib -O iterations=100000 -j 1,2,4,8 -r 5 \
    -R "$dir/proto" --label proto >/dev/null 2>"$dir/err"; then
	echo "db: SKIP fsconc run failed: $(tail -n 2 "$dir/err")"
	exit 0
fi
proto=$(ls -d "$dir"/proto/*/proto/*)
# host1's 20 nights, then every other host a copy of it (few processes:
# a loaded machine makes each one slow).
n=1
while [ $n -le 20 ]; do
	set=$dir/root/host1/nightly/202610$(printf %02d $n)T030000Z
	mkdir -p "$set"
	cp "$proto"/runs.tsv "$proto"/workers.tsv "$set/"
	sed -e 's/^host=.*/host=host1/' -e 's/^label=.*/label=nightly/' \
	    "$proto/meta" >"$set/meta"
	n=$((n + 1))
done
h=2
while [ $h -le 50 ]; do
	cp -R "$dir/root/host1" "$dir/root/host$h"
	sed -i "s/^host=host1\$/host=host$h/" "$dir"/root/host$h/nightly/*/meta
	h=$((h + 1))
done
nsets=$(find "$dir/root" -name meta | wc -l)
echo "db: $nsets sets, each $(wc -l <"$proto/meta") meta lines," \
    "$(($(wc -l <"$proto/runs.tsv") - 1)) batches," \
    "$(($(wc -l <"$proto/workers.tsv") - 1)) worker rows"

echo "db: sets made in $(($(date +%s) - start)) s"
pg=1
if ! pg_start; then
	echo "db: postgresql SKIP: $PG_WHY"
	pg=0
fi

now() { date +%s%N; }
# sync URL: sets per second of one "db sync" of the root (checked).
sync_rate() {
	t0=$(now)
	out=$("$FSCONC" db sync -R "$dir/root" --db "$1" 2>&1) || {
		echo "db: sync failed: $out" >&2; echo 0; return; }
	t1=$(now)
	case $out in
	*": $nsets added"*|*": 0 added, 0 updated, $nsets unchanged"*) ;;
	*) echo "db: unexpected: $out" >&2 ;;
	esac
	awk -v n="$nsets" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f\n", n / (ns / 1e9) }'
}

: >"$dir/rates"
i=1
while [ $i -le "$runs" ]; do
	f=$dir/bench$i.db
	echo "sqlite add $(sync_rate "$f")" >>"$dir/rates"
	echo "sqlite same $(sync_rate "$f")" >>"$dir/rates"
	if [ $pg -eq 1 ]; then
		"$PG_BIN/createdb" -h "$PG_DIR" -U fsconc "bench$i"
		u="postgresql://fsconc@/bench$i?host=$PG_DIR"
		echo "postgresql add $(sync_rate "$u")" >>"$dir/rates"
		echo "postgresql same $(sync_rate "$u")" >>"$dir/rates"
	fi
	i=$((i + 1))
done
for b in sqlite postgresql; do
	for k in add same; do
		grep -q "^$b $k " "$dir/rates" || continue
		grep "^$b $k " "$dir/rates" | cut -d' ' -f3 | sort -n | awk -v b=$b -v k=$k '
		    { v[NR] = $1 }
		    END { printf "db: %-10s %-4s sets/s: median %d (range %d..%d, %d rounds)\n",
		        b, k == "add" ? "new" : "same", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
	done
done
echo "db: $(($(date +%s) - start)) s in all (making the sets and the server too)"
