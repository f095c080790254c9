#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: 200 hint changes and 10 resizes per disk under I/O: final values reach the guest, data intact, nothing logged, no torn set read
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

G=$((1 << 30))
ids=(vd0 sd0)
start=4 steps=200 grow_every=20 # sizes in GiB; the maximum starts at 64 GiB

# The storm: step i sets (i MiB, i MiB * 65536, i MiB) on each disk, so that a guest that
# combines values of two steps reads a set that no step sent; every grow_every steps the
# disks grow by 1 GiB, always within the range, so that every state is valid.
storm() {
	local i id inc size=$start
	for ((i = 1; i <= steps; i++)); do
		inc=$((i << 20))
		for id in "${ids[@]}"; do
			growth_hints_cmd "$id" "$inc" $((inc * 65536)) "$inc"
		done
		if ((i % grow_every == 0)); then
			size=$((size + 1))
			for id in "${ids[@]}"; do
				echo "block_resize {\"device\": \"drv-$id\", \"size\": $((size * G))}"
			done
		fi
	done
}
on_wait_storm() {
	local err
	err=$(storm | qmp_batch 2>&1 >/dev/null) || { echo "storm: ${err:0:300}"; return 1; }
	echo "$((steps << 20)) $(((steps << 20) * 65536)) $((steps << 20)) $(((start + steps / grow_every) * G))"
}

scenario() {
	if ! qemu_has_hints; then
		h_skip storm "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	local props
	props=$(hint_props 0 64G 1G)
	# Under load the lost-event rescans (see kernel/config/sanitize.config) make it 3.5 to 6
	# times as long as its 52 s on an idle machine.
	GH_TIMEOUT=${GH_TIMEOUT:-600} vm boot --test storm \
		--append "gh.disks=vd0,sd0 scsi_debug.add_host=0" \
		--disk "virtio:size=${start}G:props=$props" --disk "scsi:size=${start}G:props=$props"
	vm_results ""
}

h_main "$@"
