#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: NVMe namespaces (nvme with a drive, nvme-ns): exact bytes, run-time change, grow, hostile
# The hints travel in the proposed Namespace Size Range of the NVM Command Set Identify
# Namespace data (Documentation/nvme/).  One guest: two hinted namespaces (512- and 4096-byte
# blocks) and one without hints (0 0 0); block-set-growth-hints, then a higher maximum and a
# block_resize, each with its GROWTH_HINTS=1 uevent.  Then one guest per hostile set, made
# with x-unchecked-growth-hints: the attributes read 0 with one log line.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

G=$((1 << 30)) T=$((1 << 40))
ids=(nv0 nv1)

on_wait_change() {
	local id
	for id in "${ids[@]}"; do
		set_hints "$id" $((2 * G)) $((32 * T)) $((2 * G)) || return 1
	done
}
# the way a provider grows a volume: the maximum first, then the size
on_wait_grow() {
	local id err
	for id in "${ids[@]}"; do
		set_hints "$id" $((2 * G)) $((64 * T)) $((2 * G)) || return 1
		err=$(qmp block_resize "{\"device\": \"drv-$id\", \"size\": $((20 * G))}" 2>&1 >/dev/null) ||
			{ echo "block_resize $id: $err"; return 1; }
	done
}

qemu_has_nvme_hints() { "$GH_QEMU" -device nvme-ns,help 2>/dev/null | matches 'max-growth'; }

# name | properties (x-unchecked-growth-hints=on added) | expected | log lines
hostile=(
	"min-above-max|min-growth=8G,max-growth=4G,growth-increment=1G|0:0:0|1"
	"max-below-capacity|max-growth=4G,growth-increment=1G|0:0:0|1"
	"zero-increment|max-growth=64T|0:0:0|1"
	"overflow|max-growth=18446744073709551615,growth-increment=1G|0:0:0|1"
)

scenario() {
	if ! qemu_has_nvme_hints; then
		h_skip "nvme" "$GH_QEMU has no growth hint properties on nvme-ns"
		return
	fi
	local c name props expect lines
	vm boot --test nvme \
		--append "gh.disks=n0:$((10 * G)):512:$G:$((64 * T)):$G,n1:$((12 * G)):4096:$((3 * G)):$((48 * T)):$((3 << 20)),n2:$((10 * G)):512:0:0:0 gh.new=$((2 * G)):$((32 * T)):$((2 * G)) gh.grow=$((20 * G)):$((2 * G)):$((64 * T)):$((2 * G))" \
		--disk "nvme:size=10G:serial=n0:props=$(hint_props 1G 64T 1G)" \
		--disk "nvme-ns:size=12G:serial=n1:props=$(hint_props 3G 48T 3M),logical_block_size=4096,physical_block_size=4096" \
		--disk "nvme:size=10G:serial=n2"
	vm_results ""

	for c in "${hostile[@]}"; do
		IFS='|' read -r name props expect lines <<< "$c"
		vm "hostile-$name" --test hostile \
			--append "gh.dev=h0 gh.expect=$expect gh.lines=$lines" \
			--disk "nvme:size=10G:serial=h0:props=x-unchecked-growth-hints=on,$props"
		vm_results "hostile $name"
	done
}

h_main "$@"
