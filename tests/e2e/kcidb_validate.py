#!/usr/bin/env python3
"""Validate KCIDB reports against the schema, as kcidb-validate does.

    kcidb_validate.py SCHEMA REPORT...

The schema is the one given (../shared/kcidb/kcidb-v5.3.schema.json),
never a copy of ours.  Besides the schema: the file is one JSON object
(no duplicate key, no NaN), every *_id names an object of the report,
and every id is unique in its list.  Prints one line per problem and
exits 1 if any, 0 if none; 2 when jsonschema cannot be imported.
"""
import json
import sys

try:
    import jsonschema
except ImportError as e:
    print("jsonschema: %s" % e)
    sys.exit(2)


def no_dup(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("duplicate key %r" % k)
        d[k] = v
    return d


def bad_constant(c):
    raise ValueError("not JSON: %s" % c)


def check(schema, path):
    errs = []
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"), object_pairs_hook=no_dup,
                         parse_constant=bad_constant)
    except (ValueError, UnicodeDecodeError) as e:
        return ["%s: %s" % (path, e)]
    cls = jsonschema.validators.validator_for(schema,
                                              jsonschema.Draft202012Validator)
    v = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
        errs.append("%s: %s: %s: %s" % (path, "/".join(map(str, e.path)),
                                        e.validator, e.message[:300]))
    if errs or not isinstance(doc, dict):
        return errs
    ids = {}
    for kind in ("checkouts", "builds", "tests"):
        seen = set()
        for o in doc.get(kind, []):
            if o["id"] in seen:
                errs.append("%s: %s: id %s twice" % (path, kind, o["id"]))
            seen.add(o["id"])
        ids[kind] = seen
    for b in doc.get("builds", []):
        if b["checkout_id"] not in ids["checkouts"]:
            errs.append("%s: build %s: no checkout %s" %
                        (path, b["id"], b["checkout_id"]))
    for t in doc.get("tests", []):
        if t["build_id"] not in ids["builds"]:
            errs.append("%s: test %s: no build %s" %
                        (path, t["id"], t["build_id"]))
    return errs


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    errs = []
    for p in sys.argv[2:]:
        errs += check(schema, p)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
