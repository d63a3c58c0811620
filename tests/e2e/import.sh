# fsconc import: BSD time(1), GNU time -p / shell time, plain numbers.
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1
cd "$d" || exit 1

printf '       14.85 real         1.31 user        10.43 sys\n' >bsd.txt
printf '14.60 real 1.30 user 10.40 sys\n' >>bsd.txt
printf '      2048  maximum resident set size\n' >>bsd.txt	# time -l
printf '# comment\n\n14.47 real 1.29 user 10.38 sys\n' >>bsd.txt
printf 'real 83.35\nuser 15.2\nsys 900.1\n\nreal 83.1\nuser 15.0\nsys 899\n' >gnu.txt
printf 'real\t1m23.400s\nuser\t0m15.100s\nsys\t15m0.000s\n' >>gnu.txt	# bash
printf '14.64\n14.5\n14.8\n' >plain.txt

out=$("$FSCONC" import -l hand -R "$d/res" --host h --ncpu 12 \
    -m kernel=GENERIC 1=bsd.txt 12=gnu.txt 2=plain.txt 2>&1); rc=$?
set=$d/res/h/hand/$(ls "$d/res/h/hand" 2>/dev/null | head -1)
[ $rc -eq 0 ] && [ "$out" = "$set" ] && [ -f "$set/meta" ] &&
    ok "import writes one set and prints its path" ||
    not_ok "import writes one set and prints its path" "rc=$rc $out"

[ "$(cat "$set/jobs-1.real")" = "$(printf '14.85\n14.6\n14.47')" ] &&
    [ "$(cat "$set/jobs-1.user")" = "$(printf '1.31\n1.3\n1.29')" ] &&
    [ "$(cat "$set/jobs-1.sys")" = "$(printf '10.43\n10.4\n10.38')" ] &&
    ok "BSD time(1) lines (time -l rusage lines skipped)" ||
    not_ok "BSD time(1) lines (time -l rusage lines skipped)" "$(cat "$set/jobs-1.real")"

[ "$(cat "$set/jobs-12.real")" = "$(printf '83.35\n83.1\n83.4')" ] &&
    [ "$(cat "$set/jobs-12.sys")" = "$(printf '900.1\n899\n900')" ] &&
    ok "GNU time -p and shell time blocks" ||
    not_ok "GNU time -p and shell time blocks" "$(cat "$set/jobs-12.real" "$set/jobs-12.sys")"

[ "$(cat "$set/jobs-2.real")" = "$(printf '14.64\n14.5\n14.8')" ] &&
    [ ! -e "$set/jobs-2.user" ] &&
    ok "plain numbers: real only" || not_ok "plain numbers: real only"

grep -qx 'imported=1' "$set/meta" && grep -qx 'ncpu=12' "$set/meta" &&
    grep -qx 'kernel=GENERIC' "$set/meta" &&
    grep -qx "source.12=$d/gnu.txt" "$set/meta" &&
    grep -qx 'source_format.1=bsd' "$set/meta" &&
    grep -qx 'source_format.2=plain' "$set/meta" &&
    ok "meta records import and sources" ||
    not_ok "meta records import and sources" "$(cat "$set/meta")"

# ministat reads the set's files as they are.
if command -v ministat >/dev/null 2>&1; then
	a=$(ministat "$set/jobs-1.real" "$set/jobs-12.real" 2>&1) &&
	    echo "$a" | grep -q 'Difference at 95.0% confidence' &&
	    b=$(ministat -n -C 3 "$set/runs.tsv" 2>&1) &&
	    echo "$b" | grep -q '^x   9 ' &&
	    ok "ministat reads jobs-N files and runs.tsv -C 3" ||
	    not_ok "ministat reads jobs-N files and runs.tsv -C 3" "$a $b"
else
	skip "ministat reads jobs-N files and runs.tsv -C 3" "no ministat"
fi

out2=$("$FSCONC" import -l hand -R "$d/res" --host h 1=plain.txt 2>&1)
[ -n "$out2" ] && [ "$out2" != "$set" ] &&
    [ "$(cat "$set/jobs-1.real")" = "$(printf '14.85\n14.6\n14.47')" ] &&
    ok "a second import makes a new set, the first is untouched" ||
    not_ok "a second import makes a new set, the first is untouched" "$out2"

# Bad input: named, non-zero, nothing written.
printf '14.85 real 1.31 user 10.43 sys\n14.0\n' >mixed.txt
printf '1.0\nabc\n' >junk.txt
printf 'user 1.0\nreal 2.0\n' >orphan.txt
: >empty.txt
for case in "mixed.txt:2: a plain line in a file of bsd lines" \
    "junk.txt:2: neither" "orphan.txt:1: 'user' before any 'real'" \
    "empty.txt: no measurements" "nosuch.txt: No such file"; do
	f=${case%%:*}
	e=$("$FSCONC" import -l bad -R "$d/res" 1="$f" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 1 ] && echo "$e" | grep -qF "$case" &&
	    [ ! -d "$d/res/$(hostname)/bad" ]; then
		ok "rejects $f"
	else
		not_ok "rejects $f" "rc=$rc $e"
	fi
done

"$FSCONC" import -l old --results "$d/res-o" --host h 1=plain.txt >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ -n "$(ls -d "$d"/res-o/h/old/*/ 2>/dev/null)" ] &&
    ok "import --results: the result root" ||
    not_ok "import --results: the result root" "rc=$rc"

for args in "1=plain.txt" "-l x" "-l x 0=plain.txt" "-l x one=plain.txt" \
    "-l x 1=plain.txt 1=plain.txt" "-l x 1=" "-l x --ncpu 0 1=plain.txt" \
    "-l x -m novalue 1=plain.txt" "-l a/b 1=plain.txt"; do
	# shellcheck disable=SC2086
	"$FSCONC" import -R "$d/res" $args >/dev/null 2>&1; rc=$?
	want=2
	[ $rc -eq $want ] && ok "import $args: exit $want" ||
	    not_ok "import $args: exit $want" "rc=$rc"
done

# --date: the set's stamp and created are the measurement time; a date
# alone is midnight UTC; an offset is converted to UTC.
for pair in "2026-10-05T03:00:00Z 20261005T030000Z 2026-10-05T03:00:00Z" \
    "2026-10-06 20261006T000000Z 2026-10-06T00:00:00Z" \
    "2024-02-29T23:30+02:00 20240229T213000Z 2024-02-29T21:30:00Z"; do
	set -- $pair
	out=$("$FSCONC" import -R "$d/dated" --host h -l dated --date "$1" \
	    1=plain.txt 2>&1); rc=$?
	[ $rc -eq 0 ] && [ "$out" = "$d/dated/h/dated/$2" ] &&
	    grep -qx "created=$3" "$out/meta" &&
	    ok "import --date $1: stamp $2, created=$3" ||
	    not_ok "import --date $1: stamp $2, created=$3" "rc=$rc $out"
done
# Refused (exit 2, nothing written): days that do not exist, out of range,
# no zone on a time, trailing text, words, the future, before 1970.
for bad in 2026-02-30 2023-02-29 2026-13-01 2026-00-10 2026-10-05T24:00:00Z \
    2026-10-05T03:60Z 2026-10-05T03:00:00 "2026-10-05 03:00:00Z" \
    2026-10-05Tx "2026-10-05T03:00:00Z junk" yesterday "" 26-10-05 \
    +2026-10-05 2999-01-01 1969-12-31 2026-10-05T03:00:00+25:00; do
	out=$("$FSCONC" import -R "$d/baddate" --host h -l bad --date "$bad" \
	    1=plain.txt 2>&1); rc=$?
	[ $rc -eq 2 ] && [ ! -e "$d/baddate" ] &&
	    case $out in *"--date $bad: "*) true ;; *) false ;; esac &&
	    ok "import --date '$bad': refused, named" ||
	    not_ok "import --date '$bad': refused, named" "rc=$rc $out"
done
