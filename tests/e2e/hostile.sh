# Hostile input where data enters: names that would plant meta keys, and
# result sets that are empty, killed, or hold numbers fsconc never writes
# (compare, report and nightly refuse them, naming file and line).
. "$FSCONC_TOP/tests/lib.sh"
d=$(scratch) || exit 1
mkdir -m 700 "$d/run"
export FSCONC_RUNDIR="$d/run"

# --- a newline in -a cannot plant a meta key ---------------------------
evil=$(printf '%s/evil\nncpu=999.tar' "$d")
"$FSCONC" mkarchive -n 3 -b 1k "$evil" >/dev/null
mkdir "$d/disk"
"$FSCONC" run -w extract -a "$evil" -j 1 -r 1 --disk "dir:$d/disk" \
    --label "$(printf 'l\tx')" -R "$d/res" >"$d/out" 2>&1; rc=$?
meta=$(ls "$d"/res/*/*/*/meta 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$meta" ] && ! grep -q '^ncpu=999' "$meta" &&
    grep -qx "archive=$d/evil ncpu=999.tar" "$meta" &&
    grep -qx 'label=l x' "$meta" &&
    [ "$(grep -c '^ncpu=' "$meta")" -eq 1 ]; then
	ok "-a with a newline: no planted ncpu= in meta"
else
	not_ok "-a with a newline: no planted ncpu= in meta" "rc=$rc $(cat "$d/out" "$meta")"
fi

# --- result sets fsconc never writes -----------------------------------
r=$d/root
mk() {	# LABEL [VAR=value...]: a good set at $r/h/LABEL/20261101T000000Z
	_l=$1; shift
	env LABEL="$_l" "$@" sh "$TOP/tests/fixtures/mkset.sh" "$r/h/$_l/20261101T000000Z"
}
set_dir() { echo "$r/h/$1/20261101T000000Z"; }
mk good SEED=1
mk good2 SEED=2
# runs.tsv line 2 (the first batch, jobs 1 rep 1) with real = $2.
badreal() {
	mk "$1" SEED=3
	awk -v v="$2" 'BEGIN { FS = OFS = "\t" } NR == 2 { $3 = v } { print }' \
	    "$(set_dir "$1")/runs.tsv" >"$d/t" && mv "$d/t" "$(set_dir "$1")/runs.tsv"
}
badreal nan nan
badreal inf inf
badreal neg -1
badreal hex 0x10
badreal huge 1e308
badreal exp 1.5e1
mk dup SEED=4
sed -n 2p "$(set_dir dup)/runs.tsv" >>"$(set_dir dup)/runs.tsv"
mk empty
for f in meta runs.tsv workers.tsv; do : >"$(set_dir empty)/$f"; done
mk killed SEED=5
sed -i '/^end=/d' "$(set_dir killed)/meta"
mk longline SEED=6
awk 'BEGIN { s = "x"; while (length(s) < 70000) s = s s; print "#" s }' \
    >>"$(set_dir longline)/runs.tsv"
mk fifo SEED=7
rm "$(set_dir fifo)/runs.tsv" && mkfifo "$(set_dir fifo)/runs.tsv"

# hostile NAME WHY: compare, report and nightly --baseline refuse the set
# with exit 1 and WHY (grep -E) on stderr; timeout: a regression fails
# rather than hangs.
hostile() {
	_n=$1 _w=$2
	for _c in compare report nightly; do
		case $_c in
		compare) set -- compare -R "$r" h/good "h/$_n" ;;
		report)	 set -- report -R "$r" -o "$d/rep-$_n" "h/$_n" ;;
		nightly) set -- nightly -R "$r" --no-report --baseline "h/$_n" \
		    --no-run h/good ;;
		esac
		timeout 60 "$FSCONC" "$@" >"$d/out" 2>"$d/err"; _rc=$?
		if [ $_rc -eq 1 ] && grep -Eq -- "$_w" "$d/err" &&
		    ! grep -q 'verdict: no regression\|no significant' "$d/out"; then
			ok "$_c: $_n set refused"
		else
			not_ok "$_c: $_n set refused" "rc=$_rc $(cat "$d/err" "$d/out")"
		fi
	done
}
hostile nan 'runs.tsv:2: real "nan": not a plain decimal'
hostile inf 'runs.tsv:2: real "inf": not a plain decimal'
hostile neg 'runs.tsv:2: real "-1": not a plain decimal number >= 0'
hostile hex 'runs.tsv:2: real "0x10": not a plain decimal'
hostile huge 'runs.tsv:2: real "1e308"'
hostile exp 'runs.tsv:2: real "1.5e1"'
hostile dup 'runs.tsv:42: jobs 1 rep 1 again \(first on line 2\)'
hostile empty 'meta: no format= line'
hostile killed 'meta: no end= line: the run that wrote it did not finish'
hostile longline 'runs.tsv:42: line longer than 65536 bytes'
hostile fifo 'runs.tsv: not a regular file'

# An explicit mark reads what a killed run completed.
echo interrupted=yes >>"$(set_dir killed)/meta"
"$FSCONC" compare -R "$r" h/good h/killed >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "killed set marked interrupted=yes: compared" ||
    not_ok "killed set marked interrupted=yes: compared" "rc=$rc"

# Every batch failed: 0 tests is no verdict, not "no regression".
mk failed SEED=8
awk 'BEGIN { FS = OFS = "\t" } NR > 1 { $10 = "failed"; $11 = "boom" } { print }' \
    "$(set_dir failed)/runs.tsv" >"$d/t" && mv "$d/t" "$(set_dir failed)/runs.tsv"
"$FSCONC" compare -R "$r" h/good h/failed >"$d/out" 2>"$d/err"; rc=$?
[ $rc -eq 1 ] && grep -q '0 tests' "$d/err" &&
    grep -q '^Verdict: none, nothing could be tested' "$d/out" &&
    ok "compare over 0 tests: no verdict, exit 1" ||
    not_ok "compare over 0 tests: no verdict, exit 1" "rc=$rc $(cat "$d/err" "$d/out")"
"$FSCONC" nightly -R "$r" --no-report --baseline h/failed --no-run h/good \
    >"$d/out" 2>"$d/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'no concurrency level in common with ok or warn batches' "$d/err" &&
    ! grep -q 'no regression' "$d/out" &&
    ok "nightly, baseline all failed: no verdict, exit 1" ||
    not_ok "nightly, baseline all failed: no verdict, exit 1" "rc=$rc $(cat "$d/err" "$d/out")"
# One usable batch per level: every test impossible (12 of times, 3 of EC).
mk once SEED=9
awk 'BEGIN { FS = OFS = "\t" } NR > 1 && $2 > 1 { $10 = "failed"; $11 = "boom" } { print }' \
    "$(set_dir once)/runs.tsv" >"$d/t" && mv "$d/t" "$(set_dir once)/runs.tsv"
"$FSCONC" nightly -R "$r" --no-report --baseline h/once --no-run h/good \
    >"$d/out" 2>"$d/err"; rc=$?
[ $rc -eq 1 ] && grep -q '^verdict: none, 0 of 15 tests possible' "$d/out" &&
    ok "nightly over 0 tests: no verdict, exit 1" ||
    not_ok "nightly over 0 tests: no verdict, exit 1" "rc=$rc $(cat "$d/err" "$d/out")"
"$FSCONC" compare -R "$r" h/good h/good2 >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "good sets still compare" || not_ok "good sets still compare" "rc=$rc"

# --- inputs that block or never end: bounded, under timeout(1) ----------
# bounded NAME RC WANT CMD...: CMD exits RC within 60 s, WANT (if any) on
# stderr.
bounded() {
	_n=$1 _want_rc=$2 _w=$3; shift 3
	timeout 60 "$@" >/dev/null 2>"$d/err"; _rc=$?
	if [ $_rc -eq "$_want_rc" ] && { [ -z "$_w" ] || grep -Eq -- "$_w" "$d/err"; }; then
		ok "$_n"
	else
		not_ok "$_n" "rc=$_rc $(head -c 500 "$d/err")"
	fi
}
mkfifo "$d/fifo"
mkdir -p "$d/disk2"
bounded "run -a FIFO: refused, no hang" 1 'fifo: not a regular file' \
    "$FSCONC" run -a "$d/fifo" -j 1 -r 1 --disk "dir:$d/disk2" -R "$d/res-fifo"
[ ! -e "$d/res-fifo" ] && ok "run -a FIFO: no result set" || not_ok "run -a FIFO: no result set"
bounded "stat /dev/zero: line too long" 2 '/dev/zero: line 1 longer than 1048576 bytes' \
    "$FSCONC" stat /dev/zero
seq 10000001 >"$d/many"
bounded "stat: more than 10^7 values" 2 'many: more than 10000000 values' \
    "$FSCONC" stat "$d/many"
rm -f "$d/many"
bounded "import 1=/dev/zero: refused" 1 '/dev/zero: not a regular file' \
    "$FSCONC" import -l x -R "$d/imp" 1=/dev/zero
bounded "import 1=FIFO: refused, no hang" 1 'fifo: not a regular file' \
    "$FSCONC" import -l x -R "$d/imp" 1="$d/fifo"
awk 'BEGIN { s = "1"; while (length(s) < 2000000) s = s s; print s }' >"$d/long"
bounded "import: line too long" 1 'long:1: line longer than 1048576 bytes' \
    "$FSCONC" import -l x -R "$d/imp" 1="$d/long"
[ ! -e "$d/imp" ] && ok "refused imports: no result set" || not_ok "refused imports: no result set"
bounded "topo --synthetic pu:100000: usage error" 2 'more than 4096 PUs' \
    "$FSCONC" topo --synthetic pu:100000
bounded "run --synthetic pu:999999999: usage error" 2 'more than 4096 PUs' \
    "$FSCONC" run --dry-run --synthetic pu:999999999
bounded "topo --synthetic of 4096 PUs still works" 0 '' \
    "$FSCONC" topo --synthetic "pack:2 core:64 pu:32" -j 1

# --- set-ID files from an archive ---------------------------------------
# As root, a copy of a root-owned program with mode 4755: never restored
# set-ID (unless flags=suid), and the disk's root never traversable by
# others while it sits there, on every backend.  The run's "released"
# marker is a FIFO: fsconc blocks opening it after releasing the worker,
# so the worker's files stay until the test reads it.
# setid_case NAME SPEC ROOT: ROOT is the disk's root (a glob for tmpfs
# and block disks, which live under the runtime directory).
setid_case() {
	_n=$1 _spec=$2 _root=$3
	_mk=$d/setid-$_n
	mkfifo "$_mk.released"
	FSCONC_TEST_MARKER=$_mk "$FSCONC" run -a "$pub/x.tar" -j 1 -r 3 \
	    --disk "$_spec" -R "$d/setid-res-$_n" >"$d/setid-$_n.out" 2>&1 &
	_pid=$!
	if wait_until sh -c 'for r in $1; do test -e "$r/0/zz-last" &&
	    exit 0; done; exit 1' _ "$_root"; then
		_r=$(for r in $_root; do [ -e "$r/0/zz-last" ] && echo "$r"; done)
		_m=$(stat -c %a "$_r/0/suid-id")
		[ "$_m" = 755 ] &&
		    ok "$_n: set-ID bit of an archive's file not restored" ||
		    not_ok "$_n: set-ID bit of an archive's file not restored" "mode $_m"
		# Through sh: setpriv itself finds the program with root's
		# capabilities still in effect.
		_o=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		    sh -c '"$1" -u' _ "$_r/0/suid-id" 2>&1) &&
		    not_ok "$_n: user nobody cannot run the archive's file" "ran it: euid $_o" ||
		    ok "$_n: user nobody cannot run the archive's file"
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    sh -c 'cd "$1"' _ "$_r" 2>/dev/null &&
		    not_ok "$_n: user nobody cannot traverse the disk root" "$(ls -ld "$_r" "$_r/0")" ||
		    ok "$_n: user nobody cannot traverse the disk root"
	else
		not_ok "$_n: the worker's files appeared" "$(cat "$d/setid-$_n.out")"
	fi
	# Opened read-write, a FIFO never blocks: the run goes on.
	exec 3<>"$_mk.released"
	rm -f "$_mk.released"
	exec 3>&-
	wait $_pid
	_rc=$?
	[ $_rc -eq 0 ] && ok "$_n: the run completes" ||
	    not_ok "$_n: the run completes" "rc=$_rc $(cat "$d/setid-$_n.out")"
}
if ! is_root; then
	for b in dir dir-adopted tmpfs loop; do
		for t in "set-ID bit of an archive's file not restored" \
		    "user nobody cannot run the archive's file" \
		    "user nobody cannot traverse the disk root" "the run completes"; do
			skip "$b: $t" "needs root"
		done
	done
elif ! command -v setpriv >/dev/null 2>&1; then
	skip "set-ID files from an archive" "setpriv not installed"
else
	# Under /tmp, whose path any user may traverse.
	pub=$(mktemp -d /tmp/fsconc-pub.XXXXXX)
	at_exit "rm -rf '$pub'"
	chmod 755 "$pub"
	mkdir "$pub/src"
	cp /usr/bin/id "$pub/src/suid-id"
	chmod 4755 "$pub/src/suid-id"
	echo last >"$pub/src/zz-last"
	tar -cf "$pub/x.tar" -C "$pub/src" suid-id zz-last
	setid_case dir "dir:$pub/disk" "$pub/disk"
	mkdir -m 755 "$pub/adopt"
	setid_case dir-adopted "dir:$pub/adopt" "$pub/adopt"
	setid_case tmpfs tmpfs:16m "$FSCONC_RUNDIR/*/mnt"
	if command -v losetup >/dev/null 2>&1 &&
	    command -v mkfs.ext4 >/dev/null 2>&1; then
		setid_case loop loop:64m "$FSCONC_RUNDIR/*/mnt"
	else
		skip "loop: set-ID files from an archive" "losetup or mkfs.ext4 not installed"
	fi
fi
