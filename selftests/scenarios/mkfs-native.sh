#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: the mke2fs and mkfs.xfs of the e2fsprogs and xfsprogs series with no options: the policy's geometry on a hinted disk, grown online in steps and checked clean; the unpatched tools' geometry on a disk without hints and with the opt-out knobs
# Three virtio disks of 10 GiB: two that may grow to 100 GiB in 1 GiB steps (ext4, XFS; grown
# to 20, 40 and 100 GiB while mounted and written to; then the ext4 disk's maximum raised and the
# disk grown to 120 GiB, past its growth reserve: the kernel converts to meta_bg online) and one
# without hints (the control);
# and a disk of 2 GiB that may grow to 64 GiB: plain mkfs.xfs makes three AGs within it, its
# primary superblock lost before any growth is restored from AG 1, and grown to 3, 20 and 64 GiB
# under writes it keeps its AG size and its data.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

on_wait_hints() {	# ID MIN MAX INC: block-set-growth-hints
	set_hints "$@"
}

on_wait_resize() {	# SIZE [DISK-ID...] (vd0 vd1)
	local size=$1 id err ids=("${@:2}")
	[ ${#ids[@]} -gt 0 ] || ids=(vd0 vd1)
	for id in "${ids[@]}"; do
		err=$(qmp block_resize "{\"device\": \"drv-$id\", \"size\": $size}" 2>&1 >/dev/null) ||
			{ echo "block_resize $id $size: $err"; return 1; }
	done
}

scenario() {
	if ! qemu_has_hints; then
		h_skip "mkfs-native" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	# About 130 s on an idle machine; 2.5 times that under stress-suites.sh's load.
	GH_TIMEOUT=${GH_TIMEOUT:-900} vm mkfs-native --test mkfs-native \
		--append "gh.hinted=ext0,xfs0 gh.control=ctl0 gh.max=$((100 << 30)) gh.steps=$((20 << 30)),$((40 << 30)),$((100 << 30)) gh.single=xfs1:vd3 gh.single_max=$((64 << 30)) gh.single_steps=$((3 << 30)),$((20 << 30)),$((64 << 30)) gh.beyond=vd0:$((120 << 30))" \
		--disk "virtio:size=10G:id=vd0:serial=ext0:props=$(hint_props 1G 100G 1G)" \
		--disk "virtio:size=10G:id=vd1:serial=xfs0:props=$(hint_props 1G 100G 1G)" \
		--disk "virtio:size=10G:id=vd2:serial=ctl0" \
		--disk "virtio:size=2G:id=vd3:serial=xfs1:props=$(hint_props 1G 64G 1G)"
	vm_results ""
	[ "$VM_STATUS" = 0 ] || h_fail "the guest test exited with status $VM_STATUS"
}

h_main "$@"
