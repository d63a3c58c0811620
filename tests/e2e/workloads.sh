# fsconc run with readtest, tree, syscall, memcpy and devbw on a dir:
# disk (no root needed), their refusals of bad parameters, devbw on a raw
# loop device and fsconc limits (root).
. "$FSCONC_TOP/tests/lib.sh"

S=$(scratch)
export FSCONC_RUNDIR="$S/rundir"
mkdir -p -m 700 "$FSCONC_RUNDIR"
mkdir -p "$S/d"

set_of() { ls -d "$1"/*/*/*/ 2>/dev/null | head -n 1; }
# positive FILE: every line of FILE is a number > 0.
positive() {
	[ -s "$1" ] && awk '!($1 > 0) { bad = 1 } END { exit bad }' "$1"
}

# run_wl NAME METRIC OPTIONS...: two levels, two reps, --verify; the
# k-th call's set is under $S/r-k.
_k=0
run_wl() {
	_n=$1 _m=$2 _k=$((_k + 1)); shift 2
	_o=$("$FSCONC" run -w "$_n" "$@" -j 1,2 -r 2 --verify \
	    --disk "dir:$S/d" -R "$S/r-$_k" 2>&1); _rc=$?
	_set=$(set_of "$S/r-$_k")
	if [ $_rc -eq 0 ] && [ -n "$_set" ] && positive "$_set/jobs-1.$_m" &&
	    positive "$_set/jobs-2.$_m" &&
	    [ "$(wc -l <"$_set/jobs-2.$_m")" -eq 2 ] &&
	    ! grep -v '^#' "$_set/workers.tsv" | grep -qv '	ok	' &&
	    grep -qx "workload=$_n" "$_set/meta"; then
		ok "run -w $_n: jobs-N.$_m > 0, every worker ok"
	else
		not_ok "run -w $_n: jobs-N.$_m > 0, every worker ok" \
		    "rc=$_rc $_o $(cat "$_set/workers.tsv" 2>/dev/null)"
	fi
}

run_wl readtest bytes_per_s -O size=8m -O bs=32k -O count=500
run_wl readtest reads_per_s -O size=8m -O pattern=random -O io=pread \
    -O file=per-worker -O count=500
run_wl readtest bytes_per_s -O size=4m -O io=mmap -O count=100
run_wl tree copy_files_per_s -O files=200 -O size=2k
run_wl tree remove_s -O files=200 -O shared=1
run_wl syscall ns_per_op -O op=stat -O duration=0.05
run_wl syscall ops_per_s -O op=null -O duration=0.05
run_wl memcpy nt_uncached_bytes_per_s -O duration=0.02 -O uncached=16m
run_wl devbw write_bytes_per_s -O size=8m

set=$(set_of "$S/r-1")
grep -qx 'readtest.bs=32K' "$set/meta" && grep -qx 'readtest.pattern=seq' \
    "$set/meta" && ok "readtest: options in meta" ||
    not_ok "readtest: options in meta" "$(cat "$set/meta")"

# refuse NAME WANT ARGS...: exits non-zero, says WANT, leaves no set.
refuse() {
	_n=$1 _w=$2; shift 2
	_o=$("$FSCONC" run "$@" -j 1 -r 1 --disk "dir:$S/d" -R "$S/bad" 2>&1)
	_rc=$?
	if [ $_rc -ne 0 ] && echo "$_o" | grep -q -- "$_w"; then
		ok "refused: $_n"
	else
		not_ok "refused: $_n" "rc=$_rc $_o"
	fi
}
refuse "readtest bs=0" "bs=0: must be at least 1" -w readtest -O bs=0
refuse "readtest pattern" "expected seq|random" -w readtest -O pattern=zig
refuse "readtest bs > size" "larger than size" -w readtest -O size=1m \
    -O bs=2m
refuse "tree unknown option" "unknown option 'depth'" -w tree -O depth=2
refuse "syscall op" "expected null|stat|open" -w syscall -O op=fork
refuse "memcpy cached >= uncached" "must be smaller" -w memcpy \
    -O cached=64m -O uncached=32m
refuse "devbw raw on a dir: disk" "needs a block device" -w devbw \
    -O target=raw
refuse "devbw bs" "multiple of 4k" -w devbw -O bs=1000
[ ! -d "$S/bad" ] || [ -z "$(ls -A "$S/bad")" ] ||
    ls "$S"/bad/*/*/*/runs.tsv >/dev/null 2>&1 &&
    ok "refusals leave no batches" || not_ok "refusals leave no batches"

# --- root: devbw on fsconc's own loop device, limits ---------------------
if ! is_root; then
	skip "refused: readtest file larger than the disk" "needs root (tmpfs)"
	skip "devbw target=raw on a loop device" "needs root"
	skip "limits" "needs root for a memory disk"
	skip "limits: a failed probe" "needs root for a memory disk"
elif ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip "devbw target=raw on a loop device" "losetup or mkfs.ext4 missing"
	skip "limits" "losetup or mkfs.ext4 missing"
	skip "limits: a failed probe" "losetup or mkfs.ext4 missing"
else
	o=$("$FSCONC" run -w devbw -O target=raw -O size=16m -j 1,2 -r 2 \
	    --verify --disk loop:128m -R "$S/raw" 2>&1); rc=$?
	set=$(set_of "$S/raw")
	if [ $rc -eq 0 ] && positive "$set/jobs-2.write_bytes_per_s" &&
	    positive "$set/jobs-2.read_bytes_per_s"; then
		ok "devbw target=raw on a loop device"
	else
		not_ok "devbw target=raw on a loop device" "rc=$rc $o"
	fi
	o=$("$FSCONC" run -w readtest -O size=48m -j 1 -r 1 --disk tmpfs:32m \
	    -R "$S/big" 2>&1); rc=$?
	if [ $rc -ne 0 ] && echo "$o" | grep -q "has .* free, the files need 48M"
	then
		ok "refused: readtest file larger than the disk"
	else
		not_ok "refused: readtest file larger than the disk" "rc=$rc $o"
	fi
	o=$("$FSCONC" limits -j 2 --disk loop:256m -o "$S/limits" 2>&1); rc=$?
	if [ $rc -eq 0 ] && echo "$o" | grep -q '^null system call' &&
	    grep -q '^memcpy.uncached.2=' "$S/limits" &&
	    grep -q '^syscall.open.1=' "$S/limits" &&
	    grep -q '^devbw.raw.write.2=' "$S/limits" &&
	    grep -q '^readtest.bytes_per_s=' "$S/limits"; then
		ok "limits: table and -o file"
	else
		not_ok "limits: table and -o file" "rc=$rc $o $(cat "$S/limits")"
	fi
	# devbw's 64M file cannot fit: reported, the rest measured, exit 1.
	o=$("$FSCONC" limits -j 1 --disk tmpfs:32m 2>&1); rc=$?
	if [ $rc -eq 1 ] && echo "$o" | grep -q '^file system write.*(failed)' &&
	    echo "$o" | grep -q '^null system call.* ns'; then
		ok "limits: a failed probe is reported and the exit status is 1"
	else
		not_ok "limits: a failed probe is reported and the exit status is 1" \
		    "rc=$rc $o"
	fi
fi
o=$("$FSCONC" limits --json -j 1 --disk "dir:$S/d" 2>"$S/o.err"); rc=$?
if [ $rc -eq 0 ] && echo "$o" | grep -q '"key": "syscall.null"' &&
    echo "$o" | grep -q '"devbw.raw.write".*null' &&
    /usr/bin/python3 -c 'import json, sys; json.loads(sys.argv[1])' "$o"; then
	ok "limits --json on a dir: disk (raw skipped)"
else
	not_ok "limits --json on a dir: disk (raw skipped)" "rc=$rc $o $(cat "$S/o.err")"
fi

# Nothing of ours left mounted or attached.
if findmnt -rn -o TARGET | grep -q "^$FSCONC_RUNDIR" ||
    { command -v losetup >/dev/null && losetup -a | grep -q "$FSCONC_RUNDIR"; }; then
	not_ok "nothing left mounted or attached" "$(findmnt | grep "$FSCONC_RUNDIR")"
else
	ok "nothing left mounted or attached"
fi
