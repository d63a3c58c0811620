# Boot-campaign statistics (analysis/campaign/estimate.c) through a test program
# linked with libfsconc.a (tests/e2e/campaign_tsv.c, built by make as
# $(O)/tests/campaign_tsv): every figure of its JSON recomputed with
# numpy/scipy on generated campaigns (campaign_scipy.py, the bootstrap
# replayed with splitmix64), Kalibera and Jones's worked example in the
# text report, and exit 3 for a regression.
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1
tool=${FSCONC_BUILD:-$TOP/build}/tests/campaign_tsv
if ! [ -x "$tool" ]; then
	skip "campaign statistics" "no $tool (make ${FSCONC_BUILD:-build}/tests/campaign_tsv)"
	exit 0
fi

# Kalibera and Jones's two-level worked example: 3 boots of 4 batches,
# S1^2 = 114.5 / 9 = 12.72, T2^2 = 3.5625 - 12.72 / 4 = 0.3819.
i=0
for b in "9 5 8 3" "10 6 7 11" "1 12 2 4"; do
	i=$((i + 1)) k=0
	for v in $b; do
		k=$((k + 1))
		printf 'A\t%d\t%d\t%s\t%s\n' "$i" "$k" "$v" "$v"
	done
done >"$d/kj.tsv"
out=$("$tool" -t 2 A 1 1000 "$d/kj.tsv" 2>&1)
echo "$out" | grep -q '^    T(1): 4 batches per boot, S1^2 12.72 within, T2^2 0.3819 between, between-boot share 3%$' &&
    echo "$out" | grep -q '^    T(1) per boot: 1:6.25 2:8.5 3:4.75$' &&
    echo "$out" | grep -q '^plan: ' &&
    ok "Kalibera and Jones's worked example: S1^2, T2^2, share, boot means" ||
    not_ok "Kalibera and Jones's worked example: S1^2, T2^2, share, boot means" "$out"

# Their plan with costs c1 = 3 s a repetition, c2 = 20 s a boot: n1 =
# ceil(sqrt(20 x 12.72 / (3 x 0.3819))) = ceil(14.90) = 15; for +/-50%
# of 6.5 = 3.25: 2 boots give 12.706 sqrt((0.3819 + 12.72/15)/2) = 9.97,
# 3 boots 4.303 sqrt(1.2301/3) = 2.755: 3 boots, 3 x (20 + 15 x 3) = 195 s.
out=$("$tool" -t -c 3,20 -p 50 2 A 1 100 "$d/kj.tsv" 2>&1)
echo "$out" | grep -q '^cost: a boot 20 s, a repetition (a batch at every level) 3 s$' &&
    echo "$out" | grep -q '^plan: 3 boots x 15 batches per boot and configuration bring every time to within +/-50% ' &&
    echo "$out" | grep -q '^  about 195 s per configuration$' &&
    ok "Kalibera and Jones's optimal repetitions and the boots for a target" ||
    not_ok "Kalibera and Jones's optimal repetitions and the boots for a target" "$out"

# No variance between boots: S1^2 = (1 + 1 + 1 + 1) / 2 = 2, S2^2 = 0,
# T2^2 = 0 - 2 / 2 = -1 clamped at 0, the share 0.
printf 'A\t1\t1\t1\t1\nA\t1\t2\t3\t3\nA\t2\t1\t1\t1\nA\t2\t2\t3\t3\n' >"$d/flat.tsv"
out=$("$tool" 2 A 1 100 "$d/flat.tsv" 2>&1)
echo "$out" | grep -q '"s2_sq": 0, "t2_sq": 0, "t2_sq_raw": -1, "between_share": 0' &&
    ok "T2^2 below 0 is clamped, the raw value kept" ||
    not_ok "T2^2 below 0 is clamped, the raw value kept" "$out"

py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import scipy, numpy' 2>/dev/null; then
	skip "campaign statistics against scipy" "/usr/bin/python3 with scipy and numpy is not installed (scripts/install-deps)"
	exit 0
fi
n=0 name= detail=
flush() {
	[ -n "$name" ] || return 0
	case $name in
	"not ok "*) not_ok "${name#not ok }" "$detail" ;;
	*) ok "${name#ok }" ;;
	esac
	n=$((n + 1)) name= detail=
}
# pyref SCRIPT: its "ok WHAT" / "not ok WHAT" lines as checks; n of them.
pyref() {
	res=$("$py" "$TOP/tests/e2e/$1" "$tool" "$d" 2>&1)
	n=0 name= detail=
	while IFS= read -r l; do
		case $l in
		"ok "*|"not ok "*) flush; name=$l ;;
		*) detail="$detail$l
" ;;
		esac
	done <<END
$res
END
	flush
}
pyref campaign_scipy.py
[ "$n" -eq 3 ] && ok "campaign_scipy.py checked 3 campaigns" ||
    not_ok "campaign_scipy.py checked 3 campaigns" "$res"

# Boots on several machines (campaign_machines.py): the three-level
# variance against the nested ANOVA's mean squares, the comparisons within
# machine and the machine apart against statsmodels' OLS, a planted
# machine named and a quiet pool where none is.
if "$py" -c 'import statsmodels, pandas' 2>/dev/null; then
	pyref campaign_machines.py
	[ "$n" -eq 3 ] && ok "campaign_machines.py checked 3 campaigns" ||
	    not_ok "campaign_machines.py checked 3 campaigns" "$res"
else
	skip "campaigns over machines against statsmodels" "/usr/bin/python3 with statsmodels and pandas is not installed (scripts/install-deps)"
fi

# Two machines: comparisons within machine, neither machine named.
for c in A B; do
	for m in m1 m2; do
		for b in 1 2 3; do
			printf '%s\t%s%s%d\t1\t%s\t%s\t%s\n' "$c" "$c" "$m" "$b" \
			    "1$b" "$((5 + b))" "$m"
		done
	done
done | sed 's/\tAm1/\t1/; s/\tAm2/\t2/; s/\tBm1/\t3/; s/\tBm2/\t4/' >"$d/two.tsv"
out=$("$tool" -t 2 A 1 100 "$d/two.tsv" 2>&1)
echo "$out" | grep -q '^machines: 2 (m1, m2): figures over machine means' &&
    echo "$out" | grep -q 'neither can be named the odd one' &&
    echo "$out" | grep -q '(within machine)' &&
    ok "two machines: within-machine comparisons, neither named" ||
    not_ok "two machines: within-machine comparisons, neither named" "$out"

# A configuration much slower than the baseline: exit 3, as nightly.
"$tool" 12 on 1 200 "$d/c1.tsv" >"$d/out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && grep -q '"regressions": [1-9]' "$d/out" &&
    ok "a significant slowdown and EC drop: exit 3" ||
    not_ok "a significant slowdown and EC drop: exit 3" "rc=$rc $(head -c 400 "$d/out")"
