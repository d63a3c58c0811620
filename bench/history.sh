#!/bin/sh
# fsconc history: (1) the change-point known answers as rates: detection
# of planted EC shifts of 3%, 5% and 10% within one night, and false
# change points per 100 nights, over many simulated hosts of 60 nights;
# (2) the query over 10,000 result sets on disk (target: under 1 s).
#   sh bench/history.sh [HOSTS]     (HOSTS per shift for (1), default 500)
# Needs the build (make): bench/history_bench.c links build/libfsconc.a.
set -u
top=${FSCONC_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
fsconc=${FSCONC:-$top/fsconc}
hosts=${1:-500}
priv=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench-history.XXXXXX")
# The sets go to memory where there is /dev/shm: what is measured is the
# query, not the writer's fsyncs.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	data=$(mktemp -d /dev/shm/fsconc-bench-history.XXXXXX)
else
	data=$priv/data
fi
trap 'rm -rf "$priv" "$data"' EXIT
cd "$top" || exit 1
cppflags=$(MAKEFLAGS='' make -s --no-print-directory print-CPPFLAGS)
xcflags=$(MAKEFLAGS='' make -s --no-print-directory print-XCFLAGS)
libs=$(pkg-config --libs libarchive hwloc gsl nettle)
# shellcheck disable=SC2086
eval "${CC:-cc} $cppflags $xcflags -O2 -o \"$priv/hb\" bench/history_bench.c \
    build/libfsconc.a $libs -lm" ||
    { echo "history: cannot build bench/history_bench.c (run make first)"; exit 1; }

echo "-- change points: planted shifts (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
"$priv/hb" rates "$hosts" || exit 1

echo
echo "-- fsconc history over 10,000 sets: 50 hosts x 2 labels x 100 nights,"
echo "   levels 1, 8, 32 (200 series of 100 nights, a 5% shift in half)"
# The meta keys of a real run (fsconc run -w syscall --disk dir: here),
# so that reading a set costs what it costs.
cat >"$priv/meta" <<'META'
harness.version=0.1.0
os=Linux
kernel.release=6.18.44-fc-v782
kernel.version=#1 SMP PREEMPT_DYNAMIC @0
machine=x86_64
kernel.sched_ext.state=absent
kernel.thp=always [madvise] never
sysctl.vm.dirty_ratio=20
sysctl.vm.dirty_background_ratio=10
sysctl.vm.dirty_expire_centisecs=3111
sysctl.vm.vfs_cache_pressure=100
sysctl.kernel.numa_balancing=0
sysctl.kernel.sched_autogroup_enabled=1
sysctl.fs.nr_open=1048576
kernel.config.source=/proc/config.gz
kernel.config.PREEMPT_NONE=y
kernel.config.PREEMPT_DYNAMIC=y
kernel.config.NR_CPUS=256
kernel.config.HZ=250
kernel.config.DEBUG=DEBUG_BUGVERBOSE,DEBUG_KERNEL,DEBUG_MISC,DEBUG_INFO,DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT,DEBUG_INFO_COMPRESSED_NONE,DEBUG_INFO_BTF,DEBUG_FS,DEBUG_FS_ALLOW_ALL,DEBUG_MEMORY_INIT,DEBUG_LIST
kernel.preempt.config=none
cpu.model=AMD EPYC
cpu.online=2
topology=1 package, 2 cores, 2 PUs, 1 NUMA node
ncpu=2
cpuset=0-1
workload=syscall
syscall.op=null
syscall.file=shared
syscall.duration=0.5
mode=process
bind=core
distrib=scatter
layout=shared
order=interleaved
levels=1,2
reps=1
verify=no
oversubscribed=no
disk=dir:/tmp/mrun/d/x
fs=
newfs_opts=
mount_opts=
disk_size_rule=none
disk_backend=dir
disk_spec=dir:/tmp/mrun/d/x
disk_id=2846.0
disk_device=
disk_size=0
disk_fs=
disk_newfs_opts=
disk_mount_opts=
disk_mountpoint=/tmp/mrun/d/x
disk_fs_bytes=270553174016
disk_fresh=0
batches.failed=0
META
"$priv/hb" write "$data/root" 50 2 100 "$priv/meta" ||
    { echo "history: cannot write the sets"; exit 1; }
n=$(find "$data/root" -name meta | wc -l)
echo "   $n sets in $data (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
# Interleaved: text, --json, one host; 5 rounds; seconds each.
for r in 1 2 3 4 5; do
	for what in text json host; do
		case $what in
		text) set -- ;;
		json) set -- --json ;;
		host) set -- -H host007 ;;
		esac
		t0=$(date +%s.%N)
		"$fsconc" history -R "$data/root" "$@" >"$priv/out.$what" || exit 1
		t1=$(date +%s.%N)
		echo "$what $(echo "$t1 - $t0" | bc)" >>"$priv/times"
	done
done
changes=$(grep -c '^  change at' "$priv/out.text")
echo "   $changes change points found in the 200 series (100 planted)"
for what in text json host; do
	awk -v w="$what" '$1 == w { v[++n] = $2 }
	    END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		printf "   history %-5s min %.3f s, median %.3f s, max %.3f s (%d runs)\n",
		    w, v[1], v[int((n + 1) / 2)], v[n], n
	    }' "$priv/times"
done
