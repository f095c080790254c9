#!/usr/bin/env bash
# make bench, part inflate: a cloud image deployed onto a disk that will grow, the ways it is
# done today and with growth-inflate (issue: images inflated onto the disk instead of dd).
# The bench builds the images (tools/tests/inflate-image.sh: GPT with BIOS boot, a vfat ESP and
# a root of BENCH_INFLATE_FILL MiB of files with hard links, xattrs, ACLs, sparse files and
# device nodes; XFS, and an ext4 variant; BENCH_INFLATE_IMAGE bytes, made by this machine's
# mkfs as an image builder would).  Each is deployed onto a fresh sparse BENCH_INFLATE_TARGET
# target (a loop device) whose hints say it may grow to BENCH_INFLATE_MAX (16 TiB) in 1 GiB
# steps, by:
#   dd             dd bs=4M conv=fsync, the whole image
#   dd-sparse      dd bs=4M conv=sparse,fsync
#   qemu-img       qemu-img convert -n --target-is-zero (the series' qemu-img)
#   bmaptool       bmaptool copy with the image's bmap (made beforehand, as image builders ship it)
#   fscopy         the table and the small partitions, then xfs_copy -d (XFS) or e2image -ra
#                  (ext4) of the root: the copiers that read only the filesystem's used blocks
#   growth-inflate growth-inflate with the hints as options (a loop device has none)
# (and once per filesystem "mkfs", the series' mkfs alone on the extended root partition: what
# a new filesystem stores before anything is copied)
# and, for all but growth-inflate, cloud-init's first boot after it: growpart, then xfs_growfs
# on the mounted root or resize2fs (offline here: see grow_root).  Measured per run: the wall time of all of it (copy, grow,
# sync), the bytes the target was sent (the loop device's sectors written, zeroing requests
# included), the bytes it holds afterwards (the sparse file's allocation: what a thin-provisioned
# volume stores), the layout at the target's size; then the target is grown to BENCH_INFLATE_GROWN (sparse; 15 TiB, as a file on
# ext4 cannot be 16 TiB) the same way, and
# the grown filesystem's layout, Debian's xfs_repair -n -P / e2fsck -fn time and result, and its
# cold mount time are recorded (every round for dd and growth-inflate; in the first round for
# the other copiers, whose grown filesystem is dd's).  BENCH_INFLATE_ROUNDS rounds (default 5), the methods in a
# rotated order each round, caches dropped before every run.
# virt-resize --expand is not among them: it needs libguestfs's appliance, a VM of its own,
# which here could only run under TCG (this machine has no usable nested KVM), so its time
# would measure the emulator, not the copy.
# Root only.  Output: tools/bench/results/<date>-inflate/ (BENCH_INFLATE_OUT to write
# elsewhere): raw.tsv, results.md (tools/bench/inflate-report.py) and env.txt; the images and
# logs stay in build/bench-inflate.  Holds the build lock while it runs.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (loop devices, mounts)"
rounds=${BENCH_INFLATE_ROUNDS:-5} fill=${BENCH_INFLATE_FILL:-960} fss=${BENCH_INFLATE_FS:-xfs ext4}
image_size=${BENCH_INFLATE_IMAGE:-2G} target=${BENCH_INFLATE_TARGET:-64G}
max=${BENCH_INFLATE_MAX:-16T} grown=${BENCH_INFLATE_GROWN:-15T}
read -r -a methods <<< "${BENCH_INFLATE_METHODS:-dd dd-sparse qemu-img bmaptool fscopy growth-inflate}"
work="$top/build/bench-inflate"
gi="$top/tools/growth-inflate" qimg="$out/qemu-img"
mkfs_xfs="$out/xfsprogs/sbin/mkfs.xfs" mke2fs="$out/e2fsprogs/sbin/mke2fs"
for p in "$gi" "$qimg" "$mkfs_xfs" "$mke2fs"; do
	[ -x "$p" ] || die "$p is missing: run 'make tools qemu xfsprogs e2fsprogs'"
done
for p in bmaptool growpart xfs_copy e2image sfdisk; do
	command -v "$p" >/dev/null || die "$p is not installed: run 'make deps'"
done
export MKE2FS_CONFIG="$out/e2fsprogs/etc/mke2fs.conf"
build_lock # a benchmark: nothing else heavy may run meanwhile

# Loop devices are made in command substitutions (subshells), so they are found again by
# their backing files at exit rather than remembered.
cleanup() {
	umount "$work/m" 2>/dev/null || true
	for f in "$work"/target.img "$work"/src-*.img; do
		losetup -j "$f" 2>/dev/null | cut -d: -f1 | while read -r l; do losetup -d "$l" || true; done
	done
}
trap cleanup EXIT
attach() { losetup -f --show "${@:2}" "$1"; } # attach FILE [losetup options]
now() { date +%s.%N; }
written() { awk '{ print $7 * 512 }' "/sys/block/${1#/dev/}/stat"; }
bytes() { numfmt --from=iec "$1"; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# grow_root DEV FS: cloud-init's first boot: growpart, then the root grown: XFS mounted, as
# cloud-init does; ext4 unmounted, because ext4's online resize needs CAP_SYS_RESOURCE, which
# this machine's root lacks, by the series' resize2fs (1.47.2: Debian 12's 1.47.0 offline
# leaves the orphan file with a bad checksum, and the kernel refuses to mount it)
grow_root() {
	growpart "$1" 3 >/dev/null || return 1
	growfs "${1}p3" "$2" >/dev/null
}
growfs() { # growfs PART FS
	if [ "$2" = xfs ]; then
		mount "$1" "$work/m" && xfs_growfs "$work/m" && umount "$work/m"
	else
		"$out/e2fsprogs/sbin/e2fsck" -fp "$1" && "$out/e2fsprogs/sbin/resize2fs" "$1"
	fi
}
# ext4 without the lazy inode table zeroing thread, which would write the new groups' inode
# tables into the sparse target for minutes after every mount
mount_opts() { [ "$1" = xfs ] && echo rw || echo rw,noinit_itable; }
layout() { # layout DEV FS: "AGs agsize" / "groups journal-MiB reserved-GDT"
	if [ "$2" = xfs ]; then
		xfs_db -r -c "sb 0" -c "print agcount agblocks" "$1" | awk -F' = ' '{ printf "%s ", $2 }'
	else
		dumpe2fs -h "$1" 2>/dev/null | awk -F: '
			/^Block count/ { b = $2 } /^Blocks per group/ { g = $2 }
			/^(Total journal|Journal) size/ { j = $2 } /^Reserved GDT blocks/ { r = $2 }
			END { gsub(/ /, "", j); printf "%d %s %d ", (b + g - 1) / g, j, r }'
	fi
}

deploy() { # deploy METHOD FS IMAGE DEV
	local m=$1 fs=$2 img=$3 dev=$4 part=$((135168 * 512)) sl
	case $m in
	dd) dd if="$img" of="$dev" bs=4M conv=fsync status=none ;;
	dd-sparse) dd if="$img" of="$dev" bs=4M conv=sparse,fsync status=none ;;
	qemu-img) "$qimg" convert -n --target-is-zero -f raw -O raw "$img" "$dev" ;;
	bmaptool) bmaptool -q copy --bmap "$img.bmap" "$img" "$dev" ;;
	fscopy)
		sfdisk -q -d "$img" | sfdisk -q "$dev" >/dev/null
		dd if="$img" of="$dev" bs=1M skip=1 seek=1 count=$((part / 1048576 - 1)) conv=fsync status=none
		partx -u "$dev" 2>/dev/null || true
		sl=$(losetup -f --show -r -o "$part" --sizelimit "$(blockdev --getsize64 "${dev}p3")" "$img")
		if [ "$fs" = xfs ]; then
			xfs_copy -d "$sl" "${dev}p3" >/dev/null
		else
			e2image -ra "$sl" "${dev}p3"
		fi
		losetup -d "$sl"
		;;
	mkfs)
		# not a deployment: the series' mkfs alone on the extended root partition, the bytes a
		# new filesystem costs before anything is copied ("the new metadata")
		sfdisk -q -d "$img" | grep -v '^last-lba' | sed '/img3 :/s/size= *[0-9]*, //' |
			sfdisk -q "$dev" >/dev/null
		partx -u "$dev" 2>/dev/null || true
		if [ "$fs" = xfs ]; then "$mkfs_xfs" -q -f "${dev}p3"; else "$mke2fs" -q -F -t ext4 "${dev}p3"; fi
		;;
	growth-inflate)
		"$gi" --quiet --growth-min="$target" --growth-max="$max" --growth-increment=1G \
			--mkfs-xfs="$mkfs_xfs" --mke2fs="$mke2fs" "$img" "$dev"
		;;
	esac
	[ "$m" = growth-inflate ] || [ "$m" = mkfs ] || grow_root "$dev" "$fs"
	sync
}

run() { # run ROUND METHOD FS: one deployment and its growth; a line of raw.tsv
	local r=$1 m=$2 fs=$3 t="$work/target.img" dev w w0 t0 t1 lay64 lay16 g0 g1 m0 m1 c0 c1 ok=1 stored
	local img="$work/src-$fs.img" check
	rm -f "$t"
	truncate -s "$target" "$t"
	dev=$(attach "$t" -P)
	drop_caches
	w0=$(written "$dev")
	t0=$(now)
	deploy "$m" "$fs" "$img" "$dev" > "$work/log/$m-$fs-$r.log" 2>&1 || die "$m ($fs, round $r) failed: $(tail -n 3 "$work/log/$m-$fs-$r.log")"
	t1=$(now)
	w=$(($(written "$dev") - w0))
	lay64=$(layout "${dev}p3" "$fs")
	losetup -d "$dev"
	stored=$(du -B1 "$t" | cut -f1)
	# the grown filesystem is the same for every copier of the image: measured every round
	# for dd and growth-inflate, the pair compared, and in the first round for the others
	if [ "$m" = mkfs ] || { [ "$m" != dd ] && [ "$m" != growth-inflate ] && [ "$r" != 1 ]; }; then
		printf '%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t-\t-\t-\t-\t-\n' "$r" "$fs" "$m" \
			"$(echo "$t1 - $t0" | bc)" "$w" "$stored" "$lay64"
		return
	fi
	# the same disk grown to the maximum: the GPT backup moved, growpart, growfs
	truncate -s "$grown" "$t"
	dev=$(attach "$t" -P)
	sfdisk -q --relocate gpt-bak-std "$dev" >/dev/null 2>&1 || true
	growpart "$dev" 3 >/dev/null
	g0=$(now)
	growfs "${dev}p3" "$fs" >> "$work/log/$m-$fs-$r.log" 2>&1
	g1=$(now)
	lay16=$(layout "${dev}p3" "$fs")
	drop_caches
	m0=$(now)
	mount -o "$(mount_opts "$fs")" "${dev}p3" "$work/m"
	m1=$(now)
	umount "$work/m"
	drop_caches
	c0=$(now)
	if [ "$fs" = xfs ]; then check=(xfs_repair -n -P); else check=(e2fsck -fn); fi
	"${check[@]}" "${dev}p3" > "$work/log/check-$m-$fs-$r.log" 2>&1 || ok=0
	c1=$(now)
	losetup -d "$dev"
	printf '%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\n' "$r" "$fs" "$m" \
		"$(echo "$t1 - $t0" | bc)" "$w" "$stored" "$lay64" "$lay16" "$(echo "$g1 - $g0" | bc)" \
		"$(echo "$m1 - $m0" | bc)" "$(echo "$c1 - $c0" | bc)" "$ok"
}

rm -rf "$work/log" "$work/target.img"
mkdir -p "$work/log" "$work/m"
used=()
for fs in $fss; do
	img="$work/src-$fs.img"
	if [ ! -f "$img.done-$fill-$image_size" ]; then
		info "building the $fs image ($image_size, $fill MiB of files)"
		rm -f "$img" "$img".done-*
		bash "$top/tools/tests/inflate-image.sh" --fs "$fs" --fill "$fill" --size "$image_size" \
			--label "root-$fs" "$img" > "$work/log/image-$fs.log" 2>&1 ||
			die "the $fs image could not be built; see $work/log/image-$fs.log"
		bmaptool -q create -o "$img.bmap" "$img"
		touch "$img.done-$fill-$image_size"
	fi
	l=$(attach "$img" -r -o $((135168 * 512)))
	mount -o ro,"$([ "$fs" = xfs ] && echo norecovery || echo noload)" "$l" "$work/m"
	used+=("$fs $(df -B1 --output=used "$work/m" | tail -n 1 | tr -d ' ') $(du -B1 -s "$img" | cut -f1)")
	umount "$work/m"
	losetup -d "$l"
done

raw="$work/raw.tsv"
printf 'round\tfs\tmethod\twall_s\tsent_bytes\tstored_bytes\tlayout_target\tlayout_grown\tgrowfs_s\tmount_s\tcheck_s\tcheck_ok\n' > "$raw"
for r in $(seq 1 "$rounds"); do
	for fs in $fss; do
		# a rotated order each round: no method is always first after the image build
		n=${#methods[@]}
		for i in $(seq 0 $((n - 1))); do
			m=${methods[$(((i + r - 1) % n))]}
			info "round $r/$rounds, $fs: $m"
			run "$r" "$m" "$fs" | tr -s ' ' | sed 's/ \t/\t/g' >> "$raw"
		done
		[ "$r" != 1 ] || run "$r" mkfs "$fs" | tr -s ' ' | sed 's/ \t/\t/g' >> "$raw"
	done
done
rm -f "$work/target.img"

dest=${BENCH_INFLATE_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-inflate}
mkdir -p "$dest"
cp "$raw" "$dest/raw.tsv"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc)"
	echo "backing filesystem of the target: $(findmnt -n -o FSTYPE -T "$work") on $(findmnt -n -o SOURCE -T "$work")"
	echo "images: $image_size, GPT (BIOS boot, ESP, root), $fill MiB of files asked for; used bytes of each root and bytes the image file holds:"
	for u in "${used[@]}"; do echo "  $u"; done
	echo "target: $target sparse file on a loop device, grown to $grown; hints given to growth-inflate: min $target, max $max, increment 1G"
	echo "tools: $("$gi" --version | first_line); $("$qimg" --version | first_line); bmaptool $(bmaptool --version 2>&1 | awk '{ print $NF }'); $(xfs_copy -V | first_line); $(e2image 2>&1 | grep -o 'e2image [0-9.]*' | first_line || true); growpart $(dpkg-query -W -f='${Version}' cloud-guest-utils)"
	echo "mkfs of growth-inflate: $mkfs_xfs, $mke2fs (the series'); checkers: Debian's xfs_repair -n -P, e2fsck -fn"
	echo "rounds: $rounds, methods rotated each round: ${methods[*]}"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "duration: $SECONDS s"
} > "$dest/env.txt"
python3 "$top/tools/bench/inflate-report.py" "$dest" | tee "$dest/results.md"
info "results in $dest"
