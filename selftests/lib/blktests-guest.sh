#!/usr/bin/env bash
# Runs blktests in the host-root guest (selftests/guest/hostroot.sh chroots into the host's root
# filesystem, read-only under a tmpfs overlay, and starts this with the output directory, a
# writable virtio-9p mount).  OUT/job (written by scripts/test-blktests.sh) names:
#   BLKTESTS   the blktests build to run (from the host's root, read-only: results go to /tmp)
#   MODULES    a root tree with lib/modules/<release> and boot/config-<release> for the
#              running kernel (build/out/modules; Debian's package for Debian's kernel)
#   TESTS      the blktests tests and groups to run
#   CONFIG     more lines of blktests' configuration (NVMET_TRTYPES=loop, ...)
# The disks the guest booted with are blktests' TEST_DEVS.  Writes OUT/check.log (blktests'
# output), OUT/results/ (its result files) and OUT/dmesg.log.
set -euo pipefail
out=${1:?usage: blktests-guest.sh OUT}
BLKTESTS="" MODULES="" CONFIG="" TESTS=()
# shellcheck source=/dev/null
. "$out/job"

# shellcheck source=hostroot-guest.sh
. "$(dirname "$0")/hostroot-guest.sh"
rel=$(uname -r)
hostroot_modules "$MODULES"
hostroot_udev

# The disks present at boot are the QEMU disks: blktests' test devices.
mapfile -t devs < <(hostroot_disks)
{
	echo "TEST_DEVS=(${devs[*]})"
	printf '%s\n' "$CONFIG"
} > /tmp/blktests.config
{
	echo "kernel $rel; test devices: ${devs[*]:-none}"
	for d in "${devs[@]}"; do
		q=/sys/block/${d#/dev/}/queue
		[ -e "$q/max_growth_bytes" ] || continue
		echo "${d#/dev/}: growth hints $(cat "$q/min_growth_bytes") $(cat "$q/max_growth_bytes") $(cat "$q/growth_increment_bytes")"
	done
} > "$out/guest.log"

rc=0
cd "$BLKTESTS"
./check -c /tmp/blktests.config -o /tmp/results "${TESTS[@]}" > "$out/check.log" 2>&1 || rc=$?
mkdir -p "$out/results"
cp -a /tmp/results/. "$out/results/" 2>/dev/null || true
dmesg > "$out/dmesg.log" 2>&1 || true
# A udevd that died leaves every later "udevadm settle" a silent no-op: say so.
pidof systemd-udevd > /dev/null || echo "systemd-udevd was no longer running at the end" >> "$out/guest.log"
udevadm control --exit 2>/dev/null || true
echo "check exited with status $rc" >> "$out/guest.log"
exit 0
