# fsconc history and report --history: nights imported by
# tests/fixtures/mknights.sh with a planted EC shift and the kernel
# configuration change behind it; the page rendered by headless Chromium.
# (The 60-night known answers are tests/unit/test_history.c; rates in
# bench/history.sh.)
. "$FSCONC_TOP/tests/lib.sh"

s=$(scratch)
# In memory where there is /dev/shm: import fsyncs every set, and 48 of
# them on a loaded disk take half a minute.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	root=$(mktemp -d /dev/shm/fsconc-history.XXXXXX)
	at_exit "rm -rf '$root'"
else
	root=$s/root
fi
nights() { FSCONC=$FSCONC sh "$TOP/tests/fixtures/mknights.sh" "$root"; }
# alpha: -10% from night 13 with a new kernel ident; beta: no change, a
# label and a meta value that are markup.
HOST=alpha NIGHTS=24 SHIFT=0.10 SHIFT_AT=13 SEED=21 LEVELS="1 4 8" nights ||
    not_ok "mknights alpha"
HOST=beta LABEL='x<b>&y' NIGHTS=24 SEED=22 KEY=kernel.config.HZ \
    OLD='<script>alert(1)</script>' nights || not_ok "mknights beta"
# A label with an escape sequence and a newline (a directory name).
esc=$(printf 'e\033[2Jx\ny')
HOST=gamma LABEL=$esc NIGHTS=8 SEED=23 nights || not_ok "mknights gamma"
# A run that is still going (start, no end) is left out.
inc=$root/alpha/base/20261201T030000Z
mkdir -p "$inc"
printf 'format=1\nhost=alpha\nlabel=base\nstart=2026-12-01T03:00:00Z\n' >"$inc/meta"
# nightly wrote a report for one night: the page links to it.
mkdir -p "$root/alpha/base/20261005T030000Z/report"
echo '<html></html>' >"$root/alpha/base/20261005T030000Z/report/index.html"

out=$("$FSCONC" history -R "$root" 2>"$s/err"); rc=$?
[ $rc -eq 0 ] && [ ! -s "$s/err" ] &&
    echo "$out" | grep -q '^alpha base N=4: 24 nights' &&
    echo "$out" | grep -q '^alpha base N=8: 24 nights, 1 change point$' &&
    echo "$out" | grep -q '^beta x<b>&y N=8: 24 nights, 0 change points$' &&
    ok "history: a series per host, label and level" ||
    not_ok "history: a series per host, label and level" "rc=$rc $(cat "$s/err"; echo "$out" | grep nights)"
printf '%s' "$out" | grep -q "$(printf '\033')" &&
    not_ok "no control character from a label reaches the terminal" ||
    { echo "$out" | grep -q '^gamma e \[2Jx y N=8: 8 nights' &&
      ok "no control character from a label reaches the terminal" ||
      not_ok "no control character from a label reaches the terminal" "$(echo "$out" | grep gamma)"; }
echo "$out" | grep -q '^# 1 incomplete or unreadable sets left out' &&
    ! echo "$out" | grep -q 20261201T030000Z &&
    ok "an incomplete set is left out and counted" ||
    not_ok "an incomplete set is left out and counted" "$(echo "$out" | head -3)"
# The change: night 13 (2026-10-13) +/- 1, about -10%, the key named.
chg=$(echo "$out" | sed -n '/^alpha base N=8/,/^$/p' | grep -A4 '  change at')
echo "$chg" | grep -Eq 'change at 2026-10-1[234]T03:00:00Z: .* -(9|10|11)\.[0-9]+% \[' &&
    echo "$chg" | grep -q 'kernel.ident: GENERIC -> GENERIC-DEBUG' &&
    echo "$chg" | grep -q 'before 2026-10-1[123]T.*alpha/base/2026101[123]T030000Z' &&
    ok "the change: its night, size, interval, sets and kernel key" ||
    not_ok "the change: its night, size, interval, sets and kernel key" "$chg"

# A night's figure and interval: one number of decimals down a series
# (never 3.15 beside 3.219).
dec=$(echo "$out" | sed -n '/^alpha base N=8/,/^$/p' |
    sed -n 's/^  [0-9][^ ]*  \([^ ]*\) \[\([^,]*\), \([^]]*\)\].*/\1 \2 \3/p' |
    awk '{ for (i = 1; i <= NF; i++) {
	d = index($i, ".") ? length($i) - index($i, ".") : 0; c[d]++ } }
	END { for (d in c) print d }')
[ "$(echo "$dec" | wc -l)" -eq 1 ] && [ -n "$dec" ] &&
    ok "history: one number of decimals down a series" ||
    not_ok "history: one number of decimals down a series" "$dec $(echo "$out" | sed -n '/^alpha base N=8/,/^$/p')"

if command -v python3 >/dev/null 2>&1; then
	"$FSCONC" history -R "$root" -H alpha -j 8 --json >"$s/h.json"
	python3 - "$s/h.json" >"$s/json.out" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "e-divisive" and d["metric"] == "ec", d
assert len(d["series"]) == 1, len(d["series"])
s = d["series"][0]
assert (s["host"], s["label"], s["jobs"]) == ("alpha", "base", 8), s
assert len(s["points"]) == 24
p = s["points"][0]
assert p["lo"] < p["value"] < p["hi"] and p["n"] == 5, p
c, = s["changes"]
assert c["stamp"][:9] == "2026-10-1" and c["lo"] < c["shift"] < c["hi"] < 0, c
assert {"key": "kernel.ident", "old": "GENERIC", "new": "GENERIC-DEBUG"} in c["changed"], c
print("ok")
EOF
	[ "$(cat "$s/json.out")" = ok ] && ok "--json: the same, one filtered series" ||
	    not_ok "--json: the same, one filtered series" "$(cat "$s/json.out")"
else
	skip "--json: the same, one filtered series" "python3 not installed"
fi

n=$("$FSCONC" history -R "$root" -l base --since 2026-10-20 --metric real | grep -c '^  2026-10-2')
[ "$n" -eq 15 ] && ok "-l, --since, --metric real: 5 nights x 3 levels" ||
    not_ok "-l, --since, --metric real" "got $n lines"
"$FSCONC" history -R "$root" -H nosuch >/dev/null 2>"$s/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'no complete result set' "$s/err" &&
    ok "nothing matches: exit 1, said" || not_ok "nothing matches: exit 1, said" "rc=$rc $(cat "$s/err")"

for bad in "--since 2026-13-01" "--since yesterday" "-j 0" "-j x" \
    "--metric a/b" "--alpha 1" "-t title" "extra"; do
	# shellcheck disable=SC2086
	"$FSCONC" history -R "$root" $bad >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || { not_ok "usage errors exit 2" "$bad: rc=$rc"; bad=fail; break; }
done
[ "$bad" != fail ] && ok "usage errors exit 2"
# The same series from the database (db sync into SQLite) as from disk.
"$FSCONC" db sync -R "$root" --db "$s/h.db" >/dev/null 2>"$s/err" &&
    "$FSCONC" history -R "$root" --json >"$s/disk.json" 2>/dev/null &&
    "$FSCONC" history --db "$s/h.db" --json >"$s/db.json" 2>"$s/err"; rc=$?
# (The run still going is left out by both: on disk it counts as skipped.)
sed -i 's/"skipped": 1,/"skipped": 0,/' "$s/disk.json"
[ $rc -eq 0 ] && [ -s "$s/db.json" ] && cmp -s "$s/disk.json" "$s/db.json" &&
    ok "history --db: the series and change points read from disk" ||
    not_ok "history --db: the series and change points read from disk" \
    "rc=$rc $(cat "$s/err"; diff "$s/disk.json" "$s/db.json" | head -5)"
"$FSCONC" history --db "postgresql://u:secret@/db?host=$s/nosuch" \
    >/dev/null 2>"$s/err"; rc=$?
[ $rc -eq 1 ] && [ -s "$s/err" ] && ! grep -q secret "$s/err" &&
    ok "--db unreachable: said without the password, exit 1" ||
    not_ok "--db unreachable: said without the password, exit 1" \
    "rc=$rc $(cat "$s/err")"
"$FSCONC" history -R "$root" --db x >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "-R and --db: exit 2" || not_ok "-R and --db: exit 2" "rc=$rc"
FSCONC_DB=postgresql://nowhere "$FSCONC" history -R "$root" -H alpha >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok "-R reads the sets on disk even with FSCONC_DB set" ||
    not_ok "-R reads the sets on disk even with FSCONC_DB set" "rc=$rc"

# The dashboard: history -o DIR; report --history is another name for it.
"$FSCONC" report --history -R "$root" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "report --history without -o: exit 2" || not_ok "report --history without -o: exit 2" "rc=$rc"
"$FSCONC" history -R "$root" --json -o "$s/x" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$s/x" ] && ok "history --json -o: exit 2, nothing made" ||
    not_ok "history --json -o: exit 2, nothing made" "rc=$rc"
"$FSCONC" history -R "$root" -t title >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "history -t without -o: exit 2" || not_ok "history -t without -o: exit 2" "rc=$rc"
dash=$s/dash
err=$("$FSCONC" history -R "$root" -o "$dash" 2>&1 >/dev/null); rc=$?
html=$dash/index.html
[ $rc -eq 0 ] && [ -s "$html" ] && [ -z "$err" ] &&
    ok "history -o writes the page" || not_ok "history -o writes the page" "rc=$rc $err"
err=$("$FSCONC" report --history -R "$root" -o "$s/dash2" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && [ -z "$err" ] &&
    [ "$(grep -v 'Made by fsconc' "$html")" = "$(grep -v 'Made by fsconc' "$s/dash2/index.html")" ]; then
	ok "report --history -o: the same page"
else
	not_ok "report --history -o: the same page" "rc=$rc $err"
fi
n=$(grep -c '<svg' "$html")
[ "$n" -eq 3 ] && ok "a plot per host and label" || not_ok "a plot per host and label" "got $n"
grep -Eq '<script|<link|<img|src=|@import|url\(|href="(https?:)?//' "$html" &&
    not_ok "self-contained, markup escaped" "$(grep -Eo '<script|<link|<img|src=[^ ]*|href="[^#][^"]*' "$html" | head -3)" ||
    { grep -q 'x&lt;b&gt;&amp;y' "$html" && ok "self-contained, markup escaped" ||
      not_ok "self-contained, markup escaped" "label not escaped"; }
grep -q '<code>kernel.ident</code>: GENERIC &rarr; GENERIC-DEBUG' "$html" &&
    grep -Eq '<td class="num"><span class="slower">-(9|10|11)\.[0-9]+%</span> \[' "$html" &&
    ok "the change point with its shift and configuration change" ||
    not_ok "the change point with its shift and configuration change"
# Every night linked, relative, to its report or else its set; all exist.
if command -v python3 >/dev/null 2>&1; then
	res=$(python3 - "$html" <<'EOF'
import os, re, sys, urllib.parse
page = sys.argv[1]
links = set(re.findall(r'href="([^"#][^"]*)"', open(page).read()))
d = os.path.dirname(page)
miss = [l for l in links if l.startswith("/") or
        not os.path.exists(os.path.join(d, urllib.parse.unquote(l)))]
rep = [l for l in links if l.endswith("20261005T030000Z/report/index.html")]
print(len(links), len(rep), " ".join(miss))
EOF
)
	[ "$res" = "56 1 " ] &&
	    ok "56 nights linked, relative, to nightly's report where there is one" ||
	    not_ok "56 nights linked" "$res"
else
	skip "56 nights linked" "python3 not installed"
fi

rendered "$html"
