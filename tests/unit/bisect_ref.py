#!/usr/bin/python3
"""Reference figures for tests/unit/test_bisect.c, from scipy and numpy.

    /usr/bin/python3 tests/unit/bisect_ref.py

Prints the C initialisers the unit test holds, computed here by another
route than analysis/bisect/bisect_rule.c takes:
  - the endpoints: Welch's t, df and p (scipy.stats.ttest_ind with
    equal_var=False) and the two one-sided tests' interval, whose t
    quantile is scipy.stats.t.ppf at 1 - alpha_look;
  - a step: the log posterior odds that the culprit is at or before it,
    over every position of the culprit (uniform prior), each position's
    Bayes factor of two groups against one the JZS factor of Rouder et
    al. (2009) in its t form: the pooled two-sample t of the split
    (scipy.stats.ttest_ind), integrated by scipy's quad over the
    inverse gamma (1/2, r^2/2) mixing density (scipy.stats.invgamma),
    r = sqrt(2)/2; not by the C code's R^2 form and trapezoid rule;
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
from scipy import integrate, optimize, special, stats

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

# A history of 7 commits: boots of each (None: not measured; a string
# marks one skipped, whose boots are left out), and the steps judged.
HISTORY = [[10.1, 9.8, 10.3, 10.0], [10.2, 9.9], None, [10.7, 10.5],
           None, ("skipped", [13.0]), [11.2, 10.9, 11.5, 11.0]]
HISTORY_AT = (1, 3)

R_SCALE = math.sqrt(2) / 2


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


def jzs_log_bf(left, right):
    """log JZS Bayes factor of two groups against one, by their t."""
    n = len(left) + len(right)
    nu = n - 2
    neff = len(left) * len(right) / n
    t = stats.ttest_ind(right, left, equal_var=True).statistic
    mix = stats.invgamma(0.5, scale=R_SCALE ** 2 / 2)

    def log_f(g):
        return (-0.5 * math.log1p(neff * g) - (nu + 1) / 2 *
                math.log1p(t * t / ((1 + neff * g) * nu)) + mix.logpdf(g))

    # quad over log g about the integrand's peak, which can lie far out
    top = optimize.minimize_scalar(lambda u: -log_f(math.exp(u)),
                                   bounds=(-30, 60), method="bounded").x
    peak = log_f(math.exp(top))
    val, _ = integrate.quad(lambda u: math.exp(log_f(math.exp(u)) - peak +
                                               u), -60, top, limit=200,
                            epsabs=0, epsrel=1e-13)
    val2, _ = integrate.quad(lambda u: math.exp(log_f(math.exp(u)) -
                                                peak + u), top, 200,
                             limit=200, epsabs=0, epsrel=1e-13)
    return peak + math.log(val + val2) + (nu + 1) / 2 * math.log1p(
        t * t / nu)


def culprit_lodds(history, at):
    """log odds that the culprit is at or before commit at."""
    n = len(history)
    boots = [b if isinstance(b, list) else [] for b in history]
    lbf = []
    for c in range(1, n):
        left = [x for b in boots[:c] for x in b]
        right = [x for b in boots[c:] for x in b]
        lbf.append(jzs_log_bf(left, right))
    lbf = np.array(lbf)
    return (special.logsumexp(lbf[:at]) - special.logsumexp(lbf[at:]))


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
    print("/* tests/unit/bisect_ref.py: a step's log odds, bad:good */")
    for name, g, b, x in STEPS:
        print("/* %s */ %s," % (name, cnum(culprit_lodds([g, x, b], 1))))
    for i in HISTORY_AT:
        print("/* history_%d */ %s," % (i, cnum(culprit_lodds(HISTORY, i))))
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
