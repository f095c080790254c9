#!/usr/bin/env python3
"""XFS allocation groups against growth: what each way of making a filesystem ends with.

ag-growth.py MKFS.XFS OUTDIR

No timing: the geometry comes from MKFS.XFS -N (the series' mkfs.xfs, which without a hint
makes exactly the unpatched 6.13 layout) on sparse files, the growth from xfs_growfs's rule
(AGs of the size as made, a last AG only if it holds at least XFS_MIN_AG_BLOCKS blocks).
Writes OUTDIR/raw.tsv, results.md and ag-growth.svg (log-log, no plotting library needed).
The files reach 64 TiB: TMPDIR must allow that (tmpfs, XFS), /dev/shm by default.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

GIB = 1 << 30
START = 10 * GIB
T = 1 << 40
FINALS = [10 * GIB, 20 * GIB, 50 * GIB, 100 * GIB, 200 * GIB, 500 * GIB, T, 2 * T, 5 * T, 10 * T,
          20 * T, 50 * T, 64 * T]
XFS_MIN_AG_BLOCKS = 64
LINES = [  # key, label, made on (bytes), growth_target (None: no hint; "F": the final size)
    ("made", "made at the final size", None, None),
    ("defaults", "defaults on 10 GiB, grown", START, None),
    ("hint-max-F", "hinted on 10 GiB, maximum = the final size", START, "F"),
    ("hint-max-64T", "hinted on 10 GiB, maximum 64 TiB", START, 64 * T),
    ("image-2G", "a 2 GiB image (defaults) copied and grown", 2 * GIB, None),
]


def geometry(mkfs, size, target):
    """(agcount, agblocks, blocksize) of mkfs.xfs -N on a sparse file of SIZE bytes."""
    with tempfile.NamedTemporaryFile(dir=os.environ.get("TMPDIR", "/dev/shm")) as f:
        f.truncate(size)
        cmd = [mkfs, "-N", "-f"]
        if target:
            cmd += ["-d", "growth_target=%dk" % (target // 1024)]
        out = subprocess.run(cmd + [f.name], check=True, capture_output=True, text=True).stdout
    ag = re.search(r"agcount=(\d+), agsize=(\d+) blks", out)
    bs = re.search(r"^data\s+=\s+bsize=(\d+)", out, re.M)
    return int(ag.group(1)), int(ag.group(2)), int(bs.group(1))


def grown(agcount, agblocks, bsize, final):
    """AGs after xfs_growfs to FINAL bytes."""
    dblocks = final // bsize
    n, rest = divmod(dblocks, agblocks)
    return max(agcount, n + (1 if rest >= XFS_MIN_AG_BLOCKS else 0))


def human(b):
    for unit, div in (("TiB", 1 << 40), ("GiB", GIB)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%.1f GiB" % (b / GIB)


def svg(rows, path):
    w, h, ml, mr, mt, mb = 760, 470, 70, 20, 20, 150
    xs = [math.log10(f / START) for f in FINALS]
    ymax = max(v for r in rows.values() for v in r)
    y0, y1 = 0, math.ceil(math.log10(ymax))
    px = lambda x: ml + (x - xs[0]) / (xs[-1] - xs[0]) * (w - ml - mr)
    py = lambda v: mt + (1 - (math.log10(v) - y0) / (y1 - y0)) * (h - mt - mb)
    colours = ["#000000", "#d62728", "#1f77b4", "#2ca02c", "#9467bd"]
    dash = ["", "", "6,3", "", "2,3"]
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="12">' % (w, h), '<rect width="100%" height="100%" fill="white"/>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ml, y, w - mr, y))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (ml - 6, y + 4, 10 ** e))
    for f in (10 * GIB, 100 * GIB, T, 10 * T, 64 * T):
        x = px(math.log10(f / START))
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, mt, x, h - mb))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, h - mb + 16, human(f)))
    o.append('<text x="%d" y="%d" text-anchor="middle">final size (log scale; the 10 GiB lines start at 10 GiB)</text>'
             % ((ml + w - mr) / 2, h - mb + 36))
    o.append('<text transform="translate(16,%d) rotate(-90)" text-anchor="middle">'
             'allocation groups</text>' % ((mt + h - mb) / 2))
    for i, (key, label, _, _) in enumerate(LINES):
        pts = " ".join("%.1f,%.1f" % (px(x), py(v)) for x, v in zip(xs, rows[key]))
        o.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2" '
                 'stroke-dasharray="%s"/>' % (pts, colours[i], dash[i]))
        ly = h - mb + 56 + 16 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2" '
                 'stroke-dasharray="%s"/>' % (ml, ly - 4, ml + 30, ly - 4, colours[i], dash[i]))
        o.append('<text x="%d" y="%d">%s</text>' % (ml + 38, ly, label))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    mkfs, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    version = subprocess.run([mkfs, "-V"], capture_output=True, text=True).stdout.strip()
    rows, made = {}, {}
    with open(os.path.join(outdir, "raw.tsv"), "w") as raw:
        raw.write("layout\tfactor\tfinal_bytes\tmade_on_bytes\tagblocks\tagcount\n")
        for key, _, on, target in LINES:
            rows[key] = []
            for final in FINALS:
                f = final / START
                if on is None:
                    agc, agb, bs = geometry(mkfs, final, None)
                else:
                    t = final if target == "F" else target
                    agc, agb, bs = geometry(mkfs, on, t if t and t > on else None)
                    agc = grown(agc, agb, bs, final)
                rows[key].append(agc)
                raw.write("%s\t%g\t%d\t%d\t%d\t%d\n" % (key, f, final, on or final, agb, agc))
    svg(rows, os.path.join(outdir, "ag-growth.svg"))
    with open(os.path.join(outdir, "results.md"), "w") as md:
        md.write("# XFS allocation groups against growth (tools/bench/ag-growth.py)\n\n")
        md.write("Geometry from `%s -N` on sparse files; growth by xfs_growfs's rule (AGs of the\n"
                 "size as made). Computed, not timed: what the format fixes at mkfs.\n\n" % version)
        md.write("![AG count against growth](ag-growth.svg)\n\n")
        md.write("| final size | growth | " + " | ".join(l[1] for l in LINES) + " |\n")
        md.write("|---|---|" + "---|" * len(LINES) + "\n")
        for i, final in enumerate(FINALS):
            md.write("| %s | %gx | %s |\n" % (human(final), final / START, " | ".join(
                "{:,}".format(rows[k][i]) for k, _, _, _ in LINES)))
    with open(os.path.join(outdir, "env.txt"), "w") as env:
        env.write("mkfs: %s (%s)\nstart: %s; final sizes: %s\n" % (
            mkfs, version, human(START), ", ".join(map(human, FINALS))))
    print(open(os.path.join(outdir, "results.md")).read())


if __name__ == "__main__":
    main()
