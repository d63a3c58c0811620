# Sourced by tests/boot/guest.sh at every boot after the first: at the
# campaign's first boot, once fsconc's unit has journalled its run,
# tell the host (DIR/cut.now), which then kills QEMU: a power cut in
# the middle of the run.
if [ "$(wc -l <$d/boots.log)" -eq 2 ] && [ -e $R/campaign/active ]; then
	j=$R/campaign/$(cat $R/campaign/active)/journal
	i=0
	until tail -n 1 "$j" 2>/dev/null | grep -q '^run ' || [ $i -ge 3000 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	tail -n 1 "$j" >$d/cut.now
	sync
fi
