#!/bin/sh
# LVM on a disk with growth hints (gh.pv=SERIAL: 10 GiB at its minimum, may grow to 100 GiB in
# 1 GiB steps), with LVM's defaults (data from 1 MiB, 4 MiB extents): a volume group over the
# whole disk, a first volume of 2 GiB and a last one over the rest.  The last volume, whose
# mapping ends at the disk's end but for the 3 MiB the extents leave, shows the disk's maximum
# less its offset and no minimum or increment (sysfs and the series' lsblk) and plain mkfs.xfs of the series lays it out for that maximum;
# the first shows none and mkfs.xfs makes exactly the unpatched tool's layout.  Then the host
# grows the disk (gh.grow=BYTES); pvresize, lvextend and xfs_growfs grow the last volume and
# its filesystem, which stays consistent with its hints and checks clean.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

SERIES=/opt/gh-mkfs
STOCK=/opt/gh-mkfs-stock
if ! command -v lvm >/dev/null || ! command -v dmsetup >/dev/null ||
	[ ! -x "$SERIES/sbin/mkfs.xfs" ] || [ ! -x "$STOCK/sbin/mkfs.xfs" ]; then
	t_skip "lvm" "the initramfs has no lvm, dmsetup or mkfs.xfs series builds (make deps xfsprogs mkfs-stock)"
	gh_done
	exit
fi
PATH="$SERIES/sbin:$PATH"
export PATH

pv=$(gh_disk "$(gh_param pv)") || { t_fail "disk present"; gh_done; exit; }
grow=$(gh_param grow)
disk_hints=$(gh_hints "$pv")
diag "disk $pv: hints $disk_hints"
read -r _ dmax _ <<EOF_HINTS
$disk_hints
EOF_HINTS

# LVM in the initramfs: no udev (libdevmapper makes the nodes), no devices file, no daemons.
mkdir -p /etc/lvm /run/lock/lvm /run/lvm
cat > /etc/lvm/lvm.conf <<'CONF'
devices {
	use_devicesfile = 0
	obtain_device_list_from_udev = 0
}
activation {
	udev_sync = 0
	udev_rules = 0
	monitoring = 0
}
CONF
# (the second serial port is the host's answer channel: LVM need not warn about it)
DM_DISABLE_UDEV=1
LVM_SUPPRESS_FD_WARNINGS=1
export DM_DISABLE_UDEV LVM_SUPPRESS_FD_WARNINGS

t_cmd "pvcreate" lvm pvcreate -y "/dev/$pv"
t_cmd "vgcreate" lvm vgcreate gh "/dev/$pv"
t_cmd "lvcreate first (2 GiB)" lvm lvcreate -y -Wn -Zn -L 2g -n first gh
t_cmd "lvcreate last (the rest)" lvm lvcreate -y -Wn -Zn -l 100%FREE -n last gh
if [ ! -b /dev/mapper/gh-first ] || [ ! -b /dev/mapper/gh-last ]; then
	t_fail "the two volumes exist"
	gh_done
	exit
fi
dmsetup table | sed 's/^/# /'

# dm_name LV: dm-N of /dev/mapper/gh-LV
dm_name() { dmsetup info -c --noheadings -o blkdevname "gh-$1" | tr -d ' '; }
# lv_start LV: where the volume starts on the disk, in bytes (its one linear segment)
lv_start() { echo $(($(dmsetup table "gh-$1" | sed -n '1s/.* \([0-9]*\)$/\1/p') * 512)); }
# lsblk_hints DEV: GROW-MIN, GROW-MAX and GROW-INC of the series' lsblk, in bytes
lsblk_hints() { lsblk -b -n -d -o GROW-MIN,GROW-MAX,GROW-INC "$1" | tr -s ' ' | sed 's/^ //; s/ $//'; }
# xfs_field DEV KEY: a key=value of xfs_info
xfs_field() { xfs_info "$1" 2>/dev/null | tr ' ' '\n' | tr -d ',' | sed -n "s/^$2=//p" | sed -n 1p; }
ceil() { echo $((($1 + $2 - 1) / $2)); }
min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }

first=$(dm_name first)
last=$(dm_name last)
off=$(lv_start last)
# a mapped device states the maximum alone: its sizes are LVM's, not the provider's
want="0 $((dmax - off)) 0"
diag "first $first, last $last at $off bytes"

# 1. The hints in sysfs and lsblk
t_eq "first volume: no hints" "$(gh_hints "$first")" "0 0 0"
t_eq "last volume: the disk's maximum less its offset" "$(gh_hints "$last")" "$want"
t_eq "lsblk: first volume" "$(lsblk_hints /dev/mapper/gh-first)" "0 0 0"
t_eq "lsblk: last volume" "$(lsblk_hints /dev/mapper/gh-last)" "$want"

# 2. Plain mkfs.xfs: the unpatched layout on the first, the growth layout on the last
t_cmd "first volume: stock mkfs.xfs" "$STOCK/sbin/mkfs.xfs" -f -q /dev/mapper/gh-first
stock="$(xfs_field /dev/mapper/gh-first agcount) $(xfs_field /dev/mapper/gh-first agsize)"
t_cmd "first volume: mkfs.xfs of the series" mkfs.xfs -f -q /dev/mapper/gh-first
t_eq "first volume: the unpatched layout" \
	"$(xfs_field /dev/mapper/gh-first agcount) $(xfs_field /dev/mapper/gh-first agsize)" "$stock"

lmax=$((dmax - off))
out=$(mkfs.xfs -f /dev/mapper/gh-last 2>&1) || t_fail "last volume: mkfs.xfs"
if [ "$(echo "$out" | grep -c "^growth hints: /dev/mapper/gh-last may grow to $((lmax >> 20)) MiB")" = 1 ]; then
	t_ok "last volume: mkfs.xfs says the hints were used"
else
	echo "$out" | sed 's/^/# /'
	t_fail "last volume: mkfs.xfs says the hints were used"
fi
# tools/POLICY.md: the AG size for the maximum, at most 7/16 of the volume (in whole MiB)
S=$(gh_size_bytes "$last")
# shellcheck disable=SC2017 # the order of mkfs.xfs's own integer arithmetic
seven16=$((S / 4096 / 8 * 7 / 2))
agsize=$(min $((lmax / 4 / 4096)) $((seven16 - seven16 % 256)))
t_eq "last volume: agsize for its maximum (blocks)" "$(xfs_field /dev/mapper/gh-last agsize)" "$agsize"
t_eq "last volume: agcount" "$(xfs_field /dev/mapper/gh-last agcount)" "$(ceil $((S / 4096)) "$agsize")"

# 3. The disk grows; pvresize, lvextend and xfs_growfs follow
mkdir -p /mnt/lv
mount -t xfs /dev/mapper/gh-last /mnt/lv || t_fail "mount the last volume"
dd if=/dev/urandom of=/mnt/lv/data bs=1M count=8 2>/dev/null
sync
sum=$(sha256sum /mnt/lv/data | cut -d' ' -f1)
size_is() { [ "$(gh_size_bytes "$pv")" = "$grow" ]; }
if gh_wait resize "$grow" && gh_poll 300 size_is; then
	t_ok "disk grown to $((grow >> 30)) GiB"
else
	t_fail "disk grown to $((grow >> 30)) GiB"
fi
t_cmd "pvresize" lvm pvresize "/dev/$pv"
t_eq "last volume after pvresize: hints as they were" "$(gh_hints "$last")" "$want"
t_cmd "lvextend -l +100%FREE" lvm lvextend -l +100%FREE gh/last
t_eq "last volume after lvextend: the disk's maximum less its offset" "$(gh_hints "$last")" "$want"
t_eq "lsblk after lvextend" "$(lsblk_hints /dev/mapper/gh-last)" "$want"
S=$(gh_size_bytes "$last")
if [ "$S" -gt $((10 << 30)) ] && [ "$S" -le "$lmax" ]; then
	t_ok "last volume grown within its maximum ($S bytes)"
else
	t_fail "last volume grown within its maximum ($S bytes, maximum $lmax)"
fi
t_cmd "xfs_growfs" xfs_growfs /mnt/lv
t_eq "agsize unchanged by growth" "$(xfs_spaceman -p xfs_info -c info /mnt/lv 2>/dev/null | tr ' ' '\n' | tr -d ',' | sed -n 's/^agsize=//p' | sed -n 1p)" "$agsize"
t_eq "data intact" "$(sha256sum /mnt/lv/data | cut -d' ' -f1)" "$sum"
umount /mnt/lv
t_eq "agcount after growth" "$(xfs_field /dev/mapper/gh-last agcount)" "$(ceil $((S / 4096)) "$agsize")"
t_cmd "xfs_repair -n" xfs_repair -n /dev/mapper/gh-last

t_cmd "vgremove" lvm vgremove -y -ff gh
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
