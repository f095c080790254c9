#!/bin/sh
# Grow disks in steps (QMP block_resize on the host) while a filesystem on each is mounted:
# capacity and hints stay consistent, xfs_growfs / resize2fs grow the filesystems online,
# data written before is intact.
# gh.disks=SERIAL:FS,...  gh.hints=MIN:MAX:INC (bytes, or 0:0:0)  gh.steps=BYTES,BYTES,...
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
hints=$(gh_param hints 0:0:0 | tr ':' ' ')
disks=""
for spec in $(gh_param disks | tr ',' ' '); do
	serial=${spec%%:*} fs=${spec#*:}
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		continue
	fi
	mkdir -p "/mnt/$serial"
	case "$fs" in
	xfs) t_cmd "$serial mkfs.xfs" mkfs.xfs -q -f "/dev/$d" ;;
	ext4) t_cmd "$serial mkfs.ext4" mkfs.ext4 -q -F "/dev/$d" ;;
	esac
	if ! mount -t "$fs" "/dev/$d" "/mnt/$serial"; then
		t_fail "$serial mount $fs"
		continue
	fi
	dd if=/dev/urandom of="/mnt/$serial/data" bs=1M count=16 2>/dev/null
	sync
	sha256sum "/mnt/$serial/data" | cut -d' ' -f1 > "/run/$serial.sum"
	disks="$disks $serial:$d:$fs"
done

size_is() {
	case "$1" in sd*) sg_turs "/dev/$1" >/dev/null 2>&1 ;; esac
	[ "$(gh_size_bytes "$1")" = "$2" ]
}
fs_bytes() {
	df -k "$1" | awk 'NR == 2 { print $2 * 1024 }'
}

for size in $(gh_param steps | tr ',' ' '); do
	gh_uevents_clear
	if ! gh_wait resize "$size"; then
		t_fail "resize to $size: $GH_REPLY"
		continue
	fi
	for sfd in $disks; do
		serial=${sfd%%:*} rest=${sfd#*:}
		d=${rest%%:*} fs=${rest#*:}
		gh_poll 300 size_is "$d" "$size" || true
		t_eq "$serial $size capacity" "$(gh_size_bytes "$d")" "$size"
		if gh_poll 50 gh_uevent_seen "ACTION=change" "DEVNAME=$d " "RESIZE=1"; then
			t_ok "$serial $size uevent RESIZE=1"
		else
			t_fail "$serial $size uevent RESIZE=1"
		fi
		if [ "$hints" = "0 0 0" ]; then
			t_skip "$serial $size hints" "the disk has no hints"
		elif gh_has_hints "$d"; then
			# shellcheck disable=SC2046
			set -- $(gh_hints "$d")
			t_eq "$serial $size hints unchanged" "$1 $2 $3" "$hints"
			if [ "$3" -gt 0 ] && [ "$1" -le "$size" ] && [ "$size" -le "$2" ] && [ $((size % $3)) = 0 ]; then
				t_ok "$serial $size capacity within hints"
			else
				t_fail "$serial $size capacity within hints ($1 <= $size <= $2, multiple of $3)"
			fi
		else
			t_skip "$serial $size hints" "kernel has no growth hint attributes"
		fi
		before=$(fs_bytes "/mnt/$serial")
		case "$fs" in
		xfs) t_cmd "$serial $size xfs_growfs" xfs_growfs "/mnt/$serial" ;;
		ext4) t_cmd "$serial $size resize2fs" resize2fs "/dev/$d" ;;
		esac
		after=$(fs_bytes "/mnt/$serial")
		# The filesystem now spans the disk, minus its own metadata (< 3 %).
		if [ "$after" -gt "$before" ] && [ "$after" -ge $((size * 97 / 100 - 64 * 1048576)) ]; then
			t_ok "$serial $size filesystem grew online ($before -> $after bytes)"
		else
			t_fail "$serial $size filesystem grew online ($before -> $after bytes, disk $size)"
		fi
		t_eq "$serial $size data intact" "$(sha256sum "/mnt/$serial/data" | cut -d' ' -f1)" "$(cat "/run/$serial.sum")"
	done
done
for sfd in $disks; do
	serial=${sfd%%:*} rest=${sfd#*:}
	d=${rest%%:*} fs=${rest#*:}
	umount "/mnt/$serial"
	case "$fs" in
	xfs) t_cmd "$serial xfs_repair -n" xfs_repair -n "/dev/$d" ;;
	ext4) t_cmd "$serial e2fsck -fn" e2fsck -fn "/dev/$d" ;;
	esac
done
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
