# The manual (man/) keeps up with the commands: every command "fsconc help"
# lists has its page man/fsconc-CMD.1 holding every option "fsconc CMD
# --help" prints; every page is a proper mdoc page that lints clean; every
# .Xr to an fsconc page names a page in man/; the campaign file's keys
# (harness/campaign/file.c) are in fsconc-campaign.5; "make install" puts
# the pages in their sections; "fsconc help" shows the right page.
. "$FSCONC_TOP/tests/lib.sh"

MAN=${FSCONC_MANDIR:-$TOP/man}
# Every command "fsconc help" lists, so that a new one needs its page.
cmds=$("$FSCONC" help | awk '/^    [a-z]/ { print $1 }')
[ -n "$cmds" ] || { not_ok "fsconc help lists the commands"; exit 0; }
pages=$(cd "$MAN" 2>/dev/null && ls | grep -E '^fsconc(-[a-z0-9]+)?\.[1-9]$')
[ -n "$pages" ] || { not_ok "man/ holds the pages" "none in $MAN"; exit 0; }

# One paragraph per line: no line breaks, hence no hyphenation, to match in.
if command -v groff >/dev/null 2>&1; then
	render() { groff -mandoc -Tascii -P-c -rLL=30000n "$1" | col -bx; }
elif command -v mandoc >/dev/null 2>&1; then
	render() { mandoc -Tascii -Owidth=30000 "$1" | col -bx; }
else
	skip "the manual" "no groff or mandoc"
	exit 0
fi
# Both linters where both are installed: each catches what the other lets by.
lint() {
	command -v groff >/dev/null 2>&1 && groff -ww -mandoc -z "$1" 2>&1
	command -v mandoc >/dev/null 2>&1 && mandoc -Tlint -Wwarning "$1" 2>&1
	:
}

# --- every page: header, the four sections, lints clean ----------------
for p in $pages; do
	f=$MAN/$p name=${p%.*} sec=${p##*.}
	up=$(printf '%s' "$name" | tr a-z A-Z)
	miss=
	grep -qx "\.Dt $up $sec" "$f" || miss="$miss .Dt"
	grep -qx '\.Dd .*' "$f" || miss="$miss .Dd"
	grep -qx '\.Os' "$f" || miss="$miss .Os"
	grep -qx "\.Nm $name" "$f" || miss="$miss .Nm"
	grep -qx '\.Nd .*' "$f" || miss="$miss .Nd"
	for s in NAME SYNOPSIS DESCRIPTION 'SEE ALSO'; do
		grep -qx "\.Sh $s" "$f" || miss="$miss '.Sh $s'"
	done
	out=$(lint "$f")
	[ -z "$miss" ] && [ -z "$out" ] && ok "$p: a whole page, lints clean" ||
	    not_ok "$p: a whole page, lints clean" "missing:$miss $out"
done

# --- every .Xr to an fsconc page names a page of man/ -------------------
bad=
for p in $pages; do
	for x in $(grep -oE '(^\.|[ ])Xr fsconc(-[a-z0-9]+)? [1-9]' "$MAN/$p" |
	    sed 's/.*Xr //; s/ /./'); do
		[ -f "$MAN/$x" ] || bad="$bad $p:$x"
	done
done
[ -z "$bad" ] && ok "every .Xr to an fsconc page resolves in man/" ||
    not_ok "every .Xr to an fsconc page resolves in man/" "dangling:$bad"

# --- the overview names every command's page ---------------------------
bad=
for c in $cmds; do
	grep -qE "Xr fsconc-$c 1" "$MAN/fsconc.1" 2>/dev/null || bad="$bad $c"
done
[ -z "$bad" ] && ok "fsconc.1 names every command's page" ||
    not_ok "fsconc.1 names every command's page" "missing:$bad"

# absent TEXT WORD...: the words not in TEXT as a whole word (a word
# ending in ':' as a prefix, as in sysctl:NAME=VALUE).
absent() {
	_t=$1
	shift
	for _w; do
		case $_w in *:) _e= ;; *) _e='([^A-Za-z0-9_-]|$)' ;; esac
		printf '%s\n' "$_t" | grep -qE -- "(^|[^A-Za-z0-9_-])$_w$_e" ||
		    printf ' %s' "$_w"
	done
}

# --- each command's page holds its options -----------------------------
# options: the -x, -xyz (one each) and --long options in a usage text.
options() {
	grep -oE -- '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
	    sed 's/^[^-]*//' | while IFS= read -r o; do
		case $o in
		--*) echo "$o" ;;
		*) printf '%s\n' "${o#-}" | fold -w 1 | sed 's/^/-/' ;;
		esac
	    done | sort -u
}

for c in $cmds; do
	f=$MAN/fsconc-$c.1
	if [ ! -f "$f" ]; then
		not_ok "fsconc-$c.1 documents $c's options" "no page $f"
		continue
	fi
	help=$("$FSCONC" "$c" --help 2>&1)
	text=$(render "$f")
	# nightly takes run's options and says so; they are documented there.
	case $help in *"as fsconc run"*) text="$text
$(render "$MAN/fsconc-run.1")" ;; esac
	missing=$(absent "$text" $(printf '%s\n' "$help" | options |
	    grep -vx -- --help))
	[ -z "$missing" ] && ok "fsconc-$c.1 documents $c's options" ||
	    not_ok "fsconc-$c.1 documents $c's options" "missing:$missing"
done

# --- the campaign file's keys and methods, as its parser knows them -----
# cwords ARRAY: the strings of "static const char *const ARRAY[] = {...};".
cwords() {
	sed -n "/ $1\[\] = {/,/};/p" "$TOP/harness/campaign/file.c" |
	    grep -oE '"[^"]*"' | tr -d '"'
}
keys="config $(cwords global_keys) $(cwords config_keys) $(cwords method_names)"
f=$MAN/fsconc-campaign.5
if [ "$(echo $keys | wc -w)" -lt 15 ]; then
	not_ok "fsconc-campaign.5 has every campaign file key" \
	    "cannot read the keys from harness/campaign/file.c: $keys"
elif [ ! -f "$f" ]; then
	not_ok "fsconc-campaign.5 has every campaign file key" "no page $f"
else
	missing=$(absent "$(render "$f")" $keys)
	[ -z "$missing" ] && ok "fsconc-campaign.5 has every campaign file key" ||
	    not_ok "fsconc-campaign.5 has every campaign file key" "missing:$missing"
fi

# --- make install: every page into its section --------------------------
s=$(scratch)
p=$s/prefix
# -o: the binary under test is installed as it is, never rebuilt.
out=$(cd "$TOP" && MAKEFLAGS='' make -s --no-print-directory -o "$FSCONC" \
    install PREFIX="$p" BIN="$FSCONC" NIGHTLY_UNITS= 2>&1); rc=$?
miss=
for q in $(cd "$TOP/man" && ls); do
	cmp -s "$TOP/man/$q" "$p/share/man/man${q##*.}/$q" || miss="$miss $q"
done
[ $rc -eq 0 ] && [ -z "$miss" ] && ok "make install: every page in its section" ||
    not_ok "make install: every page in its section" "rc=$rc missing:$miss $out"

# --- fsconc help ---------------------------------------------------------
# Into a pipe: the usage, as before (tests/e2e/cli.sh holds it to --help).
a=$("$FSCONC" help run 2>&1) b=$("$FSCONC" run --help 2>&1)
[ "$a" = "$b" ] && ok "help run into a pipe: the usage" ||
    not_ok "help run into a pipe: the usage" "$a"
err=$("$FSCONC" help -m frobnicate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown command 'frobnicate'" &&
    ok "help -m: unknown command, exit 2" ||
    not_ok "help -m: unknown command, exit 2" "rc=$rc $err"

if ! command -v man >/dev/null 2>&1; then
	skip "help -m shows the pages" "no man(1)"
	exit 0
fi
export MANPAGER=cat PAGER=cat MANWIDTH=80
# head_is OUTPUT TITLE: man printed the page headed TITLE.
head_is() { printf '%s\n' "$1" | col -bx | grep -q "^$2  "; }

# The build tree: the page beside the binary (man/ at the top).
b=$s/tree
mkdir -p "$b/man" && cp "$FSCONC" "$b/fsconc" && cp "$MAN"/fsconc*.1 "$b/man/"
out=$(MANPATH=$s/none "$b/fsconc" help -m run 2>&1); rc=$?
[ $rc -eq 0 ] && head_is "$out" 'FSCONC-RUN(1)' &&
    ok "help -m run: the build tree's fsconc-run(1)" ||
    not_ok "help -m run: the build tree's fsconc-run(1)" "rc=$rc $out"
out=$(MANPATH=$s/none "$b/fsconc" help -m 2>&1); rc=$?
[ $rc -eq 0 ] && head_is "$out" 'FSCONC(1)' &&
    ok "help -m: the overview fsconc(1)" ||
    not_ok "help -m: the overview fsconc(1)" "rc=$rc $out"

# Installed: no man/ beside bin/fsconc, man(1) finds it in its path.
out=$(MANPATH=$p/share/man "$p/bin/fsconc" help -m campaign 2>&1); rc=$?
[ $rc -eq 0 ] && head_is "$out" 'FSCONC-CAMPAIGN(1)' &&
    ok "help -m campaign: the installed fsconc-campaign(1)" ||
    not_ok "help -m campaign: the installed fsconc-campaign(1)" "rc=$rc $out"

# Neither: exit 1 and say where it looked.
mkdir -p "$s/bare"
cp "$FSCONC" "$s/bare/fsconc"
out=$(MANPATH=$s/none "$s/bare/fsconc" help -m run 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'no manual page fsconc-run(1)' &&
    ok "help -m run without a page: exit 1, says so" ||
    not_ok "help -m run without a page: exit 1, says so" "rc=$rc $out"

# On a terminal: the page; without one, the usage.
if ! script -qec true /dev/null >/dev/null 2>&1; then
	skip "help on a terminal" "no util-linux script(1)"
	exit 0
fi
out=$(MANPATH=$s/none script -qec "'$b/fsconc' help stat" /dev/null \
    </dev/null 2>&1); rc=$?
[ $rc -eq 0 ] && head_is "$out" 'FSCONC-STAT(1)' &&
    ok "help stat on a terminal: fsconc-stat(1)" ||
    not_ok "help stat on a terminal: fsconc-stat(1)" "rc=$rc $out"
out=$(MANPATH=$s/none script -qec "'$s/bare/fsconc' help stat" /dev/null \
    </dev/null 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'usage: fsconc stat' &&
    echo "$out" | grep -q 'no manual page fsconc-stat(1)' &&
    ok "help stat on a terminal without the page: the usage" ||
    not_ok "help stat on a terminal without the page: the usage" "rc=$rc $out"
