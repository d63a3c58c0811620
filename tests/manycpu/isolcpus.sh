# Isolated CPUs, run inside a guest of tests/e2e/isolcpus_guest.sh:
# 2 CPUs booted with isolcpus=1, or 3 with isolcpus=1-2.  Every process
# inherits an affinity of CPU 0 alone.  Prints TAP, and the EC(2) seen
# as comments: under emulation timings mean nothing, so only the flags
# and the binding are checked.
#   sh tests/manycpu/isolcpus.sh            (FSCONC and FSCONC_TOP set)
. "$FSCONC_TOP/tests/lib.sh"

res=/tmp/isolcpus-results
# On tmpfs, not the default fresh ext4 on loop for each batch: the disk
# is not what is checked here, and the guest then needs no disk module
# (scripts/manycpu --tmpfs-only).
CAL="-w calib -O iterations=20000000 --disk tmpfs:16m"
run() {
	_l=$1; shift
	out=$("$FSCONC" run -R "$res" --label "$_l" $CAL "$@" 2>&1); rc=$?
	set=$(ls -d "$res"/*/"$_l"/*/ 2>/dev/null | tail -n 1)
}
# col FILE N COL: column COL of FILE's rows at level N.
col() { awk -F'\t' -v n="$2" -v c="$3" '!/^#/ && $1 == n { print $c }' "$1"; }
ec2() { echo "$out" | awk '$1 == 2 { print $6 }' | head -n 1; }
# spread NAME WANT META...: the last run ran and is not flagged, its -j 2
# workers' cpusets, first and last CPUs are WANT ("0 1 "), and its meta
# has each line META.
spread() {
	_n=$1 _want=$2 _m=0
	shift 2
	w=$(col "$set/workers.tsv" 2 4 | sort -u | tr '\n' ' ')
	s=$(col "$set/workers.tsv" 2 11 | sort -u | tr '\n' ' ')
	e=$(col "$set/workers.tsv" 2 12 | sort -u | tr '\n' ' ')
	for _k; do grep -qx "$_k" "$set/meta" || _m=1; done
	[ $rc -eq 0 ] && ! echo "$out" | grep -q oversubscribed &&
	    grep -qx 'oversubscribed=no' "$set/meta" && [ $_m -eq 0 ] &&
	    [ "$w" = "$_want" ] && [ "$s" = "$_want" ] && [ "$e" = "$_want" ] &&
	    ok "$_n" || not_ok "$_n" "rc=$rc cpusets '$w' start '$s' end '$e' $out"
}

iso=$(cat /sys/devices/system/cpu/isolated)
aff=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
echo "# guest: $(nproc --all) CPUs, isolated $iso, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$iso" = 1-2 ]; then
	# Two isolated CPUs: --cpus isolated runs -j 2 on them, one worker
	# each (the default --bind core), and is not flagged; without it
	# the two workers share CPU 0 and the set is flagged.
	[ "$aff" = 0 ] && ok "guest: CPUs 1-2 isolated, affinity 0" ||
	    not_ok "guest: CPUs 1-2 isolated, affinity 0" "affinity '$aff'"
	run inherited -j 1,2 -r 3
	echo "# without --cpus: EC(2) $(ec2)"
	[ $rc -eq 0 ] && echo "$out" | grep -q '^oversubscribed: -j 2 on 1 CPUs' &&
	    grep -qx 'oversubscribed=2' "$set/meta" &&
	    grep -qx 'cpu.isolated=1-2' "$set/meta" &&
	    ok "2 isolated, without --cpus: -j 2 oversubscribed on CPU 0" ||
	    not_ok "2 isolated, without --cpus: -j 2 oversubscribed on CPU 0" "rc=$rc $out"
	run isolated -j 1,2 -r 3 --cpus isolated
	echo "# --cpus isolated: EC(2) $(ec2)"
	spread "--cpus isolated: -j 2 on CPUs 1 and 2, a worker each, not flagged" \
	    "1 2 " cpus=isolated cpuset=1-2
	exit 0
fi
[ "$iso" = 1 ] && [ "$aff" = 0 ] && ok "guest: CPU 1 isolated, affinity 0" ||
    not_ok "guest: CPU 1 isolated, affinity 0" "isolated '$iso' affinity '$aff'"

run inherited -j 1,2 -r 3
echo "# without --cpus: EC(2) $(ec2)"
[ $rc -eq 0 ] && echo "$out" | grep -q '^oversubscribed: -j 2 on 1 CPUs' &&
    echo "$out" | grep -q '^cpus: workers on 0, the affinity inherited, of online 0-1 (isolated 1, nohz_full none); CPUs 1 outside it' &&
    grep -qx 'oversubscribed=2' "$set/meta" && grep -qx 'cpu.isolated=1' "$set/meta" &&
    grep -qx 'cpu.affinity=0' "$set/meta" &&
    ok "without --cpus: oversubscribed, the isolated CPU named" ||
    not_ok "without --cpus: oversubscribed, the isolated CPU named" "rc=$rc $out"

run online -j 1,2 -r 3 --cpus online
echo "# --cpus online: EC(2) $(ec2)"
spread "--cpus online: -j 2 not oversubscribed, a worker on each CPU" \
    "0 1 " cpus=online

run isolated -j 1,ncpu -r 2 --cpus isolated --bind none
echo "# --cpus isolated: $(echo "$out" | awk '$1 == 1 { print "T1", $3 }' | head -n 1)"
s=$(col "$set/workers.tsv" 1 11 | sort -u | tr '\n' ' ')
e=$(col "$set/workers.tsv" 1 12 | sort -u | tr '\n' ' ')
[ $rc -eq 0 ] && grep -qx 'jobs=1' "$set/meta" && grep -qx 'cpuset=1' "$set/meta" &&
    [ "$s" = "1 " ] && [ "$e" = "1 " ] &&
    ok "--cpus isolated: ncpu 1, the worker on the isolated CPU" ||
    not_ok "--cpus isolated: ncpu 1, the worker on the isolated CPU" \
    "rc=$rc start '$s' end '$e' $out"
