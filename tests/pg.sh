# Sourced by the database tests (tests/e2e/db*.sh) after tests/lib.sh: a
# real PostgreSQL server of Debian's postgresql package in a temporary
# directory, run by an unprivileged user (initdb and postgres refuse
# root), listening only on a Unix socket in that directory
# (listen_addresses=''), stopped at exit.
#   pg_start || skip ... "$PG_WHY"    sets PG_URL (database fsconc, user
#                                     fsconc, trust on the socket)
#   pg_stop                           stop it (also done at exit)
PG_URL= PG_DIR= PG_WHY= PG_BIN=

# The newest installed server's binaries.
_pg_bin() {
	for _b in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r) \
	    /usr/local/bin; do
		[ -x "$_b/initdb" ] && [ -x "$_b/pg_ctl" ] && { echo "$_b"; return 0; }
	done
	return 1
}

# CMD as the server's user: nobody when we are root, else ourselves; in
# the server's directory (the checkout may be closed to nobody).
_pg_as() {
	if is_root; then
		(cd "$PG_DIR" && setpriv --reuid=nobody \
		    --regid="$(id -g nobody)" --clear-groups --reset-env -- "$@")
	else
		"$@"
	fi
}

pg_start() {
	if ! PG_BIN=$(_pg_bin); then
		PG_WHY="no PostgreSQL server (initdb, pg_ctl; package postgresql)"
		return 1
	fi
	if is_root && { ! command -v setpriv >/dev/null 2>&1 ||
	    ! id nobody >/dev/null 2>&1; }; then
		PG_WHY="root, and no setpriv or user nobody to run the server"
		return 1
	fi
	# Short: a Unix socket path has at most 107 bytes.
	PG_DIR=$(mktemp -d /tmp/fsconc-pg.XXXXXX) || return 1
	at_exit pg_stop
	is_root && chown nobody "$PG_DIR"
	if ! _pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U fsconc -A trust \
	    -E UTF8 --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1; then
		PG_WHY="initdb failed: $(tail -n 3 "$PG_DIR/initdb.log")"
		return 1
	fi
	# fsync off: a test server, thrown away afterwards.
	if ! _pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" \
	    -w -t 60 -o "-c listen_addresses='' -k $PG_DIR -c fsync=off \
	    -c max_connections=64" start >/dev/null 2>&1; then
		PG_WHY="the server did not start: $(tail -n 3 "$PG_DIR/server.log")"
		return 1
	fi
	if ! _pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U fsconc fsconc \
	    >/dev/null 2>&1; then
		PG_WHY="createdb failed"
		return 1
	fi
	PG_URL="postgresql://fsconc@/fsconc?host=$PG_DIR"
}

# psql on the test server: pg_psql -c SQL
pg_psql() {
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR" -U fsconc \
	    fsconc "$@"
}

pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	if [ -f "$PG_DIR/data/postmaster.pid" ]; then
		_pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w \
		    stop >/dev/null 2>&1
	fi
	rm -rf "$PG_DIR"
	PG_DIR=
}
