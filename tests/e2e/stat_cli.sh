# fsconc stat: errors as ministat gives them, -q, the terminal's width,
# and the places where fsconc is right and ministat is not.
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch)
cd "$d" || exit 1
printf '50\n200\n150\n400\n750\n400\n150\n' >iguana
printf '150\n400\n720\n500\n930\n' >chameleon
printf '1\n2\n' >two
printf '1\n2\nfoo\n3\n' >bad
for i in 1 2 3 4 5 6 7 8; do cp iguana s$i; done
have_ms=0
command -v ministat >/dev/null 2>&1 && have_ms=1

# Compare the first line of stderr (prefix "ministat: "/"fsconc: " removed)
# and the exit status.
errcase() {
	name=$1; shift
	if [ $have_ms -eq 0 ]; then
		skip "error: $name" "ministat(1) is not installed"
		return
	fi
	e1=$(ministat "$@" 2>&1 >/dev/null </dev/null); r1=$?
	e2=$("$FSCONC" stat "$@" 2>&1 >/dev/null </dev/null); r2=$?
	# getopt's own line comes first for an unknown option: compare the
	# next one, ministat's "whine".
	l1=$(printf '%s\n' "$e1" | grep -v 'invalid option' | head -n 1 | sed 's/^ministat: //')
	l2=$(printf '%s\n' "$e2" | grep -v 'invalid option' | head -n 1 | sed 's/^fsconc: //')
	if [ "$r1" = "$r2" ] && [ "$l1" = "$l2" ]; then
		ok "error: $name (exit $r2: $l2)"
	else
		not_ok "error: $name" "ministat: $r1 $l1
fsconc:  $r2 $l2"
	fi
}
errcase "fewer than 3 points" two
errcase "fewer than 3 points on stdin" - <two
errcase "non-numeric data" iguana bad
errcase "unreadable file" iguana no-such-file
errcase "bad confidence level" -c 97 iguana
errcase "confidence not a number" -c abc iguana
errcase "too many data sets" s1 s2 s3 s4 s5 s6 s7 s8
errcase "column zero" -C 0 iguana
errcase "column not a number" -C 2x iguana
errcase "empty delimiters" -d '' iguana
errcase "negative width" -w -3 iguana
errcase "width not a number" -w 3x iguana
errcase "unknown option" -x iguana
errcase "column missing everywhere" -C 2 iguana

out=$("$FSCONC" stat --bogus iguana 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q '^usage: fsconc stat' &&
    ok "bad option: usage, exit 2" || not_ok "bad option: usage, exit 2" "$out"

# -q (current FreeBSD): the same report without names and header.
full=$("$FSCONC" stat -c 80 iguana chameleon)
q=$("$FSCONC" stat -q -c 80 iguana chameleon)
want=$(printf '%s\n' "$full" | sed -e '1,2d' -e '/^    N  *Min/d')
[ "$q" = "$want" ] && ok "-q drops names and header" || not_ok "-q drops names and header" "$q"

# stdin, CRLF, comments.
printf '# times\r\n1\r\n2 # two\r\n\r\n3\r\n' >crlf
a=$("$FSCONC" stat -n - <crlf)
printf '%s\n' "$a" | grep -q '^x   3  *1  *3  *2  *2  *1$' &&
    printf '%s\n' "$a" | grep -q '^x <stdin>$' &&
    ok "stdin, CRLF and comments" || not_ok "stdin, CRLF and comments" "$a"

# The terminal's width: COLUMNS, else the tty's columns - 2 (script(1)
# gives a tty).
if [ $have_ms -eq 1 ] && command -v script >/dev/null 2>&1; then
	for env in "COLUMNS=30" "COLUMNS=" "COLUMNS=61"; do
		m=$(script -qec "stty cols 50; env $env ministat chameleon iguana" /dev/null | tr -d '\r')
		f=$(script -qec "stty cols 50; env $env $FSCONC stat chameleon iguana" /dev/null | tr -d '\r')
		[ -n "$m" ] && [ "$m" = "$f" ] && ok "tty width ($env, 50 columns)" ||
		    not_ok "tty width ($env, 50 columns)" "$f"
	done
else
	skip "tty width" "needs ministat and script(1)"
fi

# Where ministat is wrong.
printf '1000000001\n1000000002\n1000000003\n' >big9
out=$("$FSCONC" stat -n big9 | tail -n 1)
[ "$(echo $out)" = "x 3 1e+09 1e+09 1e+09 1e+09 1" ] &&
    ok "stddev of values near 1e9 is 1 (ministat: 0)" ||
    not_ok "stddev of values near 1e9 is 1 (ministat: 0)" "$out"
# NIST StRD NumAcc4: 10000000.2, then 500 x (10000000.1, 10000000.3);
# certified mean 10000000.2, standard deviation 0.1.
{ echo 10000000.2; i=0; while [ $i -lt 500 ]; do
	echo 10000000.1; echo 10000000.3; i=$((i + 1)); done; } >numacc4
out=$("$FSCONC" stat -n numacc4 | tail -n 1)
[ "$(echo $out)" = "x 1001 10000000 10000000 10000000 10000000 0.1" ] &&
    ok "NIST StRD NumAcc4: stddev 0.1" || not_ok "NIST StRD NumAcc4: stddev 0.1" "$out"

# Stack height over all sets: the first set's stack of five 3s shows.
printf '3\n3\n3\n3\n3\n1\n9\n' >tall
printf '1\n5\n9\n' >flat
rows=$("$FSCONC" stat -w 20 tall flat | grep -c '^|     x  ')
[ "$rows" -eq 4 ] && ok "plot height is the highest stack of all sets" ||
    not_ok "plot height is the highest stack of all sets" "rows=$rows"

for w in 0 1 2; do
	out=$("$FSCONC" stat -w $w tall flat 2>&1); rc=$?
	[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^+$(printf '%*s' $w '' | tr ' ' -)+\$" &&
	    ok "-w $w draws a $w-column plot" || not_ok "-w $w draws a $w-column plot" "$out"
done
out=$("$FSCONC" stat -w 1 tall flat | sed -n '4p;11p')
[ "$out" = "$(printf '|x|\n|A|')" ] && ok "-w 1: all points in one column" ||
    not_ok "-w 1: all points in one column" "$out"

# Beyond ministat: the extra blocks follow the Student's t block.
out=$("$FSCONC" stat -A --welch --mann-whitney --ratio iguana chameleon)
printf '%s\n' "$out" | grep -q "^	(Welch's t = .*, df = .*, p = .*)$" &&
    printf '%s\n' "$out" | grep -q "^	(Mann-Whitney U = .*, z = .*, p = .*)$" &&
    printf '%s\n' "$out" | grep -q '^	1.8 \[.*, .*\]$' &&
    printf '%s\n' "$out" | grep -q '^	(Fieller, df = ' &&
    ok "--welch --mann-whitney --ratio blocks" ||
    not_ok "--welch --mann-whitney --ratio blocks" "$out"
printf -- '-1\n0\n1\n' >zero
if [ -x /usr/bin/python3 ]; then
	j1=$("$FSCONC" stat --json iguana | /usr/bin/python3 -c \
	    'import json,sys; d=json.load(sys.stdin); print(len(d["datasets"]), len(d["comparisons"]))')
	j2=$("$FSCONC" stat --json zero iguana | /usr/bin/python3 -c \
	    'import json,sys; d=json.load(sys.stdin); print(d["comparisons"][0]["ratio"])')
	[ "$j1" = "1 0" ] && [ "$j2" = None ] && ok "--json: one set; undefined ratio is null" ||
	    not_ok "--json: one set; undefined ratio is null" "$j1 / $j2"
else
	skip "--json parses" "no /usr/bin/python3"
fi
printf '1e308\n-1e308\n0\n' >huge
"$FSCONC" stat --welch --mann-whitney --ratio -w 5 huge iguana >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "overflowing data: no abort" || not_ok "overflowing data: no abort" "rc=$rc"

# Constant samples (no p = 0 from rounding): four 0.1 against three 0.1 are the same
# mean, whatever the last bits say: no difference for Student's t nor for
# Welch's, p = 1.  (Debian's ministat says so only because its variance
# of three 0.1 comes out -nan.)
printf '0.1\n0.1\n0.1\n0.1\n' >c4
printf '0.1\n0.1\n0.1\n' >c3
out=$("$FSCONC" stat -A --welch c4 c3 2>&1); rc=$?
[ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^Difference' &&
    [ "$(printf '%s\n' "$out" | grep -c '^No difference proven')" -eq 2 ] &&
    printf '%s\n' "$out" | grep -q "(Welch's t = 0, df = 5, p = 1)" &&
    ok "constant samples, equal values: no difference, p = 1" ||
    not_ok "constant samples, equal values: no difference, p = 1" "$out"
printf '0.2\n0.2\n0.2\n' >d3
out=$("$FSCONC" stat -A --welch c4 d3 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^Difference at')" -eq 2 ] &&
    ok "constant samples, different values: a difference" ||
    not_ok "constant samples, different values: a difference" "$out"
# Values beyond 1e+/-154 (squares out of range): the answer of the same
# data near 1, scaled.
for e in 0.01 1e200 1e-200; do
	awk -v f="$e" '{ printf "%.17g\n", $1 * f }' iguana >"ig$e"
	awk -v f="$e" '{ printf "%.17g\n", $1 * f }' chameleon >"ch$e"
	"$FSCONC" stat -A --welch -c 80 "ig$e" "ch$e" | sed -n '/^Diff/,$p' |
	    sed 's/e[-+][0-9][0-9]*//g' >"out$e"
done
cmp -s out0.01 out1e200 && cmp -s out0.01 out1e-200 &&
    grep -q '^Difference' out0.01 &&
    ok "values near 1e200 and 1e-200: the same verdict and figures" ||
    not_ok "values near 1e200 and 1e-200: the same verdict and figures" "$(cat out0.01 out1e200 out1e-200)"
printf '1\n2\n1e999\n' >inf
e=$("$FSCONC" stat inf iguana 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q 'inf: line 3: value out of range' &&
    ok "a value beyond the double range: refused, exit 2" ||
    not_ok "a value beyond the double range: refused, exit 2" "rc=$rc $e"
