# Behaviour at many CPUs, run inside the guest scripts/manycpu boots (16
# CPUs in 2 packages of 8 cores, 2 NUMA nodes, one per package) by
# tests/e2e/manycpu.sh, in a scratch directory shared with the host.
# Prints TAP.  Never checks a timing: under emulation they mean nothing.
# Every process start costs a second or more in the emulator: few fsconc
# runs, each used for several checks, and few helper processes.
#   sh tests/manycpu/checks.sh            (FSCONC and FSCONC_TOP set)
. "$FSCONC_TOP/tests/lib.sh"

# Sets go to the guest's tmpfs (fsync over 9p is slow) and are copied
# to the shared directory at the end, for a look from the host.
res=/tmp/manycpu-results
trap 'cp -r "$res" . 2>/dev/null' EXIT
sysfs=/sys/devices/system
mounts_before=$(findmnt -rn -o TARGET | sort)
# mark WHAT: the guest's uptime as a TAP comment (a builtin: no process),
# so that a slow part shows in the suite's output.
mark() { read -r _up _ </proc/uptime; echo "# guest up ${_up} s: $1"; }

# The package of every CPU ("0 0 ... 1 1", CPU order; read without a
# process each) and the CPUs of each NUMA node, as the kernel says.
pkgs=
c=0
while [ -e "$sysfs/cpu/cpu$c/topology/physical_package_id" ]; do
	read -r p <"$sysfs/cpu/cpu$c/topology/physical_package_id"
	pkgs="$pkgs $p"
	c=$((c + 1))
done
# (sh's read gets nothing from cpulist, which reads whole or not at all)
node0=$(cat "$sysfs/node/node0/cpulist")
node1=$(cat "$sysfs/node/node1/cpulist")

# run LABEL ARGS...: fsconc run into $res; output in $out, status in
# $rc, the set in $set.
run() {
	_l=$1; shift
	out=$("$FSCONC" run -R "$res" --label "$_l" -r 1 "$@" 2>&1); rc=$?
	set=$(ls -d "$res"/*/"$_l"/*/ 2>/dev/null | tail -n 1)
}
# col FILE N COL: column COL of FILE's rows at level N.
col() { awk -F'\t' -v n="$2" -v c="$3" '!/^#/ && $1 == n { print $c }' "$1"; }

# --- topology and plans ---------------------------------------------------
mark "topology and plans"
# planfile DISTRIB BIND: topo's plans for -j 1,2,4,8,16; plan N reads one.
for p in compact:core scatter:core scatter:pu; do
	"$FSCONC" topo -j 1,2,4,8,16 --distrib "${p%:*}" --bind "${p#*:}" \
	    >"plan.$p" 2>&1
done
plan() {
	awk -v n="$1" '/^plan: / { on = ($0 ~ "^plan: " n " worker") }
	    on && /^worker / { print $4 }' "plan.$2:${3:-core}"
}
read -r topo <plan.compact:core
set -- $pkgs
case $topo in
"topology: 2 packages, 16 cores, 16 PUs, 2 NUMA nodes"*)
	[ $# -eq 16 ] && [ "$1" != "${16}" ] ;;
*)	false ;;
esac && ok "topology: 2 packages, 16 cores, 2 NUMA nodes" ||
    not_ok "topology: 2 packages, 16 cores, 2 NUMA nodes" "$topo; packages$pkgs"
# Per level: "N compact-cpus | scatter: in cpu 0's package, in the other,
# distinct cores | scatter-cpus".
awk -v pkgs="$pkgs" '
	BEGIN { split(pkgs, pk, " ") }
	FNR == 1 { f++ }
	/^plan: / { n = $2 }
	/^worker / { c = $4
		if (f == 1) cc[n] = cc[n] " " c
		else { sc[n] = sc[n] " " c
			if (pk[c + 1] == pk[1]) s0[n]++; else s1[n]++
			if (!((n, c) in seen)) d[n]++; seen[n, c] = 1 } }
	END { for (n = 1; n <= 16; n *= 2)
		print n, cc[n], "|", s0[n] + 0,
		    s1[n] + 0, d[n] + 0, "|", sc[n] }
' plan.compact:core plan.scatter:core >plan.levels
while read -r n rest; do
	cpus=${rest%%|*} rest=${rest#*|}
	set -- $rest
	want=
	i=0
	while [ $i -lt "$n" ]; do want="$want $i"; i=$((i + 1)); done
	[ "$(echo $cpus)" = "$(echo $want)" ] &&
	    ok "plan compact -j $n: cores 0..$((n - 1))" ||
	    not_ok "plan compact -j $n: cores 0..$((n - 1))" "$cpus"
	# One per package before a second in either; no core twice.
	w0=$(((n + 1) / 2)) w1=$((n / 2))
	[ "$1" -eq $w0 ] && [ "$2" -eq $w1 ] && [ "$3" -eq "$n" ] &&
	    ok "plan scatter -j $n: $w0 + $w1 workers in the two packages" ||
	    not_ok "plan scatter -j $n: $w0 + $w1 workers in the two packages" \
	    "$rest"
done <plan.levels

# --- every worker ran where it was bound; the gate; oversubscription -------
mark "every worker ran where it was bound"
# bound SET: every worker's cpu_start and cpu_end lie in its cpuset.
bound() {
	awk -F'\t' '
	function in_set(c, s,   n, i, r, a) {
		if (c !~ /^[0-9]+$/) return 0
		n = split(s, a, ",")
		for (i = 1; i <= n; i++)
			if (split(a[i], r, "-") == 2) {
				if (c + 0 >= r[1] + 0 && c + 0 <= r[2] + 0) return 1
			} else if (c + 0 == a[i] + 0) return 1
		return 0
	}
	/^#/ { next }
	{ n++ }
	!in_set($11, $4) || !in_set($12, $4) {
		print "worker " $3 " of " $1 ": cpuset " $4 ", cpu_start " $11 \
		    ", cpu_end " $12; bad = 1 }
	END { exit bad || n == 0 }' "$1/workers.tsv"
}
for r in pu:scatter:process core:compact:thread pu:scatter:thread \
    core:compact:process; do
	b=${r%%:*} d=${r#*:}; d=${d%:*} m=${r##*:}
	name="--bind $b --distrib $d --mode $m"
	# One of them also oversubscribes.
	j=16; [ $r = pu:scatter:process ] && j=16,32
	run "bind-$b-$m" -w calib -O iterations=1000000 -j $j --bind "$b" \
	    --distrib "$d" --mode "$m"
	if [ $rc -ne 0 ] || [ -z "$set" ]; then
		not_ok "$name: ran" "$out"
		continue
	fi
	o=$(bound "$set") &&
	    [ "$(col "$set/workers.tsv" 16 4)" = "$(plan 16 "$d" "$b")" ] &&
	    ok "$name -j $j: each worker on its planned CPU at start and end" ||
	    not_ok "$name -j $j: each worker on its planned CPU at start and end" \
	    "$o$(cat "$set/workers.tsv")"
	# The gate: all 16 released, the spread of their starts recorded.
	sk=$(col "$set/runs.tsv" 16 11)
	[ "$(col "$set/workers.tsv" 16 10 | grep -c '^ok$')" -eq 16 ] &&
	    awk -v s="$sk" -v t="$(col "$set/runs.tsv" 16 3)" \
	    'BEGIN { exit !(s ~ /^[0-9.]+$/ && s + 0 <= t + 0) }' &&
	    echo "$out" | grep -q '^start skew: at most [0-9.]* s' &&
	    ok "$name -j 16: 16 released, start_skew $sk s recorded and reported" ||
	    not_ok "$name -j 16: 16 released, start_skew $sk s recorded and reported" \
	    "$out$(cat "$set/runs.tsv")"
	[ $j = 16 ] && continue
	grep -q '^oversubscribed=32$' "$set/meta" &&
	    echo "$out" | grep -q '^oversubscribed: -j 32 on 16 CPUs' &&
	    [ "$(col "$set/workers.tsv" 32 10 | grep -c '^ok$')" -eq 32 ] &&
	    ok "-j 32 on 16 CPUs: flagged in meta and summary, 32 workers ran" ||
	    not_ok "-j 32 on 16 CPUs: flagged in meta and summary, 32 workers ran" \
	    "$out$(grep oversub "$set/meta")"
done

# --- --bind numa: workers placed by node --------------------------------------
mark "bind numa: workers placed by node"
run numa -w calib -O iterations=1000000 -j 4 --bind numa --distrib scatter
# Two workers bound to each node's CPUs (in hwloc_distrib's order).
got=$(col "$set/workers.tsv" 4 4 2>/dev/null | sort | tr '\n' ' ')
want=$(printf '%s\n' "$node0" "$node0" "$node1" "$node1" | sort | tr '\n' ' ')
[ $rc -eq 0 ] && o=$(bound "$set") && [ "$got" = "$want" ] &&
    ok "--bind numa --distrib scatter -j 4: 2 workers per node, each on its node" ||
    not_ok "--bind numa --distrib scatter -j 4: 2 workers per node, each on its node" \
    "want $want, got $got; $o$out"

# --- idle accounting ------------------------------------------------------------
mark "idle accounting"
run idle -w syscall -O op=null -O duration=4 -j 1,16 --disk tmpfs:16m
i1=$(col "$set/runs.tsv" 1 8) i16=$(col "$set/runs.tsv" 16 8)
[ $rc -eq 0 ] && awk -v a="$i1" 'BEGIN { exit !(a >= 0.8 && a <= 1) }' &&
    ok "idle at -j 1 is about 15/16 ($i1)" ||
    not_ok "idle at -j 1 is about 15/16 ($i1)" "$out"
# Not "low": the emulator loses the ticks of busy CPUs that wait for a
# host core, so their time shows as idle (see README).  Only the sign.
[ $rc -eq 0 ] && awk -v a="$i16" -v b="$i1" 'BEGIN { exit !(a >= 0 && a < b) }' &&
    ok "idle at -j 16 below idle at -j 1 ($i16)" ||
    not_ok "idle at -j 16 below idle at -j 1 ($i16)" "$out"
awk -F'\t' '/^#/ { next } $8 != "-" && ($8 < 0 || $8 > 1) { bad = 1 } END { exit bad }' \
    "$res"/*/*/*/runs.tsv &&
    ok "idle within 0..1 in every batch of every run" ||
    not_ok "idle within 0..1 in every batch of every run" \
    "$(cut -f 1,8 "$res"/*/*/*/runs.tsv)"

# --- disks ------------------------------------------------------------------------
mark "disks"
# -j 16 per-worker: 16 file systems mounted at once (a poller counts them
# while the run lasts, in shell builtins: a process takes seconds to
# start here, the batch lasts 3), all gone afterwards.
fsmounts() {
	_c=0
	while read -r _d _m _r; do
		case $_m in /run/fsconc/*/mnt) _c=$((_c + 1)) ;; esac
	done </proc/mounts
	echo $_c
}
( max=0
  while [ ! -e /tmp/poll.stop ]; do
	c=$(fsmounts)
	[ "$c" -gt $max ] && max=$c && echo $max >/tmp/poll.max
  done ) &
poller=$!
run perworker -w syscall -O op=stat -O duration=3 -j 16 --layout per-worker \
    --disk tmpfs:16m
touch /tmp/poll.stop
wait $poller
[ $rc -eq 0 ] && [ "$(cat /tmp/poll.max 2>/dev/null)" -eq 16 ] && [ "$(fsmounts)" -eq 0 ] &&
    ok "--layout per-worker -j 16: 16 disks made, all torn down" ||
    not_ok "--layout per-worker -j 16: 16 disks made, all torn down" \
    "at most $(cat /tmp/poll.max 2>/dev/null) mounted at once; $out"

# syscall states no footprint: the documented default 2g, whatever N.
run default -w syscall -O op=stat -O count=100 -j 1,16 --disk tmpfs
[ $rc -eq 0 ] && grep -q '^disk_size=2147483648$' "$set/meta" &&
    [ "$(col "$set/runs.tsv" 16 10)" = ok ] &&
    ok "default disk size at -j 1,16: 2g as documented" ||
    not_ok "default disk size at -j 1,16: 2g as documented" \
    "$(grep '^disk' "$set/meta" 2>/dev/null)$out"
# 16 disks of the default 2g do not fit in this guest: refused, torn down.
run pw-default -w syscall -O op=stat -O count=100 -j 16 --layout per-worker \
    --disk tmpfs
[ $rc -ne 0 ] && echo "$out" | grep -q 'does not fit in available memory' &&
    [ "$(fsmounts)" -eq 0 ] &&
    ok "-j 16 per-worker at the default 2g each: refused, naming the memory" ||
    not_ok "-j 16 per-worker at the default 2g each: refused, naming the memory" \
    "rc $rc: $out"

# --- nothing left behind -----------------------------------------------------------
mark "nothing left behind"
after=$(findmnt -rn -o TARGET | sort)
[ "$after" = "$mounts_before" ] && [ -z "$(losetup -a)" ] &&
    [ -z "$(zramctl -n 2>/dev/null)" ] &&
    ok "nothing left mounted, no loop or zram device left" ||
    not_ok "nothing left mounted, no loop or zram device left" \
    "before: $mounts_before
after: $after
$(losetup -a)$(zramctl 2>/dev/null)"
exit 0
