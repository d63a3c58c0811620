"""fsconc's Universal Scalability Law fits against scipy, at test time.

Random sweeps (sigma, kappa, levels, repetitions, noise) are imported
with fsconc import and compared pairwise with fsconc compare --json; the
same batches (the set's jobs-N.real files) are fitted here with
scipy.optimize.curve_fit on log T = log T1 + log(1 + sigma (N-1) +
kappa N (N-1)): estimates, unconstrained intervals (covariance scaled by
the residual variance, Student t), and where fsconc holds a parameter at
0, scipy's bounded fit (trf) for the estimates and the reduced model for
the other parameter's interval.

usage: usl_scipy.py FSCONC WORKDIR [N]     Prints TAP: test number N.
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
tap = sys.argv[3] if len(sys.argv) > 3 else "1"
rng = random.Random(2005)
n_ok = 0
fails = []
root = os.path.join(work, "res")


def close(what, got, want, rel=2e-5, absol=1e-8):
    global n_ok
    if got is not None and abs(got - want) <= max(rel * abs(want), absol):
        n_ok += 1
    else:
        fails.append("%s: fsconc %r, scipy %r" % (what, got, want))


def model(free):
    """log T for the parameters marked free in (a, sigma, kappa)."""
    def f(n, *q):
        p, it = [], iter(q)
        for k in range(3):
            p.append(next(it) if free[k] else 0.0)
        return p[0] + np.log(1 + p[1] * (n - 1) + p[2] * n * (n - 1))
    return f


def fit(n, logt, free, p0):
    f = model(free)
    q0 = [p0[k] for k in range(3) if free[k]]
    q, cov = optimize.curve_fit(f, n, logt, p0=q0, method="lm",
                                xtol=1e-14, ftol=1e-14, maxfev=20000)
    dof = len(n) - len(q)
    tq = stats.t.ppf(0.975, dof)
    full, se, it, jt = [], [], iter(q), iter(np.sqrt(np.diag(cov)))
    for k in range(3):
        full.append(next(it) if free[k] else 0.0)
        se.append(next(jt) if free[k] else float("nan"))
    return full, se, tq


def make_set(label):
    sigma = 0.0 if rng.random() < 0.2 else rng.uniform(0, 0.4)
    kappa = 0.0 if rng.random() < 0.4 else rng.uniform(0, 0.02)
    levels = sorted(set([1] + rng.sample(range(2, 33), rng.randint(2, 7))))
    reps = rng.randint(3, 10)
    noise = rng.uniform(0.01, 0.06)
    args = []
    for lv in levels:
        path = os.path.join(work, "%s-%d.txt" % (label, lv))
        with open(path, "w") as fp:
            for _ in range(reps):
                d = 1 + sigma * (lv - 1) + kappa * lv * (lv - 1)
                fp.write("%.6f\n" % (10 * d * (1 + noise * rng.gauss(0, 1))))
        args.append("%d=%s" % (lv, path))
    out = subprocess.run([fsconc, "import", "-R", root, "--host", "h",
                          "-l", label, "--ncpu", str(levels[-1]),
                          "-m", "archive_sha256=cafe"] + args,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip(), levels


def batches(path, levels):
    n, t = [], []
    for lv in levels:
        with open(os.path.join(path, "jobs-%d.real" % lv)) as fp:
            for line in fp:
                n.append(lv)
                t.append(float(line))
    return np.array(n, dtype=float), np.log(np.array(t))


def check(case, u, path, levels):
    if not u["fitted"]:
        fails.append("%s: not fitted: %s" % (case, u["reason"]))
        return
    n, logt = batches(path, levels)
    full, se, tq = fit(n, logt, (1, 1, 1), [logt[0], 0.05, 0.001])
    for k, name in ((1, "sigma"), (2, "kappa")):
        un = u[name]["unconstrained"]
        close("%s %s unconstrained" % (case, name), un["estimate"], full[k])
        close("%s %s unconstrained lo" % (case, name), un["lo"],
              full[k] - tq * se[k])
        close("%s %s unconstrained hi" % (case, name), un["hi"],
              full[k] + tq * se[k])
    held = [u["sigma"]["boundary"], u["kappa"]["boundary"]]
    if (full[1] < 0 or full[2] < 0) != any(held):
        fails.append("%s: held %r with unconstrained %r" % (case, held,
                                                             full[1:]))
        return
    if not any(held):
        close(case + " t1", u["t1"], math.exp(full[0]))
        return
    # The minimum over sigma, kappa >= 0: scipy's bounded fit.
    f = model((1, 1, 1))
    q, _ = optimize.curve_fit(f, n, logt, p0=[full[0], 0.01, 0.001],
                              bounds=([-np.inf, 0, 0], np.inf),
                              method="trf", xtol=1e-15, ftol=1e-15,
                              gtol=1e-15, max_nfev=20000)
    for k, name in ((1, "sigma"), (2, "kappa")):
        close("%s %s bounded" % (case, name), u[name]["estimate"], q[k],
              rel=1e-4, absol=1e-6)
    # The other parameter's interval: the reduced model's.
    free = (1, 0 if held[0] else 1, 0 if held[1] else 1)
    red, rse, rtq = fit(n, logt, free, [full[0], max(full[1], 0.01),
                                        max(full[2], 0.001)])
    for k, name in ((1, "sigma"), (2, "kappa")):
        p = u[name]
        if p["boundary"]:
            close("%s %s held hi" % (case, name), p["hi"],
                  max(0.0, full[k] + tq * se[k]))
            if p["estimate"] != 0 or p["lo"] != 0:
                fails.append("%s %s held but %r" % (case, name, p))
        else:
            close("%s %s reduced" % (case, name), p["estimate"], red[k])
            close("%s %s reduced lo" % (case, name), p["lo"],
                  max(0.0, red[k] - rtq * rse[k]))
            close("%s %s reduced hi" % (case, name), p["hi"],
                  red[k] + rtq * rse[k])


nheld = 0
for pair in range(12):
    a, la = make_set("a%d" % pair)
    b, lb = make_set("b%d" % pair)
    out = subprocess.run([fsconc, "compare", "--json", "-R", root, a, b],
                         capture_output=True, text=True)
    try:
        j = json.loads(out.stdout)
    except ValueError:
        fails.append("pair %d: compare --json: %s" % (pair, out.stderr))
        continue
    for u, path, levels in zip(j["usl"], (a, b), (la, lb)):
        f = u["fit"]
        if f.get("fitted") and (f["sigma"]["boundary"] or
                                f["kappa"]["boundary"]):
            nheld += 1
        check("pair %d set %d" % (pair, u["set"]), f, path, levels)

name = "USL fits of 24 sets agree with scipy curve_fit (%d numbers, %d " \
       "with a parameter held at 0)" % (n_ok, nheld)
if fails:
    print("not ok %s - %s" % (tap, name))
    for f in fails[:20]:
        print("    " + f)
else:
    print("ok %s - %s" % (tap, name))
