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
grep -q "	failed	.*	$d/dev.tar: dev/null" "$d"/res/*/*/*/workers.tsv &&
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

# Every hostile header form of hostile.py, in both modes, on a
# directory and on tmpfs: nothing outside changes (not a byte, not a
# mode), and the forms that once reached outside fail the run.
out=$d/outside
mkdir -p "$d/hostile"
python3 "$FSCONC_TOP/tests/e2e/hostile.py" "$d/hostile" "$out" ||
    not_ok "make hostile.py archives"
tmo=
command -v timeout >/dev/null 2>&1 && tmo="timeout -k 5 120"
outside_state() {
	(cd "$out" && find . -printf '%p %y %m %s %T@\n' | sort &&
	    cat canary.txt)
}
# hostile NAME ARCHIVE MUSTFAIL DISK MODE [OPTION...]
hostile() {
	n=$1 a=$2 mustfail=$3 hdisk=$4 hmode=$5
	shift 5
	rm -rf "$out" "$d/hd" "$d/hres"
	mkdir "$out" "$d/hd"
	echo canary >"$out/canary.txt"
	chmod 644 "$out/canary.txt"
	before=$(outside_state)
	# A verify stuck on a FIFO fails here instead of stalling the suite.
	$tmo "$FSCONC" run -w extract -a "$a" -j 2 -r 1 --mode "$hmode" \
	    "$@" --disk "$hdisk" -R "$d/hres" >"$d/out" 2>&1; rc=$?
	after=$(outside_state)
	if [ "$before" != "$after" ]; then
		not_ok "$n: nothing outside changed" "$before
->
$after"
	elif [ "$mustfail" = 1 ] && [ $rc -eq 0 ]; then
		not_ok "$n: the run fails" "$(cat "$d/out")"
	else
		ok "$n: exit $rc, nothing outside changed"
	fi
}
disks="dir"
is_root && disks="dir tmpfs"
for disk in $disks; do
	spec=tmpfs:16m
	[ $disk = dir ] && spec=dir:$d/hd
	for mode in process thread; do
		for a in hl-data-sym reg-linkpath reg-gnulonglink dir-linkpath \
		    hl-data-fifo; do
			mf=1
			case $a in reg-*|dir-*) mf=0 ;; esac
			hostile "$disk $mode $a" "$d/hostile/$a.tar" $mf "$spec" \
			    $mode --verify
		done
		# The mode went through the link whatever the flags.
		hostile "$disk $mode hl-data-sym flags=none" \
		    "$d/hostile/hl-data-sym.tar" 1 "$spec" $mode -O flags=none
		for a in file-link file-link-mode dir-link link; do
			hostile "$disk $mode mtree $a" "$d/hostile/$a.mtree" 1 \
			    "$spec" $mode -O formats=default,mtree
		done
	done
done
is_root || skip "hostile archives on tmpfs" "needs root"
# mtree names host files (contents=) and links by keyword: off by default.
for a in file-link contents; do
	"$FSCONC" run -w extract -a "$d/hostile/$a.mtree" -j 1 -r 1 \
	    --disk "dir:$d/hd" -R "$d/hres" >"$d/out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && grep -q "$a.mtree: mtree archives are not read unless asked for (-O formats=default,mtree)" "$d/out"; then
		ok "mtree $a: refused by default, by name"
	else
		not_ok "mtree $a: refused by default, by name" "$(cat "$d/out")"
	fi
done

# A full disk fails the batch at once, says so, and the run exits 1, on
# every backend: libarchive calls a failed write a warning.
# full NAME DISK ARCHIVE [MODE]
full() {
	rm -rf "$d/fres"
	$tmo "$FSCONC" run -w extract -a "$3" -j 1,2 -r 1 --mode "${4:-process}" \
	    --disk "$2" -R "$d/fres" >"$d/out" 2>&1; rc=$?
	# The worker stopped at the first failed write: not all 128 MiB.
	big=$(awk -F'\t' 'NR > 1 && $9 > 100 * 1048576' \
	    "$d"/fres/*/*/*/workers.tsv 2>/dev/null)
	if [ $rc -eq 1 ] && grep -q "failed: .*No space left on device" \
	    "$d/out" && [ -z "$big" ] && grep -q \
	    "failed	.*No space left on device" "$d"/fres/*/*/*/runs.tsv; then
		ok "disk full, $1: batch failed, said, exit 1"
	else
		not_ok "disk full, $1: batch failed, said, exit 1" \
		    "rc $rc $(cat "$d/out" "$d"/fres/*/*/*/workers.tsv)"
	fi
}
"$FSCONC" mkarchive -n 400 -b 24m "$d/big.tar" >/dev/null
if is_root; then
	full "tmpfs" tmpfs:16m "$d/big.tar"
	full "tmpfs, gzip bomb" tmpfs:16m "$d/hostile/bomb.tar.gz"
	full "tmpfs, gzip bomb, threads" tmpfs:16m "$d/hostile/bomb.tar.gz" \
	    thread
	full "loop" loop:16m "$d/big.tar"
	mkdir "$d/small"
	if mount -t tmpfs -o size=16m fsconc-e2e "$d/small"; then
		at_exit "umount '$d/small'"
		full "dir:" "dir:$d/small/disk" "$d/big.tar"
		full "dir:, gzip bomb" "dir:$d/small/disk" \
		    "$d/hostile/bomb.tar.gz"
	else
		not_ok "mount a small tmpfs for dir:"
	fi
else
	for s in tmpfs loop dir; do skip "disk full, $s" "needs root"; done
fi

# Escapes in entry names reach neither the terminal nor runs.tsv; a long
# name loses its middle, never the cause.
for mode in process thread; do
	rm -rf "$d/nres"
	mkdir -p "$d/nd"
	"$FSCONC" run -w extract -a "$d/hostile/names.tar" -j 1 -r 1 \
	    --mode $mode --disk "dir:$d/nd" -R "$d/nres" >"$d/out" 2>&1; rc=$?
	esc=$(printf '\033')
	if [ $rc -eq 1 ] && ! grep -q "$esc" "$d/out" "$d"/nres/*/*/*/*.tsv &&
	    grep -q '\\033]0;pwned\\aAAAA.*\.\.\..*AAA/\.\./evil: Path contains '"'"'\.\.'"'" \
	    "$d/out" &&
	    grep -q "failed	.*AAA/\.\./evil: Path contains '\.\.'" \
	    "$d"/nres/*/*/*/runs.tsv; then
		ok "$mode: names escaped and shortened, cause kept"
	else
		not_ok "$mode: names escaped and shortened, cause kept" \
		    "rc $rc $(cat -v "$d/out" "$d"/nres/*/*/*/runs.tsv)"
	fi
	rm -rf "$d/nd"
done

# A valid archive whose deepest path is longer than PATH_MAX: --verify
# and -w tree's walk reach every name by descriptor.
python3 - "$d/deep.tar" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as a:
    p = ""
    for i in range(20):
        p = (p + "/" if p else "") + "d%02d" % i + "x" * 247
        # libarchive restores a directory's times by name: keep those short.
        if len(p) < 4000:
            t = tarfile.TarInfo(p)
            t.type, t.mode, t.mtime = tarfile.DIRTYPE, 0o755, 1136073600
            a.addfile(t)
        t = tarfile.TarInfo(p + "/f")
        t.size, t.mode, t.mtime = 6, 0o644, 1136073600
        a.addfile(t, io.BytesIO(b"hello\n"))
PY
# On tmpfs: a fresh file system, where dir: would have to empty the tree.
for mode in process thread; do
	for w in "extract --verify" tree; do
		if ! is_root; then
			skip "$mode: -w $w: names beyond PATH_MAX" "needs root"
			continue
		fi
		rm -rf "$d/lres"
		"$FSCONC" run -w $w -a "$d/deep.tar" -j 1 -r 1 --mode $mode \
		    --disk tmpfs:16m -R "$d/lres" >"$d/out" 2>&1; rc=$?
		if [ $rc -eq 0 ]; then
			ok "$mode: -w $w: names beyond PATH_MAX"
		else
			not_ok "$mode: -w $w: names beyond PATH_MAX" \
			    "$(cut -c1-400 "$d/out")"
		fi
	done
done

# An archive whose magic names a decompressor libarchive lacks (lrzip,
# grzip) must not make fsconc run that program from PATH.
mkdir "$d/fakebin"
for p in lrzip grzip; do
	printf '#!/bin/sh\ntouch "%s/executed-%s"\ncat >/dev/null\n' "$d" $p \
	    >"$d/fakebin/$p"
	chmod +x "$d/fakebin/$p"
done
printf 'LRZI\000\006' >"$d/x.lrz"
head -c 200 /dev/zero >>"$d/x.lrz"
rm -rf "$d/disk" "$d/res"
mkdir "$d/disk"
PATH="$d/fakebin:$PATH" "$FSCONC" run -a "$d/x.lrz" -j 1 -r 1 \
    --disk "dir:$d/disk" -R "$d/res" >"$d/out" 2>&1; rc=$?
if [ $rc -ne 0 ] && ! ls "$d"/executed-* >/dev/null 2>&1; then
	ok "lrzip magic: refused, no external decompressor run"
else
	not_ok "lrzip magic: refused, no external decompressor run" \
	    "rc=$rc $(ls "$d") $(cat "$d/out")"
fi

# A sparse entry of 1 TiB: its size, holes included, is beyond the disk
# (on a dir: disk, beyond its file system's free space), and -w tree
# would copy its zeros densely: both refuse it, saying why.
mkdir -p "$d/sparse"
if truncate -s 1T "$d/sparse/big" 2>/dev/null && echo x >"$d/sparse/small" &&
    tar --sparse -cf "$d/sparse.tar" -C "$d/sparse" small big 2>/dev/null; then
	rm -f "$d/sparse/big"
	run_bad "sparse 1 TiB entry" "$d/sparse.tar" \
	    "big: size 1T, holes included, is more than the .* free"
	rm -rf "$d/disk" "$d/res"
	mkdir "$d/disk"
	"$FSCONC" run -w tree -a "$d/sparse.tar" -j 1 -r 1 \
	    --disk "dir:$d/disk" -R "$d/res" >"$d/out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && grep -q "trees and their copies need about 2.0T" "$d/out"; then
		ok "-w tree: sparse 1 TiB entry refused before copying, exit $rc"
	else
		not_ok "-w tree: sparse 1 TiB entry refused before copying" \
		    "rc=$rc $(cat "$d/out")"
	fi
else
	skip "sparse 1 TiB entry" "no sparse file or GNU tar here"
	skip "-w tree: sparse 1 TiB entry refused before copying" "no sparse file or GNU tar here"
fi

# Four sparse entries of 4 EiB each (PAX GNU.sparse 0.1, one byte
# stored): their sizes, holes included, sum past 2^64.  The sums
# saturate: meta's tree.bytes is 2^64 - 1 bytes (16384P), never the 0
# they wrapped to, and the copies' need is refused, not rounded down.
if python3 - "$d/eib.tar" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for i in range(4):
        ti = tarfile.TarInfo("f%d" % i)
        ti.size = 1
        ti.pax_headers = {"GNU.sparse.size": str(4 << 60),
                          "GNU.sparse.map": "0,1"}
        t.addfile(ti, io.BytesIO(b"x"))
PY
then
	rm -rf "$d/disk" "$d/res"
	mkdir "$d/disk"
	"$FSCONC" run -w tree -a "$d/eib.tar" -j 1 -r 1 \
	    --disk "dir:$d/disk" -R "$d/res" >"$d/out" 2>&1; rc=$?
	m=$(find "$d/res" -name meta | head -n 1)
	if [ $rc -ne 0 ] && [ -n "$m" ] && grep -qx 'tree.bytes=16384P' "$m" &&
	    grep -q "trees and their copies need about 16384P" "$d/out"; then
		ok "-w tree: 4 x 4 EiB sparse entries: tree.bytes saturates, refused"
	else
		not_ok "-w tree: 4 x 4 EiB sparse entries: tree.bytes saturates, refused" \
		    "rc=$rc $(grep tree.bytes "$m") $(cat "$d/out")"
	fi
else
	skip "-w tree: 4 x 4 EiB sparse entries: tree.bytes saturates, refused" "no python3 tarfile"
fi

# The archive's image in memory is bounded (-O max-image, default the
# smaller of 4g and half the free memory): 64 MiB of zeros gzipped is
# refused under max-image=16m, the message naming the limit; so is a
# plain file larger than it; the default holds it.
mkdir -p "$d/zsrc"
head -c 67108864 /dev/zero >"$d/zsrc/zeros"
tar -czf "$d/zeros.tgz" -C "$d/zsrc" zeros && rm -rf "$d/zsrc"
img_run() {	# ARCHIVE [OPTION...]: run it once on a dir: disk
	_a=$1; shift
	rm -rf "$d/disk" "$d/res"
	mkdir "$d/disk"
	"$FSCONC" run -a "$_a" "$@" -j 1 -r 1 --disk "dir:$d/disk" \
	    -R "$d/res" >"$d/out" 2>&1
}
img_run "$d/zeros.tgz" -O max-image=16m; rc=$?
if [ $rc -ne 0 ] && grep -q "zeros.tgz: decompresses to more than the archive image may be (max-image=16M; -O max-image=SIZE)" "$d/out"; then
	ok "gzip of 64 MiB under max-image=16m: refused, the limit named"
else
	not_ok "gzip of 64 MiB under max-image=16m: refused, the limit named" "rc=$rc $(cat "$d/out")"
fi
img_run "$d/good.tar" -O max-image=512k; rc=$?
if [ $rc -ne 0 ] && grep -q "good.tar: larger than the archive image may be (max-image=512K; -O max-image=SIZE)" "$d/out"; then
	ok "plain archive over max-image: refused, the limit named"
else
	not_ok "plain archive over max-image: refused, the limit named" "rc=$rc $(cat "$d/out")"
fi
img_run "$d/zeros.tgz"; rc=$?
meta=$(cat "$d"/res/*/*/*/meta 2>/dev/null)
if [ $rc -eq 0 ] && echo "$meta" | grep -qx 'archive_image=decompressed' &&
    echo "$meta" | grep -qx 'archive_image_bytes=67112960'; then
	ok "gzip of 64 MiB, default max-image: decompressed once"
else
	not_ok "gzip of 64 MiB, default max-image: decompressed once" "rc=$rc $(cat "$d/out") $meta"
fi
img_run "$d/zeros.tgz" -O max-image=0; rc=$?
[ $rc -eq 2 ] && grep -q "max-image: want a size" "$d/out" &&
    ok "max-image=0: usage error" || not_ok "max-image=0: usage error" "rc=$rc $(cat "$d/out")"
