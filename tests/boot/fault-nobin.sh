# Sourced by tests/boot/guest.sh at every boot after the first.  At the
# campaign's first boot, once fsconc's unit has scheduled the second,
# the fsconc binary the unit runs is removed (as a package removal
# would, before the reboot).  At the second, systemd's unit fails; the
# machine is watched a minute for any reboot, then the administrator
# puts fsconc back and stops the campaign.
n=$(wc -l <$d/boots.log)
if [ "$n" -eq 2 ] && [ -e $R/campaign/active ]; then
	l=$(journal_at '^schedule 2 ')
	rm -f $F
	sync
	[ -e $F ] || echo "removed at $(date -u +%T) after: $l" >$d/removed
	sync
elif [ "$n" -eq 3 ] && [ ! -e $F ]; then
	i=0
	until systemctl is-failed -q fsconc-campaign.service || [ $i -ge 600 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	id0=$(cat /proc/sys/kernel/random/boot_id)
	systemctl show -p Result -p ExecMainStatus -p NRestarts \
	    fsconc-campaign.service >$d/nobin.show 2>&1
	# Nothing restarts it, nothing reboots: a minute of the same boot.
	sleep 60
	systemctl show -p NRestarts fsconc-campaign.service >$d/nobin.later 2>&1
	[ "$(cat /proc/sys/kernel/random/boot_id)" = "$id0" ] &&
	    echo "same boot after 60s: $id0" >$d/nobin.still
	journalctl -b -u fsconc-campaign.service --no-pager >$d/nobin.log 2>&1
	install -o root -g root -m 0755 $d/fsconc $F
	$F campaign stop -R $R >$d/stop.out 2>&1
	echo $? >$d/stop.rc
	sync
fi
