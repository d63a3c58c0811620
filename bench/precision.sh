# Wall time to pin EC(2) to +/-2% at 95% on tmpfs with the default
# archive: `fsconc run --precision 2%` against the 2005 shell method
# (mount a fresh tmpfs; time tar xf, alone and two at once; umount;
# ministat's numbers after every round, repeated until EC(2)'s interval
# is as narrow).  The methods alternate, PAIRS times, so that the drift
# of a shared machine falls on both alike.  Target: fsconc <= 1/3 of the
# shell method's time.  Ratios only; nothing here asserts them.
#   PAIRS (default 2), CAP (seconds each attempt may take, default 180),
#   PCT (default 2)
# fsconc's rule is the stricter one: T1's and T2's means and EC(2) all
# within PCT; the shell method stops on EC(2) alone.  Both start with 5
# rounds and add one at a time.
set -u
FSCONC=${FSCONC:-./fsconc}
PAIRS=${PAIRS:-2}
CAP=${CAP:-180}
PCT=${PCT:-2}
if [ "$(id -u)" -ne 0 ]; then
	echo "precision: skipped: needs root (mount)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsconc-bench.XXXXXX")
export FSCONC_RUNDIR="$tmp/rundir"
mkdir -m 700 "$FSCONC_RUNDIR" && mkdir "$tmp/mnt"
cleanup() {
	mountpoint -q "$tmp/mnt" 2>/dev/null && umount "$tmp/mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# The default archive's bytes (mkarchive's defaults), as a file tar reads.
if ! "$FSCONC" mkarchive "$tmp/a.tar" >/dev/null 2>"$tmp/err"; then
	echo "precision: skipped: mkarchive: $(head -n 1 "$tmp/err")"
	exit 0
fi
tar=$(command -v bsdtar || command -v tar)
now() { date +%s.%N; }
# "mean-ms/sd-ms/CV%" of the times (seconds) on stdin.  The absolute
# spread tells noise that comes per batch (the same sd whatever a batch
# lasts) from noise that scales with the work (the same CV).
spread() { awk '{ s += $1; q += $1 * $1; n++ }
	END { m = n > 0 ? s / n : 0; sd = n > 1 ? sqrt((q - n * m * m) / (n - 1)) : 0
	printf "%.1f/%.2f/%.1f", 1000 * m, 1000 * sd, (m > 0 ? 100 * sd / m : 0) }'; }

# One shell round: a fresh tmpfs per level, timed tar xf (x1, then x2).
shell_round() {
	mount -t tmpfs -o size=1g fsconc-bench "$tmp/mnt"
	mkdir "$tmp/mnt/0"
	t0=$(now)
	"$tar" xf "$tmp/a.tar" -C "$tmp/mnt/0"
	t1=$(now)
	umount "$tmp/mnt"
	echo "$t1 $t0" | awk '{ printf "%.6f\n", $1 - $2 }' >>"$tmp/t1"
	mount -t tmpfs -o size=1g fsconc-bench "$tmp/mnt"
	mkdir "$tmp/mnt/0" "$tmp/mnt/1"
	t0=$(now)
	"$tar" xf "$tmp/a.tar" -C "$tmp/mnt/0" &
	"$tar" xf "$tmp/a.tar" -C "$tmp/mnt/1" &
	wait
	t1=$(now)
	umount "$tmp/mnt"
	echo "$t1 $t0" | awk '{ printf "%.6f\n", $1 - $2 }' >>"$tmp/t2"
}

# EC(2)'s half-width in percent (the larger side) from ministat's
# numbers: Fieller's interval of mean(T2)/mean(T1), inverted.
ec_pct() {
	"$FSCONC" stat --json "$tmp/t1" "$tmp/t2" | tr -d ' \n' |
	    sed 's/.*"ratio":{"ratio":\([^,]*\),"lo":\([^,]*\),"hi":\([^,]*\),.*/\1 \2 \3/' |
	    awk '{ if ($2 <= 0 || $3 == "null") { print 1e9; exit }
		a = $1 / $2 - 1; b = 1 - $1 / $3; printf "%.3f\n", (a > b ? a : b) * 100 }'
}

# shell: prints "seconds rounds pct reached spread(T1) spread(T2)"
shell_method() {
	: >"$tmp/t1"
	: >"$tmp/t2"
	start=$(now)
	n=0
	while :; do
		shell_round
		n=$((n + 1))
		[ $n -lt 5 ] && continue
		p=$(ec_pct)
		el=$(echo "$(now) $start" | awk '{ print $1 - $2 }')
		if awk -v p="$p" -v t="$PCT" 'BEGIN { exit !(p <= t) }'; then
			echo "$el $n $p yes $(spread <"$tmp/t1") $(spread <"$tmp/t2")"
			return
		fi
		# The same budget rule as fsconc's: stop if the next round
		# would end after the cap.
		if awk -v e="$el" -v n=$n -v c="$CAP" 'BEGIN { exit !(e + e / n > c) }'; then
			echo "$el $n $p no $(spread <"$tmp/t1") $(spread <"$tmp/t2")"
			return
		fi
	done
}

# fsconc: prints "seconds rounds worst reached spread(T1) spread(T2)"
fsconc_method() {
	rm -rf "$tmp/r"
	start=$(now)
	"$FSCONC" run -a "$tmp/a.tar" -j 1,2 --disk tmpfs:1g --precision "$PCT" \
	    --budget "${CAP}s" -R "$tmp/r" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	el=$(echo "$(now) $start" | awk '{ print $1 - $2 }')
	set=$(ls -d "$tmp"/r/*/*/*/ | head -n 1)
	if [ $rc -ne 0 ] && [ $rc -ne 4 ]; then
		echo "$el 0 - failed:$(head -n 1 "$tmp/err" | tr ' ' _) - -"
		return
	fi
	rounds=$(grep -c '^1	' "$set/runs.tsv")
	ec=$(sed -n 's/^precision_ec\.2=//p' "$set/meta")
	met=$(sed -n 's/^precision_met=//p' "$set/meta")
	# The batches the intervals are made of: ok, not disturbed.
	c1=$(awk -F'\t' '$1 == 1 && $10 == "ok" && $14 == 0 { print $3 }' "$set/runs.tsv" | spread)
	c2=$(awk -F'\t' '$1 == 2 && $10 == "ok" && $14 == 0 { print $3 }' "$set/runs.tsv" | spread)
	echo "$el $rounds $ec $met $c1 $c2"
}

echo "precision: time to pin EC(2) to +/-$PCT% (95%), tmpfs, default archive; $PAIRS pairs, alternating; cap ${CAP}s each"
echo "  (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
: >"$tmp/ratios"
i=1
while [ $i -le "$PAIRS" ]; do
	set -- $(fsconc_method)
	fs=$1 fr=$2 fp=$3 fm=$4 fc1=$5 fc2=$6
	set -- $(shell_method)
	ss=$1 sr=$2 sp=$3 sm=$4 sc1=$5 sc2=$6
	printf "  pair %d: fsconc %6.1fs %4s rounds EC +/-%s%% (%s; T1 %s, T2 %s)   shell (%s) %6.1fs %4s rounds EC +/-%s%% (%s; T1 %s, T2 %s)   ratio fsconc/shell %.2f\n" \
	    $i "$fs" "$fr" "$fp" "$( [ "$fm" = yes ] && echo reached || echo "NOT reached")" "$fc1" "$fc2" \
	    "$(basename "$tar")" "$ss" "$sr" "$sp" "$( [ "$sm" = yes ] && echo reached || echo "NOT reached")" "$sc1" "$sc2" \
	    "$(echo "$fs $ss" | awk '{ print $1 / $2 }')"
	echo "$fs $ss $fp $sp $fc1 $fc2 $sc1 $sc2" | tr / ' ' >>"$tmp/ratios"
	i=$((i + 1))
done
# A side that missed its target within the cap: its time to the target
# is extrapolated as t x (reached / target)^2 (an interval narrows as
# 1/sqrt(n)), and the ratio says so.  The figure is the ratio of the
# mean times, what "fsconc needs a third of the time" means over many
# runs; a mean of per-pair ratios would weigh a pair where both sides
# stopped after a few rounds (6 s against 6 s) like one of minutes.
awk -v t="$PCT" '{ fs = $1 * ($3 > t ? ($3 / t) ^ 2 : 1)
	ss = $2 * ($4 > t ? ($4 / t) ^ 2 : 1)
	F += fs; S += ss; r[++n] = fs / ss; if ($3 > t || $4 > t) x = 1 }
    END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (r[j] < r[i]) { q = r[i]; r[i] = r[j]; r[j] = q }
	med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	printf "  time to +/-%s%%: fsconc %.1f s, shell %.1f s on average over %d pairs: ratio %.2f (target <= 0.33); median of the pairs'"'"' ratios %.2f%s\n",
	    t, F / n, S / n, n, F / S, med,
	    x ? "; extrapolated as t x (reached/target)^2 where the cap came first" : "" }' "$tmp/ratios"
# Per batch, medians over the pairs: mean and sd of T1 and T2 (ms).
awk 'function med(a, n,   i, j, q) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { q = a[i]; a[i] = a[j]; a[j] = q }
	    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { n++; fm1[n] = $5; fs1[n] = $6; fm2[n] = $8; fs2[n] = $9
	sm1[n] = $11; ss1[n] = $12; sm2[n] = $14; ss2[n] = $15 }
    END { printf "  per batch (ms, median over pairs; T1 and T2 mean/sd): fsconc %.1f/%.2f and %.1f/%.2f, shell %.1f/%.2f and %.1f/%.2f\n",
	    med(fm1, n), med(fs1, n), med(fm2, n), med(fs2, n), med(sm1, n), med(ss1, n), med(sm2, n), med(ss2, n) }' "$tmp/ratios"
echo "  (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
