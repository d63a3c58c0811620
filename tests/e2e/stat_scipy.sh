# fsconc stat --json (Student, Welch, Mann-Whitney, ratio CI) against
# scipy at test time (stat_scipy.py).
. "$FSCONC_TOP/tests/lib.sh"

py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import scipy, numpy' 2>/dev/null; then
	skip "stat_scipy" "/usr/bin/python3 with scipy and numpy is not installed (scripts/install-deps)"
else
	"$py" "$TOP/tests/e2e/stat_scipy.py" "$FSCONC" "$(scratch)"
fi
