#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: hot-unplug (PCIe native) of a virtio-blk disk during a storm of hint changes and resizes, under I/O
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

on_wait_storm_start() { storm_start 4 vd0 vd1; }
on_wait_storm_stop() { storm_stop 4; }
on_wait_unplug() { qmp device_del "{\"id\": \"vd1\"}" >/dev/null; }

scenario() {
	if ! qemu_has_hints; then
		h_skip unplug "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	local props
	props=$(hint_props 0 64G 1G)
	vm boot --machine q35 --test unplug --append "gh.disks=vd0,vd1 scsi_debug.add_host=0" \
		--disk "virtio:size=4G:props=$props" --disk "virtio:size=4G:props=$props"
	vm_results ""
}

h_main "$@"
