# Sourced by tests/e2e/*.sh: TAP helpers and the binary under test.
#   ok NAME | not_ok NAME [DETAIL] | skip NAME REASON | check NAME CMD...
# FSCONC: the binary under test, the build with the test hooks
# (FSCONC_TEST_*); FSCONC_PLAIN: the one make installs, which ignores them.
TOP=${FSCONC_TOP:-$(pwd)}
FSCONC=${FSCONC:-${FSCONC_BUILD:-$TOP/build}/test/fsconc}
FSCONC_PLAIN=${FSCONC_PLAIN:-$TOP/fsconc}
# TEST_MATCH=PATTERN (tests/run -k PATTERN): only the checks whose names
# contain PATTERN ('*' and '?' match as in a unit binary's PATTERN) are
# printed, numbered and counted; check does not even run the others' CMD.
# The others print nothing, so a count of the output is the count of
# what ran.  _t: checks printed; _fail, _skip: of them, failed, skipped.
_t=0 _fail=0 _skip=0
selected() {
	[ -z "${TEST_MATCH:-}" ] && return 0
	# shellcheck disable=SC2254
	case $1 in *$TEST_MATCH*) return 0 ;; esac
	return 1
}
ok()     { selected "$1" || return 0; _t=$((_t + 1)); echo "ok $_t - $1"; }
not_ok() {
	selected "$1" || return 0
	_t=$((_t + 1)) _fail=$((_fail + 1))
	echo "not ok $_t - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'
	return 0
}
skip()   {
	selected "$1" || return 0
	_t=$((_t + 1)) _skip=$((_skip + 1))
	echo "ok $_t - $1 # SKIP $2"
}
# tap_close: the plan and the runners' closing line (tests/boot/run);
# exit status 0 when no check failed.
tap_close() {
	echo "1..$_t"
	echo "$((_t - _fail - _skip)) passed, $_fail failed, $_skip skipped"
	[ "$_fail" -eq 0 ]
}
# check NAME CMD...: ok when CMD exits 0.
check() {
	selected "$1" || return 0
	_n=$1; shift
	if _o=$("$@" 2>&1); then ok "$_n"; else not_ok "$_n" "$_o"; fi
}
is_root() { [ "$(id -u)" -eq 0 ]; }
# The machine running the tests is loaded: no batch counts as disturbed
# (and is run again) unless a test asks (tests/e2e/disturb.sh).
export FSCONC_TEST_FOREIGN="${FSCONC_TEST_FOREIGN-0}"
# at_exit CMD: run CMD when the test exits.  Tests add to the one EXIT
# trap through this instead of replacing it.
_at_exit=
at_exit() {
	_at_exit="$1
$_at_exit"
}
# A scratch directory removed at exit, after the at_exit commands.  Works
# as dir=$(scratch): the trap lives in the test's own shell (a trap set
# inside $(...) would fire when the subshell ends).
# TEST_KEEP=1 (tests/run --keep) keeps it for a look, and names it.
_scratch_root=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-e2e.XXXXXX")
if [ -n "${TEST_KEEP:-}" ]; then
	trap 'eval "$_at_exit"; echo "kept: $_scratch_root" >&2' EXIT
else
	trap 'eval "$_at_exit"; rm -rf "$_scratch_root"' EXIT
fi
# Killed by tests/run's time limit (TERM) or by hand: still clean up (a
# shell runs its EXIT trap on exit, not on a signal it does not catch).
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
scratch() {
	mktemp -d "$_scratch_root/s.XXXXXX"
}
# sim_machine DIR: a machine for campaigns whose reboots are simulated
# (the tests' build's hooks): DIR/boot.sh "boots" (a new boot id, the
# command line asked for; each boot logged in DIR/boots.log), every
# other command (systemctl ...) is logged in DIR/exec.log, not run, and
# the hook goes to DIR/hook.  A DIR/boot.sh of the suite's own is kept.
sim_machine() {
	[ -e "$1/boot.sh" ] || cat >"$1/boot.sh" <<'EOF'
#!/bin/sh
d=$(dirname "$0")
echo "$FSCONC_CAMPAIGN_BOOT $FSCONC_CAMPAIGN_CONFIG $FSCONC_CAMPAIGN_CMDLINE" >>"$d/boots.log"
echo "root=/dev/vda $FSCONC_CAMPAIGN_CMDLINE" >"$d/cmdline"
echo "boot-$FSCONC_CAMPAIGN_BOOT-$$" >"$d/bootid"
EOF
	cat >"$1/exec.sh" <<'EOF'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/exec.log"
case $1 in /*) exec "$@";; esac
EOF
	chmod +x "$1/boot.sh" "$1/exec.sh"
	mkdir -p "$1/hook"
	echo boot-0 >"$1/bootid"
	echo "root=/dev/vda" >"$1/cmdline"
	: >"$1/boots.log"
	export FSCONC_TEST_BOOT_ID="$1/bootid" FSCONC_TEST_CMDLINE="$1/cmdline" \
	    FSCONC_TEST_EXEC="$1/exec.sh" FSCONC_TEST_HOOK_DIR="$1/hook"
}
# The power cuts an append can meet, one table for every journal's
# tests (campaign, bisect; the unit tests' twin is in
# tests/unit/test_campaign_journal.c): while LINE (an event, no newline)
# is appended after BASE, the file holds BASE and the first N bytes of
# LINE, N = 1 .. its length (its newline not yet there); or BASE and
# zeroes (a file system that grew the file first).  Each is a line
# left out, its action never taken.  A whole line of zeroes is damage,
# refused.  torn_cases LINE: the cases' names; torn_is_damage CASE;
# torn_write CASE BASE LINE JOURNAL: the journal as the cut left it.
torn_cases() {
	_n=$(printf '%s' "$1" | wc -c)
	seq 1 "$_n"
	echo zeroes
	echo zeroline
}
torn_is_damage() { [ "$1" = zeroline ]; }
torn_write() {
	case $1 in
	zeroes)		{ cat "$2"; printf '\000\000\000\000'; } >"$4" ;;
	zeroline)	{ cat "$2"; printf '\000\000\n'; } >"$4" ;;
	*)		{ cat "$2"; printf '%s' "$3" | head -c "$1"; } >"$4" ;;
	esac
}
# wait_until CMD...: poll CMD until it succeeds, for at most 60 s (a
# loaded machine is slow, never this slow).  Exit status of the last try.
wait_until() {
	_w=0
	until "$@"; do
		[ $_w -ge 1200 ] && return 1
		sleep 0.05
		_w=$((_w + 1))
	done
}
# fake_lava MODE DIR: the fake LAVA API (tests/e2e/fake_lava.py, MODE
# its fault) on 127.0.0.1, its files in DIR (made, a root-only token
# DIR/token), its URL in $url; killed at exit or by fake_lava_stop.
fake_pid=
fake_lava() {
	mkdir -p "$2"
	echo "fake-token-$$" >"$2/token"
	chmod 0600 "$2/token"
	rm -f "$2/port"
	/usr/bin/python3 "$TOP/tests/e2e/fake_lava.py" "$2" "$FSCONC" "$1" \
	    >"$2/server.log" 2>&1 &
	fake_pid=$!
	at_exit "kill $fake_pid 2>/dev/null"
	wait_until test -s "$2/port" || echo "fake lab did not start" >&2
	url=http://127.0.0.1:$(cat "$2/port")
}
fake_lava_stop() {
	kill "$fake_pid" 2>/dev/null
	wait "$fake_pid" 2>/dev/null
}
# The states fsconc run reports with FSCONC_TEST_MARKER=PREFIX:
# PREFIX.released (a batch's workers released), PREFIX.stopping (the
# first signal taken).

# rendered HTML: headless Chromium renders file HTML (1200x2000); ok when
# the screenshot is not blank (plots and tables darken >3% of it) and the
# page logged nothing to its console.  SKIP without chromium or python3.
rendered() {
	selected "rendered by chromium: not blank" ||
	    selected "rendered by chromium: no console messages" || return 0
	if ! command -v chromium >/dev/null 2>&1; then
		skip "rendered by chromium" "chromium not installed"
		return
	elif [ ! -x /usr/bin/python3 ]; then
		skip "rendered by chromium" "/usr/bin/python3 not installed"
		return
	fi
	_rd=$(mktemp -d "$_scratch_root/chromium.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
	    --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --user-data-dir="$_rd" \
	    --enable-logging=stderr --v=0 --screenshot="$_rd/shot.png" \
	    --window-size=1200,2000 "file://$1" >"$_rd/log" 2>&1
	if [ ! -s "$_rd/shot.png" ]; then
		not_ok "rendered by chromium" "$(tail -5 "$_rd/log")"
		return
	fi
	_st=$(/usr/bin/python3 "$TOP/tests/fixtures/pngstat.py" "$_rd/shot.png")
	echo "$_st" | awk '{ exit !($1 == 1200 && $2 == 2000 && $3 > 0.03 && $4 > 15) }' &&
	    ok "rendered by chromium: not blank ($_st)" ||
	    not_ok "rendered by chromium: not blank" "$_st"
	grep -q 'CONSOLE' "$_rd/log" &&
	    not_ok "rendered by chromium: no console messages" "$(grep CONSOLE "$_rd/log" | head -3)" ||
	    ok "rendered by chromium: no console messages"
}
