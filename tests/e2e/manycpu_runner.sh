# scripts/manycpu itself: usage errors, a clear skip where no guest can be
# had, the wall-clock limit and signals stop qemu, none is left behind.
. "$FSCONC_TOP/tests/lib.sh"

mc="$TOP/scripts/manycpu"

sh "$mc" --numa 3 -- true >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--numa 3 on 16 CPUs: usage error" ||
    not_ok "--numa 3 on 16 CPUs: usage error" "rc=$rc"
sh "$mc" --timeout 0 -- true >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--timeout 0: usage error" || not_ok "--timeout 0: usage error" "rc=$rc"
sh "$mc" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no command: usage error" || not_ok "no command: usage error" "rc=$rc"
sh "$mc" --share /nonexistent/fsconc -- true >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--share of no directory: usage error" ||
    not_ok "--share of no directory: usage error" "rc=$rc"

if ! is_root; then
	skip "no emulator: a skip, not a failure" "needs root"
	skip "the wall-clock limit stops qemu" "needs root"
	skip "SIGTERM stops qemu" "needs root"
	exit 0
fi
out=$(QEMU=/nonexistent/qemu sh "$mc" -- true 2>&1); rc=$?
[ $rc -eq 77 ] && echo "$out" | grep -q 'cannot run a guest here: no /nonexistent/qemu' &&
    ok "no emulator: a skip (77) with the reason, not a failure" ||
    not_ok "no emulator: a skip (77) with the reason, not a failure" "rc=$rc $out"

if ! why=$(sh "$mc" --check 2>&1); then
	skip "the wall-clock limit stops qemu" "$why"
	skip "SIGTERM stops qemu" "$why"
	exit 0
fi
work=$(scratch)
cd "$work" || exit 1

# Offline: apt-get download fails.  An empty cache is a skip with the
# reason; an older cached kernel is used instead.
mkdir fakebin cache
printf '#!/bin/sh\necho "E: offline" >&2\nexit 100\n' >fakebin/apt-get
chmod +x fakebin/apt-get
out=$(PATH="$work/fakebin:$PATH" FSCONC_CACHE="$work/cache" sh "$mc" --check 2>&1); rc=$?
[ $rc -eq 77 ] && echo "$out" | grep -q 'download .*failed: E: offline, and .* holds no kernel' &&
    ok "offline, nothing cached: a skip (77) saying so" ||
    not_ok "offline, nothing cached: a skip (77) saying so" "rc=$rc $out"
real=$(sh "$mc" --check 2>/dev/null | sed -n 's/^manycpu: \([^,]*\),.*/\1/p')
cp -r "${FSCONC_CACHE:-/var/cache/fsconc-manycpu}/$real" cache/0.1-old
out=$(PATH="$work/fakebin:$PATH" FSCONC_CACHE="$work/cache" sh "$mc" --check 2>&1); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^manycpu: 0.1-old,' &&
    ok "offline: the cached kernel is used" ||
    not_ok "offline: the cached kernel is used" "rc=$rc $out"

# The kernel booted uncompressed (its PVH entry): unpacked once into the
# cache, whole, and handed to QEMU; a payload that does not unpack
# whole, or a file that is not a bzImage, leaves nothing and boots as
# it is.  QEMU here is a script that keeps its arguments and fails.
printf '#!/bin/sh\necho "$*" >"%s/qemu.args"\nexit 1\n' "$work" >fakebin/qemu
chmod +x fakebin/qemu
# unpacked CACHE: the -kernel QEMU was given, from a guest in CACHE.
unpacked() {
	rm -f "$work/qemu.args"
	PATH="$work/fakebin:$PATH" QEMU=$work/fakebin/qemu FSCONC_CACHE=$1 \
	    sh "$mc" --smp 2 --mem 512 -- true >/dev/null 2>&1
	sed -n 's/.* -kernel \([^ ]*\) .*/\1/p' "$work/qemu.args" 2>/dev/null
}
k=cache/0.1-old
rm -f "$k/vmlinux"	# as the real cache may have it
got=$(unpacked "$work/cache")
[ "$got" = "$work/$k/vmlinux" ] && [ -s "$k/vmlinux" ] &&
    [ "$(od -A n -c -N 4 "$k/vmlinux" | tr -d ' ')" = 177ELF ] &&
    [ -z "$(ls "$k" | grep '^vmlinux\.')" ] &&
    ok "the kernel unpacked whole, booted at its PVH entry" ||
    not_ok "the kernel unpacked whole, booted at its PVH entry" \
    "-kernel $got; $(ls -l "$k")"
# Its payload cut short (the header's length is kept).
rm -f "$k/vmlinux"
n=$(wc -c <"$k/vmlinuz")
head -c $((n / 2)) "$k/vmlinuz" >"$k/cut" && mv "$k/cut" "$k/vmlinuz"
got=$(unpacked "$work/cache")
[ "$got" = "$work/$k/vmlinuz" ] && [ -z "$(ls "$k" | grep '^vmlinux')" ] &&
    ok "a payload that does not unpack whole: nothing kept, the bzImage booted" ||
    not_ok "a payload that does not unpack whole: nothing kept, the bzImage booted" \
    "-kernel $got; $(ls -l "$k")"
# Not a bzImage at all.
head -c 4096 /dev/zero >"$k/vmlinuz"
got=$(unpacked "$work/cache")
[ "$got" = "$work/$k/vmlinuz" ] && [ -z "$(ls "$k" | grep '^vmlinux')" ] &&
    ok "not a bzImage: nothing unpacked, booted as it is" ||
    not_ok "not a bzImage: nothing unpacked, booted as it is" \
    "-kernel $got; $(ls -l "$k")"

# qemu_of DIR: the pids of qemu processes sharing DIR.
qemu_of() { pgrep -f "path=$1,mount_tag=work"; }

# The limits and signals are the script's, whatever the guest: a small
# one (2 vCPUs on one host thread, no disk's modules) costs the host
# least.  Its boot alone takes longer than 3 s.
small="--smp 2 --mem 512 --one-thread --tmpfs-only"
out=$(sh "$mc" $small --timeout 3 -- true 2>&1); rc=$?
[ $rc -eq 124 ] && echo "$out" | grep -q 'ran past the 3s limit' &&
    [ -z "$(qemu_of "$work")" ] &&
    ok "the wall-clock limit stops qemu (124)" ||
    not_ok "the wall-clock limit stops qemu (124)" "rc=$rc $out $(qemu_of "$work")"

# SIGTERM once qemu runs: the runner stops it and exits 143.
sh "$mc" $small --timeout 200 -- true >"$work/log" 2>&1 &
pid=$!
i=0
while [ -z "$(qemu_of "$work")" ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $pid
wait $pid; rc=$?
i=0
while [ -n "$(qemu_of "$work")" ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
[ $rc -eq 143 ] && [ -z "$(qemu_of "$work")" ] &&
    ok "SIGTERM stops qemu (143)" ||
    not_ok "SIGTERM stops qemu (143)" "rc=$rc $(cat "$work/log") $(qemu_of "$work")"
