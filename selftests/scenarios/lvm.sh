#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: LVM on a hinted virtio disk (10 GiB at its minimum, may grow to 100 GiB in 1 GiB
# steps): the last logical volume shows the disk's maximum less its offset (no minimum, no
# increment) in sysfs and lsblk, and plain mkfs.xfs
# of the series lays it out for that maximum; a volume before it shows none and gets the
# unpatched layout; the disk grown to 20 GiB, pvresize + lvextend + xfs_growfs keep it consistent
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

on_wait_resize() {	# SIZE: block_resize of the disk
	local err
	err=$(qmp block_resize "{\"device\": \"drv-pv0\", \"size\": $1}" 2>&1 >/dev/null) ||
		{ echo "block_resize $1: $err"; return 1; }
}

scenario() {
	if ! qemu_has_hints; then
		h_skip "lvm" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	vm lvm --test lvm --append "gh.pv=pv0 gh.grow=$((20 << 30))" \
		--disk "virtio:size=10G:id=pv0:serial=pv0:props=$(hint_props 10G 100G 1G)"
	vm_results ""
	[ "$VM_STATUS" = 0 ] || h_fail "the guest test exited with status $VM_STATUS"
}

h_main "$@"
