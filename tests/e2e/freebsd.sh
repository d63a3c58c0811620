#!/bin/sh
# make check-freebsd, inside make check: every source compiled for FreeBSD
# 14 (tests/freebsd/check; tests/freebsd/README says what that proves),
# and proof that the check sees what the Linux build does not: an error
# planted in each FreeBSD-only block fails it while the Linux build of the
# same file passes.
. "${FSCONC_TOP:-.}/tests/lib.sh"
cd "$TOP" || exit 1
chk=tests/freebsd/check

# The check's own TAP, renumbered into this suite's.
res=$(sh "$chk" 2>&1)
rc=$?
reason=
detail=
name=
flush() {
	[ -n "$name" ] && not_ok "$name" "$detail"
	name='' detail=''
}
while IFS= read -r line; do
	case $line in
	"ok "*"# SKIP "*)
		flush; reason=${line#*# SKIP }
		skip "compile for FreeBSD" "$reason" ;;
	"ok "*)	flush; ok "${line#ok * - }" ;;
	"not ok "*) flush; name=${line#not ok * - } ;;
	"    "*) detail="$detail${detail:+
}${line#    }" ;;
	esac
done <<EOF
$res
EOF
flush
[ $rc -ne 0 ] && ! echo "$res" | grep -q '^not ok' &&
    not_ok "tests/freebsd/check exited $rc" "$res"
if [ -n "$reason" ]; then
	skip "planted errors fail the FreeBSD compile only" "$reason"
	exit 0
fi

# The build's own flags, for compiling a copy as the Linux build does.
cppflags=$(MAKEFLAGS='' make -s --no-print-directory print-CPPFLAGS)
xcflags=$(MAKEFLAGS='' make -s --no-print-directory print-XCFLAGS)
linux_cc() {	# file.c obj: a copy, its original's folder searched for
	# the private headers it names bare
	eval "${CC:-cc} $cppflags -iquote \"\$CHECK_QUOTE_DIR\" $xcflags \
	    -c \"\$1\" -o \"\$2\""
}

# plant FILE AFTER_REGEX TEXT EXPECT WHAT: a copy of FILE with TEXT (two
# lines) after the first line matching AFTER_REGEX must fail the check,
# naming its second line and EXPECT, and compile for Linux; the untouched
# copy must pass.
plant() {
	_f=$1 _re=$2 _text=$3 _expect=$4 _what=$5
	_d=$(scratch)
	_copy=$_d/$(basename "$_f")
	CHECK_QUOTE_DIR=$(dirname "$_f")
	export CHECK_QUOTE_DIR
	_at=$(grep -n -m1 -- "$_re" "$_f" | cut -d: -f1)
	if [ -z "$_at" ]; then
		not_ok "$_f: has a line matching '$_re'"
		return
	fi
	cp "$_f" "$_copy"
	check "$_f: an untouched copy compiles for FreeBSD" sh "$chk" "$_copy"
	awk -v at="$_at" -v text="$_text" \
	    '{ print } NR == at { print text }' "$_f" >"$_copy"
	if _out=$(sh "$chk" "$_copy" 2>&1); then
		not_ok "$_f: $_what fails the FreeBSD compile" "$_out"
	elif echo "$_out" | grep -q -- "$_copy:$((_at + 2)):" &&
	    echo "$_out" | grep -q -- "$_expect"; then
		ok "$_f: $_what fails the FreeBSD compile"
	else
		not_ok "$_f: $_what fails the FreeBSD compile" "$_out"
	fi
	check "$_f: the same copy compiles for Linux" \
	    linux_cc "$_copy" "$_d/linux.o"
}

# A call with too few arguments to a FreeBSD-only function: the block is
# compiled, and against a prototype.
bad='#include <sys/procctl.h>
static int planted(void) { return (procctl(P_PID, 0, PROC_PDEATHSIG_CTL)); }'
for f in $(grep -l '^#ifdef __FreeBSD__' common/*.c harness/*/*.c \
    workloads/*.c md-setup/*.c results/*.c analysis/*/*.c cli/*.c); do
	plant "$f" '^#ifdef __FreeBSD__' "$bad" "too few arguments" \
	    "an error planted under #ifdef __FreeBSD__"
done

# Outside any #ifdef: a glibc extension FreeBSD lacks (gettid) and a
# header it lacks (<sys/sysmacros.h>) fail the FreeBSD compile only.
plant common/util.c '^#include "common/util.h"' '
int fsconc_planted(void) { return (gettid()); }' "gettid" \
    "a call of Linux's gettid()"
plant common/util.c '^#include "common/util.h"' '
#include <sys/sysmacros.h>' "sys/sysmacros.h" "glibc's <sys/sysmacros.h>"

# Each name the shims take from a FreeBSD manual page is in that page.
mp=/usr/share/man
while read -r page names; do
	if [ ! -e "$mp/$page" ]; then
		skip "${page##*/} names $names" "freebsd-manpages missing"
		continue
	fi
	missing=
	for w in $names; do
		gzip -dc "$mp/$page" | grep -qw -- "$w" || missing="$missing $w"
	done
	if [ -z "$missing" ]; then
		ok "${page##*/} names $names"
	else
		not_ok "${page##*/} names $names" "not in the page:$missing"
	fi
done <<EOF
man2/procctl.2freebsd.gz procctl PROC_PDEATHSIG_CTL P_PID
man3/sysctl.3freebsd.gz sysctl sysctlbyname sysctlnametomib CTL_MAXNAME CTL_KERN
man3/sysctl.3freebsd.gz KERN_PROC KERN_PROC_PID KERN_PROC_PATHNAME kinfo_proc
man3/sysctl.3freebsd.gz KERN_CLOCKRATE clockinfo
man9/sysctl.9freebsd.gz CTLTYPE_INT CTLTYPE_STRING CTLTYPE_S64 CTLTYPE_UINT
man9/sysctl.9freebsd.gz CTLTYPE_LONG CTLTYPE_ULONG CTLTYPE_U64
man2/statfs.2freebsd.gz statfs fsid MFSNAMELEN MNAMELEN f_mntonname
man2/unmount.2freebsd.gz unmount
man2/getrusage.2freebsd.gz RUSAGE_THREAD
man2/rtprio.2freebsd.gz rtprio RTP_SET RTP_LOOKUP RTP_PRIO_IDLE RTP_PRIO_MAX
man2/rtprio.2freebsd.gz RTP_PRIO_REALTIME RTP_PRIO_NORMAL
man2/close_range.2freebsd.gz close_range
man2/open.2freebsd.gz O_DIRECT
man2/chflags.2freebsd.gz chflags lchflags fchflags chflagsat UF_IMMUTABLE UF_APPEND
man2/chflags.2freebsd.gz UF_NOUNLINK SF_IMMUTABLE SF_APPEND SF_NOUNLINK
man2/stat.2freebsd.gz st_flags
EOF
exit 0
