# Growth hints for cloud block devices: the one entry point.
# "make demo" builds everything and boots the demo; "make check" runs every test.
SHELL := /bin/bash
S := scripts

.PHONY: all deps demo check bench kernel-tree qemu-tree util-linux-tree \
	e2fsprogs-tree xfsprogs-tree kernel-export qemu-export util-linux-export e2fsprogs-export \
	xfsprogs-export kernel qemu util-linux e2fsprogs xfsprogs mkfs-stock kernel-sanitize \
	check-fstests-kernel \
	initramfs tools tools-check docs-check check-series clean fstests-tree fstests-export fstests \
	blktests-tree blktests-export blktests libvirt-tree libvirt-export libvirt \
	check-peer

all: kernel qemu initramfs tools

deps:
	@$(S)/install-deps.sh

kernel-tree:
	@$(S)/make-tree.sh kernel
qemu-tree:
	@$(S)/make-tree.sh qemu
util-linux-tree:
	@$(S)/make-tree.sh util-linux
e2fsprogs-tree:
	@$(S)/make-tree.sh e2fsprogs
xfsprogs-tree:
	@$(S)/make-tree.sh xfsprogs
kernel-export:
	@$(S)/export-series.sh kernel
qemu-export:
	@$(S)/export-series.sh qemu
util-linux-export:
	@$(S)/export-series.sh util-linux
e2fsprogs-export:
	@$(S)/export-series.sh e2fsprogs
xfsprogs-export:
	@$(S)/export-series.sh xfsprogs
# fstests: the base is a pinned upstream commit (fstests/BASE, scripts/fetch-peer.sh)
fstests-tree:
	@$(S)/make-tree.sh fstests
fstests-export:
	@$(S)/export-series.sh fstests
# blktests: the same, blktests/BASE
blktests-tree:
	@$(S)/make-tree.sh blktests
blktests-export:
	@$(S)/export-series.sh blktests
# libvirt: a Debian source package like the others (libvirt/BASE)
libvirt-tree:
	@$(S)/make-tree.sh libvirt
libvirt-export:
	@$(S)/export-series.sh libvirt

# Trees are created on first use; after that they are yours to work in.
build/kernel/Makefile:
	@$(S)/make-tree.sh kernel
build/qemu/configure:
	@$(S)/make-tree.sh qemu
build/util-linux/meson.build:
	@$(S)/make-tree.sh util-linux
build/e2fsprogs/configure.ac:
	@$(S)/make-tree.sh e2fsprogs
build/xfsprogs/configure.ac:
	@$(S)/make-tree.sh xfsprogs

kernel: build/kernel/Makefile
	@$(S)/build-kernel.sh guest
kernel-sanitize: build/kernel/Makefile
	@$(S)/build-kernel.sh sanitize
qemu: build/qemu/configure
	@$(S)/build-qemu.sh
# libblkid, blkid and lsblk of the util-linux series (build/out/util-linux)
util-linux: build/util-linux/meson.build
	@$(S)/build-util-linux.sh
# mke2fs, e2fsck, resize2fs, dumpe2fs (and what the tree's tests run) of the e2fsprogs
# series, mkfs.xfs, xfs_repair, xfs_db, xfs_growfs, xfs_info of the xfsprogs series, both with
# the series' libblkid (build/out/e2fsprogs, build/out/xfsprogs); mkfs-stock: the unpatched
# mke2fs and mkfs.xfs of the same bases (build/out/*-stock), the reference for unhinted disks.
e2fsprogs: build/e2fsprogs/configure.ac util-linux
	@$(S)/build-e2fsprogs.sh
xfsprogs: build/xfsprogs/configure.ac util-linux
	@$(S)/build-xfsprogs.sh
mkfs-stock: build/e2fsprogs/configure.ac build/xfsprogs/configure.ac util-linux
	@$(S)/build-e2fsprogs.sh --stock
	@$(S)/build-xfsprogs.sh --stock
# fstests with fstests/patches, built in $GH_CACHE/fstests; without the pinned base (no
# peer tarball, no network) it says so and the fstests suite skips.
fstests:
	@$(S)/build-fstests.sh
# blktests with blktests/patches, built in $GH_CACHE/blktests; skips as fstests does.
blktests:
	@$(S)/build-blktests.sh
# The QEMU driver, virtqemud, virsh and the series' tests of the libvirt series
# (build/libvirt-obj; nothing is installed, selftests/scenarios/libvirt.sh runs them there).
build/libvirt/meson.build:
	@$(S)/make-tree.sh libvirt
libvirt: build/libvirt/meson.build
	@$(S)/build-libvirt.sh
initramfs: tools
	@$(S)/build-initramfs.sh
# growth-mkfs takes its hints from the series' libblkid once it is built (make util-linux).
UL := $(CURDIR)/build/out/util-linux
UL_BLKID := $(if $(wildcard $(UL)/lib/libblkid.a),BLKID_CFLAGS=-I$(UL)/include/blkid BLKID_LIBS=$(UL)/lib/libblkid.a)
tools:
	@$(MAKE) -s -C tools $(UL_BLKID)
tools-check:
	@$(MAKE) -s -C tools check $(UL_BLKID)
docs-check:
	@python3 $(S)/check-docs.py
# Build every patch of every series on its own (bisectability); time: README.md.
check-series: build/kernel/Makefile build/qemu/configure build/util-linux/meson.build \
		build/e2fsprogs/configure.ac build/xfsprogs/configure.ac build/libvirt/meson.build
	@$(S)/check-series.sh kernel qemu util-linux e2fsprogs xfsprogs libvirt

demo:
	@$(S)/install-deps.sh --demo
	@$(S)/demo.sh

check: deps
	@$(S)/check.sh

# fstests' fuller selection (the XFS growfs group, the quick mkfs and repair cases, the ext4
# resize group; README.md, "Peer suites"), not part of make check.
check-peer: deps e2fsprogs xfsprogs mkfs-stock fstests blktests kernel-sanitize qemu initramfs
	@mkdir -p build/results
	@$(S)/test-fstests.sh --full | tee build/results/fstests-full.tap
	@GH_KERNEL=build/out/bzImage-sanitize GH_MODULES=build/out/modules-sanitize \
		$(S)/test-blktests.sh --full | tee build/results/blktests-full.tap

# fstests on the series' kernel (the XFS patches of the kernel series), in a guest under QEMU:
# the XFS growfs group and the quick cases of the log, shutdown and mount groups, with the
# series' userspace; a failure runs again on the unpatched base kernel, and only one the base
# does not share fails.  Not part of make check (about an hour under TCG; README.md).
FSTESTS_KERNEL_SELECTION ?= --config plain --group growfs --group quick+log \
	--group quick+shutdown --group quick+mount
check-fstests-kernel: deps e2fsprogs xfsprogs mkfs-stock fstests qemu initramfs build/kernel/Makefile
	@$(S)/build-kernel.sh fstests
	@$(S)/build-kernel.sh --base fstests
	@mkdir -p build/results
	@$(S)/test-fstests.sh --kernel build/out/bzImage-fstests \
		--base-kernel build/base/out/bzImage-fstests $(FSTESTS_KERNEL_SELECTION) | \
		tee build/results/fstests-kernel.tap

bench: deps tools kernel qemu initramfs xfsprogs e2fsprogs
	@tools/bench/bench.sh
	@tools/bench/bench-cost.sh
	@tools/bench/bench-io.sh
	@tools/bench/bench-inflate.sh
	@tools/bench/ag-growth.py build/out/xfsprogs/sbin/mkfs.xfs tools/bench/results/$$(date -u +%Y-%m-%d)-ag-growth

clean:
	rm -rf build
