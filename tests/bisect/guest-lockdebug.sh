# Run by the Debian guest of tests/bisect/lockdebug at every boot, as
# root, from its share (/mnt/bootguest, $d), as boot.sh.
#
# First boot (QEMU -kernel, the plain kernel): installs what the share
# brings (fsconc, git, the kernel tree's history, the two configs, and
# $d/make as /usr/local/bin/make: tests/bisect/guest-make, which stands
# in for the kernel's `make olddefconfig`, there being no compiler in
# the guest), then runs `fsconc campaign start` on $d/campaign.in, which
# builds both configurations (its build recipe copies the host's
# bzImage) and kexecs the first boot.  Every later boot is the
# campaign's: its own unit (fsconc-campaign.service) runs the boot's
# run and kexecs the next; this script only records the boot and, once
# the campaign is over (no $R/campaign/active), writes its report,
# status, journal and build log into the share and powers off.  Each
# boot is timed in $d/times.
d=/mnt/bootguest
R=/var/lib/fsconc
me=/var/lib/fsconc-lockdebug-test
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
n=$(wc -l <$d/boots.log)
echo "boot $n release $(uname -r) at $(date +%s.%N) uptime" \
    "$(cut -d' ' -f1 /proc/uptime)" >>$d/times

off() {
	echo "off $n $1 at $(date +%s.%N)" >>$d/times
	sync
	systemctl poweroff
	exit 0
}

if [ ! -e $me/started ]; then
	mkdir -p $me /usr/local/bin /usr/lib/git-core
	install -m 0755 $d/fsconc /usr/local/bin/fsconc
	install -m 0755 $d/git /usr/local/bin/git
	install -m 0755 $d/make /usr/local/bin/make
	ln -sf /usr/local/bin/git /usr/lib/git-core/git
	# A local clone lists the source's refs through git-upload-pack.
	ln -sf git /usr/local/bin/git-upload-pack
	# Only the top Makefile of the commit is checked out in the
	# campaign's clone: the build copies a bzImage built on the host,
	# and 80,000 files written under emulation would cost minutes.
	mkdir -p /usr/share/git-core/templates/info
	printf '/Makefile\n' >/usr/share/git-core/templates/info/sparse-checkout
	printf '[core]\n\tsparseCheckout = true\n' >/etc/gitconfig
	t=$(date +%s)
	rm -rf /root/linux.git
	cp -r $d/linux.git /root/linux.git || off "copy-of-the-tree-failed"
	echo "tree-copied $n $(($(date +%s) - t)) s" >>$d/times
	cp $d/plain.config $d/lockdebug.config $me/
	cp $d/campaign.in $me/c.campaign
	touch $me/started
	echo "start $n at $(date +%s.%N)" >>$d/times
	sync
	# Builds both configurations and kexecs the first boot: this
	# script ends there.
	fsconc campaign start -R $R $me/c.campaign >$d/start.out 2>&1
	rc=$?
	echo "start-exit $n $rc at $(date +%s.%N)" >>$d/times
	# 0: systemctl kexec is under way; a power-off now would race it.
	[ $rc -ne 0 ] || { sleep 600; off "no-kexec-after-start"; }
	off "start-failed"
fi
# The campaign's unit runs this boot; wait for the campaign to end (a
# kexec ends this script first), an hour at most.
w=0
while [ -e $R/campaign/active ] && [ $w -lt 3600 ]; do
	# The journal so far, for a run cut off before the end.
	cp $R/campaign/"$(cat $R/campaign/active 2>/dev/null)"/journal \
	    $d/journal.tmp 2>/dev/null && mv $d/journal.tmp $d/journal
	sleep 5
	w=$((w + 5))
done
if [ -e $R/campaign/active ]; then
	fsconc campaign status -R $R >$d/status.txt 2>&1
	off "still-active-after-${w}s"
fi
# Its unit has finished, or is finishing: let it end first.
while systemctl is-active -q fsconc-campaign.service; do
	sleep 1
done
id=$(cd $R/campaign && for i in *; do [ -d "$i" ] && echo "$i"; done |
    tail -n 1)
fsconc campaign report -R $R --id "$id" --json >$d/report.json 2>$d/report.err
fsconc campaign report -R $R --id "$id" >$d/report.txt 2>>$d/report.err
fsconc campaign status -R $R --id "$id" >$d/status.txt 2>&1
cp $R/campaign/"$id"/journal $d/journal 2>/dev/null
cp $R/campaign/"$id"/build.log $d/build.log 2>/dev/null
mkdir -p $d/config
cp $R/campaign/"$id"/config/* $d/config/ 2>/dev/null
off over
