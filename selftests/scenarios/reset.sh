#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: PCI function resets of a virtio-blk disk while the host changes its hints and size in a loop, under I/O
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

on_wait_storm_start() { storm_start 4 vd0; }
on_wait_storm_stop() { storm_stop 4; }

scenario() {
	if ! qemu_has_hints; then
		h_skip reset "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	vm boot --machine q35 --test reset --append "gh.disks=vd0 gh.resets=${GH_RESETS:-10} scsi_debug.add_host=0" \
		--disk "virtio:size=4G:props=$(hint_props 0 64G 1G)"
	vm_results ""
}

h_main "$@"
