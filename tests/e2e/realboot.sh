# make check's real boot: one short boot campaign in the Debian guest of
# scripts/bootguest (tests/boot/lib.sh), started inside it by root with
# no test-only variable: method kexec (the quickest real one: no
# firmware, no boot loader), 2 configurations (A: maxcpus=1, B: both
# vCPUs) x 1 boot, a tiny workload (-j 1,2 -r 2 of a 6 MiB archive of
# 300 entries, made here and copied to /root at the first boot, not
# the 32 MiB default that the guest would make under emulation).  One
# boot a
# configuration is enough here: fsconc's second boot is already
# scheduled from a boot its own unit started (the chain's steady
# state), and its figures are not judged; rounds of several boots a
# configuration through real reboots are e2e/campaign_guest's (3 x 2,
# command method) and tests/long's boot-* items' (3 x 2, every method).
# 2 x 2 boots took 5 guest boots, 614 s of make check's 678.
# Checked: each boot is a new boot (its boot id), systemd started
# fsconc's unit in each (the boot's own journal says so), each boot's
# run left its result set on its configuration's CPUs (A's on 1, B's on
# 2), the campaign finished and took its unit and kexec image away.
# make check-boot (tests/boot/run) has every method and fault.
# The guest image is not built here (3-6 minutes cold): without a cached
# image for the current recipe this skips, saying how to make one
# (.ci/run makes it before make check).
# Under TCG on this 2-CPU host (at 2 x 2 boots): about 4 minutes when
# it is quiet, 9 to 13 beside make check's lanes (tests/run stretches the limit with the
# load at its start, which is low: the lanes load the host after).  Its
# figures are not judged, so it runs beside the lanes, and its guest
# runs both vCPUs on one host thread (scripts/bootguest --one-thread).
# suite-timeout: 1260
# suite-background: yes
. "$FSCONC_TOP/tests/lib.sh"
. "$TOP/tests/boot/lib.sh"

if ! is_root; then
	skip "a campaign through real boots" "needs root (scripts/bootguest)"
	echo "1..$_t"
	exit 0
fi
why=$(sh "$TOP/scripts/bootguest" --check 2>&1)
case $? in
0)	;;
77)	skip "a campaign through real boots" "$(echo "$why" |
	    sed -n 's/^bootguest: cannot run a guest here: //p' | tail -n 1)"
	echo "1..$_t"
	exit 0 ;;
*)	not_ok "scripts/bootguest --check" "$why"
	echo "1..$_t"
	exit 0 ;;
esac
case $why in
*"no image yet"*)
	skip "a campaign through real boots" "no cached guest image for this recipe (sh scripts/bootguest build makes it, 3-6 minutes)"
	echo "1..$_t"
	exit 0 ;;
esac

# The binary make installs (no test hooks), as a user has it.
FSCONC=$FSCONC_PLAIN
w=$(scratch)
s=$w/share
# The guest's limit stretches with the host's load by tests/run's factor
# (a loaded host is slow, not hung): 1200 s a CPU's worth of load, the
# load of the lanes that start with it included.
k=${FSCONC_SUITE_SCALE:-1}
start=$(date +%s)
nb=1			# boots a configuration
nf=$((2 * nb))		# fsconc's boots
ng_want=$((nf + 1))	# and the user's first
mkdir -p "$s"
"$FSCONC" mkarchive -n 300 -b 6m "$s/a.tar" >/dev/null 2>&1 ||
    not_ok "mkarchive $s/a.tar"
echo 'cp $d/a.tar /root/a.tar' >"$w/prepare.sh"
# fsconc's boots start none of the units that its campaign, its run
# and this suite's script do without (systemd.mask= on their command
# line): 11 that took 10-21 s each at the first boot under emulation
# (systemd-analyze blame, host load 20), and the serial console's
# getty.  Not logind: fsconc's "systemctl kexec" goes through it, as on
# a user's machine.
# The user's first boot too (it installs fsconc, records the state and
# starts the campaign: no more than fsconc's boots need), with BG_FAST's
# disk wait (systemd's 90 s for /dev/vda2 sent it to emergency mode at
# host load 20), booted by QEMU itself (BG_DIRECT, scripts/bootguest
# --direct): the image's default entry, its kernel, initrd and command
# line, plus these words, without SeaBIOS's disk reads and GRUB's menu.
# The same boot for what is checked here: the campaign's method is
# kexec, which takes the running command line and loads the kernel
# itself, and no boot of this suite goes through the firmware (quick:
# no plain reboot after); the boot loaders' paths are make check-boot's
# and tests/long's (boot-grub-reboot, boot-systemd-boot, the faults).
lean=
for u in kexec-load.service serial-getty@ttyS0.service \
    modprobe@drm.service modprobe@fuse.service modprobe@efi_pstore.service \
    modprobe@dm_mod.service modprobe@loop.service modprobe@configfs.service \
    dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount \
    sys-kernel-tracing.mount; do
	lean="$lean systemd.mask=$u"
done
# The guest's kernel on one CPU (A) and on both (B), with BG_FAST's words;
# the campaign's boot-timeout stretched by the load, as the suite's.
BG_DIRECT="$BG_FAST$lean" BG_QUICK=1 BG_ONE_THREAD=1 \
    BG_PREPARE=$w/prepare.sh BG_CONFIGS="A B" \
    BG_CMDLINE="$BG_FAST$lean" BG_BOOT_TIMEOUT=$((15 * k))m \
    BG_RUN="-a /root/a.tar -j 1,2 -r 2 --disk tmpfs:64m --disturb-limit off" \
    boot_campaign "$w" kexec "$nb" $((1200 * k)) >"$w/boot.out" 2>&1
brc=$?
took=$(($(date +%s) - start))
j=$s/journal
ng=$(wc -l <"$s/boots.log" 2>/dev/null || echo 0)
echo "# 2 configurations x $nb boots by kexec: $ng guest boots in ${took}s"
why="bootguest $brc; $(cat "$w/boot.out" "$s/start.out" "$j" "$s/boot.log" 2>&1 | tail -n 40)"

# (start.rc may be missing: start's reboot can end the guest's script
# before it writes it; the journal says the start went through.)
if [ $brc -eq 0 ] && [ -e "$s/finished" ] && grep -q '^start ' "$j" &&
    grep -q '^finish ' "$j" && [ "$(grep -c '^done [0-9]* [0-9]* 0 ' "$j")" -eq $nf ] &&
    [ "$ng" -eq $ng_want ]; then
	ok "kexec, 2 x $nb boots: the campaign finished, each boot's run done (${took}s)"
else
	not_ok "kexec, 2 x $nb boots: the campaign finished, each boot's run done (${took}s)" "$why"
fi

# The user's boot, then fsconc's, each a new one; fsconc scheduled each
# of its boots from the boot before.
ids=$(cut -d ' ' -f 3 "$s/boots.log" 2>/dev/null)
sched=$(sed -n 's/^schedule [0-9]* [0-9]* \([^ ]*\) .*/\1/p' "$j" 2>/dev/null)
if [ "$(echo "$ids" | sort -u | grep -c .)" -eq $ng_want ] &&
    [ "$sched" = "$(echo "$ids" | head -n $nf)" ]; then
	ok "$ng_want boots, $ng_want boot ids; each of fsconc's $nf boots scheduled from the one before"
else
	not_ok "$ng_want boots, $ng_want boot ids; each of fsconc's $nf boots scheduled from the one before" \
	    "boots: $(cat "$s/boots.log" 2>&1); scheduled from: $sched"
fi

# systemd started the unit fsconc installed, in each of its boots: that
# boot's journal, followed from inside it.
n=0 bad=
for id in $(echo "$ids" | sed -n '2,$p'); do
	if grep -q 'Started fsconc-campaign.service' "$s/unit.$id.log" 2>/dev/null &&
	    grep -q 'verified: running' "$s/unit.$id.log"; then
		n=$((n + 1))
	else
		bad="$bad $id: $(tail -n 5 "$s/unit.$id.log" 2>&1)"
	fi
done
[ $n -eq $nf ] &&
    ok "systemd started fsconc-campaign.service in each of fsconc's $nf boots, and it ran the boot's run" ||
    not_ok "systemd started fsconc-campaign.service in each of fsconc's $nf boots, and it ran the boot's run" "$bad"

# A result set per boot, A's on 1 CPU and B's on 2, each with its
# timings at -j 1 and -j 2.
got=
for set in "$s"/sets/*; do
	[ -s "$set/meta" ] && [ -s "$set/jobs-1.real" ] && [ -s "$set/jobs-2.real" ] ||
	    continue
	got="$got $(sed -n 's/^campaign_config=//p' "$set/meta")/$(sed -n 's/^ncpu=//p' "$set/meta")"
done
want=$(i=0; while [ $i -lt $nb ]; do echo A/1; echo B/2; i=$((i + 1)); done |
    sort | tr '\n' ' ')
[ "$(echo $got | tr ' ' '\n' | sort | tr '\n' ' ')" = "$want" ] &&
    ok "a result set for each boot, A's on 1 CPU, B's on 2:$got" ||
    not_ok "a result set for each boot, A's on 1 CPU, B's on 2:$got" "$(ls -R "$s/sets" 2>&1)"

# The campaign over: no fsconc unit, no kexec image, GRUB's state as it
# was (the command line is the campaign's last boot's: not compared).
fault_after "kexec, 2 x $nb boots"
echo "1..$_t"
