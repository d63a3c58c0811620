# fsconc md: every backend's create/refresh/destroy on this machine, the
# refusals, busy devices, non-root fallback.  Disks live in a private
# FSCONC_RUNDIR; at the end nothing of ours may be mounted or attached.
. "$FSCONC_TOP/tests/lib.sh"

t=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-md.XXXXXX")
chmod 755 "$t"
export FSCONC_RUNDIR="$t/run"
finish() {
	"$FSCONC" md destroy all >/dev/null 2>&1
	# Never remove across a mount: if one is left, the test says so.
	findmnt -rn -o TARGET | grep -qF "$t/" || rm -rf "$t"
}
at_exit finish

# Anything of ours still mounted, attached or recorded.
leftovers() {
	findmnt -rn -o TARGET | grep -F "$t/"
	losetup -a 2>/dev/null | grep -F "$t/"
	ls "$FSCONC_RUNDIR/state" 2>/dev/null
	find "$FSCONC_RUNDIR" -name disk.img 2>/dev/null
}
check_clean() {	# NAME
	_l=$(leftovers)
	[ -z "$_l" ] && ok "$1" || not_ok "$1" "$_l"
}

# --- command line ---------------------------------------------------------
"$FSCONC" md frob >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "md: unknown subcommand exits 2" || not_ok "md frob" "rc=$rc"
"$FSCONC" md create --bogus >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "md create: bad option exits 2" || not_ok "md create --bogus" "rc=$rc"
err=$("$FSCONC" md create floppy:1g 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown disk backend 'floppy'" &&
    ok "md create: bad spec exits 2 with the reason" || not_ok "bad spec" "rc=$rc $err"
out=$("$FSCONC" md create --dry-run --os freebsd --newfs-opts -U md:malloc:512m)
exp='md=$(mdconfig -a -t malloc -o reserve -s 512m -L fsconc-$$.0)
newfs -U /dev/$md'
echo "$out" | grep -A1 '^md=' | head -2 | { read -r a; read -r b
    [ "$a
$b" = "$exp" ]; } && ok "dry-run: FreeBSD md sequence" || not_ok "dry-run freebsd" "$out"
# FreeBSD's ext2fs(5) driver mounts ext2/3/4: mount -t ext4 names no vfs.
out=$("$FSCONC" md create --dry-run --os freebsd --fs ext4 md:malloc:512m)
echo "$out" | grep -q '^mount -t ext2fs /dev/$md /.*/mnt$' &&
    ! echo "$out" | grep -q 'mount -t ext4' &&
    ok "dry-run: FreeBSD mounts ext4 as ext2fs" ||
    not_ok "dry-run freebsd ext4 mount" "$out"
[ -z "$(leftovers)" ] && ok "dry-run creates nothing" ||
    not_ok "dry-run creates nothing" "$(leftovers)"

if ! is_root; then
	for s in loop zram tmpfs busy refusals; do skip "md $s" "needs root"; done
	exit 0
fi

# --- every backend: create, refresh twice (empty + writable), destroy ------
# "md cycle" checks after create and each refresh that the fs is empty
# (but for lost+found) and writable, and fails otherwise.
cycle() {	# NAME SPEC [fsconc options]
	_n=$1; shift
	_o=$("$FSCONC" md cycle -n 2 "$@" 2>&1); _rc=$?
	if [ $_rc -eq 0 ] && echo "$_o" | grep -q '^destroy_seconds='; then
		ok "$_n: create, 2 refreshes (empty, writable), destroy"
	else
		not_ok "$_n: create, refresh, destroy" "rc=$_rc $_o"
	fi
	_dev=$(echo "$_o" | sed -n 's/^disk_device=//p')
	check_clean "$_n: nothing left in findmnt, losetup -a, records"
	case $_dev in
	/dev/zram*)
		zramctl -n -o NAME 2>/dev/null | grep -qx "$_dev" &&
		    not_ok "$_n: $_dev removed" "$(zramctl)" ||
		    ok "$_n: $_dev reset and hot_removed" ;;
	/dev/loop*)
		losetup -a | grep -q "^$_dev:.*$t" &&
		    not_ok "$_n: $_dev detached" || ok "$_n: $_dev detached" ;;
	esac
}

cycle "loop ext4" loop:64m
for fs in xfs btrfs; do
	case $fs in xfs) sz=320m ;; *) sz=128m ;; esac
	if command -v mkfs.$fs >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.$fs ] ||
	    [ -x /sbin/mkfs.$fs ]; then
		cycle "loop $fs" loop:$sz --fs $fs
	else
		skip "loop $fs" "mkfs.$fs not installed"
	fi
done
if [ -e /sys/class/zram-control/hot_add ]; then
	cycle "zram ext4" zram:64m
	cycle "zram lz4 btrfs" zram:128m:lz4 --fs btrfs
else
	skip "zram" "no /sys/class/zram-control in this kernel"
fi
cycle "tmpfs" tmpfs:64m
cycle "dir (default place)" dir
cycle "dir:PATH" "dir:$t/d"
[ ! -e "$t/d" ] && ok "dir:PATH made by fsconc is removed" || not_ok "dir:PATH removed"
mkdir "$t/e"
cycle "dir:PATH existing, empty" "dir:$t/e"
[ -d "$t/e" ] && ok "adopted dir:PATH is left in place" || not_ok "adopted dir kept"

# brd: the test machine may have no brd; then it must say so plainly.
if [ -e /dev/ram0 ]; then
	cycle "brd" brd
else
	err=$("$FSCONC" md create brd:64m 2>&1); rc=$?
	[ $rc -eq 1 ] && echo "$err" | grep -q "brd module is not loaded" &&
	    ok "brd: not available, said plainly, exit 1" || not_ok "brd message" "rc=$rc $err"
	check_clean "brd: nothing left"
fi

# --- user disks: create stays, list, cleanup spares it, destroy ------------
line=$("$FSCONC" md create loop:64m); rc=$?
id=${line%%	*}; mnt=${line#*	}
if [ $rc -eq 0 ] && findmnt -rn -o TARGET | grep -qx "$mnt"; then
	ok "md create prints id and mountpoint, mounted"
else
	not_ok "md create" "rc=$rc $line"
fi
echo hello >"$mnt/f" && ok "user disk writable" || not_ok "user disk writable"
"$FSCONC" md list | grep -q "^$id	user	.*kept	loop:64M ext4	/dev/loop" &&
    ok "md list shows the kept disk" || not_ok "md list" "$("$FSCONC" md list)"
"$FSCONC" md cleanup 2>/dev/null
[ -f "$mnt/f" ] && ok "md cleanup spares user disks" || not_ok "cleanup spared user disk"
desc=$("$FSCONC" md create tmpfs:32m 2>&1) && id2=${desc%%	*}
"$FSCONC" md destroy "$id"; rc=$?
[ $rc -eq 0 ] && ! findmnt -rn -o TARGET | grep -qx "$mnt" &&
    ok "md destroy ID" || not_ok "md destroy ID" "rc=$rc"
"$FSCONC" md destroy all; rc=$?
[ $rc -eq 0 ] && ok "md destroy all ($id2)" || not_ok "md destroy all" "rc=$rc"
check_clean "user disks: nothing left"
"$FSCONC" md destroy 999.9 2>/dev/null; rc=$?
[ $rc -eq 1 ] && ok "md destroy unknown id exits 1" || not_ok "destroy unknown" "rc=$rc"

# A running process's disk is not anyone else's to destroy.  It cycles
# until the SIGTERM below, however fast a refresh is.
"$FSCONC" md cycle -n 1000000 tmpfs:16m >/dev/null 2>&1 &
p=$!
i=0
while [ $i -lt 50 ] && ! "$FSCONC" md list | grep -q "^$p\.0	"; do
	sleep 0.05; i=$((i + 1))
done
err=$("$FSCONC" md destroy $p.0 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "in use by running process $p" &&
    ok "md destroy refuses a running process's disk" ||
    not_ok "destroy of a live disk" "rc=$rc $err"
err=$("$FSCONC" md destroy all 2>&1)
"$FSCONC" md list | grep -q "^$p\.0	" &&
    ok "md destroy all spares a running process's disk" ||
    not_ok "destroy all spared the live disk"
kill -TERM $p; wait $p
check_clean "SIGTERM: the running process tore its disk down"

# --- failures: clear message, exit 1, nothing left -----------------------------
fails() {	# NAME PATTERN ARGS...
	_n=$1; _p=$2; shift 2
	_before=$(leftovers)
	_e=$("$FSCONC" md create "$@" 2>&1); _rc=$?
	if [ $_rc -eq 1 ] && echo "$_e" | grep -q -- "$_p"; then
		ok "$_n: exit 1, says '$_p'"
	else
		not_ok "$_n" "rc=$_rc $_e"
	fi
	_after=$(leftovers)
	[ "$_before" = "$_after" ] && ok "$_n: nothing left" ||
	    not_ok "$_n: nothing left" "$_after"
}
fails "missing mkfs" "mkfs.nosuchfs not found" loop:64m --fs nosuchfs
fails "size beyond memory" "does not fit in available memory" loop:64t
fails "tmpfs beyond memory" "does not fit in available memory" tmpfs:64t
[ -e /sys/class/zram-control/hot_add ] &&
    fails "zram unknown algorithm" "this kernel's algorithms" zram:64m:nosuch
# mkfs.xfs refuses a 16 MiB device: the loop, tmpfs and dirs are undone.
fails "mkfs fails mid-create" "mkfs.xfs" loop:16m --fs xfs
fails "mount fails mid-create" "mount -t ext4" loop:64m --mount-opts no_such_option
# tmpfs is mounted by mount(2) when its options are all tmpfs's own, by
# mount(8) when one is a flag only mount(8) translates: both as asked.
fails "tmpfs mount(2) fails mid-create" \
    "mount tmpfs on $FSCONC_RUNDIR/.*/mnt (-o size=64m,nr_inodes=bogus): Invalid argument" \
    tmpfs:64m --mount-opts nr_inodes=bogus
for o in mode=0701,nr_inodes=5000 noatime,mode=0701; do
	_id=$("$FSCONC" md create --mount-opts $o tmpfs:64m | cut -f 1)
	_m=$(findmnt -rn -o OPTIONS "$FSCONC_RUNDIR/$_id/mnt")
	case $o in
	noatime*) _want='noatime.*mode=701' ;;
	*) _want='nr_inodes=5000,mode=701' ;;
	esac
	echo "$_m" | grep -q "$_want" &&
	    ok "tmpfs --mount-opts $o: mounted as asked" ||
	    not_ok "tmpfs --mount-opts $o: mounted as asked" "$_id: $_m"
	"$FSCONC" md destroy "$_id" >/dev/null
done
check_clean "tmpfs --mount-opts: nothing left"

# Per-worker disks add up: the third 10G tmpfs does not fit in 24G.
avail=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
per=$((avail / 2 + 1))
_b=$(leftovers)
err=$("$FSCONC" md cycle -n 1 --disks 3 tmpfs:${per}g 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$err" | grep -q "plus [0-9.]*G of this run's other disks does not fit"; then
	ok "per-worker disks: their sizes add up against available memory"
else
	not_ok "per-worker memory sum" "rc=$rc $err"
fi
[ "$(leftovers)" = "$_b" ] && ok "per-worker refusal: the disks made are undone" ||
    not_ok "per-worker refusal cleanup" "$(leftovers)"
out=$("$FSCONC" md cycle -n 2 --disks 3 loop:32m 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^refresh_seconds=')" -eq 6 ] &&
    ok "per-worker: 3 loop disks, 2 refreshes each" || not_ok "per-worker 3 disks" "rc=$rc $out"
check_clean "per-worker: nothing left"

# --- what would make the records lie: exit 2, nothing made --------------------
refused() {	# NAME PATTERN ARGS...
	_n=$1; _p=$2; shift 2
	_before=$(leftovers)
	_e=$("$FSCONC" md create "$@" 2>&1); _rc=$?
	if [ $_rc -eq 2 ] && echo "$_e" | grep -q -- "$_p" &&
	    [ "$(leftovers)" = "$_before" ]; then
		ok "$_n: exit 2, says '$_p', nothing made"
	else
		not_ok "$_n" "rc=$_rc $_e"
	fi
}
refused "tmpfs size in --mount-opts (1G mounted, 64M recorded)" \
    "the size of a tmpfs disk is the spec's" tmpfs:64m --mount-opts size=1g
refused "mkfs -d fills the fresh fs" "fills the new file system" \
    --newfs-opts -d/etc loop:64m
refused "tmpfs:1k (was 1M)" "would be rounded" tmpfs:1k
refused "dir: path leaving through .." "leaves where it claims to be" \
    "dir:$t/a/../../../etc/fsconc-newdir"
[ ! -e /etc/fsconc-newdir ] && ok "dir: .. path: /etc untouched" ||
    not_ok "dir: .. path: /etc untouched"
refused "--disks beyond the bound" "out of range (0..1024)" --dry-run --disks 99999 tmpfs:16m
refused "create --disks without --dry-run (made one)" "only with --dry-run" \
    --disks 3 tmpfs:16m
out=$("$FSCONC" md cycle -n 1 tmpfs:64m 2>&1)
echo "$out" | grep -qx 'disk_fs_bytes=67108864' &&
    ok "tmpfs: the mounted size is read back into disk_fs_bytes" ||
    not_ok "disk_fs_bytes read back" "$out"

# --- refusals --------------------------------------------------------------
fails "dir:/ refused" "root directory" dir:/
mkdir "$t/full" && echo precious >"$t/full/keep"
fails "non-empty dir refused" "not empty and not created by fsconc" "dir:$t/full"
[ "$(cat "$t/full/keep")" = precious ] && ok "non-empty dir untouched" || not_ok "precious file"
ln -s "$t/full" "$t/link"
fails "symlink refused" "symbolic link" "dir:$t/link"
line=$("$FSCONC" md create tmpfs:16m) && tmnt=${line#*	}
fails "mount root refused" "root of a mounted file system" "dir:$tmnt"
line=$("$FSCONC" md create "dir:$t/mine") && did=${line%%	*}
fails "dir of another fsconc disk refused" "in use by fsconc disk $did" "dir:$t/mine"
"$FSCONC" md destroy all
# dir:PATH that appears between the check and our mkdir is someone else's:
# create held at its record until the test has made the directory.
FSCONC_MD_TEST_GATE=tree:$t/race.go "$FSCONC" md create "dir:$t/race" >/dev/null 2>&1 &
rp=$!
race_rec() { grep -qs '^res tree .*/race$' "$FSCONC_RUNDIR"/state/*.rec; }
wait_until race_rec; seen=$?
mkdir "$t/race" && echo theirs >"$t/race/keep"
: >"$t/race.go"
wait $rp; rc=$?
[ $seen -eq 0 ] && [ $rc -eq 1 ] &&
    [ "$(cat "$t/race/keep" 2>/dev/null)" = theirs ] &&
    ok "dir:PATH made by another between check and mkdir is left alone" ||
    not_ok "dir:PATH race" "rc=$rc record seen: $seen $(ls -A "$t/race" 2>&1)"
# A record naming things outside the runtime directory is refused.
mkdir -p "$FSCONC_RUNDIR/state"
printf 'id 4194999.0\npid 4194999\nstart 1\nowner process\ncomplete 1\nbackend loop\nspec loop:1G ext4\nres dir /etc\nres mount /\nres file /etc/hostname\n' \
    >"$FSCONC_RUNDIR/state/4194999.0.rec"
err=$("$FSCONC" md cleanup 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "outside .*refusing to touch it" &&
    [ -f /etc/hostname ] && findmnt -rn -o TARGET | grep -qx / &&
    ok "cleanup refuses records naming paths outside its directory" ||
    not_ok "forged record" "rc=$rc $err"
rm -f "$FSCONC_RUNDIR/state/4194999.0.rec"
# An md record's label must be one of ours: mdconfig -lv ends an unlabelled
# unit's line with an empty label, which an empty record label matched.
mkdir "$t/fakebin"
cat >"$t/fakebin/mdconfig" <<EOF
#!/bin/sh
case \$1 in
-l) printf 'md0\\tmalloc\\t1024M\\t-\\t\\n' ;;
*) echo "\$@" >>"$t/mdconfig.log" ;;
esac
EOF
chmod 755 "$t/fakebin/mdconfig"
printf 'id 4194002.0\npid 4194002\nstart 1\nowner process\ncomplete 1\nbackend md\nspec md:malloc:1G ufs\nres md \n' \
    >"$FSCONC_RUNDIR/state/4194002.0.rec"
err=$(PATH="$t/fakebin:$PATH" "$FSCONC" md cleanup 2>&1); rc=$?
[ $rc -eq 1 ] && [ ! -e "$t/mdconfig.log" ] &&
    echo "$err" | grep -q "md record: bad label" &&
    ok "cleanup refuses an md record whose label is not fsconc's" ||
    not_ok "forged md label" "rc=$rc $err $(cat "$t/mdconfig.log" 2>&1)"
rm -f "$FSCONC_RUNDIR/state/4194002.0.rec"
# The signal handler runs "md cleanup --pid OURS": pids reach 2^22 on Linux.
mkdir "$FSCONC_RUNDIR/4194001.0"
printf 'id 4194001.0\npid 4194001\nstart 1\nowner process\ncomplete 0\nbackend dir\nspec dir\nres dir %s\n' \
    "$FSCONC_RUNDIR/4194001.0" >"$FSCONC_RUNDIR/state/4194001.0.rec"
err=$("$FSCONC" md cleanup --pid 4194001 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$FSCONC_RUNDIR/4194001.0" ] &&
    [ ! -e "$FSCONC_RUNDIR/state/4194001.0.rec" ] &&
    ok "cleanup --pid takes a pid above 10^6" ||
    not_ok "cleanup --pid 4194001" "rc=$rc $err"

# Out of descriptors when mount(8) is to run (noatime: not mount(2)'s):
# undone, not exit(3) mid-way.
# python3 closes what the test harness left open, then caps descriptors.
err=$(/usr/bin/python3 -c 'import os, resource, sys
os.closerange(3, 65536)
lim = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (6, lim[1]))
os.execv(sys.argv[1], sys.argv[1:])' "$FSCONC" md create --mount-opts noatime \
    tmpfs:16m 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "mount .*: pipe: Too many open files" &&
    [ -z "$(ls "$FSCONC_RUNDIR/state")" ] &&
    ok "no descriptors for a tool: error names it, the disk is undone" ||
    not_ok "EMFILE in md_run" "rc=$rc $err $(ls "$FSCONC_RUNDIR/state")"
"$FSCONC" md destroy all 2>/dev/null
# --- dir: disks whose content resists removal --------------------------------
# chattr +i / +a (restored by default as root from archives) on files and
# directories of a dir: disk: destroy clears them and removes it all.
protected() {	# NAME PARENT
	_line=$("$FSCONC" md create "dir:$2/prot") || { not_ok "$1: create"; return; }
	_id=${_line%%	*}
	mkdir "$2/prot/sub" "$2/prot/empty" && echo x >"$2/prot/imm" &&
	    echo y >"$2/prot/sub/app" && echo z >"$2/prot/sub/imm2"
	if ! chattr +i "$2/prot/imm" 2>/dev/null; then
		skip "$1: chattr +i/+a cleared and removed" "no chattr flags on $(findmnt -n -o FSTYPE -T "$2")"
		"$FSCONC" md destroy "$_id"
		return
	fi
	chattr +a "$2/prot/sub/app" && chattr +i "$2/prot/sub/imm2" &&
	    chattr +a "$2/prot/sub" && chattr +i "$2/prot/empty" &&
	    chattr +a "$2/prot"
	_e=$("$FSCONC" md destroy "$_id" 2>&1); _rc=$?
	if [ $_rc -eq 0 ] && [ ! -e "$2/prot" ]; then
		ok "$1: chattr +i/+a cleared and removed"
	else
		not_ok "$1: chattr +i/+a cleared and removed" "rc=$_rc $_e"
		chattr -R -i -a "$2/prot" 2>/dev/null
		"$FSCONC" md destroy "$_id" >/dev/null 2>&1
	fi
}
if command -v chattr >/dev/null 2>&1; then
	protected "dir: on $(findmnt -n -o FSTYPE -T "$t")" "$t"
	line=$("$FSCONC" md create loop:64m) && pmnt=${line#*	}
	protected "dir: on ext4" "$pmnt"
	line=$("$FSCONC" md create tmpfs:16m) && pmnt=${line#*	}
	protected "dir: on tmpfs" "$pmnt"
	"$FSCONC" md destroy all
else
	skip "dir: chattr +i/+a" "no chattr (e2fsprogs)"
fi
# A tree deeper than PATH_MAX (4096): removed by descriptor.
line=$("$FSCONC" md create "dir:$t/deep") && did=${line%%	*}
/usr/bin/python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(600):
	os.mkdir("0123456789abcdef", dir_fd=fd)
	sub = os.open("0123456789abcdef", os.O_RDONLY, dir_fd=fd)
	os.close(fd)
	fd = sub
os.close(os.open("leaf", os.O_WRONLY | os.O_CREAT, dir_fd=fd))' "$t/deep"
err=$("$FSCONC" md destroy "$did" 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$t/deep" ] && ok "dir: a tree deeper than PATH_MAX removed" ||
    not_ok "dir: a tree deeper than PATH_MAX removed" "rc=$rc $(echo "$err" | cut -c1-300)"
# What no teardown can undo (a mount inside) keeps its record; "md forget"
# retires it and says what stays.
line=$("$FSCONC" md create "dir:$t/held") && hid=${line%%	*}
mkdir "$t/held/m" && mount -t tmpfs none "$t/held/m"
"$FSCONC" md destroy "$hid" >/dev/null 2>&1; rc=$?
err=$("$FSCONC" md forget "$hid" 2>&1); rc2=$?
"$FSCONC" md cleanup >/dev/null 2>&1; rc3=$?
umount "$t/held/m"
if [ $rc -eq 1 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] &&
    echo "$err" | grep -q "left in place: tree $t/held" &&
    ! "$FSCONC" md list | grep -q "^$hid	"; then
	ok "md forget retires a record no teardown can undo"
else
	not_ok "md forget" "rc=$rc rc2=$rc2 rc3=$rc3 $err"
fi
rm -rf "$t/held"

# --- busy: umount EBUSY is retried, then the holders are named ------------
line=$("$FSCONC" md create tmpfs:16m); bid=${line%%	*}; bmnt=${line#*	}
(cd "$bmnt" && exec sleep 30) &
holder=$!
sleep 0.2
err=$("$FSCONC" md destroy "$bid" 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$err" | grep -q "umount $bmnt.*busy" &&
    { ! command -v fuser >/dev/null || echo "$err" | grep -q "held by"; }; then
	ok "busy: exit 1, says busy and who holds it"
else
	not_ok "busy umount" "rc=$rc $err"
fi
"$FSCONC" md list | grep -q "^$bid	" && ok "busy: record kept for a retry" ||
    not_ok "busy record kept"
kill $holder; wait $holder 2>/dev/null
"$FSCONC" md destroy "$bid" && ok "busy: destroy succeeds once released" ||
    not_ok "destroy after release"
check_clean "busy: nothing left"

# --- not root: falls back to a directory, with a warning ------------------
nb="$t/nobody"
mkdir -p "$nb" && chown 65534:65534 "$nb"
asnobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    env FSCONC_RUNDIR="$nb/run" HOME="$nb" "$@"
}
out=$(asnobody "$FSCONC" md cycle -n 1 2>"$t/nb.err"); rc=$?
if [ $rc -eq 0 ] && grep -q "not root" "$t/nb.err" &&
    echo "$out" | grep -q '^disk_backend=dir' &&
    echo "$out" | grep -q '^disk_fresh=0'; then
	ok "not root: default falls back to dir, warns, records not fresh"
else
	not_ok "not root fallback" "rc=$rc $out $(cat "$t/nb.err")"
fi
for s in loop:64m zram:64m tmpfs:64m; do
	err=$(asnobody "$FSCONC" md create $s 2>&1); rc=$?
	[ $rc -eq 1 ] && echo "$err" | grep -q "need root" &&
	    ok "not root: $s refused clearly" || not_ok "not root $s" "rc=$rc $err"
done
ls "$nb/run/state" 2>/dev/null | grep -q . && not_ok "not root: nothing left" ||
    ok "not root: nothing left"
check_clean "end: nothing of ours mounted, attached or recorded"
