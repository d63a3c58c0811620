# fsconc run --vary: cells side by side in one run directory, sysctls put
# back afterwards, also when interrupted.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
FSCONC_RUNDIR=$s/rundir
export FSCONC_RUNDIR
mkdir -m 700 "$FSCONC_RUNDIR"

err=$("$FSCONC" run --vary colour=red,blue --dry-run 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown key" &&
    ok "--vary unknown key: exit 2" || not_ok "--vary unknown key: exit 2" "rc=$rc $err"
err=$("$FSCONC" run --vary mode=process,thread --vary mode=thread --dry-run 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "varied twice" &&
    ok "--vary the same key twice: exit 2" || not_ok "--vary the same key twice: exit 2" "rc=$rc $err"
out=$("$FSCONC" run --dry-run -w syscall -j 1 -r 1 --label dr --vary mode=process,thread \
    --vary 'mount-opts=noatime,nodiratime|defaults' 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^--vary cell [1-4] of 4')" -eq 4 ] &&
    echo "$out" | grep -q 'cell 2 of 4: dr+mode=process+mount-opts=defaults' &&
    ok "--dry-run: four cells, labelled" || not_ok "--dry-run: four cells, labelled" "rc=$rc $out"

# sysfs: and debugfs: files: never outside /sys, refused before anything runs.
for k in sysfs:/etc/passwd sysfs:/sys/../etc/passwd sysfs:/sys/kernel//x debugfs:/sys/kernel/mm/x; do
	err=$("$FSCONC" run --dry-run -w syscall -j 1 -r 1 --vary "$k=1,2" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q 'want a file under /sys' &&
	    ok "--vary $k: refused, exit 2" || not_ok "--vary $k: refused, exit 2" "rc=$rc $err"
done

sysctl=/proc/sys/vm/dirty_expire_centisecs
if ! is_root; then
	for t in "cells run and put the sysctl back" "cells interleaved" \
	    "SIGINT: put back" "second SIGINT: put back, dies of it"; do
		skip "$t" "needs root to write $sysctl"
	done
	exit 0
fi
if [ ! -w "$sysctl" ]; then
	skip "sysctl cells" "$sysctl not writable"
	exit 0
fi
orig=$(cat "$sysctl")
a=$((orig + 111)) b=$((orig + 222))
set -- -w syscall -O count=2000 -j 1,2 --disk tmpfs -R "$s/res" --label vt \
    --vary "sysctl:vm.dirty_expire_centisecs=$a,$b"
run() { "$FSCONC" run "$@"; }
restore() { echo "$orig" >"$sysctl"; }

run "$@" -r 2 --order random --seed 7 --vary mode=process,thread >"$s/out" 2>&1; rc=$?
now=$(cat "$sysctl")
rd=$(sed -n 's/^run directory: \([^ ]*\) .*/\1/p' "$s/out")
n=$(find "$rd" -name meta 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$now" = "$orig" ] && [ "$n" -eq 4 ] &&
    grep -q "^vary.sysctl.vm.dirty_expire_centisecs=$b" "$rd"/*/"vt+vm.dirty_expire_centisecs=$b+mode=thread"/*/meta; then
	ok "cells run and put the sysctl back"
else
	not_ok "cells run and put the sysctl back" "rc=$rc now=$now orig=$orig cells=$n $(cat "$s/out")"
fi
restore
# (That one ran its cells in a random order per batch.)  The run
# directory stands for all its cells.
"$FSCONC" report -o "$s/rep" "$rd" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '<h3>N = 1, real</h3>' "$s/rep/index.html")" -eq 1 ] &&
    [ "$(sed -n '/<h3>N = 1, real/,/<\/pre>/p' "$s/rep/index.html" | grep -c '^[x+*%#@O] .*jobs-1.real')" -eq 4 ] &&
    ok "report of the run directory: four sets" || not_ok "report of the run directory: four sets" "rc=$rc"

# Cells alternate batch by batch (A B A B ...), not one after the other:
# sampled while it runs, the sysctl flips between the values many times.
"$FSCONC" run "$@" -r 30 >"$s/out" 2>&1 &
pid=$!
flips=0 last=
while kill -0 $pid 2>/dev/null; do
	v=$(cat "$sysctl")
	if [ "$v" != "$orig" ] && [ "$v" != "$last" ]; then
		[ -n "$last" ] && flips=$((flips + 1))
		last=$v
	fi
	sleep 0.01
done
wait $pid; rc=$?
[ $rc -eq 0 ] && [ $flips -ge 6 ] && ok "cells interleaved ($flips flips seen)" ||
    not_ok "cells interleaved" "rc=$rc flips=$flips"
restore

# fsconc itself in the background (a function would run in a subshell
# that ignores SIGINT and never passes it on).
rm -f "$s/mk".*
FSCONC_TEST_MARKER=$s/mk "$FSCONC" run "$@" -r 500 >"$s/out" 2>&1 &
pid=$!
wait_until test -e "$s/mk.released"
during=$(cat "$sysctl")
kill -INT $pid
wait $pid; rc=$?
now=$(cat "$sysctl")
if [ "$during" != "$orig" ] && [ "$now" = "$orig" ] && [ $rc -eq 1 ] &&
    grep -q 'interrupted' "$s/out"; then
	ok "SIGINT: put back (was $during)"
else
	not_ok "SIGINT: put back" "rc=$rc during=$during now=$now orig=$orig $(tail -5 "$s/out")"
fi
restore

# fsconc itself in the background (a function would run in a subshell
# that ignores SIGINT and never passes it on).
rm -f "$s/mk".*
FSCONC_TEST_MARKER=$s/mk "$FSCONC" run "$@" -r 500 >"$s/out" 2>&1 &
pid=$!
wait_until test -e "$s/mk.released"
during=$(cat "$sysctl")
kill -INT $pid
kill -INT $pid
wait $pid; rc=$?
now=$(cat "$sysctl")
# Either the first signal ended it cleanly or the second one killed it.
if [ "$during" != "$orig" ] && [ "$now" = "$orig" ] && { [ $rc -eq 1 ] || [ $rc -eq 130 ]; }; then
	ok "second SIGINT: put back (exit $rc)"
else
	not_ok "second SIGINT: put back" "rc=$rc during=$during now=$now orig=$orig"
fi
restore

# A second signal while a long batch is in flight tears down at once:
# sysctls back, workers killed, disks torn down, then death by the
# signal.  Thread mode, because a batch of threads runs on after the
# first signal (processes are killed at once).  Each signal waits
# for the state it is meant for: a batch in flight, the first one taken.
rm -f "$s/mk".*
FSCONC_TEST_MARKER=$s/mk "$FSCONC" run -w syscall -O op=stat -O duration=30 \
    -j 2 -r 5 --disk tmpfs:64m --mode thread \
    -R "$s/res" --label vt2 --vary "sysctl:vm.dirty_expire_centisecs=$a,$b" \
    >"$s/out" 2>&1 &
pid=$!
wait_until test -e "$s/mk.released"
during=$(cat "$sysctl")
kill -TERM $pid
wait_until test -e "$s/mk.stopping"
kill -TERM $pid
wait $pid; rc=$?
now=$(cat "$sysctl")
left=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
recs=$(find "$FSCONC_RUNDIR/state" -type f 2>/dev/null)
if [ $rc -eq 143 ] && [ "$during" != "$orig" ] && [ "$now" = "$orig" ] &&
    [ -z "$left" ] && [ -z "$recs" ]; then
	ok "second SIGTERM mid-batch: put back, torn down, dies of it"
else
	not_ok "second SIGTERM mid-batch: put back, torn down, dies of it" \
	    "rc=$rc during=$during now=$now orig=$orig left=$left recs=$recs $(tail -5 "$s/out")"
fi
restore
"$FSCONC" md cleanup >/dev/null 2>&1

# A harmless sysfs knob (THP defrag, a bracketed choice): set per cell,
# put back as the choice it was; after SIGKILL, by fsconc cleanup.
knob=/sys/kernel/mm/transparent_hugepage/defrag
if [ -w "$knob" ]; then
	korig=$(cat "$knob")
	at_exit "grep -q '\\[' '$knob' || echo '$(echo "$korig" | sed 's/.*\[\(.*\)\].*/\1/')' >'$knob'"
	"$FSCONC" run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs -R "$s/res" \
	    --label thp --vary sysfs:kernel/mm/transparent_hugepage/defrag=never,defer \
	    >"$s/out" 2>&1; rc=$?
	now=$(cat "$knob")
	rd=$(sed -n 's/^run directory: \([^ ]*\) .*/\1/p' "$s/out")
	if [ $rc -eq 0 ] && [ "$now" = "$korig" ] &&
	    grep -q '^vary.sysfs.kernel.mm.transparent_hugepage.defrag=defer$' "$rd"/*/*defrag=defer*/*/meta; then
		ok "sysfs knob: set per cell, put back ($korig)"
	else
		not_ok "sysfs knob: set per cell, put back" "rc=$rc now=$now orig=$korig $(tail -3 "$s/out")"
	fi
	FSCONC_TEST_MARKER=$s/thp "$FSCONC" run -w syscall -O op=stat -O duration=30 -j 1 -r 50 \
	    --disk tmpfs:64m -R "$s/res" --label thp2 \
	    --vary sysfs:/sys/kernel/mm/transparent_hugepage/defrag=never >"$s/out" 2>&1 &
	pid=$!
	wait_until test -e "$s/thp.released"
	during=$(cat "$knob")
	kill -KILL $pid
	wait $pid 2>/dev/null
	"$FSCONC" cleanup >"$s/clean" 2>&1
	now=$(cat "$knob")
	if [ "$during" = "always defer defer+madvise madvise [never]" ] ||
	    echo "$during" | grep -q '\[never\]' && [ "$now" = "$korig" ]; then
		ok "sysfs knob: SIGKILLed while changed, put back by cleanup"
	else
		not_ok "sysfs knob: SIGKILLed while changed, put back by cleanup" "during=$during now=$now $(cat "$s/clean")"
	fi
else
	skip "sysfs knob: set per cell, put back" "$knob not writable"
	skip "sysfs knob: SIGKILLed while changed, put back by cleanup" "$knob not writable"
fi

# A read-only knob (0444), which access(W_OK) passes for root: refused
# before anything is recorded, so cleanup has nothing to put back.
ro=/sys/kernel/mm/transparent_hugepage/hpage_pmd_size
if [ -f "$ro" ] && [ "$(stat -c %a "$ro")" = 444 ]; then
	rov=$(cat "$ro")
	"$FSCONC" run -w calib -O iterations=200000 -j 1 -r 1 -R "$s/ro" \
	    --vary "sysfs:$ro=4096" >"$s/ro.out" 2>&1; rc=$?
	"$FSCONC" cleanup >"$s/ro.clean" 2>&1; crc=$?
	[ $rc -eq 1 ] && grep -q "hpage_pmd_size: read-only (mode 0444)" "$s/ro.out" &&
	    [ $crc -eq 0 ] && [ ! -s "$s/ro.clean" ] &&
	    [ -z "$(ls "$FSCONC_RUNDIR/sysctl" 2>/dev/null)" ] && [ "$(cat "$ro")" = "$rov" ] &&
	    ok "read-only sysfs knob: refused, nothing recorded, cleanup exits 0" ||
	    not_ok "read-only sysfs knob: refused, nothing recorded, cleanup exits 0" \
		"rc=$rc crc=$crc $(cat "$s/ro.out" "$s/ro.clean")"
else
	skip "read-only sysfs knob: refused, nothing recorded, cleanup exits 0" "no read-only $ro"
fi

left=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
[ -z "$left" ] && ok "nothing left mounted" || not_ok "nothing left mounted" "$left"
