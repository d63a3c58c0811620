# fsconc mkarchive: same options give the same bytes across processes (and
# across a second boundary, for gzip's header time), tar tools read what it
# writes, and bad usage exits 2.
. "$FSCONC_TOP/tests/lib.sh"
d=$(scratch) || exit 1

for spec in pax:none ustar:none cpio:none zip:none pax:gzip pax:zstd \
    pax:bzip2 pax:xz; do
	f=${spec%:*} c=${spec#*:}
	"$FSCONC" mkarchive -n 300 -b 512k -s 3 -F "$f" -c "$c" "$d/a" \
	    >/dev/null 2>&1
	[ "$c" = gzip ] && sleep 1
	"$FSCONC" mkarchive --files 300 --bytes 512k --seed 3 --format "$f" \
	    --compress "$c" "$d/b" >/dev/null 2>&1
	if cmp -s "$d/a" "$d/b"; then ok "$f/$c: byte-identical twice"
	else not_ok "$f/$c: byte-identical twice"; fi
	n=$(bsdtar -tf "$d/a" 2>/dev/null | wc -l)
	[ "$n" -eq 300 ] && ok "$f/$c: bsdtar lists 300 entries" ||
	    not_ok "$f/$c: bsdtar lists 300 entries" "got $n"
done

"$FSCONC" mkarchive -n 300 -b 512k -s 4 "$d/c" >/dev/null 2>&1
cmp -s "$d/a" "$d/c" && not_ok "another seed, other bytes" ||
    ok "another seed, other bytes"

# Defaults: 32 MiB in 1,363 entries (the original's 5,664 per 133 MiB).
out=$("$FSCONC" mkarchive "$d/def.tar" 2>&1)
echo "$out" | grep -q "1363 entries, 32M payload, pax/none, seed 0" &&
    ok "defaults" || not_ok "defaults" "$out"
mkdir "$d/gnu"
if (cd "$d/gnu" && tar xf "$d/def.tar") 2>"$d/err"; then
	ok "GNU tar extracts it"
else
	not_ok "GNU tar extracts it" "$(cat "$d/err")"
fi

"$FSCONC" mkarchive -F shar "$d/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "unknown format exits 2" || not_ok "unknown format exits 2" "rc=$rc"
"$FSCONC" mkarchive -c lz4 "$d/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "unknown compression exits 2" || not_ok "unknown compression exits 2" "rc=$rc"
"$FSCONC" mkarchive -n 0 "$d/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--files 0 exits 2" || not_ok "--files 0 exits 2" "rc=$rc"
"$FSCONC" mkarchive -b 12q "$d/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad --bytes exits 2" || not_ok "bad --bytes exits 2" "rc=$rc"
"$FSCONC" mkarchive >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no OUT exits 2" || not_ok "no OUT exits 2" "rc=$rc"
err=$("$FSCONC" mkarchive -n 10 "$d/no/such/dir/x.tar" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "fsconc: mkarchive: $d/no/such/dir/x.tar" &&
    ok "unwritable OUT: exit 1, names the file" ||
    not_ok "unwritable OUT: exit 1, names the file" "rc=$rc $err"
echo "$err" | grep -q "No such file or directory" &&
    ok "unwritable OUT: names the cause" ||
    not_ok "unwritable OUT: names the cause" "$err"
ls "$d/no" >/dev/null 2>&1 && not_ok "nothing left behind" || ok "nothing left behind"
