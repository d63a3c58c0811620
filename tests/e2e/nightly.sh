# fsconc nightly on generated sets with known answers (--no-run: compare
# an existing set; the run itself is fsconc run's and tested there).
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
r=$s/root
# night LABEL STAMP [VAR=value...]: a set as a nightly run would leave it.
night() {
	_lab=$1 _stamp=$2
	shift 2
	env LABEL="$_lab" "$@" sh "$TOP/tests/fixtures/mkset.sh" "$r/h1/$_lab/$_stamp"
}

"$FSCONC" nightly --threshold abc --no-run x >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad --threshold: exit 2" || not_ok "bad --threshold: exit 2" "rc=$rc"
"$FSCONC" nightly --no-run x extra >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "stray argument: exit 2" || not_ok "stray argument: exit 2" "rc=$rc"

# The first night: nothing to compare with, not a failure.
night cfg 20261101T020000Z SEED=1
out=$("$FSCONC" nightly -R "$r" --no-run h1/cfg 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'no baseline yet' &&
    ok "first set: no baseline, exit 0" || not_ok "first set: no baseline, exit 0" "rc=$rc $out"

# Same configuration, another night: no difference proven anywhere.
night cfg 20261102T020000Z SEED=2
"$FSCONC" nightly -R "$r" --no-run h1/cfg >"$s/out" 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^verdict: no regression' "$s/out" &&
    [ "$(grep -c 'no difference proven' "$s/out")" -eq 15 ] &&
    [ "$(grep -c '^EC ' "$s/out")" -eq 3 ] &&
    ok "identical configuration: exit 0, 15 x no difference (EC too)" ||
    not_ok "identical configuration: exit 0, 15 x no difference (EC too)" "rc=$rc $(cat "$s/out" "$s/err")"
# Cron: the baseline, the verdict (12 tests, 3 EC tests and a summary)
# on stdout, nothing else.
[ "$(wc -l <"$s/out")" -eq 17 ] && [ ! -s "$s/err" ] &&
    grep -qx "baseline:  $r/h1/cfg/20261101T020000Z" "$s/out" &&
    ok "quiet for cron" || not_ok "quiet for cron" "$(cat "$s/out" "$s/err")"
[ -s "$r/h1/cfg/20261102T020000Z/report/index.html" ] &&
    grep -q '<h2>Verdict</h2>' "$r/h1/cfg/20261102T020000Z/report/index.html" &&
    ok "report with the verdict written into the set" ||
    not_ok "report with the verdict written into the set"

# A 6% slowdown planted at N=4: found there, exit 3.
night cfg 20261103T020000Z SEED=3 SLOW=1.06 SLOW_LEVEL=4
"$FSCONC" nightly -R "$r" --no-run h1/cfg --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && grep -q '^real *jobs=4 *slower .*REGRESSION' "$s/out" &&
    ! grep -v 'jobs=4' "$s/out" | grep -q REGRESSION &&
    ok "planted slowdown at N=4: found, only there, exit 3" ||
    not_ok "planted slowdown at N=4: found, only there, exit 3" "rc=$rc $(cat "$s/out")"
[ ! -e "$r/h1/cfg/20261103T020000Z/report" ] && ok "--no-report" || not_ok "--no-report"
# Explicit baseline; the interval is printed; -v names the sets.
"$FSCONC" nightly -R "$r" -v --baseline h1/cfg/20261101T020000Z \
    --no-run h1/cfg/20261103T020000Z -o "$s/rep" >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && grep -q '^baseline: .*20261101T020000Z' "$s/out" &&
    grep -Eq '^real +jobs=4 +slower +\+[0-9.]+% \+/- [0-9.]+%' "$s/out" &&
    [ -s "$s/rep/index.html" ] &&
    ok "--baseline SET, -v, -o DIR" || not_ok "--baseline SET, -v, -o DIR" "rc=$rc $(cat "$s/out")"

# EC(4) of the planted slowdown: lower, a regression too; both ECs, dEC
# with its interval and the threshold on the line.
grep -Eq '^EC +jobs=4 +lower +[0-9.]+ -> [0-9.]+  dEC -[0-9.]+ \[-[0-9.]+, -[0-9.]+\] \(-[0-9.]+%, threshold -2%\) .*REGRESSION' "$s/out" &&
    ! grep -E '^EC +jobs=[28] ' "$s/out" | grep -q REGRESSION &&
    ok "planted slowdown at N=4: EC(4) lower, a regression" ||
    not_ok "planted slowdown at N=4: EC(4) lower, a regression" "$(cat "$s/out")"
# T1 10% faster, nothing else changed: EC drops 10% at every N > 1, a
# regression (exit 3) although no time got worse.
night ecdrop 20261101T020000Z SEED=11
night ecdrop 20261102T020000Z SEED=12 SLOW=0.9 SLOW_LEVEL=1
"$FSCONC" nightly -R "$r" --no-run h1/ecdrop --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && [ "$(grep -c '^EC .* lower .*REGRESSION' "$s/out")" -eq 3 ] &&
    ! grep -v '^EC ' "$s/out" | grep -q REGRESSION &&
    ok "EC drop alone (T1 faster): EC lower at every N, exit 3" ||
    not_ok "EC drop alone (T1 faster): EC lower at every N, exit 3" "rc=$rc $(cat "$s/out")"

# Validity gates: a noisy candidate, a missed precision target, a
# superlinear EC: no "no regression", exit 4, what to do; a regression
# found despite the flags still exits 3.
night gate 20261101T020000Z SEED=21
night gate 20261102T020000Z SEED=22 NOISE=0.3
"$FSCONC" nightly -R "$r" --no-run h1/gate --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 4 ] && ! grep -q 'no regression$' "$s/out" &&
    grep -q '^flag: candidate: noisy: jobs 1: real time CV [0-9.]*% above 20%' "$s/out" &&
    grep -q '^verdict: invalid, .*: act on the flags and run again$' "$s/out" &&
    ok "noisy candidate (CV 30%): flagged, verdict invalid, exit 4" ||
    not_ok "noisy candidate (CV 30%): flagged, verdict invalid, exit 4" "rc=$rc $(cat "$s/out")"
"$FSCONC" nightly -R "$r" --no-run h1/gate --no-report --max-cv 80 >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^verdict: no regression' "$s/out" &&
    ok "--max-cv 80: not flagged, exit 0" ||
    not_ok "--max-cv 80: not flagged, exit 0" "rc=$rc $(cat "$s/out")"
"$FSCONC" nightly -R "$r" --no-run h1/gate --no-report --max-cv 0 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--max-cv 0: exit 2" || not_ok "--max-cv 0: exit 2" "rc=$rc"
night gate 20261103T020000Z SEED=23 NOISE=0.3 SLOW=2
"$FSCONC" nightly -R "$r" --no-run h1/gate --baseline h1/gate/20261101T020000Z \
    --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && grep -q '^flag: candidate: noisy' "$s/out" &&
    grep -q '^verdict: .* regressions* larger than 2% (despite the flags above)' "$s/out" &&
    ok "a regression despite the flags: exit 3" ||
    not_ok "a regression despite the flags: exit 3" "rc=$rc $(cat "$s/out")"
night prec 20261101T020000Z SEED=31
night prec 20261102T020000Z SEED=32
printf 'precision_target=2\nprecision_met=no\nprecision_stop=budget\nprecision_real.1=1.4\nprecision_real.2=2.6\nprecision_ec.2=3.1\n' \
    >>"$r/h1/prec/20261102T020000Z/meta"
"$FSCONC" nightly -R "$r" --no-run h1/prec --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 4 ] &&
    grep -q '^flag: candidate: precision not reached: target 2% (stopped by budget)' "$s/out" &&
    grep -q '^candidate: precision: target 2%, NOT met (stopped by budget); reached (95% half-width, % of the mean): real 1=1.4% 2=2.6%; EC 2=3.1%$' "$s/out" &&
    ok "precision_met=no: flagged, precision shown, exit 4" ||
    not_ok "precision_met=no: flagged, precision shown, exit 4" "rc=$rc $(cat "$s/out")"
# EC(2) = 2 / 0.9 = 2.22 on 8 CPUs: wholly above min(2, 8).
night sup 20261101T020000Z SEED=41 SERIAL=-0.1
night sup 20261102T020000Z SEED=42 SERIAL=-0.1
"$FSCONC" nightly -R "$r" --no-run h1/sup --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 4 ] &&
    grep -q '^flag: candidate: superlinear: EC(2) = 2.2[0-9] \[2\.[0-9]*, 2\.[0-9]*\] lies wholly above min(N, ncpu) = 2.  Likely causes: ' "$s/out" &&
    ok "superlinear EC(2): flagged with its likely causes, exit 4" ||
    not_ok "superlinear EC(2): flagged with its likely causes, exit 4" "rc=$rc $(cat "$s/out")"

# Faster is reported, and is no regression.
night cfg 20261104T020000Z SEED=4 SLOW=0.9
# (The night before it is the planted regression: no night-to-night
# spread here, which would count that one as spread.)
"$FSCONC" nightly -R "$r" --no-run h1/cfg --baseline h1/cfg/20261102T020000Z \
    --spread-nights 0 --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' faster ' "$s/out")" -eq 12 ] &&
    ok "planted 10% speedup: 12 x faster, exit 0" ||
    not_ok "planted 10% speedup: 12 x faster, exit 0" "rc=$rc $(cat "$s/out")"

# A 1% slowdown, measured precisely: slower, but under the 2% threshold.
night fine 20261101T020000Z SEED=5 NOISE=0.002
night fine 20261102T020000Z SEED=6 NOISE=0.002 SLOW=1.01
"$FSCONC" nightly -R "$r" --no-run h1/fine --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ' slower ' "$s/out")" -eq 12 ] && ! grep -q REGRESSION "$s/out" &&
    ok "1% slowdown under --threshold 2: slower, exit 0" ||
    not_ok "1% slowdown under --threshold 2: slower, exit 0" "rc=$rc $(cat "$s/out")"
"$FSCONC" nightly -R "$r" --no-run h1/fine --no-report --threshold 0.5 >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && ok "the same with --threshold 0.5: exit 3" ||
    not_ok "the same with --threshold 0.5: exit 3" "rc=$rc $(cat "$s/out")"

# The default baseline is never a set whose run did not finish: one
# killed (start, no end), one interrupted; said on stderr, the baseline
# used on stdout.
night inc 20261101T020000Z SEED=1
night inc 20261102T020000Z SEED=2
sed -i '/^end=/d' "$r/h1/inc/20261102T020000Z/meta"
echo 'start=2026-11-02T02:00:00Z' >>"$r/h1/inc/20261102T020000Z/meta"
night inc 20261103T020000Z SEED=3
printf 'start=x\ninterrupted=yes\nend=y\n' >>"$r/h1/inc/20261103T020000Z/meta"
night inc 20261104T020000Z SEED=4
"$FSCONC" nightly -R "$r" --no-run h1/inc --no-report >"$s/out" 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && grep -qx "baseline:  $r/h1/inc/20261101T020000Z" "$s/out" &&
    grep -q 'passed over 2 newer sets that did not finish' "$s/err" &&
    ok "default baseline: incomplete sets passed over, baseline named" ||
    not_ok "default baseline: incomplete sets passed over, baseline named" \
    "rc=$rc $(cat "$s/out" "$s/err")"
# Nothing complete before: no baseline yet.
night inc2 20261101T020000Z SEED=1
echo 'interrupted=yes' >>"$r/h1/inc2/20261101T020000Z/meta"
night inc2 20261102T020000Z SEED=2
out=$("$FSCONC" nightly -R "$r" --no-run h1/inc2 --no-report 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q 'no baseline yet' &&
    echo "$out" | grep -q 'passed over 1 newer set that' &&
    ok "only an interrupted set before: no baseline yet" ||
    not_ok "only an interrupted set before: no baseline yet" "rc=$rc $out"

# Constant data (no p = 0 from rounding): four 0.1 against three 0.1, every metric, at
# --threshold 0: no regression (it said SLOWER with p = 0 and exited 3).
printf '0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n0.1 real 0.1 user 0.1 sys\n' >"$s/k4"
head -n 3 "$s/k4" >"$s/k3"
"$FSCONC" import -R "$r" --host h1 -l k4 1="$s/k4" 2="$s/k4" >/dev/null
"$FSCONC" import -R "$r" --host h1 -l k3 1="$s/k3" 2="$s/k3" >/dev/null
"$FSCONC" nightly -R "$r" --no-run h1/k3 --baseline h1/k4 --threshold 0 \
    --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^verdict: no regression' "$s/out" &&
    ! grep -Eq ' (slower|faster) ' "$s/out" &&
    ok "constant sets, --threshold 0: no regression, exit 0" ||
    not_ok "constant sets, --threshold 0: no regression, exit 0" "rc=$rc $(cat "$s/out")"

# Night-to-night spread: five earlier nights whose level moves by -4%
# to +5% between nights, each night precise to 0.3% (NOISE=0.01, 10
# reps), then a night 6% slower than the last.  Without the spread it is
# a regression; with it (the default, --spread-nights 10) it is within
# what nights do here, said with the spread; 40% slower still is one.
i=0
for f in 1.00 1.04 0.97 1.05 0.98; do
	i=$((i + 1))
	night drift 2026111${i}T020000Z SEED=$((60 + i)) NOISE=0.01 SLOW=$f
done
night drift 20261117T020000Z SEED=70 NOISE=0.01 SLOW=1.04
"$FSCONC" nightly -R "$r" --no-run h1/drift --spread-nights 0 \
    --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && ! grep -q 'night-to-night' "$s/out" &&
    ok "drifting nights, --spread-nights 0: a 6% slower night is a regression" ||
    not_ok "drifting nights, --spread-nights 0: a 6% slower night is a regression" "rc=$rc $(cat "$s/out")"
"$FSCONC" nightly -R "$r" --no-run h1/drift -v --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^verdict: no regression' "$s/out" &&
    grep -q '^night-to-night spread: from 5 earlier nights (--spread-nights 10; 3 wanted)$' "$s/out" &&
    grep -Eq '^ +\(night-to-night spread \+/-[0-9.]+% from 5 earlier nights, in the interval and p\)$' "$s/out" &&
    ok "drifting nights: the spread of 5 earlier nights widens the test, no regression" ||
    not_ok "drifting nights: the spread of 5 earlier nights widens the test, no regression" "rc=$rc $(cat "$s/out")"
night drift 20261118T020000Z SEED=71 NOISE=0.01 SLOW=1.45
"$FSCONC" nightly -R "$r" --no-run h1/drift --no-report >"$s/out" 2>&1; rc=$?
[ $rc -eq 3 ] && grep -q '^real   jobs=1 .*REGRESSION' "$s/out" &&
    ok "drifting nights: 40% slower is a regression all the same" ||
    not_ok "drifting nights: 40% slower is a regression all the same" "rc=$rc $(cat "$s/out")"
"$FSCONC" nightly --spread-nights 101 --no-run x >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--spread-nights 101: usage error" ||
    not_ok "--spread-nights 101: usage error" "rc=$rc"

err=$("$FSCONC" nightly -R "$r" --no-run h1/cfg --baseline h1/nosuch 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q nosuch &&
    ok "unknown baseline: exit 1" || not_ok "unknown baseline: exit 1" "rc=$rc $err"

# A real nightly run (a short syscall workload), twice: the second one is
# judged against the first and its report lands in the new set.
FSCONC_RUNDIR=$s/rundir
export FSCONC_RUNDIR
mkdir -m 700 "$FSCONC_RUNDIR"
disk=
is_root && disk="--disk tmpfs"
live() {
	"$FSCONC" nightly -w syscall -O count=2000 -j 1,2 -r 3 $disk \
	    -R "$s/live" --label live "$@"
}
live >"$s/out" 2>"$s/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'no baseline yet' "$s/out" &&
    ok "live: first night, no baseline" || not_ok "live: first night, no baseline" "rc=$rc $(cat "$s/out" "$s/err")"
live >"$s/out" 2>"$s/err"; rc=$?
new=$(ls -d "$s"/live/*/live/* | sort | tail -1)
# A short run on a shared machine may well be flagged noisy: exit 4.
if { [ $rc -eq 0 ] || [ $rc -eq 3 ] || [ $rc -eq 4 ]; } &&
    [ "$(grep -c 'jobs=' "$s/out")" -eq 7 ] &&
    grep -q '^verdict: ' "$s/out" && [ -s "$new/report/index.html" ]; then
	ok "live: second night judged, report in $(basename "$new")"
else
	not_ok "live: second night judged" "rc=$rc $(cat "$s/out" "$s/err")"
fi
left=$(findmnt -rn -o TARGET | grep -F "$FSCONC_RUNDIR")
[ -z "$left" ] && ok "live: nothing left mounted" || not_ok "live: nothing left mounted" "$left"
