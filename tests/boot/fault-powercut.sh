# Sourced by tests/boot/guest.sh at every boot after the first: at the
# campaign's first boot, once fsconc's unit has journalled its run,
# tell the host (DIR/cut.now), which then kills QEMU: a power cut in
# the middle of the run.
if [ "$(wc -l <$d/boots.log)" -eq 2 ] && [ -e $R/campaign/active ]; then
	# Renamed whole: the host acts on the name at once.
	journal_at '^run ' >$d/cut.tmp
	sync
	mv $d/cut.tmp $d/cut.now
	sync
fi
