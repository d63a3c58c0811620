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

for c in run stat compare report nightly import limits md topo mkarchive; do
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
u=$("$FSCONC" nightly --help 2>&1)
echo "$u" | grep -q -- '-o DIR' && ! echo "$u" | grep -q -- '--vary' &&
    ok "nightly: -o DIR, no --vary in the usage" ||
    not_ok "nightly: -o DIR, no --vary in the usage" "$u"
