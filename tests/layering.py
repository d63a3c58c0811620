#!/usr/bin/env python3
"""Hold the tree to DESIGN.md's module table.

    tests/layering.py [--root DIR] [--objs DIR]

Includes: every header of a module is listed in the table (bold: public,
in parentheses: private); a file may include its own module's headers,
and of another module only a public header of a module its row allows.
Circles (with --objs, the objects of a build): file A uses a symbol file B
defines; a set of files that reach each other is a circle, and there
must be none.  Prints one line per violation; exit 1 if any, 0 if none,
2 if the table cannot be read.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROW = re.compile(r"^\|\s*`([^`/]+)/`\s*\|([^|]*)\|[^|]*\|([^|]*)\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_table(path):
    """[(module, public set, private set, allowed set)] in table order."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            mod, headers, may = m.group(1), m.group(2), m.group(3)
            public = set(re.findall(r"\*\*([\w.-]+\.h)\*\*", headers))
            private = set()
            for group in re.findall(r"\(([^)]*)\)", headers):
                private |= set(re.findall(r"[\w.-]+\.h", group))
            # cli/'s header is not bold: nothing includes it from below.
            bare = re.sub(r"\([^)]*\)", "", headers)
            private |= set(re.findall(r"[\w.-]+\.h", bare)) - public
            may = may.strip()
            before = [r[0] for r in rows]
            if may in ("—", "-", ""):
                allowed = set()
            elif may in ("all of the above", "any public header"):
                allowed = set(before)
            else:
                allowed = {w.strip().strip("`/") for w in may.split(",")}
                unknown = allowed - set(before)
                if unknown:
                    raise ValueError("%s may include %s, which is not a "
                                     "module listed before it" %
                                     (mod, ", ".join(sorted(unknown))))
            rows.append((mod, public, private, allowed))
    if not rows:
        raise ValueError("no module table")
    return rows


def check_includes(root, rows):
    bad = []
    owner = {}          # header name -> module
    for mod, public, private, _ in rows:
        listed = public | private
        for h in sorted(glob.glob(os.path.join(root, mod, "*.h"))):
            name = os.path.basename(h)
            if name not in listed:
                bad.append("%s/%s: a header DESIGN.md's table does not list"
                           % (mod, name))
            owner[name] = mod
        for name in sorted(listed):
            if not os.path.exists(os.path.join(root, mod, name)):
                bad.append("%s/%s: listed in DESIGN.md's table, not in the "
                           "tree" % (mod, name))
    table = {r[0]: r for r in rows}
    for mod, _, _, allowed in rows:
        files = sorted(glob.glob(os.path.join(root, mod, "*.[ch]")))
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            rel = os.path.relpath(path, root)
            for inc in INCLUDE.findall(text):
                name = os.path.basename(inc)
                other = owner.get(name)
                if other is None or other == mod:
                    continue
                if name not in table[other][1]:
                    bad.append("%s: includes %s/%s, a private header of "
                               "another module" % (rel, other, name))
                elif other not in allowed:
                    bad.append("%s: includes %s/%s, but %s/ may include "
                               "only %s" % (rel, other, name, mod,
                                            ", ".join(sorted(allowed)) or
                                            "nothing"))
    return bad


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True,
                         text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[1] == "U":
            used.add(parts[0])
        elif parts[1] in "TDBRCVW":
            defined.add(parts[0])
    return defined, used


def circles(objs):
    """Strongly connected sets of more than one file (Tarjan, iterative)."""
    files = sorted(glob.glob(os.path.join(objs, "**", "*.o"),
                             recursive=True))
    where, uses = {}, {}
    for o in files:
        name = os.path.relpath(o, objs)[:-2] + ".c"
        defined, used = symbols(o)
        for s in defined:
            where[s] = name
        uses[name] = used
    graph = {f: sorted({where[s] for s in u if s in where} - {f})
             for f, u in uses.items()}
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            if i < len(graph[v]):
                work.append((v, i + 1))
                w = graph[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--objs")
    a = ap.parse_args()
    try:
        rows = read_table(os.path.join(a.root, "DESIGN.md"))
    except (OSError, ValueError) as e:
        print("layering: DESIGN.md: %s" % e, file=sys.stderr)
        return 2
    bad = check_includes(a.root, rows)
    if a.objs:
        for comp in circles(a.objs):
            bad.append("circle of files: %s" % " <-> ".join(comp))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
