#!/usr/bin/python3
"""The tables of tools/bench/bench-cost.sh from its raw.tsv (markdown on stdout).

usage: cost-report.py RESULTS-DIR

Per part, filesystem, condition, measure, thread count and layout: the median with min-max over
the rounds, the median of the per-round paired ratios layout / defaults ("cost": above 1 is
worse; for the free space in large extents, defaults / layout) with a bootstrap 95% interval of
that median (10,000 resamples, fixed seed), and the median of the per-round differences
(layout - defaults, in the measure's unit).  The verdict compares the interval with the rule
"no worse than the defaults by more than 10%": met if its upper end is at most 1.10, failed if
its lower end is above 1.10, else inconclusive.  The A/A row ("aa", the defaults again) shows the
noise floor: its interval is what "no difference" looks like on this machine.
"""
import csv
import os
import random
import statistics
import sys

LIMIT = 1.10
NAMES = {"defaults": "defaults (no hints)", "aa": "defaults again (A/A control)",
         "native": "plain mkfs on the hinted disk", "image": "XFS image mode of v3 (one AG; withdrawn, older runs only)",
         "ref": "made at the final size (no growth)"}
ORDER = ("defaults", "aa", "native", "image", "ref")
UNITS = {"writers": "s", "meta": "s", "fsck": "s", "mount": "s", "free_1m": "%",
         "grow_median": "s", "grow_total": "s",
         "free_extents": "extents", "avail": "GiB", "favail": "inodes"}
MEASURES = {"grow_median": "one growth, median seconds", "grow_total": "all growths, seconds",
            "writers": "writers, seconds", "meta": "metadata, seconds", "fsck": "fsck, seconds",
            "mount": "mount, seconds", "free_1m": "free space in extents >= 1 MiB, %",
            "free_extents": "free extents (fragments)", "avail": "free space after mkfs, GiB",
            "favail": "free inodes after mkfs"}


def bootstrap_median(values, n=10000, seed=20261204):
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def fmt(v):
    return "%.3f" % v if abs(v) < 1 else "%.2f" % v


def verdict(lo, hi):
    return "met" if hi <= LIMIT else "failed" if lo > LIMIT else "inconclusive"


def main():
    outdir = sys.argv[1]
    with open(os.path.join(outdir, "raw.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    vals, groups, loads = {}, {}, []
    for r in rows:
        key = (r["part"], r["fs"], r["condition"], r["measure"], int(r["threads"]), r["layout"])
        v = float(r["value"])
        vals.setdefault(key, {})[int(r["round"])] = v / 2 ** 30 if r["measure"] == "avail" else v
        groups[(r["fs"], r["part"], r["layout"])] = r["groups"]
        loads.append(float(r["load1"]))
    print("# What users pay: the layouts of a hinted disk against the defaults "
          "(tools/bench/bench-cost.sh)\n")
    with open(os.path.join(outdir, "env.txt")) as f:
        print("```\n" + f.read().rstrip() + "\n```\n")
    if loads:
        print("Load average (1 min) at the start of the cells: median %.2f, min %.2f, max %.2f.\n"
              % (statistics.median(loads), min(loads), max(loads)))
    verdicts, by_part, slower = {}, {}, {}
    titles = (("space", "What the empty filesystem offers at the size as made"),
              ("fill", "A disk that never grows: empty, 50% and 90% full"),
              ("steps", "A disk grown in its provider's steps, each at ~99% full"),
              ("age", "A disk grown with ageing between the steps"))
    for part, title in titles:
        keys = sorted({k[:5] for k in vals if k[0] == part},
                      key=lambda k: (k[1], k[2].rjust(6), list(MEASURES).index(k[3]), k[4]))
        if not keys:
            continue
        print("## %s\n" % title)
        print("| fs | condition | measure | threads | layout | groups | median (min-max) | "
              "cost ratio to defaults, median [95%% CI] | difference, median | verdict (<= %.2f) |"
              % LIMIT)
        print("|---|---|---|---|---|---|---|---|---|---|")
        for k in keys:
            base = vals.get(k + ("defaults",), {})
            for layout in ORDER:
                cur = vals.get(k + (layout,))
                if not cur:
                    continue
                v = list(cur.values())
                unit = UNITS[k[3]]
                f = (lambda x: "%d" % x) if unit in ("extents", "inodes") else fmt
                cell = "%s %s (%s-%s)" % (f(statistics.median(v)), unit, f(min(v)), f(max(v)))
                if layout == "defaults":
                    ratio, diff, verd = "1 (the reference)", "", ""
                else:
                    rounds = [r for r in cur if r in base and base[r] > 0 and cur[r] > 0]
                    if k[3] in ("free_1m", "avail", "favail"):
                        ratios = [base[r] / cur[r] for r in rounds]
                    else:
                        ratios = [cur[r] / base[r] for r in rounds]
                    diffs = [cur[r] - base[r] for r in rounds]
                    if not ratios:
                        continue
                    lo, hi = bootstrap_median(ratios)
                    ratio = "%.2f [%.2f-%.2f]" % (statistics.median(ratios), lo, hi)
                    diff = ("%+d %s" if unit in ("extents", "inodes") else "%+.3f %s") % (
                        statistics.median(diffs), unit)
                    verd = verdict(lo, hi)
                    verdicts.setdefault(layout, {}).setdefault(verd, 0)
                    verdicts[layout][verd] += 1
                    d = by_part.setdefault((part, layout), {})
                    d[verd] = d.get(verd, 0) + 1
                    if len(ratios) > 1 and min(ratios) > 1:
                        slower[part, layout] = slower.get((part, layout), 0) + 1
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    k[1], k[2], MEASURES[k[3]], k[4] or "", NAMES[layout],
                    groups.get((k[1], part, layout), "?"), cell, ratio, diff, verd))
        print()
    print("## Verdicts per layout (cells met / inconclusive / failed)\n")
    print("| layout | met | inconclusive | failed |")
    print("|---|---|---|---|")
    for layout in ORDER:
        if layout in verdicts:
            d = verdicts[layout]
            print("| %s | %d | %d | %d |" % (NAMES[layout], d.get("met", 0),
                                             d.get("inconclusive", 0), d.get("failed", 0)))
    print()
    print("## Verdicts per section and layout\n")
    print("The same verdicts, counted per section. \"Every round worse\": cells in which the layout")
    print("did worse than the defaults in each paired round (a consistent difference, however")
    print("small; with 5 rounds, chance alone gives this about 3% of the time per cell). With 5")
    print("rounds the bootstrap interval of the median is the smallest and largest paired ratio.\n")
    print("| section | layout | met | inconclusive | failed | every round worse |")
    print("|---|---|---|---|---|---|")
    for part, title in titles:
        for layout in ORDER:
            d = by_part.get((part, layout))
            if d:
                print("| %s | %s | %d | %d | %d | %d |" % (
                    title, NAMES[layout], d.get("met", 0), d.get("inconclusive", 0),
                    d.get("failed", 0), slower.get((part, layout), 0)))
    print()


if __name__ == "__main__":
    main()
