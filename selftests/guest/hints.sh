#!/bin/sh
# Each disk's growth hints, exact bytes: sysfs, and for SCSI the VPD page 0xBB.
# gh.disks=SERIAL:SIZE:LBS:MIN:MAX:INC,...   (bytes)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
for spec in $(gh_param disks | tr ',' ' '); do
	gh_disk_spec "$spec" || continue
	case "$d" in
	sd*)
		t_eq "$serial VPD page 0xbb" "$(gh_vpd_hex "$d" 0xbb)" \
			"$(gh_expected_vpd_bb "$lbs" "$min $max $inc")"
		;;
	esac
done
gh_done
