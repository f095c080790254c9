#!/bin/sh
# The mke2fs and mkfs.xfs of the e2fsprogs and xfsprogs series (/opt/gh-mkfs) with no options:
# on a hinted disk the geometry of tools/POLICY.md (ext4: 64bit and a growth reserve for the
# maximum; XFS: the AG size for the maximum, at most 7/16 of the disk), then grown online in
# steps under I/O and checked clean; on a disk without hints, and with the opt-out knobs
# (mke2fs.conf use_growth_hints = false, mkfs.xfs -c with growth_hints=0), exactly the
# geometry of the unpatched bases (/opt/gh-mkfs-stock).
# A disk that may grow far (gh.single): plain mkfs.xfs makes three AGs within it; its lost
# primary superblock is restored from AG 1 (the series' xfs_repair looks where the layout puts
# it); grown in steps under I/O it keeps its AG size and its data.  (v3's image mode, one AG
# larger than the disk, is withdrawn: Documentation/design.md 2.6.)
# The ext4 disk, its reserve used up at the maximum, is then grown past it (the maximum raised at
# run time, gh.beyond): the kernel converts the filesystem to meta_bg online.
# gh.hinted=SERIAL,SERIAL (ext4, xfs)  gh.control=SERIAL  gh.max=BYTES  gh.steps=BYTES,...
# gh.single=SERIAL:QEMU-ID  gh.single_max=BYTES  gh.single_steps=BYTES,...  gh.beyond=QEMU-ID:BYTES
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

SERIES=/opt/gh-mkfs
STOCK=/opt/gh-mkfs-stock
if [ ! -x "$SERIES/sbin/mke2fs" ] || [ ! -x "$SERIES/sbin/mkfs.xfs" ] ||
	[ ! -x "$STOCK/sbin/mke2fs" ] || [ ! -x "$STOCK/sbin/mkfs.xfs" ]; then
	t_skip "mkfs-native" "the initramfs has no e2fsprogs/xfsprogs series builds (make e2fsprogs xfsprogs mkfs-stock)"
	gh_done
	exit
fi
# The series' e2fsck, resize2fs, xfs_db, xfs_repair, xfs_growfs check and grow what its mkfs made.
PATH="$SERIES/sbin:$PATH"
MKE2FS_CONFIG="$SERIES/etc/mke2fs.conf"
export PATH MKE2FS_CONFIG

hinted=$(gh_param hinted)
max=$(gh_param max)
ext=$(gh_disk "${hinted%%,*}") || { t_fail "ext4 disk present"; gh_done; exit; }
xfs=$(gh_disk "${hinted#*,}") || { t_fail "xfs disk present"; gh_done; exit; }
ctl=$(gh_disk "$(gh_param control)") || { t_fail "control disk present"; gh_done; exit; }
diag "ext4 disk $ext, xfs disk $xfs ($(gh_hints "$ext")), control $ctl"

ceil() { echo $((($1 + $2 - 1) / $2)); }
min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }

# ext4_geom DISK: the geometry lines of dumpe2fs -h (no UUID, times, seeds or counters of use).
ext4_geom() {
	dumpe2fs -h "/dev/$1" 2>/dev/null | grep -E '^(Filesystem features|Inode count|Block count|Reserved block count|Reserved GDT blocks|Block size|Fragment size|Group descriptor size|Blocks per group|Inodes per group|Inode blocks per group|Flex block group size|Inode size|Required extra isize|Desired extra isize|Journal backup|Total journal size|Total journal blocks|Journal features|Default mount options|Filesystem flags|First inode|Default directory hash):'
}
# ext4_field DISK FIELD: one value of dumpe2fs -h ("0" for no "Reserved GDT blocks" line).
ext4_field() {
	_v=$(dumpe2fs -h "/dev/$1" 2>/dev/null | sed -n "s/^$2: *//p")
	echo "${_v:-0}"
}
# xfs_field DISK|MOUNTPOINT KEY: a key=value of xfs_info (first match: agcount, agsize, ...;
# xfs_info finds a mount point with findmnt, which the guest does not have: what it runs then).
xfs_field() {
	case "$1" in
	/*) _o=$(xfs_spaceman -p xfs_info -c info "$1" 2>&1) ;;
	*) _o=$(xfs_info "/dev/$1" 2>&1) ;;
	esac
	_v=$(echo "$_o" | tr ' ' '\n' | tr -d ',' | sed -n "s/^$2=//p" | sed -n 1p)
	[ -n "$_v" ] || echo "$_o" | sed -n '1,5s/^/# xfs_info: /p' >&2
	echo "$_v"
}
xfs_log_blocks() {
	xfs_info "/dev/$1" 2>/dev/null | sed -n 's/^log .*blocks=\([0-9]*\).*/\1/p'
}
# same P A B: one result, the diff of two geometries as diagnostics when they differ.
same() {
	if [ "$2" = "$3" ] && [ -n "$2" ]; then
		t_ok "$1"
	else
		echo "$2" > /tmp/a
		echo "$3" > /tmp/b
		diff /tmp/a /tmp/b | sed 's/^/# /'
		t_fail "$1"
	fi
}

# 1. A disk without hints: exactly the unpatched tools' geometry.
t_cmd "control: stock mke2fs" "$STOCK/sbin/mke2fs" -q -F -t ext4 "/dev/$ctl"
stock_ext=$(ext4_geom "$ctl")
out=$(mkfs.ext4 -F "/dev/$ctl" 2>&1) || t_fail "control: mkfs.ext4"
case "$out" in
*"Growth hints"*) t_fail "control: mkfs.ext4 says nothing of growth hints" ;;
*) t_ok "control: mkfs.ext4 says nothing of growth hints" ;;
esac
same "control: mkfs.ext4 geometry = stock" "$(ext4_geom "$ctl")" "$stock_ext"
stock_inodes=$(ext4_field "$ctl" "Inode count")
stock_journal=$(ext4_field "$ctl" "Total journal blocks")
t_cmd "control: stock mkfs.xfs" "$STOCK/sbin/mkfs.xfs" -q -f "/dev/$ctl"
stock_xfs=$(xfs_info "/dev/$ctl" 2>&1)
stock_agsize=$(xfs_field "$ctl" agsize)
stock_log=$(xfs_log_blocks "$ctl")
t_cmd "control: mkfs.xfs" mkfs.xfs -q -f "/dev/$ctl"
same "control: mkfs.xfs geometry = stock" "$(xfs_info "/dev/$ctl" 2>&1)" "$stock_xfs"

# 2. The opt-out knobs on a hinted disk: the unpatched tools' geometry there.
sed 's/^\[defaults\]$/[defaults]\n\tuse_growth_hints = false/' "$MKE2FS_CONFIG" > /tmp/nohints.conf
t_cmd "opt-out: stock mke2fs on the hinted disk" "$STOCK/sbin/mke2fs" -q -F -t ext4 "/dev/$ext"
stock_hinted=$(ext4_geom "$ext")
t_cmd "opt-out: mkfs.ext4 with use_growth_hints = false" env MKE2FS_CONFIG=/tmp/nohints.conf mkfs.ext4 -q -F "/dev/$ext"
same "opt-out: mke2fs.conf use_growth_hints = false gives the stock geometry" "$(ext4_geom "$ext")" "$stock_hinted"
printf '[data]\ngrowth_hints=0\n' > /tmp/nohints.cfg
t_cmd "opt-out: stock mkfs.xfs on the hinted disk" "$STOCK/sbin/mkfs.xfs" -q -f "/dev/$xfs"
stock_hinted=$(xfs_info "/dev/$xfs" 2>&1)
t_cmd "opt-out: mkfs.xfs -c with growth_hints=0" mkfs.xfs -q -f -c options=/tmp/nohints.cfg "/dev/$xfs"
same "opt-out: mkfs.xfs -c growth_hints=0 gives the stock geometry" "$(xfs_info "/dev/$xfs" 2>&1)" "$stock_hinted"

# 3. Plain mkfs on the hinted disks: the policy's geometry.
S=$(gh_size_bytes "$ext")
out=$(mkfs.ext4 -F "/dev/$ext" 2>&1) || t_fail "hinted: mkfs.ext4"
if [ "$(echo "$out" | grep -c "^Growth hints: /dev/$ext may grow to $((max >> 20)) MiB")" = 1 ]; then
	t_ok "hinted: mkfs.ext4 says the hints were used"
else
	echo "$out" | sed 's/^/# /'
	t_fail "hinted: mkfs.ext4 says the hints were used"
fi
features=$(ext4_field "$ext" "Filesystem features")
case " $features " in *" 64bit "*) t_ok "hinted: ext4 64bit" ;; *) t_fail "hinted: ext4 64bit ($features)" ;; esac
case " $features " in *" meta_bg "*) t_fail "hinted: ext4 no meta_bg up front" ;; *) t_ok "hinted: ext4 no meta_bg up front" ;; esac
# The reserve for the maximum (4 KiB blocks, 32768 per group, 64 descriptors per block),
# when that is less than mke2fs's own (for 1024 times the size, at most 2^32 blocks; 1024 at most).
gdb_now=$(ceil "$(ceil $((S / 4096)) 32768)" 64)
want=$(($(ceil "$(ceil $((max / 4096)) 32768)" 64) - gdb_now))
own=$(($(ceil "$(ceil "$(min $((S / 4)) 4294967295)" 32768)" 64) - gdb_now))
own=$(min "$own" 1024)
[ "$want" -lt "$own" ] || want=$own
t_eq "hinted: ext4 reserved GDT blocks for $((max >> 30)) GiB" "$(ext4_field "$ext" "Reserved GDT blocks")" "$want"
t_eq "hinted: ext4 inode count of the size as made (stock)" "$(ext4_field "$ext" "Inode count")" "$stock_inodes"
t_eq "hinted: ext4 journal of the size as made (stock)" "$(ext4_field "$ext" "Total journal blocks")" "$stock_journal"

out=$(mkfs.xfs -f "/dev/$xfs" 2>&1) || t_fail "hinted: mkfs.xfs"
if [ "$(echo "$out" | grep -c "^growth hints: /dev/$xfs may grow to $((max >> 20)) MiB")" = 1 ]; then
	t_ok "hinted: mkfs.xfs says the hints were used"
else
	echo "$out" | sed 's/^/# /'
	t_fail "hinted: mkfs.xfs says the hints were used"
fi
# min(the default AG size for the maximum (max/4 below 4 TiB), 7/16 of the disk in MiB): three
# AGs at least, the last 1/8 of the disk
mib=256 # 4 KiB blocks per MiB
# shellcheck disable=SC2017 # the order of mkfs.xfs's own integer arithmetic
seven16=$((S / 4096 / 8 * 7 / 2))
agsize=$(min $((max / 4 / 4096)) $((seven16 - seven16 % mib)))
t_eq "hinted: xfs agsize (blocks)" "$(xfs_field "$xfs" agsize)" "$agsize"
t_eq "hinted: xfs agcount" "$(xfs_field "$xfs" agcount)" "$(ceil $((S / 4096)) "$agsize")"
t_eq "hinted: xfs log of the size as made (stock)" "$(xfs_log_blocks "$xfs")" "$stock_log"
if [ "$(xfs_field "$xfs" agsize)" -gt "$stock_agsize" ]; then t_ok "hinted: xfs AGs larger than stock's ($stock_agsize blocks)"; else t_fail "hinted: xfs AGs larger than stock's"; fi

# 4. Grow both online in steps under I/O; the data stays, fsck stays clean.
for fs in ext4 xfs; do
	d=$ext
	[ $fs = xfs ] && d=$xfs
	mkdir -p "/mnt/$fs"
	mount -t $fs "/dev/$d" "/mnt/$fs" || t_fail "$fs mount"
	dd if=/dev/urandom of="/mnt/$fs/data" bs=1M count=16 2>/dev/null
	sync
	sha256sum "/mnt/$fs/data" | cut -d' ' -f1 > "/run/$fs.sum"
done
rm -f /tmp/io.stop
(
	i=0
	while [ ! -e /tmp/io.stop ]; do
		for fs in ext4 xfs; do
			dd if=/dev/urandom of="/mnt/$fs/io.$((i % 8))" bs=64k count=16 conv=fsync 2>/dev/null
		done
		i=$((i + 1))
	done
) &
io=$!
size_is() { [ "$(gh_size_bytes "$1")" = "$2" ]; }
for size in $(gh_param steps | tr ',' ' '); do
	if ! gh_wait resize "$size"; then
		t_fail "resize to $size: $GH_REPLY"
		continue
	fi
	gh_poll 300 size_is "$ext" "$size" || true
	gh_poll 300 size_is "$xfs" "$size" || true
	t_cmd "ext4 $((size >> 30)) GiB resize2fs online" resize2fs "/dev/$ext"
	t_cmd "xfs $((size >> 30)) GiB xfs_growfs" xfs_growfs "/mnt/xfs"
	t_eq "ext4 $((size >> 30)) GiB block count" "$(ext4_field "$ext" "Block count")" $((size / 4096))
	t_eq "xfs $((size >> 30)) GiB agcount" "$(xfs_field /mnt/xfs agcount)" "$(ceil $((size / 4096)) "$agsize")"
	for fs in ext4 xfs; do
		t_eq "$fs $((size >> 30)) GiB data intact" "$(sha256sum "/mnt/$fs/data" | cut -d' ' -f1)" "$(cat "/run/$fs.sum")"
	done
done
touch /tmp/io.stop
wait "$io"
features=$(ext4_field "$ext" "Filesystem features")
case " $features " in *" meta_bg "*) t_fail "ext4 grown within its reserve (no meta_bg conversion)" ;; *) t_ok "ext4 grown within its reserve (no meta_bg conversion)" ;; esac
t_eq "xfs agsize unchanged by growth" "$(xfs_field /mnt/xfs agsize)" "$agsize"
umount /mnt/xfs
t_cmd "xfs xfs_repair -n" xfs_repair -n "/dev/$xfs"

# 4b. Past the reserve: the provider raises the maximum at run time and grows the ext4 disk past
# what the reserve sized for the old maximum covers.  resize2fs online uses the reserve's last
# descriptor blocks, then the kernel converts the filesystem to meta_bg (ext4_convert_meta_bg())
# and goes on; under writes, data intact, e2fsck -fn clean.
t_eq "ext4 reserve used up at $((max >> 30)) GiB" "$(ext4_field "$ext" "Reserved GDT blocks")" 0
beyond=$(gh_param beyond)
beyond_id=${beyond%%:*}
beyond=${beyond#*:}
rm -f /tmp/io.stop
(
	i=0
	while [ ! -e /tmp/io.stop ]; do
		dd if=/dev/urandom of="/mnt/ext4/io.$((i % 8))" bs=64k count=16 conv=fsync 2>/dev/null
		i=$((i + 1))
	done
) &
io=$!
if ! gh_wait hints "$beyond_id" $((1 << 30)) "$beyond" $((1 << 30)); then
	t_fail "ext4: maximum raised to $((beyond >> 30)) GiB: $GH_REPLY"
elif ! gh_wait resize "$beyond" "$beyond_id"; then
	t_fail "ext4: resize to $((beyond >> 30)) GiB: $GH_REPLY"
else
	gh_poll 300 size_is "$ext" "$beyond" || true
	t_cmd "ext4 $((beyond >> 30)) GiB resize2fs online, past the reserve" resize2fs "/dev/$ext"
	t_eq "ext4 $((beyond >> 30)) GiB block count" "$(ext4_field "$ext" "Block count")" $((beyond / 4096))
fi
touch /tmp/io.stop
wait "$io"
t_eq "ext4 $((beyond >> 30)) GiB data intact" "$(sha256sum /mnt/ext4/data | cut -d' ' -f1)" "$(cat /run/ext4.sum)"
umount /mnt/ext4
features=$(ext4_field "$ext" "Filesystem features")
case " $features " in
*" meta_bg "*" resize_inode "* | *" resize_inode "*" meta_bg "*) t_fail "ext4 converted to meta_bg online ($features)" ;;
*" meta_bg "*) t_ok "ext4 converted to meta_bg online (resize_inode cleared)" ;;
*) t_fail "ext4 converted to meta_bg online ($features)" ;;
esac
if [ "$(dmesg | grep -c "Converting file system to meta_bg")" -gt 0 ]; then
	t_ok "ext4: the kernel says it converted to meta_bg"
else
	t_fail "ext4: the kernel says it converted to meta_bg"
fi
t_cmd "ext4 e2fsck -fn" e2fsck -fn "/dev/$ext"

# 5. A disk that may grow far: plain mkfs.xfs makes three AGs within it (two of 7/16 of it), a
# layout every xfs_repair takes and checks by majority.  Its primary superblock lost before any
# growth: the series' xfs_repair restores it from AG 1.  Grown in steps under I/O, it keeps its
# AG size (the AGs of 7/16 of the disk as made) and its data.
single=$(gh_param single)
one=$(gh_disk "${single%%:*}") || { t_fail "far-growth disk present"; gh_done; exit; }
one_id=${single#*:}
one_max=$(gh_param single_max)
S1=$(gh_size_bytes "$one")
out=$(mkfs.xfs -f "/dev/$one" 2>&1) || t_fail "far growth: mkfs.xfs"
if [ "$(echo "$out" | grep -c "^growth hints: /dev/$one may grow to $((one_max >> 20)) MiB, agsize chosen for it$")" = 1 ]; then
	t_ok "far growth: mkfs.xfs says the hints were used"
else
	echo "$out" | sed 's/^/# /'
	t_fail "far growth: mkfs.xfs says the hints were used"
fi
# shellcheck disable=SC2017 # the order of mkfs.xfs's own integer arithmetic
seven16=$((S1 / 4096 / 8 * 7 / 2))
t_eq "far growth: plain mkfs.xfs makes three AGs, two of 7/16 of the disk" \
	"$(xfs_field "$one" agcount) $(xfs_field "$one" agsize)" "3 $((seven16 - seven16 % mib))"
t_cmd "far growth: xfs_repair -n" xfs_repair -n "/dev/$one"

agsize=$(xfs_field "$one" agsize)
# The primary superblock lost before any growth: restored from AG 1.
dd if=/dev/zero of="/dev/$one" bs=512 count=1 conv=notrunc,fsync 2>/dev/null
out=$(xfs_repair "/dev/$one" 2>&1)
case "$out" in
*"verified secondary superblock"*) t_ok "far growth: first sector zeroed, xfs_repair restores it from AG 1" ;;
*) echo "$out" | grep -v '^\.*$' | sed -n '1,8s/^/# /p'; t_fail "far growth: first sector zeroed, xfs_repair restores it from AG 1" ;;
esac
t_cmd "far growth: xfs_repair -n clean after the restore" xfs_repair -n "/dev/$one"

mkdir -p /mnt/one
mount -t xfs "/dev/$one" /mnt/one || t_fail "far growth: mount"
dd if=/dev/urandom of=/mnt/one/data bs=1M count=16 2>/dev/null
sync
sum=$(sha256sum /mnt/one/data | cut -d' ' -f1)
for size in $(gh_param single_steps | tr ',' ' '); do
	rm -f /tmp/io.stop
	(
		i=0
		while [ ! -e /tmp/io.stop ]; do
			dd if=/dev/urandom of="/mnt/one/io.$((i % 8))" bs=64k count=16 conv=fsync 2>/dev/null
			i=$((i + 1))
		done
	) &
	io=$!
	if ! gh_wait resize "$size" "$one_id"; then
		t_fail "far growth: resize to $size: $GH_REPLY"
	else
		gh_poll 300 size_is "$one" "$size" || true
		t_cmd "far growth: $((size >> 30)) GiB xfs_growfs" xfs_growfs /mnt/one
		t_eq "far growth: $((size >> 30)) GiB, AGs of the size as made" \
			"$(xfs_field /mnt/one agcount) $(xfs_field /mnt/one agsize)" "$(ceil $((size / 4096)) "$agsize") $agsize"
		t_eq "far growth: $((size >> 30)) GiB data intact" "$(sha256sum /mnt/one/data | cut -d' ' -f1)" "$sum"
	fi
	touch /tmp/io.stop
	wait "$io"
done
umount /mnt/one
t_cmd "far growth: xfs_repair -n clean after growth" xfs_repair -n "/dev/$one"
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
