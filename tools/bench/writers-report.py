#!/usr/bin/python3
"""The parallel-writers table of scripts/bench-writers.sh from its raw.tsv (markdown on stdout).

usage: writers-report.py RESULTS-DIR

Per workload, thread count and layout: the median seconds with min-max over the rounds, and
the median of the per-round ratios layout / defaults (above 1 is slower) with a bootstrap 95%
interval of that median (10,000 resamples, fixed seed).  The verdict compares the interval with
the rule "no worse than the defaults by more than 10%": met if its upper end is at most 1.10,
failed if its lower end is above 1.10, else inconclusive.  The A/A row ("aa", the defaults
again) shows the noise floor: its interval is what "no difference" looks like here.
"""
import csv
import os
import random
import statistics
import sys

LIMIT = 1.10
NAMES = {"defaults": "mkfs.xfs defaults (no hints)", "aa": "defaults again (A/A control)",
         "native": "plain mkfs.xfs on the hinted disk", "image": "image mode (one AG, opt-in)"}


def bootstrap_median(values, n=10000, seed=20261204):
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def main():
    outdir = sys.argv[1]
    with open(os.path.join(outdir, "raw.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    secs, agcount = {}, {}
    for r in rows:
        key = (r["workload"], int(r["threads"]), r["layout"])
        secs.setdefault(key, {})[int(r["round"])] = float(r["seconds"])
        agcount[r["layout"]] = r["agcount"]
    print("# Parallel writers on a disk that never grows (scripts/bench-writers.sh)\n")
    with open(os.path.join(outdir, "env.txt")) as f:
        print("```\n" + f.read().rstrip() + "\n```\n")
    print("| workload | threads | layout | AGs | seconds, median (min-max) | ratio to defaults, "
          "median [95%% CI] | verdict (<= %.2f) |" % LIMIT)
    print("|---|---|---|---|---|---|---|")
    for workload in ("writers", "meta"):
        for threads in sorted({k[1] for k in secs if k[0] == workload}):
            base = secs.get((workload, threads, "defaults"), {})
            for layout in ("defaults", "aa", "native", "image"):
                cur = secs.get((workload, threads, layout))
                if not cur:
                    continue
                v = list(cur.values())
                cell = "%.2f (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
                if layout == "defaults":
                    ratio, verdict = "1 (the reference)", ""
                else:
                    ratios = [cur[r] / base[r] for r in cur if r in base and base[r] > 0]
                    lo, hi = bootstrap_median(ratios)
                    ratio = "%.2f [%.2f-%.2f]" % (statistics.median(ratios), lo, hi)
                    verdict = "met" if hi <= LIMIT else "failed" if lo > LIMIT else "inconclusive"
                print("| %s | %d | %s | %s | %s | %s | %s |" % (
                    workload, threads, NAMES.get(layout, layout), agcount.get(layout, "?"),
                    cell, ratio, verdict))
    print()


if __name__ == "__main__":
    main()
