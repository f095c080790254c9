#!/usr/bin/env python3
"""results.md of tools/bench/bench-many-ags.sh from its raw.tsv (delay_ms, layout, measure, run,
value): medians with min-max over the runs, per layout and delay."""
import collections, statistics, sys

rows = collections.defaultdict(list)  # (delay, layout, measure) -> [values]
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        d, l, m, r, v = line.rstrip("\n").split("\t")
        try:
            rows[d, l, m].append(float(v))
        except ValueError:
            pass
delays = sorted({k[0] for k in rows}, key=float)
ORDER = ["s2", "t15", "h64", "g2", "t10", "h10", "g10"]
layouts = sorted({k[1] for k in rows if k[1] not in ("-", "grow")},
                 key=lambda l: (ORDER.index(l) if l in ORDER else 99, l))


def fmt(v, unit=""):
    if v is None:
        return "-"
    if unit == "MiB":
        return "%.0f" % (v / 1024)
    if v == int(v) and unit != "s":
        return "%d" % v
    return "%.3f" % v if v < 100 else "%.1f" % v


def cell(d, l, m, unit="s", spread=True):
    v = rows.get((d, l, m))
    if not v:
        return "-"
    med = statistics.median(v)
    if not spread or len(v) == 1 or min(v) == max(v):
        return fmt(med, unit)
    return "%s (%s-%s)" % (fmt(med, unit), fmt(min(v), unit), fmt(max(v), unit))


def agcount(l):
    for d in delays:
        v = rows.get((d, l, "agcount"))
        if v:
            return "{:,}".format(int(v[0]))
    return "-"


print("# XFS with many allocation groups on a latency device\n")
print("`tools/bench/bench-many-ags.sh` (env.txt: kernel, parameters, machine). A guest under TCG, one")
print("vCPU; each layout's image is a virtio disk behind dm-delay; \"delay\" is dm-delay's setting,")
print("\"read latency\" what a 4 KiB reader at queue depth 1 measured through it. Times in seconds:")
print("the median of the runs with min-max; reads and writes: completed on the dm device.\n")
print("## Mount and unmount (cold)\n")
print("| layout | AGs | delay (ms) | read latency (ms) | mount (s) | reads | writes | unmount (s) |")
print("|---|---|---|---|---|---|---|---|")
for l in layouts:
    for d in delays:
        if not rows.get((d, l, "mount_s")):
            continue
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            l, agcount(l), d, cell(d, "-", "read_latency_ms", "", False), cell(d, l, "mount_s"),
            cell(d, l, "mount_reads", ""), cell(d, l, "mount_writes", ""), cell(d, l, "umount_s")))

PHASES = ["setup", "perag_init", "log_mount", "root_and_counters", "reserve_1",
          "log_mount_finish", "reserve_2", "mountfs_total"]
if any(k[2].startswith("phase_") and k[2][6:-2] in PHASES for k in rows):
    print("\n## Mount phases (s, median), as the kernel timed them\n")
    print("xfs_mountfs() in order: setup (superblock and geometry), perag_init (per-AG structures),")
    print("log_mount, root_and_counters (root inode, summary counters), reserve_1 (the per-AG")
    print("reservations taken for log recovery), log_mount_finish (recovery's second half, then")
    print("the buffer cache is emptied), reserve_2 (the reservations again, for good), and the total.\n")
    print("| layout | delay (ms) | " + " | ".join(PHASES) + " |")
    print("|---|---|" + "---|" * len(PHASES))
    for l in layouts:
        for d in delays:
            if not rows.get((d, l, "phase_mountfs_total_s")):
                continue
            print("| %s | %s | %s |" % (l, d, " | ".join(cell(d, l, "phase_%s_s" % p, "s", False) for p in PHASES)))
    UPH = ["unmount_flush", "unmount_log", "unmount_free_perag"]
    print("\n### Unmount phases (s, median)\n")
    print("| layout | delay (ms) | " + " | ".join(UPH) + " |")
    print("|---|---|" + "---|" * len(UPH))
    for l in layouts:
        for d in delays:
            if rows.get((d, l, "phase_unmount_log_s")):
                print("| %s | %s | %s |" % (l, d, " | ".join(cell(d, l, "phase_%s_s" % p, "s", False) for p in UPH)))

if any(k[1] == "grow" for k in rows):
    GPH = ["growfs_perag_init", "growfs_build_headers", "growfs_write_headers", "growfs_new_ag_headers",
           "growfs_commit", "growfs_reserve", "growfs_secondary_sbs"]
    print("\n## growfs of a fresh 2 GiB filesystem (4 AGs) to 15 TiB\n")
    print("Free memory fallen: how far MemFree of the guest fell below its value before xfs_growfs,")
    print("sampled every 100 ms (the new AG headers are kernel buffers).\n")
    print("| delay (ms) | AGs after | growfs (s) | reads | writes | free memory fallen (MiB) |")
    print("|---|---|---|---|---|---|")
    for d in delays:
        if rows.get((d, "grow", "growfs_s")):
            ag = rows.get((d, "grow", "agcount"))
            print("| %s | %s | %s | %s | %s | %s |" % (
                d, "{:,}".format(int(ag[-1])) if ag else "-", cell(d, "grow", "growfs_s"),
                cell(d, "grow", "growfs_reads", ""), cell(d, "grow", "growfs_writes", ""),
                cell(d, "grow", "growfs_memdrop_kib", "MiB")))
    if any(k[1] == "grow" and k[2].startswith("phase_") for k in rows):
        print("\n### growfs phases (s, median)\n")
        print("perag_init (the new per-AG structures), build_headers (the new AGs' header buffers),")
        print("write_headers (their delayed-write list submitted and waited for; new_ag_headers is both),")
        print("commit, reserve (the per-AG reservations of every AG), secondary_sbs (every AG's")
        print("superblock rewritten).\n")
        print("| delay (ms) | " + " | ".join(p[7:] for p in GPH) + " |")
        print("|---|" + "---|" * len(GPH))
        for d in delays:
            if rows.get((d, "grow", "growfs_s")):
                print("| %s | %s |" % (d, " | ".join(cell(d, "grow", "phase_%s_s" % p, "s", False) for p in GPH)))

reps = sorted({k[2][:-2] for k in rows if k[2].startswith("repair_") and k[2].endswith("_s")
               and rows.get((k[0], k[1], k[2][:-2] + "_status"))})
if reps:
    print("\n## xfs_repair -n\n")
    print("debian: Debian 12's 6.1; series: the project's 6.13. Status -1: stopped at the timeout")
    print("(env.txt). Threads: the most seen, sampled every 100 ms; RSS: the peak (getrusage);")
    print("free memory fallen: as for growfs (the page cache of the device counts too).\n")
    print("| layout | AGs | delay (ms) | xfs_repair | options | time (s) | status | threads | peak RSS (MiB) | free memory fallen (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for l in layouts:
        for d in delays:
            for r in reps:
                if not rows.get((d, l, r + "_s")):
                    continue
                prog, opt = r.split("_")[1], "-n -P" if r.endswith("_P") else "-n"
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    l, agcount(l), d, prog, opt, cell(d, l, r + "_s"), cell(d, l, r + "_status", ""),
                    cell(d, l, r + "_threads", ""), cell(d, l, r + "_maxrss_kib", "MiB"),
                    cell(d, l, r + "_memdrop_kib", "MiB")))
