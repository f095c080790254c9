#!/bin/sh
# Guest side of the stock-compat suite (selftests/stock-compat.sh).  Disks are found by serial.
# gh.mkfs=SERIAL:FS,...  plain mkfs of the series (/opt/gh-mkfs: mkfs.xfs DEV, mkfs.ext4 DEV, no
#                        options), which says whether it used growth hints; then the data is written
# gh.fill=SERIAL:FS,...  the data written only (a filesystem the host made)
# gh.grow=SERIAL:FS:BYTES,...  mounted, data intact; the host grows the disk to BYTES
#                        ("GH-WAIT resize SERIAL BYTES"); grown online with this initramfs's
#                        xfs_growfs or resize2fs (the host's, Debian 12's), the filesystem's size
#                        checked, data intact, unmounted
# gh.check=SERIAL:FS,... mounted, data intact, unmounted
# The data: a copy of /bin/busybox and a directory of 64 small files.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

SERIES=/opt/gh-mkfs
diag "kernel $(uname -r)"

# mnt SERIAL FS: mount the disk on /mnt/SERIAL (ext4 without the lazy inode table zeroing,
# which would only make the images larger); sets d.
mnt() {
	d=$(gh_disk "$1") || { t_fail "$1: present"; return 1; }
	mkdir -p "/mnt/$1"
	_opts=""
	[ "$2" = ext4 ] && _opts="-o noinit_itable"
	# shellcheck disable=SC2086 # no options or one
	if _o=$(mount -t "$2" $_opts "/dev/$d" "/mnt/$1" 2>&1); then
		t_ok "$1: mounts"
	else
		echo "$_o" | sed 's/^/# /'
		dmesg | tail -n 5 | sed 's/^/# dmesg: /'
		t_fail "$1: mounts"
		return 1
	fi
}
unmnt() { t_cmd "$1: unmounts" umount "/mnt/$1"; }
data_ok() { # data_ok SERIAL WHEN
	if cmp -s /bin/busybox "/mnt/$1/data/busybox" && [ "$(find "/mnt/$1/data/dir" -type f | wc -l)" = 64 ] &&
		[ "$(cat "/mnt/$1/data/dir/63")" = 63 ]; then
		t_ok "$1: data intact$2"
	else
		t_fail "$1: data intact$2"
	fi
}
write_data() {
	mkdir -p "/mnt/$1/data/dir"
	cp /bin/busybox "/mnt/$1/data/busybox"
	_i=0
	while [ $_i -lt 64 ]; do
		echo $_i > "/mnt/$1/data/dir/$_i"
		_i=$((_i + 1))
	done
	sync
	data_ok "$1" " (written)"
}
# geometry SERIAL FS: the layout as diagnostics
geometry() {
	case "$2" in
	xfs) diag "$1: $(xfs_db -r -c 'sb 0' -c 'print agcount agblocks dblocks logblocks' "/dev/$d" | tr '\n' ' ')" ;;
	ext4) diag "$1: $(dumpe2fs -h "/dev/$d" 2>/dev/null | grep -E '^(Block count|Reserved GDT blocks|Filesystem features):' | tr -s ' ' | tr '\n' ' ')" ;;
	esac
}
# fs_blocks SERIAL FS: the filesystem's size in 4 KiB blocks (as the kernel has it: mounted)
fs_blocks() {
	case "$2" in
	xfs) xfs_spaceman -p xfs_info -c info "/mnt/$1" 2>/dev/null | sed -n 's/^data *= *bsize=4096 *blocks=\([0-9]*\),.*/\1/p' ;;
	ext4) dumpe2fs -h "/dev/$d" 2>/dev/null | sed -n 's/^Block count: *//p' ;;
	esac
}

for spec in $(gh_param mkfs | tr ',' ' '); do
	serial=${spec%%:*} fs=${spec#*:}
	d=$(gh_disk "$serial") || { t_fail "$serial: present"; continue; }
	hints=$(gh_hints "$d")
	case "$fs" in
	xfs) out=$("$SERIES/sbin/mkfs.xfs" -f "/dev/$d" 2>&1) ;;
	ext4) out=$(MKE2FS_CONFIG="$SERIES/etc/mke2fs.conf" "$SERIES/sbin/mkfs.ext4" -F "/dev/$d" 2>&1) ;;
	esac
	rc=$?
	echo "$out" | grep -i 'growth\|experimental' | sed "s/^/# $serial: mkfs: /"
	if [ $rc = 0 ]; then t_ok "$serial: plain mkfs.$fs"; else echo "$out" | tail -n 5 | sed 's/^/# /'; t_fail "$serial: plain mkfs.$fs"; fi
	# Whether mkfs used the hints is what makes the layout the one a hinted disk gets.
	if [ "$hints" = "0 0 0" ]; then
		t_eq "$serial: no hints, mkfs says nothing of growth" "$(echo "$out" | grep -ci 'growth hints')" 0
	else
		t_eq "$serial: hints $hints, mkfs says it used them" "$(echo "$out" | grep -ci "^growth hints: /dev/$d may grow to")" 1
	fi
	geometry "$serial" "$fs"
	mnt "$serial" "$fs" || continue
	write_data "$serial"
	unmnt "$serial"
done

for spec in $(gh_param fill | tr ',' ' '); do
	serial=${spec%%:*} fs=${spec#*:}
	mnt "$serial" "$fs" || continue
	geometry "$serial" "$fs"
	write_data "$serial"
	unmnt "$serial"
done

size_is() { [ "$(gh_size_bytes "$1")" = "$2" ]; }
for spec in $(gh_param grow | tr ',' ' '); do
	IFS=: read -r serial fs size <<-EOF
	$spec
	EOF
	mnt "$serial" "$fs" || continue
	data_ok "$serial" ""
	if ! gh_wait resize "$serial" "$size"; then
		t_fail "$serial: disk grown to $((size >> 30)) GiB: $GH_REPLY"
		unmnt "$serial"
		continue
	fi
	gh_poll 300 size_is "$d" "$size" || true
	case "$fs" in
	xfs) t_cmd "$serial: xfs_growfs $(xfs_growfs -V | sed 's/.* //') online to $((size >> 30)) GiB" xfs_growfs "/mnt/$serial" ;;
	ext4) t_cmd "$serial: resize2fs $(resize2fs 2>&1 | sed -n '1s/^resize2fs \([^ ]*\).*/\1/p') online to $((size >> 30)) GiB" resize2fs "/dev/$d" ;;
	esac
	# The whole disk.
	blocks=$(fs_blocks "$serial" "$fs")
	if [ -n "$blocks" ] && [ "$blocks" = $((size / 4096)) ]; then
		t_ok "$serial: filesystem grown to the disk ($blocks blocks)"
	else
		t_fail "$serial: filesystem grown to the disk (got '$blocks' blocks, want $((size / 4096)))"
	fi
	data_ok "$serial" " after growth"
	unmnt "$serial"
	geometry "$serial" "$fs"
done

for spec in $(gh_param check | tr ',' ' '); do
	serial=${spec%%:*} fs=${spec#*:}
	mnt "$serial" "$fs" || continue
	data_ok "$serial" ""
	unmnt "$serial"
done
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
