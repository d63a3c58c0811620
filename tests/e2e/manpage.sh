# fsconc.1 keeps up with the commands: every option that "fsconc CMD
# --help" prints appears in the manual's section for CMD ("fsconc CMD",
# "fsconc CMD ..."), and the page renders without warnings.
. "$FSCONC_TOP/tests/lib.sh"

MAN=${FSCONC_MANPAGE:-$TOP/fsconc.1}
# Every command "fsconc help" lists, so that a new one needs its section.
cmds=$("$FSCONC" help | awk '/^    [a-z]/ { print $1 }')
[ -n "$cmds" ] || { not_ok "fsconc help lists the commands"; exit 0; }

# One paragraph per line: no line breaks, hence no hyphenation, to match in.
if command -v groff >/dev/null 2>&1; then
	render() { groff -mandoc -Tascii -P-c -rLL=30000n "$1" | col -bx; }
	lint() { groff -ww -mandoc -z "$1" 2>&1; }
elif command -v mandoc >/dev/null 2>&1; then
	render() { mandoc -Tascii -Owidth=30000 "$1" | col -bx; }
	lint() { mandoc -Tlint -Wwarning "$1" 2>&1; }
else
	for c in $cmds; do skip "fsconc.1 documents $c's options" "no groff or mandoc"; done
	exit 0
fi

out=$(lint "$MAN")
[ -z "$out" ] && ok "fsconc.1 renders without warnings" ||
    not_ok "fsconc.1 renders without warnings" "$out"

page=$(scratch)/page
render "$MAN" >"$page"

# section CMD: the text of the subsections headed "fsconc CMD" or
# "fsconc CMD ..." (an .Ss heading is indented by 3 columns).
section() {
	awk -v c="fsconc $1" '
	    /^   [^ ]/ { sub(/^   /, ""); on = ($0 == c || index($0, c " ") == 1); next }
	    /^ ?[^ ]/ { on = 0 }
	    on' "$page"
}

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
	help=$("$FSCONC" "$c" --help 2>&1)
	text=$(section "$c")
	# nightly takes run's options and says so; they are documented there.
	case $help in *"as fsconc run"*) text="$text
$(section run)" ;; esac
	if [ -z "$text" ]; then
		not_ok "fsconc.1 documents $c's options" "no section 'fsconc $c'"
		continue
	fi
	missing=
	for o in $(printf '%s\n' "$help" | options); do
		[ "$o" = --help ] && continue
		printf '%s\n' "$text" |
		    grep -qE -- "(^|[^A-Za-z0-9_-])$o([^A-Za-z0-9_-]|\$)" ||
		    missing="$missing $o"
	done
	[ -z "$missing" ] && ok "fsconc.1 documents $c's options" ||
	    not_ok "fsconc.1 documents $c's options" "missing:$missing"
done
