#!/usr/bin/env bash
# Build what the libvirt series and its end-to-end scenario need from build/libvirt: the QEMU
# driver, virtqemud, virsh and the test programs the series touches (build/libvirt-obj).
# Nothing is installed: the scenario runs the daemon from the build directory
# (LIBVIRT_DIR_OVERRIDE=1), with every path under its own private prefix.
# GH_LIBVIRT_SRC / GH_LIBVIRT_OBJ build another tree (scripts/check-series.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src="${GH_LIBVIRT_SRC:-$top/build/libvirt}"
obj="${GH_LIBVIRT_OBJ:-$top/build/libvirt-obj}"
[ -f "$src/meson.build" ] || die "no libvirt tree at $src: run 'make libvirt-tree' first"
mkdir -p "$CCACHE_DIR"
build_lock
export CCACHE_DEPEND=1
# Only the QEMU driver, the remote driver (virsh talks to virtqemud through it) and the
# daemon; every other driver, storage back end and optional library off.  -O0: the series is
# judged by its tests, not by the speed of the daemon, and it halves the compile time of a
# cold build on 2 cores.  The prefix is private so that sysconfdir, localstatedir and
# runstatedir (whose default is /run whatever the prefix) never reach the host's libvirt.
# QEMU runs as root: the default user of a Debian build (libvirt-qemu) exists only where
# Debian's libvirt is installed, and the daemon refuses to start without it.
prefix="$top/build/out/libvirt"
off=(driver_bhyve driver_ch driver_esx driver_hyperv driver_interface driver_libxl driver_lxc
	driver_network driver_openvz driver_secrets driver_test driver_vbox driver_vmware driver_vz
	storage_dir storage_disk storage_fs storage_gluster storage_iscsi storage_iscsi_direct
	storage_lvm storage_mpath storage_rbd storage_scsi storage_vstorage storage_zfs
	apparmor attr audit blkid capng curl fuse glusterfs libiscsi libpcap libssh libssh2 netcf
	nls numactl openwsman pciaccess polkit readline sanlock sasl selinux udev
	wireshark_dissector secdriver_apparmor secdriver_selinux dtrace firewalld firewalld_zone
	host_validate login_shell nss numad nbdkit pm_utils ssh_proxy sysctl_config
	userfaultfd_sysctl bash_completion docs expensive_tests)
opts=(-Dprefix="$prefix" -Drunstatedir="$prefix/run" -Dbuildtype=plain -Doptimization=0
	-Dno_git=true -Dgit_werror=disabled -Dtests=enabled -Ddriver_qemu=enabled
	-Ddriver_remote=enabled -Ddriver_libvirtd=enabled -Djson_c=enabled -Dlibnl=enabled
	-Dinit_script=none -Dqemu_user=root -Dqemu_group=root)
for o in "${off[@]}"; do opts+=("-D$o=disabled"); done
meson_setup_once libvirt "$src" "$obj" "${opts[@]}"
# In a tree built before, a meson.build that changed since (a patch that adds a test, in
# check-series.sh) is read again first: introspection reads what the last setup wrote.
ninja -C "$obj" build.ninja >"$obj/regenerate.log" 2>&1 ||
	{ first_lines 30 < "$obj/regenerate.log" >&2; die "libvirt: meson could not read the tree again; see $obj/regenerate.log"; }
# The programs of the scenario, and the tests of the series (scripts/test-libvirt.sh) with
# what meson says they depend on (the test mocks), as ninja's file names.
mapfile -t targets < <(meson introspect --tests --targets "$obj" | python3 -c '
import json, os, sys
info = json.load(sys.stdin)
want = set(sys.argv[2].split())
ids = {d for t in info["tests"] if t["name"] in want for d in t["depends"]}
for t in info["targets"]:
    if t["id"] in ids or t["name"] in ("virtqemud", "virsh", "virt_driver_qemu"):
        for f in t["filename"]:
            print(os.path.relpath(f, sys.argv[1]))
' "$obj" "$(libvirt_tests)")
[ "${#targets[@]}" -gt 3 ] || die "libvirt: meson lists no targets for the tests; see $obj"
info "building libvirt in $obj"
ninja -C "$obj" "${targets[@]}" >"$obj/build.log" 2>&1 ||
	{ grep -E 'error|FAILED' "$obj/build.log" | first_lines 30 >&2; die "libvirt build failed; see $obj/build.log"; }
info "libvirt ready: $obj/src/virtqemud, $obj/tools/virsh"
