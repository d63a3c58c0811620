# fsconc run -w extract through the harness: a good archive verifies in
# both modes; bad and hostile archives (made with bsdtar) fail with the
# archive and the entry named, a non-zero exit, and nothing written outside
# the workers' directories.  Uses --disk dir: so that it needs no root.
. "$FSCONC_TOP/tests/lib.sh"
d=$(scratch) || exit 1
mkdir -m 700 "$d/run"
export FSCONC_RUNDIR="$d/run"

if ! command -v bsdtar >/dev/null 2>&1; then
	skip "extract e2e" "bsdtar missing"
	exit 0
fi

"$FSCONC" mkarchive -n 300 -b 1m "$d/good.tar" >/dev/null
for mode in process thread; do
	mkdir "$d/disk-$mode"
	if "$FSCONC" run -w extract -a "$d/good.tar" -j 2 -r 1 --mode $mode \
	    --verify --disk "dir:$d/disk-$mode" -R "$d/res-$mode" \
	    >"$d/out" 2>&1 &&
	    grep -q '^2	1	1	.*	300	1048576	ok	' \
	    "$d"/res-$mode/*/*/*/workers.tsv; then
		ok "$mode: good archive extracted and verified"
	else
		not_ok "$mode: good archive extracted and verified" \
		    "$(cat "$d/out" "$d"/res-$mode/*/*/*/workers.tsv)"
	fi
done

# run_bad NAME ARCHIVE WHAT: non-zero exit, WHAT and the archive named.
run_bad() {
	rm -rf "$d/disk" "$d/res"
	mkdir "$d/disk"
	"$FSCONC" run -w extract -a "$2" -j 2 -r 1 --disk "dir:$d/disk" \
	    -R "$d/res" >"$d/out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && grep -q "$2" "$d/out" && grep -q "$3" "$d/out"; then
		ok "$1: exit $rc, \"$3\""
	else
		not_ok "$1: exit $rc, \"$3\"" "$(cat "$d/out")"
	fi
}

mkdir -p "$d/src/x"
echo evil >"$d/src/x/evil"
ln -s ../outside "$d/src/esc"
(
	cd "$d/src" &&
	bsdtar -cPf "$d/dotdot.tar" -s ',^x,../outside,' x/evil &&
	bsdtar -cPf "$d/abs.tar" -s ",^x,$d/absout," x/evil &&
	bsdtar -cPf "$d/symesc.tar" -s ',^x,esc,' esc x/evil &&
	bsdtar -cf "$d/dev.tar" -C / dev/null
) || not_ok "make hostile archives"

run_bad "'..' path" "$d/dotdot.tar" "../outside/evil: Path contains '..'"
run_bad "absolute path" "$d/abs.tar" "$d/absout/evil: Path is absolute"
run_bad "symlink escape" "$d/symesc.tar" "esc/evil: Cannot extract through symlink"
run_bad "device node" "$d/dev.tar" "dev/null: Refusing to create a device node"
grep -q "failed	$d/dev.tar: dev/null" "$d"/res/*/*/*/workers.tsv &&
    ok "workers.tsv: failed with the reason" ||
    not_ok "workers.tsv: failed with the reason" "$(cat "$d"/res/*/*/*/workers.tsv)"
if [ -e "$d/disk/outside" ] || [ -e "$d/outside" ] || [ -e "$d/absout" ]; then
	not_ok "nothing written outside the workers' directories" \
	    "$(find "$d/disk" "$d/outside" "$d/absout" 2>&1)"
else
	ok "nothing written outside the workers' directories"
fi

head -c 300000 "$d/good.tar" >"$d/trunc.tar"
run_bad "truncated" "$d/trunc.tar" "runcated"
printf 'not an archive, not at all, not even a little bit.\n' >"$d/junk.tar"
run_bad "garbage" "$d/junk.tar" "Unrecognized archive format"
run_bad "missing" "$d/none-such.tar" "No such file or directory"

# No -a: the default archive is built once into the cache, then reused.
mkdir "$d/disk-def"
for i in 1 2; do
	FSCONC_CACHE="$d/cache" "$FSCONC" run -w extract -j 1 -r 1 \
	    --disk "dir:$d/disk-def" -R "$d/res-def$i" >"$d/out" 2>&1
done
meta=$(cat "$d"/res-def2/*/*/*/meta 2>/dev/null)
if echo "$meta" | grep -q "^archive=$d/cache/bindist-v1-1363-33554432-0.pax$" &&
    echo "$meta" | grep -q '^archive_entries=1363$' &&
    [ "$(ls "$d/cache" | wc -l)" -eq 1 ]; then
	ok "default archive: built once, cached, recorded"
else
	not_ok "default archive: built once, cached, recorded" \
	    "$(cat "$d/out"; ls -l "$d/cache"; echo "$meta" | grep archive)"
fi
