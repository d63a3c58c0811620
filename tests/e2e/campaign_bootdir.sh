# fsconc campaign start: what it refuses before the boot loader is
# touched, exit 2 with the object named, nothing written (no campaign,
# no hook, no command run): an entry name with shell or GRUB
# metacharacters, and a full /boot/grub or ESP (FSCONC_TEST_BOOT_DIR
# stands for it: a tmpfs filled up).  Reboots simulated (sim_machine).
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
sim_machine "$s"
# cfile METHOD ENTRY: a campaign booting ENTRY for A.
cfile() {
	printf 'run -w calib -O iterations=200000 -j 1 -r 1\nboots 1\nmethod %s\nconfig A\n entry %s\n cmdline maxcpus=1\nconfig B\n entry debian\n cmdline nosmt\n' \
	    "$1" "$2"
}
# nothing ROOT: no campaign, no hook, no command.
nothing() {
	[ ! -e "$1/campaign" ] && [ ! -e "$s/hook/fsconc-campaign.service" ] &&
	    [ ! -s "$s/exec.log" ]
}

n=0
for e in 'debian;reboot' 'a$(id)' 'x>y' 'a`b`' "a'b" 'a|b' 'a&b' 'a*b'; do
	n=$((n + 1))
	cfile grub-reboot "$e" >"$s/bad$n.campaign"
	out=$("$FSCONC" campaign start -R "$s/rb$n" "$s/bad$n.campaign" 2>&1); rc=$?
	case $out in *"line 5: entry '$e': holds '"*) m=1 ;; *) m=0 ;; esac
	[ $rc -eq 2 ] && [ $m -eq 1 ] && nothing "$s/rb$n" &&
	    ok "entry $e: refused, exit 2, named; nothing written, nothing run" ||
	    not_ok "entry $e: refused, exit 2, named; nothing written, nothing run" \
	    "rc=$rc $out $(cat "$s/exec.log" 2>&1; find "$s/rb$n" "$s/hook" 2>&1)"
done

# A directory that is not there: refused, named.
cfile grub-reboot debian-1cpu >"$s/ok.campaign"
out=$(FSCONC_TEST_BOOT_DIR=$s/none "$FSCONC" campaign start -R "$s/rn" \
    "$s/ok.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && nothing "$s/rn" &&
    [ "$out" = "fsconc: campaign: grub-reboot: $s/none: No such file or directory" ] &&
    ok "no /boot/grub: refused, exit 2, named; nothing written" ||
    not_ok "no /boot/grub: refused, exit 2, named; nothing written" "rc=$rc $out"

if ! is_root; then
	skip "a full /boot/grub or ESP" "needs root (a small tmpfs, filled)"
	echo "1..$_t"
	exit 0
fi
full=$s/full
mkdir "$full"
mount -t tmpfs -o size=256k,mode=0755 fsconc-bootdir "$full" || {
	not_ok "a full /boot/grub or ESP" "mount -t tmpfs on $full failed"
	echo "1..$_t"
	exit 0
}
at_exit "umount '$full'"
dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null
for m in grub-reboot systemd-boot; do
	e=debian-1cpu
	[ $m = systemd-boot ] && e=debian-1cpu.conf
	cfile $m $e >"$s/$m.campaign"
	out=$(FSCONC_TEST_BOOT_DIR=$full "$FSCONC" campaign start -R "$s/rf$m" \
	    "$s/$m.campaign" 2>&1); rc=$?
	case $out in "fsconc: campaign: $m: $full: 0 bytes free, the one-shot wants 65536: full") f=1 ;; *) f=0 ;; esac
	[ $rc -eq 2 ] && [ $f -eq 1 ] && nothing "$s/rf$m" &&
	    ok "$m, its directory full: refused before the first reboot, exit 2, named; nothing written" ||
	    not_ok "$m, its directory full: refused before the first reboot, exit 2, named; nothing written" \
	    "rc=$rc $out $(cat "$s/exec.log" 2>&1)"
done
# Room made: the same campaign starts, and reboots by its one-shot.
rm -f "$full/fill"
out=$(FSCONC_TEST_BOOT_DIR=$full "$FSCONC" campaign start -R "$s/rr" \
    "$s/grub-reboot.campaign" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '^grub-reboot ' "$s/exec.log" &&
    ok "grub-reboot, room made: started, its one-shot set" ||
    not_ok "grub-reboot, room made: started, its one-shot set" "rc=$rc $out $(cat "$s/exec.log" 2>&1)"
id=$(cat "$s/rr/campaign/active" 2>/dev/null)
[ -n "$id" ] && "$FSCONC" campaign stop -R "$s/rr" --id "$id" >/dev/null 2>&1
echo "1..$_t"
