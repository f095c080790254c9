#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: hostile devices: malformed or rule-breaking hints are dropped with one log line
# scsi_debug (built into the guest kernel) serves short, lying and invalid Capacity Growth
# pages at probe; a virtio-blk disk is grown past its x-growth-max; and virtio-blk disks with
# QEMU's test-only x-growth-hints-unchecked break every rule of the kernel at run time, each
# twice.  The guest must stay up with the attributes at 0, exactly one "ignoring capacity
# growth hints" line per reason and no WARNING/BUG/UBSAN/KASAN report.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# name | scsi_debug parameters (blocks of 512 bytes; the disk has 16384) | expected | lines
# No increment and a maximum that is not a multiple of it are valid (design.md, section 3).
# A fetch that fails and malformed pages at run time are blktests scsi/013's, bogus residuals scsi/012's.
sd_cases=(
	"valid|growth_min=0 growth_max=32768 growth_inc=2048|0:16777216:1048576|0"
	"long-page|growth_min=0 growth_max=32768 growth_inc=2048 growth_page_len=60|0:16777216:1048576|0"
	"no-increment|growth_min=0 growth_max=32768 growth_inc=0|0:16777216:0|0"
	"max-not-multiple|growth_min=0 growth_max=33000 growth_inc=2048|0:16896000:1048576|0"
	"short-transfer|growth_min=0 growth_max=32768 growth_inc=2048 growth_xfer_len=20|0:0:0|1"
	"short-page-length|growth_min=0 growth_max=32768 growth_inc=2048 growth_page_len=16|0:0:0|1"
	"min-above-max|growth_min=20480 growth_max=18432 growth_inc=2048|0:0:0|1"
	"max-below-capacity|growth_min=0 growth_max=8192 growth_inc=2048|0:0:0|1"
	"min-above-capacity|growth_min=18432 growth_max=32768 growth_inc=2048|0:0:0|1"
	"max-zero|growth_min=0 growth_max=0 growth_inc=2048|0:0:0|1"
	"overflow|growth_min=0 growth_max=1152921504606846976 growth_inc=2048|0:0:0|1"
)

G=$((1 << 30))
# A virtio-blk device breaking one rule at a time: name | values (min max increment, bytes) |
# other values breaking the same rule (a repeat must change the config to reach the guest) |
# the reason the kernel logs.  QEMU rounds bytes up to sectors, so 2^64 - 1 is 2^55 sectors.
virtio_cases=(
	"maxzero|$G 0 $G|$((2 * G)) 0 $G|maximum is zero"
	"minmax|$((32 * G)) $((16 * G)) $G|$((33 * G)) $((16 * G)) $G|minimum is above the maximum"
	"maxcap|0 $((8 * G)) $G|0 $((9 * G)) $G|maximum is below the capacity"
	"mincap|$((12 * G)) $((64 * G)) $G|$((13 * G)) $((64 * G)) $G|minimum is above the capacity"
	"overflow|0 18446744073709551615 $G|0 18446744073709551615 $((2 * G))|value does not fit in 64 bits of bytes"
	"incblk|0 $((64 * G)) 512|0 $((65 * G)) 512|increment is not a multiple of the logical block size"
)
# bad SERIAL CASE: the case's values, then its other values on the next call.
on_wait_bad() {
	local c name v1 v2 state="$GH_WORK/bad-$1-$2"
	for c in "${virtio_cases[@]}"; do
		IFS='|' read -r name v1 v2 _ <<< "$c"
		[ "$name" = "$2" ] || continue
		if [ -e "$state" ]; then v1=$v2; fi
		touch "$state"
		# shellcheck disable=SC2086 # three numbers
		set_hints "$1" $v1
		return
	done
	echo "no case $2"
	return 1
}
on_wait_good() { set_hints "$1" 0 $((64 * G)) "$G"; }

on_wait_grow() {
	local err
	err=$(qmp block_resize "{\"device\": \"drv-vd0\", \"size\": $1}" 2>&1 >/dev/null) ||
		{ echo "QEMU refused block_resize past x-growth-max: $err"; return 1; }
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
		h_skip "virtio" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	# Grown past x-growth-max at run time: the hints no longer hold.  QEMU then advertises
	# none (all 0), so the guest drops them without complaint.
	vm virtio-grow-past-max --test hostile \
		--append "gh.dev=v0 gh.expect=$((1 << 30)):$((12 << 30)):$((1 << 30)) gh.lines=0 gh.grow=$((14 << 30)) gh.after=0:0:0 gh.lines_after=0" \
		--disk "virtio:size=10G:serial=v0:props=$(hint_props 1G 12G 1G)"
	vm_results "virtio grow-past-max"

	# Every rule broken by a virtio-blk device, through the test-only x-growth-hints-unchecked.
	local c names="" reasons="" props
	for c in "${virtio_cases[@]}"; do
		IFS='|' read -r name _ _ reason <<< "$c"
		[ "$name" = incblk ] || names="$names+$name"
		reasons="$reasons gh.reason_$name=${reason// /_}"
	done
	props="$(hint_props 0 64G 1G),x-growth-hints-unchecked=on"
	vm virtio-unchecked --test hostile-virtio \
		--append "gh.disks=h0:${names#+},h1:incblk gh.valid=0:$((64 << 30)):$((1 << 30))$reasons" \
		--disk "virtio:size=10G:id=h0:serial=h0:props=$props" \
		--disk "virtio:size=10G:id=h1:serial=h1:props=$props,logical_block_size=4096,physical_block_size=4096"
	vm_results "virtio unchecked"
}

h_main "$@"
