# fsconc compare: the 2005 figures, ministat blocks byte for byte, the
# meta check, selection, run directories, JSON, exit statuses.
. "$FSCONC_TOP/tests/lib.sh"

d=$(scratch) || exit 1
F=$FSCONC_TOP/tests/fixtures/ec2005
R=$d/res

imp() {	# label, extra import args...
	_l=$1; shift
	"$FSCONC" import -R "$R" --host box -l "$_l" "$@" >/dev/null
}

# --- the 2005 figures: "EC(12) = 2.11 vs 0.55" -------------------------
imp mpsafevfs --ncpu 12 -m archive_sha256=cafe -m debug.mpsafevfs=1 \
    1="$F/mpsafevfs-t1.txt" 12="$F/mpsafevfs-t12.txt"
imp nompsafevfs --ncpu 12 -m archive_sha256=cafe -m debug.mpsafevfs=0 \
    1="$F/nompsafevfs-t1.txt" 12="$F/nompsafevfs-t12.txt"
out=$("$FSCONC" compare -R "$R" box/mpsafevfs box/nompsafevfs 2>"$d/err"); rc=$?
echo "$out" | grep -q '^EC(12) = 2.11 vs 0.55 ' &&
    echo "$out" | grep -Eq '^x +12 +mpsafevfs +14.64 +83.35 +2.11 +\[' &&
    echo "$out" | grep -Eq '^\+ +12 +nompsafevfs +14.71 +320.94 +0.55 +\[.*4.6% +-1.56 \[' &&
    echo "$out" | grep -q "Fieller's method" &&
    ok "2005 timings: EC(12) = 2.11 vs 0.55, efficiency, dEC" ||
    not_ok "2005 timings: EC(12) = 2.11 vs 0.55, efficiency, dEC" "$out"
[ $rc -eq 3 ] && echo "$out" | grep -q '^SLOWER: + nompsafevfs at jobs 12' &&
    ok "a significant slowdown exits 3" || not_ok "a significant slowdown exits 3" "rc=$rc"
echo "$out" | grep -A2 '^Meta keys whose values differ' | grep -Eq 'debug.mpsafevfs +x 1' &&
    grep -q 'warning: 1 meta key differs' "$d/err" &&
    ! echo "$out" | grep -q '^  command' &&
    ok "meta check lists differing meta keys, warns, ignores command/created" ||
    not_ok "meta check lists differing meta keys, warns, ignores command/created" \
	"$out $(cat "$d/err")"
# Reversed, the slower configuration is the baseline: no slowdown.
"$FSCONC" compare -R "$R" box/nompsafevfs box/mpsafevfs >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "a speedup exits 0" || not_ok "a speedup exits 0" "rc=$rc"

# --- ministat blocks, byte for byte against Debian's ministat -----------
# Data where Debian's ministat is sound: fsconc stat deliberately differs
# where it is not (plot height: ministat takes the last set's stack), so
# every block is also checked against fsconc stat on the same files.
printf '10.11 real 1.10 user 7.22 sys\n10.33 real 1.03 user 7.08 sys\n10.21 real 1.00 user 6.86 sys\n9.74 real 0.96 user 7.07 sys\n10.20 real 1.07 user 7.12 sys\n10.12 real 1.03 user 7.02 sys\n' >"$d/a1"
printf '13.24 real 1.47 user 38.80 sys\n14.14 real 1.39 user 42.66 sys\n14.54 real 1.43 user 38.02 sys\n14.43 real 1.35 user 40.66 sys\n13.39 real 1.40 user 40.40 sys\n13.68 real 1.41 user 39.52 sys\n' >"$d/a4"
printf '10.53 real 1.00 user 7.31 sys\n10.89 real 0.96 user 6.98 sys\n10.38 real 1.00 user 6.88 sys\n10.69 real 1.07 user 7.40 sys\n10.58 real 1.06 user 6.99 sys\n9.48 real 1.05 user 6.94 sys\n' >"$d/b1"
printf '15.59 real 1.58 user 41.94 sys\n15.40 real 1.67 user 44.56 sys\n14.78 real 1.55 user 43.57 sys\n15.84 real 1.61 user 43.49 sys\n15.45 real 1.61 user 41.72 sys\n16.12 real 1.58 user 42.91 sys\n' >"$d/b4"
printf '9.76 real 1.00 user 6.65 sys\n9.21 real 1.01 user 7.25 sys\n9.89 real 1.00 user 6.95 sys\n9.63 real 1.01 user 7.12 sys\n9.93 real 1.03 user 6.74 sys\n10.00 real 0.96 user 6.84 sys\n' >"$d/c1"
printf '13.94 real 1.39 user 39.69 sys\n14.11 real 1.32 user 40.18 sys\n13.15 real 1.38 user 39.04 sys\n13.78 real 1.41 user 38.70 sys\n13.39 real 1.43 user 38.60 sys\n13.42 real 1.38 user 38.62 sys\n' >"$d/c4"
for s in a b c; do
	imp "$s" -m archive_sha256=cafe 1="$d/${s}1" 4="$d/${s}4"
done
"$FSCONC" compare -R "$R" box/a box/b box/c >"$d/cmp" 2>/dev/null
pa=$(ls -d "$R"/box/a/*) pb=$(ls -d "$R"/box/b/*) pc=$(ls -d "$R"/box/c/*)
if command -v ministat >/dev/null 2>&1; then
	for j in 1 4; do
		for m in real user sys; do
			awk -v h="== jobs $j, $m ==" '$0 == h { f = 1; next }
			    /^Welch/ { f = 0 } f' "$d/cmp" >"$d/got"
			ministat "$pa/jobs-$j.$m" "$pb/jobs-$j.$m" \
			    "$pc/jobs-$j.$m" >"$d/want" 2>&1
			if [ -s "$d/got" ] && cmp -s "$d/got" "$d/want"; then
				ok "jobs $j $m block = ministat"
			else
				not_ok "jobs $j $m block = ministat" \
				    "$(diff "$d/want" "$d/got")"
			fi
			"$FSCONC" stat "$pa/jobs-$j.$m" "$pb/jobs-$j.$m" \
			    "$pc/jobs-$j.$m" >"$d/want" 2>&1
			cmp -s "$d/got" "$d/want" &&
			    ok "jobs $j $m block = fsconc stat" ||
			    not_ok "jobs $j $m block = fsconc stat" \
			    "$(diff "$d/want" "$d/got")"
		done
	done
	# The fixture's jobs-1 block too (two sets).
	p1=$(ls -d "$R"/box/mpsafevfs/*) p2=$(ls -d "$R"/box/nompsafevfs/*)
	"$FSCONC" compare -R "$R" -j 1 -m real box/mpsafevfs box/nompsafevfs 2>/dev/null |
	    awk '$0 == "== jobs 1, real ==" { f = 1; next } /^Welch/ { f = 0 } f' >"$d/got"
	ministat "$p1/jobs-1.real" "$p2/jobs-1.real" >"$d/want"
	cmp -s "$d/got" "$d/want" && ok "2005 jobs 1 block = ministat" ||
	    not_ok "2005 jobs 1 block = ministat" "$(diff "$d/want" "$d/got")"
	"$FSCONC" compare -R "$R" -j 12 -m real box/mpsafevfs box/nompsafevfs 2>/dev/null |
	    awk '$0 == "== jobs 12, real ==" { f = 1; next } /^Welch/ { f = 0 } f' >"$d/got"
	"$FSCONC" stat "$p1/jobs-12.real" "$p2/jobs-12.real" >"$d/want"
	cmp -s "$d/got" "$d/want" && ok "2005 jobs 12 block = fsconc stat" ||
	    not_ok "2005 jobs 12 block = fsconc stat" "$(diff "$d/want" "$d/got")"
else
	skip "ministat blocks = ministat" "no ministat"
fi
n=$(grep -c "^Welch's t, [+*] vs x: " "$d/cmp")
[ "$n" -eq 12 ] && ok "a Welch line under every block, for every set" ||
    not_ok "a Welch line under every block, for every set" "$n"

# --- selection ----------------------------------------------------------
out=$("$FSCONC" compare -R "$R" -j 4 -m sys,real box/a box/b 2>/dev/null)
[ "$(echo "$out" | grep -c '^== ')" -eq 2 ] &&
    echo "$out" | grep -q '^== jobs 4, sys ==' &&
    echo "$out" | grep -q '^== jobs 4, real ==' &&
    ok "--jobs and --metric select blocks" ||
    not_ok "--jobs and --metric select blocks" "$out"
out=$("$FSCONC" compare -R "$R" -c 99 -j 4 -m real box/a box/b 2>/dev/null)
echo "$out" | grep -q 'at 99.0% confidence' && echo "$out" | grep -q '99.0% confidence\.' &&
    ok "-c 99" || not_ok "-c 99" "$out"

# --- run directories and selectors --------------------------------------
out=$("$FSCONC" compare "$R/box" -j 1 -m real 2>/dev/null); rc=$?
[ "$(echo "$out" | grep -c '^[x+*%#@O] [a-z]')" -eq 5 ] &&
    echo "$out" | grep -q '^x a ' &&
    ok "a directory of labelled sets expands to the latest of each" ||
    not_ok "a directory of labelled sets expands to the latest of each" "rc=$rc $out"
out=$("$FSCONC" compare -B c "$R/box" -j 1 -m real 2>/dev/null)
[ "$(echo "$out" | awk 'NR == 2 { print $1, $2 }')" = "x c" ] &&
    [ "$(echo "$out" | awk 'NR == 3 { print $1, $2 }')" = "+ a" ] &&
    ok "-B picks the baseline" || not_ok "-B picks the baseline" "$out"
"$FSCONC" compare -B nosuch "$R/box" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "-B with an unknown label: exit 1" ||
    not_ok "-B with an unknown label: exit 1" "rc=$rc"
imp a -m archive_sha256=cafe 1="$d/c1" 4="$d/c4"	# a newer "a"
out=$(FSCONC_RESULTS=$R "$FSCONC" compare box/a "$pa" -j 1 -m real 2>/dev/null)
[ "$(echo "$out" | awk 'NR == 2 { print $3 }')" != "$pa" ] &&
    [ "$(echo "$out" | awk 'NR == 3 { print $3 }')" = "$pa" ] &&
    ok "host/label is the latest set; \$FSCONC_RESULTS is the root" ||
    not_ok "host/label is the latest set; \$FSCONC_RESULTS is the root" "$out"

# --- identical data: nothing flagged -------------------------------------
imp same1 -m archive_sha256=cafe 1="$d/a1" 4="$d/a4"
imp same2 -m archive_sha256=cafe 1="$d/a1" 4="$d/a4"
out=$("$FSCONC" compare -R "$R" box/same1 box/same2 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^Verdict: no significant slowdown' &&
    echo "$out" | grep -q 'Meta: no key differs' &&
    ok "identical sets: exit 0, no difference" ||
    not_ok "identical sets: exit 0, no difference" "rc=$rc $out"

# --- constant data (no p = 0 from rounding): four 0.1 against three 0.1 ---------------
# Means that differ in the last bits are the same mean: no SLOWER, exit 0
# (it said SLOWER with p = 0 and exited 3).  The same sets feed nightly.sh.
printf '0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n' >"$d/k4"
head -n 3 "$d/k4" >"$d/k3"
imp const4 -m archive_sha256=cafe 1="$d/k4" 2="$d/k4"
imp const3 -m archive_sha256=cafe 1="$d/k3" 2="$d/k3"
out=$("$FSCONC" compare -R "$R" box/const4 box/const3 2>&1); rc=$?
[ $rc -eq 0 ] && ! echo "$out" | grep -q 'SLOWER' &&
    ! echo "$out" | grep -q '^Difference' &&
    ! echo "$out" | grep -q 'undefined' &&
    echo "$out" | grep -q '^Verdict: no significant slowdown' &&
    ok "constant sets, equal values: no slowdown, exit 0" ||
    not_ok "constant sets, equal values: no slowdown, exit 0" "rc=$rc $out"

# --- the meta check refuses different archives -------------------------------
imp other -m archive_sha256=beef 1="$d/a1" 4="$d/a4"
out=$("$FSCONC" compare -R "$R" box/same1 box/other 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'archive_sha256 differs' &&
    ! echo "$out" | grep -q '^== jobs' &&
    ok "different archive_sha256: refused, exit 1, no numbers" ||
    not_ok "different archive_sha256: refused, exit 1, no numbers" "rc=$rc $out"
out=$("$FSCONC" compare -R "$R" --force box/same1 box/other 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^== jobs 1, real' &&
    echo "$out" | grep -q 'warning: archive_sha256 differs' &&
    ok "--force compares anyway, with a warning" ||
    not_ok "--force compares anyway, with a warning" "rc=$rc $out"

# --- one value per level: EC without an interval (stat_ec's rule) ------
printf '14.64 real 1.0 user 7.0 sys\n' >"$d/o1"
printf '83.35 real 1.0 user 70.0 sys\n' >"$d/o12"
printf '14.71 real 1.0 user 7.0 sys\n' >"$d/p1"
printf '320.94 real 1.0 user 90.0 sys\n' >"$d/p12"
imp one -m archive_sha256=cafe 1="$d/o1" 12="$d/o12"
imp two -m archive_sha256=cafe 1="$d/p1" 12="$d/p12"
out=$("$FSCONC" compare -R "$R" box/one box/two 2>&1)
echo "$out" | grep -Eq '^x +12 +one .* 2\.11 +- ' &&
    echo "$out" | grep -Eq '^\+ +12 +two .* 0\.55 +- .* -$' &&
    echo "$out" | grep -q '^CI -: a single value' &&
    ok "one value per level: EC shown, no interval" ||
    not_ok "one value per level: EC shown, no interval" "$out"

# --- JSON ----------------------------------------------------------------
"$FSCONC" compare -R "$R" --json box/mpsafevfs box/nompsafevfs >"$d/json" 2>/dev/null; rc=$?
if [ -x /usr/bin/python3 ]; then
	v=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
ec = [r for r in j["effective_concurrency"]["rows"] if r["jobs"] == 12]
print("%.2f %.2f %s %s %d" % (ec[0]["ec"], ec[1]["ec"], j["verdict"]["regression"],
      j["meta_differences"][0]["key"], len(j["comparisons"])))' "$d/json" 2>&1)
	[ $rc -eq 3 ] && [ "$v" = "2.11 0.55 True debug.mpsafevfs 2" ] &&
	    ok "--json" || not_ok "--json" "rc=$rc $v"
else
	skip "--json" "no /usr/bin/python3"
fi

# --- failures and usage ------------------------------------------------------
"$FSCONC" compare -R "$R" box/a >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "one set: exit 1" || not_ok "one set: exit 1" "rc=$rc"
e=$("$FSCONC" compare -R "$R" box/a box/nosuch 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && echo "$e" | grep -q 'box/nosuch: no result set' &&
    ok "unknown set: named, exit 1" || not_ok "unknown set: named, exit 1" "rc=$rc $e"
for args in "" "-c 97 box/a box/b" "-j x box/a box/b" "-j 4-1 box/a box/b" \
    "-m , box/a box/b" "-w 5 box/a box/b" "--max-cv 0 box/a box/b" \
    "--max-cv x box/a box/b" "--max-cv 1001 box/a box/b"; do
	# shellcheck disable=SC2086
	"$FSCONC" compare -R "$R" $args >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ok "compare $args: exit 2" ||
	    not_ok "compare $args: exit 2" "rc=$rc"
done

# --- sets with and without start_skew, cpu_start, cpu_end ----------------
NCPU=2 LEVELS="1 2" REPS=3 LABEL=old sh "$FSCONC_TOP/tests/fixtures/mkset.sh" \
    "$R/box/old/20261129T000000Z"
"$FSCONC" run -w calib -O iterations=100000 -j 1,2 -r 3 -R "$R" --label new \
    >"$d/new.out" 2>&1
new=$(ls -d "$R"/*/new/*/)
out=$("$FSCONC" compare --force "$R/box/old" "$new" 2>&1); rc=$?
head -n 1 "$new/runs.tsv" | grep -q '	start_skew	' &&
    ! head -n 1 "$R/box/old/20261129T000000Z/runs.tsv" | grep -q start_skew &&
    { [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && echo "$out" | grep -q '^EC(2) = ' &&
    ok "compare: a set with the added columns against one without" ||
    not_ok "compare: a set with the added columns against one without" "rc=$rc $out"
# --- two real runs of one configuration: nothing differs -----------------
# The disk instance (id, mount point, device), times, the command line and
# the seed differ between any two runs; compare must not call that a
# difference.
if ! is_root; then
	skip "two runs of one configuration: no meta key differs" "needs root"
else
	FSCONC_RUNDIR=$d/rundir
	export FSCONC_RUNDIR
	mkdir -m 700 "$FSCONC_RUNDIR"
	"$FSCONC" mkarchive --files 20 --bytes 64k "$d/small.tar" >/dev/null 2>&1
	for o in "$d/real1" "$d/real2"; do
		"$FSCONC" run -a "$d/small.tar" -j 1,2 -r 3 --disk tmpfs:32m \
		    --order random -R "$o" >/dev/null 2>&1
	done
	s1=$(ls -d "$d"/real1/*/*/* 2>/dev/null)
	s2=$(ls -d "$d"/real2/*/*/* 2>/dev/null)
	out=$("$FSCONC" compare "$s1" "$s2" 2>"$d/err"); rc=$?
	# Other tests running at the same time may change a sysctl between
	# the two runs: a real difference, not one of the run's own.
	keys=$(echo "$out" | awk '/^Meta keys whose values differ/ { f = 1; next }
	    f && /^$/ { exit } f && /^  [^ ]/ { print $1 }' | grep -v '^sysctl\.')
	{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && [ -z "$keys" ] &&
	    ! grep -v 'meta key.* differ' "$d/err" | grep -q . &&
	    ok "two runs of one configuration: no meta key differs" ||
	    not_ok "two runs of one configuration: no meta key differs" \
	    "rc=$rc $(cat "$d/err") $out"
fi

# --- kernel configs: the options that differ, named ----------------------
# Each set carries a fixture's normal form (set options sorted, by grep
# and sort) as kernel.config and its sha256sum as kernel.config_hash.
KCF=$FSCONC_TOP/tests/fixtures/kconfig
for c in generic rt; do
	grep '^CONFIG_' "$KCF/$c.config" | grep -v '=n$' | LC_ALL=C sort >"$d/$c.norm"
	imp "kc-$c" -m archive_sha256=cafe \
	    -m kernel.config_hash="$(sha256sum <"$d/$c.norm" | cut -d' ' -f1)" \
	    1="$F/mpsafevfs-t1.txt" 12="$F/mpsafevfs-t12.txt"
	for s in "$R"/box/kc-$c/*/; do cp "$d/$c.norm" "$s/kernel.config"; done
done
out=$("$FSCONC" compare -R "$R" box/kc-generic box/kc-rt 2>"$d/err"); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^Kernel configs (kernel.config):$' &&
    echo "$out" | grep -q '^  + against x: 10 options differ: DEBUG_LOCK_ALLOC=y (not set), HZ=1000 (250), HZ_1000=y (not set), HZ_250 not set (y), LOCALVERSION="-rt" (""), \.\.\.$' &&
    ok "compare: two kernels' configs, the options that differ named" ||
    not_ok "compare: two kernels' configs, the options that differ named" "rc=$rc $out $(cat "$d/err")"
out=$("$FSCONC" compare --json -R "$R" box/kc-generic box/kc-rt 2>"$d/err")
echo "$out" | python3 -c '
import json, sys
k = json.load(sys.stdin)["kernel_config_differences"]
assert len(k) == 1 and k[0]["set"] == 1 and k[0]["differ"] == 10 == len(k[0]["options"]), k
o = {x["name"]: x for x in k[0]["options"]}
assert o["PREEMPT_RT"]["value"] == "y" and o["PREEMPT_RT"]["baseline"] is None
assert o["PREEMPT_NONE"]["value"] is None and o["PREEMPT_NONE"]["baseline"] == "y"' 2>"$d/py" &&
    ok "compare --json: every option that differs, with both values" ||
    not_ok "compare --json: every option that differs, with both values" "$(cat "$d/py") $out"
# A kernel.config that is not its hash's: said, not compared, the rest goes on.
echo 'CONFIG_EXTRA=y' >>"$(ls "$R"/box/kc-rt/*/kernel.config)"
out=$("$FSCONC" compare -R "$R" box/kc-generic box/kc-rt 2>"$d/err"); rc=$?
[ $rc -eq 0 ] && grep -q "compare: .*kc-rt/.*/kernel.config: its hash is not meta's kernel.config_hash: kernel configs not compared" "$d/err" &&
    ! echo "$out" | grep -q '^Kernel configs' && echo "$out" | grep -q '^== jobs 12, real ==$' &&
    ok "compare: a kernel.config not its hash's is said, not compared" ||
    not_ok "compare: a kernel.config not its hash's is said, not compared" "rc=$rc $out $(cat "$d/err")"
