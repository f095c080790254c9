#!/usr/bin/env bash
# XFS with tens of thousands of allocation groups on a cloud-like disk (issue 45): where the
# time of mount, unmount, growfs and xfs_repair -n goes when every read costs a millisecond.
# Not part of make bench (it needs the latency kernel and runs for an hour); root only.
#
# Layouts, made once on the host as sparse files in BENCH_MA_IMAGES (build/many-ags; loop
# devices, the host kernel's xfs_growfs; BENCH_MA_FRESH=1 makes them again):
#   g2   a 2 GiB image (Debian's mkfs.xfs defaults: 4 AGs of 512 MiB) grown to 15 TiB: 30,720 AGs
#   h64  made on 64 GiB by the series' mkfs.xfs for 16 TiB (-d growth_target=16t), grown to 15 TiB
#   t15  made at 15 TiB (Debian's mkfs.xfs)
#   g10, h10, t10  the same from 10 GiB to 10 TiB (h10: growth_target=10t)
#   s2   the 2 GiB image as made (4 AGs): what must not change
# Guests (scripts/run-vm.sh, TCG, BENCH_MA_MEMORY of RAM, the kernel GH_KERNEL, default
# build/out/bzImage-latency: the guest kernel with HZ=1000 so that dm-delay has 1 ms steps),
# one per delay in BENCH_MA_DELAYS (default "0 1 2" ms; 0 is the virtio disk under TCG alone),
# each: the read latency a 4 KiB reader sees; BENCH_MA_MOUNTS (3) cold mounts and unmounts of
# each layout in BENCH_MA_LAYOUTS (with the mount's reads and writes and, if the kernel
# prints them, its phases); BENCH_MA_GROWS (1) growfs of a fresh 2 GiB filesystem to 15 TiB
# (time, reads, writes, how far the guest's free memory fell); at the delays in
# BENCH_MA_REPAIR_DELAYS (default "0 1"), xfs_repair -n with and without -P on
# BENCH_MA_REPAIR_LAYOUTS (g2 h64 t15), by BENCH_MA_REPAIRS (Debian's 6.1 and the series'
# 6.13 at delay 0, the series' alone at the others), without -P stopped after
# BENCH_MA_REPAIR_TIMEOUT (300) s (time, status, threads, peak RSS, free memory fallen).
# Output: tools/bench/results/<date>-many-ags[-TAG]/ (BENCH_MA_TAG, e.g. "patched"; BENCH_MA_OUT
# to write elsewhere): raw.tsv (delay, layout, measure, run, value), results.md, env.txt,
# and the guests' consoles in build/results/bench-many-ags/.
# bench-many-ags.sh --images makes the layouts and stops (no guest, no latency kernel): what
# repair-memory.sh and recovery.sh need.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

images_only=0
case "${1:-}" in
"") ;;
--images) images_only=1 ;;
*) die "unknown argument '$1' (usage: bench-many-ags.sh [--images])" ;;
esac

images=${BENCH_MA_IMAGES:-$top/build/many-ags}
delays=${BENCH_MA_DELAYS:-0 1 2}
layouts=${BENCH_MA_LAYOUTS:-s2 t15 h64 g2 t10 h10 g10}
mounts=${BENCH_MA_MOUNTS:-3} grows=${BENCH_MA_GROWS:-1}
rdelays=${BENCH_MA_REPAIR_DELAYS:-0 1}
rlayouts=${BENCH_MA_REPAIR_LAYOUTS:-g2 h64 t15}
rtimeout=${BENCH_MA_REPAIR_TIMEOUT:-300}
memory=${BENCH_MA_MEMORY:-2G}
kernel=${GH_KERNEL:-$out/bzImage-latency} qemu=${GH_QEMU:-$out/qemu-system-x86_64}
initrd=${GH_INITRD:-$out/initramfs.cpio.gz}
series_sbin=${GH_XFSPROGS_SBIN:-$out/xfsprogs/sbin}
tag=${BENCH_MA_TAG:+-$BENCH_MA_TAG}
outdir=${BENCH_MA_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-many-ags$tag}
work="$top/build/results/bench-many-ags"
[ "$(id -u)" = 0 ] || die "root is needed (loop devices, mount)"
[ $images_only = 1 ] || [ -r "$kernel" ] || die "no kernel $kernel: scripts/build-kernel.sh latency"
[ -x "$series_sbin/mkfs.xfs" ] || die "no series mkfs.xfs in $series_sbin: make xfsprogs"
command -v mkfs.xfs xfs_growfs >/dev/null || die "xfsprogs is not installed on the host"
build_lock # a benchmark: no build of this project meanwhile
start=$SECONDS

# layout NAME: make $images/NAME.img unless it is there
layout() {
	local n=$1 img="$images/$1.img" made final mkfs=(mkfs.xfs -q) dev mnt
	[ "${BENCH_MA_FRESH:-0}" = 1 ] || [ ! -s "$img" ] || return 0
	case "$n" in
	g2) made=2G final=15T ;;
	h64) made=64G final=15T mkfs=("$series_sbin/mkfs.xfs" -q -d growth_target=16t) ;;
	t15) made=15T final=15T ;;
	g10) made=10G final=10T ;;
	h10) made=10G final=10T mkfs=("$series_sbin/mkfs.xfs" -q -d growth_target=10t) ;;
	t10) made=10T final=10T ;;
	s2) made=2G final=2G ;;
	*) die "unknown layout $n" ;;
	esac
	info "layout $n: made on $made, final size $final"
	rm -f "$img"
	truncate -s "$made" "$img"
	"${mkfs[@]}" "$img"
	if [ "$made" != "$final" ]; then
		truncate -s "$final" "$img"
		mnt=$(mktemp -d)
		dev=$(losetup -f --show "$img")
		mount "$dev" "$mnt"
		xfs_growfs "$mnt" >/dev/null || { umount "$mnt"; losetup -d "$dev"; die "xfs_growfs $n"; }
		umount "$mnt"
		losetup -d "$dev"
		rmdir "$mnt"
	fi
}
mkdir -p "$images"
for l in $layouts $rlayouts; do layout "$l"; done
if [ $images_only = 1 ]; then
	info "layouts in $images"
	exit 0
fi

rm -rf "$work"
mkdir -p "$work" "$outdir"
# guest NAME ARGS...: one guest; "# many-ags" lines to $work/NAME.tsv with the delay first
guest() {
	local name=$1 d=$2 rc=0
	shift 2
	bash "$top/scripts/run-vm.sh" --kernel "$kernel" --initrd "$initrd" --qemu "$qemu" \
		--dir "$work/$name" --quiet --timeout 7200 --memory "$memory" \
		--test bench-many-ags --append "scsi_debug.add_host=0 gh.delay=$d $*" \
		"${disks[@]}" >/dev/null 2>"$work/$name.err" || rc=$?
	tr -d '\r' < "$work/$name/console.log" |
		sed -n "s/^GH| # many-ags /$d /p" | tr ' ' '\t' > "$work/$name.tsv"
	grep -E '^GH\| (not )?ok ' "$work/$name/console.log" | tr -d '\r' | sed 's/^GH| //' >&2 || true
	[ "$rc" = 0 ] || warn "guest $name: status $rc; see $work/$name/console.log"
}
for d in $delays; do
	disks=() arg="" i=0
	for l in $layouts; do
		disks+=(--disk "virtio:serial=ma$i:file=$images/$l.img")
		arg+="${arg:+,}$l:ma$i"
		i=$((i + 1))
	done
	rm -f "$work/grow.img"
	disks+=(--disk "virtio:size=15T:serial=grow:file=$work/grow.img")
	rarg="" rprogs=/opt/gh-mkfs/sbin/xfs_repair
	[ "$d" != 0 ] || rprogs=/bin/xfs_repair,$rprogs
	if [[ " $rdelays " == *" $d "* ]]; then
		for l in $rlayouts; do
			[[ " $layouts " == *" $l "* ]] || { disks+=(--disk "virtio:serial=ma$i:file=$images/$l.img"); arg+=",$l:ma$i"; i=$((i + 1)); }
			rarg+="${rarg:+,}$l"
		done
	fi
	info "delay $d ms: $layouts; growfs x$grows; repair: ${rarg:-none}"
	guest "delay-$d" "$d" "gh.layouts=$arg gh.mounts=$mounts gh.grow=grow gh.grows=$grows" \
		"${rarg:+gh.repair=$rarg gh.repairs=$rprogs gh.repair_timeout=$rtimeout}"
	rm -f "$work/grow.img"
done

{
	printf 'delay_ms\tlayout\tmeasure\trun\tvalue\n'
	cat "$work"/delay-*.tsv
} > "$outdir/raw.tsv"
python3 "$top/tools/bench/many-ags-report.py" "$outdir/raw.tsv" > "$outdir/results.md"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); duration: $((SECONDS - start)) s"
	echo "host kernel: $(uname -r); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc)"
	echo "guest kernel: $kernel ($(file -b "$kernel" | sed -n 's/.*version \([^ ]*\) .*/\1/p'))"
	echo "guest kernel source: ${GH_KERNEL_DESC:-not given (GH_KERNEL_DESC)}"
	echo "QEMU: $("$qemu" --version | first_line) (TCG, 1 vCPU, $memory)"
	echo "latency: dm-delay over virtio-blk (raw sparse file), the same delay for reads, writes and flushes"
	echo "parameters: delays=$delays mounts=$mounts grows=$grows repair delays=$rdelays repair layouts=$rlayouts repair timeout=${rtimeout}s"
	for l in $layouts; do
		echo "layout $l: $(xfs_db -r -c 'sb 0' -c 'p agcount agblocks dblocks' "$images/$l.img" | tr '\n' ' ')$(xfs_db -r -c version "$images/$l.img" | sed 's/.*= //')"
	done
	echo "host mkfs.xfs: $(mkfs.xfs -V); series: $("$series_sbin/mkfs.xfs" -V)"
	echo "backing: $(df -T "$images" | awk 'NR == 2 { print $2, $1 }')"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$outdir/env.txt"
cat "$outdir/results.md"
info "results in $outdir"
