# fsconc export --kcidb: a set made by fsconc run, a campaign of
# imported sets (no boots) and one run with simulated reboots, and a
# bisect (its journal a fixture), each exported and validated against
# KernelCI's own KCIDB v5.3 schema (../shared/kcidb/, never a copy of
# ours) with python3-jsonschema (tests/e2e/kcidb_validate.py); the
# figures against scipy; documents the validator must reject, so that
# the validation is shown to bite; hostile meta and logs still valid
# JSON; the refusals of bad usage.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch) || exit 1
py=/usr/bin/python3
val="$TOP/tests/e2e/kcidb_validate.py"

# The schema beside the tree (../shared), or beside the main tree of a
# git worktree; FSCONC_KCIDB_SCHEMA names another.
schema=${FSCONC_KCIDB_SCHEMA:-}
if [ -z "$schema" ]; then
	common=$(git -C "$TOP" rev-parse --path-format=absolute \
	    --git-common-dir 2>/dev/null) || common=
	for d in "$TOP/.." ${common:+"$(dirname "$common")/.."}; do
		if [ -f "$d/shared/kcidb/kcidb-v5.3.schema.json" ]; then
			schema=$d/shared/kcidb/kcidb-v5.3.schema.json
			break
		fi
	done
fi
why=
if [ -z "$schema" ] || ! [ -f "$schema" ]; then
	why="no KCIDB schema (../shared/kcidb/kcidb-v5.3.schema.json; FSCONC_KCIDB_SCHEMA)"
elif ! [ -x "$py" ] || ! "$py" -c 'import jsonschema' 2>/dev/null; then
	why="/usr/bin/python3 with jsonschema is not installed (python3-jsonschema, scripts/install-deps)"
fi
# valid NAME FILE: FILE is to be a valid KCIDB v5.3 report; every file
# is checked at the end, by one run of the validator (python's start
# and jsonschema's import are most of this suite's time).
: >"$s/valid.list"
valid() {
	echo "$2 $1" >>"$s/valid.list"
}
# scipy for the figures' reference, imported once to ask.
has_scipy=
"$py" -c 'import scipy' 2>/dev/null && has_scipy=1
# q FILE EXPR: EXPR of the report d (python), printed.
q() {
	"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = {x["path"] + "@" + x["id"].split("/")[1]: x for x in d["tests"]}
print(eval(sys.argv[2]))' "$1" "$2"
}

# --- bad usage ------------------------------------------------------------
err=$("$FSCONC" export set x 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'export: --kcidb is the one format' &&
    ok "no --kcidb: exit 2, said" || not_ok "no --kcidb: exit 2, said" "rc=$rc $err"
err=$("$FSCONC" export --kcidb --origin Fs-conc set x 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q -- '--origin Fs-conc: not a KCIDB origin (\[a-z0-9_\], 1 to 31 bytes)' &&
    ok "--origin outside [a-z0-9_]: exit 2, said" || not_ok "--origin outside [a-z0-9_]: exit 2, said" "rc=$rc $err"
err=$("$FSCONC" export --kcidb set 2>&1); rc=$?
err2=$("$FSCONC" export --kcidb nightly x 2>&1); rc2=$?
err3=$("$FSCONC" export --kcidb -c 90 bisect 2>&1); rc3=$?
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] &&
    echo "$err2" | grep -q 'export: nightly \.\.\.: want set SET\.\.\., campaign' &&
    ok "set without a set, an unknown kind, -c for a bisect: exit 2" ||
    not_ok "set without a set, an unknown kind, -c for a bisect: exit 2" "$rc $err / $rc2 $err2 / $rc3 $err3"
err=$("$FSCONC" export --kcidb -R "$s/none" set nosuch 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'nosuch' &&
    ok "a set that is not there: exit 2, named" || not_ok "a set that is not there: exit 2, named" "rc=$rc $err"

# --- a set made by fsconc run ---------------------------------------------
if ! is_root; then
	skip "a set made by fsconc run" "needs root (tmpfs)"
else
	FSCONC_RUNDIR=$s/rundir
	export FSCONC_RUNDIR
	mkdir -m 700 "$FSCONC_RUNDIR"
	"$FSCONC" mkarchive --files 20 --bytes 64k "$s/small.tar" >/dev/null 2>&1
	"$FSCONC" run -a "$s/small.tar" -j 1,2 -r 3 --disk tmpfs:32m \
	    -R "$s/run" --label k1 >"$s/run.out" 2>&1
	set1=$(ls -d "$s"/run/*/k1/* 2>/dev/null | head -n 1)
	"$FSCONC" export --kcidb --origin lab_1 -R "$s/run" set k1 >"$s/set.json" 2>"$s/set.err"; rc=$?
	[ $rc -eq 0 ] && [ -n "$set1" ] && [ ! -s "$s/set.err" ] &&
	    [ "$(q "$s/set.json" 'sorted(x["path"] for x in d["tests"])')" = "['fsconc.extract.ec.jobs2', 'fsconc.extract.real.jobs1', 'fsconc.extract.real.jobs2']" ] &&
	    [ "$(q "$s/set.json" 'sorted({x["status"] for x in d["tests"]} | {x["origin"] for x in d["tests"] + d["builds"] + d["checkouts"]})')" = "['DONE', 'lab_1']" ] &&
	    [ "$(q "$s/set.json" 'd["builds"][0]["architecture"]')" = "$(uname -m | tr A-Z a-z)" ] &&
	    [ "$(q "$s/set.json" 'd["checkouts"][0]["misc"]["kernel_release"]')" = "$(uname -r)" ] &&
	    ok "a set: a checkout (the kernel), a build (its machine), T(1), T(2) and EC(2) as DONE tests of origin lab_1" ||
	    not_ok "a set: a checkout, a build, T(1), T(2) and EC(2)" "rc=$rc $(cat "$s/set.err" "$s/run.out") $(cat "$s/set.json")"
	valid "a set made by fsconc run" "$s/set.json"
	# The figures against scipy: T(N) the mean of jobs-N.real, its t
	# interval; EC(2) = 2 mean(T1) / mean(T2).
	if [ -n "$has_scipy" ]; then
		out=$("$py" - "$s/set.json" "$set1" <<'EOF' 2>&1
import json, sys
from scipy import stats
import numpy as np
d = json.load(open(sys.argv[1]))
t = {x["path"]: x for x in d["tests"]}
m = {}
for n in (1, 2):
    v = np.loadtxt("%s/jobs-%d.real" % (sys.argv[2], n), ndmin=1)
    m[n] = v.mean()
    x = t["fsconc.extract.real.jobs%d" % n]
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    assert x["number"]["unit"] == "s", x
    assert abs(x["number"]["value"] - v.mean()) <= 1e-12 * v.mean(), (x, v)
    i = x["misc"]["interval"]
    assert abs(i["low"] - lo) <= 1e-9 * abs(hi) and abs(i["high"] - hi) <= 1e-9 * abs(hi), (i, lo, hi)
    assert x["misc"]["batches"] == len(v) and x["misc"]["level"] == "batch", x
ec = t["fsconc.extract.ec.jobs2"]
assert "unit" not in ec["number"]
assert abs(ec["number"]["value"] - 2 * m[1] / m[2]) <= 1e-12 * ec["number"]["value"], ec
print("T(1) %.4g, T(2) %.4g, EC(2) %.4g" % (m[1], m[2], ec["number"]["value"]))
EOF
)
		[ $? -eq 0 ] && ok "a set's T(N), its interval and EC(N) agree with scipy: $out" ||
		    not_ok "a set's T(N), its interval and EC(N) agree with scipy" "$out"
	else
		skip "a set's figures against scipy" "/usr/bin/python3 with scipy is not installed (scripts/install-deps)"
	fi
	# -o: a new file, never one already there.
	"$FSCONC" export --kcidb -R "$s/run" -o "$s/set-o.json" set k1 2>"$s/o.err"; rc=$?
	: >"$s/planted.json"
	err=$("$FSCONC" export --kcidb -R "$s/run" -o "$s/planted.json" set k1 2>&1); rc2=$?
	[ $rc -eq 0 ] && cmp -s "$s/set.json" "$s/set-o.json" >/dev/null 2>&1 ||
	    "$py" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a["tests"][0]["number"] != b["tests"][0]["number"])' "$s/set.json" "$s/set-o.json" 2>/dev/null
	r=$?
	[ $rc -eq 0 ] && [ $r -eq 0 ] && [ $rc2 -eq 2 ] && [ ! -s "$s/planted.json" ] &&
	    echo "$err" | grep -q "planted.json" &&
	    ok "-o FILE: the report written whole; a file already there refused, exit 2, left as it was" ||
	    not_ok "-o FILE: the report written whole; a file already there refused" "rc=$rc rc2=$rc2 $err $(cat "$s/o.err")"
fi

# --- a campaign of imported sets (no boots) --------------------------------
# A the baseline, B twice as slow at -j 2 and disturbed on its boot 2.
R=$s/camp
b=0
for r in 1 2 3; do
	for l in A B; do
		b=$((b + 1))
		set --
		t2=10.5
		case $l in B) t2=21 ;; esac
		case $l$r in
		B2)	set -- -m disturbed_kept=3 -m disturbed_worst=49.4 \
			    -m disturb_threshold=10 ;;
		esac
		for j in 1 2; do
			[ $j -eq 1 ] && t=10 || t=$t2
			awk -v s=$((b * 10 + j)) -v t=$t 'BEGIN { srand(s)
			    for (i = 0; i < 5; i++)
				printf "%.4f\n", t * (1 + 0.01 * (rand() - 0.5)) }' \
			    >"$s/b$j"
		done
		"$FSCONC" import -R "$R" --host box -l "$l" \
		    --date "2026-11-$(printf %02d $b)T03:00:00Z" \
		    -m archive_sha256=cafe -m campaign=c1 -m campaign_config=$l \
		    -m campaign_boot=$b -m campaign_round=$r \
		    -m os=Linux -m kernel.release=6.1.0-13-amd64 -m machine=x86_64 \
		    "$@" 1="$s/b1" 2="$s/b2" >/dev/null || not_ok "import $l $r"
	done
done
"$FSCONC" export --kcidb -R "$R" campaign box/A box/B >"$s/camp.json" 2>"$s/camp.err"; rc=$?
[ $rc -eq 0 ] &&
    [ "$(q "$s/camp.json" 'sorted(t)')" = "['fsconc.campaign.A.ec.jobs2@c1', 'fsconc.campaign.A.real.jobs1@c1', 'fsconc.campaign.A.real.jobs2@c1', 'fsconc.campaign.B.ec.jobs2@c1', 'fsconc.campaign.B.real.jobs1@c1', 'fsconc.campaign.B.real.jobs2@c1']" ] &&
    [ "$(q "$s/camp.json" '(len(d["checkouts"]), len(d["builds"]), {x["status"] for x in d["tests"]})')" = "(1, 1, {'DONE'})" ] &&
    [ "$(q "$s/camp.json" '[t["fsconc.campaign.B.ec.jobs2@c1"][k] for k in ("comment", "misc")][1]["flags"][0]["kind"]')" = disturbed ] &&
    [ "$(q "$s/camp.json" 't["fsconc.campaign.B.ec.jobs2@c1"]["comment"]')" = "invalid, not to be judged: disturbed" ] &&
    [ "$(q "$s/camp.json" '(t["fsconc.campaign.B.ec.jobs2@c1"]["misc"]["valid"], t["fsconc.campaign.B.ec.jobs2@c1"]["misc"]["against_baseline"]["verdict"], t["fsconc.campaign.A.ec.jobs2@c1"]["misc"]["valid"], "against_baseline" in t["fsconc.campaign.A.ec.jobs2@c1"]["misc"])')" = "(False, 'invalid', True, False)" ] &&
    [ "$(q "$s/camp.json" '(t["fsconc.campaign.A.real.jobs2@c1"]["misc"]["boots"], t["fsconc.campaign.A.real.jobs2@c1"]["misc"]["batches"], t["fsconc.campaign.A.real.jobs2@c1"]["misc"]["level"])')" = "(3, 15, 'boot')" ] &&
    ok "a campaign of imported sets: T(N), EC(N) per configuration over boots; B's disturbed boot flags its figures (misc.flags, valid false, the comment), its comparison not judged" ||
    not_ok "a campaign of imported sets" "rc=$rc $(cat "$s/camp.err") $(cat "$s/camp.json")"
valid "a campaign of imported sets" "$s/camp.json"
# Over boots: the mean of the boot means and its t interval (df 2), by
# scipy from the imported values.
if [ -n "$has_scipy" ]; then
	out=$("$py" - "$s/camp.json" "$R" <<'EOF' 2>&1
import glob, json, sys
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
t = {x["path"]: x for x in d["tests"]}
means = []
for s in sorted(glob.glob(sys.argv[2] + "/box/A/*")):
    means.append(np.loadtxt(s + "/jobs-2.real").mean())
means = np.array(means)
x = t["fsconc.campaign.A.real.jobs2"]
lo, hi = stats.t.interval(0.95, len(means) - 1, loc=means.mean(), scale=stats.sem(means))
assert abs(x["number"]["value"] - means.mean()) <= 1e-12 * means.mean(), x
assert [round(v, 9) for v in x["misc"]["boot_values"]] == [round(v, 9) for v in means], x
i = x["misc"]["interval"]
assert abs(i["low"] - lo) <= 1e-9 * hi and abs(i["high"] - hi) <= 1e-9 * hi, (i, lo, hi)
print("T(2) of A %.5g [%.5g, %.5g] over %d boots" % (means.mean(), lo, hi, len(means)))
EOF
)
	[ $? -eq 0 ] && ok "a campaign's T(N) over boots and its interval agree with scipy: $out" ||
	    not_ok "a campaign's T(N) over boots agrees with scipy" "$out"
else
	skip "a campaign's figures against scipy" "/usr/bin/python3 with scipy is not installed (scripts/install-deps)"
fi
# On two machines (a lab's devices: campaign_machine), the machine is
# the replicate.
b=0
for m in m1 m2; do
	for r in 1 2; do
		for l in A B; do
			b=$((b + 1))
			"$FSCONC" import -R "$s/mach" --host box -l "$l" \
			    --date "2026-11-$(printf %02d $b)T03:00:00Z" \
			    -m archive_sha256=cafe -m campaign=c2 \
			    -m campaign_config=$l -m campaign_boot=$b \
			    -m campaign_round=$b -m campaign_machine=$m \
			    1="$s/b1" 2="$s/b2" >/dev/null || not_ok "import $m $l $r"
		done
	done
done
"$FSCONC" export --kcidb -R "$s/mach" campaign box/A >"$s/mach.json" 2>"$s/mach.err"; rc=$?
[ $rc -eq 0 ] &&
    [ "$(q "$s/mach.json" 'sorted({(x["misc"]["level"], x["misc"]["machines"], x["misc"]["boots"]) for x in d["tests"]})')" = "[('machine', 2, 4)]" ] &&
    ok "a campaign on two machines: the machine the level, machines 2" ||
    not_ok "a campaign on two machines: the machine the level" "rc=$rc $(cat "$s/mach.err" "$s/mach.json")"
valid "a campaign on two machines" "$s/mach.json"
err=$("$FSCONC" export --kcidb -R "$s/run" campaign k1 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'not a campaign.s set' &&
    ok "campaign of a set that is no campaign's: exit 2, said" ||
    not_ok "campaign of a set that is no campaign's: exit 2, said" "rc=$rc $err"

# --- hostile meta ------------------------------------------------------------
# Quotes, backslashes, bytes of no UTF-8 character, a line separator,
# braces and a long text in what the report carries: still one valid
# document, every text bounded.
long=$(awk 'BEGIN { while (i++ < 3000) printf "x" }')
odd=$(printf 'a"b\\c\377\342\200\250}]{"%s' "$long")
"$FSCONC" import -R "$s/hostile" --host box -l odd \
    -m "kernel.release=$odd" -m "kernel.version=$odd" -m "os=$odd" \
    -m "machine=X86 64\"" -m "workload=ex.t\"r" -m "kernel.config_hash=$odd" \
    1="$s/b1" 2="$s/b2" >/dev/null 2>"$s/imp.err"
"$FSCONC" export --kcidb -R "$s/hostile" set box/odd >"$s/odd.json" 2>"$s/odd.err"; rc=$?
[ $rc -eq 0 ] &&
    [ "$(q "$s/odd.json" 'sorted(x["path"] for x in d["tests"])')" = "['fsconc.ex_t_r.ec.jobs2', 'fsconc.ex_t_r.real.jobs1', 'fsconc.ex_t_r.real.jobs2']" ] &&
    [ "$(q "$s/odd.json" '("architecture" in d["builds"][0], max(len(v) for v in d["checkouts"][0]["misc"].values()) <= 1024, "kernel_config_hash" in d["checkouts"][0]["misc"])')" = "(False, True, False)" ] &&
    [ "$(q "$s/odd.json" 'd["checkouts"][0]["misc"]["kernel_release"][:6] == "a\"b\\c\ufffd"')" = True ] &&
    ok "hostile meta: escaped, bounded, an architecture or config hash outside the schema's alphabet left out, paths made of its words" ||
    not_ok "hostile meta" "rc=$rc $(cat "$s/imp.err" "$s/odd.err") $(head -c 2000 "$s/odd.json")"
valid "a set whose meta holds hostile text" "$s/odd.json"

# --- a campaign run with simulated reboots ------------------------------------
if ! is_root; then
	skip "a campaign run with simulated reboots" "needs root (tmpfs)"
else
	sim_machine "$s"
	cat >"$s/c.campaign" <<EOF
run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs
boots 2
seed 11
baseline B
method command
command $s/boot.sh
config A
	cmdline maxcpus=1
config B
EOF
	Rc=$s/cres
	"$FSCONC" campaign start -R "$Rc" "$s/c.campaign" >"$s/cstart.out" 2>&1
	cid=$(cat "$Rc/campaign/active" 2>/dev/null)
	i=0
	while [ -e "$Rc/campaign/active" ] && [ $i -lt 10 ]; do
		"$FSCONC" campaign resume -R "$Rc" --id "$cid" >>"$s/cresume.out" 2>&1
		i=$((i + 1))
	done
	"$FSCONC" export --kcidb -R "$Rc" campaign --id "$cid" >"$s/crun.json" 2>"$s/crun.err"; rc=$?
	[ $rc -eq 0 ] && [ -n "$cid" ] &&
	    [ "$(q "$s/crun.json" 'sorted(x["path"] for x in d["tests"])')" = "['fsconc.campaign.A.ec.jobs2', 'fsconc.campaign.A.real.jobs1', 'fsconc.campaign.A.real.jobs2', 'fsconc.campaign.B.ec.jobs2', 'fsconc.campaign.B.real.jobs1', 'fsconc.campaign.B.real.jobs2']" ] &&
	    [ "$(q "$s/crun.json" '{x["misc"]["against_baseline"]["baseline"] for x in d["tests"] if "against_baseline" in x["misc"]}')" = "{'B'}" ] &&
	    ok "a campaign run (2 configurations x 2 boots, reboots simulated): export campaign --id, the campaign file's baseline" ||
	    not_ok "a campaign run: export campaign --id" "rc=$rc $(cat "$s/crun.err" "$s/cresume.out") $(cat "$s/crun.json")"
	valid "a campaign run with simulated reboots" "$s/crun.json"
fi

# --- a bisect ------------------------------------------------------------------
# The journal of tests/fixtures/bisect-main.journal (10 commits, the
# culprit commit 3 confirmed by its revert), commits and a bisect file
# made for it, a build log with escapes and a byte of no character.
B=$s/bis/bisect/b1
mkdir -p "$B"
i=0
while [ $i -lt 10 ]; do
	printf '%040x\n' $((0xabc0 + i))
	i=$((i + 1))
done >"$B/commits"
cp "$TOP/tests/fixtures/bisect-main.journal" "$B/journal"
cat >"$B/bisect" <<EOF
tree $s/tree
good HEAD~9
bad HEAD
figure t 2
run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs
build make
image vmlinuz
kconfig $s/guest.config
method command
command /bin/true
EOF
c0=$(sed -n 1p "$B/commits")
printf '# fsconc bisect b1: commit 0 %s\ncc \033[31merror\033[0m \377 "x"\n# fsconc bisect b1: commit 9 %s\nok 9\n' \
    "$c0" "$(sed -n 10p "$B/commits")" >"$B/build.log"
"$FSCONC" export --kcidb -R "$s/bis" bisect --id b1 >"$s/bis.json" 2>"$s/bis.err"; rc=$?
[ $rc -eq 0 ] &&
    [ "$(q "$s/bis.json" '[(x["misc"]["verdict"], x["misc"].get("culprit", False), x["misc"]["boots"]) for x in d["tests"]]')" = "[('good (endpoint)', False, 3), ('good', False, 2), ('bad', True, 2), ('bad', False, 2), ('bad (endpoint)', False, 3), ('revert', False, 3)]" ] &&
    [ "$(q "$s/bis.json" '[x.get("git_commit_hash", "-")[-4:] for x in d["checkouts"]]')" = "['abc0', 'abc2', 'abc3', 'abc4', 'abc9', '-']" ] &&
    [ "$(q "$s/bis.json" 'd["tests"][5]["comment"][:21]')" = "confirmed: reverting " ] &&
    [ "$(q "$s/bis.json" '(d["builds"][0]["status"], d["builds"][0]["config_name"], d["builds"][0]["log_excerpt"] == "cc \x1b[31merror\x1b[0m \ufffd \"x\"\n")')" = "('PASS', 'guest.config', True)" ] &&
    [ "$(q "$s/bis.json" 'd["builds"][4]["log_excerpt"]')" = "ok 9" ] &&
    ok "a bisect: a checkout (its commit) and build a commit, the boot means as a test with its verdict, the culprit, the revert; a build's part of build.log" ||
    not_ok "a bisect" "rc=$rc $(cat "$s/bis.err") $(cat "$s/bis.json")"
valid "a bisect" "$s/bis.json"

# --- the validation ------------------------------------------------------------
# Each planted document is one the schema (or the links) refuses, each
# named with the words the refusal must hold; a validator that passed
# them would prove nothing above.
"$py" - "$s/bis.json" "$s" <<'EOF' >"$s/planted.list"
import json, sys
plants = [
    ("origin", 'd["tests"][0]["origin"] = "Fs-conc"', "origin: pattern"),
    ("status", 'd["tests"][0]["status"] = "OK"', "status: enum"),
    ("number", 'd["tests"][0]["number"]["value"] = "1.5"', "value: type"),
    ("commit", 'd["checkouts"][0]["git_commit_hash"] = "abc"',
     "git_commit_hash: pattern"),
    ("path", 'd["tests"][0]["path"] = "fsconc..x"', "path: pattern"),
    ("extra", 'd["tests"][0]["figure"] = 1', "additionalProperties"),
    ("version", 'd["version"]["major"] = 4', "major: const"),
    ("build_id", 'del d["tests"][0]["build_id"]', "required"),
    ("null", 'd["builds"][0]["duration"] = None', "duration: type"),
    ("long_log", 'd["builds"][0]["log_excerpt"] = "x" * 16385',
     "log_excerpt: maxLength"),
    ("dangling", 'd["tests"][0]["build_id"] = "fsconc:nowhere"',
     "no build fsconc:nowhere"),
]
for name, edit, want in plants:
    d = json.load(open(sys.argv[1]))
    exec(edit)
    f = "%s/planted-%s.json" % (sys.argv[2], name)
    json.dump(d, open(f, "w"))
    print(f, name, want)
EOF
printf '{"version":{"major":5,"minor":3},"tests":[],"tests":[]}' >"$s/dup.json"
printf '{"version":{"major":5,"minor":3},"tests":[{"id":"a:b","build_id":"a:c","origin":"a","number":{"value":NaN}}]}' >"$s/nan.json"
echo "$s/dup.json dup duplicate key 'tests'" >>"$s/planted.list"
echo "$s/nan.json nan not JSON: NaN" >>"$s/planted.list"
if [ -n "$why" ]; then
	while read -r f name; do
		skip "$name: valid against the KCIDB v5.3 schema" "$why"
	done <"$s/valid.list"
	skip "planted invalid reports: refused by the validator" "$why"
else
	# One run over every file, the valid and the planted: a line per
	# problem, "FILE: ...".
	"$py" "$val" "$schema" $(cut -d ' ' -f 1 "$s/valid.list" "$s/planted.list") \
	    >"$s/val.out" 2>&1
	while read -r f name; do
		if grep -q "^$f: " "$s/val.out"; then
			not_ok "$name: valid against the KCIDB v5.3 schema" "$(grep "^$f: " "$s/val.out" | head -n 20)"
		else
			ok "$name: valid against the KCIDB v5.3 schema"
		fi
	done <"$s/valid.list"
	bad= good=
	while read -r f name want; do
		grep "^$f: " "$s/val.out" | grep -qF "$want" && good="$good $name" ||
		    bad="$bad [$name: $(grep "^$f: " "$s/val.out" | head -c 400)]"
	done <"$s/planted.list"
	[ -z "$bad" ] && ok "planted invalid reports refused by the validator:$good" ||
	    not_ok "planted invalid reports refused by the validator" "$bad"
fi
tap_close
