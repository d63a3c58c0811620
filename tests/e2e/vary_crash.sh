# fsconc run --vary killed with SIGKILL at random points: "fsconc cleanup"
# (or "fsconc md cleanup") puts the varied sysctl back from the record
# written before it was changed, and leaves no disk or record behind.
. "$FSCONC_TOP/tests/lib.sh"

sysctl=/proc/sys/vm/dirty_writeback_centisecs
if ! is_root || [ ! -w "$sysctl" ]; then
	skip "SIGKILL during run --vary: sysctl put back" "needs root and $sysctl"
	exit 0
fi
s=$(scratch)
FSCONC_RUNDIR=$s/run
export FSCONC_RUNDIR
mkdir -m 700 "$FSCONC_RUNDIR"
orig=$(cat "$sysctl")
# Whatever happens, the machine keeps its value.
at_exit "[ \"\$(cat $sysctl)\" = $orig ] || echo $orig >$sysctl"
a=$((orig + 111)) b=$((orig + 222))

leftovers() {
	findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR/"
	ls -A "$FSCONC_RUNDIR/state" "$FSCONC_RUNDIR/sysctl" 2>/dev/null |
	    grep -v -e '^$' -e ':$'
}

seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
i=0 kills=0 changed=0 bad=
while [ $i -lt 12 ]; do
	delay=$(awk -v s=$seed -v i=$i 'BEGIN { srand(s + i); printf "%.2f", rand() * 1.5 }')
	# Long enough (some 20 s quiet) to be killed, never to end first.
	FSCONC_MD_TEST_DELAY=0.02 "$FSCONC" run -w syscall -O count=2000 \
	    -j 1,2 -r 2000 --disk tmpfs:16m -R "$s/res" --label vk \
	    --vary "sysctl:vm.dirty_writeback_centisecs=$a,$b" >/dev/null 2>&1 &
	p=$!
	sleep "$delay"
	[ "$(cat "$sysctl")" != "$orig" ] && changed=$((changed + 1))
	kill -KILL $p 2>/dev/null && kills=$((kills + 1))
	wait $p 2>/dev/null
	# Both commands put sysctls back: use each in turn.
	if [ $((i % 2)) -eq 0 ]; then
		out=$("$FSCONC" cleanup 2>&1); rc=$?
	else
		out=$("$FSCONC" md cleanup 2>&1); rc=$?
	fi
	now=$(cat "$sysctl")
	l=$(leftovers)
	if [ $rc -ne 0 ] || [ "$now" != "$orig" ] || [ -n "$l" ]; then
		bad="$bad
[kill $i after ${delay}s: rc=$rc now=$now orig=$orig left=$l $out]"
		echo "$orig" >"$sysctl"
	fi
	i=$((i + 1))
done
if [ -z "$bad" ] && [ $kills -ge 10 ] && [ $changed -ge 3 ]; then
	ok "$kills SIGKILLs during run --vary ($changed while changed, seed $seed): sysctl put back, nothing left"
else
	not_ok "SIGKILL during run --vary: sysctl put back, nothing left" \
	    "kills=$kills changed=$changed seed=$seed $bad"
fi

# Killed while the sysctl is changed: cleanup says what it puts back.
"$FSCONC" run -w syscall -O count=2000 -j 1,2 -r 500 --disk tmpfs:16m \
    -R "$s/res" --label vk --vary "sysctl:vm.dirty_writeback_centisecs=$a,$b" \
    >/dev/null 2>&1 &
p=$!
n=0
while [ "$(cat "$sysctl")" = "$orig" ] && [ $n -lt 200 ]; do
	sleep 0.05
	n=$((n + 1))
done
during=$(cat "$sysctl")
kill -KILL $p; wait $p 2>/dev/null
out=$("$FSCONC" cleanup 2>&1); rc=$?
now=$(cat "$sysctl")
if [ "$during" != "$orig" ] && [ $rc -eq 0 ] && [ "$now" = "$orig" ] &&
    echo "$out" | grep -q "putting back sysctl vm.dirty_writeback_centisecs=$orig, left changed by process $p" &&
    [ -z "$(leftovers)" ]; then
	ok "SIGKILL while changed ($during): fsconc cleanup names it and puts back $orig"
else
	not_ok "SIGKILL while changed: cleanup puts back" "rc=$rc during=$during now=$now $out $(leftovers)"
fi
