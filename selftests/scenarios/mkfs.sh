#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: growth-mkfs in the guest: XFS and ext4 made with the geometry it promises, sized for max
# One 10 GiB virtio disk that may grow to 10 TiB in 1 GiB steps, and one 10 GiB disk without
# hints as the control (growth-mkfs must add nothing; plain mkfs defaults are measured on it).
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

scenario() {
	if ! qemu_has_hints; then
		h_skip "mkfs" "$GH_QEMU has no min-growth/max-growth/growth-increment properties"
		return
	fi
	vm boot --test mkfs \
		--append "gh.hinted=gh0:$((1 << 30)):$((10 << 40)):$((1 << 30)) gh.control=ctl0" \
		--disk "virtio:size=10G:serial=gh0:props=$(hint_props 1G 10T 1G)" \
		--disk virtio:size=10G:serial=ctl0
	vm_results ""
}

h_main "$@"
