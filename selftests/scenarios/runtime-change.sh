#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: hints changed at run time with block-set-growth-hints: new values and a
# GROWTH_HINTS=1 uevent.  Then x-growth-max is lowered to the disk size ("will not grow"), with
# no minimum; each change is one command that sets all three values.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

ids=(vd0 sd0)

# set_all MIN MAX INC: set these hints on every disk.
set_all() {
	local id
	for id in "${ids[@]}"; do
		set_hints "$id" "$@" || return 1
	done
}
on_wait_change() { set_all $((2 << 30)) $((32 << 40)) $((2 << 30)); }
on_wait_freeze() { set_all 0 $((10 << 30)) $((1 << 30)); }

scenario() {
	if ! qemu_has_hints; then
		h_skip "runtime-change" "$GH_QEMU has no growth hint properties (x-growth-hints)"
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
