#!/usr/bin/env python3
"""results.md of tools/bench/bench-inflate.sh from DIR/raw.tsv and DIR/env.txt (printed).

Per filesystem, one row per method: the median wall time of the deployment (copy, cloud-init's
growpart and growfs where the method needs them, sync) with the smallest and largest of the
rounds, the median of the per-round ratio to growth-inflate's run of the same round (paired:
the runs are minutes apart, the drift of a shared machine cancels), the bytes sent to the
target and the bytes it stores afterwards, the layout at the target's size and at the maximum, and the grown filesystem's growfs,
cold mount and check times.  Then the goals of the issue, each with its measured value.
"""
import csv
import os
import statistics
import sys

d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "raw.tsv")), delimiter="\t"))
env = open(os.path.join(d, "env.txt")).read()
used = {}
for line in env.splitlines():
    p = line.split()
    if len(p) == 3 and p[0] in ("xfs", "ext4") and p[1].isdigit():
        used[p[0]] = (int(p[1]), int(p[2]))

ORDER = ["dd", "dd-sparse", "qemu-img", "bmaptool", "fscopy", "growth-inflate"]  # and "mkfs"
# the copiers that write only the blocks the image or its filesystem uses
USED_ONLY = ["dd-sparse", "qemu-img", "bmaptool", "fscopy"]
GI = "growth-inflate"


def med(v):
    return statistics.median(v)


def mib(b):
    return "%.0f MiB" % (b / 1048576)


def rng(v, fmt="%.1f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (med(v), min(v), max(v))


def layout(fs, s):
    p = s.split()
    if fs == "xfs":
        return "%s AGs of %d MiB" % (p[0], int(p[1]) * 4096 // 1048576)
    return "%s groups, journal %s, %s reserved GDT blocks" % (p[0], p[1], p[2])


print("# growth-inflate against today's deployment paths (tools/bench/bench-inflate.sh)\n")
print("```")
print(env.rstrip())
print("```\n")
print("Wall time: copy, then (all but growth-inflate) cloud-init's growpart and growfs of the "
      "root (XFS mounted, ext4 offline: see the script), then sync; median of the rounds (smallest-largest).  Ratio: the median of "
      "each round's wall time over growth-inflate's in the same round.  Sent: the bytes the "
      "target's loop device was sent, zeroing requests included; stored: the bytes the sparse "
      "target holds afterwards, what a thin-provisioned volume would store (medians).  The "
      "grown columns: the same disk grown to the maximum by growpart and growfs (sparse), its "
      "growfs time, cold mount time and check (Debian's xfs_repair -n -P or e2fsck -fn; medians "
      "of the runs that measured it: every round for dd and growth-inflate, the first for the "
      "others, whose grown filesystem is dd's).  mkfs: the series' mkfs alone on the extended "
      "root partition, not a deployment: what the new filesystem stores before any copy.\n")
goals = []
for fs in ["xfs", "ext4"]:
    r = [x for x in rows if x["fs"] == fs]
    if not r:
        continue
    rounds = sorted({x["round"] for x in r}, key=int)
    by = {}
    for x in r:
        by.setdefault(x["method"], {})[x["round"]] = x
    gi = by.get(GI, {})
    print("## %s (%d rounds)\n" % (fs, len(rounds)))
    print("| method | wall s | ratio to growth-inflate | sent | stored | layout at the target's "
          "size | layout at the maximum | growfs s | mount s | check s | check |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    wall = {}
    for m in [m for m in ORDER + ["mkfs"] if m in by]:
        runs = by[m]
        w = [float(x["wall_s"]) for x in runs.values()]
        wall[m] = med(w)
        ratios = [float(runs[k]["wall_s"]) / float(gi[k]["wall_s"]) for k in runs if k in gi]
        grown = [x for x in runs.values() if x["check_ok"] != "-"]
        cells = ["-"] * 5
        if grown:
            cells = [layout(fs, grown[0]["layout_grown"])] + [
                "%.2f" % med([float(x[c]) for x in grown]) for c in ("growfs_s", "mount_s", "check_s")] + [
                "%d of %d clean" % (sum(int(x["check_ok"]) for x in grown), len(grown))]
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            m, rng(w), "%.2f" % med(ratios) if ratios and m != "mkfs" else "-",
            mib(med([int(x["sent_bytes"]) for x in runs.values()])),
            mib(med([int(x["stored_bytes"]) for x in runs.values()])),
            layout(fs, next(iter(runs.values()))["layout_target"]), " | ".join(cells)))
    print()
    if GI not in by:
        continue
    fast = min((m for m in USED_ONLY if m in wall), key=lambda m: wall[m], default=None)
    if fast:
        ratios = [float(gi[k]["wall_s"]) / float(by[fast][k]["wall_s"]) for k in gi if k in by[fast]]
        goals.append("%s: wall time of growth-inflate over the fastest copier of used blocks (%s), "
                     "paired median %.2f (%.2f-%.2f); goal at most 1.25" % (
                         fs, fast, med(ratios), min(ratios), max(ratios)))
    if fs in used and "mkfs" in by:
        st = med([int(x["stored_bytes"]) for x in gi.values()])
        mk = med([int(x["stored_bytes"]) for x in by["mkfs"].values()])
        goals.append("%s: growth-inflate stored %s: the new filesystem alone %s, the rest %s, "
                     "%.2f times the root's %s of used bytes (the rest includes the ESP and BIOS "
                     "boot partitions' data); goal at most 1.1" % (
                         fs, mib(st), mib(mk), mib(st - mk), (st - mk) / used[fs][0],
                         mib(used[fs][0])))
    if fs == "xfs" and "dd" in by:
        a_dd = int(by["dd"]["1"]["layout_grown"].split()[0])
        a_gi = int(gi["1"]["layout_grown"].split()[0])
        goals.append("xfs: AGs at the maximum, growth-inflate %d against dd's %d: 1/%.0f; goal at "
                     "most 1/20" % (a_gi, a_dd, a_dd / a_gi))
print("## Goals\n")
for g in goals:
    print("- " + g)
