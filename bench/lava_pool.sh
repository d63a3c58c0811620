#!/bin/sh
# lava_pool: the wall time of a campaign on a LAVA pool of D devices,
# simulated from the measured time of a job and of the gap between a
# job's end and the next one's start on the same device (the
# controller's poll and LAVA's scheduler), issue 41.  Each of RUNS
# campaigns draws every job's time uniformly from JOB +/- SPREAD; jobs
# go, in plan order, to the device that frees first, lava-in-flight
# being the pool's size.  Prints, per campaign size and pool, the mean
# wall time and its 95th percentile (bench/README.md sets the measured
# 1- and 2-device walls beside the model's).
#   sh bench/lava_pool.sh [--job S] [--spread S] [--gap S] [--runs N]
#       [--boots "B..."] [--devices "D..."]
# Defaults: the lab of tests/lava/run (2 x 3 boots, 1-vCPU QEMU devices
# on a 2-CPU host, stop 47): jobs of 119-140 s, 20 s between jobs.
usage() {
	sed -n '11,12p' "$0" | sed 's/^#       /       /; s/^#   /usage: /' >&2
	exit 2
}
job=130 spread=10 gap=20 runs=1000 boots="6 24 40" devices="1 2 8 32"
num() { case $2 in ''|*[!0-9]*) echo "lava_pool: $1 '$2': not a whole number" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--job)	num "$1" "$2"; job=$2 ;;
	--spread) num "$1" "$2"; spread=$2 ;;
	--gap)	num "$1" "$2"; gap=$2 ;;
	--runs)	num "$1" "$2"; runs=$2 ;;
	--boots) for b in $2; do num "$1" "$b"; done; boots=$2 ;;
	--devices) for d in $2; do num "$1" "$d"; done; devices=$2 ;;
	*)	usage ;;
	esac
	shift 2
done
awk -v job="$job" -v spread="$spread" -v gap="$gap" -v runs="$runs" \
    -v boots="$boots" -v devices="$devices" 'BEGIN {
	srand(1)
	nb = split(boots, B, " "); nd = split(devices, D, " ")
	printf "job %d +/- %d s, gap %d s, %d campaigns a cell\n",
	    job, spread, gap, runs
	printf "%6s %8s %12s %12s\n", "boots", "devices", "mean wall s",
	    "95th pct s"
	for (i = 1; i <= nb; i++)
		for (j = 1; j <= nd; j++) {
			n = 0
			for (r = 1; r <= runs; r++) {
				for (k = 1; k <= D[j]; k++) free[k] = 0
				end = 0
				for (b = 1; b <= B[i]; b++) {
					m = 1	# the device that frees first
					for (k = 2; k <= D[j]; k++)
						if (free[k] < free[m]) m = k
					t = job - spread + 2 * spread * rand()
					free[m] += gap + t
					if (free[m] > end) end = free[m]
				}
				w[++n] = end
			}
			s = 0
			for (r = 1; r <= n; r++) s += w[r]
			# the 95th percentile, by a sort of the n walls
			for (a = 2; a <= n; a++) {
				x = w[a]
				for (c = a - 1; c >= 1 && w[c] > x; c--)
					w[c + 1] = w[c]
				w[c + 1] = x
			}
			printf "%6d %8d %12.0f %12.0f\n", B[i], D[j], s / n,
			    w[int(0.95 * n)]
		}
}'
