# fsconc bisect, method lava, against the fake LAVA API (fake_lava.py, a
# python3 http.server on 127.0.0.1 started and stopped here) over the
# fake tree of tests/e2e/bisect.sh: 10 commits whose "build" writes the
# commit's figure file as its image; the fake lab boots the image a
# job's @KERNEL@ names (file://ROOT/bisect/ID/kernel/N) and makes the
# job's set's times its number, so the culprit is named from sets
# fetched from the lab.  Also: the --dry-run plan's submissions; a lost
# job retried, never counted; the controller killed and resumed without
# a job sent twice; stop, the jobs canceled in the lab; status; forged
# journal lines; search k-ary on 4 devices; a set that does not match
# its job refused; the bad files refused.  Campaigns through the lab:
# tests/e2e/campaign_lava.sh.
# suite-timeout: 600
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "bisect lava" "not root (the token file must be root's)"
	tap_close
	exit 0
fi
if ! command -v git >/dev/null 2>&1; then
	skip "bisect lava" "git not installed"
	tap_close
	exit 0
fi
export FSCONC_TEST_LAVA_POLL=1 FSCONC_TEST_LAVA_REQUEST=5
# Jobs end at their first look: a round takes one poll (campaign_lava.sh
# sees them Running first).
export FAKE_LAVA_POLLS=1
s=$(scratch)
cat >"$s/job.yaml" <<'EOF'
device_type: @DEVICE_TYPE@
job_name: "@NAME@"
kernel: "@KERNEL@"
args: "@ARGS@"
EOF
grep -v '@KERNEL@' "$s/job.yaml" >"$s/nokernel.yaml"
# The tree: from commit 6 on the figure is 150, before it 100.
git init -q "$s/tree" && git -C "$s/tree" config user.email t@example.org &&
    git -C "$s/tree" config user.name t
for i in 1 2 3 4 5 6 7 8 9 10; do
	if [ $i -ge 6 ]; then echo 150; else echo 100; fi >"$s/tree/figure"
	echo "$i" >"$s/tree/n$i"
	git -C "$s/tree" add -A &&
	    git -C "$s/tree" commit -qm "commit $i$([ $i = 6 ] && echo ': the regression')"
done
c6=$(git -C "$s/tree" rev-parse HEAD~4)

# bfile FILE DIR [RETRIES [TEMPLATE [EXTRA]]]: a bisect through the fake
# lab in DIR, its result root DIR/r.
bfile() {
	cat >"$1" <<EOF
tree $s/tree
good HEAD~9
bad HEAD
figure t 2
run -w calib -O iterations=20000 -j 1,2 -r 2
build cat figure > vmlinuz
image vmlinuz
build-timeout 30s
retries ${3:-1}
method lava
lava-url $url
lava-token-file $2/token
lava-template ${4:-$s/job.yaml}
lava-device-type fake
lava-in-flight 2
lava-kernel-url file://$2/r/bisect
${5:-}
EOF
}
journal() { cat "$1"/r/bisect/*/journal 2>/dev/null; }
# culprit DIR: the report names commit 6.
culprit() {
	report "$1" | grep -q "^first bad commit: $c6 commit 6: the regression$"
}
# report DIR: the report of the bisect under DIR/r.
report() {
	"$FSCONC" bisect report -R "$1/r" --id "$(basename "$(dirname \
	    "$(ls "$1"/r/bisect/*/journal | head -n 1)")")" 2>&1
}

# --- the plan: the lab, the rounds, the first round's jobs -------------
d=$s/plan
url=http://127.0.0.1:1
mkdir -p "$d"
echo "fake-token" >"$d/token"
chmod 0600 "$d/token"
bfile "$d/b.bisect" "$d"
out=$("$FSCONC" bisect start --dry-run -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
if [ $rc -eq 0 ] &&
    echo "$out" | grep -q "^# method lava: $url, device type fake, at most 2 jobs in flight; a job's bound [0-9]*s; a commit skipped once the lab failed more than 1 of its jobs$" &&
    echo "$out" | grep -qF "fetched by the lab from file://$d/r/bisect/ID/kernel/N" &&
    echo "$out" | grep -q '^# boot 1: commit 0 (c0-[0-9a-f]\{12\}), the job:$' &&
    echo "$out" | grep -q '^# boot 2: commit 9 (c9-[0-9a-f]\{12\}), the job:$' &&
    echo "$out" | grep -qx 'job_name: "fsconc-0-1-NONCE"' &&
    echo "$out" | grep -qx "kernel: \"file://$d/r/bisect/ID/kernel/9\"" &&
    echo "$out" | grep -q '^args: "-w calib -O iterations=20000 -j 1,2 -r 2 --label c9-[0-9a-f]\{12\}"$' &&
    echo "$out" | grep -q 'cat figure > vmlinuz' &&
    ! echo "$out" | grep -q 'resume hook, root-owned' && [ ! -e "$d/r" ]; then
	ok "--dry-run: the lab, the rounds, the first round's jobs (the endpoints, @KERNEL@ the image's URL), no hook, nothing made"
else
	not_ok "--dry-run: the lab, the rounds, the first round's jobs (the endpoints, @KERNEL@ the image's URL), no hook, nothing made" "rc=$rc $out"
fi

# --- bad files: refused, nothing made ------------------------------------
grep -v '^lava-kernel-url' "$d/b.bisect" >"$d/nourl.bisect"
out=$("$FSCONC" bisect start -R "$d/r" "$d/nourl.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'method lava: no lava-kernel-url' &&
    [ ! -e "$d/r" ] &&
    ok "refused: method lava without lava-kernel-url" ||
    not_ok "refused: method lava without lava-kernel-url" "rc=$rc $out"
sed 's|^lava-kernel-url .*|lava-kernel-url ftp://host/k|' "$d/b.bisect" >"$d/ftp.bisect"
out=$("$FSCONC" bisect start -R "$d/r" "$d/ftp.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'lava-kernel-url ftp://host/k: want an http:// or https:// (or file:///) URL' &&
    ok "refused: a lava-kernel-url not http(s) or file:///" ||
    not_ok "refused: a lava-kernel-url not http(s) or file:///" "rc=$rc $out"
bfile "$d/nok.bisect" "$d" 1 "$s/nokernel.yaml"
out=$("$FSCONC" bisect start -R "$d/r" "$d/nok.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'want @NAME@ .* and @KERNEL@ (the commit.s image' &&
    [ ! -e "$d/r/bisect" ] &&
    ok "refused: a template without @KERNEL@ (every job would boot one kernel)" ||
    not_ok "refused: a template without @KERNEL@ (every job would boot one kernel)" "rc=$rc $out"
chmod 0644 "$d/token"
out=$("$FSCONC" bisect start -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'readable or writable by others' &&
    [ ! -e "$d/r/bisect" ] &&
    ok "refused: a token file others can read, before anything is made" ||
    not_ok "refused: a token file others can read, before anything is made" "rc=$rc $out"
{ echo "run -w calib -j 1 -r 1"; echo "method lava"; echo "lava-url $url"
  echo "lava-token-file $d/token"; echo "lava-template $s/job.yaml"
  echo "lava-device-type fake"; echo "lava-kernel-url file:///k"
  echo "config A"; echo "kernel k"; } >"$d/c.campaign"
out=$("$FSCONC" campaign start --dry-run -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "lava-kernel-url: a bisect's" &&
    ok "refused: lava-kernel-url in a campaign file" ||
    not_ok "refused: lava-kernel-url in a campaign file" "rc=$rc $out"

# --- a bisect through the lab: commit 6 named ----------------------------
d=$s/good
fake_lava good "$d"
bfile "$d/b.bisect" "$d"
out=$("$FSCONC" bisect start -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
j=$(journal "$d")
ns=$(echo "$j" | grep -c '^submit ')
nm=$(echo "$j" | grep -c '^mean ')
[ $rc -eq 0 ] && culprit "$d" && [ ! -e "$d/r/bisect/active" ] &&
    [ "$ns" -eq "$(wc -l <"$d/submitted")" ] && [ "$nm" -eq "$ns" ] &&
    [ "$(echo "$j" | grep -c '^job ')" -eq "$ns" ] &&
    ! echo "$j" | grep -q '^schedule \|^run ' &&
    echo "$j" | grep -q '^done 0 4 5 ' &&
    ok "a bisect through the lab: $ns jobs, each journaled, its set's figure read; commit 6 named" ||
    not_ok "a bisect through the lab: commit 6 named" "rc=$rc submitted=$(wc -l <"$d/submitted") $j $out"
# The revert confirmed through the lab too: its image is commit 10's.
echo "$j" | grep -q '^submit 10 ' &&
    report "$d" | grep -q '^confirmed: ' &&
    ok "the culprit's revert built here, booted by the lab, confirmed" ||
    not_ok "the culprit's revert built here, booted by the lab, confirmed" \
    "$(report "$d")"
# Two jobs a round on two devices: the endpoints' first round at once.
[ "$(sed -n 1,2p "$d/submitted" | cut -d- -f2 | tr '\n' ' ')" = "0 9 " ] &&
    ok "the first round: both endpoints' jobs in flight at once" ||
    not_ok "the first round: both endpoints' jobs in flight at once" "$(cat "$d/submitted")"
m=$(cat "$d"/r/bisect/*/lava/job-*/*/meta 2>/dev/null)
echo "$m" | grep -q '^campaign_machine=fake-0[12]$' &&
    echo "$m" | grep -q '^lava_device=fake-0[12]$' &&
    echo "$m" | grep -q "^bisect_commit=$c6$" &&
    ok "each set's meta: the device as campaign_machine, the commit" ||
    not_ok "each set's meta: the device as campaign_machine, the commit" "$m"
case "$out$j$m" in
*"fake-token-$$"*) not_ok "the token in no output, journal or set" ;;
*) ok "the token in no output, journal or set" ;;
esac
fake_lava_stop
# Forged journal lines: refused by the replay, named.
for f in "mean 4 99 100.5 1796000000:commit 4 boot 99: no job of it in flight" \
    "job 0 1 555:commit 0 boot 1: no job of it in flight" \
    "schedule 4 $((ns + 1)) boot-x 1796000000:schedule: not an event of method lava"; do
	line=${f%%:*} want=${f#*:}
	rm -rf "$d/f"
	cp -a "$d/r" "$d/f"
	echo "$line" >>"$(ls "$d"/f/bisect/*/journal)"
	out=$("$FSCONC" bisect status -R "$d/f" --id "$(basename "$(dirname \
	    "$(ls "$d"/f/bisect/*/journal)")")" 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$out" | grep -qF "$want" &&
	    ok "a forged journal line refused: $line" ||
	    not_ok "a forged journal line refused: $line" "rc=$rc $out"
done

# --- search k-ary on 4 devices: two steps a round -----------------------
d=$s/kary
fake_lava good "$d"
bfile "$d/b.bisect" "$d" 1 "$s/job.yaml" "search k-ary"
sed -i 's/^lava-in-flight 2$/lava-in-flight 4/' "$d/b.bisect"
out=$("$FSCONC" bisect start -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
j=$(journal "$d")
# A round: the submissions between two results.  The most steps (not
# the endpoints 0 and 9) of one round: 2.
rounds=$(echo "$j" | awk '/^submit / { c = c " " $2; next }
    /^(mean|lost) / { if (c != "") print c; c = "" }')
most=$(echo "$rounds" | while read -r l; do
	echo "$l" | tr ' ' '\n' | grep -v '^[09]$' | sort -u | grep -c .
done | sort -n | tail -n 1)
[ $rc -eq 0 ] && culprit "$d" &&
    [ "$(echo "$j" | grep -c '^submit ')" -eq "$(wc -l <"$d/submitted")" ] &&
    [ "$most" -eq 2 ] &&
    ok "search k-ary on 4 devices: two steps a round, commit 6 named" ||
    not_ok "search k-ary on 4 devices: two steps a round, commit 6 named" "rc=$rc rounds=$rounds $j $out"
fake_lava_stop
bfile "$d/k2.bisect" "$d" 1 "$s/job.yaml" "search k-ary"
out=$("$FSCONC" bisect start --dry-run -R "$d/r2" "$d/k2.bisect" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'search k-ary: wants method lava with lava-in-flight above 2' &&
    ok "refused: search k-ary on 2 devices (serial is faster there)" ||
    not_ok "refused: search k-ary on 2 devices (serial is faster there)" "rc=$rc $out"

# --- a lost job: retried, never counted --------------------------------
d=$s/incomplete
fake_lava incomplete1 "$d"
bfile "$d/b.bisect" "$d"
out=$("$FSCONC" bisect start -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
j=$(journal "$d")
[ $rc -eq 0 ] && culprit "$d" &&
    echo "$j" | grep -q '^lost 0 1 job 101 on fake-0[12]: Incomplete: kernel panic' &&
    ! echo "$j" | grep -q '^mean 0 1 ' &&
    [ "$(echo "$j" | grep -c '^mean ')" -eq $(($(wc -l <"$d/submitted") - 1)) ] &&
    ok "an Incomplete job: lost, retried, not a boot; commit 6 named" ||
    not_ok "an Incomplete job: lost, retried, not a boot; commit 6 named" "rc=$rc $j $out"
fake_lava_stop

# --- sets that do not match their job: refused, the commit skipped -------
d=$s/wrong
fake_lava wrong-config "$d"
bfile "$d/b.bisect" "$d" 0
out=$("$FSCONC" bisect start -R "$d/r" "$d/b.bisect" 2>&1); rc=$?
j=$(journal "$d")
[ $rc -eq 0 ] &&
    echo "$j" | grep -q "^lost 0 1 job 10[12] on fake-0[12]: its result set refused: .* is config OTHER's, not c0-" &&
    ! echo "$j" | grep -q '^mean ' && echo "$j" | grep -q '^skip 0 1 jobs lost' &&
    echo "$j" | grep -q '^done 4 ' &&
    ok "a set of another configuration: refused, named, no mean; the endpoint skipped" ||
    not_ok "a set of another configuration: refused, named, no mean; the endpoint skipped" "rc=$rc $j $out"
fake_lava_stop

# --- the controller killed: resumed, its jobs followed, none sent twice --
d=$s/kill
fake_lava hold "$d"
bfile "$d/b.bisect" "$d"
"$FSCONC" bisect start -R "$d/r" "$d/b.bisect" >"$d/start.out" 2>&1 &
cpid=$!
wait_until sh -c "[ \$(cat $d/r/bisect/*/journal 2>/dev/null |
    grep -c '^job ') -ge 2 ]"
kill -KILL $cpid
wait $cpid 2>/dev/null
st=$("$FSCONC" bisect status -R "$d/r" 2>&1)
[ "$(echo "$st" | grep -c '^boot [12]: commit [09]: job 10[12] in the lab$')" -eq 2 ] &&
    ok "status: the jobs in the lab" || not_ok "status: the jobs in the lab" "$st"
touch "$d/release"
out=$("$FSCONC" bisect resume -R "$d/r" 2>&1); rc=$?
j=$(journal "$d")
[ $rc -eq 0 ] && culprit "$d" && [ "$(sort "$d/submitted" | uniq -d)" = "" ] &&
    [ "$(echo "$j" | grep -c '^submit ')" -eq "$(wc -l <"$d/submitted")" ] &&
    [ "$(echo "$j" | grep -c '^mean [09] [12] ')" -eq 2 ] &&
    ok "controller killed, resumed: its two jobs followed, none sent twice; commit 6 named" ||
    not_ok "controller killed, resumed: its two jobs followed, none sent twice; commit 6 named" \
    "rc=$rc $(cat "$d/submitted") $j $out $(cat "$d/start.out")"
fake_lava_stop

# --- stop: the controller cancels its jobs in the lab and ends -----------
d=$s/stop
fake_lava hold "$d"
bfile "$d/b.bisect" "$d"
"$FSCONC" bisect start -R "$d/r" "$d/b.bisect" >"$d/start.out" 2>&1 &
cpid=$!
wait_until sh -c "[ \$(cat $d/r/bisect/*/journal 2>/dev/null |
    grep -c '^job ') -ge 2 ]"
"$FSCONC" bisect stop -R "$d/r" >"$d/stop.out" 2>&1; src=$?
wait $cpid
rc=$?
[ $src -eq 0 ] && [ $rc -eq 0 ] &&
    grep -q 'GET /api/v0.2/jobs/101/cancel/' "$d/requests" &&
    grep -q 'GET /api/v0.2/jobs/102/cancel/' "$d/requests" &&
    grep -q '^stop ' "$d"/r/bisect/*/journal &&
    [ "$(wc -l <"$d/submitted")" -eq 2 ] && [ ! -e "$d/r/bisect/active" ] &&
    ok "stop: the controller cancels its jobs in the lab, sends no other, ends" ||
    not_ok "stop: the controller cancels its jobs in the lab, sends no other, ends" \
    "src=$src rc=$rc $(cat "$d/start.out" "$d/stop.out" "$d/requests")"
fake_lava_stop

tap_close
