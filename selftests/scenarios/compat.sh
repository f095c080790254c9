#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: compatibility: Debian's QEMU with the project's kernel, the project's QEMU with Debian's kernel
# Debian's QEMU (package qemu-system-x86) knows no hints: the attributes read 0, the disks
# (virtio-blk, SCSI, NVMe) work.  Debian's kernel (linux-image-amd64, virtio/SCSI/NVMe modules
# loaded by /init) knows no hints: the disks work (an NVMe namespace with hints too, whose
# bytes it does not read) and VPD page 0xBB read with sg_vpd has exactly the configured bytes.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

debian_qemu=/usr/bin/qemu-system-x86_64

scenario() {
	if [ -x "$debian_qemu" ] && [ "$(readlink -f "$debian_qemu")" != "$(readlink -f "$GH_QEMU")" ]; then
		vm debian-qemu --qemu "$debian_qemu" --test compat \
			--append "gh.disks=vd0,sd0,nv0 gh.expect=0:0:0" \
			--disk virtio:size=10G --disk scsi:size=10G --disk nvme:size=10G
		vm_results "debian-qemu"
		if [ -s "$GH_WORK/debian-qemu/qemu.log" ]; then
			sed 's/^/# qemu: /' "$GH_WORK/debian-qemu/qemu.log"
			h_fail "debian-qemu no QEMU errors"
		else
			h_ok "debian-qemu no QEMU errors"
		fi
	else
		h_skip "debian-qemu" "Debian's QEMU is not installed (apt package qemu-system-x86; make deps)"
	fi

	local dk="$GH_WORK/debian-kernel" kver props="" vpd=""
	if ! kver=$(bash "$top/selftests/lib/debian-kernel.sh" "$dk" 2>"$GH_WORK/debian-kernel.err"); then
		sed 's/^/# /' "$GH_WORK/debian-kernel.err"
		h_skip "debian-kernel" "Debian's kernel package could not be prepared"
		return
	fi
	h_diag "Debian kernel $kver"
	if qemu_has_hints; then
		props=":props=$(hint_props 1G 16T 1G)"
		vpd=" gh.vpd=sd0:512:$((1 << 30)):$((16 << 40)):$((1 << 30))"
	else
		h_skip "debian-kernel VPD page 0xbb" "$GH_QEMU has no hint properties"
	fi
	vm debian-kernel --kernel "$dk/vmlinuz" --initrd "$dk/initramfs.cpio.gz" --test compat \
		--append "gh.disks=vd0,sd0,nv0$vpd" --disk "virtio:size=10G$props" --disk "scsi:size=10G$props" \
		--disk "nvme:size=10G${props:+$props,x-resizable=on}"
	vm_results "debian-kernel"
}

h_main "$@"
