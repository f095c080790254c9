#!/usr/bin/env python3
"""inflate-tree.py DIR: one line per inode of the tree under DIR, for comparing a
growth-inflate copy with its source independently of the tool's own --verify: type, mode,
owner, size, nanosecond atime and mtime, device number, symbolic link target, every
extended attribute (security.*, trusted.*, the POSIX ACLs as system.posix_acl_*) with its
value, the inode flags chattr sets, the project ID, the data and hole map (SEEK_DATA,
SEEK_HOLE) and the contents' SHA-256; the other names of a hard-linked inode as links to
the first.  Sorted by path; ctime and birth time are left out (no copy can keep them)."""
import array
import fcntl
import hashlib
import os
import stat
import struct
import sys

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_FSGETXATTR = 0x801C581F
# the flags a user sets (chattr): what the copy must carry
USER_FLAGS = (0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x4000 | 0x8000 | 0x10000 |
              0x20000 | 0x800000 | 0x2000000 | 0x20000000 | 0x40000000)


def flags(fd):
    try:
        buf = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)
        f = buf[0] & USER_FLAGS
    except OSError:
        f = 0
    try:
        raw = fcntl.ioctl(fd, FS_IOC_FSGETXATTR, bytes(28))
        proj = struct.unpack("IIIII8s", raw)[3]
    except OSError:
        proj = 0
    return f, proj


def datamap(fd, size):
    h, off, spans = hashlib.sha256(), 0, []
    while off < size:
        try:
            data = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        hole = min(os.lseek(fd, data, os.SEEK_HOLE), size)
        spans.append("%d+%d" % (data, hole - data))
        pos = data
        while pos < hole:
            b = os.pread(fd, min(1 << 20, hole - pos), pos)
            if not b:
                break
            h.update(b)
            pos += len(b)
        off = hole
    return ",".join(spans) or "-", h.hexdigest()[:32]


def main(root):
    first, out = {}, []

    def walk(path, rel):
        out.append(record(path, rel, os.lstat(path), first))
        if stat.S_ISDIR(os.lstat(path).st_mode):
            for name in sorted(os.listdir(path)):
                walk(os.path.join(path, name), os.path.join(rel, name) if rel != "." else name)
    walk(root, ".")
    for line in out:
        print(line)


def record(path, rel, st, first):
    rel = rel.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    if not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1:
        if st.st_ino in first:
            return "%s\thardlink %s" % (rel, first[st.st_ino])
        first[st.st_ino] = rel
    kind = stat.filemode(st.st_mode)[0]
    x = []
    for n in sorted(os.listxattr(path, follow_symlinks=False)):
        x.append("%s=%s" % (n, os.getxattr(path, n, follow_symlinks=False).hex()))
    f, proj, dmap, digest, target = 0, 0, "", "", ""
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            f, proj = flags(fd)
            if stat.S_ISREG(st.st_mode):
                dmap, digest = datamap(fd, st.st_size)
        finally:
            os.close(fd)
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
    size = 0 if stat.S_ISDIR(st.st_mode) else st.st_size
    rdev = "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)) if kind in "cb" else "-"
    return ("%s\t%s mode=%o uid=%d gid=%d nlink=%d size=%d atime=%d mtime=%d rdev=%s flags=%#x "
            "projid=%d map=%s sha256=%s target=%r xattrs=[%s]" % (
                rel, kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_nlink, size,
                st.st_atime_ns, st.st_mtime_ns, rdev, f, proj, dmap, digest, target, " ".join(x)))


if __name__ == "__main__":
    main(sys.argv[1])
