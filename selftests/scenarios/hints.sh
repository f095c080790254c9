#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: virtio-blk and scsi-hd with hints: exact bytes in sysfs and VPD page 0xBB
# Several value sets: max == capacity with no minimum, 64 TiB, 2^50 bytes, an increment that
# is not a power of two (3G, 3M), and 4096-byte logical blocks.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# serial size lbs min max inc (QEMU size syntax)
sets=(
	"a 10G 512 1G 64T 1G"
	"b 10G 512 0 10G 1G"
	"c 12G 512 3G 65535G 3G"
	"d 10G 512 1G 1125899906842624 1G"
	"e 12G 4096 3G 48T 3M"
)

bytes() { numfmt --from=iec "$1"; }

scenario() {
	if ! qemu_has_hints; then
		h_skip "hints" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	local args=() expect="" s serial size lbs min max inc bus props
	for bus in virtio scsi; do
		for s in "${sets[@]}"; do
			read -r serial size lbs min max inc <<< "$s"
			serial="${bus:0:1}$serial"
			props=$(hint_props "$min" "$max" "$inc")
			[ "$lbs" = 512 ] || props="$props,logical_block_size=$lbs,physical_block_size=$lbs"
			args+=(--disk "$bus:size=$size:serial=$serial:props=$props")
			expect="$expect,$serial:$(bytes "$size"):$lbs:$(bytes "$min"):$(bytes "$max"):$(bytes "$inc")"
		done
	done
	vm boot --test hints --append "gh.disks=${expect#,}" "${args[@]}"
	vm_results ""
}

h_main "$@"
