"""fsconc stat --json against scipy, computed independently at test time.

Student's and Welch's t (statistic, p, interval from t.ppf), Mann-Whitney
U (scipy's exact and asymptotic, tie- and continuity-corrected p), and
the ratio-of-means interval, found here by root-finding the boundary of
Fieller's acceptance region |mb - r ma| / sqrt(qb + r^2 qa) <= t instead
of by the closed form fsconc uses.

usage: stat_scipy.py FSCONC WORKDIR     Prints TAP.
"""
import json
import math
import os
import random
import subprocess
import sys

import numpy as np
from scipy import optimize, stats

fsconc, work = sys.argv[1:3]
rng = random.Random(1983)
n_ok = 0
fails = []


def close(what, got, want, rel=1e-9, absol=1e-12):
    global n_ok
    if got is None or want is None or not math.isfinite(want):
        ok = got is None and (want is None or not math.isfinite(want))
    else:
        ok = abs(got - want) <= max(rel * abs(want), absol)
    if ok:
        n_ok += 1
    else:
        fails.append("%s: fsconc %r, scipy %r" % (what, got, want))


def sample(n, kind):
    if kind == "ties":
        return [float(rng.randint(0, 6)) for _ in range(n)]
    if kind == "times":
        return [round(rng.gauss(14.64, 0.4), 2) for _ in range(n)]
    return [rng.gauss(rng.uniform(-5, 50), rng.uniform(0.5, 10))
            for _ in range(n)]


cases = 0
kinds = {"exact": 0, "asymptotic": 0, "fieller": 0, "delta": 0}
for case in range(60):
    kind = rng.choice(["normal", "ties", "times"])
    na = rng.choice([3, 4, 5, 7, 10, 20, 45, 60, 200])
    nb = rng.choice([3, 4, 6, 8, 12, 30, 50, 80, 150])
    a = sample(na, kind)
    b = [x * rng.uniform(0.8, 1.6) + rng.uniform(-1, 3)
         for x in sample(nb, kind)]
    if kind == "times":
        b = [round(x, 2) for x in b]
    conf = rng.choice([80, 90, 95, 98, 99, 99.5])
    for name, v in (("a", a), ("b", b)):
        with open(os.path.join(work, name), "w") as f:
            f.write("".join("%r\n" % x for x in v))
    p = subprocess.run([fsconc, "stat", "--json", "-c", str(conf), "a", "b"],
                       cwd=work, capture_output=True, text=True)
    if p.returncode != 0:
        fails.append("case %d: exit %d %s" % (case, p.returncode, p.stderr))
        continue
    j = json.loads(p.stdout)
    cases += 1
    alpha = 1 - conf / 100
    A, B = np.array(a), np.array(b)
    for k, v in enumerate((A, B)):
        d = j["datasets"][k]
        close("mean", d["mean"], float(np.mean(v)), 1e-12)
        close("stddev", d["stddev"], float(np.std(v, ddof=1)), 1e-10)
        close("median", d["median"], float(np.sort(v)[len(v) // 2]), 0)
    c = j["comparisons"][0]
    va, vb = np.var(A, ddof=1), np.var(B, ddof=1)

    # Student
    r = stats.ttest_ind(B, A, equal_var=True)
    df = na + nb - 2
    se = math.sqrt(((na - 1) * va + (nb - 1) * vb) / df * (1 / na + 1 / nb))
    s = c["student"]
    close("student t", s["t"], r.statistic, 1e-9)
    close("student p", s["p"], r.pvalue, 1e-7, 1e-15)
    close("student hw", s["diff_hw"], stats.t.ppf(1 - alpha / 2, df) * se, 1e-8)

    # Welch
    r = stats.ttest_ind(B, A, equal_var=False)
    qa, qb = va / na, vb / nb
    dfw = (qa + qb) ** 2 / (qa ** 2 / (na - 1) + qb ** 2 / (nb - 1))
    w = c["welch"]
    close("welch t", w["t"], r.statistic, 1e-9)
    close("welch p", w["p"], r.pvalue, 1e-7, 1e-15)
    close("welch df", w["df"], dfw, 1e-10)
    close("welch hw", w["diff_hw"],
          stats.t.ppf(1 - alpha / 2, dfw) * math.sqrt(qa + qb), 1e-8)

    # Mann-Whitney
    m = c["mann_whitney"]
    method = "exact" if m["exact"] else "asymptotic"
    kinds[method] += 1
    kinds[c["ratio"]["method"]] += 1
    if m["exact"] and len(set(a + b)) < na + nb:
        fails.append("case %d: exact p claimed with ties" % case)
    r = stats.mannwhitneyu(A, B, alternative="two-sided", method=method,
                           use_continuity=True)
    close("mwu U", m["u"], float(r.statistic), 0)
    close("mwu p (%s)" % method, m["p"], float(r.pvalue), 1e-7, 1e-15)

    # Ratio mean(b) / mean(a), Fieller with Welch-Satterthwaite df.
    ma, mb = float(np.mean(A)), float(np.mean(B))
    rho = mb / ma
    dfr = (qb + rho ** 2 * qa) ** 2 / (qb ** 2 / (nb - 1) +
                                      rho ** 4 * qa ** 2 / (na - 1))
    t = stats.t.ppf(1 - alpha / 2, dfr)
    rr = c["ratio"]
    close("ratio", rr["ratio"], rho, 1e-12)
    close("ratio df", rr["df"], dfr, 1e-9)
    if t * t * qa / (ma * ma) < 1:
        g = lambda x: abs(mb - x * ma) / math.sqrt(qb + x * x * qa) - t
        span = abs(rho) + 1
        while g(rho + span) < 0 or g(rho - span) < 0:
            span *= 2
        lo = optimize.brentq(g, rho - span, rho, xtol=1e-14, rtol=1e-13)
        hi = optimize.brentq(g, rho, rho + span, xtol=1e-14, rtol=1e-13)
        if rr["method"] != "fieller":
            fails.append("case %d: expected a bounded Fieller interval" % case)
        close("fieller lo", rr["lo"], lo, 1e-8)
        close("fieller hi", rr["hi"], hi, 1e-8)
    else:
        if rr["method"] != "delta" or rr["bounded"]:
            fails.append("case %d: expected the delta-method fallback" % case)

print("1..1")
if fails or cases == 0:
    print("not ok 1 - stat_scipy: %d of %d checks differ" %
          (len(fails), len(fails) + n_ok))
    for f in fails[:10]:
        print("# " + f)
else:
    print("ok 1 - stat_scipy: %d checks on %d data set pairs agree with "
          "scipy %s (Mann-Whitney: %d exact, %d asymptotic; ratio: %d "
          "Fieller, %d delta)" % (n_ok, cases,
          __import__("scipy").__version__, kinds["exact"],
          kinds["asymptotic"], kinds["fieller"], kinds["delta"]))
