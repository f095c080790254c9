#!/bin/sh
# Live migration after a run-time change of the hints: the destination device carries the
# changed values.  After the migration the host grows the disks on the destination, which
# makes the guest read capacity and hints again from the destination's devices.
# gh.disks=SERIAL,...  gh.old=MIN:MAX:INC  gh.new=MIN:MAX:INC  gh.grow=BYTES
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
old=$(gh_param old | tr ':' ' ')
new=$(gh_param new | tr ':' ' ')
grow=$(gh_param grow)
disks=""
want=$(gh_new_pattern)
for serial in $(gh_param disks | tr ',' ' '); do
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	disks="$disks $serial:$d"
	gh_check_hints "$serial before" "$d" "$old"
	dd if=/tmp/pattern of="/dev/$d" bs=1M seek=512 conv=fsync 2>/dev/null
done

kick() { case "$1" in sd*) sg_turs "/dev/$1" >/dev/null 2>&1 ;; esac; }
hints_are() { kick "$1"; [ "$(gh_hints "$1")" = "$2" ]; }
size_is() { kick "$1"; [ "$(gh_size_bytes "$1")" = "$2" ]; }

if gh_wait change; then
	for sd in $disks; do
		serial=${sd%%:*} d=${sd#*:}
		gh_poll 300 hints_are "$d" "$new" || true
		gh_check_hints "$serial changed" "$d" "$new"
	done
else
	t_fail "change hints at run time: $GH_REPLY"
fi

if ! gh_wait migrate; then
	t_fail "migrate: $GH_REPLY"
	gh_done
	exit
fi
t_ok "migrated"
for sd in $disks; do
	serial=${sd%%:*} d=${sd#*:}
	t_eq "$serial data intact after migration" \
		"$(dd if="/dev/$d" bs=1M skip=512 count=1 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)" "$want"
done
if gh_wait grow "$grow"; then
	for sd in $disks; do
		serial=${sd%%:*} d=${sd#*:}
		gh_poll 300 size_is "$d" "$grow" || true
		t_eq "$serial capacity on the destination" "$(gh_size_bytes "$d")" "$grow"
		gh_check_hints "$serial on the destination" "$d" "$new"
	done
else
	t_fail "grow on the destination: $GH_REPLY"
fi
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
