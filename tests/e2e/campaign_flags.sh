# Boot campaigns carry every flag of their sets: per configuration and
# per boot in compare over boots, in fsconc report's Boot campaign
# section (with a plot of the boots) and in fsconc campaign report (text
# and JSON).  Oversubscribed, disturbed and superlinear invalidate the
# figures of their level: a configuration with such boots gets no
# verdict ("invalid: ...") and the exit status is 4, as for a flagged
# run; noisy and a missed precision target only warn.
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1

# The campaign fl: A the baseline, EC(2) 1.9; B oversubscribed at -j 2
# on every boot (1 CPU, as a guest booted with isolcpus=1 runs), EC(2)
# 0.95, which would be a regression if B scaled; C missed its precision
# target on one boot (a warning); D disturbed on one boot.
R=$d/fl
b=0
for r in 1 2 3; do
	for l in A B C D; do
		b=$((b + 1))
		set --
		t2=10.5
		case $l$r in
		B*)	set -- -m ncpu=1 -m oversubscribed=2; t2=21 ;;
		C2)	set -- -m precision_met=no -m precision_target=2 ;;
		D3)	set -- -m disturbed_kept=3 -m disturbed_worst=49.4 \
			    -m disturb_threshold=10 ;;
		esac
		for j in 1 2; do
			[ $j -eq 1 ] && t=10 || t=$t2
			awk -v s=$((b * 10 + j)) -v t=$t 'BEGIN { srand(s)
			    for (i = 0; i < 5; i++)
				printf "%.4f\n", t * (1 + 0.01 * (rand() - 0.5)) }' \
			    >"$d/b$j"
		done
		"$FSCONC" import -R "$R" --host box -l "$l" \
		    --date "2026-11-$(printf %02d $b)T03:00:00Z" \
		    -m archive_sha256=cafe -m campaign=fl -m campaign_config=$l \
		    -m campaign_boot=$b -m campaign_round=$r "$@" \
		    1="$d/b1" 2="$d/b2" >/dev/null || not_ok "import $l $r"
	done
done

# --- compare over boots: text ---------------------------------------------
out=$("$FSCONC" compare -R "$R" box/A box/B box/C box/D 2>"$d/err"); rc=$?
sec() { echo "$out" | sed -n "/^configuration $1/,/^configuration\\|^cost/p"; }
[ $rc -eq 4 ] &&
    sec B | grep -q '^  flags: oversubscribed on 3 of 3 boots (invalidate the figures of their levels)$' &&
    [ "$(sec B | grep -c '^    boot [0-9]*: oversubscribed at -j 2 on 1 CPUs$')" -eq 3 ] &&
    sec B | grep -Eq '^  T\(2\) .*  invalid: oversubscribed on 3 of 3 boots$' &&
    sec B | grep -Eq '^  EC\(2\) .*  invalid: oversubscribed on 3 of 3 boots$' &&
    sec B | grep -Eq '^  T\(1\) .*: no difference proven$' &&
    ! echo "$out" | grep -q REGRESSION &&
    grep -q 'compare: campaign fl: 5 figures invalid' "$d/err" &&
    ok "compare: B oversubscribed on every boot: flags per boot, T(2) and EC(2) invalid, no regression, exit 4" ||
    not_ok "compare: B oversubscribed on every boot: flags per boot, T(2) and EC(2) invalid, no regression, exit 4" \
    "rc=$rc $out $(cat "$d/err")"
# A warning is shown and judged through; disturbed invalidates its boots'
# configuration at every level.
sec C | grep -q '^  flags: precision not reached on 1 of 3 boots (warnings)$' &&
    sec C | grep -q '^    boot 7: precision not reached: target 2%$' &&
    [ "$(sec C | grep -c ': no difference proven$')" -eq 3 ] &&
    sec D | grep -q '^  flags: disturbed on 1 of 3 boots (invalidate' &&
    sec D | grep -q '^    boot 12: disturbed: 3 batches counted (worst 49.4%)$' &&
    [ "$(sec D | grep -c 'invalid: disturbed on 1 of 3 boots$')" -eq 3 ] &&
    ! sec A | grep -q 'flags:' &&
    echo "$out" | grep -q '^verdict: 0 regressions in 4 tests (Holm); invalid: 5 figures whose boots carry flags' &&
    ok "compare: a missed precision warns and is judged; disturbed on 1 of 3 boots invalidates" ||
    not_ok "compare: a missed precision warns and is judged; disturbed on 1 of 3 boots invalidates" "$out"

# Without its flags B's slowdown is a regression: the flag is what stops it.
R2=$d/noflag
cp -r "$R" "$R2"
for m in "$R2"/box/B/*/meta; do
	sed -i '/^oversubscribed=/d; s/^ncpu=1$/ncpu=2/' "$m"
done
out=$("$FSCONC" compare -R "$R2" box/A box/B 2>&1); rc=$?
[ $rc -eq 3 ] && echo "$out" | grep -Eq '^  T\(2\) .*REGRESSION$' &&
    ok "the same data unflagged: a regression, exit 3" ||
    not_ok "the same data unflagged: a regression, exit 3" "rc=$rc $out"

# --- compare over boots: JSON -----------------------------------------------
"$FSCONC" compare -R "$R" --json box/A box/B box/C box/D >"$d/json" 2>/dev/null; rc=$?
if [ ! -x /usr/bin/python3 ]; then
	skip "compare --json: the flags" "no /usr/bin/python3"
elif /usr/bin/python3 -m json.tool "$d/json" >/dev/null 2>&1 &&
    v=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in j["configurations"]}
assert j["invalid"] == 5 and j["regressions"] == 0 and j["tests"] == 4
assert c["A"]["flags"] == []
bf = c["B"]["flags"]
assert len(bf) == 3 and sorted(f["boot"] for f in bf) == [2, 6, 10]
assert all(f["flag"] == "oversubscribed" and f["jobs"] == 2 and f["invalidates"] for f in bf)
b = {l["jobs"]: l for l in c["B"]["levels"]}
assert b[2]["time_flags"] == {"invalid_boots": 3, "oversubscribed": 3}
assert b[2]["time_vs_baseline"]["verdict"] == "invalid"
assert b[2]["time_vs_baseline"]["invalid"] == "invalid: oversubscribed on 3 of 3 boots"
assert b[2]["ec_vs_baseline"]["verdict"] == "invalid"
assert b[1]["time_vs_baseline"]["verdict"] == "no difference proven"
assert b[1]["time_vs_baseline"]["invalid"] is None
cf = c["C"]["flags"]
assert len(cf) == 1 and cf[0]["flag"] == "precision not reached" and not cf[0]["invalidates"]
cl = {l["jobs"]: l for l in c["C"]["levels"]}
assert cl[2]["time_vs_baseline"]["verdict"] == "no difference proven"
df = c["D"]["flags"]
assert len(df) == 1 and df[0]["flag"] == "disturbed" and df[0]["jobs"] == 0 and df[0]["boot"] == 12
print("ok")
' "$d/json" 2>&1) && [ $rc -eq 4 ]; then
	ok "compare --json: valid JSON, every flag per boot and per figure, invalid verdicts, exit 4"
else
	not_ok "compare --json: valid JSON, every flag per boot and per figure, invalid verdicts, exit 4" \
	    "rc=$rc $v $(head -c 800 "$d/json")"
fi

# --- report: the Boot campaign section and its plot of the boots ----------
if command -v gnuplot >/dev/null 2>&1; then
	err=$("$FSCONC" report -R "$R" -o "$d/rep" box/A box/B box/C box/D 2>&1); rc=$?
	h=$d/rep/index.html
	# The section alone: the rest of the page is the sets'.
	sed -n '/<h2>Boot campaign<\/h2>/,/<h2>Result sets/p' "$h" >"$d/sec.html"
	[ $rc -eq 0 ] &&
	    grep -q '<span class="slower">invalid: oversubscribed on 3 of 3 boots</span>' "$d/sec.html" &&
	    [ "$(grep -c '<span class="slower">oversubscribed at -j 2 on 1 CPUs</span>' "$d/sec.html")" -eq 3 ] &&
	    grep -q 'warning: precision not reached on 1 of 3 boots' "$d/sec.html" &&
	    grep -q '<span class="slower">disturbed: 3 batches counted (worst 49.4%)</span>' "$d/sec.html" &&
	    grep -Eq '<td>B</td><td>T\(2\)</td>.*<td colspan="3" class="slower">invalid: oversubscribed on 3 of 3 boots</td>' "$d/sec.html" &&
	    ! grep -Eq '<td>B</td><td>T\(2\)</td>.*no difference proven' "$d/sec.html" &&
	    grep -Eq '<td>C</td><td>T\(2\)</td>.*no difference proven' "$d/sec.html" &&
	    ok "report: every boot's flags, B's T(2) invalid, not judged" ||
	    not_ok "report: every boot's flags, B's T(2) invalid, not judged" "rc=$rc $err"
	# One plot per level, a point per boot in each configuration's block,
	# the mean over boots per configuration, B's 3 boots and D's disturbed one ringed at -j 2.
	p=$d/rep/plots/campaign-boots-2.dat
	pts=$(awk '/^# configuration/ { b++ } /^[0-9]/ && b > 0 && !done { n[b]++ }
	    /^# the mean/ { done = 1 } END { for (i = 1; i <= 4; i++) printf "%d ", n[i] }' "$p" 2>/dev/null)
	rings=$(sed -n '/^"flagged boot"/,$p' "$p" 2>/dev/null | grep -c '^[0-9]')
	means=$(sed -n '/^"over boots"/,/^$/p' "$p" 2>/dev/null | grep -c '^[0-9]')
	nfig=$(grep -c '<figcaption>The boots at -j [12]:' "$d/sec.html")
	nsvg=$(sed -n '/<figure>/,/<\/figure>/p' "$d/sec.html" | grep -c '<svg')
	[ "$pts" = "3 3 3 3 " ] && [ "$rings" -eq 4 ] && [ "$means" -eq 4 ] &&
	    [ "$nfig" -eq 2 ] && [ "$nsvg" -eq 2 ] &&
	    [ -s "$d/rep/plots/campaign-boots-1.svg" ] &&
	    ok "report: a plot of the boots per level, one point per boot ($pts), flagged boots ringed" ||
	    not_ok "report: a plot of the boots per level, one point per boot" \
	    "pts=$pts rings=$rings means=$means nfig=$nfig nsvg=$nsvg"
	rendered "$h"
else
	skip "report: every boot's flags" "no gnuplot"
	skip "report: a plot of the boots per level" "no gnuplot"
fi

# --- fsconc campaign report: a real campaign, oversubscribed ---------------
# Its reboots simulated as in campaign.sh; more workers than this
# machine has CPUs, so every boot's set is flagged oversubscribed.
if [ "$(id -u)" -ne 0 ]; then
	skip "campaign report: the flags of its boots" "needs root (a tmpfs disk)"
	exit 0
fi
s=$d/c
mkdir "$s"
over=$(($(getconf _NPROCESSORS_ONLN) + 1))
sim_machine "$s"
cat >"$s/o.campaign" <<EOF
run -w syscall -O count=2000 -j 1,$over -r 2 --disk tmpfs
boots 2
seed 3
retries 0
baseline B
method command
command $s/boot.sh
config A
	cmdline fsconctest=a
config B
EOF
R3=$s/res
"$FSCONC" campaign start -R "$R3" "$s/o.campaign" >"$s/start.out" 2>&1
i=0
while [ -e "$R3/campaign/active" ] && [ $i -lt 8 ]; do
	"$FSCONC" campaign resume -R "$R3" --id "$(cat "$R3/campaign/active")" \
	    >>"$s/resume.out" 2>&1
	i=$((i + 1))
done
out=$("$FSCONC" campaign report -R "$R3" 2>"$s/err"); rc=$?
n=$(echo "$out" | grep -c "^    boot [0-9]*: .*oversubscribed at -j $over on ")
[ $rc -eq 4 ] && [ "$n" -eq 4 ] &&
    echo "$out" | grep -Eq '^  flags: ([a-z]+ on [0-9] of 2 boots, )?oversubscribed on 2 of 2 boots \(invalidate' &&
    echo "$out" | grep -Eq "^  T\\($over\\) .*invalid: ([a-z]+ on [0-9] of 2 boots, )?oversubscribed on 2 of 2 boots; the baseline is ([a-z]+ on [0-9] of 2 boots, )?oversubscribed on 2 of 2 boots\$" &&
    grep -q 'figures* invalid' "$s/err" &&
    ok "campaign report: every boot oversubscribed, flagged per boot, invalid, exit 4" ||
    not_ok "campaign report: every boot oversubscribed, flagged per boot, invalid, exit 4" \
    "rc=$rc n=$n $out $(cat "$s/err" "$s/start.out") $(tail -5 "$s/resume.out")"
out=$("$FSCONC" campaign report --json -R "$R3" 2>/dev/null); rc=$?
echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin); st = d["statistics"]; n = int(sys.argv[1])
assert st["invalid"] > 0
for c in st["configurations"]:
    o = [f for f in c["flags"] if f["flag"] == "oversubscribed"]
    assert len(o) == 2 and len(set(f["boot"] for f in o)) == 2
    assert all(f["jobs"] == n and f["invalidates"] for f in o)
' "$over" 2>"$s/py" && [ $rc -eq 4 ] &&
    ok "campaign report --json: the flags of every boot, exit 4" ||
    not_ok "campaign report --json: the flags of every boot, exit 4" "rc=$rc $(cat "$s/py") $(echo "$out" | head -c 600)"
