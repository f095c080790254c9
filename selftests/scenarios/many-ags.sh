#!/usr/bin/env bash
# shellcheck disable=SC2317 # scenario is called through h_main
# Scenario: XFS grown to thousands of allocation groups on a latency device (dm-delay): grow, mount, unmount, xfs_repair -n; a shutdown during growfs and disk errors during a mount, each followed by a remount and a clean check
# One empty virtio disk of 128 GiB behind dm-delay (1 ms; a jiffy at least): a 512 MiB XFS of 4
# AGs grown to 1024 AGs.  The times belong to tools/bench/bench-many-ags.sh; nothing here is timed.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

scenario() {
	# About 210 s on an idle machine.
	GH_TIMEOUT=${GH_TIMEOUT:-1200} vm many-ags --test many-ags --memory 1G \
		--append "gh.disk=ma0 gh.delay=1" --disk virtio:size=128G:serial=ma0
	vm_results ""
	[ "$VM_STATUS" = 0 ] || h_fail "the guest test exited with status $VM_STATUS"
}

h_main "$@"
