#!/bin/sh
# Hints changed at run time (QMP block-set-growth-hints on the host): the guest sees the new values and a
# KOBJ_CHANGE uevent with GROWTH_HINTS=1 on the disk.
# gh.disks=SERIAL,...  gh.old=MIN:MAX:INC  gh.new=MIN:MAX:INC  gh.freeze=MIN:MAX:INC (bytes)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
old=$(gh_param old | tr ':' ' ')
new=$(gh_param new | tr ':' ' ')
disks=""
for serial in $(gh_param disks | tr ',' ' '); do
	if d=$(gh_disk "$serial"); then
		disks="$disks $serial:$d"
		gh_check_hints "$serial before" "$d" "$old"
	else
		t_fail "$serial present"
	fi
done

# hints_are DISK "MIN MAX INC".  A SCSI disk learns of a change with its next command: the
# midlayer rescans the device when a command returns INQUIRY DATA HAS CHANGED, whatever the
# host adapter.  TEST UNIT READY is that command here.
hints_are() {
	case "$1" in sd*) sg_turs "/dev/$1" >/dev/null 2>&1 ;; esac
	[ "$(gh_hints "$1")" = "$2" ]
}

# step NAME "MIN MAX INC": ask the host to set these values, check what the guest sees.
step() {
	gh_uevents_clear
	if ! gh_wait "$1"; then
		for sd in $disks; do
			t_fail "${sd%%:*} $1: the host could not set the values: $GH_REPLY"
		done
		return 0
	fi
	for sd in $disks; do
		serial=${sd%%:*} d=${sd#*:}
		if ! gh_has_hints "$d"; then
			t_skip "$serial $1" "kernel has no growth hint attributes"
			continue
		fi
		gh_poll 300 hints_are "$d" "$2" || diag "$serial: hints still '$(gh_hints "$d")' after 30 s"
		gh_check_hints "$serial $1" "$d" "$2"
		gh_check_growth_uevent "$serial $1" "$d"
	done
}

step change "$new"
step freeze "$(gh_param freeze | tr ':' ' ')"
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
