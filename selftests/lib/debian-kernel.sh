#!/usr/bin/env bash
# Debian's own kernel for the compatibility scenario.
# debian-kernel.sh OUTDIR [MODULE...]: writes OUTDIR/vmlinuz and OUTDIR/initramfs.cpio.gz (the
# project's initramfs, $GH_INITRD or build/out/initramfs.cpio.gz, plus the virtio, SCSI and NVMe
# modules of that kernel and the MODULEs, e.g. xfs ext4, each with its dependencies, loaded in
# order by /init).
# The package (linux-image-amd64's current dependency in the machine's apt sources) is
# downloaded once with apt-get download into $GH_CACHE/dl/debian-kernel.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

outdir=${1:?usage: debian-kernel.sh OUTDIR [MODULE...]}
shift
initramfs="${GH_INITRD:-$out/initramfs.cpio.gz}"
[ -r "$initramfs" ] || die "no $initramfs: run 'make initramfs'"
cache="$dldir/debian-kernel"
mkdir -p "$cache" "$outdir"
# Suites run side by side (scripts/check.sh): one download and unpacking at a time.
exec 7>"$cache.lock"
flock 7

pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -nE 's/^[[:space:]]*Depends: (linux-image-[0-9][^[:space:]]*-amd64)$/\1/p' | first_line)
[ -n "$pkg" ] || die "apt knows no linux-image-amd64 dependency; check 'apt-cache depends linux-image-amd64'"
deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
if [ -z "$deb" ]; then
	info "downloading $pkg (once, into $cache)"
	(cd "$cache" && apt-get -q download "$pkg" >"$cache/download.log" 2>&1) ||
		die "apt-get download $pkg failed; see $cache/download.log"
	deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
fi
root="${deb%.deb}"
if [ ! -e "$root/.done" ]; then
	rm -rf "$root"
	dpkg-deb -x "$deb" "$root"
	kver=$(ls "$root/lib/modules")
	depmod -b "$root" "$kver"
	: > "$root/.done"
fi
kver=$(ls "$root/lib/modules")

# The modules and their dependencies, in load order.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib/modules"
: > "$stage/lib/modules/gh-load.order"
for m in virtio_pci virtio_blk virtio_scsi sd_mod nvme "$@"; do
	modprobe -d "$root" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$stage/lib/modules/"
	echo "${ko##*/}" >> "$stage/lib/modules/gh-load.order"
done
[ -s "$stage/lib/modules/gh-load.order" ] || die "no modules found in $root for $kver"

cp "$root/boot/vmlinuz-$kver" "$outdir/vmlinuz"
{
	cat "$initramfs"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --create --format=newc --owner=0:0 --reproducible --quiet) | gzip -n
} > "$outdir/initramfs.cpio.gz"
echo "$kver"
