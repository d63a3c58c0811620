"""Boot campaigns over several machines (analysis/campaign/estimate.c)
against statsmodels, scipy and the textbook nested ANOVA.

campaign_machines.py TOOL DIR: writes campaigns whose boots ran on several
machines as TSV (config, boot, batch, t1, tn, machine) into DIR, runs TOOL
(tests/e2e/campaign_tsv.c) on each and recomputes its JSON independently:
- the three-level variance components of a balanced design from the
  nested ANOVA's mean squares (sigma_e^2 = MSE, sigma_boot^2 = (MS_boot -
  MSE) / n, sigma_machine^2 = (MS_machine - MS_boot) / (b n): Searle,
  Casella and McCulloch, "Variance Components", 1992, section 2.3-2.4);
- a configuration's interval, Student t over machine means (scipy.stats.t);
- each comparison with the baseline within machine: statsmodels OLS of the
  boot values on C(config) + C(machine), its coefficient, interval, t,
  p and residual df;
- the machine apart: statsmodels OLS on C(config) + [boot on machine m],
  the smallest p per machine against 1% over every test (Bonferroni), the
  machines named, and the regressions without each (OLS again, Holm).
Prints one line per campaign, "ok WHAT" or "not ok WHAT" with indented
details, for tests/e2e/campaign_stats.sh to number.
"""
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats

CONF = 95.0
ALPHA_MACH = 0.01
RTOL = 1e-7
N = 2


def generate(rng, configs, machines, boots, batches, sd_m, sd_b, sd_e,
             offset=None):
    """configs: {name: (m1, mn)}; machines: [names]; boots: per machine
    and config (an int, or {(config, machine): count}); offset:
    {(config, machine): shift in units of the mean} planted on those
    boots.  Machine effect shared by every config, as a board's."""
    rows = []
    meff = {m: sd_m * rng.standard_normal() for m in machines}
    boot = 0
    for name, (m1, mn) in configs.items():
        for m in machines:
            nb = boots if isinstance(boots, int) else \
                boots.get((name, m), 0)
            for _ in range(nb):
                boot += 1
                be = sd_b * rng.standard_normal()
                sh = (offset or {}).get((name, m), 0.0)
                for k in range(1, batches + 1):
                    t1 = m1 * (1 + meff[m] + be + sh +
                               sd_e * rng.standard_normal())
                    tn = mn * (1 + meff[m] + be + sh +
                               sd_e * rng.standard_normal())
                    rows.append((name, boot, k, repr(t1), repr(tn), m))
    return rows


def frame(rows):
    """One row a boot: config, machine, boot, the boot means at 1 and N,
    EC(N) of the boot, the batches."""
    d = {}
    for name, b, _k, t1, tn, m in rows:
        e = d.setdefault(b, dict(cfg=name, mach=m, boot=b, b1=[], bn=[]))
        e["b1"].append(float(t1))
        e["bn"].append(float(tn))
    out = []
    for e in d.values():
        y1, yn = np.mean(e["b1"]), np.mean(e["bn"])
        out.append(dict(cfg=e["cfg"], mach=e["mach"], boot=e["boot"],
                        y1=y1, yn=yn, ec=N * y1 / yn, b1=e["b1"],
                        bn=e["bn"]))
    return pd.DataFrame(out)


class Check:
    def __init__(self):
        self.bad = []

    def near(self, what, got, want, rtol=RTOL, atol=1e-10):
        if got is None or want is None or not np.isfinite(want):
            if not (got is None or (isinstance(got, float) and
                                    math.isnan(got))) or \
                    (want is not None and np.isfinite(want)):
                self.bad.append("%s: got %r, want %r" % (what, got, want))
            return
        if not math.isclose(got, want, rel_tol=rtol, abs_tol=atol):
            self.bad.append("%s: got %r, want %r" % (what, got, want))

    def true(self, what, cond):
        if not cond:
            self.bad.append(what)


def anova3(df, cfg, col, bcol):
    """Textbook nested ANOVA, balanced: machines a, boots b a machine,
    batches n a boot."""
    g = df[df.cfg == cfg]
    machs = sorted(g.mach.unique())
    a = len(machs)
    b = len(g[g.mach == machs[0]])
    n = len(g.iloc[0][bcol])
    grand = np.mean(np.concatenate(g[bcol].values))
    ss_m = ss_b = ss_e = 0.0
    for m in machs:
        gm = g[g.mach == m]
        xm = np.mean(np.concatenate(gm[bcol].values))
        ss_m += b * n * (xm - grand) ** 2
        for v in gm[bcol].values:
            v = np.array(v)
            ss_b += n * (v.mean() - xm) ** 2
            ss_e += ((v - v.mean()) ** 2).sum()
    ms_m = ss_m / (a - 1)
    ms_b = ss_b / (a * (b - 1))
    ms_e = ss_e / (a * b * (n - 1))
    return dict(s1=ms_e, t2raw=(ms_b - ms_e) / n,
                t3raw=(ms_m - ms_b) / (b * n))


def ols_cmp(df, base, cand, col):
    d = df[df.cfg.isin([base, cand])].copy()
    d["x"] = (d.cfg == cand).astype(float)
    d["y"] = d[col]
    fit = smf.ols("y ~ x + C(mach)", data=d).fit()
    lo, hi = fit.conf_int(alpha=1 - CONF / 100).loc["x"]
    return dict(diff=fit.params["x"], lo=lo, hi=hi, t=fit.tvalues["x"],
                p=fit.pvalues["x"], df=fit.df_resid)


def holm(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    adj = [0.0] * len(p)
    run = 0.0
    for r, i in enumerate(order):
        run = max(run, min(1.0, (len(p) - r) * p[i]))
        adj[i] = run
    return adj


def regressions(df, base, cfgs):
    """The regressions as the report counts them: time worse (higher),
    EC worse (lower), Holm at 5%."""
    tests = []
    for c in cfgs:
        if c == base:
            continue
        for col, worse in (("y1", 1), ("yn", 1), ("ec", -1)):
            r = ols_cmp(df, base, c, col)
            tests.append((r["p"], r["diff"] * worse > 0))
    adj = holm([t[0] for t in tests])
    return sum(1 for a, t in zip(adj, tests) if a <= 1 - CONF / 100 and t[1])


def run(tool, path, base):
    out = subprocess.run([tool, str(N), base, "1", "0", path],
                         capture_output=True, text=True)
    if out.returncode not in (0, 3):
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def check(tool, path, rows, base, balanced, want_named):
    with open(path, "w") as f:
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    j = run(tool, path, base)
    df = frame(rows)
    c = Check()
    cfgs = [x["name"] for x in j["configurations"]]
    machs = sorted(df.mach.unique())
    c.true("machines: %r" % j["machines"]["count"],
           j["machines"]["count"] == len(machs))
    for x in j["configurations"]:
        g = df[df.cfg == x["name"]]
        for lvl in x["levels"]:
            col, bcol = ("y1", "b1") if lvl["jobs"] == 1 else ("yn", "bn")
            t = lvl["time"]
            what = "%s T(%d)" % (x["name"], lvl["jobs"])
            mm = g.groupby("mach")[col].mean().values
            hw = stats.t.ppf(1 - (1 - CONF / 100) / 2, len(mm) - 1) * \
                np.std(mm, ddof=1) / math.sqrt(len(mm))
            c.near(what + " estimate", t["estimate"], mm.mean())
            c.near(what + " lo", t["lo"], mm.mean() - hw)
            c.near(what + " hi", t["hi"], mm.mean() + hw)
            c.true(what + " machines", t["machines"] == len(mm))
            if balanced:
                a = anova3(df, x["name"], col, bcol)
                c.near(what + " S1^2", t["s1_sq"], a["s1"])
                c.near(what + " T2^2 raw", t["t2_sq_raw"], a["t2raw"])
                c.near(what + " T3^2 raw", t["t3_sq_raw"], a["t3raw"])
            if x["name"] == base:
                continue
            for key, col2 in (("time_vs_baseline", col),
                              ("ec_vs_baseline", "ec")):
                m = lvl[key]
                if m is None or (key == "ec_vs_baseline" and
                                 lvl["jobs"] == 1):
                    continue
                w = ols_cmp(df, base, x["name"], col2)
                k = what + " " + key
                c.true(k + " within machine", m["within_machine"])
                for f in ("diff", "lo", "hi", "t", "p", "df"):
                    c.near(k + " " + f, m[f], w[f])
    # The machines apart, by their smallest p over the levels.
    best, ntests = {}, 0
    for m in machs:
        for col in ("y1", "yn"):
            d = df.copy()
            d["y"] = d[col]
            d["x"] = (d.mach == m).astype(float)
            fit = smf.ols("y ~ x + C(cfg)", data=d).fit()
            ntests += 1
            p = fit.pvalues["x"]
            if m not in best or p < best[m][0]:
                best[m] = (p, fit.tvalues["x"], fit.df_resid)
    named = sorted(m for m in machs
                   if len(machs) >= 3 and best[m][0] <= ALPHA_MACH / ntests)
    got = sorted(x["machine"] for x in j["machines"]["apart"])
    c.true("named %r, want %r" % (got, named), got == named)
    c.true("named %r, planted %r" % (got, want_named), got == want_named)
    if len(machs) >= 3:
        c.true("tests %d, want %d" % (j["machines"]["tests"], ntests),
               j["machines"]["tests"] == ntests)
    for x in j["machines"]["apart"]:
        m = x["machine"]
        c.near(m + " p", x["p"], best[m][0])
        c.near(m + " t", x["t"], best[m][1])
        c.near(m + " df", x["df"], best[m][2])
        c.near(m + " bound", x["bound"], ALPHA_MACH / ntests)
        c.true(m + " regressions with it",
               x["regressions"] == regressions(df, base, cfgs))
        wo = regressions(df[df.mach != m], base, cfgs)
        c.true("%s regressions without it: %r, want %d" %
               (m, x["without"]["regressions"], wo),
               x["without"]["regressions"] == wo)
    return c, j


def main():
    tool, d = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(20261207)
    four = ["m1", "m2", "m3", "m4"]
    cases = []
    # Planted: m3's boots of B 6% slow (a board that went bad while B
    # ran); with them B looks like a regression, without it not.
    rows = generate(rng, {"A": (10.0, 4.0), "B": (10.0, 4.0)}, four, 5, 4,
                    0.002, 0.004, 0.01, offset={("B", "m3"): 0.06})
    cases.append(("planted: m3 named, the regression its boots made gone "
                  "without it", rows, True, ["m3"], dict(
                      planted=True)))
    # Quiet: machines a little apart (a tenth of the boots' spread), no
    # difference between the configurations (its own seed: one without
    # the 5% false alarm of the comparisons).
    rows = generate(np.random.default_rng(41), {"A": (10.0, 4.0), "B": (10.0, 4.0)}, four, 3, 4,
                    0.0004, 0.004, 0.01)
    cases.append(("quiet: no machine named", rows, True, [],
                  dict(quiet=True)))
    # Unbalanced and with machines apart: m4 never booted B, m1 boots
    # one B; a real 2% difference seen within machine.
    boots = {("A", "m1"): 3, ("A", "m2"): 2, ("A", "m3"): 3, ("A", "m4"): 3,
             ("B", "m1"): 1, ("B", "m2"): 3, ("B", "m3"): 2}
    rows = generate(rng, {"A": (10.0, 4.0), "B": (10.2, 4.08)}, four,
                    boots, 3, 0.0005, 0.003, 0.01)
    cases.append(("unbalanced: within-machine comparisons as OLS", rows,
                  False, [], {}))
    for i, (what, rows, bal, want, extra) in enumerate(cases):
        c, j = check(tool, "%s/m%d.tsv" % (d, i), rows, "A", bal, want)
        if extra.get("quiet"):
            c.true("quiet: no regression", j["regressions"] == 0)
        if extra.get("planted"):
            x = j["machines"]["apart"]
            c.true("planted: a regression with m3's boots",
                   j["regressions"] > 0)
            c.true("planted: none without",
                   len(x) == 1 and x[0]["without"]["regressions"] == 0)
        if c.bad:
            print("not ok " + what)
            for b in c.bad:
                print("  " + b)
        else:
            print("ok " + what)


if __name__ == "__main__":
    main()
