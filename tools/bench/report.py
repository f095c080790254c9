#!/usr/bin/python3
"""The regret matrix of tools/bench/bench.sh from its raw.tsv: results.md and regret.png.

usage: report.py BENCH-DIR KEY=VALUE...   (the run's parameters, for the text)

Every measure becomes a cost ratio to the filesystem made at F in the same run (above 1 is
worse): times as variant / reference, free space and free inodes as reference / variant.
A cell is the median of the runs' ratios with their minimum and maximum.
"""
import math
import os
import statistics
import sys

bench = sys.argv[1]
par = dict(a.split("=", 1) for a in sys.argv[2:])

COLS = ["fs", "final", "variant", "run", "groups", "log", "inodes", "used", "fsck", "fsckp",
        "mount", "meta", "stream", "avail", "favail"]
# (key, label, kind): kind "time" = variant / ref, "space" = ref / variant
MEASURES = [("fsck", "fsck", "time"),
            ("fsckp", "fsck, one thread (XFS: -P)", "time"), ("mount", "mount", "time"),
            ("meta", "metadata (%s threads)" % par.get("threads", "?"), "time"),
            ("stream", "streaming write", "time"), ("avail", "free space", "space"),
            ("favail", "free inodes", "space")]
# The targets of issue 13 for the policy across F, per measure.
TARGET = {"fsck": 1.25, "fsckp": 1.25, "mount": 1.25, "meta": 1.10, "stream": 1.10, "avail": 1.10,
          "favail": 1.10}
NAMES = {"defaults": "mkfs defaults", "policy": "growth-mkfs policy",
         "native": "series mkfs.xfs as on a hinted disk (three AGs within it)",
         "image": "series mkfs.xfs image mode of v3 (one AG; withdrawn, older runs only)",
         "ref": "made at F", "ref-series": "series mkfs.xfs made at F"}
VARIANTS = ("defaults", "policy", "native", "image")
# Issue 15's target for the native tools: fsck and mount within 2x of made at F.
NATIVE_TARGET = {"fsck": 2.0, "fsckp": 2.0, "mount": 2.0}


def size_bytes(s):
    units = "KMGTP"
    return int(s[:-1]) << (10 * (units.index(s[-1].upper()) + 1)) if s[-1].upper() in units \
        else int(s)


rows = []
with open(os.path.join(bench, "raw.tsv")) as f:
    for line in f:
        v = line.rstrip("\n").split("\t")
        if len(v) != len(COLS):
            continue
        r = dict(zip(COLS, v))
        for k in COLS[3:]:
            r[k] = float(r[k])
        rows.append(r)
if not rows:
    sys.exit("report.py: no results in raw.tsv")

start = par.get("start", "10G")
finals = sorted({r["final"] for r in rows}, key=size_bytes)
fss = [fs for fs in ("xfs", "ext4") if any(r["fs"] == fs for r in rows)]


def ref_of(fs, final, run, variant="defaults"):
    """The reference of a run: made at F; at F = start the defaults are that filesystem.
    The native variants' reference is the series' mkfs at F (at F = start its defaults)."""
    if variant in ("native", "image"):
        refs = ("ref-series",)
    elif size_bytes(final) != size_bytes(start):
        refs = ("ref", "defaults")
    else:
        refs = ("defaults",)
    for var in refs:
        for r in rows:
            if (r["fs"], r["final"], r["variant"], r["run"]) == (fs, final, var, run):
                return r
    return None


def ratio(kind, v, ref):
    if kind == "time":
        return v / ref if ref > 0 else float("nan")
    return ref / v if v > 0 else float("inf")


cells = {}   # (fs, final, variant, measure) -> (median, min, max, median raw value)
for fs in fss:
    for final in finals:
        for var in VARIANTS + ("ref", "ref-series"):
            mine = [r for r in rows if (r["fs"], r["final"], r["variant"]) == (fs, final, var)]
            if var == "ref" and not mine and size_bytes(final) == size_bytes(start):
                mine = [r for r in rows if (r["fs"], r["final"], r["variant"]) ==
                        (fs, final, "defaults")]
            if not mine:
                continue
            for key, _, kind in MEASURES:
                rs = []
                for r in mine:
                    ref = ref_of(fs, final, r["run"], var)
                    if ref is not None:
                        rs.append(ratio(kind, r[key], ref[key]))
                if rs:
                    cells[(fs, final, var, key)] = (statistics.median(rs), min(rs), max(rs),
                                                    statistics.median(r[key] for r in mine))


def geo(fs, final, var):
    mine = [r for r in rows if (r["fs"], r["final"], r["variant"]) == (fs, final, var)]
    if var == "ref" and not mine:
        mine = [r for r in rows if (r["fs"], r["final"], r["variant"]) == (fs, final, "defaults")]
    if not mine:
        return None
    r = mine[0]
    g = "%d %s" % (r["groups"], "AGs" if fs == "xfs" else "groups")
    g += ", %s %d MiB" % ("log" if fs == "xfs" else "journal", r["log"] / 2 ** 20)
    if fs == "ext4":
        g += ", %.0fM inodes" % (r["inodes"] / 1e6)
    return g + ", %d%% used" % statistics.median(x["used"] for x in mine)


def raw_text(key, raw):
    if key == "avail":
        return "%.1f GiB" % (raw / 2 ** 30)
    if key == "favail":
        return "%.3gM" % (raw / 1e6)
    return "%.3g s" % raw


def absolute(k):
    """The raw medians of a cell and of its reference: what a user pays, beside the ratio."""
    fs, final, var, key = k
    if var in ("native", "image"):
        refs = ("ref-series",)
    elif size_bytes(final) != size_bytes(start):
        refs = ("ref",)
    else:
        refs = ("defaults", "ref")
    for r in refs:
        if (fs, final, r, key) in cells and r != var:
            return "%s against %s" % (raw_text(key, cells[k][3]),
                                      raw_text(key, cells[(fs, final, r, key)][3]))
    return raw_text(key, cells[k][3])


def fmt_cell(c, key):
    med, lo, hi, raw = c
    return "%.2f (%.2f-%.2f) %s" % (med, lo, hi, raw_text(key, raw))


out = []
out.append("# growth-mkfs regret matrix\n")
out.append(
    "Produced by `%s` (tools/bench/bench.sh) in %.0f s on %s cores; %s. Disk: %s that may grow to %s "
    "in %s steps (`--min %s --max %s --increment %s`), final sizes F = %s reached by the cloud "
    "pattern (fill to ~99%% with fallocate, grow, repeat) scaled to at most %s geometric growth "
    "steps; F = %s never grows (tree, then fill to 90%%). Population: %s files with data in %s "
    "directories (gh-bench populate, seed %s), added in equal parts as the disk grows; every "
    "variant of a run replays the fill of the defaults variant. %s runs, a fresh filesystem each; "
    "cell = median ratio to the filesystem made at F in the same run (min-max over the runs) and "
    "the median raw value; above 1 is worse. fsck: `xfs_repair -n` / `e2fsck -fn` (caches "
    "dropped; the median of up to 3 while they take under 2 s); fsck, one thread: "
    "`xfs_repair -n -P` (no prefetch threads: what the format costs, not repair's threading "
    "on %s cores) / `e2fsck -fn` again (it has one thread anyway), once; mount: caches dropped, the "
    "median of 5; metadata: gh-bench meta, %s threads, %s files create+1 KiB write / syncfs / "
    "stat / unlink / syncfs, the median of 3; streaming write: %s, fsync; free "
    "space and free inodes: `df` after the growth (ratio = reference / variant). XFS grown "
    "online with xfs_growfs; ext4 grown %s. Load average before -> after: %s. Tools: %s."
    % ("BENCH_QUICK=1 make bench" if par.get("quick") == "1" else "make bench",
       float(par.get("seconds", "0")), par.get("cores", "?"),
       "quick subset" if par.get("quick") == "1" else "full matrix", start,
       par.get("ceiling"), par.get("increment"), start, par.get("ceiling"), par.get("increment"),
       ", ".join(finals), par.get("steps"), start, par.get("files"), par.get("dirs"),
       par.get("seed"), par.get("runs"), par.get("cores", "?"), par.get("threads"), par.get("meta"), par.get("stream"),
       par.get("grow"), par.get("load"), par.get("versions")))
out.append("\nPolicy options (growth-mkfs at %s for max %s): %s\n" % (start, par.get("ceiling"),
                                                                   par.get("policy")))

# Headline: the worst ratio of each variant across F.
out.append("## Headline: worst ratio per variant across F\n")
out.append("| fs | variant | worst median ratio (measure, F) | its raw medians, variant against "
           "reference | worst single run | at F = %s vs defaults (native: the series' defaults) |"
           % start)
out.append("|---|---|---|---|---|---|")
head = {}
for fs in fss:
    for var in VARIANTS:
        worst = max(((cells[k][0], k) for k in cells if k[0] == fs and k[2] == var),
                    default=None)
        worst_run = max(((cells[k][2], k) for k in cells if k[0] == fs and k[2] == var),
                        default=None)
        if not worst:
            continue
        label = dict((m[0], m[1]) for m in MEASURES)
        s0 = ""
        if var != "defaults" and (fs, start, var, "fsck") in cells:
            # at F = start the reference is the defaults: this is variant / defaults
            w0 = max((cells[(fs, start, var, m[0])][0], m[0]) for m in MEASURES
                     if (fs, start, var, m[0]) in cells)
            s0 = "worst %.2f (%s)" % (w0[0], label[w0[1]])
        head[(fs, var)] = worst
        out.append("| %s | %s | **%.2f** (%s, F=%s) | %s | %.2f (%s, F=%s) | %s |" % (
            fs, NAMES[var], worst[0], label[worst[1][3]], worst[1][1],
            absolute(worst[1]), worst_run[0], label[worst_run[1][3]], worst_run[1][1],
            s0 or "(is the reference)"))

# Targets of issue 13 for the policy.
out.append("\n## The policy against the targets\n")
out.append("| fs | measure | target | policy worst across F (F) | met |")
out.append("|---|---|---|---|---|")
for fs in fss:
    for key, label, _ in MEASURES:
        ws = [(cells[(fs, f, "policy", key)][0], f) for f in finals
              if (fs, f, "policy", key) in cells]
        if not ws:
            continue
        w = max(ws)
        out.append("| %s | %s | %.2f | %.2f (F=%s) | %s |" % (
            fs, label, TARGET[key], w[0], w[1], "yes" if w[0] <= TARGET[key] else "**no**"))
for fs in fss:
    if (fs, start, "policy", "fsck") in cells:
        w0 = max((cells[(fs, start, "policy", m[0])][0], m[1]) for m in MEASURES
                 if (fs, start, "policy", m[0]) in cells)
        out.append("| %s | any, at F = %s, vs defaults | 1.05 | %.2f (%s) | %s |" % (
            fs, start, w0[0], w0[1], "yes" if w0[0] <= 1.05 else "**no**"))

# Issue 15's target for the native tools.
if any(k[2] in ("native", "image") for k in cells):
    out.append("\n## The native tools against their target (fsck and mount within 2x at every F)"
               "\n")
    out.append("| fs | variant | measure | worst across F (F) | worst single run | met |")
    out.append("|---|---|---|---|---|---|")
    for fs in fss:
        for var in ("native", "image"):
            for key, target in NATIVE_TARGET.items():
                ws = [(cells[(fs, f, var, key)][0], f) for f in finals
                      if (fs, f, var, key) in cells]
                if not ws:
                    continue
                w = max(ws)
                wr = max(cells[(fs, f, var, key)][2] for f in finals
                         if (fs, f, var, key) in cells)
                out.append("| %s | %s | %s | %.2f (F=%s) | %.2f | %s |" % (
                    fs, NAMES[var], key, w[0], w[1], wr, "yes" if w[0] <= target else "**no**"))

# The full matrix.
for fs in fss:
    out.append("\n## %s\n" % fs)
    out.append("| F | variant | geometry | " + " | ".join(m[1] for m in MEASURES) + " |")
    out.append("|---|---|---|" + "---|" * len(MEASURES))
    for final in finals:
        for var in ("ref", "ref-series") + VARIANTS:
            if (fs, final, var, "fsck") not in cells:
                continue
            if var == "defaults" and size_bytes(final) == size_bytes(start):
                continue   # the same filesystem as the reference
            g = geo(fs, final, var) or ""
            out.append("| %s | %s | %s | %s |" % (
                final, NAMES[var] if not (var == "ref" and size_bytes(final) ==
                                          size_bytes(start)) else "made at F = defaults",
                g, " | ".join(fmt_cell(cells[(fs, final, var, m[0])], m[0]) for m in MEASURES)))

md = "\n".join(out) + "\n"
with open(os.path.join(bench, "results.md"), "w") as f:
    f.write(md)
print(md)

# The chart: ratio vs final size, one line per variant, one panel per fs and measure.
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402

fig, axes = plt.subplots(len(fss), len(MEASURES), figsize=(3.2 * len(MEASURES), 3.0 * len(fss)),
                         squeeze=False)
xs = [size_bytes(f) / 2 ** 30 for f in finals]
for i, fs in enumerate(fss):
    for j, (key, label, _) in enumerate(MEASURES):
        ax = axes[i][j]
        for var, style in (("defaults", "o-"), ("policy", "s-"), ("native", "^-"),
                           ("image", "v--")):
            pts = [(size_bytes(f) / 2 ** 30, cells[(fs, f, var, key)]) for f in finals
                   if (fs, f, var, key) in cells]
            if not pts:
                continue
            x = [p[0] for p in pts]
            med = [p[1][0] for p in pts]
            lo = [p[1][0] - p[1][1] for p in pts]
            hi = [p[1][2] - p[1][0] for p in pts]
            ax.errorbar(x, med, yerr=[lo, hi], fmt=style, capsize=3, label=NAMES[var])
        ax.axhline(1, color="grey", lw=0.8, label="made at F")
        ax.set_xscale("log")
        vals = [cells[(fs, f, v, key)][k] for f in finals for v in VARIANTS
                for k in (1, 2) if (fs, f, v, key) in cells]
        wide = vals and max(vals) / max(min(vals), 1e-9) > 4
        if wide:
            ax.set_yscale("log")
        ax.set_xticks(xs)
        ax.set_xticklabels(finals, fontsize=7)
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        if wide:
            plain = ticker.FuncFormatter(lambda v, _: "%g" % v)
            ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(plain)
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.tick_params(labelsize=7)
        ax.set_title("%s: %s" % (fs, label), fontsize=9)
        if i == len(fss) - 1:
            ax.set_xlabel("final size F", fontsize=8)
        if not wide:
            lo_, hi_ = ax.get_ylim()
            ax.set_ylim(min(lo_, 0.8), max(hi_, 1.25))
        ax.set_ylabel("cost ratio (log)" if wide else "cost ratio", fontsize=7)
axes[0][0].legend(fontsize=7)
fig.suptitle("growth-mkfs regret matrix: start %s, ceiling %s (median of %s runs, bars: min-max)"
             % (start, par.get("ceiling"), par.get("runs")), fontsize=10)
fig.tight_layout()
fig.savefig(os.path.join(bench, "regret.png"), dpi=90, metadata={"Software": None})
if not math.isfinite(max(v[0] for v in cells.values())):
    print("report.py: some ratios are not finite", file=sys.stderr)
