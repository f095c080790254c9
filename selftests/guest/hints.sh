#!/bin/sh
# Each disk's growth hints, exact bytes: sysfs, the kselftest, and for SCSI the VPD page 0xBB.
# gh.disks=SERIAL:SIZE:LBS:MIN:MAX:INC,...   (bytes)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
for spec in $(gh_param disks | tr ',' ' '); do
	IFS=: read -r serial size lbs min max inc <<-EOF
	$spec
	EOF
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	diag "$serial is $d: $(gh_hints "$d")"
	t_eq "$serial capacity" "$(gh_size_bytes "$d")" "$size"
	t_eq "$serial logical_block_size" "$(gh_lbs "$d")" "$lbs"
	gh_check_hints "$serial" "$d" "$min $max $inc"
	case "$d" in
	sd*)
		t_eq "$serial VPD page 0xbb" "$(gh_vpd_hex "$d" 0xbb)" \
			"$(gh_expected_vpd_bb "$lbs" "$min $max $inc")"
		;;
	esac
done
gh_done
