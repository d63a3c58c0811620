# fsconc run with the calib workload (no file system, no root needed):
# process and thread mode, killed and failed workers, result sets,
# oversubscription, --dry-run plans, SIGINT.
. "$FSCONC_TOP/tests/lib.sh"

S=$(scratch)
export FSCONC_RUNDIR="$S/rundir"
mkdir -p -m 700 "$FSCONC_RUNDIR"
CAL="-w calib -O iterations=2000000"
ncpu=$(getconf _NPROCESSORS_ONLN)

# The one set under a root (each run here gets its own root).
set_of() { ls -d "$1"/*/*/*/ 2>/dev/null | head -n 1; }
rows() { grep -vc '^#' "$1"; }

# --- process mode --------------------------------------------------------
out=$("$FSCONC" run $CAL -j 1,2 -r 3 -R "$S/p" 2>"$S/p.err"); rc=$?
set=$(set_of "$S/p")
if [ $rc -eq 0 ] && [ -n "$set" ] && [ "$(rows "$set/runs.tsv")" -eq 6 ] &&
    [ "$(rows "$set/workers.tsv")" -eq 9 ] &&
    [ "$(wc -l <"$set/jobs-1.real")" -eq 3 ] &&
    [ "$(wc -l <"$set/jobs-2.real")" -eq 3 ]; then
	ok "process mode: 6 batches, 9 workers, jobs-N.real"
else
	not_ok "process mode: 6 batches, 9 workers, jobs-N.real" "rc=$rc $out $(cat "$S/p.err")"
fi
grep -qx 'mode=process' "$set/meta" && grep -qx 'jobs=1,2' "$set/meta" &&
    grep -qx 'reps=3' "$set/meta" && grep -q '^kernel.release=' "$set/meta" &&
    grep -q '^topology=' "$set/meta" && grep -qx 'workload=calib' "$set/meta" &&
    grep -q '^start=' "$set/meta" && grep -q '^end=' "$set/meta" &&
    ok "meta: mode, jobs, reps, kernel, topology, times" ||
    not_ok "meta: mode, jobs, reps, kernel, topology, times" "$(cat "$set/meta")"
[ ! -s "$S/p.err" ] && ok "no tty: nothing on stderr" ||
    not_ok "no tty: nothing on stderr" "$(cat "$S/p.err")"
echo "$out" | grep -q '^result set: ' && echo "$out" | grep -q 'EC(N)' &&
    ok "summary with EC(N)" || not_ok "summary with EC(N)" "$out"
# Status ok everywhere, a cpuset for every worker (default --bind core).
awk -F'\t' '!/^#/ && ($4 == "" || $10 != "ok") { bad = 1 } END { exit bad }' \
    "$set/workers.tsv" && ok "workers: status ok, cpuset recorded" ||
    not_ok "workers: status ok, cpuset recorded" "$(cat "$set/workers.tsv")"
# The recorded cpusets are the plan fsconc topo prints.
plan=$("$FSCONC" topo -j 2 | sed -n 's/^worker \([0-9]*\): cpuset \([^ ]*\).*/\1 \2/p')
rec=$(awk -F'\t' '!/^#/ && $1 == 2 && $2 == 1 { print $3, $4 }' "$set/workers.tsv")
[ -n "$plan" ] && [ "$plan" = "$rec" ] && ok "workers.tsv cpusets = topo plan" ||
    not_ok "workers.tsv cpusets = topo plan" "plan: $plan; recorded: $rec"
if command -v ministat >/dev/null 2>&1; then
	check "ministat reads jobs-N.real" ministat -n "$set/jobs-1.real" "$set/jobs-2.real"
	check "ministat -C 3 reads runs.tsv" ministat -n -C 3 "$set/runs.tsv"
else
	skip "ministat reads jobs-N.real" "ministat not installed"
	skip "ministat -C 3 reads runs.tsv" "ministat not installed"
fi

# --- thread mode ---------------------------------------------------------
out=$("$FSCONC" run $CAL -j 1,2 -r 2 --mode thread -R "$S/t" 2>&1); rc=$?
set=$(set_of "$S/t")
[ $rc -eq 0 ] && [ -n "$set" ] && grep -qx 'mode=thread' "$set/meta" &&
    [ "$(rows "$set/runs.tsv")" -eq 4 ] &&
    awk -F'\t' '!/^#/ && !($5 > 0) { bad = 1 } END { exit bad }' "$set/workers.tsv" &&
    ok "thread mode: 4 batches, per-thread times" ||
    not_ok "thread mode: 4 batches, per-thread times" "rc=$rc $out"

# --- a worker killed by a signal, a worker failing -------------------------
out=$("$FSCONC" run $CAL -O die=1 -j 2 -r 2 -R "$S/k" 2>&1); rc=$?
set=$(set_of "$S/k")
if [ $rc -eq 1 ] && [ -n "$set" ] &&
    [ "$(awk -F'\t' '!/^#/ && $10 == "killed"' "$set/runs.tsv" | wc -l)" -eq 2 ] &&
    awk -F'\t' '!/^#/ && $3 == 1 { exit !($10 == "killed") }' "$set/workers.tsv" &&
    grep -q 'killed by signal 9' "$set/runs.tsv" &&
    [ ! -s "$set/jobs-2.real" ] && echo "$out" | grep -q 'killed by signal 9'; then
	ok "killed worker: reported killed, never averaged, exit 1"
else
	not_ok "killed worker: reported killed, never averaged, exit 1" "rc=$rc $out"
fi
out=$("$FSCONC" run $CAL -O fail=0 -j 1,2 -r 1 -R "$S/f" 2>&1); rc=$?
set=$(set_of "$S/f")
[ $rc -eq 1 ] && [ -n "$set" ] &&
    [ "$(awk -F'\t' '!/^#/ && $10 == "failed"' "$set/runs.tsv" | wc -l)" -eq 2 ] &&
    grep -q 'failing as asked' "$set/workers.tsv" &&
    ok "failed worker: reason recorded, batch failed, exit 1" ||
    not_ok "failed worker: reason recorded, batch failed, exit 1" "rc=$rc $out"

# A worker dying before the start gate: nobody is released, no hang.
out=$("$FSCONC" run $CAL -O setup_die=0 -j 3 -r 1 -R "$S/sd" 2>&1); rc=$?
set=$(set_of "$S/sd")
[ $rc -eq 1 ] && [ -n "$set" ] &&
    [ "$(awk -F'\t' '!/^#/ && $10 == "killed"' "$set/runs.tsv" | wc -l)" -eq 1 ] &&
    awk -F'\t' '!/^#/ && $3 == 0 { exit !($10 == "killed") }' "$set/workers.tsv" &&
    [ "$(grep -c 'not released: another worker failed before the start gate' "$set/workers.tsv")" -eq 2 ] &&
    ok "worker dead before the gate: batch failed, no hang" ||
    not_ok "worker dead before the gate: batch failed, no hang" "rc=$rc $out"

# --- oversubscription ------------------------------------------------------
over=$((ncpu * 2))
out=$("$FSCONC" run $CAL -j "1,2ncpu" -r 1 -R "$S/o" 2>&1); rc=$?
set=$(set_of "$S/o")
[ $rc -eq 0 ] && grep -qx "oversubscribed=$over" "$set/meta" &&
    echo "$out" | grep -q "oversubscribed" &&
    [ "$(awk -F'\t' '!/^#/ && $1 == '"$over"'' "$set/workers.tsv" | wc -l)" -eq $over ] &&
    ok "oversubscription: runs, recorded in meta, warned" ||
    not_ok "oversubscription: runs, recorded in meta, warned" "rc=$rc $out"

# --- labels and never overwriting ------------------------------------------
"$FSCONC" run $CAL -j 1 -r 1 --label mylabel -R "$S/l" >/dev/null 2>&1
"$FSCONC" run $CAL -j 1 -r 1 --label mylabel -R "$S/l" >/dev/null 2>&1
[ "$(ls -d "$S"/l/*/mylabel/*/ | wc -l)" -eq 2 ] &&
    ok "--label names the set; a second run makes a second set" ||
    not_ok "--label names the set; a second run makes a second set" "$(ls -R "$S/l")"
# --results, -R's long name, names the result root too.
"$FSCONC" run $CAL -j 1 -r 1 --label long --results "$S/l" >/dev/null 2>&1
[ "$(ls -d "$S"/l/*/long/*/ | wc -l)" -eq 1 ] &&
    ok "--results: the result root" ||
    not_ok "--results: the result root" "$(ls -R "$S/l")"

# --- --memory-guard ---------------------------------------------------------
"$FSCONC" run $CAL --memory-guard sometimes --dry-run >"$S/mg.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q -- '--memory-guard sometimes: want auto, none or touch' "$S/mg.out" &&
    ok "--memory-guard sometimes: usage error, exit 2" ||
    not_ok "--memory-guard sometimes: usage error, exit 2" "rc=$rc $(cat "$S/mg.out")"
out=$("$FSCONC" run --dry-run --disk tmpfs --memory-guard touch -r 1 2>&1)
out2=$("$FSCONC" run --dry-run --disk md:malloc:512m --fs ufs --os freebsd -r 1 2>&1)
echo "$out" | grep -q '^memory guard: touch: before each batch' &&
    echo "$out2" | grep -qx 'memory guard: none' &&
    ok "--memory-guard in the plan; auto is none in a plan for FreeBSD" ||
    not_ok "--memory-guard in the plan; auto is none in a plan for FreeBSD" "$out $out2"
"$FSCONC" run $CAL -j 1 -r 1 --memory-guard touch -R "$S/mgc" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qx 'memory_guard=none' "$(set_of "$S/mgc")/meta" &&
    ok "--memory-guard touch, a workload that writes no files: none" ||
    not_ok "--memory-guard touch, a workload that writes no files: none" "rc=$rc"

# --- dry run -----------------------------------------------------------------
out=$("$FSCONC" run --dry-run -w calib -j 1,4 -r 2 -R "$S/dry" 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$S/dry" ] && echo "$out" | grep -q '^levels: 1,4' &&
    echo "$out" | grep -q '^  4: jobs 4, rep 2' &&
    echo "$out" | grep -q '^worker 3: cpuset' &&
    ok "dry run: levels, order, bindings; nothing written" ||
    not_ok "dry run: levels, order, bindings; nothing written" "rc=$rc $out"
out=$("$FSCONC" run --dry-run --os freebsd --synthetic "package:2 core:8 pu:2" \
    -j 1,ncpu --disk md:malloc:512m --fs ufs --layout per-worker -r 1 2>&1); rc=$?
# The disk commands are md-setup's own plan for the same spec, verbatim.
cmds=$(echo "$out" | sed -n '/^disk commands:$/,/^batches:$/p' | sed '1d;$d')
mdplan=$("$FSCONC" md create --dry-run --disks 32 --os freebsd --fs ufs md:malloc:512m 2>&1)
if [ $rc -eq 0 ] && echo "$cmds" | grep -q 'mdconfig -a -t malloc' &&
    echo "$cmds" | grep -q '^newfs ' && [ "$cmds" = "$mdplan" ] &&
    echo "$out" | grep -q '^levels: 1,32' &&
    echo "$out" | grep -q '32 disks' &&
    echo "$out" | grep -q '^worker 31: cpuset'; then
	ok "dry run --os freebsd: md(4) commands, synthetic bindings"
else
	not_ok "dry run --os freebsd: md(4) commands, synthetic bindings" "rc=$rc $out
md plan: $mdplan"
fi
out=$("$FSCONC" run --dry-run --os linux --disk tmpfs -r 1 -j 2 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^disk commands:' &&
    echo "$out" | grep -qi 'mount' &&
    ok "dry run --os linux: disk commands" ||
    not_ok "dry run --os linux: disk commands" "rc=$rc $out"
echo "$out" | grep -q '^disk size: not given: 2048M or more, sized for 2 workers per disk' &&
    ok "dry run: a disk given no size is sized once the workload is loaded" ||
    not_ok "dry run: a disk given no size is sized once the workload is loaded" "$out"
out=$("$FSCONC" run --dry-run -w calib --order random --seed 3 -r 3 -j 1,2 2>&1)
out2=$("$FSCONC" run --dry-run -w calib --order random --seed 3 -r 3 -j 1,2 2>&1)
[ "$out" = "$out2" ] && echo "$out" | grep -q 'seed 3' &&
    ok "dry run: random order is reproducible with --seed" ||
    not_ok "dry run: random order is reproducible with --seed" "$out"

# --- workload options ---------------------------------------------------------
out=$("$FSCONC" run -w help 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'calib' && echo "$out" | grep -q 'iterations=' &&
    ok "-w help lists workloads and options" || not_ok "-w help lists workloads and options" "$out"
"$FSCONC" run -w calib -O colour=blue -R "$S/bad" >"$S/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'colour=blue' "$S/bad.out" && [ ! -e "$S/bad" ] &&
    ok "bad -O: exit 2, named, nothing written" ||
    not_ok "bad -O: exit 2, named, nothing written" "rc=$rc $(cat "$S/bad.out")"

# --- SIGINT: a readable set, no worker left, nothing mounted ------------------
disk=
is_root && disk="--disk tmpfs"
FSCONC_TEST_MARKER=$S/mk "$FSCONC" run -w calib -O iterations=300000000 \
    -j 1,ncpu -r 50 $disk -R "$S/int" >"$S/int.out" 2>&1 &
pid=$!
wait_until test -e "$S/mk.released"
kill -INT $pid
wait $pid; rc=$?
set=$(set_of "$S/int")
# Workers die with their parent, a moment after it.
workers() { ps -eo args | grep -c "[f]sconc run -w calib -O iterations=300000000.*$S/int"; }
no_workers() { [ "$(workers)" -eq 0 ]; }
wait_until no_workers
left=$(workers)
if [ $rc -ne 0 ] && [ -n "$set" ] && grep -qx 'interrupted=yes' "$set/meta" &&
    grep -q '^end=' "$set/meta" && [ "$left" -eq 0 ] &&
    awk -F'\t' '!/^#/ && NF < 10 { bad = 1 } END { exit bad }' "$set/runs.tsv"; then
	ok "SIGINT: set readable and marked, workers gone"
else
	not_ok "SIGINT: set readable and marked, workers gone" "rc=$rc left=$left $(cat "$S/int.out")"
fi
if is_root; then
	# calib makes no disk: a workload that does, mounted before the
	# signal (so this can fail) and gone after it.
	FSCONC_TEST_MARKER=$S/mk2 "$FSCONC" run -w syscall -O op=stat \
	    -O duration=0.5 -j 1,ncpu -r 50 --disk tmpfs:64m -R "$S/int2" \
	    >"$S/int2.out" 2>&1 &
	pid=$!
	wait_until test -e "$S/mk2.released"
	before=$(findmnt -rn -o TARGET | grep -cF "$FSCONC_RUNDIR")
	kill -INT $pid
	wait $pid
	m=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
	[ "$before" -ge 1 ] && [ -z "$m" ] && ok "SIGINT: nothing left mounted" ||
	    not_ok "SIGINT: nothing left mounted" "mounted before: $before; after: $m; $(cat "$S/int2.out")"
else
	skip "SIGINT: nothing left mounted" "needs root for a tmpfs disk"
fi

# --- a disk given no size scales with N (fsconc-disks.7) --------------
if is_root; then
	# 160 MiB of zeros, 160 KiB gzipped: footprint 160 MiB + 4 KiB, and
	# at -j 12 on one disk 12 x that x 1.25 = 2401 MiB (whole MiB up).
	mkdir "$S/big"
	head -c 167772160 /dev/zero >"$S/big/zero"
	tar -czf "$S/big.tgz" -C "$S/big" zero && rm "$S/big/zero"
	# The disk is made and described before the first release: stop there.
	FSCONC_TEST_MARKER=$S/mk3 "$FSCONC" run -a "$S/big.tgz" --disk tmpfs \
	    -j 12 -r 5 -R "$S/scaled" >"$S/scaled.out" 2>&1 &
	pid=$!
	wait_until test -e "$S/mk3.released"
	kill -INT $pid
	wait $pid
	set=$(set_of "$S/scaled")
	[ -n "$set" ] && grep -qx 'disk_size_rule=scaled' "$set/meta" &&
	    grep -qx 'disk_size=2517630976' "$set/meta" &&
	    grep -qx 'disk_fs_bytes=2517630976' "$set/meta" &&
	    ok "no --disk size: 12 workers x footprint x 1.25 > 2g, tmpfs of 2401 MiB" ||
	    not_ok "no --disk size: 12 workers x footprint x 1.25 > 2g, tmpfs of 2401 MiB" \
	    "$(cat "$S/scaled.out" "$set/meta" 2>&1)"
	out=$("$FSCONC" run -a "$S/big.tgz" --disk tmpfs:64m -j 12 -r 1 \
	    -R "$S/given" 2>&1)
	set=$(set_of "$S/given")
	[ -n "$set" ] && grep -qx 'disk_size_rule=given' "$set/meta" &&
	    grep -qx 'disk_size=67108864' "$set/meta" &&
	    ok "a --disk size given is kept (and may fill up)" ||
	    not_ok "a --disk size given is kept (and may fill up)" "$out $(cat "$set/meta" 2>&1)"
	rm -rf "$S/big" "$S/big.tgz"
else
	skip "no --disk size: 12 workers x footprint x 1.25 > 2g, tmpfs of 2401 MiB" "needs root"
	skip "a --disk size given is kept (and may fill up)" "needs root"
fi

# --- a disk that cannot be torn down at the end: reported, exit 1 -----------
if is_root; then
	export FSCONC_RUNDIR="$S/rundir-busy"
	mkdir -p -m 700 "$FSCONC_RUNDIR"
	"$FSCONC" run -w syscall -O op=stat -O duration=2 -j 1 -r 1 \
	    --disk tmpfs:16m -R "$S/busy" >"$S/busy.out" 2>&1 &
	pid=$!
	mounted() { findmnt -rn -o TARGET | grep -qF "$FSCONC_RUNDIR"; }
	wait_until mounted
	m=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR" | head -n 1)
	# Holds the mount (its working directory) until the run has ended,
	# past umount's retries however slow the machine.
	[ -n "$m" ] && (cd "$m" && exec sleep 600) &
	holder=$!
	wait $pid; rc=$?
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	"$FSCONC" md cleanup >/dev/null 2>&1
	if [ -n "$m" ] && [ $rc -eq 1 ] &&
	    grep -q 'not fully torn down' "$S/busy.out"; then
		ok "a disk left busy at the end: reported, exit 1"
	else
		not_ok "a disk left busy at the end: reported, exit 1" \
		    "rc=$rc mnt=$m $(cat "$S/busy.out")"
	fi
	left=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
	[ -z "$left" ] && ok "busy disk: md cleanup removes it" ||
	    not_ok "busy disk: md cleanup removes it" "$left"
	export FSCONC_RUNDIR="$S/rundir"
else
	skip "a disk left busy at the end: reported, exit 1" "needs root"
	skip "busy disk: md cleanup removes it" "needs root"
fi

# --- workers die with the controller (PR_SET_PDEATHSIG / watchdog) -----------
"$FSCONC" run -w calib -O iterations=3000000000 -j 2 -r 1 -R "$S/orphan" \
    >/dev/null 2>&1 &
pid=$!
# The workers carry the controller's command line: 3 processes once they
# exist, none once they have died with it (polled, bounded: a loaded
# machine is slow to deliver the parent-death signal, not broken).
orphans() {
	ps -eo args | grep -c "[f]sconc run -w calib -O iterations=3000000000.*$S/orphan"
}
orphans_at_least() { [ "$(orphans)" -ge "$1" ]; }
no_orphans() { [ "$(orphans)" -eq 0 ]; }
wait_until orphans_at_least 3
started=$?
kill -KILL $pid
wait $pid 2>/dev/null
wait_until no_orphans
left=$(orphans)
[ $started -eq 0 ] && [ "$left" -eq 0 ] &&
    ok "controller killed: its workers die with it" ||
    not_ok "controller killed: its workers die with it" "started $started, left $left"

# --- --warmup: batches of every level first, recorded, never averaged ------
out=$("$FSCONC" run $CAL -j 1,2 -r 3 --warmup 1 -R "$S/w" 2>"$S/w.err"); rc=$?
set=$(set_of "$S/w")
# The warmup column found by the header; rows whose value is 1.
warm=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "warmup") c = i; next }
    c && $c == 1 { print $1 "/" $2 }' "$set/runs.tsv" | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$(rows "$set/runs.tsv")" -eq 8 ] &&
    [ "$warm" = "1/1 2/1 " ] &&
    [ "$(head -n 2 "$set/runs.tsv" | tail -n 1 | cut -f1,2)" = "1	1" ] &&
    [ "$(wc -l <"$set/jobs-1.real")" -eq 3 ] &&
    [ "$(wc -l <"$set/jobs-2.real")" -eq 3 ] &&
    [ "$(rows "$set/workers.tsv")" -eq 9 ] &&
    grep -qx 'warmup=1' "$set/meta" &&
    echo "$out" | grep -Eq '^ +1 +3 ' && echo "$out" | grep -Eq '^ +2 +3 ' &&
    "$FSCONC" compare "$set" "$set" >/dev/null 2>&1; then
	ok "--warmup 1: a warm-up batch per level first, in runs.tsv, never averaged"
else
	not_ok "--warmup 1: a warm-up batch per level first, in runs.tsv, never averaged" \
	    "rc=$rc warm=$warm $out $(cat "$S/w.err" "$set/runs.tsv")"
fi
out=$("$FSCONC" run $CAL -j 1 -r 1 --warmup 2 --dry-run 2>&1)
echo "$out" | grep -q '^  1: jobs 1, warm-up 1$' &&
    echo "$out" | grep -q '^  2: jobs 1, warm-up 2$' &&
    echo "$out" | grep -q '^  3: jobs 1, rep 1$' &&
    ok "--warmup 2 --dry-run: the warm-ups listed first" ||
    not_ok "--warmup 2 --dry-run: the warm-ups listed first" "$out"
for bad in "--warmup -1" "--warmup x" "--warmup 101" "--warmup ''" \
    "--precision 5% --max-reps 3 --warmup 4"; do
	eval "\"\$FSCONC\" run $CAL -j 1 --dry-run $bad" >"$S/bad.out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q 'warmup' "$S/bad.out" &&
	    ok "$bad: usage error" ||
	    not_ok "$bad: usage error" "rc=$rc $(cat "$S/bad.out")"
done

# --- --note: what the run cannot see, as meta note.KEY --------------------
out=$("$FSCONC" run $CAL -j 1 -r 2 --note patch=v3-lockless \
    --note 'mitigations=off, smt on' -R "$S/n1" 2>&1); rc=$?
n1=$(set_of "$S/n1")
[ $rc -eq 0 ] && grep -qx 'note.patch=v3-lockless' "$n1/meta" &&
    grep -qx 'note.mitigations=off, smt on' "$n1/meta" &&
    ok "--note: meta note.KEY, one a note" ||
    not_ok "--note: meta note.KEY, one a note" "rc=$rc $out $(cat "$n1/meta")"
out=$("$FSCONC" run $CAL -j 1 -r 2 --note patch=v4 -R "$S/n2" 2>&1); rc=$?
n2=$(set_of "$S/n2")
out=$("$FSCONC" compare "$n1" "$n2" 2>&1)
echo "$out" | grep -q '^  note.patch  *x v3-lockless$' &&
    echo "$out" | grep -q '^  *+ v4$' &&
    ok "--note: compare shows where two sets' notes differ" ||
    not_ok "--note: compare shows where two sets' notes differ" "$out"
out=$("$FSCONC" run $CAL -j 1 --dry-run --note patch=v4 --note a.b-c_D=1 2>&1)
echo "$out" | grep -qx 'note: patch=v4, a.b-c_D=1' &&
    ok "--note --dry-run: the plan says them" ||
    not_ok "--note --dry-run: the plan says them" "$out"
long=$(printf '%0257d' 0)
nine=$(for i in 1 2 3 4 5 6 7 8 9; do printf ' --note k%d=v' $i; done)
# Each a command line's notes, refused before anything runs.
for bad in "--note patch" "--note =v3" "--note a/b=1" "--note 'a b=1'" \
    "--note $(printf '%033d' 0)=1" "--note k=$long" "--note 'k=a	b'" \
    "--note k=1 --note k=2" "$nine"; do
	eval "\"\$FSCONC\" run $CAL -j 1 --dry-run $bad" >"$S/bad.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q -- '--note' "$S/bad.out" &&
	    ! grep -q '^dry run' "$S/bad.out" &&
	    ok "$(printf '%.44s' "$bad"): refused, exit 2" ||
	    not_ok "$(printf '%.44s' "$bad"): refused, exit 2" \
	    "rc=$rc $(cat "$S/bad.out")"
done

# --- the kernel's config (FSCONC_TEST_KCONFIG stands for /proc/config.gz) ---
KC="$FSCONC_TOP/tests/fixtures/kconfig/generic.config"
# The normal form by other means: set options, sorted bytewise.
grep '^CONFIG_' "$KC" | grep -v '=n$' | LC_ALL=C sort >"$S/kc.want"
want=$(sha256sum <"$S/kc.want" | cut -d' ' -f1)
FSCONC_TEST_KCONFIG="$KC" "$FSCONC" run $CAL -j 1 -r 1 -R "$S/kc" >"$S/kc.out" 2>&1; rc=$?
set=$(set_of "$S/kc")
[ $rc -eq 0 ] && cmp -s "$set/kernel.config" "$S/kc.want" &&
    grep -qx "kernel.config_hash=$want" "$set/meta" &&
    grep -qx "kernel.config.source=$KC" "$set/meta" &&
    grep -qx 'kernel.config.HZ=250' "$set/meta" &&
    grep -qx 'kernel.preempt.config=none' "$set/meta" &&
    grep -qx 'kernel.config.DEBUG=DEBUG_KERNEL,DEBUG_LIST' "$set/meta" &&
    ok "run records the kernel's config: kernel.config sorted, its sha256sum in meta, the source" ||
    not_ok "run records the kernel's config: kernel.config sorted, its sha256sum in meta, the source" \
    "rc=$rc $(cat "$S/kc.out") $(grep kernel.config "$set/meta")"
gzip -c <"$KC" >"$S/config.gz"
FSCONC_TEST_KCONFIG="$S/config.gz" "$FSCONC" run $CAL -j 1 -r 1 -R "$S/kcgz" >"$S/kcgz.out" 2>&1; rc=$?
set=$(set_of "$S/kcgz")
[ $rc -eq 0 ] && grep -qx "kernel.config_hash=$want" "$set/meta" &&
    ok "a gzip'd config (/proc/config.gz's form): the same hash" ||
    not_ok "a gzip'd config (/proc/config.gz's form): the same hash" "rc=$rc $(cat "$S/kcgz.out")"
# Refused configs: the run goes on, says why, records none.
printf 'CONFIG_A=y\nCONFIG_B="\033]0;x\007"\n' >"$S/esc.config"
printf 'CONFIG_A=y\nCONFIG_A=m\n' >"$S/dup.config"
truncate -s 100M "$S/big.config"
for c in "esc.config:line 2: control byte 0x1b" "dup.config:line 2: CONFIG_A given again (line 1)" \
    "big.config:larger than a config may be" "none.config:No such file"; do
	f=${c%%:*} why=${c#*:}
	FSCONC_TEST_KCONFIG="$S/$f" "$FSCONC" run $CAL -j 1 -r 1 -R "$S/kc-$f" >"$S/kcbad.out" 2>&1; rc=$?
	set=$(set_of "$S/kc-$f")
	[ $rc -eq 0 ] && grep -q "kernel config: $S/$f: $why" "$S/kcbad.out" &&
	    grep -qx 'kernel.config.source=unavailable' "$set/meta" &&
	    ! grep -q '^kernel.config_hash=' "$set/meta" && ! [ -e "$set/kernel.config" ] &&
	    ok "config $f refused: named with its cause, the run goes on, none recorded" ||
	    not_ok "config $f refused: named with its cause, the run goes on, none recorded" \
	    "rc=$rc $(cat "$S/kcbad.out") $(grep kernel.config "$set/meta")"
done
rm -f "$S/big.config"
