# Universal Scalability Law: data made from known sigma and kappa (3%
# noise, splitmix64: tests/e2e/usl_gen.c), brought in with fsconc import,
# recovered within their intervals by compare and drawn by report; the
# 2005 figures (two levels) refused with the reason; scipy's curve_fit on
# the same batches agrees (usl_scipy.py).
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1
R=$d/res
# Our own generator: a build failure is a failure, not a skip.
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$TOP" -o "$d/gen" \
    "$TOP/tests/e2e/usl_gen.c" "$TOP/common/util.c" -lm 2>"$d/cc.err"; then
	not_ok "usl" "cannot build tests/e2e/usl_gen.c: $(cat "$d/cc.err")"
	exit 0
fi
py=/usr/bin/python3
[ -x "$py" ] || py=

# gen LABEL NCPU SIGMA KAPPA SEED LEVELS...: make the data, import it.
gen() {
	_l=$1 _c=$2 _s=$3 _k=$4 _seed=$5; shift 5
	mkdir -p "$d/$_l"
	"$d/gen" "$_s" "$_k" 14.64 0.03 "$_seed" 10 "$d/$_l" "$@" || return 1
	_a=
	for _n in "$@"; do _a="$_a $_n=$d/$_l/$_n.txt"; done
	# shellcheck disable=SC2086
	"$FSCONC" import -R "$R" --host box -l "$_l" ${_c:+--ncpu $_c} \
	    -m archive_sha256=cafe $_a >/dev/null
}
gen peak 16 0.05 0.01 1 1 2 4 6 8 12 16 &&
    gen beyond 12 0.15 0.002 2 1 2 3 4 6 8 10 12 16 &&
    gen amdahl 8 0.3 0 3 1 2 4 8 &&
    gen nocpu '' 0.05 0.01 4 1 2 4 8 ||
    { not_ok "usl_gen and import"; exit 0; }

out=$("$FSCONC" compare -R "$R" box/peak box/beyond box/amdahl 2>/dev/null)
echo "$out" | grep -q '^Universal Scalability Law: EC(N) = N / (1 + sigma (N-1) + kappa N (N-1)),' &&
    echo "$out" | grep -Eq '^  x peak: levels 1,2,4,6,8,12,16 \(up to ncpu 16\), 70 batches, 67 dof' &&
    echo "$out" | grep -Eq '^      peak N\* = sqrt\(\(1-sigma\)/kappa\) = 9\.[0-9]+, EC\(N\*\) = 4\.[0-9]+$' &&
    ok "compare: the fit per set, peak within the levels" ||
    not_ok "compare: the fit per set, peak within the levels" "$out"
echo "$out" | grep -q '^  + beyond: levels 1,2,3,4,6,8,10,12 (up to ncpu 12; left out: 16), 80 batches' &&
    echo "$out" | grep -q 'extrapolated beyond N = 12$' &&
    ok "compare: levels above ncpu left out and named, peak extrapolated" ||
    not_ok "compare: levels above ncpu left out and named, peak extrapolated" "$out"
out=$("$FSCONC" compare -R "$R" --usl-all box/peak box/beyond 2>/dev/null)
echo "$out" | grep -q '^  + beyond: levels 1,2,3,4,6,8,10,12,16 (every level: --usl-all), 90 batches' &&
    ok "compare --usl-all fits every level" ||
    not_ok "compare --usl-all fits every level" "$out"

# The known answers: true sigma and kappa inside the 95% intervals.
if [ -n "$py" ]; then
	"$FSCONC" compare -R "$R" --json box/peak box/beyond box/amdahl \
	    >"$d/json" 2>/dev/null
	res=$("$py" - "$d/json" <<'EOF'
import json, sys
true = [(0.05, 0.01), (0.15, 0.002), (0.3, 0.0)]
j = json.load(open(sys.argv[1]))
bad = []
for u in j["usl"]:
    f, (s, k) = u["fit"], true[u["set"]]
    if not f["fitted"]:
        bad.append("set %d: %s" % (u["set"], f["reason"]))
        continue
    for name, v in (("sigma", s), ("kappa", k)):
        p = f[name]
        print("# set %d %s true %g fitted %.4g [%.4g, %.4g]%s" % (
            u["set"], name, v, p["estimate"], p["lo"], p["hi"],
            " held at 0" if p["boundary"] else ""))
        if not p["lo"] <= v <= p["hi"]:
            bad.append("set %d %s %g not in [%g, %g]" % (u["set"], name,
                       v, p["lo"], p["hi"]))
print("bad: " + "; ".join(bad) if bad else "good")
EOF
)
	echo "$res" | grep '^#'
	[ "$(echo "$res" | tail -1)" = good ] &&
	    ok "known sigma and kappa within their 95% intervals (3 sets)" ||
	    not_ok "known sigma and kappa within their 95% intervals (3 sets)" "$res"
else
	skip "known sigma and kappa within their 95% intervals (3 sets)" "no /usr/bin/python3"
fi

# Sets in fsconc run's format (runs.tsv, workers.tsv) from the other
# generator, tests/fixtures/mkset.sh: Amdahl's law, sigma 0.3 and 0.0505.
M=$d/mk
SEED=11 LABEL=base SERIAL=0.3 sh "$TOP/tests/fixtures/mkset.sh" "$M/h1/base/20261129T000000Z"
SEED=12 LABEL=mpsafe SERIAL=0.0505 sh "$TOP/tests/fixtures/mkset.sh" "$M/h1/mpsafe/20261129T000000Z"
out=$("$FSCONC" compare -R "$M" h1/base h1/mpsafe 2>/dev/null)
s1=$(echo "$out" | awk '/^  x base: levels 1,2,4,8 \(up to ncpu 8\)/ { f = 1 }
    f && /sigma \(contention\)/ { gsub(/[][,]/, " "); print $3, $4, $5; exit }')
s2=$(echo "$out" | awk '/^  \+ mpsafe: levels 1,2,4,8 \(up to ncpu 8\)/ { f = 1 }
    f && /sigma \(contention\)/ { gsub(/[][,]/, " "); print $3, $4, $5; exit }')
echo "$s1 $s2" | awk '{ exit !($2 <= 0.3 && 0.3 <= $3 && $5 <= 0.0505 && 0.0505 <= $6) }' &&
    ok "run-format sets (mkset.sh): sigma 0.3 in [${s1#* }], 0.0505 in [${s2#* }]" ||
    not_ok "run-format sets (mkset.sh): known sigma within the intervals" "$out"

# The 2005 figures: EC(12) 2.11 vs 0.55, two levels only.
F=$TOP/tests/fixtures/ec2005
"$FSCONC" import -R "$R" --host old -l mpsafevfs --ncpu 12 \
    1="$F/mpsafevfs-t1.txt" 12="$F/mpsafevfs-t12.txt" >/dev/null
"$FSCONC" import -R "$R" --host old -l nompsafevfs --ncpu 12 \
    1="$F/nompsafevfs-t1.txt" 12="$F/nompsafevfs-t12.txt" >/dev/null
out=$("$FSCONC" compare -R "$R" old/mpsafevfs old/nompsafevfs 2>/dev/null)
[ "$(echo "$out" | grep -c ': no fit: only 2 levels (1,12): sigma, kappa and T1 need at least 3 levels$')" -eq 2 ] &&
    echo "$out" | grep -q '^EC(12) = 2.11 vs 0.55 ' &&
    ! echo "$out" | grep -q 'sigma (contention)' &&
    ok "2005 figures: refused with the reason, no numbers" ||
    not_ok "2005 figures: refused with the reason, no numbers" "$out"

# No ncpu in meta: which levels are "up to ncpu" is unknown.
out=$("$FSCONC" compare -R "$R" box/peak box/nocpu 2>/dev/null)
echo "$out" | grep -q '^  + nocpu: no fit: ncpu is not recorded in the set' &&
    "$FSCONC" compare -R "$R" --usl-all box/peak box/nocpu 2>/dev/null |
    grep -q '^  + nocpu: levels 1,2,4,8 (every level: --usl-all)' &&
    ok "no ncpu: refused, --usl-all fits" ||
    not_ok "no ncpu: refused, --usl-all fits" "$out"

# report: the fit drawn over the EC plot, the section with its numbers.
err=$("$FSCONC" report -R "$R" -o "$d/rep" box/peak box/beyond old/mpsafevfs 2>&1); rc=$?
h=$d/rep/index.html
[ $rc -eq 0 ] && [ -z "$err" ] &&
    grep -q "'usl.dat' index 0 using 1:2 with lines dt (7,4) lw 2.5 lc 1 title columnheader(1)" "$d/rep/plots/ec.gp" &&
    grep -q "'usl.dat' index 1 using 1:2 with lines dt (7,4) lw 2.5 lc 2 title columnheader(1)" "$d/rep/plots/ec.gp" &&
    ! grep -q "'usl.dat' index 2" "$d/rep/plots/ec.gp" &&
    [ "$(grep '^"' "$d/rep/plots/usl.dat" | tr '\n' ,)" = '"peak: USL fit","beyond: USL fit",' ] &&
    [ "$(grep -c '^[0-9.e+-]* [0-9.e+-]*$' "$d/rep/plots/usl.dat")" -eq 402 ] &&
    ok "report: USL curves of the fitted sets in the EC plot" ||
    not_ok "report: USL curves of the fitted sets in the EC plot" "rc=$rc $err"
# In the SVG: the EC plot's legend names the fits, and each fit is a
# dashed path of many segments (gnuplot splits long ones).
ecsvg=$(awk '/<svg/ { n++ } n == 1' "$h" | sed '/<\/svg>/q')
echo "$ecsvg" | grep -q '<text>peak: USL fit</text>' &&
    echo "$ecsvg" | grep -q '<text>beyond: USL fit</text>' &&
    [ "$(echo "$ecsvg" | tr -d '\n' | sed 's/<path/\n<path/g' |
    grep "stroke-dasharray='8.8,5.0'" | awk -F' L' 'NF > 100' | wc -l)" -eq 2 ] &&
    ok "report: the fits are drawn in the EC plot's SVG" ||
    not_ok "report: the fits are drawn in the EC plot's SVG" "$(echo "$ecsvg" | grep -c '<path')"
sed -n '/<h2>Universal Scalability Law/,/<\/pre>/p' "$h" >"$d/usl.txt"
grep -q '^  peak: levels 1,2,4,6,8,12,16 (up to ncpu 16)' "$d/usl.txt" &&
    grep -q '^  mpsafevfs: no fit: only 2 levels (1,12)' "$d/usl.txt" &&
    grep -Eq '^      sigma \(contention\) +0\.0[0-9]+ +\[0\.0[0-9]+, 0\.0[0-9]+\]$' "$d/usl.txt" &&
    ok "report: the USL section, fits and refusal" ||
    not_ok "report: the USL section, fits and refusal" "$(cat "$d/usl.txt")"

# A label is the user's text: data for gnuplot (the fit's title is a
# header line of usl.dat), never part of its script.
gen "it's" 8 0.1 0.005 5 1 2 4 8
err=$("$FSCONC" report -R "$R" -o "$d/rep2" "box/it's" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qx "\"it's: USL fit\"" "$d/rep2/plots/usl.dat" &&
    ! grep -q "it's" "$d/rep2/plots/ec.gp" &&
    grep -q "<text>it's: USL fit</text>" "$d/rep2/index.html" &&
    ok "report: a quote in the label stays in the fit's title" ||
    not_ok "report: a quote in the label stays in the fit's title" "rc=$rc $err"

# An independent fit: scipy.optimize.curve_fit on the same batches.
if [ -n "$py" ] && "$py" -c 'import scipy, numpy' 2>/dev/null; then
	"$py" "$TOP/tests/e2e/usl_scipy.py" "$FSCONC" "$(scratch)" $((_t + 1))
else
	skip "USL fits agree with scipy" "/usr/bin/python3 with scipy and numpy is not installed (scripts/install-deps)"
fi
