# fsconc compare and report of a boot campaign's sets:
# judged over boots, never by one boot's interval; Holm over the
# configurations against the baseline; exit 3 for a regression; mixed
# campaigns refused; --no-campaign compares set by set.  The campaigns
# are generated with known boot effects and imported with the campaign
# keys in meta (results/FORMAT.md, "Campaign keys").
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1

# camp ROOT ID SEED BATCHES WITHIN CONFIG:T1:T2:EFFECTS ...
#   One set per configuration and boot, rounds of one boot each, boot
#   numbers as a campaign counts them (round after round).  A boot's
#   batches are T * (1 + effect) * (1 + WITHIN * gauss): effect the
#   boot's own (EFFECTS, comma-separated, one per boot: the boot effects
#   are planted, so the truth is known), WITHIN the noise of a batch.
camp() {
	_root=$1 _id=$2 _seed=$3 _nb=$4 _w=$5
	shift 5
	_nc=$#
	_ci=0
	for _spec in "$@"; do
		_ci=$((_ci + 1))
		IFS=: read -r _name _t1 _t2 _eff <<EOF
$_spec
EOF
		_r=0
		for _e in $(echo "$_eff" | tr , ' '); do
			_r=$((_r + 1))
			_boot=$(( (_r - 1) * _nc + _ci ))
			for _j in 1 2; do
				[ "$_j" -eq 1 ] && _tv=$_t1 || _tv=$_t2
				awk -v seed=$((_seed * 1000 + _boot * 10 + _j)) \
				    -v n="$_nb" -v t="$_tv" -v e="$_e" -v w="$_w" '
				BEGIN {
					srand(seed)
					for (i = 0; i < n; i++) {
						u = rand(); v = rand()
						if (u < 1e-12) u = 1e-12
						g = sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
						printf "%.6f\n", t * (1 + e) * (1 + w * g)
					}
				}' >"$d/b$_j.txt"
			done
			"$FSCONC" import -R "$_root" --host box -l "$_name" \
			    --date "2026-11-$(printf %02d "$_boot")T03:00:00Z" \
			    -m archive_sha256=cafe -m campaign="$_id" \
			    -m campaign_config="$_name" -m campaign_boot="$_boot" \
			    -m campaign_round="$_r" \
			    1="$d/b1.txt" 2="$d/b2.txt" >/dev/null || return 1
		done
	done
}

# --- B clearly slower at 2 jobs, boots varying by a few percent --------
R1=$d/slow
camp "$R1" slow 1 5 0.01 \
    A:10:10:0.02,-0.01,0.03,-0.02 \
    B:10:13:-0.02,0.01,0.02,-0.03 || not_ok "campaign slow imported"
out=$("$FSCONC" compare -R "$R1" box/A box/B 2>"$d/err"); rc=$?
[ $rc -eq 3 ] &&
    echo "$out" | grep -q '^campaign slow: 2 configurations, baseline A; 95% intervals over boots$' &&
    echo "$out" | grep -q '^configuration B: 4 boots$' &&
    echo "$out" | grep -Eq '^  T\(2\) .*Holm .*: worse, REGRESSION$' &&
    echo "$out" | grep -Eq '^  EC\(2\) .*Holm .*: worse, REGRESSION$' &&
    echo "$out" | grep -q '^verdict: 2 regressions in 3 tests (Holm)$' &&
    echo "$out" | grep -Eq '^SLOWER: B at jobs 2: real \+2[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\] over boots \(Holm p = ' &&
    echo "$out" | grep -Eq '^EC DROP: B: EC\(2\) 1\.5[0-9]* vs 2\.0[0-9]*, -0\.[0-9]+ \[' &&
    ! echo "$out" | grep -q '^SLOWER: B at jobs 1' &&
    ok "campaign: B slower at jobs 2 over 4 boots each: exit 3, B named" ||
    not_ok "campaign: B slower at jobs 2 over 4 boots each: exit 3, B named" "rc=$rc $out $(cat "$d/err")"
# The label directories' latest sets stood for every boot: 4 a side.
echo "$out" | grep -q '^configuration A (baseline): 4 boots$' &&
    ! echo "$out" | grep -q '^== jobs' && ! echo "$out" | grep -q 'Welch' &&
    ok "every boot of a named configuration, no set's own interval" ||
    not_ok "every boot of a named configuration, no set's own interval" "$out"
# Boot and round differ between boots: not meta differences; the
# configuration's name is the difference.
echo "$out" | grep -A2 '^Meta keys whose values differ' | grep -Eq '^  campaign_config +x A$' &&
    ! echo "$out" | grep -Eq '^  campaign_(boot|round)' &&
    grep -q 'warning: 1 meta key differs' "$d/err" &&
    ok "campaign_boot and campaign_round are not meta differences" ||
    not_ok "campaign_boot and campaign_round are not meta differences" "$out $(cat "$d/err")"
# -B: B as the baseline, A is then faster: no regression.
out=$("$FSCONC" compare -R "$R1" -B B box/A box/B 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'baseline B;' &&
    echo "$out" | grep -q '^verdict: 0 regressions in 3 tests (Holm)$' &&
    ok "campaign -B B: A against B is no regression, exit 0" ||
    not_ok "campaign -B B: A against B is no regression, exit 0" "rc=$rc $out"
"$FSCONC" compare -R "$R1" -B C box/A box/B >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "campaign -B with no such configuration: exit 2" ||
    not_ok "campaign -B with no such configuration: exit 2" "rc=$rc"
"$FSCONC" compare -R "$R1" -j 2 box/A box/B >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "campaign with -j (set by set only): exit 2" ||
    not_ok "campaign with -j (set by set only): exit 2" "rc=$rc"

# Three configurations, the last the baseline: Holm over the 6 tests of
# both against it; only B regresses.
R4=$d/three
camp "$R4" three 3 5 0.01 \
    A:10:10:0.02,-0.01,0.03,-0.02 \
    B:10:13:-0.02,0.01,0.02,-0.03 \
    C:10:10:0.01,-0.02,-0.01,0.02 || not_ok "campaign three imported"
out=$("$FSCONC" compare -R "$R4" -B C box 2>&1); rc=$?
[ $rc -eq 3 ] && echo "$out" | grep -q '^x C: 4 boots' &&
    echo "$out" | grep -q '^+ A: 4 boots' && echo "$out" | grep -q '^\* B: 4 boots' &&
    echo "$out" | grep -q 'baseline C;' &&
    [ "$(echo "$out" | grep -c 'REGRESSION$')" -eq 2 ] &&
    echo "$out" | sed -n '/^configuration B:/,/^configuration C/p' | grep -q 'T(2) .*REGRESSION$' &&
    echo "$out" | grep -q '^verdict: 2 regressions in 6 tests (Holm)$' &&
    ok "three configurations, -B C, a host directory: B's regressions only, Holm over 6" ||
    not_ok "three configurations, -B C, a host directory: B's regressions only, Holm over 6" "rc=$rc $out"

# --json: camp_json's object.
"$FSCONC" compare -R "$R1" --json box/A box/B >"$d/json" 2>"$d/err"; rc=$?
if [ -x /usr/bin/python3 ]; then
	v=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in j["configurations"]}
b2 = [l for l in c["B"]["levels"] if l["jobs"] == 2][0]
assert j["campaign"] == "slow" and j["baseline"] == "A"
assert c["A"]["baseline"] and not c["B"]["baseline"]
assert c["A"]["boots"] == 4 and c["B"]["boots"] == 4
assert b2["time"]["boots"] == 4 and len(b2["time"]["per_boot"]) == 4
assert b2["time_vs_baseline"]["regression"] is True
assert b2["ec_vs_baseline"]["regression"] is True
assert 0 <= b2["time"]["between_share"] <= 1
assert j["tests"] == 3 and j["regressions"] == 2
print("%.1f %.2f" % (b2["time_vs_baseline"]["pct"], b2["ec"]["estimate"]))
' "$d/json" 2>&1)
	[ $? -eq 0 ] && [ $rc -eq 3 ] &&
	    ok "campaign --json parses, has the boot-level fields ($v)" ||
	    not_ok "campaign --json parses, has the boot-level fields" "rc=$rc $v $(head -c 600 "$d/json")"
else
	skip "campaign --json parses" "no /usr/bin/python3"
fi

# --- the point: boot effects large, batches within a boot alike --------
# A and B are the same: the same boot effects (+/-12%, +/-6% ...), in
# another order, batches within 0.2%.  Over boots: nothing.  One boot of
# each (A's fastest, B's slowest) compared set by set: a "slowdown" of
# 27% that is the boots', not the configurations'.
R2=$d/same
camp "$R2" same 2 5 0.002 \
    A:10:10:-0.12,0.06,-0.03,0.09 \
    B:10:10:0.12,-0.06,0.03,-0.09 || not_ok "campaign same imported"
out=$("$FSCONC" compare -R "$R2" box/A box/B 2>&1); rc=$?
[ $rc -eq 0 ] &&
    echo "$out" | grep -q '^verdict: 0 regressions in 3 tests (Holm)$' &&
    ok "campaign: same configurations, large boot effects: no regression, exit 0" ||
    not_ok "campaign: same configurations, large boot effects: no regression, exit 0" "rc=$rc $out"
a1=$(ls -d "$R2"/box/A/* | head -1) b1=$(ls -d "$R2"/box/B/* | head -1)
out=$("$FSCONC" compare --no-campaign "$a1" "$b1" 2>&1); rc=$?
[ $rc -eq 3 ] && echo "$out" | grep -q '^SLOWER: + B at jobs 1' &&
    ok "--no-campaign, one boot of each: a false slowdown, exit 3" ||
    not_ok "--no-campaign, one boot of each: a false slowdown, exit 3" "rc=$rc $out"
# The same two sets without --no-campaign: every boot is taken.
out=$("$FSCONC" compare "$a1" "$b1" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^configuration B: 4 boots$' &&
    ok "two single boots named: the campaign's 4 boots a side, exit 0" ||
    not_ok "two single boots named: the campaign's 4 boots a side, exit 0" "rc=$rc $out"

# --- refusals ----------------------------------------------------------
err=$("$FSCONC" compare -R "$R1" box/A "$R2/box/B" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'of campaign same, .* of campaign slow' &&
    echo "$err" | grep -q -- '--no-campaign' &&
    ok "sets of two campaigns: exit 2, both named" ||
    not_ok "sets of two campaigns: exit 2, both named" "rc=$rc $err"
"$FSCONC" compare --no-campaign -R "$R1" box/A "$R2/box/B" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] &&
    ok "sets of two campaigns with --no-campaign: set by set" ||
    not_ok "sets of two campaigns with --no-campaign: set by set" "rc=$rc"
printf '10\n10.1\n9.9\n10.05\n9.95\n' >"$d/p1"
# EC(2) 2 with an interval around it: no flag (superlinear would be one).
printf '10\n10.1\n9.9\n10.05\n9.95\n' >"$d/p2"
"$FSCONC" import -R "$R1" --host box -l plain -m archive_sha256=cafe \
    1="$d/p1" 2="$d/p2" >/dev/null
err=$("$FSCONC" compare -R "$R1" box/A box/plain 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'is of no campaign' &&
    ok "a campaign's set with a set of none: exit 2" ||
    not_ok "a campaign's set with a set of none: exit 2" "rc=$rc $err"

# One configuration only: its boots are compared set by set, with a note.
a2=$(ls -d "$R2"/box/A/* | sed -n 2p)
out=$("$FSCONC" compare "$a1" "$a2" 2>"$d/err"); rc=$?
grep -q 'one configuration (A) in these sets: its boots are compared set by set' "$d/err" &&
    echo "$out" | grep -q '^Welch' &&
    ok "two boots of one configuration: set by set, with a note" ||
    not_ok "two boots of one configuration: set by set, with a note" "rc=$rc $out $(cat "$d/err")"

# Different archives: the guard over the configurations' first boots.
R5=$d/arch
for b in 1 2 3 4 5 6; do
	[ $((b % 2)) -eq 1 ] && l=A a=cafe || l=B a=beef
	"$FSCONC" import -R "$R5" --host box -l "$l" \
	    --date "2026-11-0${b}T03:00:00Z" -m archive_sha256=$a \
	    -m campaign=arch -m campaign_config="$l" -m campaign_boot="$b" \
	    -m campaign_round=$(( (b + 1) / 2 )) 1="$d/p1" 2="$d/p2" >/dev/null
done
err=$("$FSCONC" compare -R "$R5" box/A box/B 2>&1 >/dev/null); rc=$?
out=$("$FSCONC" compare -f -R "$R5" box/A box/B 2>/dev/null); rc2=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'archive_sha256 differs' &&
    [ $rc2 -eq 0 ] && echo "$out" | grep -q '^configuration B: 3 boots$' &&
    ok "campaign: configurations with different archives refused, -f compares" ||
    not_ok "campaign: configurations with different archives refused, -f compares" "rc=$rc rc2=$rc2 $err $out"

# Campaign and configuration names with markup (escaped in the page),
# two boots a side.
R3=$d/esc
for b in 1 2 3 4; do
	[ $((b % 2)) -eq 1 ] && l=A c='a<b>&"c' || l=B c=B
	"$FSCONC" import -R "$R3" --host box -l "$l" \
	    --date "2026-11-0${b}T03:00:00Z" -m campaign='<i>id' \
	    -m campaign_config="$c" -m campaign_boot="$b" \
	    -m campaign_round=$(( (b + 1) / 2 )) \
	    1="$d/p1" 2="$d/p2" >/dev/null
done

# Two boots a side: intervals, no test: no verdict, exit 1.
out=$("$FSCONC" compare -R "$R3" box/A box/B 2>"$d/err"); rc=$?
[ $rc -eq 1 ] && grep -q '0 tests: no configuration has 3 boots' "$d/err" &&
    echo "$out" | grep -q 'untested (fewer than 3 boots a side)' &&
    ok "campaign of 2 boots a side: no test, no verdict, exit 1" ||
    not_ok "campaign of 2 boots a side: no test, no verdict, exit 1" "rc=$rc $out $(cat "$d/err")"

# --- report: the "Boot campaign" section --------------------------------
if command -v gnuplot >/dev/null 2>&1; then
	err=$("$FSCONC" report -R "$R1" -o "$d/rep" box/A box/B 2>&1); rc=$?
	h=$d/rep/index.html
	[ $rc -eq 0 ] && grep -q '<h2>Boot campaign</h2>' "$h" &&
	    grep -q 'campaign slow' "$h" &&
	    grep -q 'between-boot share' "$h" &&
	    grep -Eq '<td>B</td>.*REGRESSION' "$h" &&
	    grep -q 'plan:' "$h" &&
	    ok "report: a Boot campaign section with figures over boots" ||
	    not_ok "report: a Boot campaign section with figures over boots" "rc=$rc $err"
	"$FSCONC" report -R "$R3" -o "$d/rep3" box/A box/B >/dev/null 2>&1; rc=$?
	h=$d/rep3/index.html
	[ $rc -eq 0 ] && grep -q '<td>a&lt;b&gt;&amp;&quot;c (baseline)</td>' "$h" &&
	    grep -q 'campaign &lt;i&gt;id:' "$h" && ! grep -q '<i>id' "$h" &&
	    ok "report: campaign and configuration names escaped" ||
	    not_ok "report: campaign and configuration names escaped" "rc=$rc"
	err=$("$FSCONC" report -R "$R1" -o "$d/rep4" box/A "$R2/box/B" 2>&1); rc=$?
	[ $rc -eq 0 ] && ! grep -q 'Boot campaign' "$d/rep4/index.html" &&
	    echo "$err" | grep -q 'no boot campaign section: .* of campaign same, .* of campaign slow' &&
	    ok "report of two campaigns' sets: no campaign section, a warning" ||
	    not_ok "report of two campaigns' sets: no campaign section, a warning" "rc=$rc $err"
	"$FSCONC" report -R "$R1" -o "$d/rep2" box/plain >/dev/null 2>&1 &&
	    ! grep -q 'Boot campaign' "$d/rep2/index.html" &&
	    ok "report of a set of no campaign: no campaign section" ||
	    not_ok "report of a set of no campaign: no campaign section"
else
	skip "report: a Boot campaign section" "no gnuplot"
	skip "report: campaign and configuration names escaped" "no gnuplot"
	skip "report of two campaigns' sets" "no gnuplot"
	skip "report of a set of no campaign" "no gnuplot"
fi

# --- kernel configs: the options that differ, the same kernel twice ----
# kconf ROOT LABEL FIXTURE: every set of the label carries the fixture's
# normal form (set options sorted, by grep and sort) as its kernel.config
# and its sha256sum as meta's kernel.config_hash, as run writes them.
KCF=$FSCONC_TOP/tests/fixtures/kconfig
kconf() {
	grep '^CONFIG_' "$3" | grep -v '=n$' | LC_ALL=C sort >"$d/kc.norm"
	_h=$(sha256sum <"$d/kc.norm" | cut -d' ' -f1)
	for _s in "$1"/box/"$2"/*/; do
		cp "$d/kc.norm" "$_s/kernel.config"
		echo "kernel.config_hash=$_h" >>"$_s/meta"
	done
}
RK=$d/kconf
camp "$RK" kc 5 5 0.01 generic:10:10:0.01,-0.01,0.02 rt:10:10:0.02,0.01,-0.01 \
    same:10:10:0.01,0.0,-0.02 || not_ok "campaign kc imported"
kconf "$RK" generic "$KCF/generic.config"
kconf "$RK" rt "$KCF/rt.config"
kconf "$RK" same "$KCF/generic.config"
out=$("$FSCONC" compare -R "$RK" box/generic box/rt box/same 2>&1); rc=$?
echo "$out" | grep -q '^  rt against generic: 10 options differ: DEBUG_LOCK_ALLOC=y (not set), HZ=1000 (250), HZ_1000=y (not set), HZ_250 not set (y), LOCALVERSION="-rt" (""), \.\.\.$' &&
    echo "$out" | grep -q '^  same against generic: no kernel option differs$' &&
    echo "$out" | grep -q '^warning: generic and same are the same kernel (config [0-9a-f]\{12\})$' &&
    [ "$(echo "$out" | grep -c '^  kernel config [0-9a-f]\{12\} on 3 of 3 boots$')" -eq 3 ] &&
    ok "campaign: rt against generic, 10 options differ, the first named; generic and same the same kernel" ||
    not_ok "campaign: rt against generic, 10 options differ, the first named; generic and same the same kernel" "rc=$rc $out"
if [ -x /usr/bin/python3 ]; then
	"$FSCONC" compare -R "$RK" --json box/generic box/rt box/same >"$d/kc.json" 2>"$d/kc.err"
	v=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in j["configurations"]}
assert j["same_kernel"] == [["generic", "same"]]
rt = c["rt"]["kernel_config"]["against_baseline"]
names = [o["name"] for o in rt["options"]]
assert rt["differ"] == 10 == len(names), rt
assert names == sorted(["LOCALVERSION", "PREEMPT_NONE", "PREEMPT_RT", "PREEMPT_DYNAMIC", "HZ_250", "HZ_1000", "HZ", "PROVE_LOCKING", "LOCK_STAT", "DEBUG_LOCK_ALLOC"]), names
o = {x["name"]: x for x in rt["options"]}
assert o["PREEMPT_RT"] == {"name": "PREEMPT_RT", "value": "y", "baseline": None}
assert o["PREEMPT_NONE"]["value"] is None and o["HZ"]["baseline"] == "250"
assert c["generic"]["kernel_config"]["against_baseline"] is None
assert c["same"]["kernel_config"]["hash"] == c["generic"]["kernel_config"]["hash"]
print("ok")' "$d/kc.json" 2>&1)
	[ "$v" = ok ] && ok "campaign --json: every option that differs, with both values; same_kernel" ||
	    not_ok "campaign --json: every option that differs, with both values; same_kernel" "$v $(head -c 800 "$d/kc.json")"
else
	skip "campaign --json: every option that differs" "no /usr/bin/python3"
fi
if command -v gnuplot >/dev/null 2>&1; then
	"$FSCONC" report -R "$RK" -o "$d/kcrep" box/generic box/rt box/same >"$d/kcrep.out" 2>&1; rc=$?
	h=$d/kcrep/index.html
	[ $rc -eq 0 ] && grep -q 'rt against generic: 10 options differ;' "$h" &&
	    grep -q 'generic and same are the same kernel' "$h" &&
	    ok "report: the count of options that differ, the same kernel" ||
	    not_ok "report: the count of options that differ, the same kernel" "rc=$rc $(cat "$d/kcrep.out")"
else
	skip "report: the count of options that differ" "no gnuplot"
fi
# A boot on another kernel is said; a tampered kernel.config is refused.
s3=$(ls -d "$RK"/box/same/*/ | tail -n 1)
cp "$RK"/box/rt/*/kernel.config "$s3/kernel.config" 2>/dev/null ||
    cp "$(ls "$RK"/box/rt/*/kernel.config | head -n 1)" "$s3/kernel.config"
sed -i '/^kernel.config_hash=/d' "$s3/meta"
grep '^kernel.config_hash=' "$(ls -d "$RK"/box/rt/*/ | head -n 1)/meta" >>"$s3/meta"
out=$("$FSCONC" compare -R "$RK" box/generic box/same 2>&1)
echo "$out" | grep -Eq '^  kernel config [0-9a-f]{12} on 3 of 3 boots; its boots disagree: boot [0-9]+ has [0-9a-f]{12}$' &&
    ! echo "$out" | grep -q 'are the same kernel' &&
    ok "campaign: a configuration whose boots disagree on the kernel config is said" ||
    not_ok "campaign: a configuration whose boots disagree on the kernel config is said" "$out"
printf 'CONFIG_X=\033[2J\n' >>"$s3/kernel.config"
out=$("$FSCONC" compare -R "$RK" box/generic box/same 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "$s3.*kernel.config: line [0-9]*: control byte 0x1b" &&
    ! printf '%s' "$out" | grep -q "$(printf '\033')" &&
    ok "campaign: a tampered kernel.config refused, named, never printed" ||
    not_ok "campaign: a tampered kernel.config refused, named, never printed" "rc=$rc $out"
