#!/usr/bin/env python3
"""A fake LAVA REST API (/api/v0.2/) for tests/e2e/campaign_lava.sh and
tests/e2e/bisect_lava.sh: only
for the answers a real lab will not give on demand (a result set that
does not match its job, a job that goes Incomplete, a submission whose
answer is lost, a lab that does not answer).  The real lab's tests are
tests/lava/run.

    fake_lava.py DIR FSCONC MODE

Listens on 127.0.0.1, a free port written to DIR/port once it listens.
A job submitted is "run" as a guest would (FSCONC run with the job's
@ARGS@, which the test's template puts on an "args:" line) and its set
printed in its log the way dist/lava/guest-run.sh does, in LAVA's log
format.  A job whose template has a line kernel: "file:///PATH" boots
that image: the fake bisect's images hold a number (tests/e2e/bisect.sh's
tree), and every batch's real time of the job's set becomes it, plus a
noise drawn from the job's id, so that the figure follows the commit.
MODE says what goes wrong:
    good            nothing
    incomplete1     the first job ends Incomplete
    incomplete      every job ends Incomplete
    hold            jobs stay Running until DIR/release exists
    lose1           the first submission is taken but answered 502
    silent          the socket listens, nothing is ever answered
    wrong-config    the set's label is another configuration's
    missing-batch   one batch line of runs.tsv removed
    extra-batch     one batch line of runs.tsv doubled
    nan-value       a batch's real time is "abc"
    inf-value       a batch's real time is "inf"
    bad-sha         the announced SHA-256 is not the archive's
    tar-link        the set's archive holds a symbolic link
    tar-escape      the set's archive holds ../escaped
A job answers Running to its first FAKE_LAVA_POLLS - 1 looks (default 2:
once Running), then Finished.
Each submission is logged in DIR/submitted (its job name), each request
in DIR/requests.
"""
import base64
import hashlib
import http.server
import io
import json
import os
import re
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse

DIR, FSCONC, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
POLLS = int(os.environ.get("FAKE_LAVA_POLLS", "2"))
jobs = {}
nsubmit = 0


def log_line(lvl, msg):
    return "- " + json.dumps({"dt": "2026-01-01T00:00:00.000000",
                              "lvl": lvl, "msg": msg}) + "\n"


def mutate(setdir, name):
    runs = os.path.join(setdir, name, "runs.tsv")
    lines = open(runs).read().splitlines(True)
    head, rows = lines[:1], lines[1:]
    if MODE == "missing-batch":
        rows = rows[:-1]
    elif MODE == "extra-batch":
        cols = lines[0].rstrip("\n").split("\t")
        f = rows[-1].rstrip("\n").split("\t")
        f[cols.index("rep")] = str(int(f[cols.index("rep")]) + 1)
        rows = rows + ["\t".join(f) + "\n"]
    elif MODE in ("nan-value", "inf-value"):
        cols = lines[0].rstrip("\n").split("\t")
        f = rows[0].rstrip("\n").split("\t")
        f[cols.index("real")] = "abc" if MODE == "nan-value" else "inf"
        rows[0] = "\t".join(f) + "\n"
    elif MODE == "wrong-config":
        meta = os.path.join(setdir, name, "meta")
        text = open(meta).read()
        text = re.sub(r"(?m)^label=.*$", "label=OTHER", text)
        open(meta, "w").write(text)
    open(runs, "w").writelines(head + rows)


def boot_image(definition, setpath, jid):
    """The set's times made the image's number (a kernel: file:// line)."""
    m = re.search(r'(?m)^kernel: "file://(/[^"]*)"', definition)
    if not m:
        return
    value = float(open(m.group(1)).read().split()[0])
    runs = os.path.join(setpath, "runs.tsv")
    lines = open(runs).read().splitlines(True)
    cols = lines[0].rstrip("\n").split("\t")
    out = lines[:1]
    for i, line in enumerate(lines[1:]):
        f = line.rstrip("\n").split("\t")
        f[cols.index("real")] = "%.6f" % (value + ((jid * 7 + i) % 11 - 5)
                                         * 0.1)
        out.append("\t".join(f) + "\n")
    open(runs, "w").writelines(out)


def run_job(definition, jid):
    args = re.search(r'(?m)^args: "([^"]*)"', definition).group(1).split()
    out = tempfile.mkdtemp(dir=DIR)
    p = subprocess.run([FSCONC, "run", "-R", out + "/sets"] + args,
                       capture_output=True, text=True)
    text = p.stdout + p.stderr
    m = re.findall(r"(?m)^[Rr]esult set: (.*)$", text)
    log = log_line("info", "start: fake")
    for line in text.splitlines():
        log += log_line("target", line)
    if p.returncode != 0 or not m:
        return log + log_line("target", "fsconc run failed")
    setpath = m[-1].strip()
    parent, name = os.path.dirname(setpath), os.path.basename(setpath)
    boot_image(definition, setpath, jid)
    if MODE not in ("good", "incomplete1", "hold", "lose1", "bad-sha",
                    "tar-link", "tar-escape"):
        mutate(parent, name)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        t.add(setpath, arcname=name)
        if MODE == "tar-link":
            ti = tarfile.TarInfo(name + "/passwd")
            ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"
            t.addfile(ti)
        elif MODE == "tar-escape":
            ti = tarfile.TarInfo(name + "/../escaped")
            ti.size = 2
            t.addfile(ti, io.BytesIO(b"x\n"))
    data = buf.getvalue()
    sha = hashlib.sha256(data).hexdigest()
    if MODE == "bad-sha":
        sha = hashlib.sha256(data + b"x").hexdigest()
    log += log_line("target", "FSCONC-SET-BEGIN %s %d %s" % (name, len(data),
                                                             sha))
    b64 = base64.b64encode(data).decode()
    for i in range(0, len(b64), 76):
        log += log_line("target", b64[i:i + 76] + "\r")
    log += log_line("target", "FSCONC-SET-END " + name)
    return log


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, code, body):
        data = body.encode() if isinstance(body, str) else \
            json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorised(self):
        want = "Token " + open(os.path.join(DIR, "token")).read().strip()
        if self.headers.get("Authorization") != want:
            self.answer(401, {"detail": "bad token"})
            return False
        return True

    def do_POST(self):
        global nsubmit
        with open(os.path.join(DIR, "requests"), "a") as f:
            f.write("POST %s\n" % self.path)
        if not self.authorised():
            return
        if self.path != "/api/v0.2/jobs/":
            return self.answer(404, {"detail": "no"})
        n = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        definition = form["definition"][0]
        name = re.search(r'(?m)^job_name: "([^"]*)"', definition).group(1)
        nsubmit += 1
        jid = 100 + nsubmit
        jobs[jid] = {"name": name, "definition": definition,
                     "polls": 0, "n": nsubmit}
        with open(os.path.join(DIR, "submitted"), "a") as f:
            f.write(name + "\n")
        if MODE == "lose1" and nsubmit == 1:
            return self.answer(502, "Bad Gateway")
        self.answer(201, {"message": "job(s) successfully submitted",
                          "job_ids": [jid]})

    def do_GET(self):
        with open(os.path.join(DIR, "requests"), "a") as f:
            f.write("GET %s\n" % self.path)
        if not self.authorised():
            return
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/api/v0.2/jobs/":
            want = q.get("description", [None])[0]
            res = [{"id": i, "description": j["name"]}
                   for i, j in jobs.items()
                   if want is None or j["name"] == want]
            return self.answer(200, {"count": len(res), "results": res})
        m = re.fullmatch(r"/api/v0.2/jobs/(\d+)/(logs/|cancel/)?", u.path)
        if not m or int(m.group(1)) not in jobs:
            return self.answer(404, {"detail": "Not found."})
        j = jobs[int(m.group(1))]
        if m.group(2) == "logs/":
            if "log" not in j:
                j["log"] = run_job(j["definition"], int(m.group(1)))
            return self.answer(200, j["log"])
        if m.group(2) == "cancel/":
            j["canceled"] = True
            return self.answer(200, {"message": "canceled"})
        j["polls"] += 1
        held = MODE == "hold" and not os.path.exists(
            os.path.join(DIR, "release"))
        st = {"id": int(m.group(1)), "description": j["name"],
              "actual_device": "fake-0%d" % (1 + j["n"] % 2),
              "failure_comment": None, "start_time": None, "end_time": None}
        if held or j["polls"] < POLLS:
            st.update(state="Running", health="Unknown")
        elif j.get("canceled"):
            st.update(state="Finished", health="Canceled")
        elif MODE == "incomplete" or (MODE == "incomplete1" and
                                      j["n"] == 1):
            st.update(state="Finished", health="Incomplete",
                      failure_comment="kernel panic (a fake)")
        else:
            st.update(state="Finished", health="Complete")
        self.answer(200, st)


def main():
    if MODE == "silent":
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        with open(os.path.join(DIR, "port.tmp"), "w") as f:
            f.write(str(s.getsockname()[1]))
        os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
        while True:
            time.sleep(3600)
    port = int(os.environ.get("FAKE_LAVA_PORT", "0"))
    srv = http.server.HTTPServer(("127.0.0.1", port), H)
    with open(os.path.join(DIR, "port.tmp"), "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
    srv.serve_forever()


main()
