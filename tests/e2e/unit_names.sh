# A unit test case runs by name (tests/unit/unit_main.h): -l lists the
# cases, a pattern runs only those it matches, a pattern matching none
# and a second argument are refused with exit 2.
. "$FSCONC_TOP/tests/lib.sh"

t=${FSCONC_BUILD:-$TOP/build}/tests/test_util
if [ ! -x "$t" ]; then
	skip "unit cases by name" "$t not built"
	exit 0
fi
export CMOCKA_MESSAGE_OUTPUT=stdout
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
