#!/usr/bin/env bash
# Build the QEMU qtests of the growth hints series in build/qemu-obj and run
# them.  Output: KTAP version 1, one top-level result per qtest case.
# Exit status: 0 if every case passed, 1 otherwise.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="$top/build/qemu-obj"
blk=/x86_64/pc/i440FX-pcihost/pci-bus-pc/pci-bus/virtio-blk-pci
scsi=/x86_64/pc/i440FX-pcihost/pci-bus-pc/pci-bus/virtio-scsi-pci/virtio-scsi
# binary:test path; the existing resize and config tests guard the
# virtio-blk configuration space against regressions
cases=(
	"qos-test:$blk/virtio-blk-pci-tests/growth"
	"qos-test:$blk/virtio-blk-pci-tests/growth-off"
	"qos-test:$blk/virtio-blk/virtio-blk-tests/config"
	"qos-test:$blk/virtio-blk/virtio-blk-tests/resize"
	"qos-test:$scsi/virtio-scsi-tests/growth-hints"
	"qos-test:$scsi/virtio-scsi-tests/growth-hints-off"
)

[ -f "$obj/build.ninja" ] || die "no QEMU build in $obj: run scripts/build-qemu.sh first"
for d in /usr/share/seabios /usr/lib/ipxe/qemu; do
	[ -d "$d" ] || die "firmware directory $d is missing: install the seabios and ipxe-qemu packages"
done

build_lock
info "building qtests in $obj"
ninja -C "$obj" qemu-system-x86_64 tests/qtest/qos-test tests/qtest/growth-hints-test \
	>"$obj/qtest-build.log" 2>&1 ||
	{ grep -E 'error|FAILED' "$obj/qtest-build.log" | first_lines 30 >&2
	  die "qtest build failed; see $obj/qtest-build.log"; }
exec 9>&-

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# qtest wants a binary named *-system-<arch>; the wrapper adds the firmware
# search path, which a build without installed blobs lacks.
cat >"$tmp/qemu-system-x86_64" <<WRAPPER
#!/bin/sh
exec "$obj/qemu-system-x86_64" -L /usr/share/seabios -L /usr/lib/ipxe/qemu -L /usr/share/qemu "\$@"
WRAPPER
chmod +x "$tmp/qemu-system-x86_64"
export QTEST_QEMU_BINARY="$tmp/qemu-system-x86_64"

paths=$("$obj/tests/qtest/growth-hints-test" -l | grep '^/') ||
	die "growth-hints-test lists no test cases; rebuild it with this script"
while IFS= read -r path; do
	cases+=("growth-hints-test:$path")
done <<<"$paths"

echo "KTAP version 1"
echo "1..${#cases[@]}"
n=0
failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	bin=${c%%:*}
	path=${c#*:}
	name=${path##*/pci-bus/}
	name=${name#/x86_64/}
	name=${name//\//.}
	if (cd "$obj" && timeout 300 "tests/qtest/$bin" -m quick -p "$path") \
		>"$tmp/out" 2>&1 && grep -q "^ok 1 $path\$" "$tmp/out"; then
		echo "ok $n $name"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok $n $name"
		failed=1
	fi
done
exit "$failed"
