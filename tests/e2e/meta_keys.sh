# Every meta key a run writes is documented in results/FORMAT.md: the
# keys of a few representative runs (extract, tree and syscall on a dir:
# disk, calib with --precision, --vary, --profile, a boot campaign with
# simulated reboots) checked by tests/meta_keys.py, which knows
# FORMAT.md's patterns (`sysctl.NAME`, `precision_real.N`); none of
# them under a name an option had before (levels ...), and a set written
# under those names reads as one under today's.  No root.
. "$FSCONC_TOP/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "meta keys documented" "no python3"
	exit 0
fi
S=$(scratch)
export FSCONC_RUNDIR="$S/rundir"
mkdir -p -m 700 "$FSCONC_RUNDIR"
F="$FSCONC_TOP/results/FORMAT.md"
Q="--disturb-limit off --disturb-wait off -r 1"
CAL="-w calib -O iterations=200000 -j 1,2"

# The checker itself: a key FORMAT.md never names is found.
printf 'format=1\nno_such_key=1\nsysctl.vm.x=1\nprecision_real.12=3\n' >"$S/meta"
out=$(python3 "$FSCONC_TOP/tests/meta_keys.py" "$F" "$S/meta"); rc=$?
[ $rc -eq 1 ] && [ "$out" = "no_such_key ($S/meta)" ] &&
    ok "the checker finds an undocumented key, knows patterns" ||
    not_ok "the checker finds an undocumented key" "rc=$rc $out"

# run NAME ARGS...: one run into $S/NAME; exit 0 or 4 (a set made).
run() {
	_n=$1
	shift
	"$FSCONC" run "$@" -R "$S/$_n" >"$S/$_n.out" 2>&1; _rc=$?
	if [ $_rc -eq 0 ] || [ $_rc -eq 4 ]; then
		ok "run $_n"
	else
		not_ok "run $_n" "rc=$_rc $(cat "$S/$_n.out")"
	fi
}
"$FSCONC" mkarchive --files 40 --bytes 256k "$S/a.tar" >/dev/null 2>&1
mkdir -p "$S/d"
run extract -a "$S/a.tar" -j 1,2 $Q --disk "dir:$S/d" --order random \
    --warmup 1 -O flags=default --wait-quiet=1s --memory-guard touch \
    --cpus online
run tree -w tree -O files=50 -j 1 $Q --disk "dir:$S/d" --idle-guard spin
run syscall -w syscall -O count=2000 -j 1 $Q --disk "dir:$S/d" \
    --batch-end syncfs
run precision $CAL --disturb-limit off --precision 100% --max-reps 6
run vary $CAL $Q --vary memory-guard=none,touch --vary mode=process,thread
run profile $CAL $Q --profile=optional --profile-reps 1

# A boot campaign, its reboots simulated: the campaign_* keys.
sim_machine "$S"
cat >"$S/c.campaign" <<EOC
run $CAL $Q
boots 1
seed 1
method command
command $S/boot.sh
config A
config B
EOC
"$FSCONC" campaign start -R "$S/camp" "$S/c.campaign" >"$S/camp.out" 2>&1
_i=0
while [ -e "$S/camp/campaign/active" ] && [ $_i -lt 6 ]; do
	"$FSCONC" campaign resume -R "$S/camp" --id \
	    "$(cat "$S/camp/campaign/active")" >>"$S/camp.out" 2>&1
	_i=$((_i + 1))
done
grep -lq '^campaign_config=' $(find "$S/camp" -name meta) 2>/dev/null &&
    ok "run campaign" || not_ok "run campaign" "$(cat "$S/camp.out")"

metas=$(find "$S" -name meta -path '*/20*' | sort)
n=$(echo "$metas" | wc -l)
out=$(python3 "$FSCONC_TOP/tests/meta_keys.py" "$F" $metas 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$n" -ge 10 ] &&
    ok "every meta key of $n sets is in FORMAT.md" ||
    not_ok "every meta key is in FORMAT.md" "rc=$rc sets=$n
$out"

# Keys are the options' names: none under the names sets had before.
old='^(levels|workload\.option|precision_target|disturb_threshold|disturb_max_reruns)='
out=$(grep -EH "$old" $metas)
[ -z "$out" ] && ok "no set writes an option's old key" ||
    not_ok "no set writes an option's old key" "$out"

# An old set (tests/fixtures/oldkeys) reads as its twin under today's
# names: compare finds no key that differs, and the validity flags read
# the old precision_target and disturb_threshold.
cp -R "$FSCONC_TOP/tests/fixtures/oldkeys" "$S/newkeys"
sed -e 's/^levels=/jobs=/' -e 's/^workload\.option=/option=/' \
    -e 's/^precision_target=/precision=/' \
    -e 's/^disturb_threshold=/disturb_limit=/' \
    -e 's/^disturb_max_reruns=/disturb_reruns=/' \
    "$FSCONC_TOP/tests/fixtures/oldkeys/meta" >"$S/newkeys/meta"
out=$("$FSCONC" compare "$FSCONC_TOP/tests/fixtures/oldkeys" "$S/newkeys" 2>&1); rc=$?
[ $rc -eq 0 ] && ! grep -q 'levels=' "$S/newkeys/meta" &&
    echo "$out" | grep -q '^Meta: no key differs' &&
    [ "$(echo "$out" | grep -c 'precision not reached: target 2%')" -eq 2 ] &&
    [ "$(echo "$out" | grep -c 'took more than 10% of the machine')" -eq 2 ] &&
    ok "a set with the old keys reads as one with today's" ||
    not_ok "a set with the old keys reads as one with today's" "rc=$rc $out"
