#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: hostile devices: malformed or rule-breaking hints are dropped with one log line
# scsi_debug (built into the guest kernel) serves short, lying and invalid Capacity Growth
# pages; a virtio-blk disk is grown past its max-growth.  QEMU refuses invalid values
# itself (a skip with its message), so invalid virtio values come only from scsi_debug.  The guest must stay up with the
# attributes at 0, exactly one "ignoring capacity growth hints" line and no WARNING/BUG/
# UBSAN/KASAN report.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# name | scsi_debug parameters (blocks of 512 bytes; the disk has 16384) | expected | lines
sd_cases=(
	"valid|growth_min=0 growth_max=32768 growth_gran=2048|0:16777216:1048576|0"
	"long-page|growth_min=0 growth_max=32768 growth_gran=2048 growth_page_len=60|0:16777216:1048576|0"
	"short-transfer|growth_min=0 growth_max=32768 growth_gran=2048 growth_xfer_len=20|0:0:0|1"
	"short-page-length|growth_min=0 growth_max=32768 growth_gran=2048 growth_page_len=16|0:0:0|1"
	"min-above-max|growth_min=20480 growth_max=18432 growth_gran=2048|0:0:0|1"
	"max-below-capacity|growth_min=0 growth_max=8192 growth_gran=2048|0:0:0|1"
	"min-above-capacity|growth_min=18432 growth_max=32768 growth_gran=2048|0:0:0|1"
	"zero-granularity|growth_min=0 growth_max=32768 growth_gran=0|0:0:0|1"
	"max-not-multiple|growth_min=0 growth_max=33000 growth_gran=2048|0:0:0|1"
	"overflow|growth_min=0 growth_max=1152921504606846976 growth_gran=2048|0:0:0|1"
)

on_wait_grow() {
	local err
	err=$(qmp block_resize "{\"device\": \"drv-vd0\", \"size\": $1}" 2>&1 >/dev/null) ||
		{ echo "QEMU refused block_resize past max-growth: $err"; return 1; }
}

# qemu_refused NAME: the VM did not start because QEMU rejected its configuration.
qemu_refused() {
	local err
	grep -q '^GH-START' "$VM_LOG" 2>/dev/null && return 1
	err=$(head -n 1 "$GH_WORK/$1/qemu.log" 2>/dev/null)
	[ -n "$err" ] || return 1
	h_skip "$1" "QEMU refuses the configuration: $err"
}

scenario() {
	local c name params expect lines p
	for c in "${sd_cases[@]}"; do
		IFS='|' read -r name params expect lines <<< "$c"
		read -r -a p <<< "$params"
		vm "scsi_debug-$name" --test hostile \
			--append "scsi_debug.dev_size_mb=8 $(printf 'scsi_debug.%s ' "${p[@]}")gh.dev=scsi_debug gh.expect=$expect gh.lines=$lines"
		vm_results "$name"
	done

	if ! qemu_has_hints; then
		h_skip "virtio" "$GH_QEMU has no min-growth/max-growth/growth-increment properties"
		return
	fi
	# Grown past max-growth at run time: the hints no longer hold.  QEMU then advertises
	# none (all 0), so the guest drops them without complaint.
	vm virtio-grow-past-max --test hostile \
		--append "gh.dev=v0 gh.expect=$((1 << 30)):$((12 << 30)):$((1 << 30)) gh.lines=0 gh.grow=$((14 << 30)) gh.after=0:0:0 gh.lines_after=0" \
		--disk "virtio:size=10G:serial=v0:props=$(hint_props 1G 12G 1G)"
	qemu_refused virtio-grow-past-max || vm_results "virtio grow-past-max"
	# An increment that is not a multiple of the logical block size.
	vm virtio-increment-below-block --test hostile \
		--append "gh.dev=v0 gh.expect=0:0:0 gh.lines=1" \
		--disk "virtio:size=10G:serial=v0:props=$(hint_props 0 16T 512),logical_block_size=4096,physical_block_size=4096"
	qemu_refused virtio-increment-below-block || vm_results "virtio increment-below-block"
}

h_main "$@"
