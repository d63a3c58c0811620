#!/usr/bin/python3
# Hostile archives for extract.sh: every header form that once reached
# outside a worker's directory.  hostile.py DIR OUTSIDE writes DIR/NAME.tar
# and DIR/NAME.mtree; OUTSIDE is an absolute directory holding canary.txt.
import io
import sys
import tarfile

d, out = sys.argv[1], sys.argv[2]


def ti(name, type=tarfile.REGTYPE, link="", mode=0o644, data=b"", pax=None):
    t = tarfile.TarInfo(name)
    t.type, t.linkname, t.mode, t.mtime = type, link, mode, 1136073600
    t.size = len(data)
    if pax:
        t.pax_headers = pax
    return t, data


def tar(name, entries, fmt=tarfile.PAX_FORMAT):
    with tarfile.open("%s/%s.tar" % (d, name), "w", format=fmt) as a:
        for t, data in entries:
            # addfile writes the data whatever the type says.
            a.addfile(t, io.BytesIO(data) if data else None)


canary = out + "/canary.txt"
# A hard link that carries data, to a symlink the archive made (item 2).
tar("hl-data-sym", [
    ti("s", tarfile.SYMTYPE, canary),
    ti("h", tarfile.LNKTYPE, "s", 0o4777, b"overwritten\n",
       {"mtime": "1136073600.5", "comment": "x"})])
# A regular file whose pax linkpath makes it a hard link to that symlink.
tar("reg-linkpath", [
    ti("s", tarfile.SYMTYPE, canary),
    ti("h", tarfile.REGTYPE, "", 0o4777, b"overwritten\n",
       {"linkpath": "s"})])
# The same through a GNU long link name ('K') on a regular file.
tar("reg-gnulonglink", [
    ti("s", tarfile.SYMTYPE, canary),
    ti("h", tarfile.REGTYPE, "./" * 60 + "s", 0o4777, b"overwritten\n")],
    tarfile.GNU_FORMAT)
# A directory whose pax linkpath names the outside.
tar("dir-linkpath", [
    ti("d", tarfile.DIRTYPE, "", 0o777, b"", {"linkpath": out}),
    ti("d/evil", tarfile.REGTYPE, "", 0o644, b"x\n")])
# A hard link with data to a FIFO (item 5: --verify must not block).
tar("hl-data-fifo", [
    ti("p", tarfile.FIFOTYPE),
    ti("h", tarfile.LNKTYPE, "p", 0o644, b"data\n", {"comment": "x"})])
# Terminal escapes in names, and a name too long to keep whole: the
# cause must survive, the escapes must not reach a terminal (item 10).
tar("names", [
    ti("\x1b[2Jclear", tarfile.REGTYPE, "", 0o644, b"x\n"),
    ti("\x1b]0;pwned\x07" + "A" * 300 + "/../evil", tarfile.REGTYPE, "",
       0o644, b"x\n")])

mtree = {
    "file-link": "./s type=file link=%s mode=0700\n./s/a45 type=file "
                 "mode=0644\n" % out,
    "file-link-mode": "./x type=file link=%s mode=04777\n" % canary,
    "dir-link": "./d type=dir link=%s mode=0777\n./d/a45 type=file "
                "mode=0644\n" % out,
    "link": "./l type=link link=%s mode=04777\n./m type=link link=%s\n"
            "./m/a45 type=file mode=0644\n" % (canary, out),
    "contents": "./c type=file contents=%s mode=0644\n" % canary,
}
for name, body in mtree.items():
    with open("%s/%s.mtree" % (d, name), "w") as f:
        f.write("#mtree\n" + body)

# A gzip bomb: 128 MiB of zeros in about 128 KiB, then one more file.
class Zeros:
    def __init__(self, n):
        self.n = n

    def read(self, k=-1):
        k = self.n if k < 0 else min(k, self.n)
        self.n -= k
        return bytes(k)


with tarfile.open("%s/bomb.tar.gz" % d, "w:gz", compresslevel=1) as a:
    t = tarfile.TarInfo("zeros")
    t.size = 128 << 20
    a.addfile(t, Zeros(t.size))
    t = tarfile.TarInfo("after")
    t.size = 2
    a.addfile(t, io.BytesIO(b"x\n"))
