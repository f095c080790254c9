#!/usr/bin/env bash
# The measurements behind the numbers of tools/POLICY.md, one sweep per choice.
# Root (loop devices on sparse files under build/bench/sweep); run it on an idle machine:
#   flock ~/.cache/growth-hints/build.lock tools/bench/policy-sweep.sh SWEEP [RUNS]
# SWEEP:
#   xfs-ag       10 GiB XFS, AG size from the default (1/4) to the device less 16 MiB:
#                metadata workload (2 and 8 threads), streaming write, at the size as made
#   xfs-log      10 GiB XFS, log 64 MiB .. 2038 MiB: metadata workload (2 and 8 threads)
#   ext4-journal 10 GiB ext4, journal 64 MiB .. 1 GiB: the same
#   xfs-repair   10 TiB XFS made with 10, 1026, 2048, 4096 AGs: xfs_repair -n (default and -P)
#   ext4-reserve 10 GiB ext4 grown offline to 10 TiB: mke2fs defaults, -E resize, meta_bg up front,
#                made at 10 TiB with 16 and 32 KiB per inode: e2fsck -fn and mount
#   grown-log    10 GiB grown to 1 TiB as make bench grows it (200000 files in 8 parts, fill to
#                99%, 8 steps), log / journal of mkfs's default and of the 1 TiB default, and
#                made at 1 TiB: metadata workload (2 threads), 3 times per filesystem
# Prints a Markdown table: median, min and max of RUNS (default 5) fresh filesystems.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

sweep=${1:-}
runs=${2:-5}
helper="$top/tools/bench/gh-bench"
dir="$top/build/bench/sweep"
[ "$(id -u)" -eq 0 ] || die "needs root (loop devices, mounts)"
[ -x "$helper" ] || make -s -C "$top/tools" bench-helper
mkdir -p "$dir/mnt"
img="$dir/image" dev="" mnt="$dir/mnt"
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -z "$dev" ] || losetup -d "$dev"
	rm -f "$img"
}
trap cleanup EXIT

fresh() {	# size: a new sparse image on a loop device
	[ -z "$dev" ] || { mountpoint -q "$mnt" && umount "$mnt"; losetup -d "$dev"; dev=""; }
	rm -f "$img"
	truncate -s "$1" "$img"
	dev=$(losetup -f --show "$img")
}
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
secs() {	# command...: its wall time in seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || die "$* failed"
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
mnt_fs() { if [ "$1" = ext4 ]; then mount -o noinit_itable "$dev" "$mnt"; else mount "$dev" "$mnt"; fi; }

# stats NAME VALUES...: "| NAME | median | min | max |"
stats() {
	local name=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v n="$name" '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "| %s | %.3f | %.3f | %.3f |\n", n, m, v[1], v[NR] }'
}

# workload FS VARIANT MKFS-OPTIONS...: metadata (2 and 8 threads) and stream on 10 GiB
workload() {
	local fs=$1 name=$2 m2=() m8=() st=()
	shift 2
	for _ in $(seq 1 "$runs"); do
		fresh 10G
		if [ "$fs" = xfs ]; then mkfs.xfs -q -f "$@" "$dev"; else mkfs.ext4 -q -F "$@" "$dev"; fi
		mnt_fs "$fs"
		"$helper" populate "$mnt" 42 1 1 100000 1000 >/dev/null
		drop
		m2+=("$("$helper" meta "$mnt" 2 40000)")
		m8+=("$("$helper" meta "$mnt" 8 80000)")
		st+=("$("$helper" stream "$mnt/stream" $((512 << 20)))")
		umount "$mnt"
	done
	stats "$name: metadata, 2 threads (s)" "${m2[@]}"
	stats "$name: metadata, 8 threads (s)" "${m8[@]}"
	stats "$name: 512 MiB streaming write (s)" "${st[@]}"
}

header() { echo "| $1 | median | min | max |"; echo "|---|---|---|---|"; }

case $sweep in
xfs-ag)
	header "10 GiB XFS, $runs fresh filesystems each"
	workload xfs "agsize 2560m (default, 4 AGs)"
	workload xfs "agsize 5g (2 AGs)" -d agsize=5g
	workload xfs "agsize 7680m (3/4: 2 AGs)" -d agsize=7680m -l agnum=0
	workload xfs "agsize 8960m (7/8: 2 AGs)" -d agsize=8960m -l agnum=0
	workload xfs "agsize 10224m (1 AG + 16 MiB)" -d agsize=10224m -l agnum=0
	;;
xfs-log)
	header "10 GiB XFS, $runs fresh filesystems each"
	for l in 64m 320m 1024m 2038m; do workload xfs "log $l" -l size=$l,agnum=0; done
	;;
ext4-journal)
	header "10 GiB ext4, $runs fresh filesystems each"
	for j in 64 320 1024; do workload ext4 "journal $j MiB" -J size=$j; done
	;;
xfs-repair)
	header "10 TiB XFS, empty, $runs runs each"
	for ag in "(mkfs default)" "-d agsize=8960m" "-d agsize=5g" "-d agsize=2560m"; do
		fresh 10T
		# shellcheck disable=SC2046 # the options, or none
		mkfs.xfs -q -f $([ "${ag#(}" = "$ag" ] && echo "$ag") "$dev"
		n=$(xfs_db -r -c 'sb 0' -c 'p agcount' "$dev" | awk '{ print $3 }')
		a=() b=() c=()
		for _ in $(seq 1 "$runs"); do
			drop; a+=("$(secs xfs_repair -n "$dev")")
			drop; b+=("$(secs xfs_repair -n -P "$dev")")
			drop; c+=("$(secs mount "$dev" "$mnt")"); umount "$mnt"
		done
		stats "$n AGs, $ag: xfs_repair -n (s)" "${a[@]}"
		stats "$n AGs, $ag: xfs_repair -n -P (s)" "${b[@]}"
		stats "$n AGs, $ag: mount (s)" "${c[@]}"
	done
	;;
ext4-reserve)
	header "ext4 at 10 TiB, empty, $runs runs each"
	for v in "defaults, grown:10G:" "-E resize=2684354560 (10 TiB), grown:10G:-E resize=2684354560" \
		"meta_bg up front, grown:10G:-O meta_bg,^resize_inode" "made at 10 TiB (type big, 32 KiB per inode):10T:" \
		"made at 10 TiB, 16 KiB per inode:10T:-T default"; do
		IFS=: read -r name size opts <<< "$v"
		a=() b=()
		for _ in $(seq 1 "$runs"); do
			fresh "$size"
			# shellcheck disable=SC2086 # opts is a list of options
			mkfs.ext4 -q -F $opts "$dev" >/dev/null 2>&1 || die "mkfs.ext4 $opts failed"
			if [ "$size" != 10T ]; then
				truncate -s 10T "$img"
				losetup -c "$dev"
				resize2fs -f "$dev" >/dev/null 2>&1 || die "resize2fs ($name) failed"
			fi
			drop; a+=("$(secs e2fsck -fn "$dev")")
			drop; b+=("$(secs mount -o noinit_itable "$dev" "$mnt")"); umount "$mnt"
		done
		stats "$name: e2fsck -fn (s)" "${a[@]}"
		stats "$name: mount (s)" "${b[@]}"
	done
	;;
grown-log)
	header "grown from 10 GiB to 1 TiB, $runs filesystems each, metadata workload 3 times on each"
	for v in "ext4:made at 1 TiB (journal 1 GiB):1T:" "ext4:grown, journal 64 MiB (default):10G:" \
		"ext4:grown, journal 320 MiB:10G:-J size=320" "ext4:grown, journal 1 GiB:10G:-J size=1024" \
		"xfs:made at 1 TiB (log 512 MiB):1T:" \
		"xfs:grown, agsize 8960m, log 64 MiB (default):10G:-d agsize=8960m" \
		"xfs:grown, agsize 8960m, log 320 MiB:10G:-d agsize=8960m -l size=320m" \
		"xfs:grown, agsize 8960m, log 512 MiB:10G:-d agsize=8960m -l size=512m"; do
		IFS=: read -r fs name size opts <<< "$v"
		m=()
		for _ in $(seq 1 "$runs"); do
			fresh "$size"
			# shellcheck disable=SC2086 # opts is a list of options
			if [ "$fs" = xfs ]; then mkfs.xfs -q -f $opts "$dev"; else mkfs.ext4 -q -F $opts "$dev"; fi
			mnt_fs "$fs"
			"$helper" populate "$mnt/tree" 1 1 9 200000 2000 >/dev/null
			k=1 cur=$((10 << 30))
			for g in 18G 32G 56G 100G 178G 316G 562G 1T; do
				# fill to 99% of the size the disk has at this step (made at 1 TiB: the same bytes)
				read -r tot av < <(df -B1 --output=size,avail "$mnt" | tail -n 1)
				want=$((cur * 99 / 100 - (tot - av)))
				[ "$want" -le $((av - tot / 100)) ] || want=$((av - tot / 100))
				[ "$want" -le 0 ] || fallocate -l "$want" "$mnt/fill.$k"
				case $g in *T) cur=$((${g%T} << 40)) ;; *) cur=$((${g%G} << 30)) ;; esac
				if [ "$size" != 1T ]; then
					truncate -s "$g" "$img"
					losetup -c "$dev"
					if [ "$fs" = xfs ]; then
						xfs_growfs "$mnt" >/dev/null
					else
						umount "$mnt"
						resize2fs -f "$dev" >/dev/null 2>&1
						mnt_fs ext4
					fi
				fi
				k=$((k + 1))
				"$helper" populate "$mnt/tree" 1 "$k" 9 200000 2000 >/dev/null
			done
			umount "$mnt"
			drop
			mnt_fs "$fs"
			for _ in 1 2 3; do m+=("$("$helper" meta "$mnt" 2 40000)"); done
			umount "$mnt"
		done
		stats "$fs $name: metadata, 2 threads (s)" "${m[@]}"
	done
	;;
*) die "usage: policy-sweep.sh xfs-ag|xfs-log|ext4-journal|xfs-repair|ext4-reserve|grown-log [RUNS]" ;;
esac
