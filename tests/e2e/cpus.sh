# run --cpus and the CPU facts in meta and the summary: isolated CPUs
# (a stand-in for /sys/devices/system/cpu through the test hook
# FSCONC_TEST_CPU_SYSFS), an affinity narrowed by taskset as isolcpus=
# narrows init's, and --cpus widening the controller's own.
. "$FSCONC_TOP/tests/lib.sh"

S=$(scratch)
CAL="-w calib -O iterations=2000000"
ncpu=$(getconf _NPROCESSORS_ONLN)
mkdir "$S/iso" "$S/none" "$S/bad"
echo 1 >"$S/iso/isolated"
echo "(null)" >"$S/iso/nohz_full"
: >"$S/none/isolated"
echo "1-x" >"$S/bad/isolated"
last_set() { ls -d "$1"/*/*/* 2>/dev/null | tail -1; }

out=$(FSCONC_TEST_CPU_SYSFS="$S/none" "$FSCONC" run --dry-run $CAL -j 1 2>&1)
echo "$out" | grep -q '^cpus:' && not_ok "nothing isolated: no cpus line" "$out" ||
    ok "nothing isolated: no cpus line"

if [ "$ncpu" -lt 2 ]; then
	skip "isolated CPUs" "one CPU online"
	exit 0
fi

out=$(FSCONC_TEST_CPU_SYSFS="$S/iso" "$FSCONC" run --dry-run $CAL -j 1 2>&1)
echo "$out" | grep -q '^cpus: workers on .*, the affinity inherited, of online .* (isolated 1, nohz_full none)' &&
    ok "isolated CPU named in the plan" || not_ok "isolated CPU named in the plan" "$out"

out=$(FSCONC_TEST_CPU_SYSFS="$S/iso" "$FSCONC" run --dry-run $CAL -j 1,ncpu \
    --cpus isolated 2>&1)
echo "$out" | grep -q '^levels: 1 (ncpu 1)' &&
    echo "$out" | grep -q '^worker 0: cpuset 1 ' &&
    echo "$out" | grep -q '^cpus: workers on 1 (--cpus isolated)' &&
    ok "--cpus isolated: plans on the isolated CPU, ncpu 1" ||
    not_ok "--cpus isolated: plans on the isolated CPU, ncpu 1" "$out"

out=$(FSCONC_TEST_CPU_SYSFS="$S/none" "$FSCONC" run --dry-run $CAL \
    --cpus isolated 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'no isolated CPUs' &&
    ok "--cpus isolated without isolated CPUs: exit 2" ||
    not_ok "--cpus isolated without isolated CPUs: exit 2" "rc=$rc $out"

out=$(FSCONC_TEST_CPU_SYSFS="$S/bad" "$FSCONC" run --dry-run $CAL 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "isolated CPUs: bad CPU list \"1-x\"" &&
    ok "malformed isolated list: refused by name" ||
    not_ok "malformed isolated list: refused by name" "rc=$rc $out"

for bad in "" all 1- 3-1 65536 "0;1"; do
	out=$("$FSCONC" run --dry-run $CAL --cpus "$bad" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$out" | grep -q -- "--cpus" ||
	    { not_ok "--cpus '$bad': exit 2" "rc=$rc $out"; continue; }
	ok "--cpus '$bad': exit 2"
done
out=$("$FSCONC" run --dry-run $CAL --cpus 4095 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'CPUs 4095: not online' &&
    ok "--cpus naming an absent CPU: exit 2" ||
    not_ok "--cpus naming an absent CPU: exit 2" "rc=$rc $out"

if ! command -v taskset >/dev/null 2>&1; then
	skip "taskset runs" "no taskset"
	exit 0
fi
# An affinity of CPU 0 only, as isolcpus=1 gives every process.
out=$(FSCONC_TEST_CPU_SYSFS="$S/iso" taskset -c 0 "$FSCONC" run $CAL -j 1,2 \
    -r 1 -R "$S/r1" 2>&1); rc=$?
set=$(last_set "$S/r1")
[ $rc -eq 0 ] && echo "$out" | grep -q '^oversubscribed: -j 2 on 1 CPUs' &&
    echo "$out" | grep -q '^cpus: workers on 0, the affinity inherited, .*(isolated 1, nohz_full none); CPUs 1-* outside it' &&
    grep -qx 'cpu.affinity=0' "$set/meta" && grep -qx 'cpu.isolated=1' "$set/meta" &&
    grep -qx 'cpu.nohz_full=none' "$set/meta" && grep -qx 'cpus=inherited' "$set/meta" &&
    grep -qx 'oversubscribed=2' "$set/meta" &&
    ok "affinity narrowed: flagged oversubscribed, said in summary and meta" ||
    not_ok "affinity narrowed: flagged oversubscribed, said in summary and meta" "rc=$rc $out"

# --cpus online widens the controller: each worker on its own CPU.
out=$(taskset -c 0 "$FSCONC" run $CAL -j 1,2 -r 1 --cpus 0-1 -R "$S/r2" 2>&1); rc=$?
set=$(last_set "$S/r2")
w=$(awk -F'\t' '$1 == 2 { printf "%s:%s:%s ", $4, $11, $12 }' "$set/workers.tsv" 2>/dev/null)
[ $rc -eq 0 ] && ! echo "$out" | grep -q oversubscribed &&
    grep -qx 'oversubscribed=no' "$set/meta" && grep -qx 'cpus=0-1' "$set/meta" &&
    [ "$w" = "0:0:0 1:1:1 " ] &&
    ok "--cpus 0-1 under taskset -c 0: workers on CPUs 0 and 1" ||
    not_ok "--cpus 0-1 under taskset -c 0: workers on CPUs 0 and 1" "rc=$rc w=$w $out"

# --cpus isolated: the one worker on the isolated CPU, unbound too.
out=$(FSCONC_TEST_CPU_SYSFS="$S/iso" taskset -c 0 "$FSCONC" run $CAL -j 1 -r 1 \
    --bind none --cpus isolated -R "$S/r3" 2>&1); rc=$?
set=$(last_set "$S/r3")
w=$(awk -F'\t' '$1 == 1 { printf "%s:%s ", $11, $12 }' "$set/workers.tsv" 2>/dev/null)
[ $rc -eq 0 ] && [ "$w" = "1:1 " ] && grep -qx 'cpus=isolated' "$set/meta" &&
    grep -qx 'cpuset=1' "$set/meta" &&
    ok "--cpus isolated --bind none: the worker runs on the isolated CPU" ||
    not_ok "--cpus isolated --bind none: the worker runs on the isolated CPU" "rc=$rc w=$w $out"
