# Isolated CPUs in an emulated 2-CPU guest booted with isolcpus=1
# (scripts/manycpu): without --cpus a -j 2 run is flagged oversubscribed,
# with --cpus online it has both CPUs and with --cpus isolated its
# worker is on CPU 1; then a 3-CPU guest booted with isolcpus=1-2, where
# --cpus isolated puts -j 2 on CPUs 1 and 2, unflagged
# (tests/manycpu/isolcpus.sh).  Skipped, not failed, where no guest can
# be had.  About 2-7 minutes on a 2-core host (6.5 at load 16-26); its
# timings mean nothing and are not checked.
# suite-timeout: 800
# suite-background: yes
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "isolcpus=1 guest" "needs root (9p, modules)"
	exit 0
fi
work=$(scratch)
cd "$work" || exit 1
limit=380
# guest SMP ISOLATED CHECKS: one guest, its checks and the time it took.
guest() {
	start=$(date +%s)
	out=$(FSCONC_TOP="$TOP" sh "$TOP/scripts/manycpu" --one-thread --tmpfs-only \
	    --smp "$1" --mem 1024 \
	    --append "isolcpus=$2" --share "$TOP" --timeout "$limit" -- \
	    env FSCONC="$FSCONC" FSCONC_TOP="$TOP" TEST_MATCH="${TEST_MATCH:-}" sh "$TOP/tests/manycpu/isolcpus.sh" 2>&1)
	rc=$?
	took=$(($(date +%s) - start))
	if [ $rc -eq 77 ]; then
		skip "isolcpus=$2 guest" "$(echo "$out" | sed -n 's/^manycpu: cannot run a guest here: //p' | tail -n 1)"
		return 1
	fi
	echo "$out"
	echo "# host load after the $1-CPU guest: $(cut -d' ' -f1-3 /proc/loadavg)"
	_t=$(echo "$out" | grep -c -e '^ok ' -e '^not ok ')
	# -k: the guest printed only the checks selected (TEST_MATCH).
	{ [ "$_t" -eq "$3" ] || { [ -n "${TEST_MATCH:-}" ] &&
	    ! echo "$out" | grep -q '^not ok '; }; } && ok "the $1-CPU isolcpus=$2 guest ran every check (${took}s, qemu status $rc)" ||
	    not_ok "the $1-CPU isolcpus=$2 guest ran every check (${took}s, qemu status $rc)" \
	    "$(echo "$out" | tail -n 20)"
}
# One isolated CPU of 2; then two of 3, where --cpus isolated runs -j 2.
guest 2 1 4 && guest 3 1-2 3
pgrep -f "path=$work," >/dev/null &&
    not_ok "no qemu left behind" "$(pgrep -af "path=$work,")" ||
    ok "no qemu left behind"
