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
    --label "$(printf 'l\tx')" -o "$d/res" >"$d/out" 2>&1; rc=$?
meta=$(ls "$d"/res/*/*/*/meta 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$meta" ] && ! grep -q '^ncpu=999' "$meta" &&
    grep -qx "archive=$d/evil ncpu=999.tar" "$meta" &&
    grep -qx 'label=l x' "$meta" &&
    [ "$(grep -c '^ncpu=' "$meta")" -eq 1 ]; then
	ok "-a with a newline: no planted ncpu= in meta"
else
	not_ok "-a with a newline: no planted ncpu= in meta" "rc=$rc $(cat "$d/out" "$meta")"
fi
