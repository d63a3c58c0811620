# --verify on what bsdtar restores its own way: an archive of a whole
# directory ("./" first: tar cf x.tar -C dir ., and ISO 9660 images,
# whose root is ".") passes, the top's mtime not being restored; a file
# with a POSIX ACL passes, its group bits being the ACL's mask.  Both
# modes, on a dir: disk and (as root) on tmpfs.
. "$FSCONC_TOP/tests/lib.sh"
d=$(scratch) || exit 1
mkdir -m 700 "$d/run"
export FSCONC_RUNDIR="$d/run"

if ! command -v bsdtar >/dev/null 2>&1; then
	skip "--verify of whole-directory and ACL archives" "bsdtar missing"
	exit 0
fi

# Both of extract's writers: libarchive's (dir:, not fresh) and its own
# (a fresh tmpfs).
disks="dir:$d/disk"
if is_root; then
	disks="$disks tmpfs:16m"
	at_exit "'$FSCONC' md destroy all >/dev/null 2>&1"
fi
# verify NAME ARCHIVE [OPTION...]: extracted and verified, both modes.
verify() {
	n=$1 a=$2
	shift 2
	for disk in $disks; do
		for mode in process thread; do
			rm -rf "$d/disk" "$d/res"
			mkdir "$d/disk"
			"$FSCONC" run -w extract -a "$a" -j 1 -r 1 \
			    --mode $mode --verify "$@" --disk "$disk" \
			    -R "$d/res" >"$d/out" 2>&1; rc=$?
			if [ $rc -eq 0 ] && grep -q '	ok	' \
			    "$d"/res/*/*/*/workers.tsv 2>/dev/null; then
				ok "${disk%%:*} $mode: $n: verified"
			else
				not_ok "${disk%%:*} $mode: $n: verified" \
				    "exit $rc $(cat "$d/out")"
			fi
		done
	done
}

# A tree with old times everywhere, the top included.
mkdir -p "$d/src/sub"
echo hello >"$d/src/sub/f"
echo world >"$d/src/g"
chmod 750 "$d/src"
touch -d 2006-01-01 "$d/src/sub/f" "$d/src/g" "$d/src/sub" "$d/src"

tar cf "$d/dot.tar" -C "$d/src" . &&
    tar tf "$d/dot.tar" | grep -qx '\./' ||
    not_ok "tar cf x.tar -C dir . makes a ./ entry"
verify "tar cf x.tar -C dir ." "$d/dot.tar"
bsdtar cf "$d/dot-bsd.tar" -C "$d/src" . ||
    not_ok "bsdtar cf x.tar -C dir ."
verify "bsdtar cf x.tar -C dir ." "$d/dot-bsd.tar"
bsdtar --format iso9660 -cf "$d/bsd.iso" -C "$d/src" . ||
    not_ok "bsdtar --format iso9660"
verify "ISO 9660 by bsdtar" "$d/bsd.iso"
iso=
for t in xorriso genisoimage mkisofs; do
	command -v $t >/dev/null 2>&1 && { iso=$t; break; }
done
case $iso in
xorriso)
	xorriso -as mkisofs -R -quiet -o "$d/x.iso" "$d/src" 2>/dev/null ;;
genisoimage|mkisofs)
	$iso -R -quiet -o "$d/x.iso" "$d/src" 2>/dev/null ;;
esac
if [ -z "$iso" ]; then
	skip "ISO 9660 by xorriso or genisoimage" \
	    "neither xorriso, genisoimage nor mkisofs installed"
elif [ -s "$d/x.iso" ]; then
	verify "ISO 9660 by $iso" "$d/x.iso"
else
	not_ok "ISO 9660 by $iso: made"
fi

# A file with a POSIX ACL: the mode has the group entry's bits (r--), the
# file on disk the mask's (rwx), as bsdtar restores it.
if ! is_root; then
	skip "--verify of a file with an ACL" "ACLs are restored as root only"
	exit 0
elif ! command -v setfacl >/dev/null 2>&1; then
	skip "--verify of a file with an ACL" "setfacl missing (Debian: acl)"
	exit 0
fi
mkdir "$d/asrc"
echo acl >"$d/asrc/f"
chmod 644 "$d/asrc/f"
touch "$d/asrc/probe"
if ! setfacl -m u:nobody:rwx "$d/asrc/probe" 2>/dev/null; then
	skip "--verify of a file with an ACL" \
	    "no POSIX ACL support on $d's file system"
	exit 0
fi
rm -f "$d/asrc/probe"
setfacl -m u:nobody:rwx "$d/asrc/f" || not_ok "setfacl"
bsdtar --acls -cf "$d/acl.tar" -C "$d/asrc" f ||
    not_ok "bsdtar --acls"
if bsdtar -tvf "$d/acl.tar" | grep -q '^-rw-r--r--+ '; then
	ok "the archive holds mode 0644 and an ACL"
else
	not_ok "the archive holds mode 0644 and an ACL" \
	    "$(bsdtar -tvf "$d/acl.tar")"
fi
verify "a file with an ACL (mask rwx)" "$d/acl.tar"
verify "a file with an ACL, ACLs not restored" "$d/acl.tar" \
    -O flags=time,perm,owner
