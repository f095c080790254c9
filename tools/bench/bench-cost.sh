#!/usr/bin/env bash
# What the layouts a hinted disk gets cost where users pay for them (part of make bench;
# tools/BENCH.md, "What users pay", explains it): a disk of BENCH_C_SIZE (10G) that may grow to
# BENCH_C_CEILING (64T) in BENCH_C_INC (1G) steps.  Per filesystem, the layouts, each made by
# the same binary (the series' mkfs.xfs and mke2fs, which make exactly the unpatched layouts
# without hints):
#   defaults   no hints: what mkfs makes today (the reference of every ratio)
#   aa         the same again: the A/A control, the noise floor of every ratio
#   native     what plain mkfs makes on the hinted disk (XFS: -d growth_target=CEILING with the
#              log of the defaults, 3 AGs; ext4: MKE2FS_DEVICE_GROWTH, the series' test hook
#              that stands in for the device's hints)
#   (v3's "image", one AG larger than the device, is withdrawn: design.md 2.6; the results
#   folders that measured it keep its rows)
# Parts:
#   space  what each layout leaves the user right after mkfs at the size as made: the bytes and
#          inodes `df` reports free on the empty filesystem (the price of reserving for growth)
#   fill   the disk never grows: a fresh filesystem, empty or filled to 50% or 90% of its own
#          capacity (a small-file tree, then fallocated 256 MiB files), then a workload:
#          "writers" (THREADS threads each write their share of BENCH_C_BYTES to a file of their
#          own directory, fsync) or "meta" (THREADS threads create, stat and unlink
#          BENCH_C_FILES files of 1 KiB).  THREADS: BENCH_C_THREADS (1 2 4) when empty,
#          BENCH_C_FILL_THREADS (1 4) at 50% and 90% (2 cores here; bigger VMs need a bigger run).
#   age    the disk grows from SIZE to BENCH_C_AGE_FINAL (30G) in BENCH_C_AGE_STEPS (2) steps and
#          ages before each: a part of the small-file tree, real data (2% of the capacity),
#          fallocated files up to 85% of the capacity (the same bytes in every layout: the
#          schedule follows the device's size, not df), then 15% of all files deleted at random
#          (the same files in every layout) and a hole of 256 KiB punched in every MiB of the
#          fallocated files left, so that free space fragments.  Then: the free space in extents
#          of 1 MiB or more (xfs_db freesp, e2freefrag), fsck (xfs_repair -n, e2fsck -fn), mount,
#          meta and writers with 2 threads.  One more layout, "made at F" (the defaults at the final size,
#          the same schedule without growth), shows what growing costs at all.  ext4 grows
#          offline (resize2fs -f) when online resize is refused (no CAP_SYS_RESOURCE).
#   steps  the cloud's own steps: from SIZE, BENCH_C_STEPS (20) growths of one increment each,
#          each when the filesystem is ~99% full (fallocated files), every growth timed
#          (xfs_growfs; ext4: resize2fs, offline here as above); then fsck and mount.
# Every cell is a fresh filesystem on a loop device over a sparse file; the layouts run in a
# different order each round (rotated, so each is measured first as often as the others over
# the rounds), BENCH_C_RUNS rounds (5).  ext4 is made with lazy_itable_init=0 (no background
# zeroing during the measurements) in every layout.  A kernel warning fails the run.  Root only.
# Output: tools/bench/results/<date>-cost/{raw.tsv,env.txt,results.md} (BENCH_C_OUT to write
# elsewhere); results.md gives per cell the median with min-max, the median of the per-round
# ratios to the defaults with a bootstrap 95% interval, the median paired difference, and a
# verdict against "no worse than the defaults by more than 10%" (met, failed, inconclusive).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

runs=${BENCH_C_RUNS:-5}
fslist=${BENCH_C_FS:-xfs ext4}
parts=${BENCH_C_PARTS:-space fill age steps}
nsteps=${BENCH_C_STEPS:-20}
fills=${BENCH_C_FILLS:-0 50 90}
threads0=${BENCH_C_THREADS:-1 2 4}
threadsf=${BENCH_C_FILL_THREADS:-1 4}
wbytes=${BENCH_C_BYTES:-$((512 << 20))}
wfiles=${BENCH_C_FILES:-10000}
pop_files=${BENCH_C_POP:-5000}
age_files=${BENCH_C_AGE_POP:-30000}
age_steps=${BENCH_C_AGE_STEPS:-2}
seed=${BENCH_SEED:-20261203}
outdir=${BENCH_C_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-cost}
helper="$top/tools/bench/gh-bench"
mkxfs="$out/xfsprogs/sbin/mkfs.xfs"
repair="$out/xfsprogs/sbin/xfs_repair"
mke2fs="$out/e2fsprogs/sbin/mke2fs"

[ "$(id -u)" -eq 0 ] || die "needs root for loop devices and mounts: run it as root"
for p in "$mkxfs" "$repair"; do [ -x "$p" ] || die "$p is missing: run 'make xfsprogs' first"; done
[ -x "$mke2fs" ] || die "$mke2fs is missing: run 'make e2fsprogs' first"
make -s -C "$top/tools" bench-helper || die "cannot build $helper"
for p in losetup xfs_db xfs_growfs e2fsck resize2fs e2freefrag fallocate; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing: run 'make deps' (util-linux, xfsprogs, e2fsprogs)"
done

bytes() {
	local n=${1%[KkMmGgTt]} u=${1: -1} s=0
	case $u in K|k) s=10 ;; M|m) s=20 ;; G|g) s=30 ;; T|t) s=40 ;; *) n=$1 ;; esac
	[[ $n =~ ^[0-9]+$ ]] || die "bad size '$1' (a number with K/M/G/T suffix)"
	echo $((n << s))
}
size_b=$(bytes "${BENCH_C_SIZE:-10G}")
ceiling_b=$(bytes "${BENCH_C_CEILING:-64T}")
inc_b=$(bytes "${BENCH_C_INC:-1G}")
final_b=$(bytes "${BENCH_C_AGE_FINAL:-30G}")
[ "$final_b" -gt "$size_b" ] || die "BENCH_C_AGE_FINAL must be larger than BENCH_C_SIZE"

work="$top/build/bench-cost"
mkdir -p "$work" "$outdir"
build_lock # a benchmark: nothing else heavy may run meanwhile
mnt="$work/mnt" img="$work/image" dev=""
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f "$img"
	return 0
}
trap cleanup EXIT
mkdir -p "$mnt"

# The log of the defaults at the start size, so that "native" is what a hinted disk gets.
truncate -s "$size_b" "$img"
logb=$("$mkxfs" -N -f "$img" | sed -n 's/^log .*bsize=\([0-9]*\) *blocks=\([0-9]*\).*/\1 * \2/p')
rm -f "$img"
[ -n "$logb" ] || die "no log size in the dry run of $mkxfs"
# The hook must reach mke2fs's layout (it does in the series' build; a stock mke2fs ignores it).
truncate -s "$size_b" "$img"
MKE2FS_DEVICE_GROWTH=$size_b,$ceiling_b,$inc_b "$mke2fs" -n -F -t ext4 "$img" 2>&1 |
	matches '^Growth hints' || die "$mke2fs ignores MKE2FS_DEVICE_GROWTH: is it the series' build?"
rm -f "$img"

layouts_of() {	# fs [age]
	echo "defaults aa native${2:+ ref}"
}

make_fs() {	# fs layout
	local opts=()
	case $1:$2 in
	xfs:native) opts=(-d "growth_target=$ceiling_b" -l "size=$((logb))") ;;
	esac
	if [ "$1" = xfs ]; then
		"$mkxfs" -q -f "${opts[@]}" "$dev" >/dev/null 2>"$work/mkfs.err" ||
			die "mkfs.xfs ${opts[*]} failed: $(cat "$work/mkfs.err")"
	elif [ "$2" = native ]; then
		MKE2FS_DEVICE_GROWTH=$size_b,$ceiling_b,$inc_b "$mke2fs" -q -F -t ext4 \
			-E lazy_itable_init=0,lazy_journal_init=0 "$dev" >/dev/null 2>"$work/mkfs.err" ||
			die "mke2fs (hinted) failed: $(cat "$work/mkfs.err")"
	else
		"$mke2fs" -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "$dev" >/dev/null \
			2>"$work/mkfs.err" || die "mke2fs failed: $(cat "$work/mkfs.err")"
	fi
}

geometry() {	# fs: AG or block group count
	if [ "$1" = xfs ]; then
		xfs_db -r -c sb -c 'p agcount' "$dev" | sed 's/.* = //'
	else
		dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Block count/ { b = $2 } /^Blocks per group/ { g = $2 }
			END { printf "%d\n", int((b + g - 1) / g) }'
	fi
}

new_fs() {	# fs layout bytes
	truncate -s "$3" "$img"
	dev=$(losetup -f --show "$img") || die "losetup failed: are loop devices available (modprobe loop)?"
	make_fs "$1" "$2"
	mount "$dev" "$mnt"
	dmesg -c >/dev/null 2>&1 || true
}

drop_fs() {
	mountpoint -q "$mnt" && umount "$mnt"
	losetup -d "$dev"
	dev=""
	rm -f "$img"
	if kernel_complained; then
		dmesg | tail -n 5 >&2
		die "the kernel logged a warning or error; see dmesg"
	fi
}

used_bytes() { df -B1 --output=used "$mnt" | tail -n 1 | tr -d ' '; }
size_of_fs() { df -B1 --output=size "$mnt" | tail -n 1 | tr -d ' '; }

# Fallocated files of 256 MiB (the last one smaller) named PREFIX.N, BYTES in all.
falloc_files() {	# prefix bytes
	local left=$2 n=0 chunk
	while [ "$left" -gt $((1 << 20)) ]; do
		chunk=$((left < (256 << 20) ? left : (256 << 20)))
		n=$((n + 1))
		fallocate -l "$chunk" "$1.$n" || die "fallocate of $chunk bytes failed"
		left=$((left - chunk))
	done
}

raw="$outdir/raw.tsv"
printf 'round\tposition\tpart\tfs\tcondition\tlayout\tmeasure\tthreads\tvalue\tgroups\tload1\n' > "$raw"
record() {	# round pos part fs condition layout measure threads value groups
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" "$(cut -d' ' -f1 /proc/loadavg)" >> "$raw"
}

# space: what the empty filesystem offers at the size as made.
space_cell() {	# round pos fs layout
	local groups avail favail
	new_fs "$3" "$4" "$size_b"
	groups=$(geometry "$3")
	avail=$(df -B1 --output=avail "$mnt" | tail -n 1 | tr -d ' ')
	favail=$(df --output=iavail "$mnt" | tail -n 1 | tr -d ' ')
	drop_fs
	record "$1" "$2" space "$3" empty "$4" avail 0 "$avail" "$groups"
	record "$1" "$2" space "$3" empty "$4" favail 0 "$favail" "$groups"
	info "round $1 space $3 $4 ($groups groups): $avail bytes, $favail inodes free"
}

# fill: one workload on a fresh filesystem at FILL% of its capacity.
fill_cell() {	# round pos fs layout fill workload threads
	local groups target secs
	new_fs "$3" "$4" "$size_b"
	groups=$(geometry "$3")
	if [ "$5" != 0 ]; then
		"$helper" populate "$mnt/tree" "$seed" 1 1 "$pop_files" 100 >/dev/null || die "populate failed"
		target=$(($(size_of_fs) * $5 / 100 - $(used_bytes)))
		[ "$target" -le 0 ] || falloc_files "$mnt/fill" "$target"
	fi
	sync
	if [ "$6" = writers ]; then
		secs=$("$helper" writers "$mnt/w" "$7" "$wbytes") || die "writers $7 failed on $3 $4 at $5%"
	else
		secs=$("$helper" meta "$mnt/m" "$7" "$wfiles") || die "meta $7 failed on $3 $4 at $5%"
	fi
	drop_fs
	record "$1" "$2" fill "$3" "$5%" "$4" "$6" "$7" "$secs" "$groups"
	info "round $1 fill $3 $5% $6 $7 threads $4 ($groups groups): $secs s"
}

ext4_online=1
grow_to() {	# fs bytes
	truncate -s "$2" "$img"
	losetup -c "$dev"
	if [ "$1" = xfs ]; then
		xfs_growfs "$mnt" >/dev/null || die "xfs_growfs to $2 bytes failed"
	elif [ "$ext4_online" = 1 ] && resize2fs "$dev" >"$work/resize.log" 2>&1; then
		:
	else
		ext4_online=0
		umount "$mnt"
		resize2fs -f "$dev" >"$work/resize.log" 2>&1 || die "resize2fs to $2 bytes failed; see $work/resize.log"
		mount "$dev" "$mnt"
	fi
}

# The free space: "PCT EXTENTS", the fraction (%) of it in extents of 1 MiB or more (4 KiB
# blocks) and the number of free extents.
free_space() {	# fs
	if [ "$1" = xfs ]; then
		xfs_db -r -c 'freesp -s' "$dev" | awk '
			/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+/ { all += $4; n += $3; if ($1 >= 256) big += $4 }
			END { printf "%.2f %d\n", all ? 100 * big / all : 0, n }'
	else
		e2freefrag "$dev" | awk '
			/^Num. free extent:/ { n = $NF }
			/^ *[0-9]+[KMGT]\.\.\./ { u = substr($1, length($1) - 3, 1); k = $1 + 0
				pct = $NF; if (u != "K" || k >= 1024) big += pct }
			END { printf "%.2f %d\n", big, n }'
	fi
}

# fsck of the unmounted filesystem, then its mount, each from cold caches: "FSCK MOUNT" seconds.
fsck_and_mount() {	# fs layout
	local t0 fsck
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$EPOCHREALTIME
	if [ "$1" = xfs ]; then
		"$repair" -n "$dev" >"$work/fsck.log" 2>&1 || die "xfs_repair -n found problems ($2); see $work/fsck.log"
	else
		e2fsck -fn "$dev" >"$work/fsck.log" 2>&1 || die "e2fsck -fn found problems ($2); see $work/fsck.log"
	fi
	fsck=$(python3 -c "print('%.3f' % ($EPOCHREALTIME - $t0))")
	echo 3 > /proc/sys/vm/drop_caches
	t0=$EPOCHREALTIME
	mount "$dev" "$mnt"
	python3 -c "print('$fsck %.4f' % ($EPOCHREALTIME - $t0))"
}

# steps: NSTEPS growths of one increment, each at ~99% full, each timed; then fsck and mount.
steps_cell() {	# round pos fs layout
	local k cap=$size_b groups t0 dt times=() fsck mnt_s want n=0 res
	new_fs "$3" "$4" "$size_b"
	"$helper" populate "$mnt/tree" "$seed" 1 1 "$pop_files" 100 >/dev/null || die "populate failed"
	for k in $(seq 1 "$nsteps"); do
		want=$(($(size_of_fs) * 99 / 100 - $(used_bytes)))
		n=$((n + 1))
		[ "$want" -le $((1 << 20)) ] || falloc_files "$mnt/fill$n" "$want"
		sync
		cap=$((cap + inc_b))
		t0=$EPOCHREALTIME
		grow_to "$3" "$cap"
		dt=$(python3 -c "print('%.4f' % ($EPOCHREALTIME - $t0))")
		times+=("$dt")
	done
	umount "$mnt"
	groups=$(geometry "$3")	# unmounted: the superblock on disk is current
	res=$(fsck_and_mount "$3" "$4") || exit 1
	read -r fsck mnt_s <<< "$res"
	drop_fs
	record "$1" "$2" steps "$3" "$nsteps steps" "$4" grow_median 0 "$(median "${times[@]}")" "$groups"
	record "$1" "$2" steps "$3" "$nsteps steps" "$4" grow_total 0 "$(printf '%s\n' "${times[@]}" | awk '{ s += $1 } END { printf "%.3f\n", s }')" "$groups"
	record "$1" "$2" steps "$3" "$nsteps steps" "$4" fsck 0 "$fsck" "$groups"
	record "$1" "$2" steps "$3" "$nsteps steps" "$4" mount 0 "$mnt_s" "$groups"
	info "round $1 steps $3 $4 ($groups groups): growths $(printf '%s ' "${times[@]}")s; fsck $fsck s, mount $mnt_s s"
}

# age: grow in steps with writes and deletes between them, then measure.
age_cell() {	# round pos fs layout
	local sizes=() k nparts cap falloc_total=0 want groups fsck mnt_s secs f1 fext listf res
	for k in $(seq 1 "$age_steps"); do
		sizes+=($(((size_b + (final_b - size_b) * k / age_steps) / inc_b * inc_b)))
	done
	if [ "$4" = ref ]; then new_fs "$3" defaults "$final_b"; else new_fs "$3" "$4" "$size_b"; fi
	groups=$(geometry "$3")
	nparts=$((age_steps + 1))
	cap=$size_b
	for k in $(seq 1 "$nparts"); do
		"$helper" populate "$mnt/tree" "$seed" "$k" "$nparts" "$age_files" 1000 >/dev/null ||
			die "populate part $k failed"
		"$helper" stream "$mnt/data.$k" $((cap / 50)) >/dev/null || die "data write failed"
		want=$((cap * 85 / 100 - falloc_total))
		if [ "$want" -gt 0 ]; then
			falloc_files "$mnt/fill$k" "$want"
			falloc_total=$((falloc_total + want))
		fi
		# 15% of all files, the same ones in every layout (the names and the seed decide)
		listf="$work/delete.list"
		(cd "$mnt" && find . -type f | LC_ALL=C sort) |
			awk -v s=$((seed + k)) 'BEGIN { srand(s) } rand() < 0.15' > "$listf"
		(cd "$mnt" && xargs -d '\n' rm -f < "$listf")
		# and a hole of 256 KiB in every MiB of the fallocated files left: free space in
		# pieces smaller than 1 MiB, what deletes of whole files never make (B13)
		for f in "$mnt"/fill*; do
			[ ! -f "$f" ] || "$helper" punch "$f" $((1 << 20)) $((256 << 10)) >/dev/null ||
				die "punching holes in $f failed"
		done
		sync
		if [ "$k" -le "$age_steps" ]; then
			cap=${sizes[$((k - 1))]}
			[ "$4" = ref ] || grow_to "$3" "$cap"
		fi
	done
	umount "$mnt"
	read -r f1 fext < <(free_space "$3")
	res=$(fsck_and_mount "$3" "$4") || exit 1
	read -r fsck mnt_s <<< "$res"
	groups=$(geometry "$3")
	record "$1" "$2" age "$3" aged "$4" free_1m 0 "$f1" "$groups"
	record "$1" "$2" age "$3" aged "$4" free_extents 0 "$fext" "$groups"
	record "$1" "$2" age "$3" aged "$4" fsck 0 "$fsck" "$groups"
	record "$1" "$2" age "$3" aged "$4" mount 0 "$mnt_s" "$groups"
	secs=$("$helper" meta "$mnt/m" 2 "$wfiles") || die "meta failed on aged $3 $4"
	record "$1" "$2" age "$3" aged "$4" meta 2 "$secs" "$groups"
	secs=$("$helper" writers "$mnt/w" 2 "$wbytes") || die "writers failed on aged $3 $4"
	record "$1" "$2" age "$3" aged "$4" writers 2 "$secs" "$groups"
	drop_fs
	info "round $1 age $3 $4 ($groups groups): free in >= 1 MiB extents $f1% ($fext free extents), fsck $fsck s, mount $mnt_s s"
}

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
	echo "mkfs.xfs: $("$mkxfs" -V) and its xfs_repair (build/out/xfsprogs, the series)"
	echo "mke2fs: $("$mke2fs" -V 2>&1 | first_line) (build/out/e2fsprogs, the series); e2fsck, resize2fs, e2freefrag: $(e2fsck -V 2>&1 | first_line) (the system's)"
	src=$(df --output=source "$work" | tail -n 1)
	echo "backing filesystem: $(df --output=fstype "$work" | tail -n 1) on $src"
	pk=$(lsblk -no pkname "$src" 2>/dev/null | first_line || true)
	echo "backing device rotational: $(cat "/sys/block/${pk:-${src##*/}}/queue/rotational" 2>/dev/null || echo "not known ($src)")"
	echo "loop devices: sparse files, buffered (no direct I/O), logical sector size 512"
	echo "parameters: runs=$runs fs=($fslist) parts=($parts) steps=$nsteps of $inc_b bytes fills=($fills) threads empty=($threads0) filled=($threadsf) writers bytes=$wbytes meta files=$wfiles population=$pop_files files; age: $size_b -> $final_b bytes in $age_steps steps, tree of $age_files files, seed $seed"
	echo "layouts: xfs ($(layouts_of xfs)), ext4 ($(layouts_of ext4)); xfs native: -d growth_target=$ceiling_b -l size=$((logb)); ext4 native: MKE2FS_DEVICE_GROWTH=$size_b,$ceiling_b,$inc_b"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$outdir/env.txt"
start=$SECONDS
for round in $(seq 1 "$runs"); do
	for fs in $fslist; do
		read -r -a ls <<< "$(layouts_of "$fs")"
		n=${#ls[@]}
		if [[ " $parts " == *" space "* ]]; then
			for pos in $(seq 0 $((n - 1))); do
				space_cell "$round" "$pos" "$fs" "${ls[$(((pos + round) % n))]}"
			done
		fi
		if [[ " $parts " == *" fill "* ]]; then
			for fill in $fills; do
				tl=$threadsf
				[ "$fill" != 0 ] || tl=$threads0
				for workload in writers meta; do
					for t in $tl; do
						for pos in $(seq 0 $((n - 1))); do
							fill_cell "$round" "$pos" "$fs" "${ls[$(((pos + round) % n))]}" "$fill" "$workload" "$t"
						done
					done
				done
			done
		fi
		if [[ " $parts " == *" steps "* ]]; then
			read -r -a ls <<< "$(layouts_of "$fs")"
			n=${#ls[@]}
			for pos in $(seq 0 $((n - 1))); do
				steps_cell "$round" "$pos" "$fs" "${ls[$(((pos + round) % n))]}"
			done
		fi
		if [[ " $parts " == *" age "* ]]; then
			read -r -a ls <<< "$(layouts_of "$fs" age)"
			n=${#ls[@]}
			for pos in $(seq 0 $((n - 1))); do
				age_cell "$round" "$pos" "$fs" "${ls[$(((pos + round) % n))]}"
			done
		fi
	done
done
{
	echo "duration: $((SECONDS - start)) s"
	if [ "$ext4_online" = 1 ]; then echo "ext4 growth: online (resize2fs on the mounted filesystem)"
	else echo "ext4 growth: offline (resize2fs -f; online resize was refused: no CAP_SYS_RESOURCE)"; fi
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$outdir/env.txt"
python3 "$top/tools/bench/cost-report.py" "$outdir" > "$outdir/results.md"
info "results in $outdir/results.md"
