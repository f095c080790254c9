#!/bin/sh
# A virtio-blk device that breaks every rule, one at a time (QEMU's x-growth-hints-unchecked
# lets the host send anything): the disk reads 0 0 0 and the kernel logs the broken rule once,
# the same reason sent twice is logged once, and a valid set in between is shown.
# gh.disks=SERIAL:CASES,...  each case is a host-side token "NAME" with the expected reason
# in gh.reason_NAME (underscores for spaces); the host sets the values when asked.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
valid=$(gh_param valid | tr ':' ' ')
for spec in $(gh_param disks | tr ',' ' '); do
	serial=${spec%%:*}
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	for c in $(echo "${spec#*:}" | tr '+' ' '); do
		reason=$(gh_param "reason_$c" | tr '_' ' ')
		n0=$(gh_log_lines "$d")
		if ! gh_wait bad "$serial" "$c"; then
			t_fail "$serial $c: the host could not send it: $GH_REPLY"
			continue
		fi
		logged() { [ "$(dmesg | grep -c "$d: ignoring capacity growth hints: $reason")" -gt 0 ]; }
		gh_poll 100 logged || true
		t_eq "$serial $c reads 0 0 0" "$(gh_hints "$d")" "0 0 0"
		t_eq "$serial $c logged once" "$(dmesg | grep -c "$d: ignoring capacity growth hints: $reason")" 1
		t_eq "$serial $c one new line" "$(($(gh_log_lines "$d") - n0))" 1
		# the same again: no second line
		gh_wait bad "$serial" "$c" || t_fail "$serial $c again: $GH_REPLY"
		sleep 0.5
		t_eq "$serial $c again: no new line" "$(dmesg | grep -c "$d: ignoring capacity growth hints: $reason")" 1
		# a valid set in between: shown, and the next reason is news
		gh_wait good "$serial" || t_fail "$serial good: $GH_REPLY"
		shown() { [ "$(gh_hints "$d")" = "$valid" ]; }
		gh_poll 100 shown || true
		t_eq "$serial after $c: valid set shown" "$(gh_hints "$d")" "$valid"
	done
	t_cmd "$serial readable" dd if="/dev/$d" of=/dev/null bs=4096 count=16
done
gh_done
