# fsconc bisect: a tiny fake git tree whose "build" is a script, reboots
# simulated (method command, sim_machine), the figure made to depend on
# the commit through FSCONC_TEST_BISECT_FIGURE: the culprit named, a
# history without a regression said so, the plans, and bad input.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
if ! command -v git >/dev/null 2>&1; then
	skip "fsconc bisect" "git not installed"
	exit 0
fi
sim_machine "$s"
hook="$s/hook/fsconc-campaign.service"

# mktree DIR STEP [BUMP]: 10 commits; from commit STEP on (0: never)
# the figure is 150, before it 100; from commit BUMP on 151 (the
# culprit's line changed again: its revert conflicts).
mktree() {
	git init -q "$1" && git -C "$1" config user.email t@example.org &&
	    git -C "$1" config user.name t
	for i in 1 2 3 4 5 6 7 8 9 10; do
		if [ -n "${3:-}" ] && [ $i -ge "$3" ]; then echo 151
		elif [ "$2" -ne 0 ] && [ $i -ge "$2" ]; then echo 150; else echo 100; fi >"$1/figure"
		# A file of its own: the culprit's revert touches only figure.
		echo "$i" >"$1/n$i"
		git -C "$1" add -A && git -C "$1" commit -qm "commit $i$([ $i = "$2" ] && echo ': the regression')"
	done
}
mktree "$s/tree" 6
mktree "$s/flat" 0
# The boot's figure: the kept image's number, and noise from the boot.
cat >"$s/fig.sh" <<'EOF'
#!/bin/sh
awk -v b="$FSCONC_BISECT_BOOT" -v f="$(cat "$FSCONC_BISECT_IMAGE")" 'BEGIN { srand(b * 7919); print f + (rand() - 0.5) * 2 }'
EOF
chmod +x "$s/fig.sh"
export FSCONC_TEST_BISECT_FIGURE="$s/fig.sh"
# bfile FILE TREE GOOD BAD [EXTRA]
bfile() {
	cat >"$1" <<EOF
tree $2
good $3
bad $4
figure t 2
run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs
build echo "\$FSCONC_BISECT_N \$FSCONC_BISECT_COMMIT \${FSCONC_BISECT_REVERT:--}" >>"$s/built.log"; [ "\$FSCONC_BISECT_N" = "\$(cat "$s/hang-at" 2>/dev/null)" ] && exec sleep 613; [ "\$FSCONC_BISECT_N" = "\$(cat "$s/wait-at" 2>/dev/null)" ] && { echo \$\$ >"$s/building"; exec sleep 614; }; cat figure > vmlinuz
image vmlinuz
build-timeout 3s
method command
command $s/boot.sh
${5:-}
EOF
}
# resume as the hook would, until the bisect is over (at most N times).
resume_all() {
	_i=0
	while [ -e "$1/bisect/active" ] && [ $_i -lt "$2" ]; do
		"$FSCONC" bisect resume -R "$1" >>"$s/resume.out" 2>&1 ||
		    echo "resume rc=$?" >>"$s/resume.out"
		_i=$((_i + 1))
	done
}

# --- plans ----------------------------------------------------------------
bfile "$s/t.bisect" "$s/tree" HEAD~9 HEAD
out=$("$FSCONC" bisect start --dry-run --os freebsd -R "$s/none" "$s/t.bisect" 2>&1); rc=$?
# The plan of the file as written: its figure, refs, recipe, timeout and
# boot command; FreeBSD's install; nothing made.
g9=$(git -C "$s/tree" rev-parse --short=12 HEAD~9)
if [ $rc -eq 0 ] &&
    echo "$out" | grep -q "^# fsconc bisect $s/t.bisect: T(2) over 10 first-parent commits, good HEAD~9 ($g9) to bad HEAD (.*); at most 10 boots a commit; method command; build timeout 3s$" &&
    echo "$out" | grep -qxF "git -C $s/tree clone --shared --no-checkout --quiet -- $s/tree $s/none/bisect/ID/src" &&
    echo "$out" | grep -q "^git -C $s/tree rev-list --first-parent --end-of-options $g9\.\.[0-9a-f]*$" &&
    echo "$out" | grep -qF "FSCONC_BISECT_KCONFIG=GENERIC sh -c 'echo \"\$FSCONC_BISECT_N " &&
    echo "$out" | grep -q "cat figure > vmlinuz'   # killed after 3s: skipped$" &&
    echo "$out" | grep -qF "sh -c 'make installkernel KERNCONF=\"\$FSCONC_BISECT_KCONFIG\" KODIR=\"\$FSCONC_BISECT_KODIR\"'" &&
    echo "$out" | grep -q "^env FSCONC_CAMPAIGN=ID FSCONC_CAMPAIGN_BOOT=1 FSCONC_CAMPAIGN_CONFIG=cN .* FSCONC_CAMPAIGN_KERNEL=bisect-N $s/boot.sh$" &&
    echo "$out" | grep -q "fsconc run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs --label cN-COMMIT -R $s/none;" &&
    echo "$out" | grep -q '^# method command: no one-shot to take back$' &&
    [ ! -e "$s/none" ]; then
	ok "--dry-run: the plan of the file as written (figure, refs, clone, recipe and timeout, install, boot command, run), nothing made"
else
	not_ok "--dry-run: the plan of the file as written (figure, refs, clone, recipe and timeout, install, boot command, run), nothing made" "rc=$rc $out"
fi
# FreeBSD's own recipe: the file's build line is the user's; a plan
# with the defaults.
grep -v '^build\|^image' "$s/t.bisect" | sed 's/^method command/method nextboot/; /^command/d' >"$s/f.bisect"
outf=$("$FSCONC" bisect start --dry-run --os freebsd -R "$s/none" "$s/f.bisect" 2>&1); rcf=$?
if [ $rcf -eq 0 ] && echo "$outf" | grep -q 'buildkernel' &&
    echo "$outf" | grep -q 'installkernel KERNCONF=.* KODIR=.*FSCONC_BISECT_KODIR' &&
    echo "$outf" | grep -q 'FSCONC_BISECT_KODIR=/boot/bisect-N' &&
    echo "$outf" | grep -q '^nextboot -k bisect-N -e fsconc.campaign=ID -e fsconc.boot=1$' &&
    echo "$outf" | grep -q '^shutdown -r now$' &&
    echo "$outf" | grep -q 'daemon -f .* bisect resume -R .* --id ID$' &&
    [ ! -e "$s/none" ]; then
	ok "--dry-run --os freebsd: buildkernel, installkernel KODIR=/boot/bisect-N, nextboot -k bisect-N, the rc.d resume"
else
	not_ok "--dry-run --os freebsd: buildkernel, installkernel KODIR=/boot/bisect-N, nextboot -k bisect-N, the rc.d resume" "rc=$rcf $outf"
fi
sed 's/^method command/method kexec/; /^command/d' "$s/t.bisect" >"$s/k.bisect"
outk=$("$FSCONC" bisect start --dry-run --os linux -R "$s/none" "$s/k.bisect" 2>&1); rck=$?
if [ $rck -eq 0 ] && echo "$outk" | grep -q 'clone --shared --no-checkout' &&
    echo "$outk" | grep -q 'rev-list --first-parent' &&
    echo "$outk" | grep -q 'checkout --quiet --force --detach COMMIT --' &&
    echo "$outk" | grep -q "^kexec -l $s/none/bisect/ID/kernel/N " &&
    echo "$outk" | grep -q '^systemctl kexec$' &&
    echo "$outk" | grep -q 'revert --no-edit CULPRIT at bad, .* FSCONC_BISECT_COMMIT=BAD FSCONC_BISECT_REVERT=CULPRIT' &&
    echo "$outk" | grep -q '^ExecStart=.* bisect resume -R .* --id ID$' && [ ! -e "$s/none" ]; then
	ok "--dry-run --os linux: git, build, kexec, the confirming revert, the unit"
else
	not_ok "--dry-run --os linux: git, build, kexec, the confirming revert, the unit" "rc=$rck $outk"
fi

# --- a bisect that names commit 6 -------------------------------------------
R="$s/res"
# Commit 7 (index 6) hangs its build: killed at the timeout, skipped.
echo 6 >"$s/hang-at"
"$FSCONC" bisect start -R "$R" "$s/t.bisect" >"$s/start.out" 2>&1; rc=$?
id=$(cat "$R/bisect/active" 2>/dev/null)
[ $rc -eq 0 ] && [ -n "$id" ] && grep -q "^ExecStart=.* bisect resume -R $R --id $id$" "$hook" &&
    [ "$(wc -l <"$s/boots.log")" -eq 1 ] &&
    ok "start: the clone, the plan, the hook, the first boot" ||
    not_ok "start: the clone, the plan, the hook, the first boot" "rc=$rc $(cat "$s/start.out")"
resume_all "$R" 80
c6=$(git -C "$s/tree" rev-parse HEAD~4)
rep=$("$FSCONC" bisect report -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$R/bisect/active" ] && [ ! -e "$hook" ] &&
    echo "$rep" | grep -q "^first bad commit: $c6 commit 6: the regression$" &&
    ok "the culprit named with its subject: commit 6" ||
    not_ok "the culprit named with its subject: commit 6" "rc=$rc $rep $(tail -20 "$s/resume.out")"
# The user's tree: not written (no worktree, HEAD where it was).
[ "$(git -C "$s/tree" rev-parse HEAD)" = "$(git -C "$s/tree" rev-parse master 2>/dev/null || git -C "$s/tree" rev-parse main)" ] &&
    [ -z "$(git -C "$s/tree" status --porcelain)" ] && [ ! -d "$s/tree/.git/worktrees" ] &&
    ok "the user's tree untouched" || not_ok "the user's tree untouched" "$(git -C "$s/tree" status)"
if grep -q "^build 6 " "$R/bisect/$id/journal"; then
	grep -q "^skip 6 build: timeout" "$R/bisect/$id/journal" && ! pgrep -f 'sleep 613' >/dev/null &&
	    ok "a hanging build: killed at the timeout, the commit skipped" ||
	    not_ok "a hanging build: killed at the timeout, the commit skipped" "$(cat "$R/bisect/$id/journal")"
else
	not_ok "a hanging build: killed at the timeout, the commit skipped" "commit 6 never built"
fi
echo "$rep" | grep -q '^endpoints: good [0-9]* boots, bad [0-9]* boots; bad - good [0-9.]* (+[0-9.]*%) \[[0-9.]*, [0-9.]*\], Welch p [0-9.e-]* <= [0-9.e-]*, a look.s level: they differ$' &&
    ok "report: the endpoints' test, told apart" || not_ok "report: the endpoints' test, told apart" "$rep"
echo "$rep" | grep -q "^6 .* skipped" && echo "$rep" | grep -q 'boots; [0-9]* s from start' &&
    ok "report: the skipped commit, boots and time" || not_ok "report: the skipped commit, boots and time" "$rep"
js=$("$FSCONC" bisect report -R "$R" --id "$id" --json 2>"$s/js.err")
echo "$js" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["culprit"]["subject"]=="commit 6: the regression"; assert any(s["skipped"] for s in d["steps"]); assert all(len(s["boots"])>=2 for s in d["steps"] if not s["skipped"])' 2>"$s/py.err" &&
    ok "report --json: culprit, steps, boots" || not_ok "report --json: culprit, steps, boots" "$js $(cat "$s/py.err")"
"$FSCONC" bisect report -R "$R" --id "$id" --html "$s/b.html" >/dev/null 2>&1 &&
    grep -q '<svg' "$s/b.html" && grep -q 'commit 6: the regression' "$s/b.html" &&
    ok "report --html: the page and its plot" || not_ok "report --html: the page and its plot" "$(head -c 600 "$s/b.html")"
err=$("$FSCONC" bisect resume -R "$R" --id "$id" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'is over' && ok "resume after the end: exit 2" ||
    not_ok "resume after the end: exit 2" "rc=$rc $err"

# --- report --html: made new, never written through what is there ----------
# (issue 38 item 1): a link to a root-only file, a file, a FIFO.
mkdir "$s/out" && echo secret >"$s/out/root-only" && chmod 600 "$s/out/root-only" &&
    ln -s "$s/out/root-only" "$s/out/link.html" && echo keep >"$s/out/exists.html" &&
    mkfifo "$s/out/fifo.html"
for t in link exists fifo; do
	# Bounded: a FIFO opened for writing would block for good.
	err=$(timeout 120 "$FSCONC" bisect report -R "$R" --id "$id" --html "$s/out/$t.html" 2>&1); rc=$?
	[ $rc -eq 2 ] &&
	    [ "$err" = "fsconc: bisect: $s/out/$t.html: exists (a file, a FIFO or a link): not overwritten, name a new file" ] &&
	    [ "$(cat "$s/out/root-only")" = secret ] && [ "$(cat "$s/out/exists.html")" = keep ] &&
	    [ -L "$s/out/link.html" ] && [ -p "$s/out/fifo.html" ] &&
	    ok "report --html at a planted $t: refused, exit 2, named; nothing written through it" ||
	    not_ok "report --html at a planted $t: refused, exit 2, named; nothing written through it" "rc=$rc $err"
done

# --- state read back: nothing of it reaches a terminal or a page raw --------
# (issue 38 item 4): commit ids that are no ids are refused where the
# commits file is loaded, naming its line and never printing its bytes;
# a skip reason with an escape sequence is shown escaped in text, JSON
# and HTML.
esc=$(printf '\033')
c1=$(printf '\302\233')
H="$s/hostile"
cp -a "$R" "$H"
python3 - "$H/bisect/$id/commits" <<'PY'
import sys
c = sys.argv[1]
lines = open(c, "rb").read().split(b"\n")
# Every line but good's (load reads its length): same length, no hex.
lines[1:-1] = [b"\x1b[2J\x9b" + l[5:] for l in lines[1:-1]]
open(c, "wb").write(b"\n".join(lines))
PY
raw=0 rcs=
for a in status report "report --json"; do
	"$FSCONC" bisect $a -R "$H" --id "$id" >"$s/h.out" 2>&1
	rcs="$rcs $?"
	grep -q "$esc\|$c1" "$s/h.out" && raw=1
	cat "$s/h.out" >>"$s/h.all"
done
[ $raw -eq 0 ] && [ "$rcs" = " 2 2 2" ] &&
    grep -q "^fsconc: bisect: $H/bisect/$id/commits: line 2: not a commit id" "$s/h.all" &&
    ok "state read back: commit ids that are no ids refused at load, exit 2, line named, never printed raw" ||
    not_ok "state read back: commit ids that are no ids refused at load, exit 2, line named, never printed raw" "rcs=$rcs $(od -c "$s/h.all" | head -20)"
H2="$s/hostile2"
cp -a "$R" "$H2"
python3 - "$H2/bisect/$id/journal" <<'PY'
import sys
j = sys.argv[1]
t = open(j, "rb").read().replace(b"skip 6 build:", b"skip 6 \xc2\x9b]0;pwned\xffbuild:")
open(j, "wb").write(t)
PY
raw=0
: >"$s/h2.all"
for a in status report "report --json"; do
	"$FSCONC" bisect $a -R "$H2" --id "$id" >"$s/h.out" 2>&1
	echo "rc=$?" >>"$s/h.out"
	grep -q "$esc\|$c1" "$s/h.out" && raw=1
	cat "$s/h.out" >>"$s/h2.all"
done
"$FSCONC" bisect report -R "$H2" --id "$id" --html "$s/h2.html" >>"$s/h2.all" 2>&1
grep -q "$c1\|$(printf '\377')" "$s/h2.html" "$s/h2.all" && raw=1
[ $raw -eq 0 ] && [ "$(grep -c '^rc=0$' "$s/h2.all")" -eq 3 ] &&
    grep -q '^6 .*skipped: .*pwned' "$s/h2.all" &&
    grep -q '"skipped":"[^"]*pwned' "$s/h2.all" && grep -q 'pwned' "$s/h2.html" &&
    ok "state read back: a C1 control and a byte of no UTF-8 in a skip reason shown escaped (text, JSON, HTML)" ||
    not_ok "state read back: a C1 control and a byte of no UTF-8 in a skip reason shown escaped (text, JSON, HTML)" "raw=$raw $(grep -a 'pwned\|^rc=' "$s/h2.all" | od -c | head -30)"
H3="$s/hostile3"
cp -a "$R" "$H3"
python3 - "$H3/bisect/$id/journal" <<'PY'
import sys
j = sys.argv[1]
t = open(j, "rb").read().replace(b"skip 6 build:", b"skip 6 \x1b]0;pwned\x07build:")
open(j, "wb").write(t)
PY
raw=0 rcs=
: >"$s/h3.all"
for a in status report "report --json"; do
	"$FSCONC" bisect $a -R "$H3" --id "$id" >"$s/h.out" 2>&1
	rcs="$rcs $?"
	grep -q "$esc" "$s/h.out" && raw=1
	cat "$s/h.out" >>"$s/h3.all"
done
[ $raw -eq 0 ] && [ "$rcs" = " 2 2 2" ] &&
    grep -q "^fsconc: bisect: $H3/bisect/$id/journal: line [0-9]*: control byte 0x1b" "$s/h3.all" &&
    ok "state read back: an escape sequence in the journal refused at load, exit 2, line named" ||
    not_ok "state read back: an escape sequence in the journal refused at load, exit 2, line named" "rcs=$rcs $(cat "$s/h3.all")"
# A ref with a C1 control in the bisect's copy of its file: refused.
sed -i "s/^bad HEAD$/bad HEAD$c1[31m/" "$H/bisect/$id/bisect"
err=$("$FSCONC" bisect status -R "$H" --id "$id" 2>&1); rc=$?
[ $rc -eq 2 ] && ! echo "$err" | grep -q "$c1" &&
    echo "$err" | grep -q "bisect: line 3: bad ref: holds a blank, a control byte or a byte above 0x7e$" &&
    ok "status: a ref with a C1 control in the state refused, exit 2, never printed" ||
    not_ok "status: a ref with a C1 control in the state refused, exit 2, never printed" "rc=$rc $err"

# --- the confirming revert --------------------------------------------------
# The bisect above: commit 6 reverted on bad builds a figure of 100,
# measured over boots against bad's 150: confirmed.
j="$R/bisect/$id/journal"
echo "$rep" | grep -q "^confirmed: reverting $(echo "$c6" | cut -c1-12) on bad gives T(2) 10[0-9.]* \[.*\] against bad's 1[45][0-9.]* \[.*\]: better$" &&
    grep -q "^built 10 " "$j" && [ "$(grep -c '^mean 10 ' "$j")" -ge 3 ] &&
    [ "$(grep -n '^mean 10 ' "$j" | tail -n 1 | cut -d: -f1)" -lt "$(grep -n '^done ' "$j" | cut -d: -f1)" ] &&
    grep -q "^10 $(git -C "$s/tree" rev-parse HEAD) $c6\$" "$s/built.log" &&
    [ "$(awk '$3 != "-"' "$s/built.log" | sort -u | wc -l)" -eq 1 ] &&
    ok "the culprit reverted on bad: built (FSCONC_BISECT_COMMIT bad, FSCONC_BISECT_REVERT the culprit, for the revert only), booted, confirmed before the end" ||
    not_ok "the culprit reverted on bad: built (FSCONC_BISECT_COMMIT bad, FSCONC_BISECT_REVERT the culprit, for the revert only), booted, confirmed before the end" "$rep $(cat "$j" "$s/built.log")"
echo "$js" | python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["confirm"]; assert c["state"]=="confirmed" and len(c["boots"])>=3 and c["mean"]<c["bad_mean"]' 2>"$s/py.err" &&
    grep -q 'confirmed: reverting' "$s/b.html" &&
    ok "report --json and --html: the confirmation" || not_ok "report --json and --html: the confirmation" "$js $(cat "$s/py.err")"
# A later commit touches the culprit's line: the revert conflicts.
mktree "$s/conflict" 6 8
bfile "$s/c.bisect" "$s/conflict" HEAD~9 HEAD
Rc="$s/resc"
"$FSCONC" bisect start -R "$Rc" "$s/c.bisect" >>"$s/resume.out" 2>&1
idc=$(cat "$Rc/bisect/active" 2>/dev/null)
resume_all "$Rc" 80
rep=$("$FSCONC" bisect report -R "$Rc" --id "$idc" 2>&1)
jc="$Rc/bisect/$idc/journal"
echo "$rep" | grep -q "^first bad commit: .* commit 6: the regression$" &&
    echo "$rep" | grep -q '^revert does not apply: not checked$' &&
    grep -q '^skip 10 revert does not apply' "$jc" && ! grep -q '^schedule 10 ' "$jc" &&
    [ -z "$(git -C "$Rc/bisect/$idc/src" status --porcelain --untracked-files=no)" ] &&
    ok "a revert that conflicts: not booted, reported as not checked" ||
    not_ok "a revert that conflicts: not booted, reported as not checked" "$rep $(cat "$jc")"

# --- the journal: power cuts, forged events, an old journal ------------------
# A copy of the bisect above, its journal as given: cut ROOT JOURNAL.
jcopy() {
	rm -rf "$1" && mkdir -p "$1/bisect" && cp -a "$R/bisect/$id" "$1/bisect/" &&
	    cp "$2" "$1/bisect/$id/journal"
}
j="$R/bisect/$id/journal"
n=$(grep -n '^mean ' "$j" | head -n 1 | cut -d: -f1)
head -n $((n - 1)) "$j" >"$s/base"
line=$(sed -n "${n}p" "$j")
# A power cut at every byte of the first mean's append (tests/lib.sh's
# table): status, report and stop read past it, stop's event on a line
# of its own; resume takes the run for cut off and goes on.
bad=
for c in $(torn_cases "$line"); do
	torn_write "$c" "$s/base" "$line" "$s/cut.journal"
	jcopy "$s/cut" "$s/cut.journal"
	st=$("$FSCONC" bisect status -R "$s/cut" --id "$id" 2>&1); rs=$?
	if torn_is_damage "$c"; then
		[ $rs -eq 2 ] && echo "$st" | grep -q "$id/journal: line $n: control byte 0x00" ||
		    bad="$bad [$c: status rc=$rs $st]"
		continue
	fi
	"$FSCONC" bisect report -R "$s/cut" --id "$id" >/dev/null 2>&1; rr=$?
	"$FSCONC" bisect stop -R "$s/cut" --id "$id" >/dev/null 2>&1; rt=$?
	cj="$s/cut/bisect/$id/journal"
	{ [ $rs -eq 0 ] && [ $rr -eq 0 ] && [ $rt -eq 0 ] &&
	    echo "$st" | grep -q "journal: line $n: no end of line, an append cut short: left out" &&
	    head -n $((n - 1)) "$cj" | cmp -s - "$s/base" && [ "$(wc -l <"$cj")" -eq "$n" ] &&
	    sed -n "${n}p" "$cj" | grep -qx 'stop [0-9]*' &&
	    "$FSCONC" bisect status -R "$s/cut" --id "$id" 2>&1 | grep -q ': stopped$'; } ||
	    bad="$bad [$c: status $rs report $rr stop $rt $(tail -n 2 "$cj")]"
	jcopy "$s/cut" "$s/cut.journal"
	"$FSCONC" bisect resume -R "$s/cut" --id "$id" >"$s/cut.out" 2>&1; ru=$?
	[ $ru -eq 0 ] && head -n $((n - 1)) "$cj" | cmp -s - "$s/base" &&
	    [ "$(sed -n "${n}p" "$cj")" = "interrupted $(echo "$line" | cut -d' ' -f2-3)" ] &&
	    "$FSCONC" bisect status -R "$s/cut" --id "$id" >/dev/null 2>&1 ||
	    bad="$bad [$c: resume rc=$ru $(cat "$s/cut.out") $(sed -n "${n},\$p" "$cj")]"
done
[ -z "$bad" ] &&
    ok "a power cut at every byte of an append ($(torn_cases "$line" | wc -l) cases): status, report, stop and resume go on, the next event on its own line; a line of zeroes refused" ||
    not_ok "a power cut at every byte of an append: status, report, stop and resume go on" "$bad"

# forged TEXT NAME WHY: the journal base + TEXT refused by status,
# resume and report, exit 2, the journal and its line named.
forged() {
	printf '%s\n' "$1" | cat "$s/base" - >"$s/forged.journal"
	jcopy "$s/cut" "$s/forged.journal"
	_bad=
	for _c in status resume report; do
		_e=$("$FSCONC" bisect $_c -R "$s/cut" --id "$id" 2>&1); _r=$?
		[ $_r -eq 2 ] && echo "$_e" | grep -q "^fsconc: bisect: $s/cut/bisect/$id/journal: line $n: bad event '$1': $3" ||
		    _bad="$_bad [$_c rc=$_r $_e]"
	done
	cmp -s "$s/forged.journal" "$s/cut/bisect/$id/journal" || _bad="$_bad [the journal changed]"
	[ -z "$_bad" ] && ok "forged: $2: refused, exit 2, the journal's line named" ||
	    not_ok "forged: $2: refused, exit 2, the journal's line named" "$_bad"
}
forged "mean 3 1 100 1" "a mean for a commit never built or booted" "commit 3 boot 1: not the boot whose run started last"
forged "done 1 4 15 1" "done with its upper end past the last commit" "commits 4 to 15: not within the plan's 0 to 9"
forged "schedule 0 2147483647 b 1" "a boot number near INT_MAX" "not a 'schedule' event"
forged "schedule 0 2147483646 b 1" "a boot number out of order" "boot 2147483646 scheduled after boot 1"
# A commits file whose line is not hex: refused at load.
jcopy "$s/cut" "$j"
printf '\033[2J%036d\n' 0 | dd of="$s/cut/bisect/$id/commits" bs=41 seek=2 conv=notrunc 2>/dev/null
err=$("$FSCONC" bisect report -R "$s/cut" --id "$id" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$err" = "fsconc: bisect: $s/cut/bisect/$id/commits: line 3: not a commit id (40 lowercase hex digits)" ] &&
    ok "forged: a commits line that is not hex: refused at load, exit 2, named, nothing printed raw" ||
    not_ok "forged: a commits line that is not hex: refused at load, exit 2, named, nothing printed raw" "rc=$rc $(echo "$err" | od -c | head)"
# A journal the main branch's binary wrote (eaab21c, on a history made
# as this one): replayed as it was written, its culprit (done's upper
# end) named.
jcopy "$s/cut" "$FSCONC_TOP/tests/fixtures/bisect-main.journal"
hi=$(awk '$1 == "done" { print $4 }' "$s/cut/bisect/$id/journal")
rep=$("$FSCONC" bisect report -R "$s/cut" --id "$id" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -n "$hi" ] &&
    echo "$rep" | grep -q "^first bad commit: $(sed -n "$((hi + 1))p" "$s/cut/bisect/$id/commits") " &&
    echo "$rep" | grep -q '^confirmed: reverting' &&
    "$FSCONC" bisect status -R "$s/cut" --id "$id" >/dev/null 2>&1 &&
    ok "a journal written before the shared journal: replayed, its culprit and confirmation reported" ||
    not_ok "a journal written before the shared journal: replayed" "rc=$rc $rep"

# --- no regression -----------------------------------------------------------
rm -f "$s/hang-at"
bfile "$s/flat.bisect" "$s/flat" HEAD~9 HEAD "boots 4"
R2="$s/res2"
"$FSCONC" bisect start -R "$R2" "$s/flat.bisect" >>"$s/resume.out" 2>&1
id2=$(cat "$R2/bisect/active" 2>/dev/null)
resume_all "$R2" 20
rep=$("$FSCONC" bisect report -R "$R2" --id "$id2" 2>&1)
echo "$rep" | grep -q '^outcome: no regression' && ! echo "$rep" | grep -q 'first bad' &&
    ok "a history without a regression: said so" ||
    not_ok "a history without a regression: said so" "$rep $(tail -5 "$s/resume.out")"
# Not "the same": not shown to differ in the 4 boots of the cap, and how
# far from it.
js=$("$FSCONC" bisect report -R "$R2" --id "$id2" --json 2>"$s/js.err")
echo "$rep" | grep -q '^endpoints: good 4 boots, bad 4 boots; bad - good .*, Welch p [0-9.e-]* > 0.005, a look.s level: not shown to differ at the cap$' &&
    echo "$js" | python3 -c 'import json,sys; e=json.load(sys.stdin)["endpoints"]; assert e["verdict"]=="not shown to differ at the cap" and e["p"]>e["alpha_look"]==0.005 and e["lo"]<=e["diff"]<=e["hi"]' 2>"$s/py.err" &&
    ok "report: no regression is 'not shown to differ at the cap', with the test's figures" ||
    not_ok "report: no regression is 'not shown to differ at the cap', with the test's figures" "$rep $js $(cat "$s/py.err")"
# The endpoints' figures against scipy's Welch (another route than
# analysis/bisect's).
if /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
	echo "$js" | /usr/bin/python3 -c '
import json, sys
from scipy import stats
d = json.load(sys.stdin)
e, st = d["endpoints"], d["steps"]
g, b = st[0]["boots"], st[-1]["boots"]
r = stats.ttest_ind(b, g, equal_var=False)
va, vb = stats.tvar(g) / len(g), stats.tvar(b) / len(b)
df = (va + vb) ** 2 / (va ** 2 / (len(g) - 1) + vb ** 2 / (len(b) - 1))
se = (va + vb) ** 0.5
q = stats.t.ppf(1 - e["alpha_look"], df)
m = sum(b) / len(b) - sum(g) / len(g)
for got, want in ((e["p"], r.pvalue), (e["diff"], m), (e["lo"], m - q * se), (e["hi"], m + q * se)):
    assert abs(got - want) <= 1e-6 * max(1, abs(want)), (got, want)
print("p %.4g diff %.4g [%.4g, %.4g]" % (e["p"], e["diff"], e["lo"], e["hi"]))' >"$s/py.out" 2>"$s/py.err" &&
	    ok "report: the endpoints' Welch p and interval agree with scipy: $(cat "$s/py.out")" ||
	    not_ok "report: the endpoints' Welch p and interval agree with scipy" "$js $(cat "$s/py.err")"
else
	skip "report: the endpoints' figures against scipy" "/usr/bin/python3 with scipy is not installed (scripts/install-deps)"
fi

# --- a power cut during a build: resume builds again and goes on -------------
echo 0 >"$s/wait-at"
R3="$s/res3"
"$FSCONC" bisect start -R "$R3" "$s/t.bisect" >"$s/cut.out" 2>&1 &
bg=$!
wait_until [ -s "$s/building" ]
id3=$(cat "$R3/bisect/active" 2>/dev/null)
kill -9 $bg "$(cat "$s/building")" 2>/dev/null
wait $bg 2>/dev/null
rm -f "$s/wait-at"
resume_all "$R3" 80
j="$R3/bisect/$id3/journal"
[ "$(grep -c "^build 0 " "$j")" -ge 2 ] && grep -q '^done 0 ' "$j" &&
    grep -q "build was cut off" "$s/resume.out" &&
    ok "a power cut during a build: built again, the bisect goes on" ||
    not_ok "a power cut during a build: built again, the bisect goes on" "$(cat "$j")"

# --- stop ---------------------------------------------------------------------
R5="$s/res5"
"$FSCONC" bisect start -R "$R5" "$s/flat.bisect" >>"$s/resume.out" 2>&1
"$FSCONC" bisect stop -R "$R5" >"$s/stop.out" 2>&1; rc=$?
st=$("$FSCONC" bisect status -R "$R5" --id "$(ls "$R5/bisect" | grep -v '^\.' | grep -v active | head -1)" 2>&1)
err=$("$FSCONC" bisect resume -R "$R5" --id "$(ls "$R5/bisect" | grep -v '^\.' | grep -v active | head -1)" 2>&1); rc2=$?
[ $rc -eq 0 ] && [ ! -e "$hook" ] && [ ! -e "$R5/bisect/active" ] && echo "$st" | grep -q ': stopped$' &&
    [ $rc2 -eq 2 ] && ok "stop: the hook and the active mark gone, status says stopped, resume refuses" ||
    not_ok "stop: the hook and the active mark gone, status says stopped, resume refuses" "rc=$rc rc2=$rc2 $st $err $(cat "$s/stop.out")"

# --- git in the clone: no hook, no fsmonitor, and only in a clone of ours --
# (issue 38 item 2) A bisect in progress whose clone's config names a
# hook directory and an fsmonitor program, each of which would leave a
# mark: the next step's checkout runs neither.
R8="$s/res8"
mkdir "$s/hooks"
printf '#!/bin/sh\necho "$0" >>%s/hooked\n' "$s" >"$s/hooks/post-checkout"
cp "$s/hooks/post-checkout" "$s/hooks/fsmonitor"
chmod +x "$s/hooks/post-checkout" "$s/hooks/fsmonitor"
"$FSCONC" bisect start -R "$R8" "$s/flat.bisect" >>"$s/resume.out" 2>&1
id8=$(cat "$R8/bisect/active" 2>/dev/null)
src8="$R8/bisect/$id8/src"
git -C "$src8" config core.hooksPath "$s/hooks" && git -C "$src8" config core.fsmonitor "$s/hooks/fsmonitor"
b8=$(grep -c '^build ' "$R8/bisect/$id8/journal")
"$FSCONC" bisect resume -R "$R8" >>"$s/resume.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^build ' "$R8/bisect/$id8/journal")" -gt "$b8" ] && [ ! -e "$s/hooked" ] &&
    ok "a clone whose config sets core.hooksPath and core.fsmonitor: the checkout runs neither" ||
    not_ok "a clone whose config sets core.hooksPath and core.fsmonitor: the checkout runs neither" "rc=$rc $(cat "$s/hooked" 2>/dev/null) $(cat "$R8/bisect/$id8/journal")"
# The same clone handed to another user, with root's git trusting every
# directory (safe.directory=*, in a HOME of the test's own): resume
# refuses it, names it, runs no git in it, writes nothing.
if is_root && id nobody >/dev/null 2>&1; then
	mkdir "$s/home" && printf '[safe]\n\tdirectory = *\n' >"$s/home/.gitconfig"
	chown -R nobody "$src8"
	cp "$R8/bisect/$id8/journal" "$s/j8"
	err=$(HOME="$s/home" "$FSCONC" bisect resume -R "$R8" 2>&1); rc=$?
	[ $rc -eq 2 ] && [ "$err" = "fsconc: bisect: $src8: owned by uid $(id -u nobody), not root: the bisect's clone is not to be trusted: no git runs in it" ] &&
	    [ ! -e "$s/hooked" ] && cmp -s "$s/j8" "$R8/bisect/$id8/journal" &&
	    ok "a clone owned by another user (root's safe.directory=*): resume refuses, exit 2, names it; no hook ran" ||
	    not_ok "a clone owned by another user (root's safe.directory=*): resume refuses, exit 2, names it; no hook ran" "rc=$rc $err $(cat "$s/hooked" 2>/dev/null)"
	chown -R root "$src8"
else
	skip "a clone owned by another user" "needs root and the user nobody (chown)"
fi
"$FSCONC" bisect stop -R "$R8" >>"$s/resume.out" 2>&1

# A full /boot (FSCONC_TEST_BOOT_DIR stands for it): refused before
# anything is written, as campaign start refuses it.
b0=$(wc -l <"$s/boots.log")
err=$(FSCONC_TEST_BOOT_DIR=$s/noboot "$FSCONC" bisect start -R "$s/res6" "$s/flat.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$err" = "fsconc: bisect: command: $s/noboot: No such file or directory" ] &&
    [ ! -e "$s/res6/bisect" ] && [ ! -e "$hook" ] && [ "$(wc -l <"$s/boots.log")" -eq "$b0" ] &&
    ok "no /boot: start refused, exit 2, named; nothing written" ||
    not_ok "no /boot: start refused, exit 2, named; nothing written" "rc=$rc $err"
if is_root && mkdir "$s/full" && mount -t tmpfs -o size=256k,mode=0755 fsconc-bisectboot "$s/full"; then
	at_exit "umount '$s/full'"
	dd if=/dev/zero of="$s/full/fill" bs=4k 2>/dev/null
	err=$(FSCONC_TEST_BOOT_DIR=$s/full "$FSCONC" bisect start -R "$s/res7" "$s/flat.bisect" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q "^fsconc: bisect: command: $s/full: 0 bytes free, the one-shot wants [0-9]*: full$" &&
	    [ ! -e "$s/res7/bisect" ] && [ ! -e "$hook" ] && [ "$(wc -l <"$s/boots.log")" -eq "$b0" ] &&
	    ok "a full /boot: start refused, exit 2, named; nothing written" ||
	    not_ok "a full /boot: start refused, exit 2, named; nothing written" "rc=$rc $err"
else
	skip "a full /boot" "needs root (a small tmpfs, filled)"
fi

# --- bad input -----------------------------------------------------------------
bfile "$s/m.bisect" "$s/tree" HEAD~9 nosuchref
err=$("$FSCONC" bisect start --dry-run "$s/m.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'bad nosuchref names no commit (good HEAD~9, bad nosuchref)' &&
    ok "a missing ref: exit 2, both named" || not_ok "a missing ref: exit 2, both named" "rc=$rc $err"
bfile "$s/a.bisect" "$s/tree" HEAD HEAD~9
err=$("$FSCONC" bisect start --dry-run "$s/a.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'good HEAD (.*) is not an ancestor of bad HEAD~9' &&
    ok "good not an ancestor of bad: exit 2, both named" ||
    not_ok "good not an ancestor of bad: exit 2, both named" "rc=$rc $err"
bfile "$s/x.bisect" "$s/tree" 'HEAD~9;touch${IFS}'"$s/pwned" 'HEAD$(touch${IFS}'"$s/pwned2)"
err=$("$FSCONC" bisect start -R "$s/res4" "$s/x.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && [ ! -e "$s/pwned" ] && [ ! -e "$s/pwned2" ] && echo "$err" | grep -q 'names no commit' &&
    ok "shell metacharacters in refs: never run, exit 2" ||
    not_ok "shell metacharacters in refs: never run, exit 2" "rc=$rc $err"
bfile "$s/o.bisect" "$s/tree" --all HEAD
err=$("$FSCONC" bisect start --dry-run "$s/o.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "starts with '-'" && ok "a ref like an option: refused" ||
    not_ok "a ref like an option: refused" "rc=$rc $err"
err=$("$FSCONC" bisect status -R "$s/empty" 2>&1); rc=$?
mkdir -p "$s/empty"
err=$("$FSCONC" bisect status -R "$s/empty" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q 'no bisect in progress' && ok "status with no bisect: exit 2" ||
    not_ok "status with no bisect: exit 2" "rc=$rc $err"
echo "1..$_t"
