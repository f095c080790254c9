#!/usr/bin/env bash
# Benchmark: a filesystem made for its final size, against one made with mkfs
# defaults at the start size and grown the way clouds grow disks (fill to
# ~99%, grow, repeat), and one made at the start size with growth-mkfs's
# options.  ext4 and XFS, loop devices on sparse files, root only.
# Output: build/bench/results.md, build/bench/chart.png, build/bench/raw.tsv.
# Knobs: BENCH_START (10G), BENCH_FINAL (4T), BENCH_STEPS (40), BENCH_RUNS (3),
# BENCH_FILES (20000), BENCH_BIGFILE (16G), BENCH_FS ("xfs ext4").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=${BENCH_START:-10G}
final=${BENCH_FINAL:-4T}
steps=${BENCH_STEPS:-40}
runs=${BENCH_RUNS:-3}
nfiles=${BENCH_FILES:-20000}
bigfile=${BENCH_BIGFILE:-16G}
fslist=${BENCH_FS:-xfs ext4}
bench="$top/build/bench"
tool="$top/tools/growth-mkfs"
py=/usr/bin/python3

[ "$(id -u)" -eq 0 ] || die "needs root for loop devices and mounts: run it as root (sudo make bench)"
[ -x "$tool" ] || die "$tool is missing: run 'make -C tools' first"

# Everything this script needs, from Debian by package name.
need=()
for p in mkfs.xfs:xfsprogs xfs_repair:xfsprogs mkfs.ext4:e2fsprogs e2fsck:e2fsprogs \
	filefrag:e2fsprogs losetup:mount fallocate:util-linux; do
	command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
done
"$py" -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
if [ ${#need[@]} -gt 0 ]; then
	info "installing ${need[*]}"
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"; } \
		>"$GH_CACHE/bench-apt.log" 2>&1 ||
		die "apt-get install ${need[*]} failed; see $GH_CACHE/bench-apt.log"
fi

bytes() {
	local n=${1%[KkMmGgTtPp]} u=${1: -1} s=0
	case $u in K|k) s=10 ;; M|m) s=20 ;; G|g) s=30 ;; T|t) s=40 ;; P|p) s=50 ;; *) n=$1 ;; esac
	[[ $n =~ ^[0-9]+$ ]] || die "bad size '$1' (a number with K/M/G/T/P suffix)"
	echo $((n << s))
}
start_b=$(bytes "$start")
final_b=$(bytes "$final")
big_b=$(bytes "$bigfile")
[ "$final_b" -gt "$start_b" ] || die "BENCH_FINAL ($final) must be larger than BENCH_START ($start)"
gib=$((1 << 30))

mkdir -p "$bench" "$GH_CACHE"
build_lock

mnt="$bench/mnt"
img=""
dev=""
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	[ -n "$img" ] && rm -f "$img"
	return 0
}
trap cleanup EXIT
mkdir -p "$mnt"

mount_fs() {	# fs
	if [ "$1" = ext4 ]; then
		# No background inode table zeroing while we time things.
		mount -o noinit_itable "$dev" "$mnt"
	else
		mount "$dev" "$mnt"
	fi
}

new_device() {	# size-bytes
	img="$bench/image"
	rm -f "$img"
	truncate -s "$1" "$img"
	dev=$(losetup -f --show "$img") || die "losetup failed: are loop devices available (modprobe loop)?"
}

drop_device() {
	mountpoint -q "$mnt" && umount "$mnt"
	losetup -d "$dev"
	rm -f "$img"
	dev=""
	img=""
}

# Fill to ~99% with preallocated files (no data written).
fill=0
fill_to_99() {
	local total avail want
	read -r total avail < <(df -B1 --output=size,avail "$mnt" | tail -n 1)
	want=$((avail - total / 100))
	if [ "$want" -gt $((1 << 20)) ]; then
		fill=$((fill + 1))
		fallocate -l "$want" "$mnt/fill.$fill" || die "fallocate of $want bytes on $dev failed"
		echo "$want" >> "$bench/fills"
	fi
}

grow_fs() {	# fs new-size-bytes
	truncate -s "$2" "$img"
	losetup -c "$dev"
	if [ "$1" = xfs ]; then
		xfs_growfs "$mnt" >/dev/null || die "xfs_growfs $mnt to $2 bytes failed"
	elif [ "$ext4_online" = 1 ] && resize2fs "$dev" >"$bench/resize.log" 2>&1; then
		:
	else
		# Online resize needs CAP_SYS_RESOURCE; some sandboxes lack it.
		if [ "$ext4_online" = 1 ]; then
			warn "online resize2fs failed ($(tail -n 1 "$bench/resize.log")): growing ext4 offline"
			ext4_online=0
		fi
		umount "$mnt"
		resize2fs -f "$dev" >"$bench/resize.log" 2>&1 ||
			die "resize2fs $dev to $2 bytes failed; see $bench/resize.log"
		mount_fs ext4
	fi
}
ext4_online=1

# The cloud pattern: geometric steps from start to final, GiB multiples.
grow_sizes() {
	"$py" - "$start_b" "$final_b" "$steps" "$gib" <<'EOF'
import sys
s, f, n, g = (int(x) for x in sys.argv[1:])
last = s
for i in range(1, n + 1):
    v = f if i == n else max(int(s * (f / s) ** (i / n)) // g * g, last + g)
    if v > last:
        print(v)
        last = v
EOF
}

geometry() {	# fs -> "groups log_bytes inodes"
	if [ "$1" = xfs ]; then
		xfs_db -r -c sb -c 'p agcount logblocks blocksize icount' "$dev" |
			awk '{ v[$1] = $3 } END { print v["agcount"], v["logblocks"] * v["blocksize"], v["icount"] }'
	else
		dumpe2fs -h "$dev" 2>/dev/null | awk -F: '
			/^Block count/ { b = $2 } /^Blocks per group/ { g = $2 } /^Block size/ { bs = $2 }
			/^Inode count/ { i = $2 } /^Total journal blocks/ { j = $2 }
			END { printf "%d %d %d\n", int((b + g - 1) / g), j * bs, i }'
	fi
}

now() { date +%s.%N; }
elapsed() { "$py" -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

metadata_bench() {	# dir -> seconds for create+sync, stat (cold), unlink+sync
	"$py" - "$1" "$nfiles" <<'EOF'
import os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
dirs = [os.path.join(d, "m%02d" % i) for i in range(20)]
t0 = time.monotonic()
for x in dirs:
    os.mkdir(x)
for i in range(n):
    fd = os.open(os.path.join(dirs[i % 20], "f%d" % i), os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, b"x" * 512)
    os.close(fd)
os.sync()
for i in range(n):
    os.stat(os.path.join(dirs[i % 20], "f%d" % i))
for i in range(n):
    os.unlink(os.path.join(dirs[i % 20], "f%d" % i))
for x in dirs:
    os.rmdir(x)
os.sync()
print("%.3f" % (time.monotonic() - t0))
EOF
}

measure() {	# fs variant
	local fs=$1 variant=$2 run t0 t1 fsck mnt_s meta ext geo
	for run in $(seq 1 "$runs"); do
		umount "$mnt"
		sync
		echo 3 > /proc/sys/vm/drop_caches
		# Read the superblock unmounted: the device's cache may be stale.
		[ "$run" = 1 ] && geo=$(geometry "$fs")
		t0=$(now)
		if [ "$fs" = xfs ]; then
			xfs_repair -n "$dev" >"$bench/fsck.log" 2>&1 || die "xfs_repair -n $dev ($fs $variant) found problems; see $bench/fsck.log"
		else
			e2fsck -fn "$dev" >"$bench/fsck.log" 2>&1 || die "e2fsck -fn $dev ($fs $variant) found problems; see $bench/fsck.log"
		fi
		t1=$(now)
		fsck=$(elapsed "$t0" "$t1")
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now)
		mount_fs "$fs"
		t1=$(now)
		mnt_s=$(elapsed "$t0" "$t1")
		meta=$(metadata_bench "$mnt")
		fallocate -l "$big_b" "$mnt/big" || die "fallocate of the $bigfile test file failed on $fs $variant"
		ext=$(filefrag "$mnt/big" | sed -nE 's/.*: ([0-9]+) extents? found/\1/p')
		rm -f "$mnt/big"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$variant" "$run" "$geo" "$fsck" "$mnt_s" "$meta" "$ext" |
			tr ' ' '\t' >> "$bench/raw.tsv"
		info "$fs $variant run $run: geometry $geo, fsck ${fsck}s, mount ${mnt_s}s, metadata ${meta}s, $ext extents"
	done
}

mkfs_opts() {	# fs variant -> options, one a line
	local fs=$1 variant=$2
	case $variant in
	tool) "$tool" mkfs-args -t "$fs" --max "$final_b" "$dev" | tr ' ' '\n' | sed '/^$/d' ;;
	*) : ;;
	esac
}

run_variant() {	# fs variant
	local fs=$1 variant=$2 size opts s t0
	size=$start_b
	[ "$variant" = final ] && size=$final_b
	new_device "$size"
	mapfile -t opts < <(mkfs_opts "$fs" "$variant")
	info "$fs $variant: mkfs at $size bytes ${opts[*]}"
	if [ "$fs" = xfs ]; then
		mkfs.xfs -q -f "${opts[@]}" "$dev" >/dev/null
	else
		mkfs.ext4 -q -F "${opts[@]}" "$dev" >/dev/null
	fi
	mount_fs "$fs"
	t0=$(now)
	fill=0
	if [ "$variant" = final ]; then
		# The same files the grown variant ended with.
		while read -r s; do
			fill=$((fill + 1))
			fallocate -l "$s" "$mnt/fill.$fill"
		done < "$bench/fills.$fs"
	else
		: > "$bench/fills"
		for s in $(grow_sizes); do
			fill_to_99
			grow_fs "$fs" "$s"
		done
		[ "$variant" = grown ] && cp "$bench/fills" "$bench/fills.$fs"
	fi
	info "$fs $variant: $fill files, $(df -h --output=used,size "$mnt" | tail -n 1) in $(elapsed "$t0" "$(now)")s"
	measure "$fs" "$variant"
	drop_device
}

: > "$bench/raw.tsv"
t_all=$(now)
for fs in $fslist; do
	for variant in grown tool final; do
		run_variant "$fs" "$variant"
	done
done
info "measured in $(elapsed "$t_all" "$(now)")s"
[ "$ext4_online" = 1 ] && grow_how="online" || grow_how="offline (resize2fs -f; online resize needs CAP_SYS_RESOURCE)"

"$py" - "$bench" "$start" "$final" "$steps" "$runs" "$nfiles" "$bigfile" "$grow_how" <<'EOF'
import os, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.ticker
import matplotlib.pyplot as plt

bench, start, final, steps, runs, nfiles, bigfile, grow_how = sys.argv[1:]
rows = {}
for line in open(os.path.join(bench, "raw.tsv")):
    fs, var, run, groups, log, inodes, fsck, mnt, meta, ext = line.split("\t")
    r = rows.setdefault((fs, var), {"groups": int(groups), "log": int(log), "inodes": int(inodes),
                                     "fsck": [], "mount": [], "meta": [], "ext": []})
    for k, v in (("fsck", fsck), ("mount", mnt), ("meta", meta), ("ext", ext)):
        r[k].append(float(v))
for r in rows.values():
    for k in ("fsck", "mount", "meta", "ext"):
        r[k] = statistics.median(r[k])

names = {"final": "made at %s" % final, "grown": "defaults at %s, grown" % start,
         "tool": "growth-mkfs at %s, grown" % start}
metrics = [("fsck", "fsck s"), ("mount", "mount s"), ("meta", "metadata s"), ("ext", "extents")]

def ratio(a, b):
    return a / b if b else float("nan")

out = ["| fs | variant | AGs / groups | log / journal | inodes | "
       + " | ".join("%s (ratio)" % m[1] for m in metrics) + " |",
       "|" + "---|" * (5 + len(metrics))]
for fs in ("xfs", "ext4"):
    if (fs, "final") not in rows:
        continue
    base = rows[(fs, "final")]
    for var in ("final", "grown", "tool"):
        r = rows[(fs, var)]
        cells = ["%.3g (%.2f)" % (r[k], ratio(r[k], base[k])) for k, _ in metrics]
        inodes = "%d" % r["inodes"] if fs == "ext4" else "dynamic"
        out.append("| %s | %s | %d | %d MiB | %s | %s |" % (fs, names[var], r["groups"], r["log"] >> 20,
                                                         inodes, " | ".join(cells)))
head = ("Grown from %s to %s in %s steps (fill to ~99%% with fallocate, grow); medians of %s runs; "
        "ratio = value / the made-at-%s variant. fsck: `xfs_repair -n` / `e2fsck -fn`; mount after "
        "dropping caches; metadata: create, stat and unlink %s 512-byte files in 20 directories "
        "with syncs; extents: `filefrag` of a %s fallocated file. XFS grown online with xfs_growfs; "
        "ext4 grown %s." % (start, final, steps, runs, final, nfiles, bigfile, grow_how))
md = "# growth-mkfs benchmark\n\n" + head + "\n\n" + "\n".join(out) + "\n"
open(os.path.join(bench, "results.md"), "w").write(md)
print(md)

fss = [fs for fs in ("xfs", "ext4") if (fs, "final") in rows]
fig, axes = plt.subplots(1, len(fss), figsize=(6 * len(fss), 4), squeeze=False)
for ax, fs in zip(axes[0], fss):
    base = rows[(fs, "final")]
    w = 0.27
    for i, var in enumerate(("final", "grown", "tool")):
        vals = [ratio(rows[(fs, var)][k], base[k]) for k, _ in metrics]
        ax.bar([x + (i - 1) * w for x in range(len(metrics))], vals, w, label=names[var])
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels([m[1] for m in metrics])
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v)
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_ylabel("ratio to made at %s (log scale)" % final)
    ax.set_title(fs)
    ax.axhline(1, color="grey", lw=0.8)
    ax.legend(fontsize=8)
    lo, hi = ax.get_ylim()
    if hi / lo > 10:
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
fig.tight_layout()
fig.savefig(os.path.join(bench, "chart.png"), dpi=100)
EOF
info "wrote $bench/results.md and $bench/chart.png"
