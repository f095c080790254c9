#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: NVMe namespaces (nvme with a drive, nvme-ns): exact bytes, run-time change, grow, hostile
# The hints travel in the proposed Namespace Size Range of the NVM Command Set Identify
# Namespace data (Documentation/nvme/).  One guest: two hinted namespaces (512- and 4096-byte
# blocks) and one without hints (0 0 0); block-set-growth-hints, then a higher maximum and a
# block_resize (x-resizable=on), each with its GROWTH_HINTS=1 uevent.  Then native multipath: one shared
# namespace behind two controllers of one subsystem; the multipath disk shows the hints through
# the same steps, its two paths none.  Then one guest per hostile set, made with
# x-growth-hints-unchecked: the attributes read 0 with one log line (or, for a set the kernel
# accepts, its values and no line).  Then a shrink under I/O (x-resizable=on), on a raw and a
# qcow2 image: the guest writes the part that block_resize removes while it runs; the writes
# past the new end fail and the image keeps its new size.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

G=$((1 << 30)) T=$((1 << 40))
read -r -a ids <<< "${NVME_IDS:-nv0 nv1}"

on_wait_change() {
	local id
	for id in "${ids[@]}"; do
		set_hints "$id" $((2 * G)) $((32 * T)) $((2 * G)) || return 1
	done
}
# the way a provider grows a volume: the maximum first, then the size
on_wait_grow() {
	local id err
	for id in "${ids[@]}"; do
		set_hints "$id" $((2 * G)) $((64 * T)) $((2 * G)) || return 1
		err=$(qmp block_resize "{\"device\": \"drv-$id\", \"size\": $((20 * G))}" 2>&1 >/dev/null) ||
			{ echo "block_resize $id: $err"; return 1; }
	done
}

SHRINK_OLD=$((1 << 30)) SHRINK_NEW=$((768 << 20))
on_wait_shrink() {
	local err
	err=$(qmp block_resize "{\"device\": \"drv-shr\", \"size\": $SHRINK_NEW}" 2>&1 >/dev/null) ||
		{ echo "block_resize shr: $err"; return 1; }
}

qemu_has_nvme_hints() { "$GH_QEMU" -device nvme-ns,help 2>/dev/null | matches 'x-growth-max'; }

# name | properties (x-growth-hints-unchecked=on added) | expected | log lines
hostile=(
	"min-above-max|x-growth-min=8G,x-growth-max=4G,x-growth-increment=1G|0:0:0|1"
	"max-below-capacity|x-growth-max=4G,x-growth-increment=1G|0:0:0|1"
	"no-increment|x-growth-max=64T|0:70368744177664:0|0"
	"overflow|x-growth-max=18446744073709551615,x-growth-increment=1G|0:0:0|1"
)

scenario() {
	if ! qemu_has_nvme_hints; then
		h_skip "nvme" "$GH_QEMU has no growth hint properties on nvme-ns"
		return
	fi
	local c name props expect lines
	vm boot --test nvme \
		--append "gh.disks=n0:$((10 * G)):512:$G:$((64 * T)):$G,n1:$((12 * G)):4096:$((3 * G)):$((48 * T)):$((3 << 20)),n2:$((10 * G)):512:0:0:0 gh.new=$((2 * G)):$((32 * T)):$((2 * G)) gh.grow=$((20 * G)):$((2 * G)):$((64 * T)):$((2 * G)) gh.idns=1" \
		--disk "nvme:size=10G:serial=n0:props=$(hint_props 1G 64T 1G),x-resizable=on" \
		--disk "nvme-ns:size=12G:serial=n1:props=$(hint_props 3G 48T 3M),x-resizable=on,logical_block_size=4096,physical_block_size=4096" \
		--disk "nvme:size=10G:serial=n2"
	vm_results ""

	# Each step reaches the two controllers as two events, two rescans; the multipath disk
	# takes the hints of the path rescanned last, as it takes its capacity.
	local mp="$GH_WORK/multipath/mp0.img"
	mkdir -p "$GH_WORK/multipath"
	truncate -s 10G "$mp"
	NVME_IDS=mp0 vm multipath --test nvme \
		--append "nvme_core.iopolicy=round-robin gh.disks=m0:$((10 * G)):512:$G:$((64 * T)):$G gh.paths=2 gh.new=$((2 * G)):$((32 * T)):$((2 * G)) gh.grow=$((20 * G)):$((2 * G)):$((64 * T)):$((2 * G))" \
		--qemu-arg -drive --qemu-arg "file=$mp,format=raw,if=none,id=drv-mp0" \
		--qemu-arg -device --qemu-arg nvme-subsys,id=subsys0,nqn=gh-multipath \
		--qemu-arg -device --qemu-arg nvme,id=c0,serial=m0,subsys=subsys0 \
		--qemu-arg -device --qemu-arg nvme,id=c1,serial=m0,subsys=subsys0 \
		--qemu-arg -device --qemu-arg "nvme-ns,bus=c0,drive=drv-mp0,nsid=1,id=mp0,x-resizable=on,$(hint_props 1G 64T 1G)"
	vm_results "multipath"

	# Shrink under I/O, on a raw image and on a qcow2 image, whose shrink frees clusters and
	# so yields while the drive is drained: a write the host submits then was checked against
	# the old NSZE and waits in the block layer; it fails there ("aio failed" on QEMU's
	# stderr) instead of growing the image back.
	local fmt img size qimg
	qimg="$(dirname "$GH_QEMU")/qemu-img"
	for fmt in raw qcow2; do
		img="$GH_WORK/shrink-$fmt/shr.img"
		mkdir -p "$GH_WORK/shrink-$fmt"
		if [ $fmt = qcow2 ] && ! "$qimg" create -q -f qcow2 "$img" "$SHRINK_OLD"; then
			h_skip "shrink-$fmt" "cannot create a qcow2 image with $qimg"
			continue
		fi
		[ $fmt = qcow2 ] || truncate -s "$SHRINK_OLD" "$img"
		vm "shrink-$fmt" --test nvme-shrink \
			--append "gh.disk=shr gh.old=$SHRINK_OLD gh.new=$SHRINK_NEW" \
			--qemu-arg -drive --qemu-arg "file=$img,format=$fmt,if=none,id=drv-shr" \
			--qemu-arg -device --qemu-arg nvme,id=nvc-shr,serial=shr \
			--qemu-arg -device --qemu-arg "nvme-ns,bus=nvc-shr,drive=drv-shr,id=shr,x-resizable=on,$(hint_props 0 1G 0)"
		vm_results "shrink-$fmt"
		size=$("$qimg" info -U --output=json "$img" 2>/dev/null |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["virtual-size"])' 2>/dev/null || echo none)
		h_eq "shrink-$fmt: the image has the new size after the I/O" "$size" "$SHRINK_NEW"
		h_diag "shrink-$fmt: writes that failed in QEMU's block layer after waiting out the shrink:" \
			"$(grep -c 'aio failed' "$GH_WORK/shrink-$fmt/qemu.log" 2>/dev/null || true)"
	done

	for c in "${hostile[@]}"; do
		IFS='|' read -r name props expect lines <<< "$c"
		vm "hostile-$name" --test hostile \
			--append "gh.dev=h0 gh.expect=$expect gh.lines=$lines" \
			--disk "nvme:size=10G:serial=h0:props=x-resizable=on,x-growth-hints=on,x-growth-hints-unchecked=on,$props"
		vm_results "hostile $name"
	done
}

h_main "$@"
