# fsconc report's plots read at a glance: a sweep of
# 1 to 64 jobs on a log2 axis with every level labelled and no label on
# another, a dense sweep with crowded labels left out, the USL fit drawn
# with its own legend entry, the EC plot's range the measured curve's
# (the ideal does not flatten it), the efficiency EC/N beside it; a 1,2
# set on a linear axis.  Sets made by fsconc import from known times;
# pages rendered by headless Chromium.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
R=$s/res
py=/usr/bin/python3
# imp LABEL NCPU LEVELS...: 8 batches a level, T(N) = 2 (1 + 0.05 (N-1) +
# 0.0005 N (N-1)) with 2% of deterministic jitter (a known USL).
imp() {
	_l=$1 _c=$2; shift 2
	mkdir -p "$s/$_l"
	_a=
	for _n in "$@"; do
		awk -v n="$_n" 'BEGIN { u = 2 * (1 + 0.05 * (n - 1) + 0.0005 * n * (n - 1))
		    for (r = 1; r <= 8; r++) printf "%.6f\n", u * (1 + 0.02 * sin(7.1 * r + n)) }' \
		    >"$s/$_l/$_n.txt"
		_a="$_a $_n=$s/$_l/$_n.txt"
	done
	# shellcheck disable=SC2086
	"$FSCONC" import -R "$R" --host box -l "$_l" --ncpu "$_c" \
	    -m archive_sha256=cafe $_a >/dev/null
}
imp sweep 64 1 2 4 8 16 32 64 && imp pair 2 1 2 &&
    imp dense 48 $(seq 1 48) || { not_ok "import the sets"; exit 0; }

for l in sweep pair dense; do
	"$FSCONC" report -R "$R" -o "$s/$l" "box/$l" >/dev/null 2>"$s/$l.err" ||
	    not_ok "report box/$l" "$(cat "$s/$l.err")"
done

# The axis: log2 for 1..64 and 1..48 (a factor of 8 or more), linear
# for 1,2; in every plot of the page (imported sets have times only:
# EC, efficiency and wall time).
n=$(grep -l '^set logscale x 2$' "$s/sweep/plots/"*.gp | wc -l)
[ "$n" -eq 3 ] && [ "$(ls "$s/sweep/plots/"*.gp | wc -l)" -eq 3 ] &&
    ! grep -q logscale "$s/pair/plots/"*.gp &&
    grep -q '^set logscale x 2$' "$s/dense/plots/ec.gp" &&
    ok "log2 x axis for 1..64 (every plot), linear for 1,2" ||
    not_ok "log2 x axis for 1..64 (every plot), linear for 1,2" "$n plots"

if [ ! -x "$py" ]; then
	skip "SVG structure" "/usr/bin/python3 not installed"
else
	"$py" "$TOP/tests/fixtures/svgcheck.py" "$s/sweep/index.html" >"$s/sweep.svg.txt"
	"$py" "$TOP/tests/fixtures/svgcheck.py" "$s/pair/index.html" >"$s/pair.svg.txt"
	"$py" "$TOP/tests/fixtures/svgcheck.py" "$s/dense/index.html" >"$s/dense.svg.txt"
	# Every level labelled where there is room, none on another.
	[ "$(grep -c 'xlabels=7 overlap=0 ' "$s/sweep.svg.txt")" -eq 3 ] &&
	    [ "$(grep -c 'xlabels=2 overlap=0 ' "$s/pair.svg.txt")" -eq 3 ] &&
	    ok "tick labels: every level of 1..64 and of 1,2, none overlapping" ||
	    not_ok "tick labels: every level of 1..64 and of 1,2, none overlapping" "$(cat "$s/sweep.svg.txt" "$s/pair.svg.txt" | cut -c1-40)"
	# 48 levels: the crowded ones left out, the rest clear of each other.
	bad=$(awk '{ split($2, a, "="); split($3, b, "=");
	    if (a[2] < 8 || a[2] >= 48 || b[2] != 0) print }' "$s/dense.svg.txt")
	[ -z "$bad" ] && [ "$(wc -l <"$s/dense.svg.txt")" -eq 3 ] &&
	    ok "tick labels: 48 levels thinned, none overlapping ($(sed -n 1p "$s/dense.svg.txt" | cut -d' ' -f2))" ||
	    not_ok "tick labels: 48 levels thinned, none overlapping" "$(cut -c1-40 "$s/dense.svg.txt")"
	# The EC plot's key: the ideal, the set, its USL fit; the efficiency
	# plot beside it with the same entries.
	sed -n 1p "$s/sweep.svg.txt" | grep -q '|ideal: EC = min(N, 64 CPUs)|sweep|sweep: USL fit|Effective concurrency$' &&
	    sed -n 2p "$s/sweep.svg.txt" | grep -q '|ideal: min(N, 64 CPUs) / N|sweep|sweep: USL fit|Efficiency$' &&
	    sed -n 1p "$s/pair.svg.txt" | grep -q '|ideal: EC = min(N, 2 CPUs)|pair|Effective concurrency$' &&
	    ok "legend: ideal, set and its USL fit; efficiency plot beside EC" ||
	    not_ok "legend: ideal, set and its USL fit; efficiency plot beside EC" "$(cut -c1-200 "$s/sweep.svg.txt" | head -2)"
fi

# The USL fit is a visible line over every N: a dashed path of many
# segments from N = 1 to 64, in the set's colour.
awk 'NR > 2 && !/^"/ && NF == 2 { n++; if (n == 1) lo = $1; hi = $1 }
	END { exit !(n == 201 && lo == 1 && hi == 64) }' "$s/sweep/plots/usl.dat" &&
    [ "$(awk '/<svg/ { n++ } n == 1' "$s/sweep/index.html" | sed '/<\/svg>/q' |
    tr -d '\n' | sed 's/<path/\n<path/g' | grep "stroke-dasharray='8.8,5.0'" |
    awk -F' L' 'NF > 100' | wc -l)" -eq 1 ] &&
    ok "USL fit: 201 points from 1 to 64, drawn as one dashed line" ||
    not_ok "USL fit: 201 points from 1 to 64, drawn as one dashed line"

# The EC axis ends above the measured curve (EC(64) about 10), not at
# the ideal's 64: the curve fills the plot.
top=$(sed -n 's/^set yrange \[0:\([0-9.]*\)\]$/\1/p' "$s/sweep/plots/ec.gp")
ecmax=$(awk 'NF == 4 && $1 != "NaN" && $2 > m { m = $2 } END { print m }' "$s/sweep/plots/ec.dat")
awk -v t="$top" -v m="$ecmax" 'BEGIN { exit !(t > m && t < 1.8 * m) }' &&
    ok "EC y range from the measured curve (top $top, EC max $ecmax)" ||
    not_ok "EC y range from the measured curve" "top '$top' EC max '$ecmax'"

rendered "$s/sweep/index.html"
rendered "$s/pair/index.html"
