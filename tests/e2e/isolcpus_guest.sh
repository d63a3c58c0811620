# Isolated CPUs in an emulated 2-CPU guest booted with isolcpus=1
# (scripts/manycpu): without --cpus a -j 2 run is flagged oversubscribed,
# with --cpus online it has both CPUs and with --cpus isolated its
# worker is on CPU 1 (tests/manycpu/isolcpus.sh).  Skipped, not failed,
# where no guest can be had.  About 1-3 minutes on a 2-core host; its
# timings mean nothing and are not checked.
# suite-timeout: 300
# suite-background: yes
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "isolcpus=1 guest" "needs root (9p, modules)"
	exit 0
fi
work=$(scratch)
cd "$work" || exit 1
limit=270
start=$(date +%s)
out=$(FSCONC_TOP="$TOP" sh "$TOP/scripts/manycpu" --smp 2 --mem 1024 \
    --append isolcpus=1 --share "$TOP" --timeout "$limit" -- \
    env FSCONC="$FSCONC" FSCONC_TOP="$TOP" sh "$TOP/tests/manycpu/isolcpus.sh" 2>&1)
rc=$?
took=$(($(date +%s) - start))
if [ $rc -eq 77 ]; then
	skip "isolcpus=1 guest" "$(echo "$out" | sed -n 's/^manycpu: cannot run a guest here: //p' | tail -n 1)"
	exit 0
fi
echo "$out"
_t=$(echo "$out" | grep -c -e '^ok ' -e '^not ok ')
[ "$_t" -eq 4 ] && ok "the guest ran every check (${took}s, qemu status $rc)" ||
    not_ok "the guest ran every check (${took}s, qemu status $rc)" \
    "$(echo "$out" | tail -n 20)"
pgrep -f "path=$work," >/dev/null &&
    not_ok "no qemu left behind" "$(pgrep -af "path=$work,")" ||
    ok "no qemu left behind"
