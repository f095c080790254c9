#!/usr/bin/env bash
# Build the test guest's initramfs: build/out/initramfs.cpio.gz.
# busybox-static, the host's filesystem and SCSI tools with their shared libraries, the
# project's guest binaries when built (growth-mkfs, blkid and lsblk of the
# util-linux series; the e2fsprogs and xfsprogs series in /opt/gh-mkfs, their unpatched bases
# in /opt/gh-mkfs-stock), and the guest test scripts (selftests/guest; the benchmarks' in
# tools/bench/guest).
# build-initramfs.sh [-o OUTPUT]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

output="$out/initramfs.cpio.gz"
while [ $# -gt 0 ]; do
	case "$1" in
	-o) output=$2; shift 2 ;;
	*) die "unknown argument '$1' (usage: build-initramfs.sh [-o OUTPUT])" ;;
	esac
done

# Host programs the guest tests use (from xfsprogs, e2fsprogs, sg3-utils, nvme-cli, dmsetup
# and lvm2).
tools=(mkfs.xfs xfs_info xfs_growfs xfs_io xfs_db xfs_spaceman xfs_repair
	mke2fs mkfs.ext4 resize2fs dumpe2fs e2fsck sg_vpd sg_inq sg_turs sg_readcap nvme
	dmsetup lvm)

busybox=/bin/busybox
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is missing or not static: run 'make deps' (package busybox-static)"
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/gh-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,run,tmp,mnt,etc,tests,lib/gh}

cp "$busybox" "$stage/bin/busybox"
# /init links the other applets at boot (busybox --install), which is faster than here.
ln -s busybox "$stage/bin/sh"

# copy_with_libs PATH [DIR]: the program (or script), into DIR (default /bin), and every
# shared library it needs.
copy_with_libs() {
	local src=$1 dst lib
	dst="$stage${2:-/bin}/${src##*/}"
	mkdir -p "${dst%/*}"
	rm -f "$dst"
	cp -L "$src" "$dst"
	while read -r lib; do
		[ -n "$lib" ] || continue
		mkdir -p "$stage$(dirname "$lib")"
		[ -e "$stage$lib" ] || cp -L "$lib" "$stage$lib"
	done < <(ldd "$src" 2>/dev/null | sed -nE 's/^[[:space:]]*([^ ]+ => )?(\/[^ ]+) \(0x.*/\2/p')
}

for t in "${tools[@]}"; do
	p=$(PATH="/usr/sbin:/sbin:$PATH" command -v "$t") ||
		die "$t is not installed on the host: run 'make deps' (xfsprogs, e2fsprogs, sg3-utils, nvme-cli, dmsetup, lvm2)"
	copy_with_libs "$p"
done

# The project's own guest programs, when they have been built; blkid and lsblk of the
# util-linux series (make util-linux) replace busybox's applets of the same name.
for p in "$top/tools/growth-mkfs" "$out/growth-mkfs" "$top/tools/growth-inflate" \
	"$out/util-linux/sbin/blkid" "$out/util-linux/bin/lsblk"; do
	[ -x "$p" ] && copy_with_libs "$p"
done

# The mke2fs and mkfs.xfs of the series (and the tools that go with them: a filesystem made
# by a newer mkfs is checked and grown by the same release) and their unpatched bases, for
# the mkfs-native scenario; each where it was built (make e2fsprogs xfsprogs mkfs-stock).
for v in e2fsprogs xfsprogs e2fsprogs-stock xfsprogs-stock; do
	[ -d "$out/$v/sbin" ] || continue
	d=/opt/gh-mkfs
	case "$v" in *-stock) d=/opt/gh-mkfs-stock ;; esac
	for p in "$out/$v/sbin"/*; do
		if [ -L "$p" ]; then
			mkdir -p "$stage$d/sbin"
			cp -P "$p" "$stage$d/sbin/"
		else
			copy_with_libs "$p" "$d/sbin"
			# Built with -g: the debug information would triple the initramfs.
			if [ "$(head -c 4 "$p" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				strip --strip-debug "$stage$d/sbin/${p##*/}"
			fi
		fi
	done
	if [ -d "$out/$v/etc" ]; then
		mkdir -p "$stage$d/etc"
		cp "$out/$v/etc"/* "$stage$d/etc/"
	fi
done

# The benchmarks' guest helpers (tools/bench/guest): the random-read load for make bench
# (static, like busybox), and its stand-in for /usr/bin/time -v (tools/bench/bench-many-ags.sh).
cc -O2 -Wall -static -o "$stage/bin/gh-randread" "$top/tools/bench/guest/randread.c" ||
	die "building tools/bench/guest/randread.c failed"
cc -O2 -Wall -static -o "$stage/bin/gh-timecmd" "$top/tools/bench/guest/timecmd.c" ||
	die "building tools/bench/guest/timecmd.c failed"

guest="$top/selftests/guest"
# The guest's reader of a disk at the moment of its RESIZE uevent (the nvme scenario).
cc -O2 -Wall -static -o "$stage/bin/gh-read-on-resize" "$guest/lib/read-on-resize.c" ||
	die "building selftests/guest/lib/read-on-resize.c failed"
# The guest's uevent log (/run/uevents.log), a netlink listener started by /init.
cc -O2 -Wall -static -o "$stage/bin/gh-uevent-log" "$guest/lib/uevent-log.c" ||
	die "building selftests/guest/lib/uevent-log.c failed"
install -m 0755 "$guest/lib/init" "$stage/init"
install -m 0755 "$guest/lib/uevent" "$stage/sbin/gh-uevent"
install -m 0644 "$guest/lib/gh.sh" "$stage/lib/gh/gh.sh"
# The guest tests, /tests/NAME.sh for gh.test=NAME: the scenarios' and the benchmarks'.
for t in "$guest"/*.sh "$top/tools/bench/guest"/*.sh; do
	[ -e "$t" ] || continue
	[ ! -e "$stage/tests/${t##*/}" ] ||
		die "two guest tests named ${t##*/} (selftests/guest, tools/bench/guest)"
	install -m 0755 "$t" "$stage/tests/${t##*/}"
done
printf 'root:x:0:0:root:/:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\n' > "$stage/etc/group"
: > "$stage/etc/mtab"

mkdir -p "$(dirname "$output")"
(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) |
	gzip -n -6 > "$output.tmp"
mv "$output.tmp" "$output"
info "initramfs ready: $output ($(du -h "$output" | cut -f1))"
