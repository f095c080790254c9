#!/bin/sh
# Disks the host wrote with growth-inflate (selftests/scenarios/inflate.sh): for the XFS and
# the ext4 image, the disk's hints, the partition table's GUIDs, the root filesystem's UUID and
# label, its files against the host's manifest of the source (busybox stat and sha256sum),
# the series' xfs_repair -n / e2fsck -fn, and the geometry against the series' mkfs run with
# no options on a blank twin disk (same size, hints and partition table).  Then growth-inflate
# run here: the XFS image (serial "src-xfs") onto a blank hinted disk (serial "guest-xfs").
# gh.size= gh.max= (bytes)  gh.uuid_FS= gh.label_FS= gh.ptuuid_FS= gh.partuuid_FS=
# gh.manifest_len= (bytes of the manifest disk, serial "manifest")
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

SERIES=/opt/gh-mkfs
if [ ! -x "$SERIES/sbin/mke2fs" ] || [ ! -x "$SERIES/sbin/mkfs.xfs" ]; then
	t_skip "inflate" "the initramfs has no e2fsprogs/xfsprogs series builds (make e2fsprogs xfsprogs)"
	gh_done
	exit
fi
# full paths: busybox's applets (mke2fs) come before PATH
MKE2FS_CONFIG="$SERIES/etc/mke2fs.conf"
export MKE2FS_CONFIG
size=$(gh_param size)
max=$(gh_param max)

# manifest DIR: the host's format (selftests/scenarios/inflate.sh)
manifest() {
	(cd "$1" && find . | LC_ALL=C sort | while IFS= read -r f; do
		line=$(stat -c '%n|%F|%a|%u|%g|%y|%t:%T|%h' "$f")
		case $line in
		*"|regular file|"* | *"|regular empty file|"*)
			line="$line|$(stat -c %s "$f")|$(sha256sum < "$f" | cut -d' ' -f1)" ;;
		*"|symbolic link|"*) line="$line|$(readlink "$f")" ;;
		esac
		echo "$line"
	done)
}
field() {	# field KEY: a key=value of xfs_info's output on stdin
	tr ' ' '\n' | tr -d ',' | sed -n "s/^$1=//p" | sed -n 1p
}
xfs_geom() { _i=$("$SERIES/sbin/xfs_info" "/dev/$1" 2>&1); echo "agcount=$(echo "$_i" | field agcount) agsize=$(echo "$_i" | field agsize) blocks=$(echo "$_i" | sed -n 's/^data *= *bsize=[0-9]* *blocks=\([0-9]*\),.*/\1/p')"; }
ext4_geom() { "$SERIES/sbin/dumpe2fs" -h "/dev/$1" 2>/dev/null | grep -E '^(Block count|Inode count|Blocks per group|Reserved GDT blocks|Flex block group size):' | tr -s ' ' | tr '\n' ';'; }

mdisk=$(gh_disk manifest) || { t_fail "manifest disk present"; gh_done; exit; }
head -c "$(gh_param manifest_len)" "/dev/$mdisk" > /tmp/manifest
mkdir -p /mnt/src

for fs in xfs ext4; do
	disk=$(gh_disk "inf-$fs") || { t_fail "$fs: inflated disk present"; continue; }
	blank=$(gh_disk "blank-$fs") || { t_fail "$fs: blank twin present"; continue; }
	t_eq "$fs: the disk's hints (min, max, increment)" "$(gh_hints "$disk" | tr -s ' ' | sed 's/^ //')" \
		"$size $max $((1 << 30))"
	gh_poll 50 test -b "/dev/${disk}3" || true
	t_eq "$fs: the disk GUID is the image's" "$(blkid -p -o value -s PTUUID "/dev/$disk" | tr '[:upper:]' '[:lower:]')" \
		"$(gh_param "ptuuid_$fs")"
	t_eq "$fs: partition 3's GUID is the image's" \
		"$(blkid -p -o value -s PART_ENTRY_UUID "/dev/${disk}3" | tr '[:upper:]' '[:lower:]')" "$(gh_param "partuuid_$fs")"
	end=$(($(cat "/sys/block/$disk/${disk}3/start") + $(cat "/sys/block/$disk/${disk}3/size")))
	t_eq "$fs: partition 3 is extended to the end (aligned down to 1 MiB, as sfdisk does)" \
		"$end" "$((($(cat "/sys/block/$disk/size") - 33) / 2048 * 2048))"
	t_eq "$fs: the root filesystem's type" "$(blkid -p -o value -s TYPE "/dev/${disk}3")" "$fs"
	t_eq "$fs: the root filesystem's UUID is the image's" \
		"$(blkid -p -o value -s UUID "/dev/${disk}3")" "$(gh_param "uuid_$fs")"
	t_eq "$fs: the root filesystem's label is the image's" \
		"$(blkid -p -o value -s LABEL "/dev/${disk}3")" "$(gh_param "label_$fs")"
	sed -n "/^== $fs\$/,/^== /p" /tmp/manifest | grep -v '^== ' > "/tmp/want-$fs"
	if mount -o ro -t "$fs" "/dev/${disk}3" /mnt/src; then
		manifest /mnt/src > "/tmp/got-$fs"
		umount /mnt/src
		if cmp -s "/tmp/want-$fs" "/tmp/got-$fs"; then
			t_ok "$fs: the files are the image's ($(wc -l < "/tmp/got-$fs") inodes: type, mode, owner, mtime in ns, device numbers, links, size, SHA-256, link targets)"
		else
			diff "/tmp/want-$fs" "/tmp/got-$fs" | sed -n 1,10p | sed 's/^/# /'
			t_fail "$fs: the files are the image's"
		fi
	else
		t_fail "$fs: the files are the image's (mount failed)"
	fi
	if [ "$fs" = xfs ]; then
		t_cmd "xfs: the series' xfs_repair -n finds nothing" "$SERIES/sbin/xfs_repair" -n "/dev/${disk}3"
		got=$(xfs_geom "${disk}3")
		"$SERIES/sbin/mkfs.xfs" -f -q "/dev/${blank}3" > /tmp/mkfs.log 2>&1 || sed 's/^/# /' /tmp/mkfs.log
		want=$(xfs_geom "${blank}3")
	else
		t_cmd "ext4: the series' e2fsck -fn finds nothing" "$SERIES/sbin/e2fsck" -fn "/dev/${disk}3"
		got=$(ext4_geom "${disk}3")
		"$SERIES/sbin/mke2fs" -F -q -t ext4 "/dev/${blank}3" > /tmp/mkfs.log 2>&1 || sed 's/^/# /' /tmp/mkfs.log
		want=$(ext4_geom "${blank}3")
	fi
	diag "$fs: inflated: $got"
	t_eq "$fs: the layout plain mkfs makes on the hinted twin" "$got" "$want"
	[ "$fs" = xfs ] && host_xfs=$(xfs_geom "${disk}3")
done

# growth-inflate in the guest: the XFS image on a disk of its own onto a blank hinted disk,
# with the disk's hints read from sysfs (no hint options)
if ! src=$(gh_disk src-xfs) || ! tgt=$(gh_disk guest-xfs); then
	t_fail "guest: source and target disks present"
	gh_done
	exit
fi
if growth-inflate --verify --mkfs-xfs="$SERIES/sbin/mkfs.xfs" --mke2fs="$SERIES/sbin/mke2fs" \
	"/dev/$src" "/dev/$tgt" > /tmp/inflate.log 2>&1; then
	t_ok "guest: growth-inflate --verify from /dev/$src onto /dev/$tgt"
else
	sed 's/^/# /' /tmp/inflate.log
	t_fail "guest: growth-inflate --verify from /dev/$src onto /dev/$tgt"
fi
t_eq "guest: growth-inflate read the disk's hints from sysfs" \
	"$(grep -c 'growth hints min 20 GiB, max 16 TiB' /tmp/inflate.log)" 1
gh_poll 50 test -b "/dev/${tgt}3" || true
t_eq "guest: the root filesystem's UUID is the image's" \
	"$(blkid -p -o value -s UUID "/dev/${tgt}3")" "$(gh_param uuid_xfs)"
t_cmd "guest: the series' xfs_repair -n finds nothing" "$SERIES/sbin/xfs_repair" -n "/dev/${tgt}3"
t_eq "guest: the layout the host's growth-inflate made on the same disk" "$(xfs_geom "${tgt}3")" "${host_xfs:-}"
gh_done
