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
"$priv/hb" write "$data/root" 50 2 100 || { echo "history: cannot write the sets"; exit 1; }
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
