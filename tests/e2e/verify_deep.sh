# --verify on one very deep entry ("a/" x DEPTH + "f", a 120 KB name at
# 60,000): the walk neither recurses (a worker thread's stack) nor keeps
# every path prefix (memory in the square of the depth), in both modes,
# on tmpfs; the peak memory of the whole run is printed (TAP comment) and
# bounded, and no disk stays mounted, even when the run crashes.
# suite-timeout: 1200
. "$FSCONC_TOP/tests/lib.sh"
d=$(scratch) || exit 1
mkdir -m 700 "$d/run"
export FSCONC_RUNDIR="$d/run"

if ! is_root; then
	skip "--verify, deep entries, on tmpfs" "needs root"
	exit 0
fi
if [ ! -x /usr/bin/python3 ]; then
	skip "--verify, deep entries" "/usr/bin/python3 not installed"
	exit 0
fi
# Whatever happens (a crash leaves its disk recorded and mounted).
at_exit "'$FSCONC' md destroy all >/dev/null 2>&1"

# Peak RSS (KiB) of everything under the run: the largest of the process
# and its reaped descendants (the workers).
cat >"$d/peak.py" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    rc = subprocess.call(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
if sys.platform == "darwin":
    peak //= 1024
print(rc, peak)
PY
# python's tarfile writes the name as a PAX header: no tree, no PATH_MAX.
cat >"$d/mkdeep.py" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as a:
    t = tarfile.TarInfo("a/" * int(sys.argv[2]) + "f")
    t.size, t.mode, t.mtime = 6, 0o644, 1136073600
    a.addfile(t, io.BytesIO(b"hello\n"))
PY

# Not 1.6 GB at 40,000 levels and 3.5 GB at 60,000, as when every prefix
# was kept: the run's own baseline (about 15 MB) and a few tens of bytes
# a level.
limit=131072
mounted() {
	grep -q " $FSCONC_RUNDIR/" /proc/mounts 2>/dev/null ||
	    "$FSCONC" md list 2>/dev/null | grep -q "^[0-9]"
}
for depth in 40000 60000; do
	/usr/bin/python3 "$d/mkdeep.py" "$d/deep.tar" $depth ||
	    not_ok "make a $depth-level archive"
	for mode in thread process; do
		n="$mode: --verify, 1 entry $depth levels deep"
		rm -rf "$d/res"
		set -- $(/usr/bin/python3 "$d/peak.py" "$d/out" "$FSCONC" run \
		    -w extract -a "$d/deep.tar" -j 1 -r 1 --mode $mode --verify \
		    --disk tmpfs:64m -R "$d/res")
		rc=${1:-255} peak=${2:-999999999}
		echo "# $mode, depth $depth: exit $rc, peak RSS $peak KiB"
		if [ "$rc" -eq 0 ] && grep -q '	ok	' \
		    "$d"/res/*/*/*/workers.tsv 2>/dev/null; then
			ok "$n: extracted and verified"
		else
			not_ok "$n: extracted and verified" \
			    "exit $rc $(cut -c1-300 "$d/out" \
			    "$d"/res/*/*/*/workers.tsv 2>/dev/null)"
		fi
		if [ "$peak" -lt $limit ]; then
			ok "$n: peak RSS $peak KiB < $limit KiB"
		else
			not_ok "$n: peak RSS $peak KiB < $limit KiB"
		fi
		if mounted; then
			not_ok "$n: no disk left mounted or recorded" \
			    "$(grep " $FSCONC_RUNDIR/" /proc/mounts;
			    "$FSCONC" md list)"
			"$FSCONC" md destroy all >/dev/null 2>&1
		else
			ok "$n: no disk left mounted or recorded"
		fi
	done
done
