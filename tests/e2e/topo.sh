# fsconc topo: the topology summary and binding plans, on this machine
# and on synthetic topologies.
. "$FSCONC_TOP/tests/lib.sh"

ncpu=$(getconf _NPROCESSORS_ONLN)
out=$("$FSCONC" topo 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "^topology: .* $ncpu PUs\{0,1\}" &&
    [ "$(echo "$out" | grep -c '^worker ')" -eq "$ncpu" ] &&
    ok "this machine: summary and one worker per PU" ||
    not_ok "this machine: summary and one worker per PU" "$out"

out=$("$FSCONC" topo --synthetic "package:2 core:8 pu:2" -j 4 2>&1); rc=$?
[ $rc -eq 0 ] &&
    echo "$out" | grep -q '^topology: 2 packages, 16 cores, 32 PUs' &&
    echo "$out" | grep -q '^worker 1: cpuset 8-9 (Core L#4, package L#0)' &&
    echo "$out" | grep -q '^worker 3: cpuset 24-25 (Core L#12, package L#1)' &&
    ok "synthetic 2x8x2, scatter by core" || not_ok "synthetic 2x8x2, scatter by core" "$out"

out=$("$FSCONC" topo --synthetic "numa:4 core:16 pu:2" -j 2,4 --bind numa \
    --distrib compact 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^plan: ')" -eq 2 ] &&
    echo "$out" | grep -q '^worker 3: cpuset 0-31 .*NUMA L#0' &&
    ok "synthetic NUMA, compact, two levels" || not_ok "synthetic NUMA, compact, two levels" "$out"

out=$("$FSCONC" topo --synthetic "core:2 pu:1" -j 3 --bind pu 2>&1)
echo "$out" | grep -q 'oversubscribed (3 workers on 2 PUs)' &&
    ok "oversubscription shown" || not_ok "oversubscription shown" "$out"

out=$("$FSCONC" topo --bind none -j 2 2>&1)
echo "$out" | grep -q '^worker 1: unbound' && ok "--bind none" || not_ok "--bind none" "$out"

"$FSCONC" topo --synthetic "bogus:3" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad synthetic topology: exit 2" || not_ok "bad synthetic topology: exit 2" "rc=$rc"
"$FSCONC" topo -j 0 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad -j: exit 2" || not_ok "bad -j: exit 2" "rc=$rc"
"$FSCONC" topo --bind socket >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad --bind: exit 2" || not_ok "bad --bind: exit 2" "rc=$rc"

# A process bound with taskset plans within its binding, as nproc counts.
if command -v taskset >/dev/null 2>&1 && [ "$ncpu" -gt 1 ]; then
	out=$(taskset -c 1 "$FSCONC" topo 2>&1)
	echo "$out" | grep -q ' 1 PU, ' && echo "$out" | grep -q '^worker 0: cpuset 1 ' &&
	    [ "$(echo "$out" | grep -c '^worker ')" -eq 1 ] &&
	    ok "taskset -c 1: one PU, cpuset 1" || not_ok "taskset -c 1: one PU, cpuset 1" "$out"
else
	skip "taskset -c 1: one PU, cpuset 1" "no taskset or a single CPU"
fi
