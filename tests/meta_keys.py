#!/usr/bin/env python3
"""The meta keys of result sets that results/FORMAT.md does not name.

usage: meta_keys.py FORMAT.md META...

A key is documented when FORMAT.md names it in backquotes or in a
table's first column (a comma list there): exactly, or as a pattern whose upper-case words
stand for a variable part (`precision_real.N`, `sysctl.NAME`,
`campaign_setting.KEY`) and whose `*` stands for anything (`setup.*`).
Prints each undocumented key with the first file that wrote it; exit
status 1 when there is one.
"""
import re
import sys

KEY = re.compile(r'^[A-Za-z0-9_.-]+$')


def documented(path):
    text = open(path, encoding='utf-8').read()
    names = set(re.findall(r'`([^`]+)`', text))
    for line in text.splitlines():
        m = re.match(r'^\|\s*([^|]+?)\s*\|', line)
        if m:	# "a, b, c": several keys of one row
            names.update(k.strip('` ') for k in m.group(1).split(','))
    exact, patterns = set(), []
    for n in names:
        n = n.split('=', 1)[0]
        if KEY.match(n) and not re.search(r'[A-Z]{1,}', n):
            exact.add(n)
            continue
        # A pattern starts with a literal part: `N` alone is no key.
        if not re.match(r'^[a-z][a-z0-9_-]*\.[A-Za-z0-9_.*-]*$', n):
            continue
        # An upper-case word is a placeholder: N a number, others a name.
        parts = re.split(r'(\*|\b[A-Z][A-Z0-9_]*\b)', n)
        rx = ''
        for p in parts:
            if p == '*':
                rx += r'.+'
            elif p == 'N':
                rx += r'[0-9]+'
            elif re.match(r'^[A-Z][A-Z0-9_]*$', p or ''):
                rx += r'[A-Za-z0-9_.:-]+'
            else:
                rx += re.escape(p)
        patterns.append(re.compile('^' + rx + '$'))
    return exact, patterns


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    exact, patterns = documented(sys.argv[1])
    seen = {}
    for path in sys.argv[2:]:
        for line in open(path, encoding='utf-8', errors='replace'):
            if line.startswith('#') or '=' not in line:
                continue
            seen.setdefault(line.split('=', 1)[0], path)
    bad = 0
    for key in sorted(seen):
        if key in exact or any(p.match(key) for p in patterns):
            continue
        print('%s (%s)' % (key, seen[key]))
        bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
