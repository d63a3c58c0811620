# Run by the Debian guest of tests/bisect/run at every boot, as root,
# from its share (/mnt/bootguest, $d), as boot.sh.
#
# First boot: installs what the share brings (fsconc, git, the archive,
# the kernel tree's history), writes the bisect file and runs `fsconc
# bisect start`, which kexecs the good commit's kernel.  Every later
# boot is the bisect's: its own resume hook (fsconc-campaign.service)
# runs, builds (a copy of the host-built bzImage) and kexecs the next
# kernel; this script only records the boot and, once the bisect is
# over (no $R/bisect/active), writes its report into the share and
# powers off.  Each boot is timed in $d/times.
d=/mnt/bootguest
R=/var/lib/fsconc
me=/var/lib/fsconc-bisect-test
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
n=$(wc -l <$d/boots.log)
echo "boot $n release $(uname -r) at $(date +%s.%N) uptime" \
    "$(cut -d' ' -f1 /proc/uptime) cmdline $(cat /proc/cmdline)" >>$d/times

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
	ln -sf /usr/local/bin/git /usr/lib/git-core/git
	# A local clone lists the source's refs through git-upload-pack,
	# found in PATH: the git binary is it under that name.
	ln -sf git /usr/local/bin/git-upload-pack
	# Only the top Makefile of each commit is checked out: the build
	# copies a bzImage built on the host, and writing the 80,000 files
	# of a kernel tree under emulation would cost minutes per bisect.
	# A clone made by fsconc takes info/sparse-checkout from git's
	# template directory.
	mkdir -p /usr/share/git-core/templates/info
	printf '/Makefile\n' >/usr/share/git-core/templates/info/sparse-checkout
	printf '[core]\n\tsparseCheckout = true\n' >/etc/gitconfig
	cp $d/small.tar $me/small.tar
	t=$(date +%s)
	rm -rf /root/linux.git
	cp -r $d/linux.git /root/linux.git || off "copy-of-the-tree-failed"
	echo "tree-copied $n $(($(date +%s) - t)) s" >>$d/times
	sed "s|@ARCHIVE@|$me/small.tar|" $d/bisect.in >$me/t.bisect
	touch $me/started
	echo "start $n at $(date +%s.%N)" >>$d/times
	sync
	# Builds the good commit and kexecs it: this script ends there.
	fsconc bisect start -R $R $me/t.bisect >$d/start.out 2>&1
	rc=$?
	echo "start-exit $n $rc at $(date +%s.%N)" >>$d/times
	# 0: systemctl kexec is under way; a power-off now would race it.
	[ $rc -ne 0 ] || { sleep 600; off "no-kexec-after-start"; }
	off "start-failed"
fi
# The resume hook runs this boot; wait for the bisect to end (a kexec
# ends this script first), an hour at most.
w=0
while [ -e $R/bisect/active ] && [ $w -lt 3600 ]; do
	# The journal so far, for a run cut off before the end.
	cp $R/bisect/"$(cat $R/bisect/active 2>/dev/null)"/journal \
	    $d/journal.tmp 2>/dev/null && mv $d/journal.tmp $d/journal
	sleep 5
	w=$((w + 5))
done
if [ -e $R/bisect/active ]; then
	fsconc bisect status -R $R >$d/status.txt 2>&1
	off "still-active-after-${w}s"
fi
id=$(cd $R/bisect && for i in *; do [ -d "$i" ] && echo "$i"; done | tail -n 1)
fsconc bisect report -R $R --id "$id" --json >$d/report.json 2>$d/report.err
fsconc bisect report -R $R --id "$id" >$d/report.txt 2>>$d/report.err
cp $R/bisect/"$id"/journal $d/journal 2>/dev/null
off over
