# Growth hints for cloud block devices: the one entry point.
# "make demo" builds everything and boots the demo; "make check" runs every test.
SHELL := /bin/bash
S := scripts

.PHONY: all deps demo check check-sanitize bench kernel-tree qemu-tree util-linux-tree \
	kernel-export qemu-export util-linux-export kernel qemu util-linux kernel-sanitize selftest \
	initramfs tools tools-check docs-check check-series clean

all: kernel qemu initramfs tools

deps:
	@$(S)/install-deps.sh

kernel-tree:
	@$(S)/make-tree.sh kernel
qemu-tree:
	@$(S)/make-tree.sh qemu
util-linux-tree:
	@$(S)/make-tree.sh util-linux
kernel-export:
	@$(S)/export-series.sh kernel
qemu-export:
	@$(S)/export-series.sh qemu
util-linux-export:
	@$(S)/export-series.sh util-linux

# Trees are created on first use; after that they are yours to work in.
build/kernel/Makefile:
	@$(S)/make-tree.sh kernel
build/qemu/configure:
	@$(S)/make-tree.sh qemu
build/util-linux/meson.build:
	@$(S)/make-tree.sh util-linux

kernel: build/kernel/Makefile
	@$(S)/build-kernel.sh guest
kernel-sanitize: build/kernel/Makefile
	@$(S)/build-kernel.sh sanitize
qemu: build/qemu/configure
	@$(S)/build-qemu.sh
# libblkid, blkid and lsblk of the util-linux series (build/out/util-linux)
util-linux: build/util-linux/meson.build
	@$(S)/build-util-linux.sh
selftest: build/kernel/Makefile
	@$(S)/build-selftest.sh
initramfs: tools selftest
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
check-series: build/kernel/Makefile build/qemu/configure build/util-linux/meson.build
	@$(S)/check-series.sh kernel qemu util-linux

demo: deps
	@$(S)/demo.sh

check: deps
	@$(S)/check.sh

check-sanitize: deps
	@$(S)/check.sh --sanitize

bench: deps tools kernel qemu initramfs
	@$(S)/bench.sh
	@$(S)/bench-io.sh

clean:
	rm -rf build
