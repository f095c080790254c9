#!/usr/bin/env bash
# Run QEMU's own iotests that show device properties (172 prints "info qtree" for every
# floppy configuration, 051 tests -drive/-device options, 186 "info block" with devices)
# or drive virtio-blk and scsi-hd through resize, migration, iothreads and hot-unplug,
# against the QEMU built from the series in build/qemu-obj.
# Output: KTAP version 1, one top-level result per iotest.  Exit status: 0 if all passed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="$top/build/qemu-obj"
fmt=qcow2
tests=(051 068 127 139 153 157 172 182 186 227 238 240 255 256 262 267 280 307
	image-fleecing iothreads-commit-active iothreads-create iothreads-nbd-export
	iothreads-resize iothreads-stream qsd-migrate stream-error-on-reset)

[ -f "$obj/build.ninja" ] || die "no QEMU build in $obj: run scripts/build-qemu.sh first"
[ -e "$obj/tests/qemu-iotests/check" ] || die "no iotests in $obj/tests/qemu-iotests"
build_lock
info "building QEMU and its tools for the iotests in $obj"
qemu_ninja "$obj" iotests-build.log qemu-system-x86_64 qemu-img qemu-io qemu-nbd \
	storage-daemon/qemu-storage-daemon
exec 9>&-

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu_wrapper "$tmp" "$obj"

echo "KTAP version 1"
echo "1..${#tests[@]}"
n=0
failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	rc=0
	(cd "$obj/tests/qemu-iotests" && QEMU_PROG="$tmp/qemu-system-x86_64" \
		TEST_DIR="$tmp/scratch" SOCK_DIR="$tmp/sock" timeout 600 ./check -tap "-$fmt" "$t") \
		>"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && grep -q "^ok $fmt $t # SKIP" "$tmp/out"; then
		echo "ok $n $fmt.$t # SKIP $(sed -n "s/^ok $fmt $t # SKIP *//p" "$tmp/out")"
	elif [ "$rc" = 0 ] && grep -q "^ok $fmt $t\$" "$tmp/out"; then
		echo "ok $n $fmt.$t"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok $n $fmt.$t"
		failed=1
	fi
done
exit "$failed"
