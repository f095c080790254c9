#!/usr/bin/env bash
# Parallel writers on a disk that never grows: what the XFS layouts of a hinted disk cost at the
# size as made, against mkfs.xfs's defaults (part of make bench; tools/BENCH.md explains it).
# A 10 GiB loop device on a sparse file that may grow to 64 TiB, never grown; the layouts, all
# made by the series' mkfs.xfs (build/out/xfsprogs, the same version for all):
#   defaults   no hints: exactly the unpatched mkfs.xfs 6.13 (4 AGs here)
#   aa         the same again: the A/A control, the noise floor of every ratio
#   native     what plain mkfs.xfs makes on the hinted disk (-d growth_target=64t with the
#              log of the defaults: 3 AGs, two of 7/16 of the disk)
#   image      the opt-in image mode (-d growth_target=64t,growth_single_ag=1: one AG)
# Workloads (tools/bench/gh-bench): "writers" (THREADS threads each write their share of
# BENCH_W_BYTES to a file of their own directory, fsync) and "meta" (THREADS threads create,
# stat and unlink BENCH_W_FILES files of 1 KiB); THREADS in BENCH_W_THREADS ("1 2 4": this
# machine has 2 cores; bigger VMs need a bigger run).  Every cell is a fresh filesystem; the
# layouts run in a different order each round (a Latin square: each layout in each position
# as often), BENCH_W_RUNS rounds (8: a multiple of 4).  Root only.
# Output: tools/bench/results/<date>-writers/{raw.tsv,env.txt,results.md} (BENCH_W_OUT to
# write elsewhere); results.md gives, per cell, the median seconds with min-max, and the median
# of the per-round ratios to the defaults with a bootstrap 95% interval and a verdict against
# the rule "no worse than the defaults by more than 10%" (met, failed or inconclusive).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=${BENCH_W_RUNS:-8}
threads_list=${BENCH_W_THREADS:-1 2 4}
wbytes=${BENCH_W_BYTES:-$((2048 << 20))}
wfiles=${BENCH_W_FILES:-40000}
size=${BENCH_W_SIZE:-10G}
ceiling=${BENCH_W_CEILING:-64t}
layouts=(defaults aa native image)
outdir=${BENCH_W_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-writers}
helper="$top/tools/bench/gh-bench"
mkxfs="$out/xfsprogs/sbin/mkfs.xfs"

[ "$(id -u)" -eq 0 ] || die "needs root for loop devices and mounts: run it as root"
[ -x "$mkxfs" ] || die "$mkxfs is missing: run 'make xfsprogs' first"
make -s -C "$top/tools" bench-helper || die "cannot build $helper"
command -v losetup >/dev/null || die "losetup is missing: run 'make deps' (util-linux)"

work="$top/build/bench-writers"
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

# The log of the defaults, so that "native" is what a hinted disk gets (a target sizes the log).
truncate -s "$size" "$img"
logb=$("$mkxfs" -N -f "$img" | sed -n 's/^log .*bsize=\([0-9]*\) *blocks=\([0-9]*\).*/\1 * \2/p')
rm -f "$img"
[ -n "$logb" ] || die "no log size in the dry run of $mkxfs"
opts_of() {
	case $1 in
	defaults | aa) ;;
	native) echo "-d growth_target=$ceiling -l size=$((logb))" ;;
	image) echo "-d growth_target=$ceiling,growth_single_ag=1" ;;
	esac
}

# cell LAYOUT WORKLOAD THREADS: seconds, on a fresh filesystem
cell() {
	local opts agcount secs
	truncate -s "$size" "$img"
	dev=$(losetup -f --show "$img") || die "losetup failed: are loop devices available (modprobe loop)?"
	read -r -a opts <<< "$(opts_of "$1")"
	"$mkxfs" -q -f "${opts[@]}" "$dev" >/dev/null 2>"$work/mkfs.err" || die "mkfs.xfs ${opts[*]} failed: $(cat "$work/mkfs.err")"
	agcount=$(xfs_db -r -c sb -c 'p agcount' "$dev" | sed 's/.* = //')
	mount "$dev" "$mnt"
	dmesg -c >/dev/null 2>&1 || true
	if [ "$2" = writers ]; then
		secs=$("$helper" writers "$mnt/w" "$3" "$wbytes") || die "writers $3 failed on $1"
	else
		secs=$("$helper" meta "$mnt/m" "$3" "$wfiles") || die "meta $3 failed on $1"
	fi
	umount "$mnt"
	losetup -d "$dev"
	dev=""
	rm -f "$img"
	if dmesg 2>/dev/null | matches -E 'WARNING|BUG|XFS .*(error|corrupt)'; then
		dmesg | tail -n 5 >&2
		die "the kernel logged a warning during $1 $2 $3; see dmesg"
	fi
	echo "$agcount $secs"
}

raw="$outdir/raw.tsv"
printf 'round\tposition\tlayout\tworkload\tthreads\tagcount\tseconds\tload1\n' > "$raw"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r)"
	echo "cpus: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
	echo "mkfs.xfs: $("$mkxfs" -V) (build/out/xfsprogs, the series)"
	echo "backing filesystem: $(df --output=fstype "$work" | tail -n 1) on $(df --output=source "$work" | tail -n 1)"
	echo "rotational: $(cat "/sys/block/$(lsblk -no pkname "$(df --output=source "$work" | tail -n 1)" 2>/dev/null || echo vda)/queue/rotational" 2>/dev/null || echo unknown)"
	echo "loop device: $size sparse file, logical sector size 512"
	echo "parameters: runs=$runs threads=($threads_list) writers bytes=$wbytes meta files=$wfiles ceiling=$ceiling"
	echo "layouts: ${layouts[*]} (native: $(opts_of native); image: $(opts_of image))"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$outdir/env.txt"
start=$SECONDS
for round in $(seq 1 "$runs"); do
	for workload in writers meta; do
		for t in $threads_list; do
			for pos in 0 1 2 3; do
				l=${layouts[$(((pos + round) % 4))]}
				load=$(cut -d' ' -f1 /proc/loadavg)
				res=$(cell "$l" "$workload" "$t") || exit 1
				read -r agcount secs <<< "$res"
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$pos" "$l" "$workload" "$t" \
					"$agcount" "$secs" "$load" >> "$raw"
				info "round $round $workload $t threads $l ($agcount AGs): $secs s (load $load)"
			done
		done
	done
done
echo "duration: $((SECONDS - start)) s" >> "$outdir/env.txt"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$outdir/env.txt"
python3 "$top/tools/bench/writers-report.py" "$outdir" > "$outdir/results.md"
info "results in $outdir/results.md"
