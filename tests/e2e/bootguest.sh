# scripts/bootguest's image cache: an image cut short (no checksum file)
# or altered after it was written is found out before anything boots;
# it is removed and built again.  Here the build is made to fail at once
# (an mmdebstrap that refuses), so that the check is quick: the damaged
# image is gone, QEMU (a stub that would say so) was never started,
# and the failed build left no loop device, mount or temporary
# directory behind.  Killed, bootguest kills its guest.  --direct finds
# no ESP on a disk without one and boots nothing.  Also bad usage: exit
# 2.
. "$FSCONC_TOP/tests/lib.sh"

if ! is_root; then
	skip "the guest image cache" "needs root (scripts/bootguest)"
	echo "1..$_t"
	exit 0
fi
w=$(scratch)
mkdir "$w/bin" "$w/cache"
cat >"$w/bin/mmdebstrap" <<'EOF'
#!/bin/sh
echo "mmdebstrap: refused by the test" >&2
exit 1
EOF
cat >"$w/bin/qemu" <<EOF
#!/bin/sh
echo "\$*" >>"$w/qemu.called"
EOF
chmod 755 "$w/bin/mmdebstrap" "$w/bin/qemu"
# bootguest checks for these before it looks at the cache.
for c in qemu-img sfdisk mkfs.vfat mcopy; do
	command -v $c >/dev/null 2>&1 && continue
	skip "the guest image cache" "no $c (scripts/install-deps)"
	echo "1..$_t"
	exit 0
done
key=$(sed -n '/^# >>> recipe/,/^# <<< recipe/p' "$TOP/scripts/bootguest" |
    sha256sum | cut -c1-16)
bg() {
	PATH=$w/bin:$PATH QEMU=$w/bin/qemu FSCONC_CACHE=$w/cache \
	    sh "$TOP/scripts/bootguest" "$@"
}
loops() { losetup -a 2>/dev/null | grep -c "$w/cache" || :; }
mkdir -p "$w/share"
for how in half-written altered; do
	rm -rf "${w:?}/cache/$key"
	mkdir "$w/cache/$key"
	head -c 65536 /dev/urandom >"$w/cache/$key/disk.qcow2"
	if [ $how = altered ]; then
		(cd "$w/cache/$key" && sha256sum disk.qcow2 >SHA256SUMS)
		printf 'x' | dd of="$w/cache/$key/disk.qcow2" bs=1 seek=100 \
		    conv=notrunc 2>/dev/null
	fi
	bg --check >"$w/check.out" 2>&1
	grep -q 'no image yet' "$w/check.out" &&
	    ok "$how image: --check does not take it for an image" ||
	    not_ok "$how image: --check does not take it for an image" "$(cat "$w/check.out")"
	bg --timeout 30 boot "$w/state" "$w/share" >"$w/boot.out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$w/qemu.called" ] && [ ! -e "$w/cache/$key" ] &&
	    grep -q 'not a whole image (checksum), rebuilding' "$w/boot.out" &&
	    grep -q 'mmdebstrap failed' "$w/boot.out"; then
		ok "$how image: detected, removed, rebuilt (the build failing here), never booted"
	else
		not_ok "$how image: detected, removed, rebuilt (the build failing here), never booted" \
		    "rc=$rc $(cat "$w/boot.out" "$w/qemu.called" 2>&1; ls "$w/cache")"
	fi
	[ "$(loops)" -eq 0 ] && [ -z "$(ls -d "$w"/cache/build.* 2>/dev/null)" ] &&
	    ! mount | grep -q "$w/cache" &&
	    ok "$how image: the failed build left no loop device, mount or directory" ||
	    not_ok "$how image: the failed build left no loop device, mount or directory" \
	    "$(losetup -a | grep "$w"; mount | grep "$w"; ls "$w/cache")"
done
# Killed (tests/run's limit on a suite), bootguest takes its guest with
# it: a stub QEMU that would run for ten minutes, on a cached image made
# whole here (its checksum).
mkdir -p "$w/c2/$key" "$w/g/share"
qemu-img create -q -f qcow2 "$w/c2/$key/disk.qcow2" 16M &&
    (cd "$w/c2/$key" && sha256sum disk.qcow2 >SHA256SUMS)
cat >"$w/bin/qemu-long" <<EOF
#!/bin/sh
echo \$\$ >"$w/qemu-long.pid"
exec sleep 600
EOF
chmod 755 "$w/bin/qemu-long"
PATH=$w/bin:$PATH QEMU=$w/bin/qemu-long FSCONC_CACHE=$w/c2 \
    sh "$TOP/scripts/bootguest" --timeout 900 boot "$w/g/state" "$w/g/share" \
    >"$w/g/out" 2>&1 &
bgp=$!
wait_until test -s "$w/qemu-long.pid"
qp=$(cat "$w/qemu-long.pid" 2>/dev/null)
kill -TERM $bgp
wait $bgp
rc=$?
gone() { ! kill -0 "$qp" 2>/dev/null; }
if [ -n "$qp" ] && wait_until gone; then
	ok "bootguest killed: its guest killed too (exit $rc)"
else
	not_ok "bootguest killed: its guest killed too" "qemu pid '$qp' exit $rc $(cat "$w/g/out")"
	[ -z "$qp" ] || kill "$qp" 2>/dev/null
fi
# --direct on a disk with no ESP to take the entry from (the 16 MiB
# image above, no partition table): refused, QEMU never started.
rm -f "$w/qemu.called"
PATH=$w/bin:$PATH QEMU=$w/bin/qemu FSCONC_CACHE=$w/c2 \
    sh "$TOP/scripts/bootguest" --direct quiet --timeout 30 boot "$w/d/state" \
    "$w/g/share" >"$w/d.out" 2>&1
rc=$?
[ $rc -eq 1 ] && [ ! -e "$w/qemu.called" ] && grep -q 'no MiB-aligned ESP' "$w/d.out" &&
    ok "--direct, a disk without an ESP: refused, never booted" ||
    not_ok "--direct, a disk without an ESP: refused, never booted" \
    "rc=$rc $(cat "$w/d.out" "$w/qemu.called" 2>&1)"
bg --direct quiet --uefi build >/dev/null 2>&1
[ $? -eq 2 ] && ok "--direct with --uefi: exit 2" || not_ok "--direct with --uefi: exit 2"
bg --smp 0 build >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad usage: exit 2" || not_ok "bad usage: exit 2"
bg frobnicate >/dev/null 2>&1
[ $? -eq 2 ] && ok "unknown command: exit 2" || not_ok "unknown command: exit 2"
echo "1..$_t"
