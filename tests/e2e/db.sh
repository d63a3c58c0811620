#!/bin/sh
# The results database (db/): fsconc db sync into an SQLite file and into
# a real PostgreSQL server (tests/pg.sh): idempotence, incomplete sets
# left out until complete, a changed set replaced, a label with SQL in
# it stored verbatim, no password in output or meta, a newer schema
# refused with nothing written, the server down (import still writes its
# set and exits 0, "sync pending", the next sync catches up), run and
# nightly syncing by themselves, and a sync killed with SIGKILL inside a
# set's transaction (test hook FSCONC_TEST_DB_STOP) leaving nothing half
# written.
. "${FSCONC_TOP:-.}/tests/lib.sh"
. "$TOP/tests/pg.sh"
echo "1..36"

s=$(scratch)
unset FSCONC_DB FSCONC_RESULTS
EVIL="x'); DROP TABLE sets;--"
printf '10.0\n10.2\n9.9\n' >"$s/t1"
printf '5.1\n5.3\n5.0\n' >"$s/t2"
# New sets, made aside (import would sync them into the root's database).
imp() {
	rm -rf "$s/stage"
	"$FSCONC" import -R "$s/stage" "$@" 1="$s/t1" 2="$s/t2" >/dev/null
	mkdir -p "$s/root" && cp -R "$s/stage/." "$s/root/"
}
imp --host h1 -l base --date 2026-10-01
imp --host h1 -l base --date 2026-10-02T03:00:00Z
imp --host h2 -l "$EVIL" --date 2026-10-03
# Not finished: a run killed before end= (the reader refuses it), and one
# stopped by a signal (interrupted=yes).
imp --host h1 -l base --date 2026-10-04
killed=$s/root/h1/base/20261004T000000Z
grep -v '^end=' "$killed/meta" >"$s/m" && cat "$s/m" >"$killed/meta"
imp --host h1 -l base --date 2026-10-05
echo interrupted=yes >>"$s/root/h1/base/20261005T000000Z/meta"

sq() { sqlite3 "$s/root/fsconc.db" "$@"; }

# count SQL: one number, from whichever database $DB is
count() {
	case $DB in
	postgresql*) pg_psql -c "$1" ;;
	*) sqlite3 "$DB" "$1" ;;
	esac
}

backend() {	# NAME: the same checks against $DB
	n=$1
	out=$("$FSCONC" db sync -R "$s/root" --db "$DB" 2>&1); rc=$?
	case $out in
	*": 3 added, 0 updated, 0 unchanged, 2 incomplete (left out)"*)
		[ $rc -eq 0 ] && ok "$n: first sync adds 3 sets, leaves out 2 incomplete" ||
		    not_ok "$n: first sync" "rc=$rc $out" ;;
	*) not_ok "$n: first sync adds 3 sets, leaves out 2 incomplete" "rc=$rc $out" ;;
	esac
	"$FSCONC" db list --db "$DB" >"$s/list1" 2>&1
	out=$("$FSCONC" db sync -R "$s/root" --db "$DB" 2>&1); rc=$?
	"$FSCONC" db list --db "$DB" >"$s/list2" 2>&1
	case $out in
	*": 0 added, 0 updated, 3 unchanged, 2 incomplete"*)
		cmp -s "$s/list1" "$s/list2" && ok "$n: second sync changes nothing" ||
		    not_ok "$n: second sync changes nothing" "$(diff "$s/list1" "$s/list2")" ;;
	*) not_ok "$n: second sync changes nothing" "rc=$rc $out" ;;
	esac
	[ "$(wc -l <"$s/list1")" -eq 3 ] &&
	    grep -q "^h1	base	20261002T030000Z	2026-10-02T03:00:00Z	1,2	[0-9a-f]\{64\}\$" "$s/list1" &&
	    ok "$n: list: host, label, stamp, measured time, levels, hash" ||
	    not_ok "$n: list: host, label, stamp, measured time, levels, hash" "$(cat "$s/list1")"
	grep -Fq "h2	$EVIL	20261003T000000Z" "$s/list1" &&
	    [ "$(count "SELECT count(*) FROM sets WHERE label = 'x''); DROP TABLE sets;--'")" = 1 ] &&
	    ok "$n: a label with SQL in it is stored and shown verbatim" ||
	    not_ok "$n: a label with SQL in it is stored and shown verbatim" "$(cat "$s/list1")"
	[ "$(count "SELECT count(*) FROM metrics WHERE metric = 'real'")" = 18 ] &&
	    [ "$(count "SELECT count(*) FROM batches")" = 18 ] &&
	    [ "$(count "SELECT count(*) FROM levels")" = 6 ] &&
	    [ "$(count "SELECT count(DISTINCT kernel_id) FROM sets")" = 1 ] &&
	    ok "$n: levels, batches and the values that count are in" ||
	    not_ok "$n: levels, batches and the values that count are in"

	# The killed run's set, finished now (end= added): the next sync
	# takes it.  A complete set changed afterwards is replaced.
	cp "$s/root/h1/base/20261004T000000Z/meta" "$s/killed.meta"
	echo "end=2026-10-04T00:10:00Z" >>"$killed/meta"
	echo "note=changed" >>"$s/root/h1/base/20261001T000000Z/meta"
	out=$("$FSCONC" db sync -R "$s/root" --db "$DB" 2>&1); rc=$?
	case $out in
	*": 1 added, 1 updated, 2 unchanged, 1 incomplete"*)
		[ "$(count "SELECT count(*) FROM set_meta WHERE key = 'note'")" = 1 ] &&
		    [ "$(count "SELECT count(*) FROM batches")" = 24 ] &&
		    ok "$n: a set complete now is added, a changed one replaced" ||
		    not_ok "$n: a set complete now is added, a changed one replaced" "$out" ;;
	*) not_ok "$n: a set complete now is added, a changed one replaced" "rc=$rc $out" ;;
	esac
	cp "$s/killed.meta" "$killed/meta"
	grep -v '^note=' "$s/root/h1/base/20261001T000000Z/meta" >"$s/m" &&
	    cat "$s/m" >"$s/root/h1/base/20261001T000000Z/meta"

	# SIGKILL inside the transaction of a set (the first one to write:
	# the replacement of the changed set above): nothing of it visible,
	# the old version intact; the next sync does it whole.
	imp --host h3 -l kill --date 2026-10-06
	rm -f "$s/stopped"
	FSCONC_TEST_DB_STOP=$s/stopped "$FSCONC" db sync -R "$s/root" \
	    --db "$DB" >/dev/null 2>&1 &
	pid=$!
	if wait_until test -f "$s/stopped"; then
		kill -KILL $pid
		wait $pid 2>/dev/null
		before=$(count "SELECT count(*) FROM sets")
		orphans=$(count "SELECT count(*) FROM set_meta WHERE set_id NOT IN (SELECT id FROM sets)")
		[ "$before" = 4 ] && [ "$orphans" = 0 ] &&
		    ok "$n: killed mid-set: neither the set nor its rows visible" ||
		    not_ok "$n: killed mid-set: neither the set nor its rows visible" "sets=$before orphans=$orphans"
		out=$("$FSCONC" db sync -R "$s/root" --db "$DB" 2>&1); rc=$?
		case $out in
		*": 1 added, 1 updated, 2 unchanged"*)
			[ "$(count "SELECT count(*) FROM batches b JOIN sets s ON s.id = b.set_id WHERE s.label = 'kill'")" = 6 ] &&
			    ok "$n: the next sync completes it" ||
			    not_ok "$n: the next sync completes it" "$out" ;;
		*) not_ok "$n: the next sync completes it" "rc=$rc $out" ;;
		esac
	else
		kill -KILL $pid 2>/dev/null
		not_ok "$n: killed mid-set: the hook was reached"
		skip "$n: the next sync completes it" "no hook"
	fi
	rm -rf "$s/root/h3"

	# A newer schema: refused, nothing written.
	imp --host h4 -l newer --date 2026-10-07
	count "UPDATE schema_version SET version = 99" >/dev/null
	out=$("$FSCONC" db sync -R "$s/root" --db "$DB" 2>&1); rc=$?
	[ $rc -eq 1 ] && case $out in
	*"schema version 99, newer than this fsconc's (1)"*"nothing was written"*) true ;;
	*) false ;; esac &&
	    [ "$(count "SELECT count(*) FROM sets s JOIN hosts h ON h.id = s.host_id WHERE h.name = 'h4'")" = 0 ] &&
	    [ "$(count "SELECT max(version) FROM schema_version")" = 99 ] &&
	    ok "$n: a newer schema is refused, nothing written" ||
	    not_ok "$n: a newer schema is refused, nothing written" "rc=$rc $out"
	count "UPDATE schema_version SET version = 1" >/dev/null
	rm -rf "$s/root/h4"
}

# --- SQLite --------------------------------------------------------------
DB=$s/root/fsconc.db
backend sqlite
[ "$(sqlite3 "$DB" 'PRAGMA journal_mode')" = wal ] &&
    ok "sqlite: WAL mode" || not_ok "sqlite: WAL mode"
# The default database: <root>/fsconc.db, used once it exists.
out=$("$FSCONC" db sync -R "$s/root" 2>&1)
case $out in *"/root/fsconc.db: 0 added"*) ok "sqlite: the default database is <root>/fsconc.db" ;;
*) not_ok "sqlite: the default database is <root>/fsconc.db" "$out" ;; esac
"$FSCONC" import -R "$s/root" --host h5 -l auto --date 2026-10-08 1="$s/t1" \
    >/dev/null 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$s/err" ] &&
    [ "$(sq "SELECT count(*) FROM sets WHERE label = 'auto'")" = 1 ] &&
    ok "sqlite: import syncs into the root's database by itself" ||
    not_ok "sqlite: import syncs into the root's database by itself" "rc=$rc $(cat "$s/err")"
rm -rf "$s/root/h5"
# Without a database nothing is made.
"$FSCONC" import -R "$s/none" -l x 1="$s/t1" >/dev/null 2>&1
[ ! -e "$s/none/fsconc.db" ] && ok "no database configured: none made" ||
    not_ok "no database configured: none made"
# A database that is not one.
echo "not a database" >"$s/junk.db"
out=$("$FSCONC" db sync -R "$s/root" --db "$s/junk.db" 2>&1); rc=$?
[ $rc -eq 1 ] && case $out in *junk.db*"not a database"*) true ;; *) false ;; esac &&
    ok "sqlite: a file that is not a database: exit 1, named" ||
    not_ok "sqlite: a file that is not a database: exit 1, named" "rc=$rc $out"
# libpq is loaded only for PostgreSQL (db/pg.c): the installed binary
# does not need it to start, and a missing one is named, exit 1.
if ! command -v readelf >/dev/null 2>&1; then
	skip "libpq is not loaded at start" "no readelf (binutils)"
elif readelf -d "$FSCONC_PLAIN" | grep -q 'NEEDED.*libpq'; then
	not_ok "libpq is not loaded at start" "$(readelf -d "$FSCONC_PLAIN" | grep NEEDED)"
else
	ok "libpq is not loaded at start"
fi
out=$(FSCONC_TEST_LIBPQ=libfsconc-nosuch.so.5 "$FSCONC" db sync -R "$s/root" \
    --db "postgresql://fsconc@/fsconc?host=$s/nosuchdir" 2>&1); rc=$?
[ $rc -eq 1 ] && case $out in *"cannot load PostgreSQL's client library: libfsconc-nosuch.so.5"*) true ;;
    *) false ;; esac &&
    ok "postgresql: without libpq, exit 1 naming the library" ||
    not_ok "postgresql: without libpq, exit 1 naming the library" "rc=$rc $out"
"$FSCONC" db frob >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "db: unknown subcommand: exit 2" || not_ok "db: unknown subcommand: exit 2" "rc=$rc"

# A hostile root: below the root nothing is followed, so a
# link to a set elsewhere is no set of the root and a loop of links costs
# nothing; another user's set is refused, by path and owner.
h=$s/hostile
mkdir -p "$h/root/h1/base" "$h/loop"
"$FSCONC" import -R "$h/elsewhere" --host hx -l lx --date 2026-10-01 \
    1="$s/t1" 2="$s/t2" >/dev/null
ln -s "$h/elsewhere/hx/lx/20261001T000000Z" "$h/root/h1/base/20261001T000000Z"
ln -s "$h/elsewhere/hx/lx" "$h/root/h1/linked"
ln -s "$h/elsewhere/hx" "$h/root/h2"
out=$("$FSCONC" db sync -R "$h/root" --db "$h/links.db" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(sqlite3 "$h/links.db" "SELECT count(*) FROM sets")" = 0 ] &&
    ok "db sync: a linked set directory, label or host is not ingested" ||
    not_ok "db sync: a linked set directory, label or host is not ingested" \
    "rc=$rc $out $(sqlite3 "$h/links.db" "SELECT path FROM sets" 2>&1)"
for i in 0 1 2 3 4 5 6 7 8 9; do ln -s . "$h/loop/l$i"; done
t0=$(date +%s)
out=$("$FSCONC" db sync -R "$h/loop" --db "$h/loop.db" 2>&1); rc=$?
t1=$(date +%s)
[ $rc -eq 0 ] && [ $((t1 - t0)) -lt 5 ] &&
    ok "db sync: ten links to . under the root: done in $((t1 - t0)) s (< 5)" ||
    not_ok "db sync: ten links to . under the root: done in < 5 s" \
    "rc=$rc $((t1 - t0)) s $out"
if ! is_root || ! id nobody >/dev/null 2>&1; then
	skip "db sync: another user's set refused, named with its owner" "needs root and user nobody"
else
	"$FSCONC" import -R "$h/own" --host h3 -l theirs --date 2026-10-01 \
	    1="$s/t1" >/dev/null
	"$FSCONC" import -R "$h/own" --host h3 -l mine --date 2026-10-01 \
	    1="$s/t1" >/dev/null
	theirs=$h/own/h3/theirs/20261001T000000Z
	chown -R 65534 "$theirs"
	out=$("$FSCONC" db sync -R "$h/own" --db "$h/own.db" 2>&1); rc=$?
	[ $rc -eq 0 ] &&
	    [ "$(sqlite3 "$h/own.db" "SELECT label FROM sets")" = mine ] &&
	    case $out in *"$theirs: owned by uid 65534"*"not read"*"1 added"*"1 refused"*) true ;;
	    *) false ;; esac &&
	    ok "db sync: another user's set refused, named with its owner" ||
	    not_ok "db sync: another user's set refused, named with its owner" \
	    "rc=$rc $out"
fi

# --- PostgreSQL ----------------------------------------------------------
if ! pg_start; then
	for i in $(seq 1 18); do skip "postgresql ($i)" "$PG_WHY"; done
	exit 0
fi
DB=$PG_URL
backend postgresql

# A password in the URL (trust on the socket: accepted, not needed)
# never appears in output, errors or meta.
PW=Sekr3t-Pw
SECRET_URL="postgresql://fsconc:$PW@/fsconc?host=$PG_DIR"
out=$("$FSCONC" db sync -R "$s/root" --db "$SECRET_URL" 2>&1); rc=$?
[ $rc -eq 0 ] && case $out in *"fsconc:***@/fsconc"*) true ;; *) false ;; esac &&
    ! printf '%s' "$out" | grep -q "$PW" &&
    ok "postgresql: the password is shown as ***" ||
    not_ok "postgresql: the password is shown as ***" "$out"
DOWN="postgresql://fsconc:$PW@/fsconc?host=$s/nosuchdir&password=$PW"
out=$("$FSCONC" import -R "$s/root" --host h6 -l down --date 2026-10-09 \
    --db "$DOWN" 1="$s/t1" 2>&1); rc=$?
set6=$(ls -d "$s"/root/h6/down/* 2>/dev/null)
[ $rc -eq 0 ] && [ -n "$set6" ] && case $out in *"sync pending"*) true ;; *) false ;; esac &&
    ok "server down: import writes its set, exits 0, says sync pending" ||
    not_ok "server down: import writes its set, exits 0, says sync pending" "rc=$rc $out"
! printf '%s' "$out" | grep -q "$PW" && ! grep -rq "$PW" "$set6" &&
    grep -q '^command=.*--db postgresql://fsconc:\*\*\*@.*password=\*\*\*' "$set6/meta" &&
    ok "server down: no password in the warning or in meta" ||
    not_ok "server down: no password in the warning or in meta" "$out $(grep command "$set6/meta")"
out=$("$FSCONC" db sync -R "$s/root" --db "$PG_URL" 2>&1); rc=$?
case $out in *": 1 added"*)
	[ "$(pg_psql -c "SELECT count(*) FROM sets WHERE label = 'down'")" = 1 ] &&
	    ok "server up again: the next sync catches up" ||
	    not_ok "server up again: the next sync catches up" "$out" ;;
*) not_ok "server up again: the next sync catches up" "rc=$rc $out" ;;
esac

# run and nightly sync by themselves (FSCONC_DB); with the server down
# they still write their sets and exit as they would (nightly: a verdict,
# or 1 or 4 when two repetitions allow no test or flag the sets).
FSCONC_RUNDIR=$s/rundir
export FSCONC_RUNDIR
mkdir -m 700 "$FSCONC_RUNDIR"
CAL="-w calib -O iterations=200000 -j 1,2 -r 2"
FSCONC_DB=$PG_URL "$FSCONC" run $CAL -R "$s/live" --label run >/dev/null 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && [ "$(pg_psql -c "SELECT count(*) FROM sets WHERE label = 'run'")" = 1 ] &&
    ok "run syncs into FSCONC_DB" || not_ok "run syncs into FSCONC_DB" "rc=$rc $(cat "$s/err")"
FSCONC_DB=$DOWN "$FSCONC" run $CAL -R "$s/live" --label run >/dev/null 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && [ "$(ls -d "$s"/live/*/run/* | wc -l)" -eq 2 ] &&
    grep -q "sync pending" "$s/err" && ! grep -q "$PW" "$s/err" &&
    ok "run, server down: set written, exit 0, sync pending" ||
    not_ok "run, server down: set written, exit 0, sync pending" "rc=$rc $(cat "$s/err")"
FSCONC_DB=$PG_URL "$FSCONC" nightly $CAL -R "$s/live" --label run --no-report \
    >"$s/out" 2>"$s/err"; rc=$?
case $rc in 0|1|3|4) true ;; *) false ;; esac &&
    [ "$(pg_psql -c "SELECT count(*) FROM sets WHERE label = 'run'")" = 3 ] &&
    ok "nightly syncs into FSCONC_DB, catching up the pending set" ||
    not_ok "nightly syncs into FSCONC_DB, catching up the pending set" "rc=$rc $(cat "$s/out" "$s/err")"
FSCONC_DB=$DOWN "$FSCONC" nightly $CAL -R "$s/live" --label run --no-report \
    >"$s/out" 2>"$s/err"; rc=$?
case $rc in 0|1|3|4) true ;; *) false ;; esac && grep -q '^verdict' "$s/out" &&
    [ "$(ls -d "$s"/live/*/run/* | wc -l)" -eq 4 ] && grep -q "sync pending" "$s/err" &&
    ! grep -q "$PW" "$s/out" "$s/err" && ! grep -rq "$PW" "$s/live" &&
    ok "nightly, server down: verdict and exit as without a database" ||
    not_ok "nightly, server down: verdict and exit as without a database" "rc=$rc $(cat "$s/out" "$s/err")"
pg_stop
out=$("$FSCONC" db sync -R "$s/root" --db "$SECRET_URL" 2>&1); rc=$?
[ $rc -eq 1 ] && case $out in *"fsconc: db: postgresql://fsconc:***@"*) true ;; *) false ;; esac &&
    ! printf '%s' "$out" | grep -q "$PW" &&
    ok "db sync, server stopped: exit 1, URL redacted" ||
    not_ok "db sync, server stopped: exit 1, URL redacted" "rc=$rc $out"
