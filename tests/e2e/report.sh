# fsconc report: a self-contained page with gnuplot SVGs, rendered by
# headless Chromium when it is installed.
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
mkset() { sh "$TOP/tests/fixtures/mkset.sh" "$@"; }
# Two configurations with known effective concurrency:
# EC(N) = N / (1 + serial (N - 1)): EC(8) = 2.58 (base), 5.93 (mpsafe).
SEED=11 LABEL=base SERIAL=0.3 mkset "$s/root/h1/base/20261129T000000Z"
SEED=12 LABEL=mpsafe SERIAL=0.0505 mkset "$s/root/h1/mpsafe/20261129T000000Z"

"$FSCONC" report -R "$s/root" h1/base >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no -o: exit 2" || not_ok "no -o: exit 2" "rc=$rc"
"$FSCONC" report -o "$s/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "no set: exit 2" || not_ok "no set: exit 2" "rc=$rc"
"$FSCONC" report -c 120 -o "$s/x" h1/base >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad -c: exit 2" || not_ok "bad -c: exit 2" "rc=$rc"
"$FSCONC" report --max-cv 0 -R "$s/root" -o "$s/x" h1/base >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad --max-cv: exit 2" || not_ok "bad --max-cv: exit 2" "rc=$rc"
# Validity: nothing flagged at the default CV limit (2% noise), every
# level of both sets flagged noisy at 1%.
"$FSCONC" report -R "$s/root" -o "$s/v1" h1/base h1/mpsafe >/dev/null 2>&1
"$FSCONC" report --max-cv 1 -R "$s/root" -o "$s/v2" h1/base h1/mpsafe >/dev/null 2>&1
grep -q '<h2>Validity</h2>' "$s/v1/index.html" &&
    grep -q '<li>nothing flagged</li>' "$s/v1/index.html" &&
    [ "$(grep -c '<li class="slower">.*: noisy: jobs [0-9]*: real time CV' "$s/v2/index.html")" -eq 8 ] &&
    ok "Validity section: nothing flagged; --max-cv 1 flags every level" ||
    not_ok "Validity section: nothing flagged; --max-cv 1 flags every level"
err=$("$FSCONC" report -R "$s/root" -o "$s/x" h1/nosuch 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'nosuch' &&
    ok "unknown set: exit 1, named" || not_ok "unknown set: exit 1, named" "rc=$rc $err"

out=$s/out
err=$("$FSCONC" report -R "$s/root" -o "$out" h1/base h1/mpsafe 2>&1); rc=$?
html=$out/index.html
[ $rc -eq 0 ] && [ -s "$html" ] && [ -z "$err" ] &&
    ok "report of two sets: exit 0, quiet" || not_ok "report of two sets: exit 0, quiet" "rc=$rc $err"
# The page says what it is of: its title, each set's row (label, path,
# levels, batches as the fixture wrote them: 4 levels x 10 batches), its
# sections in order, and it is whole (closed).
want="fsconc report: base and 1 more"
grep -q "<title>$want</title>" "$html" && grep -q "<h1>$want</h1>" "$html" &&
    ok "report of two sets: title and heading name the sets" ||
    not_ok "report of two sets: title and heading name the sets" "$(grep -m 2 '<title>\|<h1>' "$html")"
rows=$(sed -n '/<h2>Result sets<\/h2>/,/<\/table>/p' "$html" | grep '^<tr><td>')
want=
for l in base mpsafe; do
	b=$(grep -vc '^#' "$s/root/h1/$l/20261129T000000Z/runs.tsv")
	want="$want<tr><td>$(($(echo "$want" | grep -c '<tr>') + 1))</td><td>$l</td><td class=\"path\">$s/root/h1/$l/20261129T000000Z</td><td>1,2,4,8</td><td class=\"num\">$b</td></tr>
"
done
[ "$rows
" = "$want" ] && ok "report of two sets: each set's label, path, levels and batches" ||
    not_ok "report of two sets: each set's label, path, levels and batches" "got:
$rows
want:
$want"
order=$(grep -o '^<h2>[^<]*</h2>' "$html" | sed 's/<[^>]*>//g' | tr '\n' ,)
[ "$order" = "Validity,Result sets,Plots,Effective concurrency,Universal Scalability Law,ministat," ] &&
    [ "$(tail -n 1 "$html")" = "</html>" ] &&
    ok "report of two sets: its sections in order, the page closed" ||
    not_ok "report of two sets: its sections in order, the page closed" "$order / $(tail -n 1 "$html")"
# Every level above 1 of both sets in the EC table, each EC inside its
# interval.
bad=$(sed -n '/<h2>Effective concurrency/,/<\/pre>/p' "$html" | awk '
	$1 == "base" || $1 == "mpsafe" { n++; seen[$1 " " $2] = 1
		lo = $6; hi = $7; gsub(/[][,]/, "", lo); gsub(/[][,]/, "", hi)
		if (!($5 + 0 >= lo + 0 && $5 + 0 <= hi + 0)) print "EC outside CI: " $0 }
	END { for (i = 0; i < 2; i++) for (j = 2; j <= 8; j *= 2) {
		k = (i ? "mpsafe" : "base") " " j
		if (!(k in seen)) print "missing " k }
		if (n != 6) print n " rows" }')
[ -z "$bad" ] && ok "report of two sets: EC with its interval at 2, 4, 8 for both" ||
    not_ok "report of two sets: EC with its interval at 2, 4, 8 for both" "$bad"

# Five plots (EC, efficiency, wall, sys per job, idle), each an inline
# <svg> holding drawn paths with data.
n=$(grep -c '<svg' "$html")
[ "$n" -eq 5 ] && ok "five inline SVG plots" || not_ok "five inline SVG plots" "got $n"
bad=$(awk '/<svg/ { insvg = 1; paths = 0; n++ }
	insvg && /<path[^>]* d=.M[ 0-9.,]+L/ { paths++ }
	/<\/svg>/ { if (paths < 3) print "plot " n ": " paths " paths"; insvg = 0 }' "$html")
[ -z "$bad" ] && ok "every plot has path data" || not_ok "every plot has path data" "$bad"
grep -Eq '<script|<link|<img|src=|@import|url\(|href="(https?:)?//' "$html" &&
    not_ok "self-contained: no external assets" "$(grep -Eo '<script|<link|<img|src=[^ ]*|href="[^#][^"]*' "$html" | head -3)" ||
    ok "self-contained: no external assets"
grep -q 'ideal: EC = min(N, 8 CPUs)' "$html" && grep -q 'Idle share per level' "$html" &&
    grep -q 'System time per job' "$html" && grep -q 'Wall time per level' "$html" &&
    ok "EC, wall, sys per job and idle plots" || not_ok "EC, wall, sys per job and idle plots"

# The EC table gives the known answers (within the 2% noise).
ec() {	# label N -> EC column of the table
	sed -n '/<h2>Effective concurrency/,/<\/pre>/p' "$html" |
	    awk -v l="$1" -v n="$2" '$1 == l && $2 == n { print $5 }'
}
b8=$(ec base 8) m8=$(ec mpsafe 8)
awk -v b="$b8" -v m="$m8" 'BEGIN { exit !(b > 2.45 && b < 2.72 && m > 5.6 && m < 6.25) }' &&
    ok "EC(8): base $b8 (2.58), mpsafe $m8 (5.93)" ||
    not_ok "EC(8) known answers" "base '$b8' mpsafe '$m8'"
n=$(grep -c '<h3>N = [0-9]*, \(real\|user\|sys\)</h3>' "$html")
[ "$n" -eq 12 ] && ok "ministat blocks: 4 levels x 3 metrics" || not_ok "ministat blocks" "got $n"
grep -q '^x .*base/jobs-8.real' "$html" && grep -q '^+ .*mpsafe/jobs-8.real' "$html" &&
    ok "ministat blocks name the sets" || not_ok "ministat blocks name the sets"
[ -s "$out/plots/ec.gp" ] && [ -s "$out/plots/ec.dat" ] &&
    ok "gnuplot scripts and data kept" || not_ok "gnuplot scripts and data kept"

# A host (or a run --vary directory) stands for the latest set of each label.
"$FSCONC" report -R "$s/root" -o "$s/out2" h1 >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'mpsafe' "$s/out2/index.html" && grep -q '>base<' "$s/out2/index.html" &&
    ok "a host directory: every label" || not_ok "a host directory: every label" "rc=$rc"

# A workload metric gets its own plot, and its share of the ceiling from
# fsconc limits (key=value): 1e8 * 8 / (2.0 * 8 / 2.58) = 1.29e8 of 1e9.
SEED=13 LABEL=bw METRIC=bytes_per_s mkset "$s/root/h1/bw/20261129T000000Z"
printf 'memcpy_bytes_per_s=1.2e10\nextract.bytes_per_s=1e9\n' >"$s/limits"
"$FSCONC" report -R "$s/root" --limits "$s/limits" -o "$s/out3" h1/bw >/dev/null 2>&1; rc=$?
h3=$s/out3/index.html
[ $rc -eq 0 ] && [ "$(grep -c '<svg' "$h3")" -eq 6 ] && grep -q 'bytes_per_s per level' "$h3" &&
    ok "workload metric plotted" || not_ok "workload metric plotted" "rc=$rc"
share=$(grep -o '<td>bytes_per_s</td><td class="num">[^<]*</td><td class="num">[^<]*</td><td class="num">[^<]*%' "$h3" |
    sed 's/.*>//; s/%//')
grep -q 'Machine limits' "$h3" && grep -q 'memcpy_bytes_per_s' "$h3" &&
    awk -v x="$share" 'BEGIN { exit !(x > 11 && x < 14.5) }' &&
    ok "--limits: ceilings and share ($share%)" || not_ok "--limits: ceilings and share" "share '$share'"

# The file fsconc limits -o writes is the file report --limits reads
# (analysis/report/limits.c): every figure written comes back as a ceiling; a
# line the writer would not write is refused, naming the file and line.
"$FSCONC" limits -j 1 --disk "dir:$s/limdisk" -o "$s/lim" >/dev/null 2>&1; rc=$?
"$FSCONC" report -R "$s/root" --limits "$s/lim" -o "$s/out3b" h1/bw >/dev/null 2>&1; rc2=$?
n=$(grep -c '^[a-z].*=' "$s/lim")
m=$(sed -n '/Machine limits/,/<\/table>/p' "$s/out3b/index.html" | grep -c '<tr><td>')
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$n" -gt 8 ] && [ "$n" -eq "$m" ] &&
    grep -q '^# fsconc limits' "$s/lim" && grep -q '<td>syscall.null.1</td>' "$s/out3b/index.html" &&
    ok "limits -o read back by report --limits ($n ceilings)" ||
    not_ok "limits -o read back by report --limits" "rc=$rc rc2=$rc2 n=$n m=$m"
printf 'a.b=1\nno equals sign\n' >"$s/badlim"
err=$("$FSCONC" report -R "$s/root" --limits "$s/badlim" -o "$s/out3c" h1/bw 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "badlim:2: not a key=value line" &&
    ok "--limits: a line the writer would not write is refused, named" ||
    not_ok "--limits: a line the writer would not write is refused, named" "rc=$rc $err"

# A metric's name comes from the set's files: the reader refuses one the
# writer would not write (it would name the plot's files in the gnuplot
# script), so it cannot run a command.
SEED=14 LABEL=inj METRIC="x';system \"touch pwned\";'" mkset "$s/root/h3/inj/20261129T000000Z"
"$FSCONC" report -R "$s/root" -o "$s/out5" h3/inj >/dev/null 2>"$s/err5"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$s/out5/plots/pwned" ] && [ ! -e pwned ] &&
    grep -q 'runs.tsv:1: bad or repeated metric column' "$s/err5" &&
    ok "metric name with quotes: refused, no command run" ||
    not_ok "metric name with quotes: refused, no command run" "rc=$rc $(cat "$s/err5")"

# Without a meta label, the directory's name is the label: a newline in
# it must not end a gnuplot command and start another.
nl=$(printf 'q\nsystem "touch pwned"\n#')
SEED=15 mkset "$s/root/h4/$nl/20261129T000000Z"
sed -i '/^label=/d' "$s/root/h4/$nl/20261129T000000Z/meta"
"$FSCONC" report -R "$s/root" -o "$s/out6" "h4/$nl" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -e "$s/out6/plots/pwned" ] &&
    ok "label with a newline: no command run" ||
    not_ok "label with a newline: no command run" "rc=$rc $(ls "$s/out6/plots" | grep pwned)"

# ... nor add a line to the plot data after its "# label" comment.
bad=$(grep -hv '^#' "$s/out6/plots/"*.dat | grep -Ev '^$|^"[^"]*"$|^(NaN|[-+0-9.e]+)( (NaN|[-+0-9.e]+))+$')
[ $rc -eq 0 ] && [ -z "$bad" ] &&
    ok "label with a newline: plot data stays data" ||
    not_ok "label with a newline: plot data stays data" "$(echo "$bad" | head -2)"

# Labels are the user's text: escaped everywhere, the EC table too.
SEED=16 LABEL='<i>lab&</i>' mkset "$s/root/h5/tag/20261129T000000Z"
"$FSCONC" report -R "$s/root" -o "$s/out7" h5/tag >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q '<i>' "$s/out7/index.html" &&
    grep -Eq '^&lt;i&gt;lab&amp;&lt;/i&gt; {14}8 ' "$s/out7/index.html" &&
    ok "label with markup: escaped, EC table aligned" ||
    not_ok "label with markup: escaped, EC table aligned" "rc=$rc $(grep -n '<i>' "$s/out7/index.html" | head -3)"

# Labels are data, never gnuplot's command language:
# two quotes in a row, double quotes, backquotes, system(), a newline
# (a directory name) and a backslash.  For report, nightly's report and
# report --history: the page is written, every plot drawn, nothing run,
# and the legend shows the label.
cd "$s" || exit 1
mkdir -p "$s/lo"
i=0
for lab in "it''s" 'say "hi"' 'a`touch pwned-bq`b' \
    'x'"'"'); system("touch pwned-sys"); print('"'"'y' \
    "$(printf 'nl\nsystem("touch pwned-nl")\n#')" 'back\slash @at'; do
	i=$((i + 1))
	d="$s/lab/h$i/$lab"
	SEED=$((30 + i)) mkset "$d/20261101T020000Z"
	SEED=$((40 + i)) mkset "$d/20261102T020000Z"
	case $lab in
	*"
"*)	sed -i '/^label=/d' "$d"/*/meta ;;
	*)	# The label as meta holds it (mkset writes it unquoted).
		for m in "$d"/*/meta; do
			grep -v '^label=' "$m" >"$m.new"
			printf 'label=%s\n' "$lab" >>"$m.new"
			mv "$m.new" "$m"
		done ;;
	esac
	shown=$(printf '%s' "$lab" | tr '\n"' " '" | sed 's/\\\\/\\/g')
	err=$("$FSCONC" report -o "$s/lo/r$i" "$d/20261101T020000Z" 2>&1); rc=$?
	"$FSCONC" nightly -R "$s/lab" --no-run "$d/20261102T020000Z" \
	    -o "$s/lo/n$i" >/dev/null 2>"$s/lo/nerr$i"; rc2=$?
	"$FSCONC" report --history -R "$s/lab" -H "h$i" -o "$s/lo/y$i" \
	    >/dev/null 2>"$s/lo/yerr$i"; rc3=$?
	pw=$(ls "$s" "$s/lo/r$i/plots" "$s/lo/n$i/plots" "$s/lo/y$i/plots" 2>/dev/null | grep pwned)
	[ $rc -eq 0 ] && [ "$(grep -c '<svg' "$s/lo/r$i/index.html")" -eq 5 ] &&
	    [ $rc2 -ne 1 ] && [ $rc2 -ne 2 ] &&
	    [ "$(grep -c '<svg' "$s/lo/n$i/index.html")" -eq 5 ] &&
	    [ $rc3 -eq 0 ] && [ "$(grep -c '<svg' "$s/lo/y$i/index.html")" -eq 1 ] &&
	    [ -z "$pw" ] && [ ! -e /tmp/pwned ] &&
	    ok "label $i as data: report, nightly, --history written, nothing run" ||
	    not_ok "label $i as data: report, nightly, --history written, nothing run" \
		"rc=$rc,$rc2,$rc3 $pw $err $(cat "$s/lo/nerr$i" "$s/lo/yerr$i")"
	# The legend: the label, with " as ' and a newline as a blank.
	esc=$(printf '%s' "$shown" | sed 's/&/\&amp;/g; s/</\&lt;/g')
	sed -n '/<svg/,/<\/svg>/p' "$s/lo/r$i/index.html" | grep -qF "<text>$esc</text>" &&
	    ok "label $i: the legend shows it" ||
	    not_ok "label $i: the legend shows it" "want <text>$esc</text>"
done
cd "$TOP" || exit 1

# Without gnuplot: a clear error, no page.
err=$(PATH=/nonexistent "$FSCONC" report -R "$s/root" -o "$s/out4" h1/base 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'gnuplot: not found' && [ ! -e "$s/out4/index.html" ] &&
    ok "gnuplot missing: clear error" || not_ok "gnuplot missing: clear error" "rc=$rc $err"

# Render it.
rendered "$html"
