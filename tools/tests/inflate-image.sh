#!/usr/bin/env bash
# Build a disk image as image builders ship them, for growth-inflate's tests and bench:
#   inflate-image.sh [options] OUT
#     --layout gpt|dos|bare|raw-only   GPT: BIOS boot (1 MiB), vfat ESP (64 MiB), root;
#                                      dos: vfat (64 MiB, active), root; bare: the root
#                                      filesystem alone; raw-only: GPT with BIOS boot, ESP and
#                                      a swap partition (no root needs root privileges)
#     --fs xfs|ext4                    the root filesystem (default xfs)
#     --size SIZE                      the image (default 1G; truncate's suffixes)
#     --mkfs PROG                      mkfs.xfs or mke2fs to make the root with (default: PATH)
#     --fill fidelity|none|MiB         what the root holds: every file type and attribute
#                                      growth-inflate(8) lists (default), nothing, or about
#                                      MiB of files like a distribution's (hard links,
#                                      xattrs, ACLs, sparse files, device nodes)
#     --label L, --uuid U              of the root filesystem
# Needs root for everything but raw-only (a loop device, a mount).  Prints nothing on success.
set -euo pipefail
layout=gpt fs=xfs size=1G mkfs="" fill=fidelity label=root uuid=""
while [ $# -gt 1 ]; do
	case $1 in
	--layout) layout=$2 ;;
	--fs) fs=$2 ;;
	--size) size=$2 ;;
	--mkfs) mkfs=$2 ;;
	--fill) fill=$2 ;;
	--label) label=$2 ;;
	--uuid) uuid=$2 ;;
	*) echo "inflate-image.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
out=$1
rm -f "$out"
truncate -s "$size" "$out"

# Partitions, in 512-byte sectors.
case $layout in
gpt | raw-only)
	{
		echo "label: gpt"
		echo "label-id: 0B1D5A77-4E3A-4A43-9A1E-6F1D2A3B4C5D"
		echo "start=2048, size=2048, type=21686148-6449-6E6F-744E-656564454649, uuid=11111111-2222-4333-8444-555555555501, name=\"BIOS boot\", attrs=\"RequiredPartition LegacyBIOSBootable\""
		echo "start=4096, size=131072, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=11111111-2222-4333-8444-555555555502, name=\"EFI System\""
		if [ "$layout" = raw-only ]; then
			echo "start=135168, type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F, uuid=11111111-2222-4333-8444-555555555503, name=\"swap\""
		else
			echo "start=135168, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, uuid=11111111-2222-4333-8444-555555555503, name=\"root\", attrs=\"GUID:59\""
		fi
	} | sfdisk -q --no-reread --no-tell-kernel "$out" > /dev/null
	root_start=135168 ;;
dos)
	printf 'label: dos\nlabel-id: 0x5ca1ab1e\nstart=2048, size=131072, type=ef, bootable\nstart=133120, type=83\n' |
		sfdisk -q --no-reread --no-tell-kernel "$out" > /dev/null
	root_start=133120 ;;
bare) root_start=0 ;;
*) echo "inflate-image.sh: unknown layout $layout" >&2; exit 2 ;;
esac
bytes=$(stat -c %s "$out")
if [ "$layout" != bare ]; then
	# boot code in the MBR and a core image in the BIOS boot partition / the gap: bytes
	# growth-inflate must carry as they are
	head -c 440 /dev/urandom | dd of="$out" conv=notrunc status=none
	if [ "$layout" = dos ]; then
		head -c 65536 /dev/urandom | dd of="$out" bs=512 seek=1 conv=notrunc status=none
	else
		head -c 300000 /dev/urandom | dd of="$out" bs=512 seek=2048 conv=notrunc status=none
	fi
	esp=$([ "$layout" = dos ] && echo 2048 || echo 4096)
	mkfs.vfat -F 32 -s 1 -n EFI --offset="$esp" -i 12345678 "$out" 65536 > /dev/null 2>&1
	if [ "$layout" = raw-only ]; then
		swap_bytes=$((bytes - 135168 * 512 - 33 * 512))
		# a swap signature without a device: mkswap on a file, copied in
		tmp=$(mktemp)
		truncate -s "$swap_bytes" "$tmp"
		mkswap -U 11111111-2222-4333-8444-5555555555aa "$tmp" > /dev/null 2>&1
		dd if="$tmp" of="$out" bs=512 seek=135168 conv=notrunc,sparse status=none
		rm -f "$tmp"
		exit 0
	fi
fi

if [ "$layout" = bare ]; then
	root_bytes=$bytes
else
	# the root partition as sfdisk made it (it aligns the end)
	root_bytes=$(sfdisk -d "$out" | sed -n "s/.*start= *$root_start, size= *\([0-9]*\).*/\1/p")
	root_bytes=$((root_bytes * 512))
fi
lo=$(losetup -f --show -o $((root_start * 512)) --sizelimit "$root_bytes" "$out")
mnt=$(mktemp -d)
trap 'umount "$mnt" 2>/dev/null || true; losetup -d "$lo" 2>/dev/null || true; rmdir "$mnt"' EXIT
if [ "$fs" = xfs ]; then
	"${mkfs:-mkfs.xfs}" -q -f -L "$label" ${uuid:+-m uuid=$uuid} "$lo"
else
	"${mkfs:-mke2fs}" -q -F -t ext4 -L "$label" ${uuid:+-U $uuid} "$lo"
fi
mount "$lo" "$mnt"
r=$mnt
case $fill in
none) ;;
fidelity)
	# every file type and attribute growth-inflate(8) lists
	mkdir -p "$r/dir/sub/deeper" "$r/etc" "$r/dev" "$r/var/empty" "$r/acl" "$r/flags"
	echo "hello" > "$r/dir/file"
	: > "$r/dir/empty"
	head -c 1048577 /dev/urandom > "$r/dir/random"
	# holes: data at 0, 1 MiB and 8 MiB in a 16 MiB file
	printf 'start' | dd of="$r/dir/sparse" bs=1 conv=notrunc status=none
	printf 'middle' | dd of="$r/dir/sparse" bs=1M seek=1 conv=notrunc status=none
	head -c 8192 /dev/urandom | dd of="$r/dir/sparse" bs=1M seek=8 conv=notrunc status=none
	truncate -s 16M "$r/dir/sparse"
	truncate -s 1G "$r/dir/all-hole"
	ln -s file "$r/dir/link-relative"
	ln -s /etc/hostname "$r/dir/link-absolute"
	ln -s "$(printf 'x%.0s' $(seq 1 1000))" "$r/dir/link-long"
	ln -s dangling/nowhere "$r/dir/link-dangling"
	echo "linked" > "$r/dir/hard1"
	ln "$r/dir/hard1" "$r/dir/hard2"
	ln "$r/dir/hard1" "$r/dir/sub/hard3"
	mknod "$r/dev/null" c 1 3
	mknod "$r/dev/loop9" b 7 9
	mknod "$r/dev/big" c 511 262143
	ln "$r/dev/null" "$r/dev/null-link"
	mkfifo "$r/dev/fifo"
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$r/dev/socket"
	echo owned > "$r/dir/owned"
	chown 1234:5678 "$r/dir/owned" "$r/dev/fifo"
	chown -h 4321:8765 "$r/dir/link-relative"
	chmod 4755 "$r/dir/owned"
	chmod 1777 "$r/var/empty"
	chmod 0600 "$r/dir/file"
	chmod 2750 "$r/dir/sub"
	printf 'name with\nnewline and\ttab' > "$r/dir/$(printf 'odd\nname\t')"
	echo "ünïcödé" > "$r/dir/ünïcödé"
	# extended attributes: user, trusted, security (incl. a capability), on a symlink and
	# a device node; a large value
	setfattr -n user.color -v blue "$r/dir/file"
	setfattr -n user.empty "$r/dir/file"
	setfattr -n user.big -v "0x$(head -c 3000 /dev/urandom | od -An -tx1 -v | tr -d ' \n')" "$r/dir/random"
	setfattr -n trusted.note -v secret "$r/dir/file"
	setfattr -n security.test -v label1 "$r/dir/file"
	setcap cap_net_raw+ep "$r/dir/owned"
	setfattr -h -n trusted.onlink -v yes "$r/dir/link-relative"
	setfattr -n trusted.ondev -v yes "$r/dev/null"
	setfattr -n user.ondir -v yes "$r/dir/sub"
	# POSIX ACLs: access and default
	echo acl > "$r/acl/file"
	setfacl -m u:1000:rwx,g:2000:r-- "$r/acl/file"
	setfacl -m u:1001:r-x "$r/acl"
	setfacl -d -m u:1002:rwx,g::r-x "$r/acl"
	# inode flags: immutable, append-only, nodump, noatime; on a directory too
	echo immutable > "$r/flags/immutable"
	echo append > "$r/flags/append"
	echo nodump > "$r/flags/nodump"
	echo noatime > "$r/flags/noatime"
	mkdir "$r/flags/dir-immutable"
	echo inside > "$r/flags/dir-immutable/file"
	chattr +d "$r/flags/nodump"
	chattr +A "$r/flags/noatime"
	[ "$fs" = ext4 ] && { echo sync > "$r/flags/sync"; chattr +S "$r/flags/sync"; chattr +D "$r/flags"; }
	chattr +a "$r/flags/append"
	chattr +i "$r/flags/immutable"
	chattr +i "$r/flags/dir-immutable"
	# a project ID (XFS has them without a feature)
	[ "$fs" = xfs ] && chattr -p 42 "$r/dir/random"
	# nanosecond times, last (writes above change them)
	touch -h -d '2001-02-03 04:05:06.123456789' "$r/dir/link-relative"
	touch -d '2009-10-11 12:13:14.987654321' "$r/dir/file" "$r/dir/sparse"
	touch -a -d '1999-12-31 23:59:59.000000001' "$r/dir/file"
	touch -d '2020-01-01 00:00:00.5' "$r/dir/sub" "$r/dev/fifo" "$r/dev/null"
	touch -d '2015-05-05 05:05:05.555555555' "$r/dir"
	;;
*)
	# about $fill MiB of files like a distribution's root: many small files, some large,
	# hard links, xattrs, ACLs, sparse files and device nodes
	mib=$fill
	mkdir -p "$r/usr/lib" "$r/usr/share/doc" "$r/etc" "$r/dev" "$r/var/lib"
	n=0
	while [ $n -lt $((mib / 2)) ]; do
		d="$r/usr/lib/pkg$n"
		mkdir -p "$d"
		head -c $((900 * 1024)) /dev/urandom > "$d/lib.so"
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			head -c $((i * 1500)) /dev/urandom > "$r/usr/share/doc/p$n-$i.txt"
		done
		ln "$d/lib.so" "$d/lib.so.1"
		setfattr -n user.pkg -v "$n" "$d/lib.so"
		setfacl -m u:1000:r "$d"
		n=$((n + 1))
	done
	for i in $(seq 1 20); do
		truncate -s 64M "$r/var/lib/sparse$i"
		head -c 4096 /dev/urandom | dd of="$r/var/lib/sparse$i" bs=1M seek=$((i)) conv=notrunc status=none
	done
	for i in $(seq 0 63); do mknod "$r/dev/tty$i" c 4 "$i"; done
	;;
esac
umount "$mnt"
