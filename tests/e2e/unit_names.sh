# A unit test case runs by name (tests/unit/unit_main.h): -l lists the
# cases, a pattern runs only those it matches, a pattern matching none
# and a second argument are refused with exit 2.  Then an e2e check by
# name (tests/run -k, TEST_MATCH) and the four runners' one shape.
. "$FSCONC_TOP/tests/lib.sh"

t=${FSCONC_BUILD:-$TOP/build}/tests/test_util
unit_cases() {
	n=$("$t" -l | wc -l)
	check "-l lists every case ($n)" test "$n" -gt 5
	"$t" -l | grep -qx test_fnv1a && ok "-l names test_fnv1a" ||
	    not_ok "-l names test_fnv1a"
	out=$("$t" test_fnv1a 2>&1)
	case $out in
	*"1 test(s) run."*) ok "a name runs that case alone" ;;
	*) not_ok "a name runs that case alone" "$out" ;;
	esac
	out=$("$t" 'test_parse_*' 2>&1)
	k=$("$t" -l | grep -c '^test_parse_')
	case $out in
	*"$k test(s) run."*) ok "a pattern runs the $k cases it matches" ;;
	*) not_ok "a pattern runs the $k cases it matches" "$out" ;;
	esac
	"$t" no_such_case >/dev/null 2>&1
	check "a pattern matching no case exits 2" test $? -eq 2
	"$t" a b >/dev/null 2>&1
	check "two arguments exit 2" test $? -eq 2
	missing=$(grep -L 'UNIT_ARGS(argc, argv, tests)' "$TOP"/tests/unit/test_*.c)
	check "every unit binary takes a case's name${missing:+: $missing}" \
	    test -z "$missing"
}
if [ -x "$t" ]; then
	CMOCKA_MESSAGE_OUTPUT=stdout unit_cases
else
	skip "unit cases by name" "$t not built"
fi

# An e2e check by name (tests/lib.sh's TEST_MATCH, tests/run -k): only
# the checks whose names contain the pattern print, numbered from 1;
# check does not run the others' command.
s=$(scratch)
cat >"$s/suite.sh" <<'EOS'
. "$FSCONC_TOP/tests/lib.sh"
ok "alpha one"
not_ok "beta two" "detail"
skip "gamma three" "reason"
check "delta four" touch "$S/delta-ran"
tap_close
EOS
out=$(S=$s TEST_MATCH='al*one' sh "$s/suite.sh")
check "TEST_MATCH='al*one': that check alone, numbered 1" \
    test "$out" = "ok 1 - alpha one
1..1
1 passed, 0 failed, 0 skipped"
[ ! -e "$s/delta-ran" ] && ok "a check not selected does not run its command" ||
    not_ok "a check not selected does not run its command"
out=$(S=$s TEST_MATCH=four sh "$s/suite.sh")
[ -e "$s/delta-ran" ] && [ "$out" = "ok 1 - delta four
1..1
1 passed, 0 failed, 0 skipped" ] && ok "a check selected runs its command" ||
    not_ok "a check selected runs its command" "$out"
out=$(S=$s sh "$s/suite.sh")
rc=$?
[ $rc -eq 1 ] && [ "$(echo "$out" | tail -n 1)" = "2 passed, 1 failed, 1 skipped" ] &&
    ok "no TEST_MATCH: every check, counted (exit 1: one failed)" ||
    not_ok "no TEST_MATCH: every check, counted (exit 1: one failed)" "exit $rc: $out"

# tests/run -k: e2e/long's one check and test_util's one case, counted
# as what ran; a pattern that matches nothing fails the run.
R="sh $TOP/tests/run --build ${FSCONC_BUILD:-$TOP/build} --bin $FSCONC"
export TEST_TIMES="$s/suite-times"
out=$($R --only e2e long -k 'wraps round' 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^e2e/long: ok 1 - --start wraps round' &&
    [ "$(echo "$out" | tail -n 1)" = "1 passed, 0 failed, 0 skipped" ] &&
    ok "tests/run --only e2e long -k 'wraps round': that check alone" ||
    not_ok "tests/run --only e2e long -k 'wraps round': that check alone" "exit $rc: $out"
out=$($R --only unit -k fnv1a test_util 2>&1)
rc=$?
n=$(echo "$out" | grep -c '^[a-z]*/test_util: ok .*test_fnv1a')
[ $rc -eq 0 ] && [ "$n" -ge 1 ] &&
    [ "$(echo "$out" | tail -n 1)" = "$n passed, 0 failed, 0 skipped" ] &&
    ok "tests/run --only unit -k fnv1a test_util: that case alone ($n builds)" ||
    not_ok "tests/run --only unit -k fnv1a test_util: that case alone" "exit $rc: $out"
out=$($R --only e2e long -k 'no such check' 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "no check's name contains 'no such check'" &&
    ok "tests/run -k matching no check: exit 1, said" ||
    not_ok "tests/run -k matching no check: exit 1, said" "exit $rc: $out"

# The four runners, one shape: --list lists and runs nothing, a bad
# option is refused with the usage line and exit 2.
for r in tests/run tests/long tests/boot/run tests/bisect/run; do
	out=$(sh "$TOP/$r" --list 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ -n "$out" ] && ok "$r --list: exit 0 ($(echo "$out" | wc -l) lines)" ||
	    not_ok "$r --list: exit 0" "exit $rc: $out"
	err=$(sh "$TOP/$r" --no-such-option 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q "^usage: $r \[--list\]" &&
	    ok "$r --no-such-option: usage, exit 2" ||
	    not_ok "$r --no-such-option: usage, exit 2" "exit $rc: $err"
done
sh "$TOP/tests/run" --list unit_names | grep -q '^e2e/unit_names ' &&
    ok "tests/run --list NAME: that suite" || not_ok "tests/run --list NAME: that suite"
echo "1..$_t"
