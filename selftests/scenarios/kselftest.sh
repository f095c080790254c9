#!/usr/bin/env bash
# shellcheck disable=SC2317 # scenario is called through h_main
# Scenario: the kernel series' kselftest alone: scsi_debug disks it makes, run-time changes, bad pages
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

scenario() {
	vm boot --test kselftest --append scsi_debug.add_host=0
	vm_results ""
}

h_main "$@"
