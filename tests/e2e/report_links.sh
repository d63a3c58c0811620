# report, report --history and nightly's report write as root into
# directories others may write: a link planted at any of their output
# names is never followed, a directory another user
# owns is refused, and gnuplot writes only into a directory fsconc made.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
r=$s/root
mkset() { sh "$TOP/tests/fixtures/mkset.sh" "$@"; }
SEED=21 LABEL=base mkset "$r/h1/base/20261101T020000Z"
SEED=22 LABEL=base mkset "$r/h1/base/20261102T020000Z"
SEED=23 LABEL=base mkset "$r/h1/base/20261103T020000Z"
mkdir -p "$s/victim"

# plant DIR: every name report, history and nightly write in DIR and in
# DIR/plots becomes a link to a victim file holding "victim".
plant() {
	mkdir -p "$1/plots"
	for f in index.html index.html.tmp; do
		echo victim >"$s/victim/$(basename "$1")-$f"
		ln -sf "$s/victim/$(basename "$1")-$f" "$1/$f"
	done
	for p in ec wall sysjob idle usl metric-bytes_per_s h0 h1; do
		for x in dat gp log svg; do
			echo victim >"$s/victim/$(basename "$1")-$p.$x"
			ln -sf "$s/victim/$(basename "$1")-$p.$x" "$1/plots/$p.$x"
		done
	done
}
# victims_ok: every victim file still holds "victim" and nothing else,
# and no new file appeared beside them.
nvictims() { ls "$s/victim" | wc -l; }
victims_ok() {
	for v in "$s/victim"/*; do
		[ "$(cat "$v")" = victim ] || { echo "$v changed"; return 1; }
	done
	[ "$(nvictims)" -eq "$1" ] || { echo "$(nvictims) victims, not $1"; return 1; }
}
# page_ok DIR: a page and plots fsconc made, not links.
page_ok() {
	[ -f "$1/index.html" ] && [ ! -L "$1/index.html" ] &&
	    [ -d "$1/plots" ] && [ ! -L "$1/plots" ] &&
	    grep -q '<svg' "$1/index.html" &&
	    [ -z "$(find "$1/plots" -type l)" ] &&
	    [ -z "$(find "$1" -name '.fsconc-*')" ]
}

plant "$s/rep"
n=$(nvictims)
err=$("$FSCONC" report -R "$r" -o "$s/rep" h1/base/20261101T020000Z 2>&1); rc=$?
why=$(victims_ok "$n")
[ -z "$why" ] && ok "report: no planted link in DIR or DIR/plots followed" ||
    not_ok "report: no planted link in DIR or DIR/plots followed" "rc=$rc $why $err"
[ $rc -eq 0 ] && page_ok "$s/rep" && [ -f "$s/rep/plots/ec.gp" ] &&
    ok "report: the page written anyway, links replaced" ||
    not_ok "report: the page written anyway, links replaced" "rc=$rc $err $(ls -la "$s/rep" "$s/rep/plots" | head -20)"

# DIR/plots itself a link to a victim directory: nothing lands there.
mkdir -p "$s/rep2" "$s/victim-dir"
ln -s "$s/victim-dir" "$s/rep2/plots"
"$FSCONC" report -R "$r" -o "$s/rep2" h1/base/20261101T020000Z >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ -z "$(ls -A "$s/victim-dir")" ] && page_ok "$s/rep2" &&
    ok "report: DIR/plots a link: not followed, replaced" ||
    not_ok "report: DIR/plots a link: not followed, replaced" "rc=$rc $(ls -A "$s/victim-dir" | head -3)"

# DIR itself a link: refused, nothing written through it.
ln -s "$s/victim-dir" "$s/rep3"
err=$("$FSCONC" report -R "$r" -o "$s/rep3" h1/base/20261101T020000Z 2>&1); rc=$?
[ $rc -eq 1 ] && [ -z "$(ls -A "$s/victim-dir")" ] && echo "$err" | grep -q "rep3: a symbolic link" &&
    ok "report: DIR a link: refused, exit 1" ||
    not_ok "report: DIR a link: refused, exit 1" "rc=$rc $err"

# A second report into the same DIR replaces the first's plots.
"$FSCONC" report -R "$r" -o "$s/rep" h1/base >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && page_ok "$s/rep" && [ "$(ls "$s/rep/plots" | wc -l)" -ge 4 ] &&
    ok "report: again into the same DIR" || not_ok "report: again into the same DIR" "rc=$rc"

# report --history: the same names under its own DIR.
plant "$s/hist"
n=$(nvictims)
err=$("$FSCONC" report --history -R "$r" -o "$s/hist" 2>&1); rc=$?
why=$(victims_ok "$n")
[ -z "$why" ] && [ $rc -eq 0 ] && page_ok "$s/hist" &&
    ok "report --history: no planted link followed, page written" ||
    not_ok "report --history: no planted link followed, page written" "rc=$rc $why $err"

# nightly's report into the candidate set (SET/report) and into -o DIR.
plant "$r/h1/base/20261103T020000Z/report"
plant "$s/night"
n=$(nvictims)
"$FSCONC" nightly -R "$r" --no-run h1/base/20261103T020000Z >/dev/null 2>&1; rc1=$?
"$FSCONC" nightly -R "$r" --no-run h1/base/20261103T020000Z -o "$s/night" >/dev/null 2>&1; rc2=$?
why=$(victims_ok "$n")
[ -z "$why" ] && page_ok "$r/h1/base/20261103T020000Z/report" && page_ok "$s/night" &&
    ok "nightly: no planted link in SET/report or -o DIR followed" ||
    not_ok "nightly: no planted link in SET/report or -o DIR followed" "rc=$rc1,$rc2 $why"

# A directory another user owns (who could plant links between our
# checks and our writes): refused, named, nothing written.
if ! is_root; then
	skip "report: DIR owned by another user refused" "needs root to chown"
	skip "nightly: DIR owned by another user refused" "needs root to chown"
else
	mkdir "$s/theirs"
	chown 65534 "$s/theirs"
	err=$("$FSCONC" report -R "$r" -o "$s/theirs" h1/base/20261101T020000Z 2>&1); rc=$?
	[ $rc -eq 1 ] && [ -z "$(ls -A "$s/theirs")" ] &&
	    echo "$err" | grep -q "theirs: owned by uid 65534" &&
	    ok "report: DIR owned by another user refused" ||
	    not_ok "report: DIR owned by another user refused" "rc=$rc $err"
	err=$("$FSCONC" nightly -R "$r" --no-run h1/base/20261103T020000Z -o "$s/theirs" 2>&1); rc=$?
	[ $rc -eq 1 ] && [ -z "$(ls -A "$s/theirs")" ] &&
	    echo "$err" | grep -q "theirs: owned by uid 65534" &&
	    ok "nightly: DIR owned by another user refused" ||
	    not_ok "nightly: DIR owned by another user refused" "rc=$rc $err"
fi

# A report that fails (no gnuplot) leaves the last page and plots as
# they were and no directory of its own behind.
before=$(cat "$s/rep/index.html" | md5sum)
PATH=/nonexistent "$FSCONC" report -R "$r" -o "$s/rep" h1/base >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && [ "$(md5sum <"$s/rep/index.html")" = "$before" ] &&
    [ -f "$s/rep/plots/ec.gp" ] && [ -z "$(find "$s/rep" -name '.fsconc-*')" ] &&
    ok "report: a failed report leaves the last one and nothing else" ||
    not_ok "report: a failed report leaves the last one and nothing else" "rc=$rc $(find "$s/rep")"
