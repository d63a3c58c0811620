# Bisects on a pool of devices by simulation (bench/bisect_pool.c,
# linked against build/libfsconc.a: bis_pool_simulate and the library's
# own rules, analysis/bisect/): the serial bisect (k = 1, all devices on
# one step) against k-ary searches (k steps a round, devices / k boots
# each), the wall time in rounds of boots and the culprit named right.
# Deterministic: SEED.
#   RUNS (1000), SEED (1), COMMITS (64), EFFECTS (0,1,2,3: between-boot
#   SDs, 0 histories without a regression), DEVICES (1,2,8,32),
#   KS (1,2,3,4,8,16,32: k at most the devices), CAP (10), BUILD (1: a
#   kernel's build time in boots, for the wall times with builds)
set -u
TOP=${FSCONC_TOP:-$(pwd)}
lib=$TOP/build/libfsconc.a
echo "bisect on a pool of devices: serial against k-ary, by simulation"
if [ ! -f "$lib" ]; then
	echo "  skipped: $lib not built (make)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
flags="$(make -s -C "$TOP" print-CPPFLAGS | sed "s|-I\.|-I$TOP|") $(make -s -C "$TOP" print-XCFLAGS)"
if ! cc $flags -O2 -o "$tmp/bisect_pool" "$TOP/bench/bisect_pool.c" "$lib" \
    $(pkg-config --libs libarchive hwloc gsl nettle sqlite3 libpq) -lm \
    -pthread 2>"$tmp/err"; then
	echo "  build failed: $(head -n 3 "$tmp/err")"
	exit 1
fi
"$tmp/bisect_pool" -n "${RUNS:-1000}" -s "${SEED:-1}" -N "${COMMITS:-64}" \
    -e "${EFFECTS:-0,1,2,3}" -d "${DEVICES:-1,2,8,32}" \
    -k "${KS:-1,2,3,4,8,16,32}" -c "${CAP:-10}" -b "${BUILD:-1}"
