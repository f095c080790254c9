#!/usr/bin/env bash
# Build QEMU's qtests in build/qemu-obj and run those of the growth hints series together
# with QEMU's own qtests of the devices it touches (virtio-blk, virtio-scsi and the other
# SCSI HBAs, NVMe, vhost-user-blk with qemu-storage-daemon as its back end, hot-unplug,
# disk geometry), unpatched behaviour included.
# Output: KTAP version 1, one top-level result per qtest case.
# Exit status: 0 if every case passed, 1 otherwise.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="${GH_QEMU_OBJ:-$top/build/qemu-obj}"
# binary | extended regexp of the test paths to run (from "binary -l")
groups=(
	"growth-hints-test|/growth-hints/"
	"qos-test|/(virtio-blk-pci|virtio-scsi-pci|megasas|nvme|vhost-user-blk-pci)/"
	"fuzz-lsi53c895a-test|."
	"fuzz-megasas-test|."
	"fuzz-virtio-scsi-test|."
	"drive_del-test|."
	"hd-geo-test|."
)

[ -f "$obj/build.ninja" ] || die "no QEMU build in $obj: run scripts/build-qemu.sh first"
for d in /usr/share/seabios /usr/lib/ipxe/qemu; do
	[ -d "$d" ] || die "firmware directory $d is missing: install the seabios and ipxe-qemu packages"
done

targets=(qemu-system-x86_64 qemu-img storage-daemon/qemu-storage-daemon)
for g in "${groups[@]}"; do
	targets+=("tests/qtest/${g%%|*}")
done
build_lock
info "building qtests in $obj"
qemu_ninja "$obj" qtest-build.log "${targets[@]}"
exec 9>&-

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu_wrapper "$tmp" "$obj"
export QTEST_QEMU_BINARY="$tmp/qemu-system-x86_64" QTEST_QEMU_IMG="$obj/qemu-img"
export QTEST_QEMU_STORAGE_DAEMON_BINARY="$obj/storage-daemon/qemu-storage-daemon"

# binary:path of every case; paths with a "subprocess" component are run by their parent
cases=()
for g in "${groups[@]}"; do
	bin=${g%%|*} filter=${g#*|}
	paths=$("$obj/tests/qtest/$bin" -m quick -l | { grep '^/' || true; } |
		{ grep -E "$filter" || true; } | { grep -v '/subprocess' || true; })
	[ -n "$paths" ] || die "$bin lists no test case matching '$filter'; rebuild it with this script"
	while IFS= read -r path; do
		cases+=("$bin:$path")
	done <<<"$paths"
done

echo "KTAP version 1"
echo "1..${#cases[@]}"
n=0
failed=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	bin=${c%%:*}
	path=${c#*:}
	name=${path#/x86_64/}
	name=${name#pc/i440FX-pcihost/pci-bus-pc/pci-bus/}
	[ "$bin" = qos-test ] || [ "$bin" = growth-hints-test ] || name="$bin/$name"
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
