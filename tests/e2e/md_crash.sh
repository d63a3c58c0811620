# Crash safety: fsconc processes making disks are SIGKILLed at random
# points (and deliberately mid-losetup, mid-mkfs, mid-mount, mid-hot_add),
# then "fsconc md cleanup" must leave zero mounts, loop devices, zram
# devices and backing files of ours.  Also SIGINT/SIGTERM: orderly
# teardown, then death by that signal.
#
# Test-only hooks: FSCONC_MD_TEST_DELAY=SECONDS makes md-setup sleep after
# every step (record write, tool run), widening each window; wrappers put
# first in PATH make losetup, mkfs.ext4 and mount slow so that a kill
# lands while they run.
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "md crash" "needs root"
	exit 0
fi
t=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-mdcrash.XXXXXX")
export FSCONC_RUNDIR="$t/run"
finish() {
	"$FSCONC" md cleanup >/dev/null 2>&1
	findmnt -rn -o TARGET | grep -qF "$t/" || rm -rf "$t"
}
at_exit finish

have_zram=0
[ -e /sys/class/zram-control/hot_add ] && have_zram=1
zram_list() { ls -d /sys/block/zram* 2>/dev/null | sort; }
zram_before=$(zram_list)
# The zram devices that appeared since the test began.
zram_new() { zram_list | while read -r z; do
	echo "$zram_before" | grep -qx "$z" || echo "$z"; done; }

mkdir "$t/wrap"
for tool in losetup mkfs.ext4 mount; do
	real=$(PATH=$PATH:/usr/sbin:/sbin command -v $tool)
	printf '#!/bin/sh\nsleep 0.3\nexec %s "$@"\n' "$real" >"$t/wrap/$tool"
	chmod 755 "$t/wrap/$tool"
done

kills=0
# 0 when PID's grandparent is ANCESTOR: a tool's parent is fsconc's
# reaper (common/proc.c).  One pgrep a poll, as before the reaper.
grandchild() {	# PID ANCESTOR
	read -r _x _x _x _pp _x <"/proc/$1/stat" 2>/dev/null &&
	    read -r _x _x _x _gp _x <"/proc/$_pp/stat" 2>/dev/null &&
	    [ "$_gp" = "$2" ]
}
# Kill PID once a tool named TOOL runs under it (or after 5 s).
kill_during() {	# PID TOOL
	_i=0
	while [ $_i -lt 250 ]; do
		_seen=
		for _c in $(pgrep -x "$2"); do
			grandchild "$_c" "$1" && _seen=1
		done
		[ -n "$_seen" ] && break
		sleep 0.02
		_i=$((_i + 1))
	done
	kill -KILL "$1" 2>/dev/null && kills=$((kills + 1))
	wait "$1" 2>/dev/null
	[ $_i -lt 250 ]
}

# Deliberate windows: each tool of each backend, with the slow wrappers.
for spec in loop:32m zram:32m; do
	[ $spec = zram:32m ] && [ $have_zram = 0 ] && continue
	for tool in losetup mkfs.ext4 mount; do
		[ $spec = zram:32m ] && [ $tool = losetup ] && continue
		PATH="$t/wrap:$PATH" "$FSCONC" md cycle -n 3 $spec \
		    >/dev/null 2>&1 &
		if kill_during $! $tool; then
			ok "SIGKILL mid-$tool ($spec)"
		else
			not_ok "SIGKILL mid-$tool ($spec): never saw $tool"
		fi
	done
done
# The second mkfs and mount: mid-refresh.
PATH="$t/wrap:$PATH" "$FSCONC" md cycle -n 3 loop:32m >/dev/null 2>&1 &
p=$!
sleep 1.6
kill_during $p mkfs.ext4 && ok "SIGKILL mid-refresh mkfs" ||
    not_ok "SIGKILL mid-refresh mkfs"

# Random points: every step sleeps 30 ms, kills land anywhere.
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
i=0
for spec in loop:32m tmpfs:32m dir loop:32m zram:32m loop:32m tmpfs:32m \
    zram:32m loop:32m dir loop:32m zram:32m loop:32m tmpfs:32m loop:32m \
    zram:32m loop:32m tmpfs:32m zram:32m loop:32m; do
	[ $spec = zram:32m ] && [ $have_zram = 0 ] && spec=loop:32m
	delay=$(awk -v s=$seed -v i=$i 'BEGIN { srand(s + i); printf "%.2f", rand() * 0.9 }')
	FSCONC_MD_TEST_DELAY=0.03 "$FSCONC" md cycle -n 5 $spec >/dev/null 2>&1 &
	p=$!
	sleep "$delay"
	kill -KILL $p 2>/dev/null && kills=$((kills + 1))
	wait $p 2>/dev/null
	i=$((i + 1))
done
[ $kills -ge 20 ] && ok "$kills SIGKILLs delivered (seed $seed)" ||
    not_ok "at least 20 SIGKILLs" "only $kills"

# The last one dies with its disk mounted: only "md cleanup" can undo it.
FSCONC_MD_TEST_DELAY=0.3 "$FSCONC" md cycle -n 3 loop:32m >/dev/null 2>&1 &
p=$!
i=0
while [ $i -lt 100 ] && ! findmnt -rn -o TARGET | grep -q "^$FSCONC_RUNDIR/$p\.[0-9]*/mnt$"; do
	sleep 0.05; i=$((i + 1))
done
kill -KILL $p; wait $p 2>/dev/null
"$FSCONC" md list | grep -q "^$p\.[0-9]*	process	$p	\(orphaned\|half-made\)	" &&
    ok "md list shows the orphaned disk" || not_ok "md list orphan" "$("$FSCONC" md list)"
out=$("$FSCONC" md cleanup 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "cleaning up disk $p\." &&
    ok "md cleanup exits 0, names what it undid" || not_ok "md cleanup" "rc=$rc $out"
l=$(findmnt -rn -o TARGET | grep -F "$t/")
[ -z "$l" ] && ok "no mounts left" || not_ok "no mounts left" "$l"
l=$(losetup -a | grep -F "$t/")
[ -z "$l" ] && ok "no loop devices left" || not_ok "no loop devices left" "$l"
l=$(find "$FSCONC_RUNDIR" -name disk.img 2>/dev/null)
[ -z "$l" ] && ok "no backing files left" || not_ok "no backing files left" "$l"
l=$(ls -A "$FSCONC_RUNDIR/state" 2>/dev/null)
[ -z "$l" ] && ok "no records left" || not_ok "no records left" "$l"
l=$(ls -A "$FSCONC_RUNDIR" | grep -v -e '^lock$' -e '^state$')
[ -z "$l" ] && ok "no directories left" || not_ok "no directories left" "$l"
# Other users of this machine may add zram devices meanwhile: only
# devices that appeared during the test and hold nothing are suspects.
if [ $have_zram = 1 ]; then
	sleep 0.2
	new=$(zram_new)
	[ -z "$new" ] && ok "no zram devices left" ||
	    not_ok "no zram devices left" "$new $(zramctl)"
fi

# Killed after hot_add, before the record names the device: the number
# written down before ("zram-add N") lets cleanup remove it.  The test
# delay holds the process in that window for a second; a kill that came
# late (a loaded machine) is tried again.
in_window() { grep -qs '^res zram-add ' "$FSCONC_RUNDIR"/state/*.rec &&
	[ -n "$(zram_new)" ]; }
if [ $have_zram = 1 ]; then
	hit=0 try=0
	while [ $hit = 0 ] && [ $try -lt 3 ]; do
		try=$((try + 1))
		FSCONC_MD_TEST_DELAY=1 "$FSCONC" md cycle -n 1 zram:32m \
		    >/dev/null 2>&1 &
		p=$!
		wait_until in_window
		kill -KILL $p; wait $p 2>/dev/null
		in_window && hit=1
		dev=$(zram_new)
		out=$("$FSCONC" md cleanup 2>&1); rc=$?
	done
	l=$(zram_new; ls -A "$FSCONC_RUNDIR/state")
	[ $hit = 1 ] && [ $rc -eq 0 ] && [ -n "$dev" ] && [ -z "$l" ] &&
	    ok "SIGKILL between hot_add and its record: $dev removed (try $try)" ||
	    not_ok "SIGKILL between hot_add and its record" \
	    "hit=$hit rc=$rc dev=$dev left: $l $out"
fi

# --- SIGTERM and SIGINT: orderly teardown, then death by the signal -------
# A record written in full (renamed into place, not empty): the handlers
# are in and a disk is on its way.
has_record() {
	for _r in "$FSCONC_RUNDIR"/state/*.rec; do
		[ -s "$_r" ] && return 0
	done
	return 1
}
for sig in TERM INT; do
	FSCONC_MD_TEST_DELAY=0.05 env --default-signal=INT \
	    "$FSCONC" md cycle -n 50 loop:32m >"$t/sig.out" 2>&1 &
	p=$!
	wait_until has_record
	kill -$sig $p
	wait $p; rc=$?
	case $sig in TERM) want=143 ;; INT) want=130 ;; esac
	l=$(findmnt -rn -o TARGET | grep -F "$t/"; losetup -a | grep -F "$t/";
	    ls -A "$FSCONC_RUNDIR/state")
	if [ $rc -eq $want ] && [ -z "$l" ]; then
		ok "SIG$sig: torn down before dying (status $rc)"
	else
		not_ok "SIG$sig teardown" "rc=$rc left: $l $(cat "$t/sig.out")"
	fi
done
# A disk made by "md create" survives a later SIGINT-free exit, and an
# interrupted "md create" leaves nothing.
FSCONC_MD_TEST_DELAY=0.1 "$FSCONC" md create loop:32m >/dev/null 2>&1 &
p=$!
wait_until has_record
kill -TERM $p; wait $p
l=$(findmnt -rn -o TARGET | grep -F "$t/"; ls -A "$FSCONC_RUNDIR/state")
[ -z "$l" ] && ok "SIGTERM mid 'md create': nothing left" ||
    not_ok "SIGTERM mid md create" "$l"
