#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: blkid -i and lsblk of the util-linux series: disks and partitions, run-time change
# lsblk -b -o NAME,SIZE,GROW-MIN,GROW-MAX,GROW-INC and blkid -i -o udev in the guest against what
# the host gave QEMU: hinted virtio-blk and scsi-hd disks with GPTs (a last partition that grows
# with the disk, others that cannot), a 4Kn scsi-hd disk with an MBR (capped at 2^32-1 sectors),
# disks without hints; then the hints of two disks changed with block-set-growth-hints and
# the next lsblk and blkid calls.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

# serial bus size lbs min max inc table: the table is "gpt:P..." where each P is SIZE for a
# partition that ends before the next (or with free space after it) and "rest" or "last"
# for one that runs to the aligned end (sfdisk's default) or to the last usable sector; "mbr4k"
# is one MBR partition from 1 MiB to the end in 4096-byte sectors; "-" no table.
disks=(
	"ulvh virtio 10G 512 1G 64T 1G gpt:1G,rest"
	"ulsh scsi 12G 512 0 10T 4M gpt:2G,last"
	"ulsf scsi 12G 512 0 10T 4M gpt:4G,4G"
	"ul4k scsi 12G 4096 3G 48T 3M mbr4k"
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
# "start size" in 512-byte sectors (4096-byte ones for mbr4k) and the GPT's last usable sector.
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
		echo "256 $((sectors / 8 - 256))"
	else
		sfdisk -J "$img" | jq -r '.partitiontable.partitions[] | "\(.start) \(.size)"'
		sfdisk -J "$img" | jq -r '"last \(.partitiontable.lastlba)"'
	fi
}

# expect SERIAL PART SIZE MIN MAX INC: one entry of the guest's list (bytes).
expect() { spec="$spec,$1:$2:$3:$4:$5:$6"; }

# expected_parts SERIAL DISK-BYTES SECTOR CAP MIN MAX INC PARTS-FILE: the entries of the
# partitions.  The last partition of the list grows with the disk when nothing but the GPT
# backup and less than 1 MiB follows it: max = disk max - start - tail (at most CAP bytes if
# CAP is not 0), min = disk min - start - tail (or 0).  The others report max = their size.
expected_parts() {
	local serial=$1 disk=$2 ss=$3 cap=$4 min=$5 max=$6 inc=$7 list=$8 n=0 start size tail pmin pmax
	local count reserved=0 last
	count=$(grep -c -v '^last ' "$list" || true)
	last=$(sed -n 's/^last //p' "$list")
	[ -z "$last" ] || reserved=$((disk - (last + 1) * ss))
	while read -r start size; do
		[ "$start" != last ] || continue
		n=$((n + 1))
		tail=$((disk - (start + size) * ss))
		pmin=0 pmax=$((size * ss))
		if [ "$max" != 0 ] && [ "$n" = "$count" ] && [ "$tail" -le $((reserved + (1 << 20))) ]; then
			pmax=$((max - start * ss - tail))
			[ "$min" -le $((start * ss + tail)) ] || pmin=$((min - start * ss - tail))
			[ "$cap" = 0 ] || [ "$pmax" -le "$cap" ] || pmax=$cap
			h_diag "$serial$n: start $((start * ss)), tail $tail (table's end area $reserved): grows to $pmax"
		else
			h_diag "$serial$n: start $((start * ss)), tail $tail: will not grow"
		fi
		[ "$max" != 0 ] || pmax=0 inc=0
		expect "$serial" "$n" $((size * ss)) "$pmin" "$pmax" "$inc"
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
		h_skip "util-linux" "$GH_QEMU has no min-growth/max-growth/growth-increment properties"
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
