# Sourced by tests/e2e/*.sh: TAP helpers and the binary under test.
#   ok NAME | not_ok NAME [DETAIL] | skip NAME REASON | check NAME CMD...
FSCONC=${FSCONC:-${FSCONC_TOP:-.}/fsconc}
TOP=${FSCONC_TOP:-$(pwd)}
_t=0
ok()     { _t=$((_t + 1)); echo "ok $_t - $1"; }
not_ok() { _t=$((_t + 1)); echo "not ok $_t - $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; return 0; }
skip()   { _t=$((_t + 1)); echo "ok $_t - $1 # SKIP $2"; }
# check NAME CMD...: ok when CMD exits 0.
check() {
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
_scratch_root=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-e2e.XXXXXX")
trap 'eval "$_at_exit"; rm -rf "$_scratch_root"' EXIT
scratch() {
	mktemp -d "$_scratch_root/s.XXXXXX"
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
# The states fsconc run reports with FSCONC_TEST_MARKER=PREFIX:
# PREFIX.released (a batch's workers released), PREFIX.stopping (the
# first signal taken).
