# A boot campaign on a real Debian 12 machine (scripts/bootguest): its
# own disk, GRUB, systemd, Debian's kernel, QEMU running on across its
# reboots.  Inside it, as root and with no test-only variable, the
# first boot installs fsconc and runs `fsconc campaign start` with the
# kexec method (the cheapest real one: no firmware, no boot loader):
# configuration A with maxcpus=1, B with both vCPUs, 2 boots each.
# fsconc's own systemd unit resumes the campaign at each boot and
# kexecs the next; after the last, the guest records its state and
# powers off (tests/boot/guest.sh).  Checked: every boot ran its
# configuration, A's on 1 CPU and B's on 2; the report's EC(2) of B
# minus A over boots; and the machine as it was: command line, no
# kexec image loaded, no fsconc unit, /etc unchanged but for what
# fsconc wrote and took back.  tests/boot/run has the other methods and
# the faults (make check-boot).  Skipped, with the reason, where no
# guest can be had.
# suite-timeout: 1500
# suite-exclusive: yes
. "$FSCONC_TOP/tests/lib.sh"
. "$TOP/tests/boot/lib.sh"

if ! is_root; then
	skip "a campaign on a real boot" "needs root (scripts/bootguest)"
	exit 0
fi
why=$(sh "$TOP/scripts/bootguest" --check 2>&1 >/dev/null); rc=$?
if [ $rc -eq 77 ]; then
	skip "a campaign on a real boot" "$(echo "$why" | sed -n 's/^bootguest: cannot run a guest here: //p' | tail -n 1)"
	exit 0
fi
# The image, built once (cached; minutes the first time).
if ! img=$(sh "$TOP/scripts/bootguest" build 2>"$_scratch_root/build.err"); then
	not_ok "the guest image" "$(cat "$_scratch_root/build.err")"
	echo "1..$_t"
	exit 0
fi
boot_check "$(scratch)" kexec 2 1400
echo "1..$_t"
