#!/bin/sh
# What takes "foreign" CPU time beside a run in a freshly booted machine:
# the Debian guest of scripts/bootguest (2 vCPUs, TCG), the archive and
# fsconc put on its own disk at a first boot, which then powers off; at
# the second boot (cold page cache, every boot-time job of the image
# due) `fsconc run -a inc.tar -j 1,2 -r 3 --disk tmpfs:1g` runs at once,
# and again once the guest has been up 330 s.  fsconc's warnings name
# the other processes of each disturbed batch; besides, a sampler
# copies /proc/stat and every /proc/PID/stat every FB_SAMPLE seconds
# (default 5; 0: none) so that bench/freshboot_who.py can say who took
# the CPU time over the run (the sampler's cat and sh are its own cost:
# about half a second of CPU a sample under TCG).
#   sh bench/freshboot.sh [OUTDIR]      (as root; ARCHIVE=, UNMASK=1,
#                                        FB_MEM= MB, default 2560: the
#                                        guest needs 1 GiB free for
#                                        tmpfs:1g)
# UNMASK=1 first unmasks the timers the image's recipe masks (apt-daily,
# e2scrub, fstrim, dpkg-db-backup), as a stock Debian has them.
# Leaves OUTDIR/share/{run1,run2}/ (fsconc's set, stderr, samples, the
# units that ran) and prints freshboot_who.py's tables.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-/tmp/freshboot}
mkdir -p "$out/share" "$out/state"
share=$out/share
fs=${FSCONC:-$top/fsconc}
[ -x "$fs" ] || { echo "freshboot: build fsconc first (make)" >&2; exit 1; }
sh "$top/scripts/bootguest" --check >/dev/null 2>&1 || {
	echo "freshboot: skipped: no guest here (scripts/bootguest --check)"
	exit 0
}
if [ -n "${ARCHIVE:-}" ]; then
	cp "$ARCHIVE" "$share/inc.tar"
elif [ ! -s "$share/inc.tar" ]; then
	tar -C /usr -cf "$share/inc.tar" include
fi
cp "$fs" "$share/fsconc"
echo "${UNMASK:-0}" >"$share/unmask"
echo "${FB_SAMPLE:-5}" >"$share/sample"
cat >"$share/boot.sh" <<'EOF'
d=/mnt/bootguest
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
if [ ! -e $d/prepared ]; then
	install -m 0755 $d/fsconc /usr/local/bin/fsconc
	cp $d/inc.tar /root/inc.tar
	if [ "$(cat $d/unmask)" = 1 ]; then
		for u in e2scrub_all.timer e2scrub_reap.service apt-daily.timer \
		    apt-daily-upgrade.timer dpkg-db-backup.timer fstrim.timer; do
			rm -f /etc/systemd/system/$u
		done
	fi
	systemctl list-unit-files --state=enabled >$d/enabled.txt 2>&1
	touch $d/prepared
	sync
	systemctl poweroff
	exit 0
fi
every=$(cat $d/sample)
sampler() {
	while [ "$every" -gt 0 ]; do
		echo "@ $(cat /proc/uptime)"
		cat /proc/stat /proc/[0-9]*/stat 2>/dev/null
		sleep "$every"
	done >"$1/samples"
}
one() {
	o=$d/$1
	mkdir -p $o
	cat /proc/uptime >$o/uptime.start
	systemctl list-jobs --no-pager >$o/jobs.start 2>&1
	systemctl list-units --no-pager --state=running >$o/running.start 2>&1
	systemctl list-timers --all --no-pager >$o/timers.start 2>&1
	sampler $o &
	sp=$!
	sleep 2
	echo "$(cat /proc/uptime) start" >$o/marks
	fsconc run -R /root/res --label $1 -a /root/inc.tar -j 1,2 -r 3 \
	    --disk tmpfs:1g >$o/stdout 2>$o/stderr
	echo $? >$o/rc
	echo "$(cat /proc/uptime) end" >>$o/marks
	sleep 2
	kill $sp
	wait $sp 2>/dev/null
	cp -r /root/res/*/$1/* $o/set
	journalctl -b -o short-monotonic --no-pager >$o/journal 2>&1
}
one run1
while [ "$(cut -d. -f1 /proc/uptime)" -lt 330 ]; do sleep 5; done
one run2
sync
systemctl poweroff
EOF
# Boot 1 prepares and powers off; boot 2 is the fresh boot measured.
for b in 1 2; do
	sh "$top/scripts/bootguest" --mem "${FB_MEM:-2560}" --timeout 1500 \
	    boot "$out/state" "$share" || {
		echo "freshboot: boot $b failed" >&2
		rm -rf "$out/state"
		exit 1
	}
done
rm -f "$share/inc.tar" "$share/fsconc"
rm -rf "$out/state"
for r in run1 run2; do
	echo "== $r: fsconc's warnings and summary"
	grep -h 'disturb' "$share/$r/stderr" "$share/$r/stdout" || :
	[ "$(cat "$share/sample")" -gt 0 ] &&
	    python3 "$top/bench/freshboot_who.py" "$share/$r"
done
