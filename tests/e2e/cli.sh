# The dispatcher: help, version, unknown commands and usage errors.
. "$FSCONC_TOP/tests/lib.sh"

out=$("$FSCONC" --version); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^fsconc [0-9]' && ok "--version" || not_ok "--version" "$out"

"$FSCONC" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no command exits 2" || not_ok "no command exits 2" "rc=$rc"

err=$("$FSCONC" frobnicate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown command 'frobnicate'" &&
    ok "unknown command: message, exit 2" || not_ok "unknown command: message, exit 2" "rc=$rc $err"

out=$("$FSCONC" help); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'mkarchive' && ok "help lists commands" || not_ok "help lists commands"

for c in run stat compare report nightly import limits md topo mkarchive history why campaign; do
	a=$("$FSCONC" help $c 2>&1); rc1=$?
	b=$("$FSCONC" $c --help 2>&1); rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$a" = "$b" ] &&
	    echo "$a" | grep -q "usage: fsconc $c"; then
		ok "help $c = $c --help"
	else
		not_ok "help $c = $c --help" "$a"
	fi
	"$FSCONC" $c --no-such-option >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ok "$c: bad option exits 2" || not_ok "$c: bad option exits 2" "rc=$rc"
done

# One vocabulary: -R is the result root wherever there is one, -o an output.
for c in run nightly compare report import; do
	u=$("$FSCONC" $c --help 2>&1)
	echo "$u" | grep -q -- '-R root' && ! echo "$u" | grep -q -- '-o dir' &&
	    ok "$c: -R root in the usage" || not_ok "$c: -R root in the usage" "$u"
done
# ... whose long name is --results, and no other.
for c in run nightly compare report import history why; do
	"$FSCONC" $c --root /nonexistent --help >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ok "$c --root: no such option, exit 2" ||
	    not_ok "$c --root: no such option, exit 2" "rc=$rc"
done
u=$("$FSCONC" nightly --help 2>&1)
echo "$u" | grep -q -- '-o DIR' && ! echo "$u" | grep -q -- '--vary' &&
    ok "nightly: -o DIR, no --vary in the usage" ||
    not_ok "nightly: -o DIR, no --vary in the usage" "$u"

# usage_err NAME WANT CMD...: exit 2 and WANT (a grep -E pattern) in stderr.
usage_err() {
	_n=$1 _w=$2; shift 2
	_e=$("$@" 2>&1 >/dev/null); _rc=$?
	if [ $_rc -eq 2 ] && printf '%s\n' "$_e" | grep -Eq -- "$_w"; then
		ok "$_n"
	else
		not_ok "$_n" "rc=$_rc $_e"
	fi
}
d=$(scratch)

# --- numbers: one checked parser, no strtoul(3) "-1" = 2^64-1 ----------
usage_err "run --seed -1: out of range" 'seed -1: out of range \(0\.\.18446744073709551615\)' \
    "$FSCONC" run --dry-run --seed -1
usage_err "run --seed 2^64: out of range" 'out of range' \
    "$FSCONC" run --dry-run --seed 18446744073709551616
usage_err "run --seed 0x10: not a whole number" 'seed 0x10: not a whole number' \
    "$FSCONC" run --dry-run --seed 0x10
usage_err "run -r ' 5': not a whole number" 'not a whole number \(1\.\.100000\)' \
    "$FSCONC" run --dry-run -r ' 5'
usage_err "md cycle -n 99999999999: out of range" '-n 99999999999: out of range \(0\.\.' \
    "$FSCONC" md cycle -n 99999999999 tmpfs
usage_err "mkarchive -s -1: out of range" 'seed -1: out of range' \
    "$FSCONC" mkarchive -s -1 "$d/x.tar"
usage_err "mkarchive -n +5: not a whole number" 'not a whole number' \
    "$FSCONC" mkarchive -n +5 "$d/x.tar"
usage_err "import --ncpu -1: out of range" 'ncpu -1: CPU count out of range' \
    "$FSCONC" import -l x --ncpu -1 -R "$d" 1=/dev/null
usage_err "import -1=FILE: out of range" 'level out of range' \
    "$FSCONC" import -l x -R "$d" -- -1=/dev/null
usage_err "limits -j -4: out of range" '-j -4: number of workers out of range' \
    "$FSCONC" limits -j -4
usage_err "compare -w 1e2: not a whole number" 'not a whole number' \
    "$FSCONC" compare -w 1e2 a b
usage_err "nightly --threshold nan: refused" 'threshold nan: not a percentage' \
    "$FSCONC" nightly --threshold nan --no-run x
usage_err "run -O count=-1: out of range" 'count=-1: out of range' \
    "$FSCONC" run --dry-run -w readtest -O count=-1
[ ! -e "$d/x.tar" ] && ok "refused mkarchive wrote nothing" || not_ok "refused mkarchive wrote nothing"

# --- usage errors say what is wrong and exit 2 -------------------------
printf '1\n2\n3\n' >"$d/t1"
usage_err "import -l ../../x: exit 2" "label '\.\./\.\./x': want a name without '/'" \
    "$FSCONC" import -l ../../x -R "$d/imp" 1="$d/t1"
usage_err "import --host '': exit 2, empty" "host '': empty" \
    "$FSCONC" import -l x --host '' -R "$d/imp" 1="$d/t1"
usage_err "import -m 'a b=1': bad key, exit 2" "KEY is not" \
    "$FSCONC" import -l x -m 'a b=1' -R "$d/imp" 1="$d/t1"
[ ! -e "$d/imp" ] && ok "refused imports wrote nothing" || not_ok "refused imports wrote nothing"
usage_err "run --label '': empty" "label '': empty: want a name" \
    "$FSCONC" run --dry-run --label ''
usage_err "run -R '': empty" "-R '': empty: want a directory" \
    "$FSCONC" run --dry-run -R ''
# -o is output elsewhere, never the result root.
usage_err "run -o: no such option" "invalid option -- 'o'" \
    "$FSCONC" run --dry-run -o "$d/o"
usage_err "run -a '': empty" "-a '': empty: want a file" \
    "$FSCONC" run --dry-run -a ''
usage_err "import -R '': empty" "-R '': empty: want a directory" \
    "$FSCONC" import -l x -R '' 1="$d/t1"
usage_err "import -o: no such option" "invalid option -- 'o'" \
    "$FSCONC" import -l x -o "$d/o" 1="$d/t1"
usage_err "run --label ..: not . or .." "label '\.\.': want a name, not \. or \.\." \
    "$FSCONC" run --dry-run --label ..

# A refused non-root tmpfs run leaves no result set behind.
if ! is_root || ! command -v setpriv >/dev/null 2>&1; then
	skip "non-root tmpfs run: refused, no set" "needs root and setpriv"
else
	# Outside the scratch directory: nobody must reach it.
	nb=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-nb.XXXXXX") && chmod 777 "$nb"
	at_exit "rm -rf '$nb'"
	"$FSCONC" mkarchive -n 3 -b 1k "$nb/a.tar" >/dev/null
	chmod 644 "$nb/a.tar"
	out=$(cd "$nb" && FSCONC_RUNDIR="$nb/run" setpriv --reuid=65534 \
	    --regid=65534 --clear-groups "$FSCONC" run -a "$nb/a.tar" -j 1 \
	    -r 1 --disk tmpfs -R "$nb/res" 2>&1); rc=$?
	if [ $rc -eq 1 ] && echo "$out" | grep -q 'need root' &&
	    [ -z "$(find "$nb/res" -name meta 2>/dev/null)" ]; then
		ok "non-root tmpfs run: refused, no set"
	else
		not_ok "non-root tmpfs run: refused, no set" "rc=$rc $out $(find "$nb/res" 2>/dev/null)"
	fi
fi

# The default result root is ./fsconc-results, not ./results (a source
# folder of the checkout has that name), unless FSCONC_RESULTS says.
dr=$(scratch)
(cd "$dr" && unset FSCONC_RESULTS && "$FSCONC" run -w calib \
    -O iterations=20000 -j 1 -r 1 >out 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -n "$(find "$dr/fsconc-results" -name runs.tsv 2>/dev/null)" ] &&
    [ ! -e "$dr/results" ]; then
	ok "run without -R: the set under ./fsconc-results"
else
	not_ok "run without -R: the set under ./fsconc-results" "rc=$rc $(cat "$dr/out"; ls "$dr")"
fi
