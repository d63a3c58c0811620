# The bisect's error rates and boots by simulation (bench/bisect_sim.c,
# linked against build/libfsconc.a: the library's own rules,
# analysis/bisect/bisect_rule.c).  For each planted effect (EFFECTS, in
# between-boot standard deviations) RUNS bisects of histories of 8 to 16
# commits with a culprit at random and RUNS histories without a
# regression: the culprit named, "no regression" said, the boots spent,
# adaptive against the fewest fixed boots per commit as right, and
# against 5 boots per commit; then `boots auto` for campaigns against a
# fixed count.  Targets at 3 SD: the culprit named in >= 95%, "no
# regression" on histories without one in >= 95%.  Deterministic: SEED.
#   RUNS (2000), SEED (1), EFFECTS (1,2,3,5), SKIP (0: the chance that
#   a step fails to build or boot), OUTLIERS (0: the chance that a boot
#   is 5 SD worse, a disturbed boot no gate caught), CAP (10),
#   BISECT_ARGS (more options of bisect_sim: -m margin%, -o odds,
#   -t step boots, -F adaptive rows only)
set -u
TOP=${FSCONC_TOP:-$(pwd)}
RUNS=${RUNS:-2000}
SEED=${SEED:-1}
EFFECTS=${EFFECTS:-1,2,3,5}
SKIP=${SKIP:-0}
OUTLIERS=${OUTLIERS:-0}
CAP=${CAP:-10}
lib=$TOP/build/libfsconc.a
echo "bisect: error rates and boots by simulation"
if [ ! -f "$lib" ]; then
	echo "  skipped: $lib not built (make)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
flags="$(make -s -C "$TOP" print-CPPFLAGS | sed "s|-I\.|-I$TOP|") $(make -s -C "$TOP" print-XCFLAGS)"
if ! cc $flags -O2 -o "$tmp/bisect_sim" "$TOP/bench/bisect_sim.c" "$lib" \
    $(pkg-config --libs libarchive hwloc gsl nettle sqlite3 libpq) -lm \
    -pthread 2>"$tmp/err"; then
	echo "  build failed: $(head -n 3 "$tmp/err")"
	exit 1
fi
"$tmp/bisect_sim" -n "$RUNS" -s "$SEED" -e "$EFFECTS" -k "$SKIP" \
    -u "$OUTLIERS" -c "$CAP" ${BISECT_ARGS:-}
