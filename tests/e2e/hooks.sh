# The test hooks (FSCONC_TEST_*): obeyed by the tests' build ($FSCONC),
# ignored by the binary make builds and installs ($FSCONC_PLAIN), and the
# files they make never opened through a link.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
if [ ! -x "$FSCONC_PLAIN" ]; then
	echo "1..1"
	skip "the installed build ignores the test hooks" "no $FSCONC_PLAIN"
	exit 0
fi
# The installed build ignores FSCONC_TEST_FOREIGN: on a loaded machine
# its batches would count as disturbed and be run again.
CAL="-w calib -O iterations=200000 -j 1 -r 1 --disturb-limit off"

# --- FSCONC_TEST_MARKER ---------------------------------------------------
"$FSCONC" run $CAL -R "$s/r1" >"$s/r1.out" 2>&1 &
FSCONC_TEST_MARKER=$s/on "$FSCONC" run $CAL -R "$s/r2" >"$s/r2.out" 2>&1; rc=$?
wait
[ $rc -eq 0 ] && [ -f "$s/on.released" ] &&
    ok "test build: FSCONC_TEST_MARKER makes PREFIX.released" ||
    not_ok "test build: FSCONC_TEST_MARKER makes PREFIX.released" "rc=$rc $(cat "$s/r2.out")"
FSCONC_TEST_MARKER=$s/off "$FSCONC_PLAIN" run $CAL -R "$s/r3" >"$s/r3.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -e "$s/off.released" ] &&
    ok "installed build: FSCONC_TEST_MARKER ignored" ||
    not_ok "installed build: FSCONC_TEST_MARKER ignored" "rc=$rc $(ls "$s")"
# A link planted at the marker's name: its target keeps its contents.
echo keep >"$s/victim"
ln -s "$s/victim" "$s/link.released"
FSCONC_TEST_MARKER=$s/link "$FSCONC" run $CAL -R "$s/r4" >"$s/r4.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$s/victim")" = keep ] && [ -L "$s/link.released" ] &&
    ok "FSCONC_TEST_MARKER: a planted link's target is not truncated" ||
    not_ok "FSCONC_TEST_MARKER: a planted link's target is not truncated" \
	"rc=$rc victim=$(cat "$s/victim") $(cat "$s/r4.out")"

# A hard link planted there (a file of its own): opened, never truncated.
echo keep >"$s/victim2"
ln "$s/victim2" "$s/hard.released"
FSCONC_TEST_MARKER=$s/hard "$FSCONC" run $CAL -R "$s/r5" >"$s/r5.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$s/victim2")" = keep ] &&
    ok "FSCONC_TEST_MARKER: a planted file is not truncated" ||
    not_ok "FSCONC_TEST_MARKER: a planted file is not truncated" \
	"rc=$rc victim=$(cat "$s/victim2") $(cat "$s/r5.out")"

# --- FSCONC_TEST_DB_STOP --------------------------------------------------
if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "FSCONC_TEST_DB_STOP: a planted link's target is not truncated" \
	    "sqlite3 not installed"
else
	printf '10.0\n10.2\n9.9\n' >"$s/t1"
	printf '5.1\n5.3\n5.0\n' >"$s/t2"
	"$FSCONC" import -R "$s/root" --host h -l l --date 2026-10-01 \
	    1="$s/t1" 2="$s/t2" >/dev/null 2>&1
	echo keep >"$s/dbvictim"
	ln -s "$s/dbvictim" "$s/stop"
	# Before: truncated through the link, then stopped for good.
	out=$(FSCONC_TEST_DB_STOP=$s/stop timeout 120 "$FSCONC" db sync \
	    -R "$s/root" --db "$s/x.db" 2>&1); rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$s/dbvictim")" = keep ] &&
	    [ "$(sqlite3 "$s/x.db" 'SELECT count(*) FROM sets')" = 1 ] &&
	    ok "FSCONC_TEST_DB_STOP: a planted link's target is not truncated, no stop" ||
	    not_ok "FSCONC_TEST_DB_STOP: a planted link's target is not truncated, no stop" \
		"rc=$rc victim=$(cat "$s/dbvictim") $out"
fi

# --- the campaign's hooks -------------------------------------------------
# Plans print the hook's path and the running command line: the
# planted ones for the test build, the machine's for the installed one.
printf 'kernel image\n' >"$s/vmlinuz"
printf 'run -w calib -j 1 -r 1\nmethod kexec\nconfig A\n\tkernel %s\n\tcmdline maxcpus=1\nconfig B\n\tkernel %s\n' \
    "$s/vmlinuz" "$s/vmlinuz" >"$s/k.campaign"
echo "root=/dev/planted fsconc-planted-word" >"$s/cl"
mkdir "$s/hook"
plan() {	# plan BINARY
	FSCONC_TEST_CMDLINE=$s/cl FSCONC_TEST_HOOK_DIR=$s/hook \
	    "$1" campaign start --dry-run --os linux "$s/k.campaign" 2>&1
}
out=$(plan "$FSCONC")
echo "$out" | grep -q "^cat > $s/hook/fsconc-campaign.service <<" &&
    echo "$out" | grep -q "^kexec -l .*root=/dev/planted fsconc-planted-word" &&
    ok "test build: FSCONC_TEST_HOOK_DIR and FSCONC_TEST_CMDLINE obeyed" ||
    not_ok "test build: FSCONC_TEST_HOOK_DIR and FSCONC_TEST_CMDLINE obeyed" "$out"
out=$(plan "$FSCONC_PLAIN")
echo "$out" | grep -q "^cat > /etc/systemd/system/fsconc-campaign.service <<" &&
    ! echo "$out" | grep -q 'fsconc-planted-word' &&
    ok "installed build: FSCONC_TEST_HOOK_DIR and FSCONC_TEST_CMDLINE ignored" ||
    not_ok "installed build: FSCONC_TEST_HOOK_DIR and FSCONC_TEST_CMDLINE ignored" "$out"

# FSCONC_TEST_EXEC: every command run through a planted program.  The
# test build starts a campaign (its hook in $s/hook, its boot id and
# command line from files); the installed build resumes it with the same
# variables set: it reads this machine's boot id and command line, finds
# the boot wrong, and orders the next one by running the configured
# command itself, never the planted program.  The campaign's own command
# only logs: nothing reboots.
cat >"$s/boot.sh" <<'EOF'
#!/bin/sh
echo "$FSCONC_CAMPAIGN_BOOT" >>"$(dirname "$0")/boots.log"
EOF
cat >"$s/planted.sh" <<'EOF'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/planted.log"
case $1 in /*) exec "$@";; esac
EOF
chmod +x "$s/boot.sh" "$s/planted.sh"
echo boot-0 >"$s/bootid"
echo "root=/dev/vda" >"$s/cmdline"
cat >"$s/c.campaign" <<EOF
run -w calib -O iterations=200000 -j 1 -r 1
boots 2
retries 3
method command
command $s/boot.sh
config A
	cmdline maxcpus=1
config B
EOF
hooks() {	# hooks BINARY ARGS...: run with every campaign hook set
	_b=$1; shift
	FSCONC_TEST_BOOT_ID=$s/bootid FSCONC_TEST_CMDLINE=$s/cmdline \
	    FSCONC_TEST_EXEC=$s/planted.sh FSCONC_TEST_HOOK_DIR=$s/hook \
	    "$_b" "$@"
}
R=$s/res
out=$(hooks "$FSCONC" campaign start -R "$R" "$s/c.campaign" 2>&1); rc=$?
id=$(cat "$R/campaign/active" 2>/dev/null)
[ $rc -eq 0 ] && [ -n "$id" ] && grep -q "^$s/boot.sh\$" "$s/planted.log" &&
    [ "$(wc -l <"$s/boots.log")" -eq 1 ] &&
    ok "test build: FSCONC_TEST_EXEC runs every command through the planted program" ||
    not_ok "test build: FSCONC_TEST_EXEC runs every command through the planted program" \
	"rc=$rc $out $(cat "$s/planted.log" 2>&1)"
before=$(wc -l <"$s/planted.log")
if [ -n "$id" ]; then
	out=$(hooks "$FSCONC_PLAIN" campaign resume -R "$R" --id "$id" 2>&1); rc=$?
else
	out="no campaign" rc=-1
fi
[ $rc -eq 0 ] && [ "$(wc -l <"$s/planted.log")" -eq "$before" ] &&
    [ "$(wc -l <"$s/boots.log")" -eq 2 ] &&
    grep -q "wrong [0-9]* 1 " "$R/campaign/$id/journal" &&
    ok "installed build: FSCONC_TEST_EXEC, _BOOT_ID, _CMDLINE ignored (the command run itself)" ||
    not_ok "installed build: FSCONC_TEST_EXEC, _BOOT_ID, _CMDLINE ignored (the command run itself)" \
	"rc=$rc $out planted: $(cat "$s/planted.log") boots: $(cat "$s/boots.log")"

# --- FSCONC_TEST_KCONFIG ---------------------------------------------------
KC=$FSCONC_TOP/tests/fixtures/kconfig/rt.config
FSCONC_TEST_KCONFIG=$KC "$FSCONC_PLAIN" run $CAL -R "$s/k1" >"$s/k1.out" 2>&1; rc=$?
m=$(ls "$s"/k1/*/*/*/meta 2>/dev/null | head -n 1)
[ $rc -eq 0 ] && [ -n "$m" ] && ! grep -q "^kernel.config.source=$KC\$" "$m" &&
    ! grep -qx 'kernel.config.PREEMPT_RT=y' "$m" &&
    ok "installed build: FSCONC_TEST_KCONFIG ignored (the kernel's own config read)" ||
    not_ok "installed build: FSCONC_TEST_KCONFIG ignored (the kernel's own config read)" "rc=$rc $(cat "$s/k1.out")"
echo "1..$_t"
