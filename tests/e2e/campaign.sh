# fsconc campaign: plans for every boot method, a whole campaign with
# simulated reboots (method command; the boot id and the kernel command
# line come from files the runner writes), wrong and interrupted boots,
# and the refusals of bad input.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
ex="$FSCONC_TOP/dist/campaign/2005.campaign"

# --- plans ----------------------------------------------------------------
out=$("$FSCONC" campaign start --dry-run --os freebsd -R "$s/none" "$ex" 2>&1); rc=$?
n=$(echo "$out" | grep -c '^shutdown -r now$')
if [ $rc -eq 0 ] && [ "$n" -eq 20 ] &&
    echo "$out" | grep -q '^nextboot -k GENERIC -e debug.mpsafevfs=0 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    echo "$out" | grep -q '^nextboot -k GENERIC-4BSD -e debug.mpsafevfs=1 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    echo "$out" | grep -q '^nextboot -k GENERIC-AG -e debug.mpsafevfs=0 ' &&
    echo "$out" | grep -q '^cat > /usr/local/etc/rc.d/fsconc_campaign <<' &&
    echo "$out" | grep -q '^# PROVIDE: fsconc_campaign$' &&
    echo "$out" | grep -q 'daemon -f .* campaign resume -R .* --id ID$' &&
    echo "$out" | grep -q '^run_rc_command "\$1"$' &&
    echo "$out" | grep -q '^nextboot -D$' &&
    echo "$out" | grep -q '^rm -f /usr/local/etc/rc.d/fsconc_campaign$' &&
    [ ! -e "$s/none" ]; then
	ok "--dry-run --os freebsd: nextboot, shutdown, the rc.d script, 20 boots, nothing written"
else
	not_ok "--dry-run --os freebsd: nextboot, shutdown, the rc.d script, 20 boots, nothing written" "rc=$rc n=$n $out"
fi
# Every round boots every configuration once (4 boots a round).
bad=$(echo "$out" | sed -n 's/^# boot [0-9]* (round \([0-9]*\)): config \(.*\)$/\1 \2/p' |
    sort | uniq -c | awk '$1 != 1' | wc -l)
rounds=$(echo "$out" | sed -n 's/^# boot [0-9]* (round \([0-9]*\)).*/\1/p' | sort | uniq -c |
    awk '$1 == 4' | wc -l)
[ "$bad" -eq 0 ] && [ "$rounds" -eq 5 ] && ok "each round boots each configuration once" ||
    not_ok "each round boots each configuration once" "bad=$bad rounds=$rounds"
# The order is shuffled per round, the same for a seed.
o1=$(echo "$out" | grep '^# boot')
o2=$("$FSCONC" campaign start --dry-run --os freebsd "$ex" 2>&1 | grep '^# boot')
r1=$(echo "$o1" | sed -n 's/.*(round 1): config //p' | tr '\n' ' ')
same=0
for r in 2 3 4 5; do
	[ "$(echo "$o1" | sed -n "s/.*(round $r): config //p" | tr '\n' ' ')" = "$r1" ] && same=$((same + 1))
done
[ "$o1" = "$o2" ] && [ "$same" -lt 4 ] && ok "rounds shuffled, the same for a seed" ||
    not_ok "rounds shuffled, the same for a seed" "same=$same"

# Linux: each method's plan.
printf 'kernel image\n' >"$s/vmlinuz"
printf 'initrd\n' >"$s/initrd"
head="run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs"
lplan() {	# lplan METHOD EXTRA-LINES CONFIG-LINES
	printf '%s\nmethod %s\n%s\nconfig A\n%s\n\tcmdline maxcpus=1\nconfig B\n%s\n' \
	    "$head" "$1" "$2" "$3" "$3" >"$s/l.campaign"
	"$FSCONC" campaign start --dry-run --os linux "$s/l.campaign" 2>&1
}
printf 'BOOT_IMAGE=/vmlinuz root=/dev/vda maxcpus=4 fsconc.boot=9 quiet -- single\n' >"$s/cl"
out=$(FSCONC_TEST_CMDLINE="$s/cl" lplan kexec "" "	kernel $s/vmlinuz
	initrd $s/initrd"; echo "rc=$?")
echo "$out" | grep -q "^kexec -l $s/vmlinuz --initrd=$s/initrd '--command-line=BOOT_IMAGE=/vmlinuz root=/dev/vda quiet maxcpus=1 fsconc.campaign=ID fsconc.boot=[12] -- single'$" &&
    echo "$out" | grep -q "^kexec -l $s/vmlinuz --initrd=$s/initrd '--command-line=BOOT_IMAGE=/vmlinuz root=/dev/vda quiet fsconc.campaign=ID fsconc.boot=[12] -- single'$" &&
    echo "$out" | grep -q '^systemctl kexec$' && echo "$out" | grep -q '^kexec -u$' &&
    echo "$out" | grep -q '^cat > /etc/systemd/system/fsconc-campaign.service <<' &&
    echo "$out" | grep -q '^ExecStart=.* campaign resume -R .* --id ID$' &&
    echo "$out" | grep -q '^systemctl enable fsconc-campaign.service$' &&
    echo "$out" | grep -q '^systemctl disable fsconc-campaign.service$' &&
    echo "$out" | grep -q '^rc=0$' &&
    ok "--dry-run --os linux, kexec: the running command line less the configurations' words, init's after --, the unit" ||
    not_ok "--dry-run --os linux, kexec: the running command line less the configurations' words, init's after --, the unit" "$out"
out=$(lplan grub-reboot "" "	entry gnulinux-6.1
	release 6.1.0-13-amd64"; echo "rc=$?")
echo "$out" | grep -q '^grub-reboot gnulinux-6.1$' && echo "$out" | grep -q '^systemctl reboot$' &&
    echo "$out" | grep -q '^grub-editenv - unset next_entry$' && echo "$out" | grep -q '^rc=0$' &&
    ok "--dry-run --os linux, grub-reboot" || not_ok "--dry-run --os linux, grub-reboot" "$out"
out=$(lplan systemd-boot "" "	entry debian-6.1.conf
	release 6.1.0-13-amd64"; echo "rc=$?")
echo "$out" | grep -q '^bootctl set-oneshot debian-6.1.conf$' && echo "$out" | grep -q '^systemctl reboot$' &&
    echo "$out" | grep -q "^bootctl set-oneshot ''$" && echo "$out" | grep -q '^rc=0$' &&
    ok "--dry-run --os linux, systemd-boot" || not_ok "--dry-run --os linux, systemd-boot" "$out"
out=$(lplan command "command /usr/local/bin/boot-guest --id 3" ""; echo "rc=$?")
echo "$out" | grep -q "^env FSCONC_CAMPAIGN=ID FSCONC_CAMPAIGN_BOOT=[12] FSCONC_CAMPAIGN_CONFIG=A 'FSCONC_CAMPAIGN_CMDLINE=maxcpus=1 fsconc.campaign=ID fsconc.boot=[12]' /usr/local/bin/boot-guest --id 3$" &&
    echo "$out" | grep -q '^rc=0$' &&
    ok "--dry-run --os linux, command: an argv, what to boot in its environment" ||
    not_ok "--dry-run --os linux, command: an argv, what to boot in its environment" "$out"

# --- a campaign, its reboots simulated -----------------------------------
# The runner "boots": a new boot id, the command line asked for (or,
# planted, the default kernel's: the one-shot fell back).
cat >"$s/boot.sh" <<'EOF'
#!/bin/sh
d=$(dirname "$0")
echo "$FSCONC_CAMPAIGN_BOOT $FSCONC_CAMPAIGN_CONFIG $FSCONC_CAMPAIGN_CMDLINE" >>"$d/boots.log"
if [ -e "$d/plant-wrong" ] && [ "$(cat "$d/plant-wrong")" = "$FSCONC_CAMPAIGN_CONFIG" ]; then
	echo "root=/dev/vda" >"$d/cmdline"
	[ -e "$d/plant-always" ] || rm -f "$d/plant-wrong"
else
	echo "root=/dev/vda $FSCONC_CAMPAIGN_CMDLINE" >"$d/cmdline"
fi
echo "boot-$FSCONC_CAMPAIGN_BOOT-$$" >"$d/bootid"
EOF
# The rest of the simulated machine: sim_machine keeps this boot.sh.
sim_machine "$s"
hook="$s/hook/fsconc-campaign.service"
camp() {	# camp FILE RETRIES [BOOTS]
	cat >"$1" <<EOF
# two configurations, simulated reboots
$head
boots ${3:-2}
seed 11
retries $2
baseline B
method command
command $s/boot.sh
config A
	cmdline maxcpus=1
config B
EOF
}
# resume as the hook would, until the campaign is over (at most N times).
resume_all() {
	_i=0
	while [ -e "$1/campaign/active" ] && [ $_i -lt "$2" ]; do
		"$FSCONC" campaign resume -R "$1" --id "$(cat "$1/campaign/active")" \
		    >>"$s/resume.out" 2>&1 || echo "resume rc=$?" >>"$s/resume.out"
		_i=$((_i + 1))
	done
}

camp "$s/c.campaign" 2
R="$s/res"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/start.out" 2>&1; rc=$?
id=$(cat "$R/campaign/active" 2>/dev/null)
[ $rc -eq 0 ] && [ -n "$id" ] && [ -f "$hook" ] && grep -q "^ExecStart=.* campaign resume -R $R --id $id$" "$hook" &&
    grep -q '^systemctl enable fsconc-campaign.service$' "$s/exec.log" &&
    [ "$(wc -l <"$s/boots.log")" -eq 1 ] &&
    grep -q "^schedule 1 1 boot-0 " "$R/campaign/$id/journal" &&
    ok "start: records, hook, first boot" || not_ok "start: records, hook, first boot" "rc=$rc $(cat "$s/start.out")"

# Before the reboot: resume refuses (the machine has not rebooted).
echo boot-0 >"$s/bootid.keep"
cp "$s/bootid" "$s/bootid.new"
cp "$s/bootid.keep" "$s/bootid"
err=$("$FSCONC" campaign resume -R "$R" 2>&1); rc=$?
cp "$s/bootid.new" "$s/bootid"
[ $rc -eq 2 ] && echo "$err" | grep -q 'has not rebooted' && ok "resume before the reboot: exit 2" ||
    not_ok "resume before the reboot: exit 2" "rc=$rc $err"

# A second campaign while one runs.
err=$("$FSCONC" campaign start -R "$R" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "campaign $id is in progress" &&
    [ "$(wc -l <"$s/boots.log")" -eq 1 ] && ok "a second campaign: exit 2, nothing booted" ||
    not_ok "a second campaign: exit 2, nothing booted" "rc=$rc $err"
err=$("$FSCONC" campaign start -R "$s/res2" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "resume hook is installed" && [ ! -e "$s/res2/campaign/active" ] &&
    ok "a second campaign under another root: exit 2" ||
    not_ok "a second campaign under another root: exit 2" "rc=$rc $err"

# The first boot comes up as the fallback kernel once: wrong, retried.
echo A >"$s/plant-wrong"
# (boot 1 already happened with the right line; plant on the next A.)
resume_all "$R" 10
j="$R/campaign/$id/journal"
nsets=$(grep -l "^campaign=$id$" "$R"/*/[AB]/*/meta 2>/dev/null | wc -l)
nwrong=$(grep -c '^wrong ' "$j")
if [ ! -e "$R/campaign/active" ] && [ ! -e "$hook" ] && [ "$nsets" -eq 4 ] &&
    [ "$nwrong" -eq 1 ] && grep -q '^wrong [0-9]* [0-9]* the kernel command line lacks' "$j" &&
    [ "$(grep -c '^schedule ' "$j")" -eq 5 ] && grep -q '^finish ' "$j" &&
    grep -q '^systemctl disable fsconc-campaign.service$' "$s/exec.log"; then
	ok "campaign: 4 sets, a planted wrong boot detected, recorded and retried, hook removed"
else
	not_ok "campaign: 4 sets, a planted wrong boot detected, recorded and retried, hook removed" \
	    "sets=$nsets wrong=$nwrong $(cat "$j" "$s/resume.out")"
fi
# Each set names its campaign, configuration, boot and round; A's booted
# with its command-line word.
m=$(grep -h '^campaign_' "$R"/*/A/*/meta | sort | tr '\n' ' ')
echo "$m" | grep -q 'campaign_config=A' && echo "$m" | grep -q 'campaign_round=1' &&
    echo "$m" | grep -q 'campaign_round=2' && ! echo "$m" | grep -q 'campaign_config=B' &&
    grep -q '^[0-9]* A maxcpus=1 fsconc.campaign=.* fsconc.boot=[0-9]*$' "$s/boots.log" &&
    ! grep -q '^[0-9]* B .*maxcpus' "$s/boots.log" &&
    ok "sets carry campaign, config, boot, round in meta" || not_ok "sets carry campaign, config, boot, round in meta" "$m"
# Exit 4 too: on a loaded machine a boot of these 5 ms batches can come
# out superlinear or disturbed, flags that invalidate its figures.
out=$("$FSCONC" campaign report -R "$R" 2>&1); rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 4 ]; } &&
    [ "$(echo "$out" | grep -c ' done  *[^ ]*/[AB]/')" -eq 4 ] &&
    echo "$out" | grep -q "campaign $id: finished, 4 of 4" &&
    ok "report: the per-boot sets" || not_ok "report: the per-boot sets" "$out"
# 2 boots a side: figures over boots, but nothing tested (said so); with
# exit 4 (a flagged boot, above) the invalid figures are what is said.
out=$("$FSCONC" campaign report --json -R "$R" --id "$id" 2>"$s/err"); rc=$?
{ { [ $rc -eq 0 ] && grep -q '0 tests: no configuration has 3 boots or more' "$s/err"; } ||
    { [ $rc -eq 4 ] && grep -q 'invalid: their boots carry flags that invalidate them' "$s/err"; }; } &&
    echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["state"]=="finished" and len(d["slots"])==4 and all(s["status"]=="done" for s in d["slots"]) and d["baseline"]=="B" and d["statistics"]["tests"] == 0' 2>/dev/null &&
    ok "report --json" || not_ok "report --json" "rc=$rc $out $(cat "$s/err")"
# db sync keeps the campaign's keys.
if command -v sqlite3 >/dev/null 2>&1; then
	"$FSCONC" db sync -R "$R" --db "$s/c.db" >/dev/null 2>&1
	n=$(sqlite3 "$s/c.db" "SELECT count(*) FROM set_meta WHERE key = 'campaign' AND value = '$id'" 2>&1)
	nb=$(sqlite3 "$s/c.db" "SELECT count(DISTINCT value) FROM set_meta WHERE key = 'campaign_boot'" 2>&1)
	[ "$n" = 4 ] && [ "$nb" = 4 ] && ok "db sync keeps campaign, campaign_boot ..." ||
	    not_ok "db sync keeps campaign, campaign_boot ..." "n=$n nb=$nb"
else
	skip "db sync keeps campaign, campaign_boot ..." "no sqlite3"
fi
err=$("$FSCONC" campaign resume -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'is over (finished)' && ok "resume after the end: exit 2" ||
    not_ok "resume after the end: exit 2" "rc=$rc $err"

# campaign report: the statistics over boots (3 boots a side, so that
# they are tested), in one JSON object with the sets; the exit status
# is 3 exactly when the library finds a regression.
R="$s/res9"
camp "$s/r.campaign" 2 3
"$FSCONC" campaign start -R "$R" "$s/r.campaign" >/dev/null 2>&1
resume_all "$R" 8
id=$(ls "$R/campaign")
nbs=$(grep -l '^campaign_boot_seconds=[0-9][0-9]*$' "$R"/*/[AB]/*/meta 2>/dev/null | wc -l)
[ "$nbs" -eq 6 ] && ok "resume writes campaign_boot_seconds in every set" ||
    not_ok "resume writes campaign_boot_seconds in every set" "$nbs of 6 $(tail -5 "$s/resume.out")"
out=$("$FSCONC" campaign report -R "$R" 2>&1); rc=$?
if { [ $rc -eq 0 ] || [ $rc -eq 3 ] || [ $rc -eq 4 ]; } &&
    [ "$(echo "$out" | grep -c ' done  *[^ ]*/[AB]/')" -eq 6 ] &&
    echo "$out" | grep -q "^campaign $id: 2 configurations, baseline B; 95% intervals over boots$" &&
    echo "$out" | grep -q '^configuration A: 3 boots$' && echo "$out" | grep -q '^configuration B (baseline): 3 boots$' &&
    echo "$out" | grep -q 'between-boot share' && echo "$out" | grep -q '^cost: a boot .* s, a repetition' &&
    echo "$out" | grep -q '^plan: ' && echo "$out" | grep -q '^verdict: [0-9]* regressions* in [0-3] tests (Holm)'; then
	ok "report: the per-boot sets, then the statistics over boots (exit $rc)"
else
	not_ok "report: the per-boot sets, then the statistics over boots" "rc=$rc $out"
fi
# stderr apart: a warning (figures invalid on a loaded machine) written
# while stdout's buffer is flushed would land inside the JSON.
out=$("$FSCONC" campaign report --json -c 90 --seed 7 -R "$R" --id "$id" 2>"$s/err"); rc=$?
if echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin); rc = int(sys.argv[1]); st = d["statistics"]
assert d["state"] == "finished" and len(d["slots"]) == 6 and d["baseline"] == "B"
assert st["campaign"] == d["campaign"] and st["baseline"] == "B" and st["conf"] == 90
assert st["bootstrap"]["seed"] == 7 and st["bootstrap"]["resamples"] > 0
assert st["boot_cost"] >= 0 and st["rep_cost"] > 0
# A flagged boot (a loaded machine) takes its figures out of the tests.
assert st["tests"] == 3 or rc == 4
cf = {c["name"]: c for c in st["configurations"]}
assert cf["A"]["boots"] == 3 and cf["B"]["boots"] == 3 and cf["B"]["baseline"]
for c in "AB":
    lv = {l["jobs"]: l for l in cf[c]["levels"]}
    assert len(lv[2]["ec"]["per_boot"]) == 3 and len(lv[1]["time"]["per_boot"]) == 3
    assert "between_share" in lv[1]["time"] and "boots" in lv[1]["plan"]
m = {l["jobs"]: l for l in cf["A"]["levels"]}[2]["ec_vs_baseline"]
assert rc == 4 or (m["tested"] and m["lo"] <= m["diff"] <= m["hi"])
assert "boots" in st["plan"] and "batches_per_boot" in st["plan"]
assert rc in (3 if st["regressions"] > 0 else 0, 4)
' "$rc" 2>"$s/py.err"; then
	ok "report --json: sets and statistics in one object, -c and --seed, exit $rc as the verdict"
else
	not_ok "report --json: sets and statistics in one object, -c and --seed, exit as the verdict" "rc=$rc $(cat "$s/py.err") $out $(cat "$s/err")"
fi
# The same campaign, its sets replaced by generated ones with known boot
# effects (imported with the campaign keys, as campaign_compare.sh does):
# B's T(2) 30% slower than the baseline A's.  Exit 3, B named.
R2="$s/res10"
mkdir -p "$R2/campaign"
cp -R "$R/campaign/$id" "$R2/campaign/"
sed -i 's/^baseline B$/baseline A/' "$R2/campaign/$id/campaign"
j2="$R2/campaign/$id/journal"
while IFS= read -r line; do
	set -- $line
	if [ "$1" = done ]; then
		cfg=$(awk -v k="$2" '$1 == k { print $3 }' "$R2/campaign/$id/plan")
		rnd=$(awk -v k="$2" '$1 == k { print $2 }' "$R2/campaign/$id/plan")
		for jj in 1 2; do
			t=10
			[ "$cfg" = B ] && [ "$jj" -eq 2 ] && t=13
			awk -v seed=$(($3 * 10 + jj)) -v t=$t 'BEGIN { srand(seed); e = 0.02 * (rand() - 0.5)
			    for (i = 0; i < 5; i++) printf "%.6f\n", t * (1 + e) * (1 + 0.01 * (rand() - 0.5)) }' \
			    >"$s/b$jj.txt"
		done
		p=$("$FSCONC" import -R "$R2" --host box -l "$cfg" --date "2026-11-0$3T03:00:00Z" \
		    -m campaign="$id" -m campaign_config="$cfg" -m campaign_boot="$3" \
		    -m campaign_round="$rnd" 1="$s/b1.txt" 2="$s/b2.txt")
		echo "done $2 $3 0 $p"
	else
		echo "$line"
	fi
done <"$R/campaign/$id/journal" >"$j2"
out=$("$FSCONC" campaign report -R "$R2" --id "$id" 2>&1); rc=$?
[ $rc -eq 3 ] && echo "$out" | grep -q '^configuration A (baseline): 3 boots$' &&
    echo "$out" | grep -Eq '^SLOWER: B at jobs 2: real \+(2[0-9]|3[0-9])\.' &&
    echo "$out" | grep -q '^EC DROP: B: EC(2)' && ! echo "$out" | grep -q '^SLOWER: B at jobs 1' &&
    ok "report: B planted 30% slower at jobs 2: exit 3, B named" ||
    not_ok "report: B planted 30% slower at jobs 2: exit 3, B named" "rc=$rc $out"
out=$("$FSCONC" campaign report --json -R "$R2" --id "$id" 2>"$s/err"); rc=$?
[ $rc -eq 3 ] && echo "$out" | python3 -c '
import json, sys
st = json.load(sys.stdin)["statistics"]
b = [c for c in st["configurations"] if c["name"] == "B"][0]
m = [l for l in b["levels"] if l["jobs"] == 2][0]
assert st["regressions"] == 2 and m["time_vs_baseline"]["regression"] and m["ec_vs_baseline"]["regression"]
assert m["ec_vs_baseline"]["hi"] < 0' 2>/dev/null &&
    ok "report --json: the planted slowdown, exit 3" || not_ok "report --json: the planted slowdown, exit 3" "rc=$rc $out $(cat "$s/err")"
# With the baseline's sets gone there is nothing to compare with.
rm -rf "$R2"/box/A
out=$("$FSCONC" campaign report -R "$R2" --id "$id" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'left out' &&
    echo "$out" | grep -q 'the baseline A has no complete set' &&
    ok "report: the baseline's sets gone: exit 1, said why" ||
    not_ok "report: the baseline's sets gone: exit 1, said why" "rc=$rc $out"

# A configuration that never boots right is marked failed; the rest go on.
R="$s/res3"
: >"$s/boots.log"
camp "$s/f.campaign" 1
echo A >"$s/plant-wrong"
: >"$s/plant-always"
"$FSCONC" campaign start -R "$R" "$s/f.campaign" >/dev/null 2>&1
resume_all "$R" 12
rm -f "$s/plant-always" "$s/plant-wrong"
id=$(ls "$R/campaign")
j="$R/campaign/$id/journal"
out=$("$FSCONC" campaign status -R "$R" 2>&1)
na=$(grep -c '^[0-9]* A ' "$s/boots.log")
nb=$(grep -c '^[0-9]* B ' "$s/boots.log")
if grep -q '^failed A 2 wrong or interrupted boots (retries 1)' "$j" && [ "$na" -eq 2 ] &&
    [ "$nb" -eq 2 ] && grep -q '^finish ' "$j" && echo "$out" | grep -q 'FAILED' && [ ! -e "$hook" ]; then
	ok "retries spent: config marked failed, the others finish"
else
	not_ok "retries spent: config marked failed, the others finish" "A=$na B=$nb $(cat "$j") $out"
fi

out=$("$FSCONC" campaign report -R "$R" 2>&1); rc=$?
js=$("$FSCONC" campaign report --json -R "$R" 2>/dev/null)
[ $rc -eq 0 ] && echo "$out" | grep -q '^FAILED: configuration A (2 wrong or interrupted boots' &&
    echo "$out" | grep -q '^configuration B (baseline): 2 boots$' &&
    ! echo "$out" | grep -q '^configuration A' &&
    echo "$js" | python3 -c '
import json, sys
d = json.load(sys.stdin)
a = [c for c in d["configs"] if c["name"] == "A"][0]
assert a["failed"].startswith("2 wrong") and [c["name"] for c in d["statistics"]["configurations"]] == ["B"]' 2>/dev/null &&
    ok "report: the failed configuration listed as failed, the rest judged" ||
    not_ok "report: the failed configuration listed as failed, the rest judged" "rc=$rc $out $js"

# A run cut off (power lost): marked interrupted, that boot redone.
R="$s/res4"
: >"$s/boots.log"
camp "$s/i.campaign" 2 1
sed -i 's/-r 2/-r 400/' "$s/i.campaign"
"$FSCONC" campaign start -R "$R" "$s/i.campaign" >/dev/null 2>&1
id=$(cat "$R/campaign/active")
j="$R/campaign/$id/journal"
"$FSCONC" campaign resume -R "$R" --id "$id" >"$s/cut.out" 2>&1 &
pid=$!
if wait_until grep -q '^run ' "$j"; then
	kill -KILL $pid
	wait $pid 2>/dev/null
	"$FSCONC" cleanup >/dev/null 2>&1
	echo "boot-after-power-loss" >"$s/bootid"
	sed -i 's/-r 400/-r 2/' "$R/campaign/$id/campaign"
	resume_all "$R" 6
	if grep -q '^interrupted 1 1$' "$j" && grep -q '^schedule 1 2 ' "$j" && grep -q '^done 1 ' "$j" &&
	    grep -q '^finish ' "$j"; then
		ok "a run cut off: interrupted, its boot redone"
	else
		not_ok "a run cut off: interrupted, its boot redone" "$(cat "$j" "$s/resume.out")"
	fi
else
	kill $pid 2>/dev/null
	not_ok "a run cut off: interrupted, its boot redone" "no run started $(cat "$s/cut.out")"
fi
"$FSCONC" campaign stop -R "$R" >/dev/null 2>&1

# stop: the hook and the pending one-shot go; the campaign says stopped.
R="$s/res5"
printf '%s\nmethod kexec\nconfig A\n\tkernel %s\n' "$head" "$s/vmlinuz" >"$s/k.campaign"
echo "root=/dev/vda" >"$s/cmdline"
: >"$s/exec.log"
"$FSCONC" campaign start -R "$R" "$s/k.campaign" >/dev/null 2>&1; rc1=$?
"$FSCONC" campaign stop -R "$R" >"$s/stop.out" 2>&1; rc2=$?
id=$(ls "$R/campaign" | grep -v active)
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "^kexec -l $s/vmlinuz --command-line=root=/dev/vda fsconc.campaign=$id fsconc.boot=1$" "$s/exec.log" &&
    grep -q '^systemctl kexec$' "$s/exec.log" && grep -q '^kexec -u$' "$s/exec.log" &&
    [ ! -e "$hook" ] && [ ! -e "$R/campaign/active" ] && grep -q '^stop ' "$R/campaign/$id/journal"; then
	ok "kexec campaign: loaded and kexec'd; stop unloads it and removes the hook"
else
	not_ok "kexec campaign: loaded and kexec'd; stop unloads it and removes the hook" "rc=$rc1/$rc2 $(cat "$s/exec.log" "$s/stop.out")"
fi

# The boot-loop guard: never more boots than planned plus retries, even
# when the journal says more were made (here: planted schedules).
R="$s/res7"
camp "$s/g.campaign" 0
"$FSCONC" campaign start -R "$R" "$s/g.campaign" >/dev/null 2>&1
id=$(cat "$R/campaign/active")
j="$R/campaign/$id/journal"
for b in 2 3 4; do echo "schedule 1 $b boot-planted-$b 1" >>"$j"; done
echo "boot-guard" >"$s/bootid"
: >"$s/boots.log"
"$FSCONC" campaign resume -R "$R" --id "$id" >"$s/guard.out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q '^guard 4 boots, at most 4$' "$j" && grep -q '^finish ' "$j" &&
    [ ! -s "$s/boots.log" ] && [ ! -e "$hook" ] && [ ! -e "$R/campaign/active" ]; then
	ok "boot-loop guard: no boot beyond planned plus retries"
else
	not_ok "boot-loop guard: no boot beyond planned plus retries" "rc=$rc $(cat "$j" "$s/guard.out")"
fi

# A kexec boot whose kernel is not the image's: its boot header names a
# release that uname -r does not say.
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys
b = bytearray(0x400); b[0x202:0x206] = b"HdrS"; b[0x20e:0x210] = (0x100).to_bytes(2, "little")
b[0x300:0x320] = b"0.0.1-not-this (x) #1 SMP"; open(sys.argv[1], "wb").write(b)' "$s/bzimage"
	R="$s/res8"
	printf '%s\nboots 1\nretries 0\nmethod kexec\nconfig A\n\tkernel %s\n' "$head" "$s/bzimage" >"$s/x.campaign"
	"$FSCONC" campaign start -R "$R" "$s/x.campaign" >/dev/null 2>&1
	id=$(cat "$R/campaign/active")
	echo "root=/dev/vda fsconc.campaign=$id fsconc.boot=1" >"$s/cmdline"
	echo "boot-kexec" >"$s/bootid"
	"$FSCONC" campaign resume -R "$R" --id "$id" >"$s/x.out" 2>&1
	j="$R/campaign/$id/journal"
	grep -q "^wrong 1 1 uname -r says $(uname -r), not 0.0.1-not-this (the image's release)$" "$j" &&
	    grep -q '^failed A ' "$j" && grep -q '^finish ' "$j" &&
	    ok "kexec: a kernel that is not the image's release is a wrong boot" ||
	    not_ok "kexec: a kernel that is not the image's release is a wrong boot" "$(cat "$j" "$s/x.out")"
else
	skip "kexec: a kernel that is not the image's release is a wrong boot" "no python3"
fi

# A runtime setting (a harmless sysfs knob): made for the run, in its
# meta, put back after.
knob=/sys/kernel/mm/transparent_hugepage/defrag
if [ -w "$knob" ]; then
	R="$s/res6"
	korig=$(cat "$knob")
	printf '%s\nboots 1\nmethod command\ncommand %s\nconfig A\n\tsysfs:kernel/mm/transparent_hugepage/defrag=never\n' \
	    "$head" "$s/boot.sh" >"$s/s.campaign"
	"$FSCONC" campaign start -R "$R" "$s/s.campaign" >/dev/null 2>&1
	resume_all "$R" 3
	if [ "$(cat "$knob")" = "$korig" ] &&
	    grep -q '^campaign_setting.sysfs.kernel.mm.transparent_hugepage.defrag=never$' "$R"/*/A/*/meta &&
	    grep -q '^finish ' "$R"/campaign/*/journal; then
		ok "a sysfs setting: made for the run, in meta, put back"
	else
		not_ok "a sysfs setting: made for the run, in meta, put back" "$(cat "$knob") $(tail -5 "$s/resume.out")"
	fi
else
	skip "a sysfs setting: made for the run, in meta, put back" "$knob not writable"
fi

# --- bad input: exit 2, nothing recorded, nothing booted ------------------
: >"$s/exec.log"
: >"$s/boots.log"
refuse() {	# refuse NAME PATTERN FILE-TEXT
	printf '%s' "$3" >"$s/bad.campaign"
	_e=$("$FSCONC" campaign start -R "$s/badroot" "$s/bad.campaign" 2>&1); _rc=$?
	if [ $_rc -eq 2 ] && echo "$_e" | grep -q -- "$2" && [ ! -e "$s/badroot/campaign" ] &&
	    [ ! -s "$s/exec.log" ] && [ ! -s "$s/boots.log" ] && [ ! -e "$hook" ]; then
		ok "refused: $1"
	else
		not_ok "refused: $1" "rc=$_rc $_e"
	fi
}
good="method command
command $s/boot.sh
config A
"
refuse "unknown key" "line 2: unknown key 'colour'" "$head
colour blue
$good"
refuse "duplicate names" "config A: the name is taken" "$head
$good
config A
"
refuse "a missing kernel" "kernel $s/nonexistent" "$head
config A
	kernel $s/nonexistent
"
refuse "no kernel" "no kernel" "$head
config A
	cmdline quiet
"
refuse "a shell metacharacter" "holds ';'" "$head
$good	cmdline a;reboot
"
refuse "a newline's neighbour, a carriage return" "control byte 0x0d" "$head
$good	cmdline a$(printf '\r')b
"
refuse "0 boots" "want 1 to 1000 boots" "$head
boots 0
$good"
refuse "1001 boots" "want 1 to 1000 boots" "$head
boots 1001
$good"
refuse "a baseline that is not a configuration" "baseline Z: not a configuration" "$head
baseline Z
$good"
printf '%s\n%sconfig B\n\tcmdline a\000b\n' "$head" "$good" >"$s/nul.campaign"
err=$("$FSCONC" campaign start -R "$s/badroot" "$s/nul.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'a NUL byte' && [ ! -e "$s/badroot/campaign" ] &&
    ok "refused: a NUL byte" || not_ok "refused: a NUL byte" "rc=$rc $err"
err=$("$FSCONC" campaign resume -R "$s/empty" 2>&1); rc=$?
mkdir "$s/empty2"
err2=$("$FSCONC" campaign resume -R "$s/empty2" 2>&1); rc2=$?
[ $rc2 -eq 2 ] && echo "$err2" | grep -q 'no campaign in progress under' && ok "resume under a root with no campaign: exit 2" ||
    not_ok "resume under a root with no campaign: exit 2" "rc=$rc2 $err2"
[ $rc -eq 2 ] && echo "$err" | grep -q 'no campaign under' && ok "resume with no campaign: exit 2" ||
    not_ok "resume with no campaign: exit 2" "rc=$rc $err"
# A hook left by a campaign deleted since: refused, and the hook removed.
printf '# fsconc-campaign-id: 20260101T000000Z-gone\n[Unit]\n' >"$hook"
err=$("$FSCONC" campaign resume -R "$s/res" --id 20260101T000000Z-gone 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'no such campaign' && [ ! -e "$hook" ] && [ ! -s "$s/boots.log" ] &&
    ok "resume with a hook left by a deleted campaign: exit 2, hook removed" ||
    not_ok "resume with a hook left by a deleted campaign: exit 2, hook removed" "rc=$rc $err"
printf '# fsconc-campaign-id: 20260101T000000Z-gone\n[Unit]\n' >"$hook"
err=$("$FSCONC" campaign stop -R "$s/res" --id 20260101T000000Z-gone 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$err" | grep -q 'removed its resume hook' && [ ! -e "$hook" ] &&
    ok "stop of a deleted campaign's hook: removed" ||
    not_ok "stop of a deleted campaign's hook: removed" "rc=$rc $err"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	t=$(mktemp -d /dev/shm/fsconc-camp.XXXXXX)
	at_exit "rm -rf '$t'"
	camp "$s/t.campaign" 2
	err=$("$FSCONC" campaign start -R "$t" "$s/t.campaign" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q 'does not survive a reboot' && [ ! -e "$t/campaign" ] &&
	    [ ! -s "$s/boots.log" ] &&
	    ok "a result root on tmpfs: exit 2" || not_ok "a result root on tmpfs: exit 2" "rc=$rc $err"
else
	skip "a result root on tmpfs: exit 2" "/dev/shm is not a tmpfs"
fi
for a in "frob" "status --dry-run" "start" "resume extra"; do
	# shellcheck disable=SC2086
	"$FSCONC" campaign $a >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ok "campaign $a: exit 2" || not_ok "campaign $a: exit 2" "rc=$rc"
done
# --- boots auto: a round at a time, stopped when the rule says so --------
# The boots' times are planted (FSCONC_TEST_CAMPAIGN_TIMES: CONFIG ROUND
# SECONDS) over real runs, so that the decision is the data's, not the
# machine's noise.  Cap 6: 12 boots at most.
autocamp() {	# autocamp FILE
	cat >"$1" <<EOF
run -w syscall -O count=2000 -j 1 -r 2 --disk tmpfs
boots auto cap 6
seed 5
baseline B
method command
command $s/boot.sh
config A
	cmdline maxcpus=1
config B
EOF
}
autocamp "$s/auto.campaign"
# A clear difference: A takes twice B's time.
printf 'A 1 2.0\nA 2 2.1\nA 3 1.9\nA 4 2.05\nA 5 1.95\nA 6 2.0\nB 1 1.0\nB 2 1.05\nB 3 0.95\nB 4 1.0\nB 5 1.02\nB 6 0.98\n' >"$s/clear.times"
# No difference: the same spread (7%) on both sides.
printf 'A 1 1.0\nA 2 1.1\nA 3 0.9\nA 4 1.05\nA 5 0.95\nA 6 1.0\nB 1 1.05\nB 2 0.95\nB 3 1.0\nB 4 0.9\nB 5 1.1\nB 6 1.0\n' >"$s/null.times"
R="$s/auto1"
: >"$s/boots.log"
export FSCONC_TEST_CAMPAIGN_TIMES="$s/clear.times"
"$FSCONC" campaign start -R "$R" "$s/auto.campaign" >"$s/auto.out" 2>&1
id=$(cat "$R/campaign/active")
j="$R/campaign/$id/journal"
resume_all "$R" 20
st=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1)
nb=$(grep -c '^done ' "$j")
nn=$(echo "$st" | grep -c ' not needed')
if [ "$nb" -eq 6 ] && grep -q '^early 3 every comparison with the baseline is clear' "$j" &&
    [ "$(tail -n 1 "$j" | cut -d' ' -f1)" = finish ] && [ ! -e "$R/campaign/active" ] &&
    echo "$st" | grep -q '^stopped early after 3 rounds: every comparison with the baseline is clear' &&
    [ "$nn" -eq 6 ] && ! echo "$st" | grep -q 'failed\|not run'; then
	ok "boots auto, a clear difference: stopped early after 3 rounds (6 of 12 boots), the rest not needed"
else
	not_ok "boots auto, a clear difference: stopped early after 3 rounds (6 of 12 boots), the rest not needed" \
	    "done=$nb not-needed=$nn $(cat "$j") $st $(tail -5 "$s/resume.out")"
fi
rep=$("$FSCONC" campaign report -R "$R" --id "$id" 2>&1)
js=$("$FSCONC" campaign status -R "$R" --id "$id" --json 2>"$s/js.err")
echo "$rep" | grep -q '^stopped early after 3 rounds: ' &&
    echo "$js" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["boots_auto"] and d["stopped_early"]["rounds"] == 3
assert d["stopped_early"]["reason"].startswith("every comparison")
assert sum(1 for k in d["slots"] if k["status"] == "not needed") == 6' 2>/dev/null &&
    ok "boots auto: report and JSON say it stopped early, and why" ||
    not_ok "boots auto: report and JSON say it stopped early, and why" "$rep $js"
# A power cut after "early", before "finish": resume finishes, no boot.
cp "$j" "$s/j.full"
sed -i '$d' "$j"
echo "$id" >"$R/campaign/active"
b0=$(wc -l <"$s/boots.log")
"$FSCONC" campaign resume -R "$R" --id "$id" >"$s/cut2.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(tail -n 1 "$j" | cut -d' ' -f1)" = finish ] &&
    [ "$(grep -c '^early ' "$j")" -eq 1 ] && [ "$(wc -l <"$s/boots.log")" -eq "$b0" ] &&
    ok "boots auto: cut after its early stop, resume finishes, no boot" ||
    not_ok "boots auto: cut after its early stop, resume finishes, no boot" "rc=$rc $(cat "$j" "$s/cut2.out")"
# Cut before "early": the decision made again from the sets, the same.
grep -v '^early \|^finish ' "$s/j.full" >"$j"
echo "$id" >"$R/campaign/active"
"$FSCONC" campaign resume -R "$R" --id "$id" >"$s/cut3.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep '^early ' "$j")" = "$(grep '^early ' "$s/j.full")" ] &&
    [ "$(tail -n 1 "$j" | cut -d' ' -f1)" = finish ] && [ "$(wc -l <"$s/boots.log")" -eq "$b0" ] &&
    ok "boots auto: cut before its early stop, resume decides the same from the sets" ||
    not_ok "boots auto: cut before its early stop, resume decides the same from the sets" "rc=$rc $(cat "$j" "$s/cut3.out")"
rm -f "$hook"
# No difference: the cap, every planned boot.
R="$s/auto2"
: >"$s/boots.log"
export FSCONC_TEST_CAMPAIGN_TIMES="$s/null.times"
"$FSCONC" campaign start -R "$R" "$s/auto.campaign" >"$s/auto.out" 2>&1
id=$(cat "$R/campaign/active")
j="$R/campaign/$id/journal"
resume_all "$R" 20
st=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1)
nb=$(grep -c '^done ' "$j")
[ "$nb" -eq 12 ] && ! grep -q '^early ' "$j" && grep -q '^finish ' "$j" &&
    ! echo "$st" | grep -q 'stopped early\|not needed' &&
    ok "boots auto, no difference: the cap, 12 boots" ||
    not_ok "boots auto, no difference: the cap, 12 boots" "done=$nb $(cat "$j") $st"
unset FSCONC_TEST_CAMPAIGN_TIMES
rm -f "$hook"

echo "1..$_t"
