#!/usr/bin/python3
"""Reference figures for tests/unit/test_bisect.c, from scipy and numpy.

    /usr/bin/python3 tests/unit/bisect_ref.py

Prints the C initialisers the unit test holds, computed here by another
route than analysis/bisect/bisect_rule.c takes:
  - the endpoints: Welch's t, df and p (scipy.stats.ttest_ind with
    equal_var=False) and the two one-sided tests' interval, whose t
    quantile is scipy.stats.t.ppf at 1 - alpha_look;
  - a step: the log Bayes factor of the two groupings as the ratio of
    the marginal likelihoods of two normal linear models (flat prior on
    the coefficients, 1/s on s): (2 pi)^-(N-p)/2 |X'X|^-1/2
    Gamma(nu/2) (RSS/2)^-nu/2 / 2, with the design matrices built
    explicitly and RSS by least squares, not by group sums;
  - the looks of boots auto (analysis/stats/looks.c): a look's p over
    the looks 3..10 as one minus the multivariate normal probability
    (scipy's, Genz's algorithm) that every look's z, corr(Z_j, Z_k) =
    sqrt(n_j / n_k), stays inside the boundary through its z; and the
    level a look whose boundary is crossed with chance 5% (brentq).
    Genz's is a randomised rule: 6 figures, the same on every run of
    one scipy, and the unit test allows for its error.
"""
import math

import numpy as np
from scipy import optimize, special, stats

ALPHA_LOOK = 0.01 / 8          # the default rule: alpha 0.01, looks 3..10

ENDS = [
    ("ends_apart", [10.1, 9.8, 10.3, 10.0], [11.2, 10.9, 11.5, 11.0]),
    ("ends_close", [10.1, 9.8, 10.3, 10.0, 9.9], [10.2, 10.0, 10.4, 9.9]),
    ("ends_unequal", [1.91, 1.88, 1.95], [1.52, 1.61, 1.47, 1.58, 1.55]),
]

STEPS = [
    ("step_bad", [10.1, 9.8, 10.3, 10.0], [11.2, 10.9, 11.5, 11.0],
     [11.1, 11.3]),
    ("step_good", [10.1, 9.8, 10.3, 10.0], [11.2, 10.9, 11.5, 11.0],
     [10.0, 10.2, 9.9]),
    ("step_one", [10.1, 9.8, 10.3, 10.0], [11.2, 10.9, 11.5, 11.0],
     [10.6]),
    ("step_uneven", [1.91, 1.88, 1.95], [1.52, 1.61, 1.47, 1.58, 1.55],
     [1.60]),
]


LOOKS = (3, 10)                 # boots auto: looks after 3..10 boots
LOOKS_P = [0.01, 0.001, 0.1011915072182954]


def cross(z, first, cap):
    """The chance that some look's |Z| reaches z with no difference."""
    n = np.arange(first, cap + 1)
    c = np.sqrt(np.minimum.outer(n, n) / np.maximum.outer(n, n))
    k = len(n)
    return 1 - stats.multivariate_normal.cdf(
        np.full(k, z), mean=np.zeros(k), cov=c, lower_limit=np.full(k, -z),
        maxpts=500000, abseps=1e-7, releps=1e-7)


def cnum(v):
    return repr(float(v))


def log_ml(y, groups):
    """log marginal likelihood of y with one mean per group label."""
    labels = sorted(set(groups))
    x = np.array([[1.0 if g == lab else 0.0 for lab in labels]
                  for g in groups])
    y = np.array(y)
    beta, _, _, _ = np.linalg.lstsq(x, y, rcond=None)
    rss = float(np.sum((y - x @ beta) ** 2))
    n, p = x.shape
    nu = n - p
    sign, logdet = np.linalg.slogdet(x.T @ x)
    return (-(nu / 2) * math.log(2 * math.pi) - 0.5 * logdet +
            special.gammaln(nu / 2) - (nu / 2) * math.log(rss / 2) -
            math.log(2))


def main():
    print("/* tests/unit/bisect_ref.py: Welch on the endpoints */")
    for name, g, b in ENDS:
        r = stats.ttest_ind(b, g, equal_var=False)
        va, vb = np.var(g, ddof=1) / len(g), np.var(b, ddof=1) / len(b)
        df = (va + vb) ** 2 / (va ** 2 / (len(g) - 1) +
                               vb ** 2 / (len(b) - 1))
        d = np.mean(b) - np.mean(g)
        q = stats.t.ppf(1 - ALPHA_LOOK, df)
        se = math.sqrt(va + vb)
        print("/* %s */ { %s, %s, %s, %s, %s }," % (
            name, cnum(r.statistic), cnum(df), cnum(r.pvalue),
            cnum(d - q * se), cnum(d + q * se)))
    print("/* tests/unit/bisect_ref.py: log Bayes factors, bad:good */")
    for name, g, b, x in STEPS:
        y = g + b + x
        lg = log_ml(y, ["g"] * len(g) + ["b"] * len(b) + ["g"] * len(x))
        lb = log_ml(y, ["g"] * len(g) + ["b"] * len(b) + ["b"] * len(x))
        print("/* %s */ %s," % (name, cnum(lb - lg)))
    print("/* tests/unit/bisect_ref.py: p over the looks %d..%d */" %
          LOOKS)
    for p in LOOKS_P:
        print("{ %s, %.6g }," % (cnum(p), cross(stats.norm.isf(p / 2),
                                               *LOOKS)))
    z = optimize.brentq(lambda z: cross(z, *LOOKS) - 0.05, 2.3, 2.6,
                        xtol=1e-6)
    print("/* a look's confidence */ %.6g," %
          (100 * (1 - 2 * stats.norm.sf(z))))


if __name__ == "__main__":
    main()
