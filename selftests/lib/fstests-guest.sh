#!/usr/bin/env bash
# Runs scripts/test-fstests.sh in the host-root guest, on the kernel the guest booted
# (selftests/guest/hostroot.sh chroots into the host's root filesystem, read-only under a
# tmpfs overlay, and starts this with the output directory, a writable virtio-9p mount).
# OUT/job (written by scripts/test-fstests.sh --kernel) names:
#   MODULES    a root tree with lib/modules/<release> for the running kernel
#   FSTESTS    the fstests build (written to in the overlay only)
#   LIMIT      seconds each ./check may run (FSTESTS_TIMEOUT)
#   ARGS       test-fstests.sh's arguments
# The two disks the guest booted with are fstests' test and scratch devices.  Writes
# OUT/fstests.tap (test-fstests.sh's KTAP), OUT/fstests.err, OUT/results/ (its results and
# logs) and OUT/dmesg.log.
set -euo pipefail
out=${1:?usage: fstests-guest.sh OUT}
top=$(cd "$(dirname "$0")/../.." && pwd)
MODULES="" LIMIT="" ARGS=()
# shellcheck source=/dev/null
. "$out/job"
# shellcheck source=hostroot-guest.sh
. "$(dirname "$0")/hostroot-guest.sh"
hostroot_modules "$MODULES"
hostroot_udev

mapfile -t disks < <(hostroot_disks | grep "^/dev/vd")
{
	echo "kernel $(uname -r); disks: ${disks[*]:-none}"
} > "$out/guest.log"
rc=0
if [ ${#disks[@]} -ne 2 ]; then
	echo "the guest has ${#disks[@]} disks, not the test and the scratch device" >> "$out/guest.log"
	rc=1
else
	FSTESTS_TEST_DEV=${disks[0]} FSTESTS_SCRATCH_DEV=${disks[1]} FSTESTS_TIMEOUT=$LIMIT FSTESTS_OWN_KERNEL=1 \
		bash "$top/scripts/test-fstests.sh" "${ARGS[@]}" > "$out/fstests.tap" 2> "$out/fstests.err" || rc=$?
fi
mkdir -p "$out/results"
cp -a "$top/build/results/fstests/." "$out/results/" 2>/dev/null || true
dmesg > "$out/dmesg.log" 2>&1 || true
udevadm control --exit 2>/dev/null || true
echo "test-fstests.sh exited with status $rc" >> "$out/guest.log"
exit 0
