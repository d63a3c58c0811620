# Sourced by the real-boot suites (tests/boot/run): one boot campaign in a fresh Debian guest of
# scripts/bootguest, started inside it as a user would
# (tests/boot/guest.sh), through a real boot loader or kexec.
#   boot_campaign DIR METHOD [BOOTS [TIMEOUT]]
# leaves the share in DIR/share (journal, status, report, sets, the boot
# state before and after) and the machine in DIR/state; exit status
# bootguest's.  $BG_UEFI=1 boots through OVMF and systemd-boot.
# BG_PREPARE and BG_EVERYBOOT name scripts the guest sources at its first
# boot (after installing fsconc, before recording the state) and at
# every later boot (before waiting for the campaign): the faults.
# BG_ONE_THREAD=1: every vCPU on one host thread (scripts/bootguest
# --one-thread), for a campaign whose figures are not judged.
# BG_BOOT_TIMEOUT: the campaign's boot-timeout (15m): a suite stretches
# it by the host's load.
# BG_DIRECT=WORDS: QEMU boots the default entry's kernel itself, its
# command line plus WORDS (scripts/bootguest --direct): no boot loader,
# for a campaign that reboots by kexec only (a reboot of the guest's
# own comes back to that boot, not to GRUB's choice).
# BG_QUICK=1: the guest powers off at the campaign's end, without the
# plain reboot that checks the machine's default boot (state.last, the
# state at the campaign's last boot, is all there is to check).

# Words for the kexec boots of the short campaigns: less for the
# emulator to do, and systemd waiting for the disk's partitions as long
# as a loaded host needs (its 90 s sent a boot to emergency mode at a
# host load of 20).
BG_FAST="mitigations=off systemd.default_device_timeout_sec=900"

# kexec's configurations (kexec and command): the guest's own kernel,
# A on one CPU, B on both; $BG_CONFIGS names those wanted, $BG_CMDLINE
# adds words to each one's command line.
kexec_configs() {
	for _c in ${BG_CONFIGS:-A B}; do
		echo "config $_c"
		echo " kernel /boot/vmlinuz-@KVER@"
		echo " initrd /boot/initrd.img-@KVER@"
		[ "$_c" = B ] || echo " cmdline maxcpus=1"
		[ -z "${BG_CMDLINE:-}" ] || echo " cmdline $BG_CMDLINE"
	done
}

# The campaign file of METHOD, BOOTS boots per configuration; @KVER@ is
# the guest's kernel release.  A: one CPU; B: both.  $BG_RUN: the run's
# options (the workload).
campaign_text() {
	cat <<-EOF
	run ${BG_RUN:--j 1,2 -r 10 --disk tmpfs:256m --disturb-limit off}
	boots $2
	seed 5
	retries ${BG_RETRIES:-2}
	baseline $([ "${BG_BROKEN:-0}" = 1 ] && echo B || { set -- ${BG_CONFIGS:-A B}; echo "$1"; })
	boot-timeout ${BG_BOOT_TIMEOUT:-15m}
	method $1
	EOF
	case $1 in
	kexec)	kexec_configs ;;
	grub-reboot) [ "${BG_BROKEN:-0}" = 0 ] || { cat <<-EOF
		config X
		 entry broken
		 cmdline maxcpus=1
		config B
		 entry debian
		 cmdline quiet
		EOF
		return; }
		cat <<-EOF
		config A
		 entry debian-1cpu
		 cmdline maxcpus=1
		config B
		 entry debian
		 cmdline bootguest.entry=debian
		EOF
		;;
	systemd-boot) cat <<-EOF
		config A
		 entry debian-1cpu.conf
		 cmdline maxcpus=1
		config B
		 entry debian.conf
		 cmdline bootguest.entry=debian
		EOF
		;;
	command) echo "command /mnt/bootguest/kexec-boot"
		kexec_configs ;;
	esac
}

boot_campaign() {
	_d=$1
	mkdir -p "$_d/share" "$_d/state"
	cp "$FSCONC" "$_d/share/fsconc"
	cp "$TOP/tests/boot/guest.sh" "$_d/share/boot.sh"
	campaign_text "$2" "${3:-2}" >"$_d/share/campaign.in"
	# The command method's "machine controller": kexec into what the
	# campaign asks for, with the guest's root on the command line.
	cat >"$_d/share/kexec-boot" <<-'EOF'
	#!/bin/sh
	base="root=/dev/vda3 ro console=ttyS0,115200 panic=10 quiet no_timer_check"
	kexec -l "$FSCONC_CAMPAIGN_KERNEL" --initrd="$FSCONC_CAMPAIGN_INITRD" \
	    --command-line="$base $FSCONC_CAMPAIGN_CMDLINE" && systemctl kexec
	EOF
	chmod 755 "$_d/share/kexec-boot"
	# Quick: no plain reboot after the campaign, the guest powers off.
	[ "${BG_QUICK:-0}" = 0 ] || : >"$_d/share/quick"
	[ -z "${BG_PREPARE:-}" ] || cp "$BG_PREPARE" "$_d/share/prepare.sh"
	[ -z "${BG_EVERYBOOT:-}" ] || cp "$BG_EVERYBOOT" "$_d/share/everyboot.sh"
	_tmo=${4:-900}
	set --
	[ "${BG_UEFI:-0}" != 1 ] || set -- "$@" --uefi
	[ "${BG_ONE_THREAD:-0}" != 1 ] || set -- "$@" --one-thread
	[ -z "${BG_DIRECT+set}" ] || set -- "$@" --direct "$BG_DIRECT"
	sh "$TOP/scripts/bootguest" "$@" --timeout "$_tmo" boot "$_d/state" \
	    "$_d/share"
}

# EC(2) of a set copied to the share: 2 mean(T1) / mean(T2).
set_ec() {
	awk 'FNR == NR { s1 += $1; n1++; next } { s2 += $1; n2++ }
	    END { if (n1 && n2) printf "%.3f", 2 * (s1 / n1) / (s2 / n2) }' \
	    "$1/jobs-1.real" "$1/jobs-2.real"
}

# boot_check DIR METHOD BOOTS TIMEOUT: one campaign, checked (TAP, with
# tests/lib.sh): every boot ran its configuration, A's sets on 1 CPU and
# B's on 2, the report's EC(2) of B minus A over boots, and the machine
# as the campaign found it.
boot_check() {
	w=$1 m=$2 nb=$3
	start=$(date +%s)
	boot_campaign "$w" "$m" "$nb" "$4" >"$w/boot.out" 2>&1
	brc=$?
	took=$(($(date +%s) - start))
	s=$w/share
	j=$s/journal
	ng=$(wc -l <"$s/boots.log" 2>/dev/null || echo 0)
	nd=$(grep -c '^done [0-9]* [0-9]* 0 ' "$j" 2>/dev/null)
	if [ $brc -eq 0 ] && [ -e "$s/finished" ] && grep -q '^finish ' "$j" &&
	    [ "${nd:-0}" -eq $((2 * nb)) ]; then
		ok "$m: $((2 * nb)) boots ran their configuration's run, the campaign finished ($ng guest boots, ${took}s)"
	else
		not_ok "$m: $((2 * nb)) boots ran their configuration's run, the campaign finished ($ng guest boots, ${took}s)" \
		    "bootguest $brc; $(cat "$w/boot.out" "$s/start.out" "$j" "$s/boot.log" 2>&1 | tail -n 40)"
	fi
	bad=0 eca= ecb=
	for set in "$s"/sets/*; do
		[ -d "$set" ] || continue
		c=$(sed -n 's/^campaign_config=//p' "$set/meta")
		cpus=$(sed -n 's/^ncpu=//p' "$set/meta")
		b=$(sed -n 's/^campaign_boot=//p' "$set/meta")
		e=$(set_ec "$set")
		case $c/$cpus in A/1) eca="$eca $e" ;; B/2) ecb="$ecb $e" ;; *) bad=$((bad + 1)) ;; esac
		echo "# $m: boot $b config $c ncpu $cpus EC(2) $e"
	done
	[ $bad -eq 0 ] && [ "$(echo $eca | wc -w)" -eq "$nb" ] &&
	    [ "$(echo $ecb | wc -w)" -eq "$nb" ] &&
	    ok "$m: $nb sets of A on 1 CPU, $nb of B on 2; per boot EC(2) A:$eca B:$ecb" ||
	    not_ok "$m: $nb sets of A on 1 CPU, $nb of B on 2; per boot EC(2) A:$eca B:$ecb" "bad=$bad"
	# The report's comparison over boots (with 2 boots a side, Student's
	# t has few degrees of freedom: the figures are printed whatever).
	if command -v python3 >/dev/null 2>&1 && [ -s "$s/report.json" ]; then
		diff=$(python3 - "$s/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["statistics"]
cf = {c["name"]: c for c in d["configurations"]}
m = [l for l in cf["B"]["levels"] if l["jobs"] == 2][0]["ec_vs_baseline"]
f = lambda x: "-" if x is None else "%.3f" % x
print("%s [%s, %s] %s" % (f(m["diff"]), f(m["lo"]), f(m["hi"]), m["verdict"]))
PY
)
		echo "# $m: EC(2) B - A over boots: $diff"
		# Under 3 boots a side the report makes no test: the figures
		# are shown, the campaign's report is what is checked. With 3,
		# the report's figure is held inside its interval and marked
		# invalid; the direction is held on the boots' medians, and
		# whether the interval excludes 0 is shown, not held: emulated
		# timings mean nothing, and one disturbed boot of 3 took the
		# mean across 0 in CI twice (a B boot at EC(2) 0.488 gave
		# -0.028 [-1.936, 1.880]; a batch at CV 106% gave [-0.044,
		# 2.064]).
		if [ "$nb" -lt 3 ]; then
			grep -q 'EC(2) ' "$s/report.out" &&
			    ok "$m: campaign report over $nb boots a side (no test under 3): EC(2) B - A $diff" ||
			    not_ok "$m: campaign report over $nb boots a side" \
			    "$(cat "$s/report.out" "$s/report.err")"
		elif note=$(echo "$diff|$eca|$ecb" | awk -F'|' '
		    function median(s,  v, n, i, j, t) {
			n = split(s, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			return (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) + 0
		    }
		    { d = $1; gsub(/[][,]/, " ", d); split(d, f, " ")
		      if (f[2] > 0) printf " (excludes 0)"
		      exit !(median($3) > median($2) && f[2] <= f[1] &&
			  f[1] <= f[3] && f[4] == "invalid") }'); then
			ok "$m: campaign report: EC(2) B - A inside its interval, invalid (A oversubscribed), B's median boot above A's: $diff$note"
		else
			not_ok "$m: campaign report: EC(2) B - A inside its interval, invalid (A oversubscribed), B's median boot above A's: $diff; per boot A:$eca B:$ecb" \
			    "$(cat "$s/report.out" "$s/report.err")"
		fi
	else
		not_ok "$m: campaign report: EC(2) of B minus A over boots" \
		    "$(cat "$s/report.out" "$s/report.err" 2>&1)"
	fi
	boot_after "$m" "$s"
}

# The machine as the campaign found it, at the boot after the campaign
# (a plain reboot): default entry, command line, no one-shot, no kexec
# image, no fsconc unit; /etc the same.
boot_after() {
	if [ -s "$2/state.before" ] && cmp -s "$2/state.before" "$2/state.after"; then
		ok "$1: the boot state after is the one before: $(tr '\n' ';' <"$2/state.after")"
	else
		not_ok "$1: the boot state after is the one before" \
		    "$(diff "$2/state.before" "$2/state.after" 2>&1)"
	fi
	if [ -s "$2/etc.before" ] && cmp -s "$2/etc.before" "$2/etc.after"; then
		ok "$1: /etc unchanged by the campaign"
	else
		not_ok "$1: /etc unchanged by the campaign" \
		    "$(diff "$2/etc.before" "$2/etc.after" 2>&1 | head -n 20)"
	fi
	pgrep -f "path=$2," >/dev/null &&
	    not_ok "$1: no qemu left behind" "$(pgrep -af "path=$2,")" ||
	    ok "$1: no qemu left behind"
}

# boot_fault_stop DIR METHOD TIMEOUT: `campaign stop` at the campaign's
# second boot: the journal says so, no reboot of fsconc's follows (the
# guest's 4th boot is the one after the campaign), and the machine is as
# the campaign found it.
boot_fault_stop() {
	w=$1 m=$2
	start=$(date +%s)
	BG_EVERYBOOT=$TOP/tests/boot/fault-stop.sh \
	    boot_campaign "$w" "$m" 2 "$3" >"$w/boot.out" 2>&1
	brc=$?
	took=$(($(date +%s) - start))
	s=$w/share
	ng=$(wc -l <"$s/boots.log" 2>/dev/null || echo 0)
	if [ $brc -eq 0 ] && [ -e "$s/finished" ] && [ "$(cat "$s/stop.rc" 2>/dev/null)" = 0 ] &&
	    grep -q '^stop ' "$s/journal" && ! grep -q '^finish ' "$s/journal" &&
	    [ "$ng" -eq 4 ]; then
		ok "$m, stopped at its second boot: recorded, no reboot after ($ng guest boots, ${took}s)"
	else
		not_ok "$m, stopped at its second boot: recorded, no reboot after ($ng guest boots, ${took}s)" \
		    "bootguest $brc; $(cat "$w/boot.out" "$s/stop.out" "$s/journal" "$s/boot.log" 2>&1 | tail -n 30)"
	fi
	boot_after "$m, stopped" "$s"
}

# The campaign's journal, as the guest copied it to the share: fault_j
# PATTERN... holds when each extended regex matches some line.
fault_j() {
	for _p; do
		grep -Eq "$_p" "$s/journal" 2>/dev/null || return 1
	done
}
# The quick faults' after-check: the state at the campaign's last boot
# (no plain reboot after), command line aside: no fsconc unit, no kexec
# image, no one-shot, and /etc as it was is checked at the next boot of
# the long form only.
fault_after() {
	if [ -s "$s/state.before" ] && [ -s "$s/state.last" ] &&
	    [ "$(grep -v '^cmdline' "$s/state.before")" = "$(grep -v '^cmdline' "$s/state.last")" ]; then
		ok "$1: after it, no fsconc unit, no kexec image, no one-shot"
	else
		not_ok "$1: after it, no fsconc unit, no kexec image, no one-shot" \
		    "$(diff "$s/state.before" "$s/state.last" 2>&1)"
	fi
	pgrep -f "path=$s," >/dev/null &&
	    not_ok "$1: no qemu left behind" "$(pgrep -af "path=$s,")" ||
	    ok "$1: no qemu left behind"
}
# fault_campaign DIR METHOD BOOTS TIMEOUT: a campaign with a tiny
# workload (BG_RUN unless set) for a fault, then the machine's own
# reboot (its default entry) where boot_after's state is taken; sets w,
# s, brc, took and ng (the guest's boots, that last one included) and
# returns brc (bootguest's status: powercut runs it in the background).
fault_campaign() {
	w=$1
	s=$w/share
	mkdir -p "$w"
	start=$(date +%s)
	BG_RUN=${BG_RUN:--j 1 -r 2 --disk tmpfs:64m --disturb-limit off} \
	    boot_campaign "$w" "$2" "$3" "$4" >"$w/boot.out" 2>&1
	brc=$?
	took=$(($(date +%s) - start))
	ng=$(wc -l <"$s/boots.log" 2>/dev/null || echo 0)
	return $brc
}
# tap STATUS NAME DETAIL: ok NAME when STATUS ($? of the checks) is 0.
tap() {
	if [ "$1" -eq 0 ]; then ok "$2"; else not_ok "$2" "$3"; fi
}
fault_why() {
	echo "bootguest $brc; $(cat "$w/boot.out" "$s/start.out" "$s/journal" "$s/status.out" "$s/boot.log" 2>&1 | tail -n 40)"
}

# boot_fault_powercut DIR TIMEOUT: QEMU killed (SIGKILL) while the
# campaign's first boot runs its run, then the same disk started again:
# the default boot's resume records that boot interrupted and does it
# again; the campaign finishes.
boot_fault_powercut() {
	s=$1/share
	BG_CONFIGS=B BG_CMDLINE=$BG_FAST BG_EVERYBOOT=$TOP/tests/boot/fault-powercut.sh \
	    BG_RUN="-j 1,2 -r 6 --disk tmpfs:160m --disturb-limit off" \
	    fault_campaign "$1" kexec 1 "$2" &
	bgp=$!
	t0=$(date +%s)
	# The guest says when its run is on; the cut follows at once.
	_i=0
	until [ -e "$s/cut.now" ] || ! kill -0 $bgp 2>/dev/null ||
	    [ $_i -ge $(($2 * 5)) ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	cut="$(cat "$s/cut.now" 2>/dev/null)"
	[ -s "$1/state/qemu.pid" ] && kill -KILL "$(cat "$1/state/qemu.pid")"
	wait $bgp
	brc1=$?
	w=$1
	sh "$TOP/scripts/bootguest" --timeout "$2" boot "$w/state" "$s" \
	    >>"$w/boot.out" 2>&1
	brc=$?
	took=$(($(date +%s) - t0))
	ng=$(wc -l <"$s/boots.log" 2>/dev/null || echo 0)
	[ -n "$cut" ] && [ $brc1 -ne 0 ] && [ $brc -eq 0 ] &&
	    fault_j '^run 1 1$' '^interrupted 1 1$' '^schedule 1 2 ' \
	    '^done 1 2 0 /' '^finish ' && ! grep -q '^done 1 1 ' "$s/journal"
	tap $? "power cut in boot 1's run ($cut): recorded interrupted at the next boot, redone as boot 2, finished ($ng guest boots, ${took}s)" \
	    "first bootguest $brc1; $(fault_why)"
	boot_after "power cut" "$s"
}

# boot_fault_loop DIR TIMEOUT: a configuration whose kernel never
# reaches the resume (init=/bin/false: it panics, and panic=10 reboots
# to the firmware's default): each such boot is found wrong at the
# default's resume, retried once, then the configuration is failed and
# the campaign over; nothing reboots after.
boot_fault_loop() {
	BG_CONFIGS=B BG_CMDLINE=init=/bin/false BG_RETRIES=1 \
	    fault_campaign "$1" kexec 1 "$2"
	[ $brc -eq 0 ] && [ "$ng" -eq 4 ] && fault_j '^wrong 1 1 ' '^wrong 1 2 ' \
	    '^failed B 2 wrong or interrupted boots \(retries 1\)' '^finish ' &&
	    ! grep -q '^run ' "$s/journal" && grep -q 'failed' "$s/status.out"
	tap $? "a boot that never reaches the resume: 2 tries, then the configuration failed, the campaign over, no reboot of fsconc's after ($ng guest boots, ${took}s)" \
	    "$(fault_why)"
	boot_after "boot loop" "$s"
}

# boot_fault_nobin DIR TIMEOUT: the fsconc binary the unit runs removed
# before the campaign's second boot: systemd's unit fails there (203,
# the program missing), nothing restarts it, nothing reboots; fsconc put
# back, `campaign stop` ends it and takes the unit and kexec image away.
boot_fault_nobin() {
	BG_CONFIGS=B BG_CMDLINE=$BG_FAST \
	    BG_EVERYBOOT=$TOP/tests/boot/fault-nobin.sh \
	    fault_campaign "$1" kexec 2 "$2"
	[ $brc -eq 0 ] && [ "$ng" -eq 4 ] && [ -s "$s/removed" ] &&
	    grep -q 'ExecMainStatus=203' "$s/nobin.show" &&
	    grep -q 'NRestarts=0' "$s/nobin.later" && [ -s "$s/nobin.still" ] &&
	    fault_j '^done 1 1 0 /' '^schedule 2 2 ' '^stop ' &&
	    ! grep -q '^boot 2 2' "$s/journal" && [ "$(cat "$s/stop.rc")" = 0 ]
	tap $? "fsconc missing at boot 2: the unit failed (203), no restart, no reboot for a minute; stopped once put back ($ng guest boots, ${took}s)" \
	    "$(cat "$s/removed" "$s/nobin.show" "$s/nobin.later" "$s/nobin.still" "$s/nobin.log" 2>&1) $(fault_why)"
	boot_after "binary missing" "$s"
}

# boot_fault_broken DIR TIMEOUT: grub-reboot's one-shot names GRUB's
# "broken" entry (no kernel in it): GRUB falls back to the default,
# whose resume finds the boot wrong; retried once, then that
# configuration is failed, and the other one (B, the default entry)
# still runs; the campaign finishes.
boot_fault_broken() {
	BG_BROKEN=1 BG_RETRIES=1 fault_campaign "$1" grub-reboot 1 "$2"
	[ $brc -eq 0 ] && [ "$ng" -eq 5 ] && fault_j '^wrong [0-9]+ [0-9]+ ' \
	    '^failed X 2 wrong or interrupted boots \(retries 1\)' \
	    '^done [0-9]+ [0-9]+ 0 /' '^finish ' &&
	    [ "$(grep -c '^wrong ' "$s/journal")" -eq 2 ] &&
	    [ "$(grep -c '^done ' "$s/journal")" -eq 1 ]
	tap $? "grub-reboot to the broken entry: GRUB fell back to the default, found wrong twice, X failed, B done, finished ($ng guest boots, ${took}s)" \
	    "$(fault_why)"
	boot_after "broken entry" "$s"
}
