#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: growth-mkfs in the guest: the policy's geometry on a hinted disk, its GPT partitions, a table-matched disk and a disk without hints
# Four disks of 10 GiB: virtio with hints (may grow to 10 TiB in 1 GiB steps); virtio with the
# same hints and a GPT (a 1 GiB partition, then one to the end less the backup GPT and 1 MiB
# alignment); scsi-hd "Google PersistentDisk" without hints (the model table's record, a
# guess); virtio without hints, the control (plain mkfs defaults are measured on it).
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# gpt_image PATH BYTES: a sparse image with a GPT: [1 MiB, 1 GiB) and [1 GiB, the last 1 MiB
# boundary before the backup GPT).
gpt_image() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
path, size = sys.argv[1], int(sys.argv[2])
n = size // 512
last = (n - 34) // 2048 * 2048 - 1
parts = [(2048, (1 << 30) // 512 - 1), ((1 << 30) // 512, last)]
ents = bytearray(128 * 128)
for i, (a, b) in enumerate(parts):
    e = bytes(range(0x11, 0x21)) + bytes(range(0x40 + 16 * i, 0x50 + 16 * i))
    ents[128 * i:128 * i + 48] = e + struct.pack("<QQ", a, b)
mbr = bytearray(512)
mbr[446 + 4] = 0xEE
mbr[446 + 8:446 + 16] = struct.pack("<II", 1, min(n - 1, 0xFFFFFFFF))
mbr[510:512] = b"\x55\xaa"
with open(path, "wb") as f:
    f.truncate(size)
    f.write(mbr)
    for my, alt, entlba in ((1, n - 1, 2), (n - 1, 1, n - 33)):
        h = bytearray(92)
        h[0:8] = b"EFI PART"
        struct.pack_into("<IIIIQQQQ", h, 8, 0x10000, 92, 0, 0, my, alt, 34, n - 34)
        h[56:72] = bytes(range(0xA0, 0xB0))
        struct.pack_into("<QIII", h, 72, entlba, 128, 128, zlib.crc32(ents))
        struct.pack_into("<I", h, 16, zlib.crc32(h))
        f.seek(my * 512)
        f.write(h)
        f.seek(entlba * 512)
        f.write(ents)
EOF
}

scenario() {
	if ! qemu_has_hints; then
		h_skip "mkfs" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	mkdir -p "$GH_WORK/mkfs"
	gpt_image "$GH_WORK/mkfs/gpt0.img" $((10 << 30))
	# About 100 s on an idle machine.
	GH_TIMEOUT=${GH_TIMEOUT:-600} vm mkfs --test mkfs \
		--append "gh.hinted=gh0:$((1 << 30)):$((10 << 40)):$((1 << 30)) gh.gpt=gpt0 gh.table=tbl0 gh.control=ctl0" \
		--disk "virtio:size=10G:serial=gh0:props=$(hint_props 1G 10T 1G)" \
		--disk "virtio:size=10G:serial=gpt0:file=$GH_WORK/mkfs/gpt0.img:props=$(hint_props 1G 10T 1G)" \
		--disk "scsi:size=10G:serial=tbl0:props=vendor=Google,product=PersistentDisk" \
		--disk virtio:size=10G:serial=ctl0
	vm_results ""
	# A guest test that stopped early (a shell error) still printed GH-EXIT: say so.
	[ "$VM_STATUS" = 0 ] || h_fail "the guest test exited with status $VM_STATUS"
}

h_main "$@"
