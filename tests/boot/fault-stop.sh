# Sourced by tests/boot/guest.sh at every boot after the first: at the
# campaign's second boot, the administrator runs `fsconc campaign stop`
# as the machine comes up: before or while fsconc's unit resumes the
# campaign (the two start together), as a user's would.
if [ "$(wc -l <$d/boots.log)" -eq 3 ] && [ -e $R/campaign/active ]; then
	$F campaign stop -R $R >$d/stop.out 2>&1
	echo $? >$d/stop.rc
fi
