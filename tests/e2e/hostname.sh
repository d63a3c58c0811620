# One host directory per machine: run, import and the set selectors of
# compare/report/nightly agree on this host's name when it has a domain
# (FreeBSD's usual "box.example.org"): the part before the first dot.
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "fully qualified host name" "needs root for a UTS namespace"
	exit 0
elif ! unshare -u true 2>/dev/null; then
	skip "fully qualified host name" "unshare -u not available"
	exit 0
fi
d=$(scratch) || exit 1
printf '1.5\n1.6\n1.4\n' >"$d/t1"
# shellcheck disable=SC2016
out=$(unshare -u sh -c '
	hostname box.example.org || exit 9
	"$1" run -w calib -O iterations=1000 -j 1 -r 2 --label fq \
	    -R "$2/res" >/dev/null 2>&1 || exit 8
	"$1" import -l imp -R "$2/res" 1="$2/t1" >/dev/null || exit 7
	"$1" nightly -R "$2/res" --no-run fq --no-report
' sh "$FSCONC" "$d" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(ls "$d/res")" = box ] &&
    ok "fully qualified host name: one host directory, found by label" ||
    not_ok "fully qualified host name: one host directory, found by label" \
    "rc=$rc; $(ls "$d/res"); $out"
