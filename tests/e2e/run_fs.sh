# fsconc run with the extract workload on real disks: dir: (any user),
# tmpfs and loop+ext4 (root), shared and per-worker layouts, thread mode,
# --verify, a corrupt archive, ^C in the middle; nothing left behind.
. "$FSCONC_TOP/tests/lib.sh"

S=$(scratch)
export FSCONC_RUNDIR="$S/rundir"
mkdir -m 700 "$FSCONC_RUNDIR"
set_of() { ls -d "$1"/*/*/*/ 2>/dev/null | head -n 1; }
# Every batch ok and every worker extracted the whole archive.
all_ok() {
	awk -F'\t' '!/^#/ && $10 != "ok" { bad = 1 } END { exit bad }' "$1/runs.tsv" &&
	awk -F'\t' -v n="$2" '!/^#/ && ($10 != "ok" || $8 != n) { bad = 1 } END { exit bad }' \
	    "$1/workers.tsv"
}

if ! "$FSCONC" mkarchive --files 200 --bytes 2m "$S/a.tar" >/dev/null 2>"$S/mk.err"; then
	not_ok "mkarchive for the run tests" "$(cat "$S/mk.err")"
	exit 0
fi
n=$(bsdtar tf "$S/a.tar" 2>/dev/null | wc -l)

out=$("$FSCONC" run -a "$S/a.tar" -j 1,2 -r 2 --disk "dir:$S/dirdisk" -R "$S/d" 2>&1); rc=$?
set=$(set_of "$S/d")
[ $rc -eq 0 ] && [ -n "$set" ] && all_ok "$set" "$n" &&
    grep -q '^archive_sha256=' "$set/meta" && grep -q '^disk_backend=dir' "$set/meta" &&
    ok "dir: disk: every worker extracts all $n entries" ||
    not_ok "dir: disk: every worker extracts all $n entries" "rc=$rc $out"

printf 'not an archive' >"$S/bad.tar"
out=$("$FSCONC" run -a "$S/bad.tar" -j 1 -r 1 --disk "dir:$S/dirdisk2" -R "$S/bad" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "bad.tar" && [ -z "$(set_of "$S/bad")" ] &&
    ok "unreadable archive: named, exit 1, no set" ||
    not_ok "unreadable archive: named, exit 1, no set" "rc=$rc $out"

if ! is_root; then
	for t in "tmpfs, shared and per-worker" "--memory-guard touch" \
	    "--vary memory-guard=none,touch" "thread mode, --verify" \
	    "pthread_create fails mid-batch" \
	    "loop+ext4" "^C: set readable, nothing mounted" \
	    "second signal: disks torn down"; do
		skip "$t" "needs root"
	done
	exit 0
fi

out=$("$FSCONC" run -a "$S/a.tar" -j 1,2 -r 2 --disk tmpfs:128m -R "$S/t" 2>&1); rc=$?
out2=$("$FSCONC" run -a "$S/a.tar" -j 2 -r 1 --disk tmpfs:128m --layout per-worker \
    -R "$S/tp" 2>&1); rc2=$?
set=$(set_of "$S/t"); set2=$(set_of "$S/tp")
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && all_ok "$set" "$n" && all_ok "$set2" "$n" &&
    grep -qx 'disk_fresh=1' "$set/meta" && grep -qx 'layout=per-worker' "$set2/meta" &&
    awk -F'\t' '!/^#/ && !($9 > 0) { bad = 1 } END { exit bad }' "$set/runs.tsv" &&
    ok "tmpfs, shared and per-worker" ||
    not_ok "tmpfs, shared and per-worker" "rc=$rc/$rc2 $out $out2"

# --memory-guard touch: before each batch the controller writes and frees
# 2 x (32 MiB + 4 KiB an entry) x 5/4, some 82 MiB (its peak RSS shows
# it; none does not).  Peak RSS (KiB) of the run and its reaped
# descendants:
cat >"$S/peak.py" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    rc = subprocess.call(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
"$FSCONC" mkarchive --files 200 --bytes 32m "$S/g.tar" >/dev/null 2>&1
for g in none touch; do
	set -- $(python3 "$S/peak.py" "$S/g$g.out" "$FSCONC" run -a "$S/g.tar" \
	    -j 2 -r 1 --disk tmpfs:128m --memory-guard $g -R "$S/g$g")
	eval "rc_$g=\$1 peak_$g=\$2"
done
setn=$(set_of "$S/gnone"); sett=$(set_of "$S/gtouch")
[ "$rc_none" = 0 ] && [ "$rc_touch" = 0 ] &&
    grep -qx 'memory_guard=none' "$setn/meta" &&
    grep -qx 'memory_guard=touch' "$sett/meta" &&
    ! grep -q '^memory_guard_failed=' "$sett/meta" &&
    [ $((peak_touch - peak_none)) -ge 65536 ] &&
    ok "--memory-guard touch: recorded, the batch's memory written first (peak RSS $peak_none -> $peak_touch KiB)" ||
    not_ok "--memory-guard touch: recorded, the batch's memory written first" \
    "rc=$rc_none/$rc_touch peak $peak_none/$peak_touch $(cat "$S/gnone.out" "$S/gtouch.out")"
out=$("$FSCONC" run -a "$S/a.tar" -j 1 -r 1 --disk tmpfs:128m \
    --vary memory-guard=none,touch -R "$S/gv" 2>&1); rc=$?
cells() { find "$S/gv" -name meta -exec grep -lx "memory_guard=$1" {} + | wc -l; }
[ $rc -eq 0 ] && [ "$(cells touch)" -eq 1 ] && [ "$(cells none)" -eq 1 ] &&
    ok "--vary memory-guard=none,touch: a cell each" ||
    not_ok "--vary memory-guard=none,touch: a cell each" "rc=$rc $out $(ls -R "$S/gv")"

out=$("$FSCONC" run -a "$S/a.tar" -j 2 -r 1 --disk tmpfs:128m --mode thread --verify \
    -R "$S/th" 2>&1); rc=$?
set=$(set_of "$S/th")
[ $rc -eq 0 ] && all_ok "$set" "$n" && grep -qx 'verify=yes' "$set/meta" &&
    ok "thread mode, --verify" || not_ok "thread mode, --verify" "rc=$rc $out"

# A worker thread that cannot be created: the threads already started
# are let go, the run stops, tears its disk down and exits 1.
out=$(FSCONC_TEST_THREAD_FAIL=1 "$FSCONC" run -a "$S/a.tar" -j 1,2 -r 1 \
    --order sequential --disk tmpfs:128m --mode thread -R "$S/tf" 2>&1); rc=$?
set=$(set_of "$S/tf")
m=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
[ $rc -eq 1 ] && [ -n "$set" ] && grep -qx 'aborted=yes' "$set/meta" &&
    echo "$out" | grep -q 'pthread_create worker 1 of 2' && [ -z "$m" ] &&
    ok "pthread_create fails mid-batch: torn down, exit 1" ||
    not_ok "pthread_create fails mid-batch: torn down, exit 1" "rc=$rc mounts: $m $out"

if command -v mkfs.ext4 >/dev/null 2>&1 && losetup -f >/dev/null 2>&1; then
	out=$("$FSCONC" run -a "$S/a.tar" -j 1,2 -r 1 --disk loop:128m --fs ext4 \
	    -R "$S/l" 2>&1); rc=$?
	set=$(set_of "$S/l")
	[ $rc -eq 0 ] && all_ok "$set" "$n" && grep -qx 'fs=ext4' "$set/meta" &&
	    ok "loop+ext4" || not_ok "loop+ext4" "rc=$rc $out"
else
	skip "loop+ext4" "no loop device or mkfs.ext4"
fi

# The signal once a batch is committed (so the set holds one).
"$FSCONC" run -a "$S/a.tar" -j 1,2 -r 500 --disk tmpfs:128m -R "$S/int" \
    >"$S/int.out" 2>&1 &
pid=$!
committed() {
	_n=$(grep -vcs '^#' "$(set_of "$S/int")runs.tsv")
	[ "${_n:-0}" -ge 1 ]
}
wait_until committed
kill -INT $pid
wait $pid; rc=$?
set=$(set_of "$S/int")
m=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
[ $rc -eq 1 ] && [ -n "$set" ] && grep -qx 'interrupted=yes' "$set/meta" &&
    [ "$(grep -vc '^#' "$set/runs.tsv")" -ge 1 ] && [ -z "$m" ] &&
    [ -z "$(find "$FSCONC_RUNDIR" -mindepth 1 ! -name lock ! -path "*/state")" ] &&
    ok "^C: set readable, nothing mounted" ||
    not_ok "^C: set readable, nothing mounted" "rc=$rc mounts: $m $(cat "$S/int.out") $(find "$FSCONC_RUNDIR")"

# A second signal during the batch in flight (thread mode runs it to its
# end): the workers are killed, the disk torn down and the controller
# dies of the signal.  If the batch ended first, the run stops in order.
# Either way nothing may stay mounted.
"$FSCONC" mkarchive --files 1000 --bytes 32m "$S/b.tar" >/dev/null 2>&1
FSCONC_TEST_MARKER=$S/mk "$FSCONC" run -a "$S/b.tar" -j 2 -r 500 --mode thread \
    --disk tmpfs:256m -R "$S/int2" >"$S/int2.out" 2>&1 &
pid=$!
wait_until test -e "$S/mk.released"
kill -TERM $pid
wait_until test -e "$S/mk.stopping"
kill -TERM $pid 2>/dev/null
wait $pid; rc=$?
m=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
{ [ $rc -eq 1 ] || [ $rc -eq 143 ]; } && [ -z "$m" ] &&
    [ -z "$(find "$FSCONC_RUNDIR" -mindepth 1 ! -name lock ! -path "*/state")" ] &&
    ok "second signal: disks torn down (exit $rc)" ||
    not_ok "second signal: disks torn down" "rc=$rc mounts: $m $(cat "$S/int2.out")"

# Nothing of ours is left anywhere.
left=$(findmnt -rn -o TARGET | grep -F "$S"; losetup -a | grep -F "$S")
[ -z "$left" ] && ok "nothing left mounted or attached" ||
    not_ok "nothing left mounted or attached" "$left"
