# Behaviour at many CPUs: one emulated 16-CPU guest (2 packages of 8
# cores, 2 NUMA nodes) booted by scripts/manycpu runs tests/manycpu/checks.sh
# (topology and plans, binding, the start gate, idle accounting, disks,
# oversubscription, numa).  Skipped, not failed, where no guest can be had
# (not root, no QEMU, kernel package not downloadable).  About 2-4
# minutes on a 2-core host; its timings mean nothing and are not checked.
# suite-timeout: 900
# suite-background: yes
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "16-CPU guest" "needs root (9p, modules, disks)"
	exit 0
fi
work=$(scratch)
cd "$work" || exit 1
# Inside tests/run's limit for this suite (above), with room to report.
limit=840
start=$(date +%s)
out=$(FSCONC_TOP="$TOP" sh "$TOP/scripts/manycpu" --numa 2 --share "$TOP" \
    --timeout "$limit" -- \
    env FSCONC="$FSCONC" FSCONC_TOP="$TOP" TEST_MATCH="${TEST_MATCH:-}" sh "$TOP/tests/manycpu/checks.sh" 2>&1)
rc=$?
took=$(($(date +%s) - start))
if [ $rc -eq 77 ]; then
	skip "16-CPU guest" "$(echo "$out" | sed -n 's/^manycpu: cannot run a guest here: //p' | tail -n 1)"
	exit 0
fi
# The guest's TAP, then ours numbered after it.
echo "$out"
_t=$(echo "$out" | grep -c -e '^ok ' -e '^not ok ')
# -k: the guest printed only the checks selected (TEST_MATCH).
{ [ "$_t" -eq 28 ] || { [ -n "${TEST_MATCH:-}" ] &&
    ! echo "$out" | grep -q '^not ok '; }; } && ok "the guest ran every check (${took}s, qemu status $rc)" ||
    not_ok "the guest ran every check (${took}s, qemu status $rc)" \
    "$(echo "$out" | tail -n 20)"
# No guest outlives the suite.
pgrep -f "path=$work," >/dev/null &&
    not_ok "no qemu left behind" "$(pgrep -af "path=$work,")" ||
    ok "no qemu left behind"
