# The reference figures tests/unit/test_bisect.c holds, recomputed: every
# line tests/unit/bisect_ref.py prints from scipy and numpy (Welch on the
# endpoints, the interval's t quantile, a step's log Bayes factor by the
# marginal likelihoods of two linear models) must stand in the unit
# test as printed, so that the table cannot drift from its reference.
. "$FSCONC_TOP/tests/lib.sh"

py=/usr/bin/python3
unit=$TOP/tests/unit/test_bisect.c
if ! [ -x "$py" ] || ! "$py" -c 'import scipy, numpy' 2>/dev/null; then
	skip "bisect reference figures against scipy" "/usr/bin/python3 with scipy and numpy is not installed (scripts/install-deps)"
	exit 0
fi
if ! out=$("$py" "$TOP/tests/unit/bisect_ref.py" 2>&1); then
	not_ok "bisect_ref.py runs" "$out"
	exit 0
fi
n=0 miss=
while IFS= read -r l; do
	n=$((n + 1))
	grep -qxF -- "$l" "$unit" || miss="$miss$l
"
done <<END
$out
END
[ "$n" -ge 9 ] && [ -z "$miss" ] &&
    ok "test_bisect.c holds every figure bisect_ref.py prints ($n lines)" ||
    not_ok "test_bisect.c holds every figure bisect_ref.py prints" \
    "lines: $n; missing:
$miss"

# A planted change in the table is caught.
d=$(scratch) || exit 1
sed 's/6\.534973783646052/6.534973783646053/' "$unit" >"$d/t.c"
l=$(echo "$out" | grep ends_apart)
grep -qxF -- "$l" "$d/t.c" &&
    not_ok "a changed figure in the table is caught" ||
    ok "a changed figure in the table is caught"
