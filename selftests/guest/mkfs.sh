#!/bin/sh
# growth-mkfs on a disk with hints, on the partitions of a GPT disk with hints, on a disk the
# model table knows and on one without hints: where it says the hints come from, the geometry
# it promises (mkfs-args --json) against what mkfs.xfs and mke2fs made (xfs_info, dumpe2fs -h),
# and that geometry against plain mkfs defaults measured on the control disk (POLICY.md: AGs
# follow the max, the inode ratio, the log and the journal stay those of the size as made).
# gh.hinted=SERIAL:MIN:MAX:INC (bytes)  gh.gpt=SERIAL (same hints, GPT with 2 partitions)
# gh.table=SERIAL (scsi "Google PersistentDisk", no hints)  gh.control=SERIAL (no hints)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

# j KEY JSON: the value of "KEY" (a number, true/false or a string without commas).
j() { echo "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
# j_reason JSON: the "reason" string.
j_reason() { echo "$1" | sed -n 's/.*"reason":"\([^"]*\)".*/\1/p'; }
# j_args JSON: the "args" array as one line, space separated.
j_args() { echo "$1" | sed -n 's/.*"args":\[\([^]]*\)\].*/\1/p' | sed 's/","/ /g; s/"//g'; }
# feat FEATURES NAME: true or false.
feat() {
	case " $1 " in
	*" $2 "*) echo true ;;
	*) echo false ;;
	esac
}
# ceil A B
ceil() { echo $((($1 + $2 - 1) / $2)); }
# bytes DEV: the size of a disk or a partition
bytes() { echo $(($(cat "/sys/class/block/$1/size") * 512)); }

# xfs_geom DISK: sets AGCOUNT AGSIZE LOGB (4 KiB blocks) from xfs_info of the unmounted disk.
xfs_geom() {
	_xi=$(xfs_info "/dev/$1" 2>&1)
	AGCOUNT=$(echo "$_xi" | sed -n 's/.*agcount=\([0-9]*\).*/\1/p')
	AGSIZE=$(echo "$_xi" | sed -n 's/.*agsize=\([0-9]*\) blks.*/\1/p')
	LOGB=$(echo "$_xi" | sed -n 's/^log .*blocks=\([0-9]*\).*/\1/p')
	[ -n "$AGCOUNT" ] && [ -n "$AGSIZE" ] && [ -n "$LOGB" ] && return 0
	echo "$_xi" | sed 's/^/# xfs_info: /'
	return 1
}
# ext4_geom DISK: sets INODES JOURNALB RSVGDT FEATURES from dumpe2fs -h.
ext4_geom() {
	_de=$(dumpe2fs -h "/dev/$1" 2>&1)
	INODES=$(echo "$_de" | sed -n 's/^Inode count: *//p')
	JOURNALB=$(echo "$_de" | sed -n 's/^Total journal blocks: *//p')
	RSVGDT=$(echo "$_de" | sed -n 's/^Reserved GDT blocks: *//p')
	FEATURES=$(echo "$_de" | sed -n 's/^Filesystem features: *//p')
	# Without resize_inode dumpe2fs prints no "Reserved GDT blocks" line.
	[ -n "$RSVGDT" ] || RSVGDT=0
	[ -n "$INODES" ] && [ -n "$JOURNALB" ] && [ -n "$FEATURES" ] && return 0
	echo "$_de" | tail -n 15 | sed 's/^/# dumpe2fs: /'
	return 1
}

# show P DISK: growth-mkfs --json show; sets SHOW.
show() {
	if ! SHOW=$(growth-mkfs --json show "/dev/$2" 2>&1); then
		diag "$SHOW"
		t_fail "$1 growth-mkfs show"
		return 1
	fi
	diag "$1 $(growth-mkfs show "/dev/$2" 2>&1 | sed -n 1p)"
	return 0
}

# mkfs_xfs P DISK: mkfs-args --json, growth-mkfs mkfs, xfs_info against the JSON.
# Sets XJ (the JSON) and AGCOUNT AGSIZE LOGB (what was made); fails when nothing was made.
mkfs_xfs() {
	if ! XJ=$(growth-mkfs --json mkfs-args -t xfs "/dev/$2" 2>&1); then
		diag "$XJ"
		t_fail "$1 xfs mkfs-args"
		return 1
	fi
	diag "$1 xfs args: '$(j_args "$XJ")': $(j_reason "$XJ")"
	t_cmd "$1 xfs growth-mkfs mkfs" growth-mkfs mkfs -t xfs "/dev/$2" -- -f
	if ! xfs_geom "$2"; then
		t_fail "$1 xfs xfs_info"
		return 1
	fi
	t_eq "$1 xfs agcount" "$AGCOUNT" "$(j agcount "$XJ")"
	t_eq "$1 xfs agsize blocks" "$AGSIZE" "$(j agsize_blocks "$XJ")"
	t_eq "$1 xfs log blocks" "$LOGB" "$(j log_blocks "$XJ")"
	t_cmd "$1 xfs_repair -n" xfs_repair -n "/dev/$2"
}

# mkfs_ext4 P DISK: the same for ext4 with dumpe2fs -h.  Sets EJ and INODES JOURNALB ...
mkfs_ext4() {
	if ! EJ=$(growth-mkfs --json mkfs-args -t ext4 "/dev/$2" 2>&1); then
		diag "$EJ"
		t_fail "$1 ext4 mkfs-args"
		return 1
	fi
	diag "$1 ext4 args: '$(j_args "$EJ")': $(j_reason "$EJ")"
	t_cmd "$1 ext4 growth-mkfs mkfs" growth-mkfs mkfs -t ext4 "/dev/$2" -- -F
	if ! ext4_geom "$2"; then
		t_fail "$1 ext4 dumpe2fs"
		return 1
	fi
	diag "$1 ext4 features: $FEATURES"
	# size / ratio, rounded by mke2fs to whole groups: within one group's inodes
	_want=$(($(bytes "$2") / $(j inode_ratio "$EJ")))
	_diff=$((INODES - _want))
	if [ "${_diff#-}" -lt $((134217728 / $(j inode_ratio "$EJ"))) ]; then
		t_ok "$1 ext4 inode count $INODES (size / inode ratio: $_want)"
	else
		t_fail "$1 ext4 inode count $INODES (size / inode ratio: $_want)"
	fi
	t_eq "$1 ext4 journal blocks" "$JOURNALB" "$(j journal_blocks "$EJ")"
	t_eq "$1 ext4 reserved GDT blocks" "$RSVGDT" "$(j reserved_gdt_blocks "$EJ")"
	t_eq "$1 ext4 resize_inode" "$(feat "$FEATURES" resize_inode)" "$(j resize_inode "$EJ")"
	t_eq "$1 ext4 meta_bg" "$(feat "$FEATURES" meta_bg)" "$(j meta_bg "$EJ")"
	t_eq "$1 ext4 64bit" "$(feat "$FEATURES" 64bit)" "$(j 64bit "$EJ")"
	t_cmd "$1 e2fsck -fn" e2fsck -fn "/dev/$2"
}

# mount_check P FS DISK: the kernel mounts what was made.
mount_check() {
	if _o=$(mount -t "$2" "/dev/$3" /mnt 2>&1); then
		t_ok "$1 $2 mounts"
		t_cmd "$1 $2 umount" umount /mnt
	else
		diag "$_o"
		dmesg | tail -n 5 | sed 's/^/# /'
		t_fail "$1 $2 mounts"
	fi
}

if ! command -v growth-mkfs >/dev/null; then
	t_skip "mkfs" "growth-mkfs is not in the initramfs (make -C tools, then make initramfs)"
	gh_done
	exit
fi
IFS=: read -r hs hmin hmax hinc <<-EOF
$(gh_param hinted)
EOF
cs=$(gh_param control)
if ! hd=$(gh_disk "$hs"); then
	t_fail "$hs present"
	gh_done
	exit
fi
if ! gh_has_hints "$hd"; then
	t_skip "mkfs" "kernel has no /sys/block/$hd/queue/min_growth_bytes"
	gh_done
	exit
fi
if ! cd=$(gh_disk "$cs"); then
	t_fail "$cs present"
	gh_done
	exit
fi
size=$(gh_size_bytes "$hd")
t_eq "$cs same size as $hs" "$(gh_size_bytes "$cd")" "$size"

# Plain mkfs defaults at this size, measured on the control disk.
def_ok=1
t_cmd "defaults mkfs.xfs" mkfs.xfs -q -f "/dev/$cd"
if xfs_geom "$cd"; then
	def_agcount=$AGCOUNT def_agsize=$AGSIZE def_logb=$LOGB
	diag "mkfs.xfs defaults: agcount $AGCOUNT, agsize $AGSIZE blocks, log $LOGB blocks"
else
	t_fail "defaults xfs_info"
	def_ok=0
fi
t_cmd "defaults mkfs.ext4" mkfs.ext4 -q -F "/dev/$cd"
if ext4_geom "$cd"; then
	def_inodes=$INODES def_journalb=$JOURNALB def_rsvgdt=$RSVGDT def_features=$FEATURES
	diag "mke2fs defaults: $INODES inodes, journal $JOURNALB blocks, $RSVGDT reserved GDT blocks, $FEATURES"
else
	t_fail "defaults dumpe2fs"
	def_ok=0
fi

# The disk with hints: growth-mkfs takes them from the kernel.
gh_check_hints "$hs" "$hd" "$hmin $hmax $hinc"
if show "$hs" "$hd"; then
	t_eq "$hs show source" "$(j source "$SHOW")" sysfs
	t_eq "$hs show size" "$(j size "$SHOW")" "$size"
	t_eq "$hs show min max increment" "$(j min "$SHOW") $(j max "$SHOW") $(j increment "$SHOW")" \
		"$hmin $hmax $hinc"
fi

if mkfs_xfs "$hs" "$hd"; then
	t_eq "$hs xfs planned for max" "$(j grows "$XJ") $(j final "$XJ")" "true $hmax"
	t_eq "$hs xfs agcount at max" "$(j agcount_at_max "$XJ")" "$(ceil "$hmax" $((AGSIZE * 4096)))"
	mount_check "$hs" xfs "$hd"
	if [ $def_ok = 1 ]; then
		# Grown from 10 GiB to 10 TiB, default-sized AGs end as thousands of AGs.
		hint_at_max=$(ceil "$hmax" $((AGSIZE * 4096)))
		def_at_max=$(ceil "$hmax" $((def_agsize * 4096)))
		# three AGs within the disk: 7/16 of it against the default's 1/4
		if [ $((hint_at_max * 7)) -le $((def_at_max * 4 + 7)) ]; then
			t_ok "$hs xfs AGs at max: $hint_at_max, at most 4/7 of the defaults' $def_at_max"
		else
			t_fail "$hs xfs AGs at max: $hint_at_max, at most 4/7 of the defaults' $def_at_max"
		fi
		if [ "$AGCOUNT" -lt "$def_agcount" ] && [ "$AGSIZE" -gt "$def_agsize" ]; then
			t_ok "$hs xfs fewer, larger AGs than defaults ($AGCOUNT x $AGSIZE vs $def_agcount x $def_agsize)"
		else
			t_fail "$hs xfs fewer, larger AGs than defaults ($AGCOUNT x $AGSIZE vs $def_agcount x $def_agsize)"
		fi
		t_eq "$hs xfs log is mkfs's default for the size as made" "$LOGB" "$def_logb"
	else
		t_skip "$hs xfs against defaults" "the default geometry could not be measured"
	fi
fi

if mkfs_ext4 "$hs" "$hd"; then
	t_eq "$hs ext4 planned for max" "$(j grows "$EJ") $(j final "$EJ")" "true $hmax"
	mount_check "$hs" ext4 "$hd"
	if [ $def_ok = 1 ]; then
		# What costs at the size as made stays mke2fs's: inodes and journal; the reserve is
		# mke2fs's too (10 TiB is past what resize_inode covers: the kernel converts to meta_bg).
		t_eq "$hs ext4 inodes and journal are mke2fs's defaults" "$INODES $JOURNALB" \
			"$def_inodes $def_journalb"
		t_eq "$hs ext4 resize_inode kept, no meta_bg up front" \
			"$(feat "$FEATURES" resize_inode) $(feat "$FEATURES" meta_bg) $RSVGDT" \
			"true false $def_rsvgdt"
	else
		t_skip "$hs ext4 against defaults" "the default geometry could not be measured"
	fi
fi

# The GPT disk: its last partition follows the disk: the disk's max less its start and the area
# the GPT keeps at the disk's end (at most the tail; the GPT was made on this disk, so 33
# sectors); the first partition is followed by another: it may grow up to it, its size.
gs=$(gh_param gpt)
if [ -n "$gs" ] && gd=$(gh_disk "$gs"); then
	gh_poll 100 test -b "/dev/${gd}2" || true
	if [ -b "/dev/${gd}2" ] && [ -b "/dev/${gd}1" ]; then
		dsize=$(gh_size_bytes "$gd")
		p2start=$(($(cat "/sys/block/$gd/${gd}2/start") * 512))
		p2size=$(($(cat "/sys/block/$gd/${gd}2/size") * 512))
		p1size=$(($(cat "/sys/block/$gd/${gd}1/size") * 512))
		tail=$((dsize - p2start - p2size))
		keep=$((33 * 512))
		[ "$tail" -ge "$keep" ] || keep=$tail
		diag "$gs: ${gd}2 starts at $p2start, $p2size bytes, $tail bytes after it, $keep kept by the GPT"
		if show "$gs ${gd}2" "${gd}2"; then
			t_eq "$gs ${gd}2 source, table type" "$(j source "$SHOW") $(j pttype "$SHOW")" "sysfs gpt"
			t_eq "$gs ${gd}2 max = disk max - start - GPT end area" "$(j max "$SHOW")" \
				"$((hmax - p2start - keep))"
			# min: the disk's min less the same, 0 if that lies before them, at most its size
			p2min=0
			[ "$hmin" -le $((p2start + keep)) ] || p2min=$((hmin - p2start - keep))
			[ "$p2min" -le "$p2size" ] || p2min=$p2size
			t_eq "$gs ${gd}2 min = disk min - start - GPT end area, or 0, at most its size" \
				"$(j min "$SHOW")" "$p2min"
		fi
		if show "$gs ${gd}1" "${gd}1"; then
			t_eq "$gs ${gd}1 max = the next partition's start - its start = its size, min 0" \
				"$(j max "$SHOW") $(j min "$SHOW")" "$p1size 0"
		fi
		if mkfs_xfs "$gs ${gd}2" "${gd}2"; then
			t_eq "$gs ${gd}2 xfs planned for the partition's max (in 4 KiB blocks)" \
				"$(j final "$XJ")" "$(((hmax - p2start - keep) / 4096 * 4096))"
			mount_check "$gs ${gd}2" xfs "${gd}2"
		fi
		if mkfs_ext4 "$gs ${gd}1" "${gd}1"; then
			t_eq "$gs ${gd}1 ext4 will not grow: mke2fs's reserve kept" \
				"$(feat "$FEATURES" resize_inode) $(j_reason "$EJ")" \
				"true will not grow: mke2fs defaults, its growth reserve kept"
			mount_check "$gs ${gd}1" ext4 "${gd}1"
		fi
	else
		t_fail "$gs partitions ${gd}1 and ${gd}2 present"
	fi
else
	t_fail "${gs:-gpt disk} present"
fi

# The table-matched disk: no device hint, the model table's record for Google PD.  A guess:
# no AG, log, inode or journal change; only the growth reserve and 64bit.
ts=$(gh_param table)
if [ -n "$ts" ] && td=$(gh_disk "$ts"); then
	gh_check_hints "$ts" "$td" "0 0 0"
	if show "$ts" "$td"; then
		t_eq "$ts show source and match" "$(j source "$SHOW") $(j match "$SHOW")" \
			"table growth:scsi:vGoogle:mPersistentDisk"
		t_eq "$ts show max (64 TiB)" "$(j max "$SHOW")" "$((64 << 40))"
	fi
	if mkfs_xfs "$ts" "$td"; then
		t_eq "$ts xfs no options from a guess" "$(j_args "$XJ")" ""
		[ $def_ok = 0 ] || t_eq "$ts xfs geometry is mkfs.xfs's default" "$AGCOUNT $AGSIZE $LOGB" \
			"$def_agcount $def_agsize $def_logb"
	fi
	if mkfs_ext4 "$ts" "$td"; then
		t_eq "$ts ext4 options from a guess" "$(j_args "$EJ")" "-O 64bit"
		[ $def_ok = 0 ] || t_eq "$ts ext4 inodes and journal are mke2fs's defaults" \
			"$INODES $JOURNALB" "$def_inodes $def_journalb"
	fi
else
	t_fail "${ts:-table disk} present"
fi

# The udev rule and hwdb fragment (tools/udev), when the initramfs has udevadm and them:
# "udevadm test" runs the rules on each disk; ID_GROWTH_SOURCE says where the values came from.
# udev_props DISK: the ID_GROWTH_* lines udevadm test prints for it, sorted, on one line.
udev_props() {
	udevadm test --action=add "/sys/class/block/$1" 2>/dev/null | sed -n 's/^ID_GROWTH_/&/p' |
		sort | tr '\n' ' ' | sed 's/ $//'
}
if command -v udevadm >/dev/null && [ -e /etc/udev/rules.d/60-growth-hints.rules ]; then
	t_eq "$hs udev: device hints" "$(udev_props "$hd")" \
		"ID_GROWTH_INCREMENT_BYTES=$hinc ID_GROWTH_MAX_BYTES=$hmax ID_GROWTH_MIN_BYTES=$hmin ID_GROWTH_SOURCE=device"
	if [ -n "${td:-}" ]; then
		t_eq "$ts udev: table record" "$(udev_props "$td")" \
			"ID_GROWTH_INCREMENT_BYTES=$((1 << 30)) ID_GROWTH_MAX_BYTES=$((64 << 40)) ID_GROWTH_MIN_BYTES=$((10 << 30)) ID_GROWTH_SOURCE=table"
	fi
	t_eq "$cs udev: nothing" "$(udev_props "$cd")" ""
else
	t_skip "udev rule" "no udevadm and 60-growth-hints.rules in the initramfs"
fi

# The control disk: no hints, so growth-mkfs adds nothing and mkfs makes its defaults.
gh_check_hints "$cs" "$cd" "0 0 0"
if show "$cs" "$cd"; then
	t_eq "$cs show source" "$(j source "$SHOW")" none
	t_eq "$cs show min max increment" "$(j min "$SHOW") $(j max "$SHOW") $(j increment "$SHOW")" "0 0 0"
fi
if mkfs_xfs "$cs" "$cd"; then
	t_eq "$cs xfs no options added" "$(j_args "$XJ")" ""
	if [ $def_ok = 1 ]; then
		t_eq "$cs xfs geometry is mkfs.xfs's default" "$AGCOUNT $AGSIZE $LOGB" \
			"$def_agcount $def_agsize $def_logb"
	fi
fi
if mkfs_ext4 "$cs" "$cd"; then
	t_eq "$cs ext4 no options added" "$(j_args "$EJ")" ""
	if [ $def_ok = 1 ]; then
		t_eq "$cs ext4 geometry is mke2fs's default" \
			"$INODES $JOURNALB $RSVGDT $FEATURES" \
			"$def_inodes $def_journalb $def_rsvgdt $def_features"
	fi
fi
gh_done
