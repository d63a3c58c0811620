# fsconc stat against Debian's ministat, byte for byte, on generated data
# (the generator and what it avoids: stat_diff.py).
. "$FSCONC_TOP/tests/lib.sh"

py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ! command -v ministat >/dev/null 2>&1; then
	skip "stat_diff" "ministat(1) is not installed (scripts/install-deps)"
elif [ -z "$py" ]; then
	skip "stat_diff" "no python3 to generate the data"
else
	dir=$(scratch)
	# The sanitizer build starts slowly: a seventh of the cases, another seed.
	case $FSCONC in
	*/asan/*) set -- 1999 100 7 ;;
	*) set -- 20050607 700 1 ;;
	esac
	# The generator prints its own TAP line with the counts.
	"$py" "$TOP/tests/e2e/stat_diff.py" "$FSCONC" "$(command -v ministat)" "$dir" "$@"
fi
