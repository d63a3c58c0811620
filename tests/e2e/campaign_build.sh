# fsconc campaign: configurations it builds (issue 40), cheap, no boot:
# the plans (FreeBSD's 2005 file: buildkernel, installkernel KODIR,
# nextboot -k; a Linux built configuration), then a campaign over a
# tiny fake kernel tree (git; its own merge_config.sh and olddefconfig,
# which drop an undeclared symbol and unset BAR without DEP, as the
# kernel's do) with reboots simulated (method command, sim_machine):
# every build before the first boot, the commit resolved once (a ref
# that moves after start changes nothing), a build cut by a power cut
# done again, and the bad input: a dropped option named, an overridden
# one refused before any boot, metacharacters and a ref that names no
# commit refused before anything runs.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
if ! command -v git >/dev/null 2>&1; then
	skip "fsconc campaign builds" "git not installed"
	echo "1..$_t"
	exit 0
fi

# --- the plans ---------------------------------------------------------------
ex="$FSCONC_TOP/dist/campaign/2005.campaign"
out=$("$FSCONC" campaign start --dry-run --os freebsd -R "$s/none" "$ex" 2>&1); rc=$?
kd=/usr/local/share/fsconc/campaign
# grep -F: the lines as they are, $( and all.
has() { echo "$out" | grep -qF -- "$1"; }
if [ $rc -eq 0 ] && [ ! -e "$s/none" ] &&
    has "sh -c 'make -j\$(sysctl -n hw.ncpu) buildkernel KERNCONF=GENERIC'" &&
    has "sh -c 'make installkernel KERNCONF=GENERIC KODIR=/boot/mpsafe'" &&
    has "sh -c 'make -j\$(sysctl -n hw.ncpu) buildkernel KERNCONF=GENERIC-AG KERNCONFDIR=$kd'" &&
    has "sh -c 'make installkernel KERNCONF=GENERIC-AG KERNCONFDIR=$kd KODIR=/boot/adaptive-giant'" &&
    has "sh -c 'make -j\$(sysctl -n hw.ncpu) buildkernel KERNCONF=GENERIC-4BSD KERNCONFDIR=$kd'" &&
    has "sh -c 'make installkernel KERNCONF=GENERIC-4BSD KERNCONFDIR=$kd KODIR=/boot/sched-4bsd'" &&
    has "# config giant: boots config mpsafe's kernel" &&
    has "KERNCONF=GENERIC-AG KERNCONFDIR=$kd'   # killed after 14400s: the campaign stopped" &&
    [ "$(echo "$out" | grep -c 'buildkernel')" -eq 3 ] &&
    echo "$out" | grep -q '^nextboot -k mpsafe -e debug.mpsafevfs=1 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    echo "$out" | grep -q '^nextboot -k mpsafe -e debug.mpsafevfs=0 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    echo "$out" | grep -q '^nextboot -k adaptive-giant -e debug.mpsafevfs=0 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    echo "$out" | grep -q '^nextboot -k sched-4bsd -e debug.mpsafevfs=1 -e fsconc.campaign=ID -e fsconc.boot=[0-9]*$' &&
    [ "$(echo "$out" | grep -n 'buildkernel' | tail -1 | cut -d: -f1)" -lt \
      "$(echo "$out" | grep -n '^nextboot -k' | head -1 | cut -d: -f1)" ]; then
	ok "2005 plan: buildkernel, installkernel KODIR=/boot/NAME per built configuration, all before the first nextboot -k NAME; giant a tunable on mpsafe's kernel"
else
	not_ok "2005 plan: buildkernel, installkernel KODIR=/boot/NAME per built configuration, all before the first nextboot -k NAME; giant a tunable on mpsafe's kernel" "rc=$rc $out"
fi

# The fake kernel tree: Kconfig declares FOO, BAR (depends on DEP), DEP;
# its image holds the .config and the commit it was built from.
t="$s/linux"
mkdir -p "$t/scripts/kconfig"
printf 'config FOO\n\ttristate "foo"\nconfig BAR\n\tbool "bar"\n\tdepends on DEP\nconfig DEP\n\tbool "dep"\n' >"$t/Kconfig"
cat >"$t/scripts/kconfig/merge_config.sh" <<'EOF'
[ "$1" = -m ] || exit 1
shift
cp "$1" .config.tmp
shift
for f; do
	for o in $(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$f"); do
		grep -v "^$o=\|^# $o is not set$" .config.tmp >.config.t2 || :
		mv .config.t2 .config.tmp
	done
	cat "$f" >>.config.tmp
done
mv .config.tmp .config
EOF
cat >"$t/scripts/kconfig/olddef.sh" <<'EOF'
set -e
: >.config.new
while IFS= read -r l; do
	case $l in
	CONFIG_*=*) s=${l%%=*}; s=${s#CONFIG_} ;;
	'# CONFIG_'*' is not set') s=${l#'# CONFIG_'}; s=${s%' is not set'} ;;
	*) continue ;;
	esac
	grep -Eq "^(menu)?config $s\$" Kconfig || continue
	if [ "$s" = BAR ] && ! grep -qx CONFIG_DEP=y .config; then
		l='# CONFIG_BAR is not set'
	fi
	echo "$l" >>.config.new
done <.config
mv .config.new .config
EOF
printf 'all:\n\tmkdir -p arch/x86/boot\n\t{ cat .config; git rev-parse HEAD; } >arch/x86/boot/bzImage\nolddefconfig:\n\t@sh scripts/kconfig/olddef.sh\n' >"$t/Makefile"
git init -q "$t" && git -C "$t" symbolic-ref HEAD refs/heads/main &&
    git -C "$t" config user.email t@example.org && git -C "$t" config user.name t &&
    git -C "$t" add -A && git -C "$t" commit -qm "the tree" || { not_ok "the fake tree" "git"; echo "1..$_t"; exit 0; }
c1=$(git -C "$t" rev-parse HEAD)
printf 'CONFIG_FOO=m\n# CONFIG_DEP is not set\n' >"$s/base"
printf 'CONFIG_FOO=y\n' >"$s/foo"
printf 'CONFIG_DEP=y\nCONFIG_BAR=y\n' >"$s/bar"
printf 'CONFIG_NOPE=y\n' >"$s/nope"
printf '# CONFIG_DEP is not set\nCONFIG_BAR=y\n' >"$s/override"

head="run -w syscall -O count=2000 -j 1 -r 2 --disk tmpfs"
# cfile FILE [A's extra lines] [B's]: two kernels that differ by options.
cfile() {
	printf '%s\nboots 1\nseed 5\nbaseline A\nmethod command\ncommand %s\ntree %s\nbuild-timeout 60s\nconfig A\n\tref main\n\tbase %s\n\tfragment %s %s\n%sconfig B\n\tref main\n\tbase %s\n\tfragment %s\n%s' \
	    "$head" "$s/boot.sh" "$t" "$s/base" "$s/foo" "$s/bar" "${2:-}" "$s/base" "$s/bar" "${3:-}" >"$1"
}
cfile "$s/c.campaign"
out=$("$FSCONC" campaign start --dry-run --os linux -R "$s/R0" "$s/c.campaign" 2>&1); rc=$?
src="$s/R0/campaign/ID/src/A"
if [ $rc -eq 0 ] && [ ! -e "$s/R0" ] &&
    has "# config A: built from $t ref main ($c1), base $s/base and fragments" &&
    has "git -C $t clone --shared --no-checkout --quiet -- $t $src" &&
    [ "$(echo "$out" | grep -c 'clone --shared')" -eq 1 ] &&
    has "git -C $src checkout --quiet --force --detach $c1 --" &&
    has "cd $src && sh scripts/kconfig/merge_config.sh -m $s/base $s/foo $s/bar" &&
    has "cd $src && make olddefconfig" &&
    has "sh -c 'make -j\$(nproc)'" &&
    has "cp $src/arch/x86/boot/bzImage $s/R0/campaign/ID/kernel/A" &&
    has "cp $src/.config $s/R0/campaign/ID/config/A" &&
    has "cp $src/arch/x86/boot/bzImage $s/R0/campaign/ID/kernel/B" &&
    has "FSCONC_CAMPAIGN_KERNEL=$s/R0/campaign/ID/kernel/A" &&
    has "FSCONC_CAMPAIGN_KERNEL=$s/R0/campaign/ID/kernel/B"; then
	ok "Linux plan: the ref resolved, one clone of the tree, merge_config.sh, olddefconfig, make, the image kept, booted"
else
	not_ok "Linux plan: the ref resolved, one clone of the tree, merge_config.sh, olddefconfig, make, the image kept, booted" "rc=$rc $out"
fi

# --- a campaign built, then booted --------------------------------------------
# The boot: as sim_machine's, the kernel booted and the commit in it too.
cat >"$s/boot.sh" <<'EOF'
#!/bin/sh
d=$(dirname "$0")
echo "$FSCONC_CAMPAIGN_BOOT $FSCONC_CAMPAIGN_CONFIG $FSCONC_CAMPAIGN_KERNEL $(tail -1 "$FSCONC_CAMPAIGN_KERNEL") $(grep -c '^CONFIG_FOO=y$' "$FSCONC_CAMPAIGN_KERNEL")" >>"$d/boots.log"
echo "root=/dev/vda $FSCONC_CAMPAIGN_CMDLINE" >"$d/cmdline"
echo "boot-$FSCONC_CAMPAIGN_BOOT-$$" >"$d/bootid"
EOF
sim_machine "$s"
hook="$s/hook/fsconc-campaign.service"
resume_all() {	# ROOT N: resume as the hook would, at most N times
	_i=0
	while [ -e "$1/campaign/active" ] && [ $_i -lt "$2" ]; do
		"$FSCONC" campaign resume -R "$1" >>"$s/resume.out" 2>&1
		_i=$((_i + 1))
	done
}
nboots() { wc -l <"$s/boots.log" | tr -d ' '; }

R="$s/R1"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/start.out" 2>&1; rc=$?
id=$(cat "$R/campaign/active" 2>/dev/null)
j="$R/campaign/$id/journal"
# The journal: start, the commits, both builds, then the first boot.
ev=$(cut -d' ' -f1,2 "$j" 2>/dev/null | tr '\n' ',')
if [ $rc -eq 0 ] && [ "$ev" = "start $(sed -n 1p "$j" | cut -d' ' -f2),resolved A,resolved B,build A,built A,build B,built B,schedule 1," -o \
      "$ev" = "start $(sed -n 1p "$j" | cut -d' ' -f2),resolved A,resolved B,build A,built A,build B,built B,schedule 2," ] &&
    grep -q "^resolved A $c1$" "$j" && grep -q "^resolved B $c1$" "$j" &&
    grep -q "^built A [0-9]* [0-9a-f]\{64\} -$" "$j" && [ "$(nboots)" -eq 1 ]; then
	ok "start: the refs resolved and journaled, every build before the first boot, each between build and built"
else
	not_ok "start: the refs resolved and journaled, every build before the first boot, each between build and built" "rc=$rc $(cat "$s/start.out") $(cat "$j")"
fi
ha=$(sed -n 's/^built A [0-9]* \([0-9a-f]*\) .*/\1/p' "$j")
hb=$(sed -n 's/^built B [0-9]* \([0-9a-f]*\) .*/\1/p' "$j")
resume_all "$R" 6
# Each boot booted its configuration's kept image, built from c1, the
# fragments merged: FOO=y in A's only.
if [ "$(nboots)" -eq 2 ] && [ ! -e "$R/campaign/active" ] &&
    grep -q "^[12] A $R/campaign/$id/kernel/A $c1 1$" "$s/boots.log" &&
    grep -q "^[12] B $R/campaign/$id/kernel/B $c1 0$" "$s/boots.log" &&
    [ -n "$ha" ] && [ -n "$hb" ] && [ "$ha" != "$hb" ]; then
	ok "each configuration boots its own build: the kept image, from the resolved commit, its fragments merged; the hashes differ"
else
	not_ok "each configuration boots its own build: the kept image, from the resolved commit, its fragments merged; the hashes differ" "$(cat "$s/boots.log") $(cat "$j") $(cat "$s/resume.out")"
fi
# The sets say which build they measured (results/FORMAT.md).
m=$(grep -l '^campaign_config=A$' "$R"/*/A/*/meta 2>/dev/null | head -1)
if [ -n "$m" ] && grep -qx "campaign_build.commit=$c1" "$m" &&
    grep -qx "kernel.config_hash=$ha" "$m" &&
    grep -qx "kernel.config.source=$R/campaign/$id/config/A" "$m" &&
    grep -qx "campaign_build.ref=main" "$m" && grep -qx "campaign_build.config_hash=$ha" "$m" &&
    grep -q '^campaign_build.seconds=[0-9]*$' "$m"; then
	ok "a built kernel's set: its commit, ref, config hash and build time in meta; its kernel config the build's"
else
	not_ok "a built kernel's set: its commit, ref, config hash and build time in meta; its kernel config the build's" "$m: $(cat "$m" 2>/dev/null)"
fi
if command -v python3 >/dev/null 2>&1; then
	out=$(python3 "$FSCONC_TOP/tests/meta_keys.py" "$FSCONC_TOP/results/FORMAT.md" "$m" 2>&1); rc=$?
	[ $rc -eq 0 ] && ok "a built kernel's meta keys are in results/FORMAT.md" ||
	    not_ok "a built kernel's meta keys are in results/FORMAT.md" "rc=$rc $out"
else
	skip "a built kernel's meta keys are in results/FORMAT.md" "no python3"
fi
# status says what was built.
st=$("$FSCONC" campaign status -R "$R" --id "$id" 2>&1)
echo "$st" | grep -q "config A  *0 bad boots; built from main ($(echo "$c1" | cut -c1-12)), config hash $(echo "$ha" | cut -c1-12), [0-9]*s building$" &&
    ok "status: built from the commit, the config hash, the time building" ||
    not_ok "status: built from the commit, the config hash, the time building" "$st"

if command -v python3 >/dev/null 2>&1; then
	js=$("$FSCONC" campaign status --json -R "$R" --id "$id" 2>&1)
	v=$(echo "$js" | python3 -c 'import json, sys
c = {g["name"]: g["build"] for g in json.load(sys.stdin)["configs"]}
a = c["A"]
print(a["commit"], a["ref"], a["built"], a["config_hash"], a["seconds"] >= 0)' 2>&1)
	[ "$v" = "$c1 main True $ha True" ] && ok "status --json: each configuration's build" ||
	    not_ok "status --json: each configuration's build" "$v $js"
else
	skip "status --json: each configuration's build" "no python3"
fi

# The report: what was built, and the options that differ, from the
# configs the kernels were built with.
rp=$("$FSCONC" campaign report -R "$R" --id "$id" 2>&1)
echo "$rp" | grep -q "config B  *0 bad boots; built from main ($(echo "$c1" | cut -c1-12)), config hash $(echo "$hb" | cut -c1-12), [0-9]*s building$" &&
    echo "$rp" | grep -q "B against A: 1 option differs: FOO=m (y)" &&
    ok "report: each kernel's build, and the options that differ from the baseline's" ||
    not_ok "report: each kernel's build, and the options that differ from the baseline's" "$rp"

# --- a power cut during a build, and a ref that moves after start ---------------
R="$s/R2"
: >"$s/boots.log"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/start.out" 2>&1
id=$(cat "$R/campaign/active" 2>/dev/null)
j="$R/campaign/$id/journal"
# The journal as a power cut during B's build leaves it; its boot never
# asked for.  Then main moves on.
n=$(grep -n '^build B ' "$j" | cut -d: -f1)
head -n "$n" "$j" >"$j.cut" && cat "$j.cut" >"$j" && rm "$j.cut"
rm -f "$R/campaign/$id/kernel/B"
git -C "$t" commit -q --allow-empty -m "main moves on"
c2=$(git -C "$t" rev-parse HEAD)
: >"$s/boots.log"
: >"$s/resume.out"
"$FSCONC" campaign resume -R "$R" >>"$s/resume.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ "$c2" != "$c1" ] && [ "$(grep -c '^build B ' "$j")" -eq 2 ] &&
    [ "$(grep -c '^build A ' "$j")" -eq 1 ] && grep -q '^built B ' "$j" &&
    grep -q "config B: its build was cut off: built again" "$s/resume.out" &&
    [ "$(nboots)" -eq 1 ] && [ "$(tail -1 "$R/campaign/$id/kernel/B")" = "$c1" ]; then
	ok "a power cut during a build: resume builds it again, from the commit resolved at start though the ref moved, then boots"
else
	not_ok "a power cut during a build: resume builds it again, from the commit resolved at start though the ref moved, then boots" "rc=$rc c1=$c1 c2=$c2 $(cat "$j") $(cat "$s/resume.out") $(tail -1 "$R/campaign/$id/kernel/B" 2>&1)"
fi
"$FSCONC" campaign stop -R "$R" >/dev/null 2>&1
# Cut off twice: the configuration failed, the campaign stopped, no boot.
R="$s/R3"
"$FSCONC" campaign start -R "$R" "$s/c.campaign" >"$s/start.out" 2>&1
id=$(cat "$R/campaign/active" 2>/dev/null)
j="$R/campaign/$id/journal"
n=$(grep -n '^build B ' "$j" | cut -d: -f1)
{ head -n "$n" "$j"; sed -n "${n}p" "$j"; } >"$j.cut" && cat "$j.cut" >"$j" && rm "$j.cut"
: >"$s/boots.log"
e=$("$FSCONC" campaign resume -R "$R" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q '^failed B build cut off twice$' "$j" && tail -1 "$j" | grep -q '^stop ' &&
    [ "$(nboots)" -eq 0 ] && [ ! -e "$R/campaign/active" ] && [ ! -e "$hook" ]; then
	ok "a build cut off twice: the configuration failed, the campaign stopped before any boot, its hook gone"
else
	not_ok "a build cut off twice: the configuration failed, the campaign stopped before any boot, its hook gone" "rc=$rc $e $(cat "$j")"
fi
rm -f "$hook"

# --- bad input -------------------------------------------------------------------
# An option the tree does not have: the kernel's merge drops it; named.
cfile "$s/d.campaign" "	fragment $s/nope
"
R="$s/R4"
"$FSCONC" campaign start -R "$R" "$s/d.campaign" >"$s/start.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "config A: dropped, not in this tree: CONFIG_NOPE" "$s/start.out" &&
    grep -q "# fsconc: dropped, not in this tree: CONFIG_NOPE" "$R/campaign/$(cat "$R/campaign/active")/build.log"; then
	ok "a fragment's option the tree does not declare: dropped by the merge, named"
else
	not_ok "a fragment's option the tree does not declare: dropped by the merge, named" "rc=$rc $(cat "$s/start.out")"
fi
"$FSCONC" campaign stop -R "$R" >/dev/null 2>&1
rm -f "$hook"
# An option the build overrides (BAR needs DEP): refused, before any boot.
cfile "$s/o.campaign" "" "	fragment $s/override
"
R="$s/R5"
: >"$s/boots.log"
"$FSCONC" campaign start -R "$R" "$s/o.campaign" >"$s/start.out" 2>&1; rc=$?
j=$(ls "$R"/campaign/*/journal 2>/dev/null | head -1)
if [ $rc -eq 1 ] && grep -q "config B: build failed: $s/override: CONFIG_BAR=y asked for, the build has none (its dependencies are not met)" "$s/start.out" &&
    grep -q '^failed B ' "$j" && tail -1 "$j" | grep -q '^stop ' && [ "$(nboots)" -eq 0 ] &&
    [ ! -e "$R/campaign/active" ] && [ ! -e "$hook" ]; then
	ok "an option the build overrides: refused, named, before any boot"
else
	not_ok "an option the build overrides: refused, named, before any boot" "rc=$rc $(cat "$s/start.out") $(cat "$j" 2>&1)"
fi
rm -f "$hook"
# refuse NAME PATTERN FILE: start exits 2, says why; nothing made, run or booted.
refuse() {
	: >"$s/boots.log"
	rm -rf "$s/R6"
	_e=$("$FSCONC" campaign start -R "$s/R6" "$3" 2>&1); _rc=$?
	if [ $_rc -eq 2 ] && echo "$_e" | grep -qF -- "$2" && [ ! -e "$s/R6/campaign" ] &&
	    [ "$(nboots)" -eq 0 ] && [ ! -e "$hook" ] && [ ! -e "$s/ran" ]; then
		ok "refused before anything runs: $1"
	else
		not_ok "refused before anything runs: $1" "rc=$_rc $_e"
	fi
}
cfile "$s/m.campaign" "	fragment $s/x;touch\${IFS}$s/ran
"
refuse "a fragment path with shell metacharacters" "holds ';'" "$s/m.campaign"
sed 's|ref main|ref main$(reboot)|' "$s/c.campaign" >"$s/r.campaign"
refuse "a ref with shell metacharacters" "ref: holds '\$'" "$s/r.campaign"
sed "s|ref main|ref no-such-branch|" "$s/c.campaign" >"$s/n.campaign"
refuse "a ref that names no commit" "config A: ref no-such-branch names no commit in $t" "$s/n.campaign"
e=$("$FSCONC" campaign start --dry-run --os linux "$s/n.campaign" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$e" | grep -q "ref no-such-branch names no commit" &&
    ok "--dry-run: a ref that names no commit refused" ||
    not_ok "--dry-run: a ref that names no commit refused" "rc=$rc $e"

echo "1..$_t"
