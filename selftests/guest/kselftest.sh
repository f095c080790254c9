#!/bin/sh
# The kernel series' kselftest on its own (tools/testing/selftests/block/growth_hints):
# its scsi_debug tests add their own disks with known hints, change them at run time and
# feed malformed pages; every result of it is a result here.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
if [ ! -x /bin/growth_hints_test ]; then
	t_fail "growth_hints_test is in the initramfs"
	gh_done
	exit
fi
/bin/growth_hints_test > /tmp/kselftest.out 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok "*" # SKIP "*)
		res=${line#ok * }
		case "$res" in
		# This project's kernel must have what they need: a skip is a failure here.
		scsi_debug.*) diag "${res#* # SKIP }"; t_fail "${res%% # SKIP *} (skipped)" ;;
		*) t_skip "${res%% # SKIP *}" "${res#* # SKIP }" ;;
		esac
		;;
	"ok "*) t_ok "${line#ok * }" ;;
	"not ok "*) t_fail "${line#not ok * }" ;;
	"#"*) echo "$line" ;;
	esac
done < /tmp/kselftest.out
t_eq "kselftest exit status" "$rc" 0
gh_done
