#!/bin/sh
# Byte-identical output across a refactoring:
#   sh tests/golden.sh OLD_BIN NEW_BIN
# Builds fixture result roots once (with NEW_BIN's twin of the tests,
# build/test/fsconc, for the simulated campaign), then runs compare,
# nightly --no-run, report and campaign report (text and JSON) with both
# binaries on the same roots and prints the commands whose output
# differs.  Exit 0 when every output is identical, 1 when one differs,
# 2 on a usage error.
# The simulated campaign needs root (a tmpfs disk); without it that part
# is left out and said so.
set -u
[ $# -eq 2 ] || { echo "usage: sh tests/golden.sh old-bin new-bin" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
FSCONC_TOP=$top
export FSCONC_TOP
tbin=$top/build/test/fsconc
d=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-golden.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
# Both named fsconc, as messages carry the program's name.
mkdir "$d/old" "$d/new"
cp "$old" "$d/old/fsconc" && cp "$new" "$d/new/fsconc" || exit 2
old=$d/old/fsconc new=$d/new/fsconc

# camp ROOT ID SEED CONFIG:T1:T2:EFFECTS ...: one imported set per
# configuration and boot, as tests/e2e/campaign_compare.sh makes them.
camp() {
	_root=$1 _id=$2 _seed=$3
	shift 3
	_nc=$# _ci=0
	for _spec in "$@"; do
		_ci=$((_ci + 1))
		IFS=: read -r _name _t1 _t2 _eff <<EOF
$_spec
EOF
		_r=0
		for _e in $(echo "$_eff" | tr , ' '); do
			_r=$((_r + 1))
			_boot=$(( (_r - 1) * _nc + _ci ))
			for _j in 1 2; do
				[ "$_j" -eq 1 ] && _tv=$_t1 || _tv=$_t2
				awk -v seed=$((_seed * 1000 + _boot * 10 + _j)) \
				    -v t="$_tv" -v e="$_e" 'BEGIN { srand(seed)
				    for (i = 0; i < 5; i++) {
					u = rand(); v = rand(); if (u < 1e-12) u = 1e-12
					g = sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
					printf "%.6f\n", t * (1 + e) * (1 + 0.01 * g) } }' \
				    >"$d/b$_j.txt"
			done
			"$tbin" import -R "$_root" --host box -l "$_name" \
			    --date "2026-11-$(printf %02d "$_boot")T03:00:00Z" \
			    -m archive_sha256="${ARCH:-cafe}" -m campaign="$_id" \
			    -m campaign_config="$_name" -m campaign_boot="$_boot" \
			    -m campaign_round="$_r" \
			    1="$d/b1.txt" 2="$d/b2.txt" >/dev/null || return 1
		done
	done
}

R1=$d/camp
camp "$R1" slow 1 A:10:10:0.02,-0.01,0.03,-0.02 \
    B:10:13:-0.02,0.01,0.02,-0.03 C:10:10:0.01,0.00,-0.01,0.02 || exit 2
# A campaign whose configurations extracted different archives.
R2=$d/arch
ARCH=beef camp "$R2" arch 2 A:10:10:0.02,-0.01,0.03 || exit 2
camp "$R2" arch 2 B:10:12:-0.02,0.01,0.02 || exit 2
S=$d/sets
SEED=1 LABEL=base sh "$top/tests/fixtures/mkset.sh" "$S/base" >/dev/null
SEED=2 LABEL=slow SLOW=1.2 SLOW_LEVEL=8 \
    sh "$top/tests/fixtures/mkset.sh" "$S/slow" >/dev/null
SEED=3 LABEL=same sh "$top/tests/fixtures/mkset.sh" "$S/same" >/dev/null
# Too few values (skipped blocks), other levels and ncpu (meta keys that
# differ, --jobs warnings), another archive (the guard's refusal).
SEED=4 LABEL=few REPS=2 sh "$top/tests/fixtures/mkset.sh" "$S/few" >/dev/null
SEED=5 LABEL=wide LEVELS="1 2 4 16" NCPU=4 \
    sh "$top/tests/fixtures/mkset.sh" "$S/wide" >/dev/null
SEED=6 LABEL=other sh "$top/tests/fixtures/mkset.sh" "$S/other" >/dev/null
sed 's/^archive_sha256=0*$/archive_sha256=1111/' "$S/other/meta" \
    >"$S/other/meta.new" && mv "$S/other/meta.new" "$S/other/meta"

cmds="compare -R $R1 box/A box/B
compare --json -R $R1 box/A box/B
compare -R $R1 box/A box/B box/C
compare --json -R $R1 box/A box/B box/C
compare --no-campaign -R $R1 box/A box/B
compare -R $R2 box/A box/B
compare --json -R $R2 box/A box/B
compare -f -R $R2 box/A box/B
compare --json -f -R $R2 box/A box/B
compare $S/base $S/slow
compare --json $S/base $S/slow
compare $S/base $S/same $S/slow
compare --json $S/base $S/same $S/slow
compare -j 2,8 -m real,sys -c 99 -w 60 $S/base $S/slow
compare --json -j 2,8 -m real,sys -c 99 $S/base $S/slow
compare --usl-all --max-cv 0.5 $S/base $S/wide
compare --json --usl-all --max-cv 0.5 $S/base $S/wide
compare -j 1,2,16 $S/base $S/wide
compare --json -j 16 $S/base $S/wide
compare -B slow $S/base $S/same $S/slow
compare $S/base $S/few
compare --json $S/base $S/few
compare $S/base $S/other
compare --json $S/base $S/other
compare -f $S/base $S/other
compare --json -f $S/base $S/other
nightly --no-report --no-run $S/slow --baseline $S/base
nightly -v --no-report --no-run $S/same --baseline $S/base
nightly -v --no-report --no-run $S/base --baseline $S/few
nightly -v --no-report --max-cv 0.5 --no-run $S/wide --baseline $S/base
nightly --no-report --threshold 50 -c 95 --no-run $S/other --baseline $S/base
nightly -v --no-report --no-run $S/base
nightly -v --no-report -R $R1 --spread-nights 3 --no-run box/B
nightly -v --no-run $S/slow --baseline $S/base -o $d/OUT/night
report -o $d/OUT/rep $S/base $S/slow
report -R $R1 -o $d/OUT/repc box/A box/B"

if [ "$(id -u)" -eq 0 ]; then
	. "$top/tests/lib.sh" >/dev/null
	s=$d/sim
	mkdir "$s"
	sim_machine "$s"
	cat >"$s/o.campaign" <<EOF
run -w syscall -O count=2000 -j 1,2 -r 2 --disk tmpfs
boots 3
seed 3
retries 0
baseline B
method command
command $s/boot.sh
config A
	cmdline fsconctest=a
config B
EOF
	R3=$s/res
	"$tbin" campaign start -R "$R3" "$s/o.campaign" >/dev/null 2>&1
	i=0
	while [ -e "$R3/campaign/active" ] && [ $i -lt 12 ]; do
		"$tbin" campaign resume -R "$R3" \
		    --id "$(cat "$R3/campaign/active")" >/dev/null 2>&1
		i=$((i + 1))
	done
	cmds="$cmds
campaign report -R $R3 --seed 5
campaign report --json -R $R3 --seed 5
campaign status -R $R3
campaign status --json -R $R3"
else
	echo "golden: not root: the simulated campaign's report is left out"
fi

rc=0 n=0
while IFS= read -r c; do
	n=$((n + 1))
	for b in old new; do
		eval "bin=\$$b"
		rm -rf "$d/OUT"
		mkdir -p "$d/OUT"
		# shellcheck disable=SC2086
		"$bin" $c >"$d/$b.out" 2>"$d/$b.err"
		echo "exit $?" >>"$d/$b.out"
		cat "$d/$b.err" >>"$d/$b.out"
		# The report's HTML pages, whole but for when they were made.
		find "$d/OUT" -name '*.html' | sort | xargs -r cat |
		    sed 's/^\(<p class="note">Made by fsconc [^ ]* on\) [-0-9]* [0-9:]* UTC/\1 DATE/' \
		    >>"$d/$b.out"
	done
	if cmp -s "$d/old.out" "$d/new.out"; then
		echo "same: fsconc $c" | sed "s|$d|D|g"
	else
		echo "DIFFERS: fsconc $c" | sed "s|$d|D|g"
		diff "$d/old.out" "$d/new.out" | head -20
		rc=1
	fi
done <<EOF
$cmds
EOF
echo "golden: $n commands, $( [ $rc -eq 0 ] && echo "all identical" || echo "some differ")"
exit $rc
