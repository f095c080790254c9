#!/usr/bin/env bash
# Build what the project uses of the util-linux series: libblkid, blkid and lsblk (meson,
# out of tree in build/util-linux-obj; the programs link libblkid statically, so they run
# in the guest without the system's libblkid), and the helper of the tree's tests that
# scripts/test-util-linux.sh runs.  build-util-linux.sh [--all]
#   --all    every target of the configuration (libraries, programs, samples, test programs):
#            check-series builds each patch this way
# Output: build/out/util-linux/{sbin/blkid,bin/lsblk,include/blkid/blkid.h,lib/libblkid.a}
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
case "$mode" in
--all | "") ;;
*) die "unknown argument '$1' (usage: build-util-linux.sh [--all])" ;;
esac
src="$top/build/util-linux"
obj="$top/build/util-linux-obj"
dest="$out/util-linux"
[ -f "$src/meson.build" ] || die "no util-linux tree at $src: run 'make util-linux-tree' first"
command -v meson >/dev/null || die "meson is missing: run 'make deps'"
mkdir -p "$out" "$CCACHE_DIR"
build_lock

# Every optional feature off (no libudev, libselinux, ...) but ncursesw, which lsblk needs
# for its colors library; sfdisk (libfdisk, libuuid), partx, losetup, mount and unshare for the
# tree's blkid/growth-loop test.
opts=(--buildtype=debugoptimized -Dauto_features=disabled -Ddefault_library=static -Ddefault_both_libraries=static
	-Dbuild-libblkid=enabled -Dbuild-libsmartcols=enabled -Dbuild-libmount=enabled
	-Dbuild-lsblk=enabled -Dncursesw=enabled -Dprogram-tests=true
	-Dbuild-libuuid=enabled -Dbuild-libfdisk=enabled -Dbuild-fdisks=enabled -Dbuild-partx=enabled
	-Dbuild-losetup=enabled -Dbuild-mount=enabled -Dbuild-unshare=enabled)
meson_setup_once util-linux "$src" "$obj" "${opts[@]}"
# sample-partitions: for the tree's blkid/lowprobe-pt test; sfdisk ... unshare: blkid/growth-loop
targets=(blkid lsblk libblkid/libblkid.a sample-topology sample-partitions sfdisk partx losetup mount
	unshare)
# The tests' helper (tests/commands.sh) that our suite uses, once the series has it.
if matches -F "'test_blkid_topology'" "$src/meson.build"; then
	targets+=(test_blkid_topology)
fi
[ "$mode" != --all ] || targets=()
info "building ${targets[*]:-everything} in $obj"
ninja -C "$obj" -j2 ${targets[@]+"${targets[@]}"} >"$obj/build.log" 2>&1 ||
	{ grep -E 'error|FAILED' "$obj/build.log" | first_lines 30 >&2; die "util-linux build failed; see $obj/build.log"; }

rm -rf "$dest.new"
mkdir -p "$dest.new"/{sbin,bin,lib,include/blkid}
cp "$obj/blkid" "$dest.new/sbin/"
cp "$obj/lsblk" "$dest.new/bin/"
cp "$obj/libblkid/libblkid.a" "$dest.new/lib/"
cp "$obj/libblkid/blkid.h" "$dest.new/include/blkid/"
rm -rf "$dest"
mv "$dest.new" "$dest"
info "util-linux ready: $dest"
