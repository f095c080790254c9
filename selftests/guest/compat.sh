#!/bin/sh
# Compatibility: the disks work (data written reads back), nothing is logged about growth
# hints; optionally the attributes read 0 and a SCSI disk's VPD page 0xBB has exact bytes.
# gh.disks=SERIAL,...  gh.expect=MIN:MAX:INC (optional)  gh.vpd=SERIAL:LBS:MIN:MAX:INC (optional)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
expect=$(gh_param expect | tr ':' ' ')
want=$(gh_new_pattern)
for serial in $(gh_param disks | tr ',' ' '); do
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	t_ok "$serial present as $d ($(gh_size_bytes "$d") bytes)"
	dd if=/tmp/pattern of="/dev/$d" bs=1M seek=1024 conv=fsync 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	t_eq "$serial data reads back" \
		"$(dd if="/dev/$d" bs=1M skip=1024 count=1 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)" "$want"
	if [ -n "$expect" ]; then
		gh_check_hints "$serial" "$d" "$expect"
	elif gh_has_hints "$d"; then
		diag "$serial hints: $(gh_hints "$d")"
	else
		diag "$serial: this kernel has no growth hint attributes"
	fi
done
vpd=$(gh_param vpd)
if [ -n "$vpd" ]; then
	IFS=: read -r serial lbs min max inc <<-EOF
	$vpd
	EOF
	if d=$(gh_disk "$serial"); then
		t_eq "$serial VPD page 0xbb" "$(gh_vpd_hex "$d" 0xbb)" "$(gh_expected_vpd_bb "$lbs" "$min $max $inc")"
	else
		t_fail "$serial present"
	fi
fi
# The built-in KUnit tests log on purpose (their disks are "kunit", "kunit_growth" or have no
# name); a disk of this guest logs as "vda: ignoring capacity growth hints: ...".
t_eq "no growth hint log lines from a disk" \
	"$(dmesg | grep -c -E '^\[[ 0-9.]*\] ((vd|sd)[a-z]+|nvme[0-9]+n[0-9]+): .*growth hints')" 0
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
