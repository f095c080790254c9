#!/bin/sh
# make demo, guest side: show the disks and their hints, let the host grow vda, show it again.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
show() {
	printf '%-5s %16s %16s %20s %16s\n' DISK SIZE MIN_GROWTH MAX_GROWTH INCREMENT
	for b in /sys/block/vd* /sys/block/sd*; do
		[ -e "$b" ] || continue
		d=${b##*/}
		if gh_has_hints "$d"; then
			# shellcheck disable=SC2046
			set -- $(gh_hints "$d")
		else
			set -- - - -
		fi
		printf '%-5s %16s %16s %20s %16s\n' "$d" "$(gh_size_bytes "$d")" "$1" "$2" "$3"
	done
}
gh_disk vd0 >/dev/null
gh_disk sd0 >/dev/null
echo "vda is the virtio-blk disk, sda the scsi-hd disk on virtio-scsi."
echo "The guest sees (bytes; '-' = this kernel has no growth hint attributes):"
show
gh_has_hints vda || echo "(kernel without the growth hints series)"
gh_uevents_clear
vda=$(gh_size_bytes vda)
if gh_wait grow; then
	grown() { [ "$(gh_size_bytes vda)" != "$vda" ]; }
	gh_poll 300 grown
	echo "After the host grew vd0 (virtio-blk) live:"
	show
	echo "uevents for vda:"
	grep 'DEVNAME=vda ' /run/uevents.log | tr ' ' '\n' | grep -E '^(ACTION|DEVNAME|RESIZE|GROWTH_HINTS)=' | paste -sd' ' -
fi

# The payoff: plain mkfs of the e2fsprogs and xfsprogs series next to the unpatched ones on the
# same hinted disk, then XFS of each grown live in the same steps.
NEW=/opt/gh-mkfs/sbin OLD=/opt/gh-mkfs-stock/sbin
if ! gh_has_hints vda || [ ! -x $NEW/mkfs.xfs ] || [ ! -x $OLD/mkfs.xfs ]; then
	echo "(no mkfs series in this initramfs, or no hints: make e2fsprogs xfsprogs mkfs-stock initramfs)"
	gh_done
	exit
fi
export MKE2FS_CONFIG=/opt/gh-mkfs/etc/mke2fs.conf
# mkfs_on_vda OLD|NEW TOOL OPTION...: mkfs of that variant on vda; keeps the series' line
# about the hints in $mkfs_said.
mkfs_said=""
mkfs_on_vda() {
	eval "_d=\$$1"
	_v=$1 _t=$2
	shift 2
	_o=$("$_d/$_t" "$@" /dev/vda 2>&1)
	[ "$_v" = OLD ] || mkfs_said="$mkfs_said$(echo "$_o" | sed -n 's/^[Gg]rowth hints: /  the series said: /p')
"
}
kv() { tr ' ' '\n' | tr -d , | sed -n "s/^$1=//p" | sed -n 1p; }
xfs_geom() { # /dev/DISK|MOUNTPOINT: "AGS AGSIZE_MIB LOG_MIB"
	case "$1" in
	/dev/*) # xfs_info wants findmnt for a device, which the guest lacks: ask the mounted fs
		mkdir -p /mnt/probe
		mount -t xfs "$1" /mnt/probe
		_i=$($NEW/xfs_spaceman -p xfs_info -c info /mnt/probe 2>&1)
		umount /mnt/probe ;;
	*) _i=$($NEW/xfs_spaceman -p xfs_info -c info "$1" 2>&1) ;;
	esac
	_bs=$(echo "$_i" | sed -n '/^data/p' | kv bsize)
	_ag=$(echo "$_i" | sed -n 1p | kv agsize)
	_log=$(echo "$_i" | sed -n '/^log/p' | kv blocks)
	echo "$(echo "$_i" | sed -n 1p | kv agcount) $((_ag * _bs >> 20)) $((_log * _bs >> 20))"
}
ext4_geom() { # DEV: "INODES RESERVED_GDT JOURNAL 64BIT"
	_h=$($NEW/dumpe2fs -h "$1" 2>/dev/null)
	_f() { echo "$_h" | sed -n "s/^$1: *//p"; }
	_64=no
	case " $(_f "Filesystem features") " in *" 64bit "*) _64=yes ;; esac
	echo "$(_f "Inode count") $(_f "Reserved GDT blocks") $(_f "Total journal size") $_64"
}
size=$(gh_size_bytes vda)
# shellcheck disable=SC2046
set -- $(gh_hints vda)
echo
echo "Plain mkfs (no options) on vda, $((size >> 30)) GiB that may grow to $(($2 >> 30)) GiB:"
printf '%-26s %8s %12s %10s\n' "mkfs.xfs" AGs "AG size MiB" "log MiB"
for v in OLD NEW; do
	mkfs_on_vda $v mkfs.xfs -f
	# shellcheck disable=SC2046
	set -- $(xfs_geom /dev/vda)
	printf '%-26s %8s %12s %10s\n' "$([ $v = OLD ] && echo "unpatched 6.13" || echo "with the series")" "$1" "$2" "$3"
done
printf '%-26s %10s %12s %10s %6s\n' "mkfs.ext4" inodes "resv. GDT" journal 64bit
for v in OLD NEW; do
	mkfs_on_vda $v mke2fs -F -t ext4
	# shellcheck disable=SC2046
	set -- $(ext4_geom /dev/vda)
	printf '%-26s %10s %12s %10s %6s\n' "$([ $v = OLD ] && echo "unpatched 1.47" || echo "with the series")" "$1" "${2:-0}" "$3" "$4"
done
printf '%s' "$mkfs_said"
echo "  (ext4: mke2fs's own growth reserve already covers 1024 times the size as made, so the"
echo "  series changes ext4 only for a smaller maximum, a small disk or a disk that will not grow)"

echo
echo "XFS grown live: the series' plain mkfs.xfs on vda, the unpatched one on sda (same size)"
if ! gh_wait resize "$size" drv-sd0; then
	echo "(the host could not resize sda: $GH_REPLY)"
	gh_done
	exit
fi
same_size() { [ "$(gh_size_bytes sda)" = "$size" ]; }
gh_poll 300 same_size || true
$NEW/mkfs.xfs -q -f /dev/vda >/dev/null 2>&1
$OLD/mkfs.xfs -q -f /dev/sda >/dev/null 2>&1
mkdir -p /mnt/new /mnt/old
if ! mount -t xfs /dev/vda /mnt/new || ! mount -t xfs /dev/sda /mnt/old; then
	echo "mount failed"
	gh_done
	exit
fi
printf '%10s %22s %22s\n' "size GiB" "AGs, series (vda)" "AGs, unpatched (sda)"
row() { printf '%10s %22s %22s\n' "$(($(gh_size_bytes vda) >> 30))" \
	"$(xfs_geom /mnt/new | cut -d' ' -f1)" "$(xfs_geom /mnt/old | cut -d' ' -f1)"; }
row
# shellcheck disable=SC2046
set -- $(xfs_geom /mnt/new) $(xfs_geom /mnt/old)
new_ags=$1 new_ag=$2 old_ags=$4 old_ag=$5
for g in 20 100 1100 2100; do
	to=$((g << 30))
	gh_wait resize "$to" drv-vd0 drv-sd0 || break
	grown_both() { [ "$(gh_size_bytes vda)" = "$to" ] && [ "$(gh_size_bytes sda)" = "$to" ]; }
	gh_poll 300 grown_both || true
	$NEW/xfs_growfs /mnt/new >/dev/null 2>&1
	$NEW/xfs_growfs /mnt/old >/dev/null 2>&1
	row
done
umount /mnt/new /mnt/old
# What the table shows, in words: from the filesystems themselves, not from a claim.
echo "The series' XFS started with $new_ags AGs of $new_ag MiB, the AG size planned for the"
echo "$(($(gh_hints vda | cut -d' ' -f2) >> 30)) GiB maximum within the disk; growth adds AGs of that size. The unpatched one"
echo "started with $old_ags AGs of $old_ag MiB, the size it chose for $((size >> 30)) GiB, and adds AGs of that size."
