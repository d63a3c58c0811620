# fsconc campaign: what the parser holds a campaign file to before
# anything is written (a configuration's name bound, boots the method
# cannot verify), and status's output sanitised.  Reboots simulated as in
# campaign.sh: every command through a logging program, the boot id and
# command line from files.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
cat >"$s/exec.sh" <<'EOF'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/exec.log"
case $1 in /*) exec "$@";; esac
EOF
cat >"$s/boot.sh" <<'EOF'
#!/bin/sh
echo "$FSCONC_CAMPAIGN_BOOT $FSCONC_CAMPAIGN_CONFIG" >>"$(dirname "$0")/boots.log"
EOF
chmod +x "$s/exec.sh" "$s/boot.sh"
mkdir "$s/hook"
echo boot-0 >"$s/bootid"
echo "root=/dev/vda" >"$s/cmdline"
export FSCONC_TEST_BOOT_ID="$s/bootid" FSCONC_TEST_CMDLINE="$s/cmdline" \
    FSCONC_TEST_EXEC="$s/exec.sh" FSCONC_TEST_HOOK_DIR="$s/hook"
head="run -w calib -O iterations=200000 -j 1 -r 1"

# --- a configuration's name: at most 255 bytes ---------------------------
n255=$(printf '%255s' '' | tr ' ' n)
n256=${n255}n
cfile() {	# cfile FILE NAME
	printf '%s\nboots 1\nmethod command\ncommand %s\nconfig %s\nconfig B\n' \
	    "$head" "$s/boot.sh" "$2" >"$1"
}
cfile "$s/n256.campaign" "$n256"
out=$("$FSCONC" campaign start --dry-run --os linux "$s/n256.campaign" 2>&1); rc=$?
case $out in *"line 5: config nnnn"*"a name of 256 bytes, at most 255"*) m=1 ;; *) m=0 ;; esac
[ $rc -eq 2 ] && [ $m -eq 1 ] &&
    ok "a 256-byte name: --dry-run refuses it, exit 2, file and line named" ||
    not_ok "a 256-byte name: --dry-run refuses it, exit 2, file and line named" "rc=$rc $out"
out=$("$FSCONC" campaign start -R "$s/r256" "$s/n256.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$s/r256" ] && [ ! -e "$s/hook/fsconc-campaign.service" ] &&
    ok "a 256-byte name: start refuses it, nothing written" ||
    not_ok "a 256-byte name: start refuses it, nothing written" "rc=$rc $out $(find "$s/r256" 2>&1)"
# 255 bytes: started, and status reads the campaign back.
cfile "$s/n255.campaign" "$n255"
out=$("$FSCONC" campaign start -R "$s/r255" "$s/n255.campaign" 2>&1); rc=$?
id=$(cat "$s/r255/campaign/active" 2>/dev/null)
st=$("$FSCONC" campaign status -R "$s/r255" --id "$id" 2>&1); src=$?
[ $rc -eq 0 ] && [ -n "$id" ] && [ $src -eq 0 ] &&
    echo "$st" | grep -q "config $n255 " &&
    ok "a 255-byte name: started, status reads it back" ||
    not_ok "a 255-byte name: started, status reads it back" "rc=$rc src=$src $out $st"
[ -n "$id" ] && "$FSCONC" campaign stop -R "$s/r255" --id "$id" >/dev/null 2>&1

# --- status and report: journal text never raw ----------------------------
# Reasons and set paths come from the journal (and from messages of the
# machine): terminal escapes and bytes of no UTF-8 planted in both.  The
# text shows them escaped, JSON stays valid UTF-8; a journal refused for
# them is as good, so long as nothing raw is printed.
printf '%s\nboots 1\nmethod command\ncommand %s\nconfig A\nconfig B\n' \
    "$head" "$s/boot.sh" >"$s/esc.campaign"
"$FSCONC" campaign start -R "$s/resc" "$s/esc.campaign" >/dev/null 2>&1
eid=$(cat "$s/resc/campaign/active" 2>/dev/null)
slot=$(sed -n 's/^schedule \([0-9]*\) .*/\1/p' "$s/resc/campaign/$eid/journal" 2>/dev/null | head -n 1)
printf 'done %s 1 0 /tmp/set\033[2J\377\376x\nfailed B \033]0;owned\007 reason \377\300\257\n' \
    "${slot:-1}" >>"$s/resc/campaign/$eid/journal"
raw() {	# raw FILE: holds ESC, BEL or a byte of no UTF-8
	LC_ALL=C grep -q "$(printf '[\033\007\377\376]')" "$1"
}
"$FSCONC" campaign status -R "$s/resc" --id "$eid" >"$s/st.out" 2>&1; rc=$?
if [ -z "$eid" ]; then
	not_ok "status: journal reasons escaped" "no campaign started"
elif raw "$s/st.out"; then
	not_ok "status: journal reasons escaped" "$(od -c "$s/st.out" | head -20)"
elif [ $rc -eq 0 ] && ! grep -qF 'FAILED: \033]0;owned\a reason \377\300\257' "$s/st.out"; then
	not_ok "status: journal reasons escaped" "$(cat "$s/st.out")"
else
	ok "status: journal reasons escaped, no terminal escape printed (rc=$rc)"
fi
"$FSCONC" campaign status --json -R "$s/resc" --id "$eid" >"$s/st.json" 2>"$s/st.err"; rc=$?
if [ ! -x /usr/bin/python3 ]; then
	skip "status --json: valid UTF-8" "/usr/bin/python3 not installed"
elif [ $rc -ne 0 ] && ! raw "$s/st.err" && [ ! -s "$s/st.json" ]; then
	ok "status --json: journal refused, nothing raw printed"
elif out=$(/usr/bin/python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
s = [x.get("set") for x in d["slots"] if x.get("set")]
f = [c["failed"] for c in d["configs"] if c["failed"]]
assert s == ["/tmp/set\x1b[2J\ufffd\ufffdx"], s
assert f == ["\x1b]0;owned\x07 reason \ufffd\ufffd\ufffd"], f
' "$s/st.json" 2>&1) && [ $rc -eq 0 ]; then
	ok "status --json: valid UTF-8, control bytes escaped, other bytes U+FFFD"
else
	not_ok "status --json: valid UTF-8, control bytes escaped, other bytes U+FFFD" "rc=$rc $out"
fi
"$FSCONC" campaign report -R "$s/resc" --id "$eid" >"$s/rep.out" 2>/dev/null
raw "$s/rep.out" && not_ok "report: set paths and reasons escaped" "$(od -c "$s/rep.out" | head -20)" ||
    ok "report: set paths and reasons escaped"
[ -n "$eid" ] && "$FSCONC" campaign stop -R "$s/resc" --id "$eid" >/dev/null 2>&1

# --- boots the method cannot verify ---------------------------------------
# grub-reboot and systemd-boot boot an entry and add no word of ours to
# the command line: a configuration without the entry's cmdline words or
# its release could not be told from the default kernel.
for m in grub-reboot systemd-boot; do
	printf '%s\nmethod %s\nconfig A\n\tentry a\n\trelease 6.1.0-a\nconfig B\n\tentry b\n' \
	    "$head" "$m" >"$s/$m.campaign"
	out=$("$FSCONC" campaign start --dry-run --os linux "$s/$m.campaign" 2>&1); rc=$?
	case $out in
	*"$m.campaign: line 6: config B: method $m cannot verify its boots without cmdline WORD (its entry's) or release RELEASE"*) m1=1 ;;
	*) m1=0 ;;
	esac
	out2=$("$FSCONC" campaign start -R "$s/r-$m" "$s/$m.campaign" 2>&1); rc2=$?
	[ $rc -eq 2 ] && [ $m1 -eq 1 ] && [ $rc2 -eq 2 ] && [ ! -e "$s/r-$m" ] &&
	    ! grep -q "^$m\|^bootctl" "$s/exec.log" 2>/dev/null &&
	    ok "$m: a configuration with neither cmdline nor release refused (exit 2, line named, nothing written)" ||
	    not_ok "$m: a configuration with neither cmdline nor release refused (exit 2, line named, nothing written)" \
		"rc=$rc rc2=$rc2 $out $out2"
	# Its words, or its release: planned.
	printf '\tcmdline mitigations=off\n' >>"$s/$m.campaign"
	out=$("$FSCONC" campaign start --dry-run --os linux "$s/$m.campaign" 2>&1); rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q '^systemctl reboot$' &&
	    ok "$m: with the entry's cmdline words, planned" ||
	    not_ok "$m: with the entry's cmdline words, planned" "rc=$rc $out"
done

echo "1..$_t"
