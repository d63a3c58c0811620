#!/bin/sh
# The results database under load: 16 writers (processes posing as 16
# hosts, each with its own result root) sync at once into one SQLite file
# and into one PostgreSQL database; then 16 writers sync the same root
# (every host) at once into fresh databases, racing for the same sets.
# No set lost or duplicated, no "database is locked" or other failure
# reaching the user; the retries are counted.
. "${FSCONC_TOP:-.}/tests/lib.sh"
. "$TOP/tests/pg.sh"
echo "1..7"

W=16		# writers (hosts)
NIGHTS=6	# sets per host
s=$(scratch)
unset FSCONC_DB FSCONC_RESULTS
i=1
while [ $i -le 5 ]; do echo "1$i.5"; i=$((i + 1)); done >"$s/t1"
while [ $i -le 10 ]; do echo "4.$i"; i=$((i + 1)); done >"$s/t4"
# One imported set, copied under every host's name and night (a set's
# identity is host, label and stamp: the directory names).
"$FSCONC" import -R "$s/proto" --host proto -l nightly \
    --date 2026-10-01T03:00:00Z 1="$s/t1" 4="$s/t4" >/dev/null
proto=$s/proto/proto/nightly/20261001T030000Z
h=1
while [ $h -le $W ]; do
	d=1
	while [ $d -le $NIGHTS ]; do
		set=$s/r$h/host$h/nightly/2026100${d}T030000Z
		mkdir -p "$set"
		cp "$proto/runs.tsv" "$proto/workers.tsv" "$set/"
		sed "s/^host=proto\$/host=host$h/" "$proto/meta" >"$set/meta"
		d=$((d + 1))
	done
	mkdir -p "$s/all" && cp -R "$s/r$h/." "$s/all/"
	h=$((h + 1))
done
SETS=$((W * NIGHTS))

# writers ROOTFMT DB: W concurrent "db sync", ROOTFMT with %d for the
# writer.  Exit statuses and output in $s/w.N.
writers() {
	h=1
	while [ $h -le $W ]; do
		# shellcheck disable=SC2059
		root=$(printf "$1" $h)
		"$FSCONC" db sync -R "$root" --db "$2" >"$s/w.$h" 2>&1 &
		eval "pid$h=$!"
		h=$((h + 1))
	done
	failed=0
	h=1
	while [ $h -le $W ]; do
		eval "wait \$pid$h" || failed=$((failed + 1))
		h=$((h + 1))
	done
	retried=$(cat "$s"/w.* | sed -n 's/.* \([0-9]*\) retried$/\1/p' |
	    awk '{ n += $1 } END { print n + 0 }')
	added=$(cat "$s"/w.* | sed -n 's/.*: \([0-9]*\) added.*/\1/p' |
	    awk '{ n += $1 } END { print n + 0 }')
}

# verdict NAME COUNT-CMD
verdict() {
	n=$1; shift
	total=$("$@" "SELECT count(*) FROM sets")
	distinct=$("$@" "SELECT count(*) FROM (SELECT DISTINCT host_id, label, stamp FROM sets) x")
	batches=$("$@" "SELECT count(*) FROM batches")
	echo "# $n: writers=$W sets=$SETS in-db=$total distinct=$distinct" \
	    "lost=$((SETS - distinct)) duplicated=$((total - distinct))" \
	    "added=$added retried=$retried failed=$failed"
	if [ $failed -eq 0 ] && [ "$total" = $SETS ] && [ "$distinct" = $SETS ] &&
	    [ "$added" = $SETS ] && [ "$batches" = $((SETS * 10)) ] &&
	    ! grep -qi 'locked\|busy\|error' "$s"/w.*; then
		ok "$n: $W writers, $SETS sets, none lost or duplicated"
	else
		not_ok "$n: $W writers, $SETS sets, none lost or duplicated" \
		    "$(cat "$s"/w.* | grep -v ' 0 incomplete' | head -5)"
	fi
}

sq() { sqlite3 "$DBF" "$1"; }

t0=$(date +%s)
DBF=$s/one.db
writers "$s/r%d" "$DBF"
verdict "sqlite, one root each" sq
DBF=$s/shared.db
writers "$s/all" "$DBF"
verdict "sqlite, all on the same root" sq
echo "# sqlite: $(($(date +%s) - t0)) s"

if ! pg_start; then
	for i in 1 2 3 4 5; do skip "postgresql ($i)" "$PG_WHY"; done
	exit 0
fi
pg_as_db() { "$PG_BIN/psql" -X -q -A -t -h "$PG_DIR" -U fsconc "$PGDB" -c "$1"; }
t0=$(date +%s)
PGDB=fsconc
writers "$s/r%d" "$PG_URL"
verdict "postgresql, one root each" pg_as_db
"$PG_BIN/createdb" -h "$PG_DIR" -U fsconc shared
PGDB=shared
writers "$s/all" "postgresql://fsconc@/shared?host=$PG_DIR"
verdict "postgresql, all on the same root" pg_as_db
writers "$s/all" "postgresql://fsconc@/shared?host=$PG_DIR"
[ $failed -eq 0 ] && [ "$added" = 0 ] && [ "$(pg_as_db "SELECT count(*) FROM sets")" = $SETS ] &&
    ok "postgresql: $W writers again: nothing added" ||
    not_ok "postgresql: $W writers again: nothing added" "failed=$failed added=$added"
[ "$(pg_as_db "SELECT count(*) FROM hosts")" = $W ] &&
    [ "$(pg_as_db "SELECT count(*) FROM kernels")" = 1 ] &&
    ok "postgresql: one row per host, one per kernel" ||
    not_ok "postgresql: one row per host, one per kernel"
[ "$(pg_as_db "SELECT count(*) FROM metrics m WHERE NOT EXISTS (SELECT 1 FROM sets s WHERE s.id = m.set_id)")" = 0 ] &&
    ok "postgresql: no rows without their set" ||
    not_ok "postgresql: no rows without their set"
echo "# postgresql: $(($(date +%s) - t0)) s"
