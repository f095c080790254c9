#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: blkid -i and lsblk of the util-linux series: disks and partitions, run-time change
# lsblk -b -o NAME,SIZE,GROW-MIN,GROW-MAX,GROW-INC and blkid -i -o udev in the guest against what
# the host gave QEMU: hinted virtio-blk and scsi-hd disks with GPTs (a last partition that follows
# the disk, with or without free space after it; one followed by another, which may grow up to
# it), a 4Kn scsi-hd disk with an MBR (capped at 2^32-1 sectors), an MBR with a logical partition
# (its place is not known: no hints at all), disks without hints; lsblk -t as in stock util-linux;
# then the hints of two disks changed with block-set-growth-hints and the next lsblk and blkid
# calls.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# serial bus size lbs min max inc table: the table is "gpt:P..." where each P is SIZE for a
# partition that ends where the next one starts (or with free space after it) and "rest" or
# "last" for one that runs to the aligned end (sfdisk's default) or to the last usable sector;
# "mbr4k" is one MBR partition from 1 MiB to the end in 4096-byte sectors; "mbrlog" an MBR
# with a primary partition, an extended one holding a logical one, and a primary one followed
# by free space; "-" no table.
disks=(
	"ulvh virtio 10G 512 1G 64T 1G gpt:1G,rest"
	"ulsh scsi 12G 512 0 10T 4M gpt:2G,last"
	"ulsf scsi 12G 512 0 10T 4M gpt:4G,4G"
	"ul4k scsi 12G 4096 3G 48T 3M mbr4k"
	"ulml virtio 8G 512 1G 16T 1G mbrlog"
	"ulvp virtio 8G 512 0 0 0 gpt:rest"
	"ulsp scsi 8G 512 0 0 0 -"
)
# The run-time change: the same properties as runtime-change, set in an order that keeps
# every intermediate state valid (max, min, increment).
changes=(
	"ulvh vd-ulvh 2G 32T 2G"
	"ulsh sd-ulsh 4G 20T 8M"
)

bytes() { numfmt --from=iec "$1"; }

# mkimage IMG SIZE TABLE: a sparse image with the partition table; prints the partitions as
# "number start size kind" (kind: P primary, E extended, L logical) in 512-byte sectors
# (4096-byte ones for mbr4k) and "last N" for a GPT's last usable sector.
mkimage() {
	local img=$1 size=$2 table=$3 script p sectors last
	truncate -s "$size" "$img"
	sectors=$(($(bytes "$size") / 512))
	case "$table" in
	-) return 0 ;;
	mbr4k)
		# sfdisk sees 512-byte sectors in a file; the guest reads these numbers as 4096-byte
		# sectors: 1 MiB to the end of the 4Kn disk.
		printf 'label: dos\nstart=256, size=%d, type=83\n' $((sectors / 8 - 256)) |
			sfdisk -q --no-reread "$img" >/dev/null 2>&1 || return 1
		;;
	mbrlog)
		printf '%s\n' "label: dos" "start=1MiB, size=1023MiB, type=83" \
			"start=1GiB, size=4GiB, type=5" "start=5GiB, size=1GiB, type=83" \
			"start=1025MiB, size=2047MiB, type=83" |
			sfdisk -q --no-reread "$img" >/dev/null 2>&1 || return 1
		;;
	gpt:*)
		local parts start=2048
		last=$((sectors - 34))	# GPT's default: 33 sectors of backup after the last usable
		script="label: gpt"$'\n'
		IFS=, read -r -a parts <<< "${table#gpt:}"
		for p in "${parts[@]}"; do
			case "$p" in
			rest) script+=","$'\n' ;;
			last) script+="start=$start, size=$((last - start + 1))"$'\n' ;;
			*)
				script+="start=$start, size=$(($(bytes "$p") / 512))"$'\n'
				start=$((start + $(bytes "$p") / 512))
				;;
			esac
		done
		sfdisk -q --no-reread "$img" <<< "$script" >/dev/null 2>&1 || return 1
		;;
	esac
	if [ "$table" = mbr4k ]; then
		echo "1 256 $((sectors / 8 - 256)) P"
	else
		sfdisk -J "$img" | jq -r '.partitiontable.partitions[] |
			"\(.node | capture("(?<n>[0-9]+)$").n) \(.start) \(.size) \(.type)"' |
			while read -r p start size type; do
				case "$table:$p:$type" in
				gpt:*) echo "$p $start $size P" ;;
				*:5 | *:f | *:85) echo "$p $start $size E" ;;
				*) if [ "$p" -gt 4 ]; then echo "$p $start $size L"; else echo "$p $start $size P"; fi ;;
				esac
			done
		[ "${table%%:*}" != gpt ] || sfdisk -J "$img" | jq -r '"last \(.partitiontable.lastlba)"'
	fi
}

# expect SERIAL PART SIZE MIN MAX INC: one entry of the guest's list (bytes; "-" for none: the
# place of the partition is not known).
expect() { spec="$spec,$1:$2:$3:$4:$5:$6"; }

# expected_parts SERIAL DISK-BYTES SECTOR CAP MIN MAX INC PARTS-FILE: the entries of the
# partitions (not of a DOS extended one, whose node the kernel makes 1 KiB long).  A partition
# followed by another may grow up to it: max = next start - start, min 0.  The last one
# follows the disk: max = disk max - start - what the table keeps at the end (the GPT's area
# after its last usable sector, at most the tail; 0 for an MBR), at most CAP bytes if CAP is
# not 0; min = disk min - start - the same (or 0), at most its size.  A logical partition has
# no hints.  Both keep the disk's increment; a disk without hints has none (0).
expected_parts() {
	local serial=$1 disk=$2 ss=$3 cap=$4 min=$5 max=$6 inc=$7 list=$8 p start size kind
	local reserved=0 last next keep pmin pmax x xs
	last=$(sed -n 's/^last //p' "$list")
	[ -z "$last" ] || reserved=$((disk - (last + 1) * ss))
	while read -r p start size kind; do
		[ "$p" != last ] || continue
		[ "$kind" != E ] || continue
		if [ "$max" = 0 ]; then
			expect "$serial" "$p" $((size * ss)) 0 0 0
			continue
		fi
		if [ "$kind" = L ]; then
			h_diag "$serial$p: a logical partition: no hints"
			expect "$serial" "$p" $((size * ss)) - - -
			continue
		fi
		next=""
		while read -r x xs _ _; do
			if [ "$x" = last ] || [ "$x" = "$p" ] || [ "$xs" -lt $((start + size)) ]; then
				continue
			fi
			if [ -z "$next" ] || [ "$xs" -lt "$next" ]; then
				next=$xs
			fi
		done < "$list"
		if [ -n "$next" ]; then
			pmin=0 pmax=$(((next - start) * ss))
			h_diag "$serial$p: start $((start * ss)), next partition at $((next * ss)): grows to $pmax"
		else
			keep=$((disk - (start + size) * ss))
			[ "$keep" -le "$reserved" ] || keep=$reserved
			pmax=$((max - start * ss - keep))
			[ "$cap" = 0 ] || [ "$pmax" -le "$cap" ] || pmax=$cap
			pmin=0
			[ "$min" -le $((start * ss + keep)) ] || pmin=$((min - start * ss - keep))
			[ "$pmin" -le $((size * ss)) ] || pmin=$((size * ss))
			h_diag "$serial$p: start $((start * ss)), last ($keep bytes kept by the table): grows to $pmax"
		fi
		expect "$serial" "$p" $((size * ss)) "$pmin" "$pmax" "$inc"
	done < "$list"
}

spec=""
# specs SETTINGS...: the guest's list for these disk settings; sets spec.
specs() {
	local s serial bus size lbs min max inc table
	spec=""
	for s in "$@"; do
		read -r serial bus size lbs min max inc table <<< "$s"
		expect "$serial" 0 "$(bytes "$size")" "$(bytes "$min")" "$(bytes "$max")" "$(bytes "$inc")"
		case "$table" in
		-) ;;
		# an MBR entry counts at most 2^32-1 sectors
		mbr4k) expected_parts "$serial" "$(bytes "$size")" 4096 $((0xffffffff * 4096)) \
			"$(bytes "$min")" "$(bytes "$max")" "$(bytes "$inc")" "$GH_WORK/img/$serial.parts" ;;
		mbr*) expected_parts "$serial" "$(bytes "$size")" 512 $((0xffffffff * 512)) \
			"$(bytes "$min")" "$(bytes "$max")" "$(bytes "$inc")" "$GH_WORK/img/$serial.parts" ;;
		*) expected_parts "$serial" "$(bytes "$size")" 512 0 \
			"$(bytes "$min")" "$(bytes "$max")" "$(bytes "$inc")" "$GH_WORK/img/$serial.parts" ;;
		esac
	done
	spec=${spec#,}
}

on_wait_change() {
	local c serial id min max inc
	for c in "${changes[@]}"; do
		read -r serial id min max inc <<< "$c"
		set_hints "$id" "$(bytes "$min")" "$(bytes "$max")" "$(bytes "$inc")" || return 1
	done
}

scenario() {
	if ! qemu_has_hints; then
		h_skip "util-linux" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	if ! command -v sfdisk >/dev/null || ! command -v jq >/dev/null; then
		h_skip "util-linux" "sfdisk (package fdisk) or jq is missing on the host: run 'make deps'"
		return
	fi
	mkdir -p "$GH_WORK/img"
	local s serial bus size lbs min max inc table props args=() after=() c found
	for s in "${disks[@]}"; do
		read -r serial bus size lbs min max inc table <<< "$s"
		if ! mkimage "$GH_WORK/img/$serial.img" "$size" "$table" > "$GH_WORK/img/$serial.parts"; then
			h_fail "partition table of $serial ($table) made with sfdisk"
			return
		fi
		props=""
		[ "$max" = 0 ] || props=$(hint_props "$min" "$max" "$inc")
		[ "$lbs" = 512 ] || props="${props:+$props,}logical_block_size=$lbs,physical_block_size=$lbs"
		args+=(--disk "$bus:file=$GH_WORK/img/$serial.img:id=${bus:0:1}d-$serial:serial=$serial${props:+:props=$props}")
	done
	specs "${disks[@]}"
	local before=$spec
	# The same disks after the change.
	for s in "${disks[@]}"; do
		read -r serial bus size lbs min max inc table <<< "$s"
		found=""
		for c in "${changes[@]}"; do
			[ "${c%% *}" != "$serial" ] || found=$c
		done
		[ -n "$found" ] || continue
		read -r _ _ min max inc <<< "$found"
		after+=("$serial $bus $size $lbs $min $max $inc $table")
	done
	specs "${after[@]}"
	vm boot --test util-linux --append "gh.expect=$before gh.changed=$spec" "${args[@]}"
	vm_results ""
}

h_main "$@"
