# The end of a batch: --batch-end exit|syncfs (meta batch_end, a --vary
# axis, the plan's line) and runs.tsv's dirty column, what the file
# systems still had to write when the last worker finished.
. "$FSCONC_TOP/tests/lib.sh"

S=$(scratch)
export FSCONC_RUNDIR="$S/rundir"
mkdir -m 700 "$FSCONC_RUNDIR"
set_of() { ls -d "$1"/*/*/*/ 2>/dev/null | head -n 1; }
# col SET NAME: runs.tsv's column NAME, one value a line.
col() {
	awk -F'\t' -v want="$2" 'NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++)
		if ($i == want) c = i; next } c { print $c }' "$1/runs.tsv"
}
# The largest worker's real time of each batch, beside the batch's real.
ends() {
	awk -F'\t' 'FNR == 1 { f++; next }
	    f == 1 { k = $1 " " $2; if (!(k in w) || $5 > w[k]) w[k] = $5 }
	    f == 2 { print $3, w[$1 " " $2] }' "$1/workers.tsv" "$1/runs.tsv"
}

out=$("$FSCONC" run --dry-run -w calib --batch-end sometime 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q -- '--batch-end sometime: want exit or syncfs' &&
    ok "--batch-end of an unknown end: exit 2" ||
    not_ok "--batch-end of an unknown end: exit 2" "rc=$rc $out"
out=$("$FSCONC" run --dry-run -w calib --os freebsd --batch-end syncfs 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'FreeBSD has no syncfs' &&
    ok "--batch-end syncfs on FreeBSD: refused" ||
    not_ok "--batch-end syncfs on FreeBSD: refused" "rc=$rc $out"
out=$("$FSCONC" run --dry-run -w calib 2>&1); rc=$?
out2=$("$FSCONC" run --dry-run -w calib --vary batch-end=exit,syncfs 2>&1); rc2=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^batch end: exit: ' &&
    [ $rc2 -eq 0 ] && echo "$out2" | grep -q '^batch end: syncfs: .*timed' &&
    [ "$(echo "$out2" | grep -c '^batch end: ')" -eq 2 ] &&
    ok "the plan says how a batch ends; a --vary axis" ||
    not_ok "the plan says how a batch ends; a --vary axis" \
    "rc=$rc rc2=$rc2 $out $out2"

if ! "$FSCONC" mkarchive --files 400 --bytes 8m "$S/a.tar" >/dev/null 2>"$S/mk.err"; then
	not_ok "mkarchive" "$(cat "$S/mk.err")"
	exit 0
fi
# dir: no device of its own, so nothing is said of its dirty data.
out=$("$FSCONC" run -a "$S/a.tar" -j 1 -r 2 --disk "dir:$S/dd" -R "$S/d" 2>&1); rc=$?
set=$(set_of "$S/d")
[ $rc -eq 0 ] && [ "$(col "$set" dirty | sort -u)" = "-" ] &&
    grep -qx 'batch_end=exit' "$set/meta" &&
    ok "dir: disk: dirty unknown (-), batch_end=exit" ||
    not_ok "dir: disk: dirty unknown (-), batch_end=exit" "rc=$rc $out"

if ! is_root || ! command -v mkfs.ext4 >/dev/null 2>&1; then
	skip "loop+ext4, exit and syncfs side by side" "needs root and mkfs.ext4"
	exit 0
fi
out=$("$FSCONC" run -a "$S/a.tar" -j 1,2 -r 2 --disk loop:256m --fs ext4 \
    --vary batch-end=exit,syncfs -R "$S/l" 2>&1); rc=$?
ex=$(ls -d "$S"/l/vary/*/*/*batch-end=exit/*/ 2>/dev/null | head -n 1)
sy=$(ls -d "$S"/l/vary/*/*/*batch-end=syncfs/*/ 2>/dev/null | head -n 1)
# ext4 allocates on writeback: the data of 8 MiB is still to be written.
[ $rc -eq 0 ] && [ -n "$ex" ] && [ -n "$sy" ] &&
    grep -qx 'batch_end=exit' "$ex/meta" && grep -qx 'batch_end=syncfs' "$sy/meta" &&
    col "$ex" dirty | awk '!($1 >= 8000) { bad = 1 } END { exit bad || NR != 4 }' &&
    col "$sy" dirty | awk '!($1 >= 8000) { bad = 1 } END { exit bad || NR != 4 }' &&
    echo "$out" | grep -q "^batch end: the last worker's exit; left to write (runs.tsv dirty) a batch at -j 1 [0-9.]* MiB, -j 2 [0-9.]* MiB" &&
    echo "$out" | grep -q '^batch end: syncfs, timed; it wrote (runs.tsv dirty) a batch at -j 1 ' &&
    ok "loop+ext4: both ends record the 8 MiB left dirty" ||
    not_ok "loop+ext4: both ends record the 8 MiB left dirty" \
    "rc=$rc exit: $(col "$ex" dirty | tr '\n' ' ') syncfs: $(col "$sy" dirty | tr '\n' ' ') $out"
# exit: a batch ends with its last worker; syncfs: later, by the sync.
ends "$ex" | awk '$1 != $2 { bad = 1 } END { exit bad || NR != 4 }' &&
    ends "$sy" | awk '!($1 > $2) { bad = 1 } END { exit bad || NR != 4 }' &&
    ok "syncfs is timed: the batch ends after its last worker" ||
    not_ok "syncfs is timed: the batch ends after its last worker" \
    "exit: $(ends "$ex" | tr '\n' ' ') syncfs: $(ends "$sy" | tr '\n' ' ')"
# A tmpfs has no device: nothing it could write back is said.
out=$("$FSCONC" run -a "$S/a.tar" -j 1 -r 1 --disk tmpfs:64m --batch-end syncfs \
    -R "$S/t" 2>&1); rc=$?
set=$(set_of "$S/t")
[ $rc -eq 0 ] && [ "$(col "$set" dirty)" = "-" ] &&
    ends "$set" | awk '!($1 >= $2) { bad = 1 } END { exit bad || NR != 1 }' &&
    ok "tmpfs, --batch-end syncfs: ok, dirty unknown" ||
    not_ok "tmpfs, --batch-end syncfs: ok, dirty unknown" "rc=$rc $out"
