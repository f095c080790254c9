#!/usr/bin/env bash
# Build QEMU (x86_64-softmmu, qemu-img and qemu-storage-daemon) from build/qemu.
# Output: build/out/qemu-system-x86_64, build/out/qemu-img, build/out/qemu-storage-daemon.
# GH_QEMU_SRC / GH_QEMU_OBJ build another tree (e.g. the unpatched base) and copy nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src="${GH_QEMU_SRC:-$top/build/qemu}"
obj="${GH_QEMU_OBJ:-$top/build/qemu-obj}"
[ -f "$src/configure" ] || die "no QEMU tree at $src: run 'make qemu-tree' first"
mkdir -p "$obj" "$out" "$CCACHE_DIR"
build_lock
# vduse-blk: the series touches its configuration space; qemu-compat.sh tests it.  virtfs:
# the blktests guest boots on the host's root filesystem over virtio-9p (test-blktests.sh),
# which needs libattr (--enable-attr).  vhost-user: the vhost-user-blk front end and the
# storage daemon's vhost-user-blk export carry the hints (scenario vhost-user).
# ccache: the unpatched base that qemu-compat.sh builds in the same layout gets the objects of
# every file the series does not change from the cache (CCACHE_BASEDIR, lib.sh).
# Depend mode takes the headers from the compiler's -MD output instead of running the
# preprocessor a second time for each file the cache does not have.
export CCACHE_DEPEND=1
opts=(--cc="ccache gcc" --target-list=x86_64-softmmu --without-default-features --enable-kvm --enable-tools
	--enable-fdt=system --enable-libvduse --enable-vduse-blk-export
	--enable-vhost-user --enable-vhost-user-blk-server --enable-attr --enable-virtfs --disable-docs
	--disable-install-blobs --disable-werror --python=/usr/bin/python3)
stamp="$obj/.configure-opts"
if [ ! -f "$obj/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${opts[*]}" ]; then
	info "configuring QEMU in $obj"
	rm -rf "$obj" && mkdir -p "$obj"
	(cd "$obj" && "$src/configure" "${opts[@]}" >"$obj/configure.log" 2>&1) ||
		{ tail -n 20 "$obj/configure.log" >&2; die "QEMU configure failed; see $obj/configure.log"; }
	echo "${opts[*]}" > "$stamp"
fi
info "building QEMU in $obj"
qemu_ninja "$obj" build.log qemu-system-x86_64 qemu-img storage-daemon/qemu-storage-daemon
if [ -n "${GH_QEMU_OBJ:-}" ]; then
	info "QEMU ready: $obj/qemu-system-x86_64"
	exit 0
fi
cp "$obj/qemu-system-x86_64" "$obj/qemu-img" "$obj/storage-daemon/qemu-storage-daemon" "$out/"
info "QEMU ready: $out/qemu-system-x86_64"
