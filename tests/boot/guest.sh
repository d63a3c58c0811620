# Run by the Debian guest of scripts/bootguest at every boot, as root,
# from its share (/mnt/bootguest, $d): a user's boot campaign.  The
# first boot installs fsconc as an administrator would, records the
# machine's boot state and /etc, and runs `fsconc campaign start`, which
# installs its unit and reboots.  Every later boot is fsconc's: this
# script only waits, while the campaign is active, for fsconc's unit to
# run it and reboot.  Once the campaign is over it records the state
# again, the campaign's status and report, reboots once more (the
# machine's own reboot: its default entry), records the boot state and
# /etc there, and powers off.  No test-only variable is set anywhere.
d=/mnt/bootguest
R=/var/lib/fsconc
F=/usr/local/bin/fsconc
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
kver=$(uname -r)

# The boot state a campaign must leave as it found it.
bootstate() {
	echo "cmdline $(sed 's/ fsconc\.[a-z]*=[^ ]*//g' /proc/cmdline)"
	# GRUB itself leaves "next_entry=" (empty) once it used a one-shot.
	echo "grubenv $(grub-editenv /boot/grub/grubenv list 2>/dev/null |
	    grep -v '^next_entry=$' | tr '\n' ' ')"
	if [ -d /sys/firmware/efi ]; then
		echo "oneshot $(bootctl status 2>/dev/null |
		    sed -n 's/^ *Oneshot entry: *//p')"
		echo "default $(bootctl status 2>/dev/null |
		    sed -n 's/^ *Default entry: *//p')"
		echo "loaderconf $(tr '\n' ' ' </boot/efi/loader/loader.conf)"
	fi
	echo "kexec_loaded $(cat /sys/kernel/kexec_loaded)"
	echo "units $(systemctl list-unit-files 'fsconc*' --no-legend 2>/dev/null |
	    tr -s ' \n' '  ')"
	echo "enabled $(ls /etc/systemd/system/*.wants 2>/dev/null |
	    grep fsconc | tr '\n' ' ')"
}
etcsums() {
	find /etc -xdev -type f ! -path /etc/ld.so.cache -print0 |
	    sort -z | xargs -0 sha256sum
	find /etc -xdev -type l -printf '%p -> %l\n' | sort
}

# For the faults: wait (10 minutes at most) until the active campaign's
# journal ends in a line matching the regex $1; print that line.
journal_at() {
	_j=$R/campaign/$(cat $R/campaign/active)/journal
	_i=0
	until tail -n 1 "$_j" 2>/dev/null | grep -q "$1" || [ $_i -ge 6000 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	tail -n 1 "$_j"
}

if [ ! -e $d/started ]; then
	echo "first boot: $(date -u +%T) $kver"
	install -o root -g root -m 0755 $d/fsconc $F
	install -d -o root -g root -m 0755 $R
	sed "s/@KVER@/$kver/g" $d/campaign.in >/root/c.campaign
	[ ! -f $d/prepare.sh ] || . $d/prepare.sh
	bootstate >$d/state.before
	etcsums >$d/etc.before
	touch $d/started
	sync
	$F campaign start -R $R /root/c.campaign >$d/start.out 2>&1
	echo $? >$d/start.rc
	sync
	# A start that failed reboots nothing: the run is over.
	[ "$(cat $d/start.rc)" = 0 ] || { sync; systemctl poweroff; }
	exit 0
fi

# The boot after the campaign: the machine's default.
if [ -e $d/over ]; then
	echo "after the campaign $(date -u +%T): $(cat /proc/cmdline)"
	bootstate >$d/state.after
	etcsums >$d/etc.after
	touch $d/finished
	sync
	systemctl poweroff
	exit 0
fi
echo "boot $(date -u +%T): $(cat /proc/cmdline)"
# What systemd's journal says of fsconc's unit in this boot, as it comes
# (the boot may end in a reboot at any moment): the proof it ran.
journalctl -b -f -n all -o short-iso -u fsconc-campaign.service \
    >$d/unit.$(cat /proc/sys/kernel/random/boot_id).log 2>&1 &
[ ! -f $d/everyboot.sh ] || . $d/everyboot.sh
# fsconc's unit runs the campaign; a boot that reboots ends this loop.
while [ -e $R/campaign/active ]; do
	sleep 2
done
# Its unit has finished, or is finishing: let it end first.
while systemctl is-active -q fsconc-campaign.service; do
	sleep 1
done
echo "campaign over $(date -u +%T)"
id=$(ls -t $R/campaign | grep -v '^active' | head -n 1)
cp $R/campaign/$id/journal $d/journal 2>/dev/null
$F campaign status -R $R --id "$id" >$d/status.out 2>&1
$F campaign report -R $R --id "$id" >$d/report.out 2>&1
echo $? >$d/report.rc
$F campaign report --json -R $R --id "$id" >$d/report.json 2>$d/report.err
for s in $(sed -n 's/^done [0-9]* [0-9]* 0 //p' $d/journal); do
	n=$(basename "$s")
	mkdir -p $d/sets/$n
	cp "$s"/meta "$s"/jobs-*.real $d/sets/$n/ 2>/dev/null
done
journalctl -b -u fsconc-campaign.service --no-pager >$d/unit.log 2>&1
bootstate >$d/state.last
if [ -e $d/quick ]; then
	touch $d/over $d/finished
	sync
	systemctl poweroff
	exit 0
fi
touch $d/over
sync
systemctl reboot
