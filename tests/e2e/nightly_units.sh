# The nightly units make install ships (dist/): the systemd service and
# timer checked by systemd-analyze verify, their lock (two nights never
# overlap), the FreeBSD periodic(8) script by sh -n and dry runs.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
p=$s/prefix
# -o: the binary make installs (no test hooks) is installed as it is,
# never rebuilt.
inst=$FSCONC_PLAIN
[ -x "$inst" ] || inst=$FSCONC
out=$(cd "$TOP" && MAKEFLAGS='' make -s --no-print-directory -o "$inst" \
    install PREFIX="$p" BIN="$inst" NIGHTLY_UNITS="systemd periodic" 2>&1); rc=$?
svc=$p/lib/systemd/system/fsconc-nightly.service
tmr=$p/lib/systemd/system/fsconc-nightly.timer
per=$p/etc/periodic/daily/900.fsconc-nightly
[ $rc -eq 0 ] && [ -x "$p/bin/fsconc" ] && [ -s "$svc" ] && [ -s "$tmr" ] &&
    [ -x "$per" ] && ! grep -q '@BINDIR@' "$svc" "$per" &&
    grep -q "^ExecStart=.* $p/bin/fsconc nightly " "$svc" &&
    ok "make install: service, timer and periodic script under PREFIX" ||
    not_ok "make install: service, timer and periodic script under PREFIX" "rc=$rc $out"
grep -q '^# Enable with: systemctl enable --now fsconc-nightly.timer' "$tmr" &&
    grep -q '^# Enable with: sysrc -f /etc/periodic.conf daily_fsconc_nightly_enable=YES' "$per" &&
    ok "each says the one command that enables it" ||
    not_ok "each says the one command that enables it"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd-analyze verify" "systemd-analyze not installed"
else
	# Documentation=man:... is checked against the pages installed.
	out=$(MANPATH=$p/share/man systemd-analyze verify "$svc" "$tmr" 2>&1); rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ] && ok "systemd-analyze verify" ||
	    not_ok "systemd-analyze verify" "rc=$rc $out"
fi

# The service's own command line, with a stub for fsconc and a lock here.
if ! command -v flock >/dev/null 2>&1; then
	skip "the service's lock: one night at a time" "flock not installed"
else
	cat >"$s/stub" <<EOF
#!/bin/sh
echo "\$@" >>"$s/ran"
EOF
	chmod +x "$s/stub"
	cmd=$(sed -n 's/^ExecStart=//p' "$svc" |
	    sed "s|/run/lock/fsconc-nightly.lock|$s/lock|; s|$p/bin/fsconc|$s/stub|; s|\\\$FSCONC_NIGHTLY_ARGS|--label nightly|")
	# shellcheck disable=SC2086
	$cmd; rc1=$?
	flock "$s/lock" sh -c "touch '$s/held'; while [ ! -e '$s/release' ]; do sleep 0.05; done" &
	holder=$!
	wait_until [ -e "$s/held" ]
	# shellcheck disable=SC2086
	$cmd; rc2=$?
	touch "$s/release"
	wait $holder
	[ $rc1 -eq 0 ] && [ $rc2 -eq 75 ] &&
	    [ "$(cat "$s/ran")" = "nightly --label nightly" ] &&
	    ok "the service's lock: one night at a time (the second exits 75)" ||
	    not_ok "the service's lock: one night at a time" "rc1=$rc1 rc2=$rc2 ran: $(cat "$s/ran")"
fi

out=$(sh -n "$per" 2>&1) && ok "periodic script: sh -n" ||
    not_ok "periodic script: sh -n" "$out"
out=$(sh "$per"); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && ok "periodic script: nothing unless enabled" ||
    not_ok "periodic script: nothing unless enabled" "rc=$rc $out"
out=$(daily_fsconc_nightly_enable=YES daily_fsconc_nightly_dryrun=YES \
    daily_fsconc_nightly_args='--label n8 -j 1,8' sh "$per"); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -qx "lockf -s -t 0 /var/run/fsconc-nightly.lock $p/bin/fsconc nightly --label n8 -j 1,8" &&
    ok "periodic script: dry run" || not_ok "periodic script: dry run" "rc=$rc $out"
# lockf's answers, from a stub: a regression, the lock taken.
mkdir -p "$s/bin"
printf '#!/bin/sh\nexit $LOCKF_RC\n' >"$s/bin/lockf"
chmod +x "$s/bin/lockf"
out=$(PATH=$s/bin:$PATH LOCKF_RC=3 daily_fsconc_nightly_enable=YES sh "$per"); rc3=$?
out=$(PATH=$s/bin:$PATH LOCKF_RC=75 daily_fsconc_nightly_enable=YES sh "$per"); rc75=$?
[ $rc3 -eq 2 ] && [ $rc75 -eq 2 ] && echo "$out" | grep -q 'previous night still holds' &&
    ok "periodic script: regression and a held lock reported" ||
    not_ok "periodic script: regression and a held lock reported" "rc3=$rc3 rc75=$rc75 $out"
