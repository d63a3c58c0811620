# fsconc campaign: its state as resume (root, at every boot) trusts it.
# Who owns the root, the campaign's files and the hooked binary; links;
# the one lock of start, resume and stop (two starts at once, a stop
# while a resume runs); ids; '%' in the unit (systemd-analyze verify);
# control bytes in the journal; the bound on boots.  Reboots simulated
# as in campaign.sh (method command, FSCONC_TEST_*).
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
if [ "$(id -u)" -ne 0 ]; then
	skip "campaign state: ownership, locks, ids" "needs root (chown)"
	echo "1..$_t"
	exit 0
fi
head="run -w syscall -O count=2000 -j 1 -r 2 --disk tmpfs"
sim_machine "$s"
hook="$s/hook/fsconc-campaign.service"
printf '%s\nboots 2\nseed 3\nbaseline B\nmethod command\ncommand %s\nconfig A\n\tcmdline maxcpus=1\nconfig B\n' \
    "$head" "$s/boot.sh" >"$s/c.campaign"
nboots() { wc -l <"$s/boots.log" | tr -d ' '; }
# stop_all ROOT: the campaign under ROOT stopped, its hook gone.
stop_all() { "$FSCONC" campaign stop -R "$1" >/dev/null 2>&1; rm -f "$hook"; }

# --- who owns the state --------------------------------------------------
# refuse_root NAME PATTERN ROOT: start refused, nothing made or booted.
refuse_root() {
	_b=$(nboots)
	_e=$("$FSCONC" campaign start -R "$3" "$s/c.campaign" 2>&1); _rc=$?
	if [ $_rc -eq 2 ] && echo "$_e" | grep -q -- "$2" && [ ! -e "$3/campaign" ] &&
	    [ ! -e "$hook" ] && [ "$(nboots)" -eq "$_b" ]; then
		ok "start refused: $1"
	else
		not_ok "start refused: $1" "rc=$_rc $_e"
		stop_all "$3"
	fi
}
mkdir "$s/u"
chown 65534 "$s/u"
refuse_root "a root another user owns" "fsconc: campaign: $s/u: owned by uid 65534, not root" "$s/u"
mkdir -m 0775 "$s/g"
chmod g+w "$s/g"
refuse_root "a root its group can write" "$s/g: writable by its group" "$s/g"
mkdir "$s/o"
chmod 0757 "$s/o"
refuse_root "a root others can write" "$s/o: writable by others" "$s/o"
mkdir "$s/pub"
chmod 0777 "$s/pub"
mkdir "$s/pub/r"
refuse_root "a root in a directory others can write" "$s/pub: writable by others" "$s/pub/r"
mkdir "$s/sticky"
chmod 1777 "$s/sticky"
mkdir "$s/sticky/r"
chown 65534 "$s/sticky/r"
refuse_root "a root another user made in /tmp first" "$s/sticky/r: owned by uid 65534, not root" "$s/sticky/r"
chown 0 "$s/sticky/r"
"$FSCONC" campaign start -R "$s/sticky/r" "$s/c.campaign" >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "a root-owned root in a sticky directory (as /tmp): started" ||
    not_ok "a root-owned root in a sticky directory (as /tmp): started" "rc=$rc $(cat "$s/out")"
stop_all "$s/sticky/r"

# A hook naming no valid id: a hook of an unknown campaign, said so.
printf '# fsconc-campaign-id: x systemd.debug_shell\n[Unit]\n' >"$hook"
e=$("$FSCONC" campaign start -R "$s/rh" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "resume hook is installed ($hook, campaign unknown)" &&
    ok "a hook whose id is not one: start refused, the campaign unknown" ||
    not_ok "a hook whose id is not one: start refused, the campaign unknown" "rc=$rc $e"
rm -f "$hook"

# The binary the hook runs as root: its owner and who can write it.
mkdir "$s/bin"
cp "$FSCONC" "$s/bin/fsconc"
chown 65534 "$s/bin/fsconc"
e=$("$s/bin/fsconc" campaign start -R "$s/rb" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "$s/bin/fsconc: owned by uid 65534, not root" && [ ! -e "$hook" ] &&
    ok "start refused: a binary another user owns" || not_ok "start refused: a binary another user owns" "rc=$rc $e"
stop_all "$s/rb"
chown 0 "$s/bin/fsconc"
chmod g+w "$s/bin/fsconc"
e=$("$s/bin/fsconc" campaign start -R "$s/rb" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "$s/bin/fsconc: writable by its group" && [ ! -e "$hook" ] &&
    ok "start refused: a binary its group can write" || not_ok "start refused: a binary its group can write" "rc=$rc $e"
stop_all "$s/rb"
chmod g-w "$s/bin/fsconc"
chmod o+w "$s/bin"
e=$("$s/bin/fsconc" campaign start -R "$s/rb" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "$s/bin: writable by others" && [ ! -e "$hook" ] &&
    ok "start refused: a binary in a directory others can write" ||
    not_ok "start refused: a binary in a directory others can write" "rc=$rc $e"
stop_all "$s/rb"

# A campaign started, then its files changed hands: resume, status and
# stop refuse it, and say why.
R="$s/r1"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/out" 2>&1
id=$(cat "$R/campaign/active")
d="$R/campaign/$id"
echo boot-1b >"$s/bootid"
# refuse_state NAME PATTERN: resume, status and stop all refuse, no boot.
refuse_state() {
	_b=$(nboots)
	_e1=$("$FSCONC" campaign resume -R "$R" --id "$id" 2>&1); _r1=$?
	_e2=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1); _r2=$?
	_e3=$("$FSCONC" campaign stop -R "$R" --id "$id" 2>&1); _r3=$?
	if [ $_r1 -ne 0 ] && [ $_r2 -ne 0 ] && [ $_r3 -ne 0 ] && echo "$_e1" | grep -q -- "$2" &&
	    echo "$_e2" | grep -q -- "$2" && echo "$_e3" | grep -q -- "$2" &&
	    [ "$(nboots)" -eq "$_b" ] && ! grep -q '^stop ' "$d/journal" 2>/dev/null; then
		ok "resume, status, stop refused: $1"
	else
		not_ok "resume, status, stop refused: $1" "rc=$_r1/$_r2/$_r3 $_e1 / $_e2 / $_e3"
	fi
}
chown 65534 "$d/campaign"
refuse_state "the campaign file another user owns" "$d/campaign: owned by uid 65534, not root"
chown 0 "$d/campaign"
chmod o+w "$d/journal"
refuse_state "a journal others can write" "$d/journal: writable by others"
chmod o-w "$d/journal"
chown 65534 "$d"
refuse_state "a campaign directory another user owns" "$d: owned by uid 65534, not root"
chown 0 "$d"
mv "$d/plan" "$d/plan.real"
ln -s plan.real "$d/plan"
refuse_state "a linked plan" "$d/plan: "
rm "$d/plan"
mv "$d/plan.real" "$d/plan"
mv "$d" "$d.real"
ln -s "$id.real" "$d"
refuse_state "a linked campaign directory" "$d: a symbolic link, not followed"
rm "$d"
mv "$d.real" "$d"

# --- ids ------------------------------------------------------------------
# "active" naming a place outside the root.
mkdir -p "$s/outside"
cp -R "$d" "$s/outside/x"
cp "$R/campaign/active" "$s/active.keep"
printf '../../outside/x\n' >"$R/campaign/active"
cp "$s/outside/x/journal" "$s/outside.journal"
b=$(nboots)
e1=$("$FSCONC" campaign status -R "$R" 2>&1); r1=$?
e2=$("$FSCONC" campaign stop -R "$R" 2>&1); r2=$?
e3=$("$FSCONC" campaign resume -R "$R" 2>&1); r3=$?
if [ $r1 -ne 0 ] && [ $r2 -ne 0 ] && [ $r3 -ne 0 ] &&
    echo "$e1$e2$e3" | grep -q "$R/campaign/active: not a campaign id" &&
    cmp -s "$s/outside/x/journal" "$s/outside.journal" && [ "$(nboots)" -eq "$b" ]; then
	ok "an active mark naming ../../outside: refused by status, stop and resume, nothing written there"
else
	not_ok "an active mark naming ../../outside: refused by status, stop and resume, nothing written there" \
	    "rc=$r1/$r2/$r3 $e1 / $e2 / $e3"
fi
cp "$s/active.keep" "$R/campaign/active"
# An id with a blank, as a campaign directory, never reaches the kernel's
# command line.
cp -R "$d" "$R/campaign/x systemd.debug_shell"
b=$(nboots)
e=$("$FSCONC" campaign resume -R "$R" --id "x systemd.debug_shell" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "not a campaign id (holds ' '" && [ "$(nboots)" -eq "$b" ] &&
    ! grep -q debug_shell "$s/boots.log" &&
    ok "--id with a blank: refused, no boot, nothing on the command line" ||
    not_ok "--id with a blank: refused, no boot, nothing on the command line" "rc=$rc $e $(cat "$s/boots.log")"
rm -rf "$R/campaign/x systemd.debug_shell"
for bad in ".." "a%b" "$(printf 'a\033b')"; do
	e=$("$FSCONC" campaign status -R "$R" --id "$bad" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$e" | grep -q "not a campaign id" && ok "--id '$(echo "$bad" | tr -d '\033')': refused" ||
	    not_ok "--id '$bad': refused" "rc=$rc $e"
done

# --- control bytes in the journal -----------------------------------------
cp "$d/journal" "$s/journal.keep"
n=$(($(wc -l <"$d/journal") + 1))
printf 'boot 1 1\000\nstop 1\n' >>"$d/journal"
e=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$e" | grep -q "fsconc: campaign: $d/journal: line $n: control byte 0x00" &&
    ok "a NUL in the journal: status exit 1, the line named" ||
    not_ok "a NUL in the journal: status exit 1, the line named" "rc=$rc $e"
b=$(nboots)
cp "$d/journal" "$s/journal.nul"
e=$("$FSCONC" campaign resume -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$e" | grep -q "line $n: control byte 0x00" && [ "$(nboots)" -eq "$b" ] &&
    cmp -s "$d/journal" "$s/journal.nul" &&
    ok "a NUL in the journal: resume refuses it, nothing appended" ||
    not_ok "a NUL in the journal: resume refuses it, nothing appended" "rc=$rc $e"
cp "$s/journal.keep" "$d/journal"
printf 'boot 1 1 \033[2J\n' >>"$d/journal"
e=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$e" | grep -q "line $n: control byte 0x1b" &&
    ok "an escape in the journal: refused, named" || not_ok "an escape in the journal: refused, named" "rc=$rc $e"
cp "$s/journal.keep" "$d/journal"

# --- a power cut at every byte of an append ----------------------------------
# tests/lib.sh's table, as e2e/bisect uses it: the journal's last event
# cut at each byte, in a copy of the campaign: status and resume read
# past it, stop's event and resume's next one start a line of their own.
n=$(wc -l <"$s/journal.keep")
head -n $((n - 1)) "$s/journal.keep" >"$s/base"
line=$(tail -n 1 "$s/journal.keep")
C="$s/cut"
bad=
for c in $(torn_cases "$line"); do
	for cmd in stop resume; do
		rm -rf "$C" && mkdir -p "$C/campaign" && cp -a "$d" "$C/campaign/" &&
		    torn_write "$c" "$s/base" "$line" "$C/campaign/$id/journal"
		cj="$C/campaign/$id/journal"
		st=$("$FSCONC" campaign status -R "$C" --id "$id" 2>&1); rs=$?
		if torn_is_damage "$c"; then
			[ $rs -eq 1 ] && echo "$st" | grep -q "$id/journal: line $n: control byte 0x00" ||
			    bad="$bad [$c: status rc=$rs $st]"
			continue
		fi
		"$FSCONC" campaign $cmd -R "$C" --id "$id" >"$s/cut.out" 2>&1; rc=$?
		{ [ $rs -eq 0 ] && [ $rc -eq 0 ] &&
		    echo "$st" | grep -q "journal: line $n: no end of line, an append cut short: left out" &&
		    head -n $((n - 1)) "$cj" | cmp -s - "$s/base" && [ "$(wc -l <"$cj")" -ge "$n" ] &&
		    [ "$(tail -c 1 "$cj" | od -An -c | tr -d ' ')" = '\n' ] &&
		    "$FSCONC" campaign status -R "$C" --id "$id" >/dev/null 2>&1; } ||
		    bad="$bad [$c $cmd: status $rs $cmd $rc $(cat "$s/cut.out") $(sed -n "${n},\$p" "$cj")]"
		[ $cmd = resume ] || sed -n "${n}p" "$cj" | grep -qx 'stop [0-9]*' || bad="$bad [$c: no stop]"
	done
done
rm -f "$hook"
[ -z "$bad" ] &&
    ok "a power cut at every byte of an append ($(torn_cases "$line" | wc -l) cases, '$line'): status, stop and resume go on, the next event on its own line; a line of zeroes refused" ||
    not_ok "a power cut at every byte of an append: status, stop and resume go on" "$bad"
stop_all "$R"

# --- a stop while a resume runs wins ---------------------------------------
# Resume pauses after its run, before it reads the journal again under
# the lock and orders the next boot; the stop comes then.
R="$s/r2"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/out" 2>&1
id=$(cat "$R/campaign/active")
j="$R/campaign/$id/journal"
echo boot-2 >"$s/bootid"
b=$(nboots)
FSCONC_TEST_RESUME_PAUSE="$s/go" "$FSCONC" campaign resume -R "$R" --id "$id" >"$s/resume.out" 2>&1 &
pid=$!
if wait_until test -e "$s/go.paused"; then
	"$FSCONC" campaign stop -R "$R" >"$s/stop.out" 2>&1; rs=$?
	: >"$s/go"
	wait $pid; rr=$?
	out=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1)
	if [ $rs -eq 0 ] && [ $rr -eq 0 ] && [ "$(nboots)" -eq "$b" ] && grep -q '^stop ' "$j" &&
	    grep -q '^done 1 1 0 ' "$j" && ! sed -n '/^stop /,$p' "$j" | grep -q '^schedule ' &&
	    echo "$out" | grep -q "campaign $id: stopped" && [ ! -e "$hook" ] && [ ! -e "$R/campaign/active" ]; then
		ok "a stop while resume runs: kept in the journal, no boot ordered after it, status stopped"
	else
		not_ok "a stop while resume runs: kept in the journal, no boot ordered after it, status stopped" \
		    "rc=$rs/$rr boots $b->$(nboots) $(cat "$j" "$s/resume.out" "$s/stop.out") $out"
	fi
else
	: >"$s/go"
	wait $pid
	not_ok "a stop while resume runs: kept in the journal, no boot ordered after it, status stopped" \
	    "resume never paused $(cat "$s/resume.out")"
fi
stop_all "$R"

# --- two starts at once: one proceeds ----------------------------------------
# The test holds the machine's lock (the hook's directory) until both
# starts wait on it (/proc/locks), then lets them go together.
if [ -r /proc/locks ]; then
	R="$s/r3"
	mkfifo "$s/fifo"
	flock "$s/hook" sh -c ': >"$1"; read x <"$2"' sh "$s/held" "$s/fifo" &
	fpid=$!
	wait_until test -e "$s/held"
	ino=$(stat -c %i "$s/hook")
	b=$(nboots)
	"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/s1.out" 2>&1 &
	p1=$!
	"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/s2.out" 2>&1 &
	p2=$!
	waiters() { [ "$(grep -c -- "-> FLOCK .*:$ino " /proc/locks)" -eq 2 ]; }
	wait_until waiters; both=$?
	echo go >"$s/fifo"
	wait $fpid
	wait $p1; r1=$?
	wait $p2; r2=$?
	ndirs=$(ls "$R/campaign" | wc -l)
	if [ $both -eq 0 ] && [ $((r1 + r2)) -eq 2 ] && { [ $r1 -eq 0 ] || [ $r2 -eq 0 ]; } &&
	    cat "$s/s1.out" "$s/s2.out" | grep -q "is in progress under $R" &&
	    [ "$(nboots)" -eq $((b + 1)) ] && [ "$ndirs" -eq 2 ]; then
		ok "two starts at once: one proceeds, one boot, the other exit 2 and says why"
	else
		not_ok "two starts at once: one proceeds, one boot, the other exit 2 and says why" \
		    "waited=$both rc=$r1/$r2 boots $b->$(nboots) dirs=$ndirs $(cat "$s/s1.out" "$s/s2.out")"
	fi
	stop_all "$R"
else
	skip "two starts at once: one proceeds, one boot, the other exit 2 and says why" "no /proc/locks"
fi

# --- the unit systemd reads: '%' doubled -------------------------------------
# The binary and the root in directories whose names hold "%h": systemd
# would expand it (to root's home) and miss both.
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir "$s/b%h"
	cp "$FSCONC" "$s/b%h/fsconc"
	printf '%s\nmethod command\ncommand /bin/true\nconfig A\n' "$head" >"$s/u.campaign"
	mkdir "$s/unit"
	"$s/b%h/fsconc" campaign start --dry-run --os linux -R "$s/r%h" "$s/u.campaign" >"$s/plan.out" 2>&1
	sed -n "/^cat > .*<<'EOF'\$/,/^EOF\$/p" "$s/plan.out" | sed '1d;$d' >"$s/unit/fsconc-campaign.service"
	e=$(cd "$s/unit" && systemd-analyze verify ./fsconc-campaign.service 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ -z "$e" ] &&
	    grep -q "^ExecStart=$s/b%%h/fsconc campaign resume -R $s/r%%h --id ID\$" "$s/unit/fsconc-campaign.service"; then
		ok "the unit's '%' doubled: systemd-analyze verify finds the binary"
	else
		not_ok "the unit's '%' doubled: systemd-analyze verify finds the binary" "rc=$rc $e $(cat "$s/unit/fsconc-campaign.service")"
	fi
else
	skip "the unit's '%' doubled: systemd-analyze verify finds the binary" "no systemd-analyze"
fi
e=$("$FSCONC" campaign start --dry-run --os linux -R "$s/a b" "$s/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "$s/a b: holds ' '" && ok "a root with a blank: refused for the unit" ||
    not_ok "a root with a blank: refused for the unit" "rc=$rc $e"

# --- the bound on boots ----------------------------------------------------
# configs NAME N BOOTS: a campaign file of N configurations.
configs() {
	{ printf '%s\nboots %d\nmethod command\ncommand %s\n' "$head" "$3" "$s/boot.sh"
	  awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "config c%d\n", i }'; } >"$s/$1"
}
configs big.campaign 11 1000
e=$("$FSCONC" campaign start --dry-run --os linux "$s/big.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "11 configurations x 1000 boots: more than 10000 boots in all" &&
    ok "11 x 1000 boots: refused, exit 2" || not_ok "11 x 1000 boots: refused, exit 2" "rc=$rc $e"
configs many.campaign 1001 1
e=$("$FSCONC" campaign start --dry-run --os linux "$s/many.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "line 1005: config c1001: more than 1000 configurations" &&
    ok "1,001 configurations: refused, exit 2" || not_ok "1,001 configurations: refused, exit 2" "rc=$rc $e"
# The largest plan: started, its 10,000 slots read back by status.
configs max.campaign 100 100
R="$s/r4"
"$FSCONC" campaign start -R "$R" "$s/max.campaign" >"$s/out" 2>&1; rc=$?
n=$("$FSCONC" campaign status -R "$R" 2>/dev/null | grep -c ' pending\| booting')
[ $rc -eq 0 ] && [ "$n" -eq 10000 ] && ok "100 x 100 boots: started, 10,000 slots in status" ||
    not_ok "100 x 100 boots: started, 10,000 slots in status" "rc=$rc n=$n $(cat "$s/out")"
stop_all "$R"
echo "1..$_t"
