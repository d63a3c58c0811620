# Run by the Debian guest of tests/bisect/bootkernel at every boot, as
# root, from its share (/mnt/bootguest, $d), as boot.sh: one line of
# $d/plan per guest boot, in order:
#   LABEL RELEASE NEXT RUN
# LABEL names the boot's records; RELEASE is how `uname -r` must end
# (the kernel meant for this boot); NEXT is the kernel file in $d to
# kexec next (kexec -l --reuse-cmdline, then systemctl kexec), or "off"
# to power off (a NEXT not there yet is waited for, an hour at most:
# the host may be building it); RUN is "run" to run fsconc first (its arguments in
# $d/runargs, its binary $d/fsconc, its sets' times copied to
# $d/sets/N-LABEL) or "-".  Every step is timed in $d/times: wall clock
# and /proc/uptime at this script's start, the kexec's start.
d=/mnt/bootguest
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C
n=$(wc -l <$d/boots.log)
now=$(date +%s.%N)
up=$(cut -d' ' -f1 /proc/uptime)
line=$(sed -n "${n}p" $d/plan)
# shellcheck disable=SC2086
set -- $line
label=${1:-none} want=${2:-none} next=${3:-off} run=${4:--}
rel=$(uname -r)
case $rel in
*"$want") match=yes ;;
*) match=no ;;
esac
echo "boot $n $label release $rel wanted $want match $match at $now uptime $up" >>$d/times
if [ "$run" = run ] && [ $match = yes ]; then
	install -m 0755 $d/fsconc /usr/local/bin/fsconc
	# shellcheck disable=SC2046
	fsconc run -R /var/lib/fsconc --label "$label" $(cat $d/runargs) \
	    >"$d/run-$n.out" 2>&1
	echo "run $n $label exit $? at $(date +%s.%N)" >>$d/times
	set=$(sed -n 's/^result set: //p' "$d/run-$n.out")
	if [ -n "$set" ] && [ -d "$set" ]; then
		mkdir -p "$d/sets/$n-$label"
		cp "$set"/meta "$set"/jobs-*.real "$d/sets/$n-$label/"
	fi
fi
if [ "$next" = off ] || [ $match = no ]; then
	echo "off $n at $(date +%s.%N)" >>$d/times
	sync
	systemctl poweroff
	exit 0
fi
# The host may still be building it: it is moved into the share whole.
w=0
while [ ! -s "$d/$next" ] && [ $w -lt 3600 ]; do
	sleep 5
	w=$((w + 5))
done
[ $w -eq 0 ] || echo "waited $n ${w}s for $next" >>$d/times
if ! kexec -l "$d/$next" --reuse-cmdline >>$d/kexec.log 2>&1; then
	echo "kexec-load-failed $n $next" >>$d/times
	sync
	systemctl poweroff
	exit 0
fi
echo "kexec $n $next at $(date +%s.%N)" >>$d/times
sync
systemctl kexec
