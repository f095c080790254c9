#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: live block_resize in steps with mounted XFS (virtio) and ext4 (SCSI), grown online
# Without hint support in QEMU the disks run without hints (the hint checks skip).
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

on_wait_resize() {
	local id err
	for id in vd0 sd0; do
		err=$(qmp block_resize "{\"device\": \"drv-$id\", \"size\": $1}" 2>&1 >/dev/null) ||
			{ echo "block_resize $id $1: $err"; return 1; }
	done
}

scenario() {
	local props="" hints=0:0:0
	if qemu_has_hints; then
		props=$(hint_props 1G 16T 1G)
		hints="$((1 << 30)):$((16 << 40)):$((1 << 30))"
	else
		h_diag "$GH_QEMU has no hint properties: resizing disks without hints"
	fi
	vm boot --test live-resize \
		--append "gh.disks=vd0:xfs,sd0:ext4 gh.hints=$hints gh.steps=$((12 << 30)),$((16 << 30)),$((20 << 30))" \
		--disk "virtio:size=10G${props:+:props=$props}" --disk "scsi:size=10G${props:+:props=$props}"
	vm_results ""
}

h_main "$@"
