#!/usr/bin/env python3
"""Hold the tree to DESIGN.md's module table.

    tests/layering.py [--root DIR] [--objs DIR]

A row is a module or a subsystem folder of one (harness/run/).
Includes: every header of a row is listed in the table (bold: public,
in parentheses: private; a name with a slash is from the root, as a
subsystem's public header beside its folder, harness/run.h); a file may
include its own row's headers, and of another row only a public header
of a row its row allows.  Calls (with --objs): a file uses symbols
defined only in its own row and in rows it may include.
Circles (with --objs, the objects of a build): file A uses a symbol file B
defines; a set of files that reach each other is a circle, and there
must be none.  Comments: a source file a comment names (dir/file.c,
file.h) is in the tree: a path from the root, from the file's folder, or
the tail of one; a bare name, any file of that name.  Prints one line
per violation; exit 1 if any, 0 if none, 2 if the table cannot be read.
"""
import argparse
import functools
import glob
import os
import re
import subprocess
import sys

ROW = re.compile(r"^\|\s*`([^`]+)/`\s*\|([^|]*)\|[^|]*\|([^|]*)\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A comment, or a literal skipped so that "/*" in a string opens none.
C_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                     r"'(?:\\.|[^'\\\n])*'", re.S)
# A source file's name: dir/file.c, file.h (not os_*.c, not <sys/x.h>).
SOURCE_NAME = re.compile(r"(?<![\w./<-])(?:[\w.-]+/)*[\w-]+\.[ch](?!\w)")


def header_path(row, name):
    """A header named in row's cell: with a slash, from the root; bare,
    in the row's own folder."""
    return name if "/" in name else "%s/%s" % (row, name)


def read_table(path):
    """[(row, public paths, private paths, allowed rows)] in table order.

    A row is a module (`results/`) or a subsystem of one
    (`harness/run/`); its public header may sit beside its folder
    (**harness/run.h**)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            row, headers, may = m.group(1), m.group(2), m.group(3)
            public = {header_path(row, h) for h in
                      re.findall(r"\*\*([\w./-]+\.h)\*\*", headers)}
            private = set()
            for group in re.findall(r"\(([^)]*)\)", headers):
                private |= {header_path(row, h) for h in
                            re.findall(r"[\w./-]+\.h", group)}
            # cli/'s header is not bold: nothing includes it from below.
            bare = re.sub(r"\(([^)]*)\)", "", headers)
            bare = re.sub(r"\*\*[^*]*\*\*", "", bare)
            private |= {header_path(row, h) for h in
                        re.findall(r"[\w./-]+\.h", bare)}
            may = may.strip()
            before = [r[0] for r in rows]
            if may in ("\u2014", "-", ""):
                allowed = set()
            elif may in ("all of the above", "any public header"):
                allowed = set(before)
            else:
                allowed = {w.strip().strip("`").rstrip("/")
                           for w in may.split(",")}
                unknown = allowed - set(before)
                if unknown:
                    raise ValueError("%s may include %s, which is not a "
                                     "module listed before it" %
                                     (row, ", ".join(sorted(unknown))))
            rows.append((row, public, private, allowed))
    if not rows:
        raise ValueError("no module table")
    return rows


def row_of(rows, path):
    """The deepest row whose folder holds path, or None."""
    best = None
    for r in rows:
        if path.startswith(r[0] + "/") and (best is None or
                                            len(r[0]) > len(best)):
            best = r[0]
    return best


def sources(root, row, rows):
    """The .c and .h files of row's folder and of its subfolders that
    are not rows of their own."""
    out = []
    for dirpath, dirs, files in os.walk(os.path.join(root, row)):
        rel = os.path.relpath(dirpath, root)
        if row_of(rows, rel + "/x") != row:
            continue
        out += [os.path.join(rel, f) for f in files
                if f.endswith((".c", ".h"))]
    return sorted(out)


def check_includes(root, rows):
    bad = []
    owner = {}          # header path -> row
    listed_all = set()
    for row, public, private, _ in rows:
        for h in public | private:
            owner[h] = row
            listed_all.add(h)
            if not os.path.exists(os.path.join(root, h)):
                bad.append("%s: listed in DESIGN.md's table, not in the "
                           "tree" % h)
    src_of = {r[0]: sources(root, r[0], rows) for r in rows}
    every = {h for files in src_of.values() for h in files}
    for row, _, _, _ in rows:
        for h in src_of[row]:
            if h.endswith(".h") and h not in listed_all:
                bad.append("%s: a header DESIGN.md's table does not list"
                           % h)
    # Every header under a module's folder is some row's.
    tops = {r[0].split("/")[0] for r in rows}
    for top in sorted(tops):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                h = os.path.relpath(os.path.join(dirpath, f), root)
                if f.endswith(".h") and h not in listed_all and \
                        h not in every:
                    bad.append("%s: a header DESIGN.md's table does not "
                               "list" % h)
    table = {r[0]: r for r in rows}
    for row, _, _, allowed in rows:
        for rel in src_of[row]:
            with open(os.path.join(root, rel), encoding="utf-8",
                      errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                # Quoted includes: the file's own folder first, then the
                # root (-I.).
                here = os.path.normpath(os.path.join(os.path.dirname(rel),
                                                     inc))
                path = here if here in owner else os.path.normpath(inc)
                other = owner.get(path)
                if other is None or other == row:
                    continue
                if path not in table[other][1]:
                    bad.append("%s: includes %s, a private header of "
                               "another module" % (rel, path))
                elif other not in allowed:
                    bad.append("%s: includes %s, but %s/ may include "
                               "only %s" % (rel, path, row,
                                            ", ".join(sorted(allowed)) or
                                            "nothing"))
    return bad


def tree_sources(root):
    """Every .c and .h under root, outside build/ and hidden folders."""
    out = set()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "build" and not d.startswith(".")]
        out |= {os.path.relpath(os.path.join(dirpath, f), root)
                for f in files if f.endswith((".c", ".h"))}
    return out


def stale_paths(root):
    """A comment naming a source file that is not in the tree: a file
    moved or removed, and the comment left behind."""
    bad = []
    tree = tree_sources(root)
    names = {os.path.basename(f) for f in tree}
    for rel in sorted(tree):
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        for tok in C_TOKEN.finditer(text):
            if tok.group(0)[0] in "\"'":
                continue
            for m in SOURCE_NAME.finditer(tok.group(0)):
                name = m.group(0)
                here = os.path.normpath(os.path.join(os.path.dirname(rel),
                                                     name))
                if name in tree or here in tree:
                    continue
                if "/" in name and any(t.endswith("/" + name)
                                       for t in tree):
                    continue
                if "/" not in name and name in names:
                    continue
                line = text.count("\n", 0, tok.start() + m.start()) + 1
                bad.append("%s:%d: a comment names %s, which is not in "
                           "the tree" % (rel, line, name))
    return bad


def symbols(objs):
    """Each object's defined and used symbols: one nm for all of them (a
    process per object cost the check 15 of its 19 seconds)."""
    out = subprocess.run(["nm", "-P", "-A"] + objs, capture_output=True,
                         text=True, check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, sep, rest = line.partition(": ")
        parts = rest.split()
        if not sep or obj not in syms or len(parts) < 2:
            continue
        defined, used = syms[obj]
        if parts[1] == "U":
            used.add(parts[0])
        elif parts[1] in "TDBRCVW":
            defined.add(parts[0])
    return syms


@functools.lru_cache(maxsize=None)
def scan(objs):
    """Where each symbol is defined (its source file), and what each file
    uses."""
    files = sorted(glob.glob(os.path.join(objs, "**", "*.o"),
                             recursive=True))
    where, uses = {}, {}
    syms = symbols(files) if files else {}
    for o in files:
        name = os.path.relpath(o, objs)[:-2] + ".c"
        defined, used = syms[o]
        for s in defined:
            where[s] = name
        uses[name] = used
    return where, uses


def circles(objs):
    """Strongly connected sets of more than one file (Tarjan, iterative)."""
    where, uses = scan(objs)
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


def floors(rows, objs):
    """A file that uses a symbol another row's file defines: that row
    must be one its row may include (no call runs back up a floor)."""
    bad = []
    table = {r[0]: r for r in rows}
    where, uses = scan(objs)
    for name in sorted(uses):
        row = row_of(rows, name)
        if row is None:
            continue
        for s in sorted(uses[name]):
            other = row_of(rows, where.get(s, ""))
            if other is None or other == row or other in table[row][3]:
                continue
            bad.append("%s: calls %s (%s), a floor above %s/" %
                       (name, s, where[s], row))
    return bad


def cli_calls(objs):
    """No cli/ file calls another's: what two commands share lives
    below them.  main.c, the dispatcher, is the one exception."""
    bad = []
    where, uses = scan(objs)
    for name in sorted(uses):
        if not name.startswith("cli/") or name == "cli/main.c":
            continue
        for s in sorted(uses[name]):
            other = where.get(s, "")
            if other.startswith("cli/") and other != name:
                bad.append("%s: calls %s (%s), another cli/ file" %
                           (name, s, other))
    return bad


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
    bad += stale_paths(a.root)
    if a.objs:
        bad += floors(rows, a.objs)
        bad += cli_calls(a.objs)
        for comp in circles(a.objs):
            bad.append("circle of files: %s" % " <-> ".join(comp))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
