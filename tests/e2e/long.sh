# tests/long's choice of the long items .ci/run runs in what is left of
# its time (--plan: nothing runs): from the K-th item on, wrapping round,
# each only if its cost fits what is left; a bisect item not run without
# its kernels built, the lab's without its chroot; bad options and
# unknown items refused with exit 2.
. "$FSCONC_TOP/tests/lib.sh"

L="sh $TOP/tests/long"
# Costs from the list, so that the expectations follow them.
cost() { $L --list | awk -v n="$1" '$1 == n { print $2 }'; }
ck=$(cost boot-kexec) cg=$(cost boot-grub-reboot)
ran() { sed -n 's/^# ran: \([^;]*\);.*/\1/p'; }

out=$($L --plan --budget $((ck + cg)) --start 0)
check "a budget of kexec's and grub-reboot's costs, from item 0: those two" \
    test "$(echo "$out" | ran)" = "boot-kexec boot-grub-reboot"
out=$($L --plan --budget $((ck + cg - 1)) --start 0)
r=$(echo "$out" | ran)
case " $r " in
" boot-kexec "*" boot-grub-reboot "*) not_ok "one second less: kexec, not grub-reboot ($r)" ;;
" boot-kexec "*) ok "one second less: kexec, not grub-reboot, then what fits ($r)" ;;
*) not_ok "one second less: kexec, not grub-reboot ($r)" ;;
esac
echo "$out" | grep -q '^# boot-grub-reboot: not run: its [0-9]* s do not fit' &&
    ok "what does not fit is named, with its cost and what is left" ||
    not_ok "what does not fit is named, with its cost and what is left" "$out"
n=$($L --list | wc -l)
a=$($L --plan --budget "$cg" --start 1 | ran)
b=$($L --plan --budget "$cg" --start $((n + 1)) | ran)
check "--start wraps round the $n items ($a)" test "$a" = boot-grub-reboot -a "$a" = "$b"

# Without its kernels built, a bisect item is not run under a budget.
e=$(scratch)
out=$(FSCONC_KERNEL_CACHE=$e $L --plan --budget 100000 bisect-clean)
echo "$out" | grep -q '^# bisect-clean: not run: its kernels are not built yet' &&
    ok "a bisect item without its kernels is not run, and says so" ||
    not_ok "a bisect item without its kernels is not run, and says so" "$out"
# Nor the lock-debugging campaign before its two kernels are.
out=$(FSCONC_KERNEL_CACHE=$e $L --plan --budget 100000 campaign-lockdebug)
echo "$out" | grep -q '^# campaign-lockdebug: not run: its kernels are not built yet' &&
    ok "the lock-debugging campaign without its kernels is not run, and says so" ||
    not_ok "the lock-debugging campaign without its kernels is not run, and says so" "$out"
# Nor the lab's item before its chroot is built.
out=$(FSCONC_LAVA_CACHE=$e $L --plan --budget 100000 lava-lab)
echo "$out" | grep -q "^# lava-lab: not run: the lab's chroot is not built yet" &&
    ok "the lab's item without its chroot is not run, and says so" ||
    not_ok "the lab's item without its chroot is not run, and says so" "$out"
out=$($L --plan boot-stop boot-kexec)
check "named items, no budget: both, in the list's order" \
    test "$(echo "$out" | ran)" = "boot-kexec boot-stop"

# The cut: an item past twice its cost fails; one that the budget's end
# cuts first is not run, and the status stays 0 (.ci/run's 45 minutes).
# The hanging command is what is cut, not a wait of the test's own.
d=$(scratch)
echo "hangs 2 sleep 600" >"$d/items"
out=$(FSCONC_LONG_ITEMS=$d/items $L --budget 1000 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q '^# hangs: exit 124' &&
    echo "$out" | grep -q '^0 passed, 1 failed, 0 skipped' &&
    ok "an item past twice its cost is cut there and fails (exit 1)" ||
    not_ok "an item past twice its cost is cut there and fails (exit 1)" "exit $rc: $out"
# Cost 4 in a budget of 8, no grace: it starts if the runner took at
# most 4 s to reach it (a loaded host), and the budget's end, at most 8
# s on, comes no later than twice its cost.
echo "hangs 4 sleep 600" >"$d/items"
out=$(FSCONC_LONG_GRACE=0 FSCONC_LONG_ITEMS=$d/items $L --budget 8 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^# hangs: not finished: cut at [0-9]* s, the budget' &&
    echo "$out" | grep -q '^0 passed, 0 failed, 1 skipped' &&
    ok "an item the budget's end cuts first is not run, status 0" ||
    not_ok "an item the budget's end cuts first is not run, status 0" "exit $rc: $out"

for bad in "--budget x" "--budget -1" "--start 1.5" "--budget" "--frob" "no-such-item"; do
	# shellcheck disable=SC2086
	err=$($L --plan $bad 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ -n "$err" ] && ok "tests/long $bad: refused (2): $(echo "$err" | head -n 1)" ||
	    not_ok "tests/long $bad: refused (2)" "exit $rc: $err"
done
echo "1..$_t"
