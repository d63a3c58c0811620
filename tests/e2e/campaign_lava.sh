# fsconc campaign, method lava, against a fake LAVA API (fake_lava.py, a
# python3 http.server on 127.0.0.1 started and stopped here) for the
# answers a real lab does not give on demand: result sets that do not
# match their job (another configuration, missing or extra batches, a
# value not a number or infinite, a bad SHA-256), refused and named; an
# Incomplete job, retried; jobs in flight lost, their configuration
# failed once; a submission whose answer was lost, found
# again by its name; a controller killed, resumed without a job sent
# twice; a lab that does not answer, waited for within a bound, then
# resumed.  The real lab's tests are tests/lava/run.
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "campaign lava" "not root (the token file must be root's)"
	tap_close
	exit 0
fi
export FSCONC_TEST_LAVA_POLL=1 FSCONC_TEST_LAVA_REQUEST=5
s=$(scratch)
cat >"$s/job.yaml" <<'EOF'
device_type: @DEVICE_TYPE@
job_name: "@NAME@"
args: "@ARGS@"
EOF
# cfile FILE DIR CONFIGS BOOTS RETRIES [TIMEOUT]
cfile() {
	{
		echo "run -w calib -O iterations=200000 -j 1 -r 3"
		echo "boots $4"
		echo "retries $5"
		echo "boot-timeout ${6:-600}"
		echo "method lava"
		echo "lava-url $url"
		echo "lava-token-file $2/token"
		echo "lava-template $s/job.yaml"
		echo "lava-device-type fake"
		echo "lava-in-flight 2"
		for c in $3; do echo "config $c"; done
	} >"$1"
}
journal() { cat "$1"/campaign/*/journal 2>/dev/null; }

# --- a good lab: 2 configurations x 2 boots, then the report ---------------
d=$s/good
fake_lava good "$d"
cfile "$d/c.campaign" "$d" "A B" 2 0
out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
j=$(journal "$d/r")
nd=$(echo "$j" | grep -c '^done ')
ns=$(wc -l <"$d/submitted")
[ $rc -eq 0 ] && [ "$nd" -eq 4 ] && [ "$ns" -eq 4 ] &&
    ok "lava: 4 jobs submitted, 4 sets fetched, checked and done" ||
    not_ok "lava: 4 jobs submitted, 4 sets fetched, checked and done" \
    "rc=$rc done=$nd submitted=$ns $out"
rep=$("$FSCONC" campaign report -R "$d/r" 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$rep" | grep -q "B" &&
    ok "lava: campaign report reads the lab's sets" ||
    not_ok "lava: campaign report reads the lab's sets" "rc=$rc $rep"
# The lab's devices are the boots' machines: each set's campaign_machine
# is the device that ran it, and the report's machine level is theirs.
m=$(cat "$d"/r/campaign/*/lava/*/*/meta 2>/dev/null)
[ "$(echo "$m" | grep -c '^campaign_machine=fake-0[12]$')" -eq 4 ] &&
    echo "$m" | grep -q '^campaign_machine=fake-01$' &&
    echo "$m" | grep -q '^campaign_machine=fake-02$' &&
    echo "$rep" | grep -q '^machines: 2 (.*fake-01.*fake-02\|^machines: 2 (.*fake-02.*fake-01' &&
    ok "lava: the device that ran a boot is its campaign_machine: the report's machines are the lab's" ||
    not_ok "lava: the device that ran a boot is its campaign_machine: the report's machines are the lab's" \
    "$m $rep"
case "$out$j$(cat "$d"/r/campaign/*/lava/*/*/meta 2>/dev/null)" in
*"fake-token-$$"*) not_ok "lava: the token in no output, journal or set" ;;
*) ok "lava: the token in no output, journal or set" ;;
esac
fake_lava_stop

# --- sets that do not match their job: refused and named ------------------
for m in "wrong-config:is config OTHER's, not A's" \
    "missing-batch:2 batches at 1 jobs: missing some of the 3 of -r" \
    "extra-batch:4 batches at 1 jobs: more than the 3 of -r" \
    "nan-value:runs.tsv" \
    "inf-value:real \"inf\"" \
    "bad-sha:sha256" \
    "tar-link:/passwd': not a file or directory of" \
    "tar-escape:/../escaped': not a file or directory of"; do
	mode=${m%%:*} want=${m#*:}
	d=$s/$mode
	fake_lava "$mode" "$d"
	cfile "$d/c.campaign" "$d" A 1 0
	out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1)
	j=$(journal "$d/r")
	l=$(echo "$j" | grep '^lost ')
	case $l in
	*"result set refused: "*"$want"*)
		if echo "$j" | grep -q '^done ' ||
		    ! echo "$j" | grep -q '^failed A '; then
			not_ok "lava: $mode refused, named, not a boot" "$j"
		elif ls "$d"/r/campaign/*/lava/job-*/* >/dev/null 2>&1 ||
		    [ -e "$d"/r/campaign/*/lava/escaped ]; then
			not_ok "lava: $mode refused, named, not a boot" \
			    "the refused set is left: $(ls -R "$d/r/campaign")"
		else
			ok "lava: $mode refused, named, not a boot"
		fi ;;
	*)	not_ok "lava: $mode refused, named, not a boot" "$j $out" ;;
	esac
	fake_lava_stop
done

# --- an Incomplete job: retried, never counted --------------------------
d=$s/incomplete
fake_lava incomplete1 "$d"
cfile "$d/c.campaign" "$d" A 2 1
out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
j=$(journal "$d/r")
[ $rc -eq 0 ] && echo "$j" | grep -q '^lost .*Incomplete: kernel panic' &&
    [ "$(echo "$j" | grep -c '^done ')" -eq 2 ] &&
    [ "$(wc -l <"$d/submitted")" -eq 3 ] &&
    ok "lava: an Incomplete job retried, not counted as a boot" ||
    not_ok "lava: an Incomplete job retried, not counted as a boot" \
    "rc=$rc $j $out"
fake_lava_stop

# --- every job Incomplete, two in flight: the configuration failed once --
d=$s/incomplete-all
fake_lava incomplete "$d"
cfile "$d/c.campaign" "$d" A 2 0
out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
j=$(journal "$d/r")
[ $rc -eq 0 ] && [ "$(echo "$j" | grep -c '^lost ')" -eq 2 ] &&
    [ "$(echo "$j" | grep -c '^failed A ')" -eq 1 ] &&
    ! echo "$j" | grep -q '^done ' &&
    ok "lava: two jobs in flight lost: the configuration failed once" ||
    not_ok "lava: two jobs in flight lost: the configuration failed once" \
    "rc=$rc $j $out"
fake_lava_stop

# --- a submission whose answer was lost: found again by its name --------
d=$s/lose
fake_lava lose1 "$d"
cfile "$d/c.campaign" "$d" A 1 0
out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
j=$(journal "$d/r")
[ $rc -eq 0 ] && [ "$(wc -l <"$d/submitted")" -eq 1 ] &&
    echo "$j" | grep -q '^job 1 1 101$' && echo "$j" | grep -q '^done ' &&
    ok "lava: a lost answer: the job found again by its name, not resent" ||
    not_ok "lava: a lost answer: the job found again by its name, not resent" \
    "rc=$rc $j $out"
fake_lava_stop

# --- the controller killed: resumed, jobs followed, none sent twice -----
d=$s/kill
fake_lava hold "$d"
cfile "$d/c.campaign" "$d" "A B" 2 0
"$FSCONC" campaign start -R "$d/r" "$d/c.campaign" >"$d/start.out" 2>&1 &
cpid=$!
wait_until sh -c "[ \$(cat $d/r/campaign/*/journal 2>/dev/null |
    grep -c '^job ') -ge 2 ]"
kill -KILL $cpid
wait $cpid 2>/dev/null
st=$("$FSCONC" campaign status -R "$d/r" 2>&1)
[ "$(echo "$st" | grep -c ' in the lab ')" -eq 2 ] &&
    ok "lava: status shows the jobs in the lab" ||
    not_ok "lava: status shows the jobs in the lab" "$st"
touch "$d/release"
out=$("$FSCONC" campaign resume -R "$d/r" 2>&1); rc=$?
j=$(journal "$d/r")
[ $rc -eq 0 ] && [ "$(echo "$j" | grep -c '^done ')" -eq 4 ] &&
    [ "$(wc -l <"$d/submitted")" -eq 4 ] &&
    [ "$(sort "$d/submitted" | uniq -d)" = "" ] &&
    ok "lava: controller killed, resumed: its jobs followed, none sent twice" ||
    not_ok "lava: controller killed, resumed: its jobs followed, none sent twice" \
    "rc=$rc $(cat "$d/submitted") $j $out"
# The token went to curl through a pipe: no file of the killed
# controller's holds it.
if grep -rq "fake-token-$$" "$d/r" "${TMPDIR:-/tmp}"/fsconc-lab.* 2>/dev/null; then
	not_ok "lava: the killed controller left the token in no file" \
	    "$(grep -rl "fake-token-$$" "$d/r" "${TMPDIR:-/tmp}"/fsconc-lab.* 2>/dev/null)"
else
	ok "lava: the killed controller left the token in no file"
fi
fake_lava_stop

# --- stop: the controller cancels its jobs and ends ---------------------
d=$s/stop
fake_lava hold "$d"
cfile "$d/c.campaign" "$d" A 2 0
"$FSCONC" campaign start -R "$d/r" "$d/c.campaign" >"$d/start.out" 2>&1 &
cpid=$!
wait_until sh -c "grep -q '^job ' $d/r/campaign/*/journal 2>/dev/null"
"$FSCONC" campaign stop -R "$d/r" >"$d/stop.out" 2>&1
wait $cpid
rc=$?
# Two in flight: both canceled.
[ $rc -eq 0 ] && grep -q 'GET /api/v0.2/jobs/101/cancel/' "$d/requests" &&
    grep -q 'GET /api/v0.2/jobs/102/cancel/' "$d/requests" &&
    grep -q '^stop ' "$d"/r/campaign/*/journal &&
    [ "$(wc -l <"$d/submitted")" -eq 2 ] &&
    ok "lava: stop: the controller cancels its jobs in the lab and ends" ||
    not_ok "lava: stop: the controller cancels its jobs in the lab and ends" \
    "rc=$rc $(cat "$d/start.out" "$d/stop.out" "$d/requests")"
fake_lava_stop

# --- a lab that does not answer: a bounded wait, then resume ------------
d=$s/silent
fake_lava silent "$d"
port=$(cat "$d/port")
cfile "$d/c.campaign" "$d" A 1 1 3
t0=$(date +%s)
out=$("$FSCONC" campaign start -R "$d/r" "$d/c.campaign" 2>&1); rc=$?
t=$(($(date +%s) - t0))
j=$(journal "$d/r")
[ $rc -eq 1 ] && [ $t -lt 60 ] && echo "$out" | grep -q "has not answered" &&
    echo "$j" | grep -q '^submit ' && ! echo "$j" | grep -q '^job ' &&
    ok "lava: a lab that does not answer: waited ${t}s (bound 3s), stopped, open" ||
    not_ok "lava: a lab that does not answer: a bounded wait" "rc=$rc t=$t $out $j"
fake_lava_stop
FAKE_LAVA_PORT=$port fake_lava good "$d"
unset FAKE_LAVA_PORT
out=$("$FSCONC" campaign resume -R "$d/r" 2>&1); rc=$?
j=$(journal "$d/r")
[ $rc -eq 0 ] && echo "$j" | grep -q '^lost .*never reached the lab' &&
    echo "$j" | grep -q '^done ' &&
    ok "lava: the lab back: resumed, the unsent job retried, done" ||
    not_ok "lava: the lab back: resumed, the unsent job retried, done" \
    "rc=$rc $j $out"
fake_lava_stop

tap_close
