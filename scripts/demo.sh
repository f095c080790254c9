#!/usr/bin/env bash
# make demo: build everything, boot a guest with a 10 GiB virtio-blk disk and a 10 GiB
# scsi-hd disk (both with growth hints when QEMU has them), show what the guest sees, grow
# the virtio disk live from the host (QMP block_resize to 12G) and show the guest notice it;
# then plain mkfs.xfs and mkfs.ext4 of the e2fsprogs and xfsprogs series next to the unpatched
# ones, and XFS made by each grown live in steps to 2100 GiB.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Called back by run-vm.sh when the guest asks the host to act.
if [ "${1:-}" = on-wait ]; then
	case "$2" in
	grow)
		info "host: QMP block_resize drv-vd0 12G"
		python3 "$top/selftests/lib/qmp.py" "$GH_QMP" block_resize \
			'{"device": "drv-vd0", "size": 12884901888}' >/dev/null
		;;
	resize) # resize BYTES DRIVE...: the demo's mkfs part grows disks in steps
		shift 2
		bytes=$1
		shift
		for drv in "$@"; do
			info "host: QMP block_resize $drv $((bytes >> 30))G"
			python3 "$top/selftests/lib/qmp.py" "$GH_QMP" block_resize \
				"{\"device\": \"$drv\", \"size\": $bytes}" >/dev/null || exit 1
		done
		;;
	*) exit 1 ;;
	esac
	exit 0
fi

if [ "${GH_DEMO_NO_BUILD:-0}" != 1 ]; then
	info "building kernel, QEMU and initramfs (incremental)"
	make -s -C "$top" kernel qemu e2fsprogs xfsprogs mkfs-stock initramfs >&2 || die "build failed; see the messages above"
fi
qemu=${GH_QEMU:-$out/qemu-system-x86_64}
props=""
if "$qemu" -device virtio-blk-pci,help 2>/dev/null | matches x-growth-max; then
	props=":props=x-growth-hints=on,x-growth-min=1G,x-growth-max=16T,x-growth-increment=1G"
	info "QEMU has the growth hint properties: both disks get x-growth-hints=on,x-growth-min=1G,x-growth-max=16T,x-growth-increment=1G"
else
	warn "$qemu has no growth hint properties yet: the disks are plain"
fi
info "booting the guest (TCG); the host grows vd0 when the guest is ready"
# scsi_debug is built into the guest kernel for the hostile scenario; it has no place here.
# The guest takes about 90 s on an idle machine; its limit is for a hang (selftests/lib/host.sh).
bash "$top/scripts/run-vm.sh" --qemu "$qemu" --kernel "${GH_KERNEL:-$out/bzImage}" --initrd "${GH_INITRD:-$out/initramfs.cpio.gz}" --test demo --on-wait "bash $0 on-wait" --append scsi_debug.add_host=0 \
	--timeout "${GH_TIMEOUT:-600}" \
	--disk "virtio:size=10G$props" --disk "scsi:size=10G$props" |
	sed -un '/^GH| GH-WAIT/d; s/^GH| //p'
