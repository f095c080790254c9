#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: hints changed at run time with qom-set: new values and a GROWTH_HINTS=1 uevent
# Then max-growth is lowered to the disk size ("will not grow"), with no minimum.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

ids=(vd0 sd0)

# qom_set_all NAME=VALUE...: set the properties, in this order, on every disk.
qom_set_all() {
	local id p
	for id in "${ids[@]}"; do
		for p in "$@"; do
			qom_set "$id" "${p%%=*}" "${p#*=}" || return 1
		done
	done
}
# Every intermediate state stays valid: max first, then min, then the increment.
on_wait_change() { qom_set_all max-growth=$((32 << 40)) min-growth=$((2 << 30)) growth-increment=$((2 << 30)); }
on_wait_freeze() { qom_set_all growth-increment=$((1 << 30)) min-growth=0 max-growth=$((10 << 30)); }

scenario() {
	if ! qemu_has_hints; then
		h_skip "runtime-change" "$GH_QEMU has no min-growth/max-growth/growth-increment properties"
		return
	fi
	local props
	props=$(hint_props 1G 16T 1G)
	vm boot --test runtime-change \
		--append "gh.disks=vd0,sd0 gh.old=$((1 << 30)):$((16 << 40)):$((1 << 30)) gh.new=$((2 << 30)):$((32 << 40)):$((2 << 30)) gh.freeze=0:$((10 << 30)):$((1 << 30))" \
		--disk "virtio:size=10G:props=$props" --disk "scsi:size=10G:props=$props"
	vm_results ""
}

h_main "$@"
