#!/bin/sh
# dist/lava/guest-run.sh ARGS: inside a LAVA job's guest, from its test
# definition (fsconc-run.yaml), with lava-test-case on PATH.  Runs
# fsconc run ARGS beside this script, reports each figure as a LAVA
# measurement, and prints the whole result set on the console as a
# gzipped tar in base64 between two marker lines, the first naming its
# size and SHA-256:
#	FSCONC-SET-BEGIN NAME BYTES SHA256
#	...base64, 76 columns...
#	FSCONC-SET-END NAME
# Why the log: it is the one channel every LAVA lab keeps whole and
# serves through its API (/api/v0.2/jobs/ID/logs/), with no artifact
# server or network in the guest; the controller trusts nothing of it
# until the size and checksum match and fsconc's own reader has read
# the set (scripts/lava fetchset).
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
out=/var/tmp/fsconc-guest
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086
"$here/fsconc" run -R "$out/sets" $1 >"$out/run.log" 2>&1
rc=$?
cat "$out/run.log"
set=$(sed -n 's/^[Rr]esult set: //p' "$out/run.log" | tail -n 1)
if [ $rc -ne 0 ] || [ ! -d "$set" ]; then
	lava-test-case fsconc-run --result fail
	exit 0
fi
lava-test-case fsconc-run --result pass
# Each batch's real time, and each worker count's mean: jobs-N.real
# holds one batch a line.
for f in "$set"/jobs-*.real; do
	[ -f "$f" ] || continue
	j=$(basename "$f" .real)
	awk -v j="$j" '$1 ~ /^[0-9.]+$/ { n++; s += $1
		printf "%s-real-batch-%d %s\n", j, n, $1 }
	    END { if (n) printf "%s-real-mean %.9f\n", j, s / n }' "$f" |
	while read -r name x; do
		lava-test-case "$name" --result pass --measurement "$x" --units s
	done
done
name=$(basename "$set")
tar -C "$(dirname "$set")" -czf "$out/set.tar.gz" "$name"
echo "FSCONC-SET-BEGIN $name $(wc -c <"$out/set.tar.gz") $(sha256sum "$out/set.tar.gz" | cut -d' ' -f1)"
base64 -w 76 "$out/set.tar.gz"
echo "FSCONC-SET-END $name"
