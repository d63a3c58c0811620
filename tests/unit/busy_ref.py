#!/usr/bin/python3
"""Reference table for tests/unit/test_compare.c's gate_busy, from scipy.

    /usr/bin/python3 tests/unit/busy_ref.py

For each number of tries n, the fewest tries over the limit k that
flag a set "disturbed" though every counted try was under it (issue
43): k >= n/5, and P(X >= k) < 0.001 for X ~ Binomial(n, 0.02), the
tail from scipy.stats.binom.sf, not GSL's, which analysis/stats/
validity.c uses.  One C initialiser a line, { n, k }.
"""
import math

from scipy import stats

SHARE, QUIET, ALPHA = 0.20, 0.02, 0.001
TRIES = [1, 2, 3, 5, 8, 10, 15, 20, 25, 35, 40, 50, 69, 100, 150, 300, 1000]


def fewest(n):
    for k in range(max(1, math.ceil(SHARE * n - 1e-9)), n + 1):
        if stats.binom.sf(k - 1, n, QUIET) < ALPHA:
            return k
    return 0                    # never flagged


def main():
    print("/* tests/unit/busy_ref.py: fewest tries over the limit flagged */")
    for n in TRIES:
        print("{ %d, %d }," % (n, fewest(n)))


main()
