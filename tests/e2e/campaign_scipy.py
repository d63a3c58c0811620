"""Boot-campaign statistics (analysis/campaign/estimate.c) against numpy/scipy.

campaign_scipy.py TOOL DIR: writes campaigns of known shape as TSV
(config, boot, batch, t1, tn) into DIR, runs TOOL (tests/e2e/campaign_tsv.c,
linked with libfsconc.a) on each, and recomputes every figure of its JSON
independently: Kalibera and Jones's S1^2, S2^2, T2^2 and the between-boot
share; Student t intervals over boot means (scipy.stats.t); Welch's test on
boot means (scipy.stats.ttest_ind, equal_var=False); Fieller's interval
for a ratio of independent means and for EC as a ratio of paired boot
means; the delta-method dEC; Holm's correction; and the hierarchical
bootstrap, drawn with splitmix64 in the order analysis/campaign/bootstrap.c
documents, so
its percentiles must agree exactly.  Prints one line per campaign, "ok
WHAT" or "not ok WHAT" followed by indented details, for
tests/e2e/campaign_stats.sh to number.
"""
import json
import math
import subprocess
import sys

import numpy as np
from scipy import stats

M64 = (1 << 64) - 1
CONF = 95.0
RTOL = 1e-7


def splitmix64(state):
    z = (state[0] + 0x9E3779B97F4A7C15) & M64
    state[0] = z
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def tq(df):
    return stats.t.ppf(1 - (1 - CONF / 100) / 2, df)


# --- the data ---------------------------------------------------------------

def generate(rng, configs, boots, batches, share, n, drop=()):
    """configs: {name: (m1, mn)}; a multiplicative boot effect shared by
    both levels; drop: (config, boot, batch) rows left out of TN."""
    rows = []
    sd = 0.05
    for name, (m1, mn) in configs.items():
        nb = boots[name] if isinstance(boots, dict) else boots
        for b in range(1, nb + 1):
            be = sd * math.sqrt(share) * rng.standard_normal()
            for k in range(1, batches + 1):
                t1 = m1 * (1 + be) + m1 * sd * math.sqrt(1 - share) * \
                    rng.standard_normal()
                tn = mn * (1 + be) + mn * sd * math.sqrt(1 - share) * \
                    rng.standard_normal()
                tns = "-" if (name, b, k) in drop else repr(tn)
                rows.append((name, b, k, repr(t1), tns))
    return rows


def load(rows, n):
    """{config: {boot: {jobs: [values]}}} in file order."""
    d = {}
    for name, b, _k, t1, tn in rows:
        lv = d.setdefault(name, {}).setdefault(b, {})
        if t1 != "-":
            lv.setdefault(1, []).append(float(t1))
        if tn != "-":
            lv.setdefault(n, []).append(float(tn))
    return d


# --- the estimators ---------------------------------------------------------

def variance(cfg, jobs):
    groups = [np.array(cfg[b][jobs]) for b in sorted(cfg) if jobs in cfg[b]]
    means = np.array([g.mean() for g in groups])
    ssw = sum(((g - g.mean()) ** 2).sum() for g in groups)
    dfw = sum(len(g) - 1 for g in groups)
    s1 = ssw / dfw
    s2 = np.var(means, ddof=1)
    inv = np.mean([1.0 / len(g) for g in groups])
    t2raw = s2 - s1 * inv
    t2 = max(0.0, t2raw)
    return dict(s1=s1, s2=s2, t2raw=t2raw, t2=t2, share=t2 / (t2 + s1),
                n1=sum(len(g) for g in groups) / len(groups), means=means)


def t_interval(means):
    k = len(means)
    m = means.mean()
    hw = tq(k - 1) * means.std(ddof=1) / math.sqrt(k)
    return m, m - hw, m + hw


def paired(cfg, n):
    bs = [b for b in sorted(cfg) if 1 in cfg[b] and n in cfg[b]]
    x = np.array([np.mean(cfg[b][1]) for b in bs])
    y = np.array([np.mean(cfg[b][n]) for b in bs])
    return x, y


def ec_fig(cfg, n):
    x, y = paired(cfg, n)
    k = len(x)
    mx, my = x.mean(), y.mean()
    r = mx / my
    c = np.cov(x, y, ddof=1)
    sxx, syy, sxy = c[0, 0], c[1, 1], c[0, 1]
    q = tq(k - 1) ** 2 / k
    a, b, cc = my * my - q * syy, mx * my - q * sxy, mx * mx - q * sxx
    disc = b * b - a * cc
    lo = hi = float("nan")
    if a > 0 and disc >= 0:
        lo = n * max(0.0, (b - math.sqrt(disc)) / a)
        hi = n * (b + math.sqrt(disc)) / a
    var = n * n / (my * my) * max(0.0, sxx - 2 * r * sxy + r * r * syy) / k
    return dict(est=n * r, lo=lo, hi=hi, var=var, k=k,
                per_boot=n * x / y)


def welch(a, b):
    """b - a on boot means."""
    res = stats.ttest_ind(b, a, equal_var=False)
    qa, qb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    se = math.sqrt(qa + qb)
    df = (qa + qb) ** 2 / (qa * qa / (len(a) - 1) + qb * qb / (len(b) - 1))
    d = b.mean() - a.mean()
    return dict(diff=d, lo=d - tq(df) * se, hi=d + tq(df) * se,
                t=res.statistic, p=res.pvalue, df=df,
                pct=100 * d / a.mean())


def fieller(a, b):
    """mean(a) / mean(b) for independent samples (stat_ratio_ci's df)."""
    ma, mb = a.mean(), b.mean()
    qa, qb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    rho = ma / mb
    den = qa * qa / (len(a) - 1) + rho ** 4 * qb * qb / (len(b) - 1)
    df = (qa + rho * rho * qb) ** 2 / den
    t = tq(df)
    g = t * t * qb / (mb * mb)
    disc = ma * ma * qb + mb * mb * qa - t * t * qa * qb
    assert g < 1 and disc >= 0
    dd = mb * mb - t * t * qb
    lo = (ma * mb - t * math.sqrt(disc)) / dd
    hi = (ma * mb + t * math.sqrt(disc)) / dd
    return rho, min(lo, hi), max(lo, hi)


def ec_cmp(ea, eb):
    se2 = ea["var"] + eb["var"]
    df = se2 ** 2 / (ea["var"] ** 2 / (ea["k"] - 1) +
                     eb["var"] ** 2 / (eb["k"] - 1))
    d = eb["est"] - ea["est"]
    t = d / math.sqrt(se2)
    r = eb["est"] / ea["est"]
    rse = r * math.sqrt(ea["var"] / ea["est"] ** 2 +
                        eb["var"] / eb["est"] ** 2)
    q = tq(df)
    return dict(diff=d, lo=d - q * math.sqrt(se2), hi=d + q * math.sqrt(se2),
                t=t, df=df, p=2 * stats.t.sf(abs(t), df), ratio=r,
                ratio_lo=r - q * rse, ratio_hi=r + q * rse)


def holm(p):
    order = sorted(range(len(p)), key=lambda i: (p[i], i))
    adj, run = [0.0] * len(p), 0.0
    for k, i in enumerate(order):
        run = max(run, min(1.0, (len(p) - k) * p[i]))
        adj[i] = run
    return adj


# --- the bootstrap, replayed ------------------------------------------------

def percentile(v):
    v = sorted(x for x in v if not math.isnan(x))
    k = len(v)
    alpha = 1 - CONF / 100
    a = int(math.floor(k * alpha / 2 + 1e-9))
    b = int(math.ceil(k * (1 - alpha / 2) - 1e-9))
    b = min(max(b, 1), k)
    a = min(a, b - 1)
    return v[a], v[b - 1]


def bootstrap(d, names, levels, seed, iters):
    st = [seed]
    gm = {name: {lv: [] for lv in levels} for name in names}
    for _ in range(iters):
        for name in names:
            boots = [d[name][b] for b in sorted(d[name])]
            k = len(boots)
            pick = [splitmix64(st) % k for _ in range(k)]
            for lv in levels:
                s, cnt = 0.0, 0
                for j in pick:
                    if lv not in boots[j]:
                        continue
                    vals = boots[j][lv]
                    tot = 0.0
                    for _m in range(len(vals)):
                        tot += vals[splitmix64(st) % len(vals)]
                    s += tot / len(vals)
                    cnt += 1
                gm[name][lv].append(s / cnt if cnt else float("nan"))
    return gm


# --- comparison -------------------------------------------------------------

class Checker:
    def __init__(self):
        self.bad = []
        self.count = 0

    def near(self, what, got, want, rtol=RTOL, atol=1e-12):
        self.count += 1
        if got is None or want is None or (isinstance(want, float) and
                                           math.isnan(want)):
            if not (got is None and (want is None or math.isnan(want))):
                self.bad.append("%s: got %r, want %r" % (what, got, want))
            return
        if not math.isclose(got, want, rel_tol=rtol, abs_tol=atol):
            self.bad.append("%s: got %.12g, want %.12g" % (what, got, want))


def check_campaign(tool, path, rows, n, base, seed, iters):
    out = subprocess.run([tool, str(n), base, str(seed), str(iters), path],
                         capture_output=True, text=True)
    if out.returncode not in (0, 3):
        return ["tool exited %d: %s" % (out.returncode, out.stderr)], 0, None
    j = json.loads(out.stdout)
    d = load(rows, n)
    # The bootstrap draws configuration by configuration in bootstrap.c's
    # order, which the JSON keeps.
    names = [cj["name"] for cj in j["configurations"]]
    levels = [1, n]
    c = Checker()
    gm = bootstrap(d, names, levels, seed, iters)
    figs = {}
    for cj in j["configurations"]:
        name = cj["name"]
        cfg = d[name]
        for lj in cj["levels"]:
            jobs = lj["jobs"]
            tag = "%s T(%d)" % (name, jobs)
            v = variance(cfg, jobs)
            m, lo, hi = t_interval(v["means"])
            tj = lj["time"]
            for k, want in (("s1_sq", v["s1"]), ("s2_sq", v["s2"]),
                            ("t2_sq", v["t2"]), ("t2_sq_raw", v["t2raw"]),
                            ("between_share", v["share"]),
                            ("batches_per_boot", v["n1"]),
                            ("estimate", m), ("lo", lo), ("hi", hi)):
                c.near(tag + " " + k, tj[k], want,
                       atol=1e-12 * abs(m) ** 2)
            blo, bhi = percentile(gm[name][jobs])
            c.near(tag + " boot_lo", tj["boot_lo"], blo)
            c.near(tag + " boot_hi", tj["boot_hi"], bhi)
            figs[(name, jobs)] = v
            if jobs > 1:
                e = ec_fig(cfg, jobs)
                ej = lj["ec"]
                tag = "%s EC(%d)" % (name, jobs)
                for k in ("est", "lo", "hi"):
                    c.near(tag + " " + k, ej["estimate" if k == "est" else k],
                           e[k])
                for i, b in enumerate(sorted(cfg)):
                    c.near(tag + " boot %d" % b, ej["per_boot"][str(b)],
                           e["per_boot"][i])
                ecs = [jobs * x / y for x, y in zip(gm[name][1],
                                                    gm[name][jobs])]
                blo, bhi = percentile(ecs)
                c.near(tag + " boot_lo", ej["boot_lo"], blo)
                c.near(tag + " boot_hi", ej["boot_hi"], bhi)
                figs[(name, "ec")] = e
                figs[(name, "ecb")] = ecs
    # Against the baseline, then Holm over every test.
    ps, where = [], []
    for cj in j["configurations"]:
        name = cj["name"]
        if name == base:
            continue
        for lj in cj["levels"]:
            jobs = lj["jobs"]
            a, b = figs[(base, jobs)]["means"], figs[(name, jobs)]["means"]
            w = welch(a, b)
            tag = "%s-%s T(%d)" % (name, base, jobs)
            tv = lj["time_vs_baseline"]
            for k in ("diff", "lo", "hi", "t", "p", "df", "pct"):
                c.near(tag + " " + k, tv[k], w[k])
            r, rlo, rhi = fieller(b, a)
            c.near(tag + " ratio", tv["ratio"], r)
            c.near(tag + " ratio_lo", tv["ratio_lo"], rlo)
            c.near(tag + " ratio_hi", tv["ratio_hi"], rhi)
            bd = [x - y for x, y in zip(gm[name][jobs], gm[base][jobs])]
            br = [x / y for x, y in zip(gm[name][jobs], gm[base][jobs])]
            for k, v in zip(("boot_lo", "boot_hi"), percentile(bd)):
                c.near(tag + " " + k, tv[k], v)
            for k, v in zip(("boot_ratio_lo", "boot_ratio_hi"),
                            percentile(br)):
                c.near(tag + " " + k, tv[k], v)
            ps.append(w["p"])
            where.append(tv)
            if jobs > 1:
                e = ec_cmp(figs[(base, "ec")], figs[(name, "ec")])
                ev = lj["ec_vs_baseline"]
                tag = "%s-%s EC(%d)" % (name, base, jobs)
                for k in e:
                    c.near(tag + " " + k, ev[k], e[k])
                bd = [x - y for x, y in zip(figs[(name, "ecb")],
                                            figs[(base, "ecb")])]
                for k, v in zip(("boot_lo", "boot_hi"), percentile(bd)):
                    c.near(tag + " " + k, ev[k], v)
                ps.append(e["p"])
                where.append(ev)
    for tv, pa in zip(where, holm(ps)):
        c.near("Holm", tv["p_holm"], pa)
    if j["tests"] != len(ps):
        c.bad.append("tests %d, want %d" % (j["tests"], len(ps)))
    return c.bad, c.count, j


def main():
    tool, tmp = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(20261202)
    cases = [
        ("balanced, 3 configurations, share 0.5",
         dict(configs={"A": (10, 6), "B": (10, 6.6), "C": (10.2, 6)},
              boots=5, batches=5, share=0.5, n=2), "A", 0),
        ("3 boots x 4 batches, share 0.8",
         dict(configs={"on": (14.64, 83.35), "off": (14.64, 300)},
              boots=3, batches=4, share=0.8, n=12), "on", 0),
        ("unequal boots and batches, share 0.3",
         dict(configs={"A": (1, 0.6), "B": (1, 0.58)},
              boots={"A": 7, "B": 4}, batches=6, share=0.3, n=4,
              drop={("A", 2, 3), ("A", 5, 1), ("B", 1, 6)}), "A", 0),
    ]
    results = []
    for i, (what, kw, base, _) in enumerate(cases):
        n = kw["n"]
        rows = generate(rng, **kw)
        path = "%s/c%d.tsv" % (tmp, i)
        with open(path, "w") as f:
            for r in rows:
                f.write("%s\t%d\t%d\t%s\t%s\n" % r)
        bad, count, _j = check_campaign(tool, path, rows, n, base, 7 + i,
                                        1000)
        results.append((what, bad, count))
    for what, bad, count in results:
        if bad:
            print("not ok %s: %d of %d figures agree with scipy" %
                  (what, count - len(bad), count))
            for b in bad[:20]:
                print("    " + b)
        else:
            print("ok %s: %d figures agree with scipy" % (what, count))


if __name__ == "__main__":
    main()
