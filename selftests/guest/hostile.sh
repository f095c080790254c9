#!/bin/sh
# A device whose hints break the rules: the guest stays up, the attributes read what is
# expected (0 0 0 when rejected), the kernel logs exactly the expected number of
# "ignoring capacity growth hints" lines and no warning, bug or sanitizer report.
# gh.dev=scsi_debug|SERIAL  gh.expect=MIN:MAX:INC  gh.lines=N
# gh.grow=BYTES (optional: the host grows the disk, then gh.after=MIN:MAX:INC, gh.lines_after=N)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
dev=$(gh_param dev)
scsi_debug_disk() {
	for m in /sys/block/sd*/device/model; do
		case "$(cat "$m" 2>/dev/null)" in
		scsi_debug*) _d=${m#/sys/block/}; echo "${_d%%/*}"; return 0 ;;
		esac
	done
	return 1
}
if [ "$dev" = scsi_debug ]; then
	if [ ! -e /sys/module/scsi_debug/parameters/growth_min ]; then
		t_skip "$dev" "scsi_debug has no growth_* parameters"
		gh_done
		exit
	fi
	gh_poll 100 scsi_debug_disk
	d=$(scsi_debug_disk) || d=""
else
	d=$(gh_disk "$dev") || d=""
fi
if [ -z "$d" ]; then
	t_fail "$dev present"
	gh_done
	exit
fi
nlines() { dmesg | grep -c "$d: ignoring capacity growth hints"; }

# check NAME "MIN MAX INC" LINES
check() {
	if ! gh_has_hints "$d"; then
		t_skip "$1" "kernel has no growth hint attributes"
		return 0
	fi
	t_eq "$1 hints" "$(gh_hints "$d")" "$2"
	dmesg | grep "$d: ignoring capacity growth hints" | sed 's/^/# /'
	t_eq "$1 log lines" "$(nlines)" "$3"
	t_cmd "$1 disk readable" dd if="/dev/$d" of=/dev/null bs=4096 count=16
	if gh_kernel_clean >/dev/null; then t_ok "$1 kernel log clean"; else t_fail "$1 kernel log clean"; fi
}

check "$dev" "$(gh_param expect | tr ':' ' ')" "$(gh_param lines 0)"
grow=$(gh_param grow)
if [ -n "$grow" ]; then
	size_is() {
		case "$d" in sd*) sg_turs "/dev/$d" >/dev/null 2>&1 ;; esac
		[ "$(gh_size_bytes "$d")" = "$1" ]
	}
	if gh_wait grow "$grow"; then
		gh_poll 300 size_is "$grow" || true
		t_eq "$dev grown capacity" "$(gh_size_bytes "$d")" "$grow"
		check "$dev grown" "$(gh_param after | tr ':' ' ')" "$(gh_param lines_after 1)"
	else
		t_skip "$dev grown" "$GH_REPLY"
	fi
fi
gh_done
