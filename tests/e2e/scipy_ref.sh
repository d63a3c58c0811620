# The reference tables unit tests hold, recomputed: every line a
# tests/unit/*_ref.py prints from scipy and numpy must stand in its unit
# test as printed, so that a table cannot drift from its reference, and
# a figure changed in the test is caught.
#   bisect_ref.py -> test_bisect.c: Welch on the endpoints, the
#     interval's t quantile, a step's log odds of the culprit's position
#     by the JZS factor's t form and scipy's quad, the p over boots
#     auto's looks;
#   busy_ref.py -> test_compare.c: the fewest tries over the limit that
#     gate_busy flags, by scipy's binomial tail.
. "$FSCONC_TOP/tests/lib.sh"

py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import scipy, numpy' 2>/dev/null; then
	skip "reference figures against scipy" "/usr/bin/python3 with scipy and numpy is not installed (scripts/install-deps)"
	exit 0
fi

# ref_table REF UNIT MIN LINE FROM TO: REF's lines, at least MIN, all in
# UNIT; and UNIT with FROM changed to TO no longer holds LINE (a line
# REF printed matching it).
ref_table() {
	ref=$TOP/tests/unit/$1 unit=$TOP/tests/unit/$2
	if ! out=$("$py" "$ref" 2>&1); then
		not_ok "$1 runs" "$out"
		return
	fi
	n=0 miss=
	while IFS= read -r l; do
		n=$((n + 1))
		grep -qxF -- "$l" "$unit" || miss="$miss$l
"
	done <<END
$out
END
	[ "$n" -ge "$3" ] && [ -z "$miss" ] &&
	    ok "$2 holds every figure $1 prints ($n lines)" ||
	    not_ok "$2 holds every figure $1 prints" "lines: $n; missing:
$miss"
	l=$(echo "$out" | grep -F -- "$4")
	sed "s/$5/$6/" "$unit" >"$d/t.c"
	[ -n "$l" ] && ! grep -qxF -- "$l" "$d/t.c" &&
	    ok "a changed figure in $2's table is caught" ||
	    not_ok "a changed figure in $2's table is caught" "line: $l"
}

d=$(scratch) || exit 1
ref_table bisect_ref.py test_bisect.c 9 ends_apart \
    '6\.534973783646052' 6.534973783646053
ref_table busy_ref.py test_compare.c 17 '{ 20, 4 },' '^{ 20, 4 },$' '{ 20, 5 },'
