#!/usr/bin/env python3
"""Who took the CPU time beside a run, from bench/freshboot.sh's samples
(a copy of /proc/stat and every /proc/PID/stat about once a second).
    python3 bench/freshboot_who.py DIR     (DIR: share/run1 or run2)
Prints, over the run (its start and end marks): the machine's busy time
split into the run's processes (fsconc and its descendants), kernel
threads (by stable name), other processes (by name, with the time of
children they reaped), irq + softirq and steal; then every second in
which others took more than 10% of the machine, with the top names;
then the run's own figures from runs.tsv (the worst steal + foreign
share of a batch)."""
import collections
import os
import re
import sys

HZ = 100
KTHREAD = 0x00200000


def parse(path):
    samples = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("@ "):
                cur = {"t": float(line.split()[1]), "cpu": None, "p": {}}
                samples.append(cur)
                continue
            if cur is None:
                continue
            if line.startswith("cpu "):
                cur["cpu"] = [int(x) for x in line.split()[1:]]
                continue
            m = re.match(r"^(\d+) \((.*)\) (.*)$", line.rstrip("\n"))
            if not m:
                continue
            rest = m.group(3).split()
            if len(rest) < 20:
                continue
            pid = int(m.group(1))
            # rest[0] is field 3 (state): field k is rest[k - 3].
            ppid = int(rest[1])
            flags = int(rest[6])
            ut, st, cut, cst = (int(rest[11]), int(rest[12]),
                                int(rest[13]), int(rest[14]))
            start = int(rest[19])
            cur["p"][(pid, start)] = {
                "name": m.group(2), "ppid": ppid,
                "kthread": bool(flags & KTHREAD),
                "own": ut + st, "kids": cut + cst}
    return [s for s in samples if s["cpu"] is not None]


def stable(name):
    if name.startswith("kworker/"):
        p = name[8:]
        if p.startswith("R-"):
            return p[2:]
        m = re.search(r"[+-](.+)$", p)
        return m.group(1) if m else "kworker"
    return name


def run_tree(procs):
    """Keys of fsconc processes and their descendants."""
    bypid = {k[0]: k for k in procs}
    ours = set()
    for k, v in procs.items():
        p, seen = k[0], 0
        while p > 1 and seen < 64:
            q = bypid.get(p)
            if q is None:
                break
            if procs[q]["name"] == "fsconc":
                ours.add(k)
                break
            p = procs[q]["ppid"]
            seen += 1
    return ours


def split(a, b):
    """CPU seconds between samples a and b, by who."""
    ca, cb = a["cpu"], b["cpu"]
    d = [y - x for x, y in zip(ca, cb)]
    busy = (d[0] + d[1] + d[2] + d[5] + d[6]) / HZ
    irq = (d[5] + d[6]) / HZ
    steal = d[7] / HZ if len(d) > 7 else 0
    ours = run_tree(b["p"]) | run_tree(a["p"])
    starters = set()
    for k in ours:
        for procs in (a["p"], b["p"]):
            if k in procs and procs[k]["name"] == "fsconc":
                pp = procs[k]["ppid"]
                starters |= {q for q in procs if q[0] == pp}
    starters -= ours
    who = collections.Counter()
    kt = collections.Counter()
    run = 0.0
    # Exited in between: their time, before a too, reaches the nearest
    # ancestor still there as children's time (fsconc's kt_others).
    credit = collections.Counter()
    bypid_a = {k[0]: k for k in a["p"]}
    for k, v in a["p"].items():
        if k in b["p"]:
            continue
        up, depth = k, 0
        while up is not None and up not in b["p"] and depth < 64:
            up = bypid_a.get(a["p"][up]["ppid"])
            depth += 1
        if up is not None and up in b["p"]:
            credit[up[0]] += v["own"] + v["kids"]
    for k, v in b["p"].items():
        pv = a["p"].get(k)
        if v["kthread"]:
            dt = v["own"] - (pv["own"] if pv else 0)
            if dt > 0:
                kt[stable(v["name"])] += dt / HZ
            continue
        own = v["own"] - (pv["own"] if pv else 0)
        kids = v["kids"] - (pv["kids"] if pv else 0)
        if pv is not None:
            kids = max(0, kids - credit[k[0]])
        if k in ours:
            run += own / HZ
            continue
        # The shell that started fsconc reaps it: its children's time
        # is the run's, not someone else's.
        if k in starters:
            kids = 0
        if own + kids > 0:
            who[v["name"]] += (own + kids) / HZ
    # Processes that exited between the samples: their time is lost
    # unless a parent reaped them (then it is the parent's children's).
    return {"busy": busy, "irq": irq, "steal": steal, "run": run,
            "kt": kt, "who": who, "dt": b["t"] - a["t"]}


def fmt(c, total, n=6):
    return ", ".join("%s %.2f s" % (k, v) for k, v in c.most_common(n)
                     if v > 0) or "none"


def main(d):
    samples = parse(os.path.join(d, "samples"))
    marks = [float(l.split()[0]) for l in open(os.path.join(d, "marks"))]
    t0, t1 = marks[0], marks[-1]
    inrun = [s for s in samples if t0 - 1.5 <= s["t"] <= t1 + 1.5]
    ncpu = 2
    up = open(os.path.join(d, "uptime.start")).read().split()[0]
    print("== %s: guest up %s s at the start; run %.1f s (uptime %.0f-%.0f)"
          % (d, up, t1 - t0, t0, t1))
    tot = {"busy": 0, "irq": 0, "steal": 0, "run": 0,
           "kt": collections.Counter(), "who": collections.Counter()}
    worst = []
    for a, b in zip(inrun, inrun[1:]):
        s = split(a, b)
        for k in ("busy", "irq", "steal", "run"):
            tot[k] += s[k]
        tot["kt"].update(s["kt"])
        tot["who"].update(s["who"])
        others = sum(s["who"].values())
        share = others / (s["dt"] * ncpu) if s["dt"] > 0 else 0
        if share > 0.10:
            worst.append((b["t"], share, s))
    wall = inrun[-1]["t"] - inrun[0]["t"] if len(inrun) > 1 else 0
    print("busy %.1f s of %.1f s x %d CPUs: the run's processes (own time "
          "while seen) %.1f s, "
          "kernel threads %.1f s, other processes %.1f s, irq+softirq "
          "%.1f s, steal %.1f s" % (tot["busy"], wall, ncpu, tot["run"],
                                    sum(tot["kt"].values()),
                                    sum(tot["who"].values()), tot["irq"],
                                    tot["steal"]))
    print("other processes: " + fmt(tot["who"], 0, 10))
    print("kernel threads: " + fmt(tot["kt"], 0, 8))
    print("seconds with others above 10%% of the machine: %d" % len(worst))
    for t, share, s in worst[:15]:
        print("  up %.0f s: others %.0f%%: %s" % (t, 100 * share,
                                                  fmt(s["who"], 0, 4)))
    rt = os.path.join(d, "set", "runs.tsv")
    if os.path.exists(rt):
        rows = [l.rstrip("\n").split("\t") for l in open(rt)
                if not l.startswith("#")]
        hdr = None
        for l in open(rt):
            if l.startswith("#"):
                hdr = l[1:].strip().split("\t")
        best = None
        for r in rows:
            try:
                jobs, real = int(r[0]), float(r[2])
                steal, foreign = float(r[11]), float(r[12])
            except (ValueError, IndexError):
                continue
            sh = (steal + foreign - 2 / HZ) / (real * ncpu)
            print("  batch -j %d: real %.2f s steal %.2f foreign %.2f "
                  "share %.1f%% disturbed %s" % (jobs, real, steal,
                                                  foreign, 100 * sh,
                                                  r[13]))
            best = sh if best is None or sh > best else best
        if best is not None:
            print("worst batch steal + foreign share: %.1f%%" % (100 * best))
    rc = open(os.path.join(d, "rc")).read().strip()
    print("fsconc exit %s" % rc)


if __name__ == "__main__":
    for a in sys.argv[1:]:
        main(a)
