#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: virtio-blk and scsi-hd without hints: all three attributes read 0
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

scenario() {
	vm boot --test no-hints --append "gh.disks=v0,v1,s0,s1" \
		--disk virtio:size=10G:serial=v0 \
		--disk virtio:size=4G:serial=v1:props=logical_block_size=4096,physical_block_size=4096 \
		--disk scsi:size=10G:serial=s0 \
		--disk scsi:size=4G:serial=s1:props=logical_block_size=4096,physical_block_size=4096
	vm_results ""
}

h_main "$@"
