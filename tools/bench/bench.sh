#!/usr/bin/env bash
# make bench: the regret matrix of growth-mkfs (tools/BENCH.md explains it).
# A disk starts at BENCH_START and may grow to BENCH_CEILING (the hints a cloud disk gives:
# --min START --max CEILING --increment 1G); it ends at each final size F of BENCH_FINALS,
# reached the way clouds grow disks (fill to ~99%, grow, repeat).  The variants per F: mkfs
# defaults at the start size ("defaults") and growth-mkfs at the start size ("policy"), for
# ext4 and XFS; for XFS also the mkfs.xfs of the xfsprogs series at the start size ("native":
# loop devices have no hints, so the ceiling is given as its growth target, with the log of
# its dry run without one, which is what it makes on a disk with those hints: three AGs within
# the device).  (v3's image mode, one AG larger than the device, is withdrawn: design.md 2.6;
# the results folders that measured it keep its rows.)  The references: mkfs at F ("made at
# F", for defaults and policy) and, for the native variant, the series' mkfs.xfs at F ("series
# made at F": the newer mkfs.xfs has other defaults, rmapbt for one; at F = start it is the
# series' defaults).  XFS is checked by the series' xfs_repair in every variant.  Every run is a fresh
# filesystem with the same file population (a fixed tree of small files with data, added as
# the disk grows, plus fallocated fill).  Measured: fsck, mount, a metadata workload with as
# many threads as cores, a streaming write, free space and free inodes; each as a ratio to
# the reference of the same run.
# Root only (loop devices on sparse files under build/bench).  Not part of make check; make
# bench runs it first (tools/BENCH.md); alone: make tools xfsprogs && tools/bench/bench.sh.
# Output: tools/bench/results/<date>-regret[-quick][-FS]/ (BENCH_OUT to write elsewhere):
# raw.tsv (every run's values), results.md, regret.png and env.txt (the machine, the backing
# filesystem, the tools, the load); the loop images and logs stay in build/bench.
# It holds the build lock while it runs, so nobody builds meanwhile; a caller that already
# holds it says so: GH_BUILD_LOCK_HELD=1 flock ~/.cache/growth-hints/build.lock make bench
# Knobs: BENCH_QUICK=1 (a subset of about 7 minutes: F in {10G, 1T}, smaller population), BENCH_START
# (10G), BENCH_CEILING (64T), BENCH_FINALS ("10G 1T 10T"; 100G may be added), BENCH_RUNS (3), BENCH_STEPS
# (8 growth steps at most), BENCH_FILES (200000), BENCH_DIRS (2000), BENCH_SEED, BENCH_META
# (files of the metadata workload, 20000, run 3 times), BENCH_STREAM (512M), BENCH_FS
# ("xfs ext4"), BENCH_VARIANTS ("defaults policy native"; the reference is always made).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then
	d_finals="10G 1T" d_files=40000 d_dirs=400 d_meta=10000 d_steps=4
else
	d_finals="10G 1T 10T" d_files=200000 d_dirs=2000 d_meta=20000 d_steps=8
fi
start=${BENCH_START:-10G}
ceiling=${BENCH_CEILING:-64T}
finals=${BENCH_FINALS:-$d_finals}
runs=${BENCH_RUNS:-3}
steps=${BENCH_STEPS:-$d_steps}
nfiles=${BENCH_FILES:-$d_files}
ndirs=${BENCH_DIRS:-$d_dirs}
seed=${BENCH_SEED:-20261203}
meta_files=${BENCH_META:-$d_meta}
stream=${BENCH_STREAM:-512M}
fslist=${BENCH_FS:-xfs ext4}
variants=${BENCH_VARIANTS:-defaults policy native}
threads=$(nproc)
bench="$top/build/bench"
tool="$top/tools/growth-mkfs"
helper="$top/tools/bench/gh-bench"
py=/usr/bin/python3

[ "$(id -u)" -eq 0 ] || die "needs root for loop devices and mounts: run it as root (sudo make bench)"
[ -x "$tool" ] || die "$tool is missing: run 'make -C tools' first"
# The xfsprogs series (make xfsprogs): the native variants, and XFS's fsck for all.
nat_xfs="$out/xfsprogs/sbin"
for p in "$nat_xfs/mkfs.xfs" "$nat_xfs/xfs_repair"; do
	[ -x "$p" ] || die "$p is missing: run 'make xfsprogs' first"
done
for v in $variants; do
	case $v in defaults | policy | native) ;; *) die "unknown variant '$v' in BENCH_VARIANTS (defaults policy native)" ;; esac
done
case " $variants " in *" defaults "*) ;; *) die "BENCH_VARIANTS must include defaults: the other variants replay its fill" ;; esac
make -s -C "$top/tools" bench-helper || die "cannot build $helper"
for p in mkfs.xfs xfs_repair xfs_growfs xfs_db mkfs.ext4 e2fsck resize2fs dumpe2fs losetup fallocate; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing: run 'make deps' (xfsprogs, e2fsprogs, util-linux)"
done
"$py" -c 'import matplotlib' 2>/dev/null || die "python3-matplotlib is missing: run 'make deps'"

bytes() {
	local n=${1%[KkMmGgTtPp]} u=${1: -1} s=0
	case $u in K|k) s=10 ;; M|m) s=20 ;; G|g) s=30 ;; T|t) s=40 ;; P|p) s=50 ;; *) n=$1 ;; esac
	[[ $n =~ ^[0-9]+$ ]] || die "bad size '$1' (a number with K/M/G/T/P suffix)"
	echo $((n << s))
}
start_b=$(bytes "$start")
ceiling_b=$(bytes "$ceiling")
inc_b=$(bytes "${BENCH_INCREMENT:-1G}")
stream_b=$(bytes "$stream")
final_list=()
for f in $finals; do
	fb=$(bytes "$f")
	if [ "$fb" -lt "$start_b" ] || [ "$fb" -gt "$ceiling_b" ]; then
		die "final size $f is outside $start..$ceiling"
	fi
	final_list+=("$f")
done

name=$(date -u +%Y-%m-%d)-regret
[ "$quick" = 1 ] && name=$name-quick
[ "$fslist" = "xfs ext4" ] || name=$name-$(echo "$fslist" | tr ' ' '-')
outdir=${BENCH_OUT:-$top/tools/bench/results/$name}
mkdir -p "$bench" "$outdir"
build_lock # a benchmark: nothing else heavy may run meanwhile
mnt="$bench/mnt"
img="$bench/image"
dev=""
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f "$img"
	return 0
}
trap cleanup EXIT
mkdir -p "$mnt"

now() { date +%s.%N; }
elapsed() { "$py" -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

mount_fs() {	# fs
	if [ "$1" = ext4 ]; then
		# No background inode table zeroing while we time things.
		mount -o noinit_itable "$dev" "$mnt"
	else
		mount "$dev" "$mnt"
	fi
}

new_device() {	# size-bytes
	rm -f "$img"
	truncate -s "$1" "$img"
	dev=$(losetup -f --show "$img") || die "losetup failed: are loop devices available (modprobe loop)?"
}

drop_device() {
	mountpoint -q "$mnt" && umount "$mnt"
	losetup -d "$dev"
	rm -f "$img"
	dev=""
}

# Online ext4 resize needs CAP_SYS_RESOURCE, which some sandboxes lack: the first failure
# switches to offline resize2fs for the rest of the run, and the results say so.
ext4_online=1
grow_fs() {	# fs new-size-bytes
	truncate -s "$2" "$img"
	losetup -c "$dev"
	if [ "$1" = xfs ]; then
		xfs_growfs "$mnt" >/dev/null || die "xfs_growfs $mnt to $2 bytes failed"
	elif [ "$ext4_online" = 1 ] && resize2fs "$dev" >"$bench/resize.log" 2>&1; then
		:
	else
		if [ "$ext4_online" = 1 ]; then
			warn "online resize2fs failed ($(tail -n 1 "$bench/resize.log")): growing ext4 offline from now on"
			ext4_online=0
		fi
		umount "$mnt"
		resize2fs -f "$dev" >"$bench/resize.log" 2>&1 ||
			die "resize2fs $dev to $2 bytes failed; see $bench/resize.log"
		mount_fs ext4
	fi
}

# The cloud pattern, scaled: sizes from start to F in at most $steps geometric steps, whole
# increments, each at least one increment (the cloud grows by 1-5 GiB; 10 GiB -> 10 TiB that
# way is ~2000 steps, too many for the time budget).
grow_sizes() {	# final-bytes
	"$py" - "$start_b" "$1" "$steps" "$inc_b" <<'EOF'
import sys
s, f, n, g = (int(x) for x in sys.argv[1:])
last = s
for i in range(1, n + 1):
    v = f if i == n else max(int(s * (f / s) ** (i / n)) // g * g, last + g)
    v = min(v, f)
    if v > last:
        print(v)
        last = v
EOF
}

# Fill: "fill" appends a fallocated file that brings the filesystem to ~99% (its size goes to
# the schedule); "replay" makes the files of a schedule, so every variant of a run holds the
# same bytes at the same points.
fills=()
fill_99() {
	local total avail want
	read -r total avail < <(df -B1 --output=size,avail "$mnt" | tail -n 1)
	want=$((avail - total / 100))
	[ "$want" -gt $((1 << 20)) ] || want=0
	fill_n=$((fill_n + 1))
	[ "$want" = 0 ] || fallocate -l "$want" "$mnt/fill.$fill_n" || die "fallocate of $want bytes failed"
	fills+=("$want")
}
# A variant with less free space than the defaults had (the series' mkfs.xfs: rmapbt and its
# reservations) fills to ~99% of its own instead.
fill_replay() {	# bytes
	local want=$1 total avail
	fill_n=$((fill_n + 1))
	read -r total avail < <(df -B1 --output=size,avail "$mnt" | tail -n 1)
	if [ "$want" -gt $((avail - total / 100)) ]; then
		want=$((avail - total / 100))
		[ "$want" -gt 0 ] || want=0
	fi
	[ "$want" = 0 ] || fallocate -l "$want" "$mnt/fill.$fill_n" ||
		die "fallocate of $want bytes failed (replaying the defaults' fill on $fs $variant)"
}

populate() {	# part nparts
	"$helper" populate "$mnt/tree" "$seed" "$1" "$2" "$nfiles" "$ndirs" >/dev/null ||
		die "populating part $1 of $2 failed"
}

geometry() {	# fs -> "groups log_bytes inodes"
	if [ "$1" = xfs ]; then
		xfs_db -r -c sb -c 'p agcount logblocks blocksize' "$dev" |
			awk '{ v[$1] = $3 } END { print v["agcount"], v["logblocks"] * v["blocksize"], 0 }'
	else
		dumpe2fs -h "$dev" 2>/dev/null | awk -F: '
			/^Block count/ { b = $2 } /^Blocks per group/ { g = $2 } /^Block size/ { bs = $2 }
			/^Inode count/ { i = $2 } /^Total journal blocks/ { j = $2 }
			END { printf "%d %d %d\n", int((b + g - 1) / g), j * bs, i }'
	fi
}

# One cell of one run: make the filesystem, take it to F, measure.
run_cell() {	# fs final variant run
	local fs=$1 final=$2 variant=$3 run=$4 final_b size opts=() sizes=() nparts k t0 t1
	local fsck fsckp mnt_s meta strm avail favail geo used t_cell
	t_cell=$(now)
	final_b=$(bytes "$final")
	size=$start_b
	[ "$variant" = ref ] || [ "$variant" = ref-series ] && size=$final_b
	new_device "$size"
	dmesg -c >/dev/null 2>&1 || true
	local mkxfs=mkfs.xfs
	case $variant in
	policy)
		"$tool" --min "$start_b" --max "$ceiling_b" --increment "$inc_b" mkfs-args -t "$fs" "$dev" \
			> "$bench/policy-args.$fs" || die "growth-mkfs mkfs-args failed on $dev"
		read -r -a opts < "$bench/policy-args.$fs"
		;;
	ref-series)
		mkxfs="$nat_xfs/mkfs.xfs"
		;;
	native)
		# As on a disk whose hints say it may grow to the ceiling: the AG layout of the
		# target, the log of the size as made (a target would also size the log).
		mkxfs="$nat_xfs/mkfs.xfs"
		local logb
		logb=$("$mkxfs" -N -f -d growth_hints=0 "$dev" | sed -n 's/^log .*bsize=\([0-9]*\) *blocks=\([0-9]*\).*/\1 * \2/p')
		[ -n "$logb" ] || die "no log size in the dry run of $mkxfs on $dev"
		opts=(-d "growth_target=$ceiling_b" -l "size=$((logb))")
		;;
	esac
	if [ "$fs" = xfs ]; then
		"$mkxfs" -q -f "${opts[@]}" "$dev" >/dev/null || die "$mkxfs ${opts[*]} failed"
	else
		mkfs.ext4 -q -F "${opts[@]}" "$dev" >/dev/null || die "mkfs.ext4 ${opts[*]} failed"
	fi
	mount_fs "$fs"
	mapfile -t sizes < <(grow_sizes "$final_b")
	nparts=$((${#sizes[@]} + 1))
	fill_n=0
	t0=$(now)
	populate 1 "$nparts"
	if [ "$final_b" = "$start_b" ]; then
		# Never grows: the tree, then fill to 90% (a disk nobody grows is not kept at 99%).
		local total avail
		read -r total avail < <(df -B1 --output=size,avail "$mnt" | tail -n 1)
		if [ "$variant" = defaults ]; then
			fills=($((avail - total / 10)))
		fi
		fill_replay "${fills[0]}"
	else
		[ "$variant" = defaults ] && fills=()
		for k in "${!sizes[@]}"; do
			if [ "$variant" = defaults ]; then fill_99; else fill_replay "${fills[$k]}"; fi
			[ "$variant" = ref ] || [ "$variant" = ref-series ] || grow_fs "$fs" "${sizes[$k]}"
			populate $((k + 2)) "$nparts"
		done
	fi
	used=$(df --output=pcent "$mnt" | tail -n 1 | tr -d ' %')
	avail=$(df -B1 --output=avail "$mnt" | tail -n 1 | tr -d ' ')
	favail=$(df --output=iavail "$mnt" | tail -n 1 | tr -d ' ')
	t1=$(now)
	info "$fs F=$final $variant run $run: built in $(elapsed "$t0" "$t1") s (${#sizes[@]} growth steps, ${used}% used)"

	umount "$mnt"
	geo=$(geometry "$fs")
	# fsck: once, or up to 3 times (the median) while that takes under 2 s in all
	local times=() total=0
	while [ ${#times[@]} -lt 3 ] && [ "${total%.*}" -lt 2 ]; do
		sync
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now)
		if [ "$fs" = xfs ]; then
			"$nat_xfs/xfs_repair" -n "$dev" >"$bench/fsck.log" 2>&1 || die "xfs_repair -n ($fs F=$final $variant) found problems; see $bench/fsck.log"
		else
			e2fsck -fn "$dev" >"$bench/fsck.log" 2>&1 || die "e2fsck -fn ($fs F=$final $variant) found problems; see $bench/fsck.log"
		fi
		t1=$(now)
		times+=("$(elapsed "$t0" "$t1")")
		total=$(elapsed 0 "$(printf '%s\n' "${times[@]}" | awk '{ s += $1 } END { print s }')")
	done
	fsck=$(median "${times[@]}")
	# fsck with one thread: xfs_repair without its prefetch threads (what the format costs, not
	# repair's threading on this many cores); e2fsck has one thread anyway: the same check again
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(now)
	if [ "$fs" = xfs ]; then
		"$nat_xfs/xfs_repair" -n -P "$dev" >"$bench/fsck.log" 2>&1 || die "xfs_repair -n -P ($fs F=$final $variant) found problems; see $bench/fsck.log"
	else
		e2fsck -fn "$dev" >"$bench/fsck.log" 2>&1 || die "e2fsck -fn ($fs F=$final $variant) found problems; see $bench/fsck.log"
	fi
	t1=$(now)
	fsckp=$(elapsed "$t0" "$t1")
	# mount: 5 times after dropping caches, the median (single mounts are tens of ms)
	times=()
	for k in 1 2 3 4 5; do
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now)
		mount_fs "$fs"
		t1=$(now)
		times+=("$(elapsed "$t0" "$t1")")
		[ "$k" = 5 ] || umount "$mnt"
	done
	mnt_s=$(median "${times[@]}")
	# the metadata workload 3 times, the median (single runs of it vary by 2x on XFS here)
	times=()
	for k in 1 2 3; do
		meta=$("$helper" meta "$mnt" "$threads" "$meta_files") ||
			die "metadata workload failed on $fs F=$final $variant"
		times+=("$meta")
	done
	meta=$(median "${times[@]}")
	strm=$("$helper" stream "$mnt/stream" "$stream_b") || die "streaming write failed on $fs F=$final $variant"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$final" "$variant" "$run" \
		"$(echo "$geo" | tr ' ' '\t')" "$used" "$fsck" "$fsckp" "$mnt_s" "$meta" "$strm" "$avail" "$favail" >> "$outdir/raw.tsv"
	info "$fs F=$final $variant run $run: fsck ${fsck}s mount ${mnt_s}s meta ${meta}s stream ${strm}s free $avail inodes $favail geometry $geo; cell $(elapsed "$t_cell" "$(now)") s"
	drop_device
	if kernel_complained; then
		dmesg | tail -n 5 >&2
		die "the kernel logged a warning or error during $fs F=$final $variant run $run; see dmesg"
	fi
}

read -r load0 _ < /proc/loadavg
: > "$outdir/raw.tsv"
src=$(df --output=source "$bench" | tail -n 1)
pk=$(lsblk -no pkname "$src" 2>/dev/null | first_line || true)
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
	echo "mkfs.xfs: $(mkfs.xfs -V) (the system's); the series': $("$nat_xfs/mkfs.xfs" -V), whose xfs_repair checks every XFS variant"
	echo "mke2fs: $(mke2fs -V 2>&1 | first_line) (the system's)"
	echo "backing filesystem: $(df --output=fstype "$bench" | tail -n 1) on $src"
	echo "backing device rotational: $(cat "/sys/block/${pk:-${src##*/}}/queue/rotational" 2>/dev/null || echo "not known ($src)")"
	echo "loop devices: sparse files, buffered (no direct I/O), logical sector size 512"
	echo "parameters: quick=$quick start=$start ceiling=$ceiling finals=(${final_list[*]}) runs=$runs steps=$steps files=$nfiles dirs=$ndirs seed=$seed meta=$meta_files stream=$stream fs=($fslist) variants=($variants)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$outdir/env.txt"
t_all=$(now)
for run in $(seq 1 "$runs"); do
	for final in "${final_list[@]}"; do
		for fs in $fslist; do
			# At F = start the defaults are the filesystem made at F: measured once.
			for v in $variants; do
				# The native variants are XFS's: on a hinted disk the series' mke2fs makes
				# the policy's ext4 (64bit, the reserve; inodes and journal of the size as
				# made); tools/bench/bench-cost.sh measures it against the defaults.  (v2's
				# growth_target picked the "huge" usage type and ran out of inodes at 10 GiB
				# for this population; v3 keeps the inodes of the size as made.)
				[ "$fs" = xfs ] || [ "$v" != native ] || continue
				run_cell "$fs" "$final" "$v" "$run"
			done
			[ "$(bytes "$final")" = "$start_b" ] || run_cell "$fs" "$final" ref "$run"
			case "$fs: $variants " in xfs:*" native "*) run_cell "$fs" "$final" ref-series "$run" ;; esac
		done
	done
done
secs=$(elapsed "$t_all" "$(now)")
read -r load1 _ < /proc/loadavg
info "measured in $secs s"
if [ "$ext4_online" = 1 ]; then grow_how="online (resize2fs on the mounted filesystem)"
else grow_how="offline (resize2fs -f on the unmounted device: online resize needs CAP_SYS_RESOURCE, which this machine's root lacks)"; fi
policy_args=""
for fs in $fslist; do
	policy_args="$policy_args$fs: \`$(cat "$bench/policy-args.$fs")\`; "
done

{
	echo "duration: $secs s"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$outdir/env.txt"
"$py" "$top/tools/bench/report.py" "$outdir" \
	"start=$start" "ceiling=$ceiling" "increment=${BENCH_INCREMENT:-1G}" "finals=${final_list[*]}" \
	"runs=$runs" "steps=$steps" "files=$nfiles" "dirs=$ndirs" "seed=$seed" "meta=$meta_files" \
	"threads=$threads" "stream=$stream" "quick=$quick" "seconds=$secs" "grow=$grow_how" \
	"load=$load0 -> $load1" "policy=$policy_args" "cores=$(nproc)" \
	"versions=$(mkfs.xfs -V | sed 's/mkfs.xfs version //'), $(mke2fs -V 2>&1 | sed -n '1s/ (.*//p'), the series' $("$nat_xfs/mkfs.xfs" -V | sed 's/ version / /') (its xfs_repair checks every XFS variant), kernel $(uname -r)"
info "wrote $outdir/results.md, regret.png, raw.tsv and env.txt"
