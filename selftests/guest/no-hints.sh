#!/bin/sh
# Disks without hints: all three attributes read 0; SCSI has no VPD page 0xBB; virtio-blk
# did not negotiate VIRTIO_BLK_F_GROWTH (bit 20).
# gh.disks=SERIAL,...
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
for serial in $(gh_param disks | tr ',' ' '); do
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	gh_check_hints "$serial" "$d" "0 0 0"
	case "$d" in
	vd*)
		# the driver's features, one character per bit from bit 0
		f=$(cat "/sys/block/$d/device/features" 2>/dev/null || echo '?')
		t_eq "$serial VIRTIO_BLK_F_GROWTH not negotiated" "$(echo "$f" | cut -c21)" 0
		;;
	sd*)
		if sg_vpd --page=0x00 "/dev/$d" 2>/dev/null | grep -ci '0xbb' >/dev/null; then
			t_fail "$serial VPD page 0xbb not listed"
		else
			t_ok "$serial VPD page 0xbb not listed"
		fi
		;;
	esac
done
gh_done
