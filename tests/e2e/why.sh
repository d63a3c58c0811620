# fsconc why and report's flame graphs on hand-made profiles with known
# answers (no perf needed), and the refusals of bad input.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
# mkprof DIR LABEL EXTRA: a set whose jobs 1 runs 100 ms of work per job
# (T1 0.1 s) and jobs 2 the same work plus EXTRA samples (ms) blocked in
# the directory lock over its two jobs, 20 ms waiting for a CPU; T2 0.15 s.
mkprof() {
	d=$1
	mkdir -p "$d/profile"
	cat >"$d/meta" <<EOF
format=1
host=h
label=$2
created=2026-12-01T00:00:00Z
ncpu=2
workload=dirops
profile=perf record cpu-clock, system-wide, call chains
profile.hz=1000
profile.reps=1
lock_stat=unavailable: /proc/lock_stat absent (kernel built without CONFIG_LOCK_STAT)
end=2026-12-01T00:01:00Z
EOF
	printf '# jobs\trep\treal\tuser\tsys\tnvcsw\tnivcsw\tidle\tsetup\tstatus\tstart_skew\tsteal\tforeign\tdisturbed\tprofiled\treason\n' >"$d/runs.tsv"
	for r in 1 2 3; do
		printf '1\t%d\t0.1\t0.05\t0.05\t1\t1\t0\t0\tok\t0\t0\t0\t0\t0\t-\n' $r
		printf '2\t%d\t0.15\t0.1\t0.1\t1\t1\t0\t0\tok\t0\t0\t0\t0\t0\t-\n' $r
	done >>"$d/runs.tsv"
	printf '1\t4\t0.2\t0.05\t0.05\t1\t1\t0\t0\tok\t0\t0\t0\t0\t1\t-\n2\t4\t0.3\t0.1\t0.1\t1\t1\t0\t0\tok\t0\t0\t0\t0\t1\t-\n' >>"$d/runs.tsv"
	printf '# jobs\trep\tworker\tcpuset\treal\tuser\tsys\tentries\tbytes\tstatus\treason\n' >"$d/workers.tsv"
	printf 'worker;main;work_[k] 100\nother:cc1;cc1_main 500\n' >"$d/profile/jobs-1.folded"
	{
		echo "worker;main;work_[k] 200"
		[ "$3" -gt 0 ] &&
		    echo "worker;main;down_write_[k];rwsem_down_write_slowpath_[off] $3"
		echo "worker;main;[preempted] 40"
		echo "other:cc1;cc1_main 900"
	} >"$d/profile/jobs-2.folded"
}
mkprof "$s/root/h/shared/20261201T000000Z" shared 60
mkprof "$s/root/h/private/20261201T000000Z" private 0
sh=$s/root/h/shared/20261201T000000Z

out=$("$FSCONC" why "$sh" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "why: exit 0" || not_ok "why: exit 0" "rc=$rc $out"
echo "$out" | grep -q 'EC(2) 1.333, lost concurrency 0.667 = 50.00 ms per job' &&
    ok "why: lost concurrency in time per job (T2 - T1)" ||
    not_ok "why: lost concurrency in time per job (T2 - T1)" "$out"
first=$(echo "$out" | awk '/symbols \(self/ { getline; getline; print $2; exit }')
[ "$first" = "rwsem_down_write_slowpath_[off]" ] &&
    ok "why: the directory lock ranks first" ||
    not_ok "why: the directory lock ranks first" "first: $first
$out"
echo "$out" | grep -Eq 'rwsem_down_write_slowpath_\[off\] +0\.000 +30\.000 +\+30\.000 +60\.0%' &&
    ok "why: 30 ms per job more, 60% of the lost time" ||
    not_ok "why: 30 ms per job more, 60% of the lost time" "$out"
echo "$out" | grep -q 'explains 60.0% of the lost time; waiting for a CPU (other load, or more workers than CPUs) 40.0%' &&
    ok "why: explained share; waiting for a CPU apart" ||
    not_ok "why: explained share; waiting for a CPU apart" "$out"
echo "$out" | grep -q 'cc1' && not_ok "why: other processes left out" "$out" ||
    ok "why: other processes left out"
echo "$out" | grep -q 'lock statistics: unavailable: /proc/lock_stat absent (kernel built without CONFIG_LOCK_STAT)' &&
    ok "why: says why there are no lock statistics" ||
    not_ok "why: says why there are no lock statistics" "$out"
out=$("$FSCONC" why --scope all "$sh" 2>&1)
echo "$out" | grep -q 'on CPU 600.00 -> 550.00 ms' && ok "why --scope all: every process" ||
    not_ok "why --scope all: every process" "$out"

if [ -x /usr/bin/python3 ]; then
	j=$("$FSCONC" why --json "$sh" 2>"$s/j.err")
	r=$(printf '%s' "$j" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
l = d["levels"][0]
print(l["jobs"], l["symbols"][0]["name"], round(l["symbols"][0]["share"], 3),
      round(l["lost_s_per_job"], 3), round(l["cpu_wait_s"], 3))' 2>&1)
	[ "$r" = "2 rwsem_down_write_slowpath_[off] 0.6 0.05 0.02" ] &&
	    ok "why --json" || not_ok "why --json" "$r
$j"
else
	skip "why --json" "/usr/bin/python3 not installed"
fi

# Two sets: shared (B) against private (A) at jobs 2.
out=$("$FSCONC" why -R "$s/root" h/private h/shared 2>&1); rc=$?
first=$(echo "$out" | awk '/^jobs 2, B against A/ { j = 1 }
	j && /symbols \(self/ { getline; getline; print $2; exit }')
[ $rc -eq 0 ] && [ "$first" = "rwsem_down_write_slowpath_[off]" ] &&
    echo "$out" | grep -q 'jobs 2, B against A' &&
    ok "why A B: the difference" || not_ok "why A B: the difference" "rc=$rc $out"

# Refusals.
"$FSCONC" why >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "why without a set: exit 2" || not_ok "why without a set: exit 2" "rc=$rc"
"$FSCONC" why -n 0 "$sh" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "why -n 0: exit 2" || not_ok "why -n 0: exit 2" "rc=$rc"
SEED=3 LABEL=plain sh "$TOP/tests/fixtures/mkset.sh" "$s/root/h/plain/20261201T000000Z"
err=$("$FSCONC" why "$s/root/h/plain/20261201T000000Z" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'no profile (made without fsconc run --profile)' &&
    ok "why on an unprofiled set: exit 1, says so" ||
    not_ok "why on an unprofiled set: exit 1, says so" "rc=$rc $err"
bad=$s/root/h/bad/20261201T000000Z
mkprof "$bad" bad 60
printf 'worker;main;x\033[2J 5\n' >"$bad/profile/jobs-2.folded"
err=$("$FSCONC" why "$bad" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'jobs-2.folded:1: not a folded stack' &&
    ok "why: a hostile folded file is refused, named" ||
    not_ok "why: a hostile folded file is refused, named" "rc=$rc $err"

# report: a differential flame graph per profiled level.
rep=$s/rep
err=$("$FSCONC" report -R "$s/root" -o "$rep" h/shared 2>&1); rc=$?
html=$rep/index.html
[ $rc -eq 0 ] && grep -q '<h2>Where the time went</h2>' "$html" &&
    grep -q 'shared: jobs 2 against jobs 1' "$html" &&
    ok "report: a flame graph section" || not_ok "report: a flame graph section" "rc=$rc $err"
n=$(grep -c '<svg[^>]*class="flame"' "$html")
[ "$n" -eq 1 ] && ok "report: one flame graph (jobs 2)" || not_ok "report: one flame graph (jobs 2)" "$n"
grep '<title>rwsem_down_write_slowpath_\[off\]: 30.000 ms per job (+30.000 ms), own 30.000 ms (+30.000 ms)</title>' "$html" |
    grep -q 'fill="rgb(255,55,55)"' &&
    grep '<title>\[preempted\]: 20.000 ms' "$html" | grep -q 'fill="rgb(255,113,113)"' &&
    grep '<title>main:' "$html" | grep -q 'fill="rgb(225,225,225)"' &&
    ok "report: colours by own growth (30 ms red, 20 ms lighter, callers grey)" ||
    not_ok "report: colours by own growth (30 ms red, 20 ms lighter, callers grey)"
# Every label fits its frame (7 px a character, 3 px margins).
labels=$(awk '/<svg[^>]*class="flame"/,/<\/svg>/' "$html" 2>/dev/null |
    sed -n 's/.*width="\([0-9.]*\)" height="16".*<text[^>]*>\([^<]*\)<\/text>.*/\1 \2/p')
bad=$(echo "$labels" | awk '{ if (length($2) * 7 > $1 - 6) print }')
[ -n "$labels" ] && [ -z "$bad" ] && echo "$labels" | grep -q 'rwsem_down_write_slowpath_\[off\]' &&
    ok "report: labels fit their frames" || not_ok "report: labels fit their frames" "$bad"
if ! command -v chromium >/dev/null 2>&1; then
	skip "flame graph rendered by chromium" "chromium not installed"
elif [ ! -x /usr/bin/python3 ]; then
	skip "flame graph rendered by chromium" "/usr/bin/python3 not installed"
else
	# The section alone, so that the screenshot shows it.
	{
		echo '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
		echo 'figure svg{width:100%;height:auto;display:block}</style></head><body>'
		awk '/<h2>Where the time went/,/<\/figure>/' "$html"
		echo '</body></html>'
	} >"$s/flame.html"
	ud=$(mktemp -d "$s/chromium.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
	    --user-data-dir="$ud" --screenshot="$s/flame.png" --window-size=1300,500 \
	    "file://$s/flame.html" >"$s/chromium.log" 2>&1
	if [ ! -s "$s/flame.png" ]; then
		not_ok "flame graph rendered by chromium" "$(tail -5 "$s/chromium.log")"
	else
		st=$(/usr/bin/python3 "$TOP/tests/fixtures/pngstat.py" "$s/flame.png")
		red=$(/usr/bin/python3 "$TOP/tests/fixtures/pngstat.py" --red "$s/flame.png")
		echo "$st" | awk '{ exit !($3 > 0.05 && $4 > 10) }' &&
		    awk -v r="$red" 'BEGIN { exit !(r > 0.005) }' &&
		    ok "flame graph rendered by chromium: drawn, red frames ($st; red $red)" ||
		    not_ok "flame graph rendered by chromium" "$st; red $red"
	fi
fi

# Terminal escapes planted in a set (label, meta values, the profile
# notes) never reach the terminal: compare and why print them through
# put_clean.  Sets made by fsconc import, then their meta edited.
e=$s/esc
mkdir -p "$e"
awk 'BEGIN { srand(1); for (i = 0; i < 6; i++) print 1 + rand() / 10 }' >"$e/t1"
awk 'BEGIN { srand(2); for (i = 0; i < 6; i++) print 0.6 + rand() / 10 }' >"$e/t2"
for l in a b; do
	"$FSCONC" import -l "$l" -m kernel="k$l" -R "$e/root" --host h \
	    1="$e/t1" 2="$e/t2" >/dev/null 2>&1
done
esc=$(printf '\033]0;owned\007\033[2J\r\033[31m')
for m in "$e"/root/h/*/*/meta; do
	l=$(sed -n 's/^label=//p' "$m")
	{
		grep -v -e '^label=' -e '^kernel=' -e '^end=' "$m"
		printf 'label=%s%s\n' "$l" "$esc"
		printf 'kernel=k%s%s\n' "$l" "$esc"
		printf 'precision_target=5\nprecision_met=no\n'
		printf 'precision_stop=budget%s\nprecision_real.2=9.9%s\n' "$esc" "$esc"
		sed -n '/^end=/p' "$m"
	} >"$m.new" && mv "$m.new" "$m"
done
# dirty FILE: the lines holding a control byte but tab and newline.
dirty() { LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]' "$1" | head -3 | cat -v; }
"$FSCONC" compare --force -R "$e/root" h/a h/b >"$e/cmp" 2>&1; rc=$?
d=$(dirty "$e/cmp")
[ $rc -le 4 ] && [ -z "$d" ] && grep -q '^  kernel x ka ]0;owned ' "$e/cmp" &&
    grep -q 'precision: target 5%, NOT met (stopped by budget ]0;owned ' "$e/cmp" &&
    ok "compare: escapes in labels and meta values never reach the terminal" ||
    not_ok "compare: escapes in labels and meta values never reach the terminal" "rc=$rc
$d
$(head -20 "$e/cmp")"
"$FSCONC" compare --force --json -R "$e/root" h/a h/b >"$e/cmp.json" 2>&1
d=$(dirty "$e/cmp.json")
[ -z "$d" ] && grep -q '\\u001b' "$e/cmp.json" &&
    ok "compare --json: escapes as \\u001b" ||
    not_ok "compare --json: escapes as \\u001b" "$d"
hp=$s/root/h/hostile/20261201T000000Z
mkprof "$hp" "x$esc" 60
sed -i "s/^profile=.*/profile=perf$esc/; s/^lock_stat=.*/lock_stat=none$esc/" "$hp/meta"
"$FSCONC" why "$hp" >"$e/why" 2>&1; rc=$?
d=$(dirty "$e/why")
[ $rc -eq 0 ] && [ -z "$d" ] && grep -q '^profile: perf .*1000 Hz' "$e/why" &&
    grep -q '^lock statistics: none ' "$e/why" &&
    ok "why: escapes in profile= and lock_stat= never reach the terminal" ||
    not_ok "why: escapes in profile= and lock_stat= never reach the terminal" "rc=$rc
$d
$(head -5 "$e/why")"
# nightly: the differing workload of baseline and candidate, as read.
for n in 1 2; do
	"$FSCONC" import -l n --date 2026-11-0${n}T00:00:00Z -m workload=w$n \
	    -R "$e/nroot" --host h 1="$e/t1" 2="$e/t2" >/dev/null 2>&1
done
for m in "$e"/nroot/h/n/*/meta; do
	sed -i "s/^workload=\(.*\)/workload=\1$esc/" "$m"
done
"$FSCONC" nightly -R "$e/nroot" --no-run "$(ls -d "$e"/nroot/h/n/* | tail -1)" \
    --no-report -v >"$e/nightly" 2>&1; rc=$?
d=$(dirty "$e/nightly")
[ $rc -ne 2 ] && [ -z "$d" ] &&
    grep -q "nightly: workload differs from the baseline's (w2 ]0;owned " "$e/nightly" &&
    ok "nightly: escapes in meta values never reach the terminal" ||
    not_ok "nightly: escapes in meta values never reach the terminal" "rc=$rc
$d
$(head -5 "$e/nightly")"
