#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: live migration of a VM whose hints were changed at run time
# Two QEMU processes on shared disk images; the source starts with hints, the destination
# with the switch alone (x-growth-hints=on, no values) and -incoming: the changed values
# must travel with the device state.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

ids=(vd0 sd0)
old=($((1 << 30)) $((16 << 40)) $((1 << 30)))
new=($((2 << 30)) $((32 << 40)) $((2 << 30)))

on_wait_change() {
	local id
	for id in "${ids[@]}"; do
		set_hints "$id" "${new[@]}" || return 1
	done
}

# On the source: migrate, hand the guest over to the destination, stop the source.
on_wait_migrate() {
	local status="" i err
	err=$(qmp migrate "{\"uri\": \"$GH_MIG_URI\"}" 2>&1 >/dev/null) || { echo "migrate: $err"; return 1; }
	for i in $(seq 1200); do
		status=$(qmp query-migrate | python3 -c 'import json, sys; print(json.load(sys.stdin).get("status", ""))')
		case "$status" in completed | failed | cancelled) break ;; esac
		sleep 0.1
	done
	[ "$status" = completed ] || { echo "migration $status after $((i / 10)) s"; return 1; }
	# shellcheck disable=SC2016 # $1 belongs to the inner shell
	timeout 10 bash -c 'printf "GH-GO migrate ok\n" > "$1"' _ "$GH_DST_CTL" ||
		{ echo "cannot reach the destination's console channel"; return 1; }
	qmp quit >/dev/null 2>&1 || true
	echo "-"
}

# On the destination: grow the disks.  The guest checks that it still sees the changed
# values after the migration.
on_wait_grow() {
	local id err
	for id in "${ids[@]}"; do
		err=$(qmp block_resize "{\"device\": \"drv-$id\", \"size\": $1}" 2>&1 >/dev/null) ||
			{ echo "block_resize $id: $err"; return 1; }
	done
}

scenario() {
	if ! qemu_has_hints; then
		h_skip "migration" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	local src dst props append disks ddisks dpid
	src=$(mktemp -d "${TMPDIR:-/tmp}/gh-src.XXXXXX")
	dst=$(mktemp -d "${TMPDIR:-/tmp}/gh-dst.XXXXXX")
	truncate -s 10G "$GH_WORK/vd0.img" "$GH_WORK/sd0.img"
	props=$(hint_props "${old[@]}")
	disks=(--disk "virtio:file=$GH_WORK/vd0.img:props=$props" --disk "scsi:file=$GH_WORK/sd0.img:props=$props")
	ddisks=(--disk "virtio:file=$GH_WORK/vd0.img:props=x-growth-hints=on"
		--disk "scsi:file=$GH_WORK/sd0.img:props=x-growth-hints=on")
	append="gh.disks=vd0,sd0 gh.old=$(IFS=:; echo "${old[*]}") gh.new=$(IFS=:; echo "${new[*]}") gh.grow=$((12 << 30))"
	export GH_MIG_URI="unix:$dst/migrate.sock" GH_DST_CTL="$dst/ctl.in"
	vm destination --sockdir "$dst" --incoming "$GH_MIG_URI" --test migration --append "$append" "${ddisks[@]}" &
	dpid=$!
	vm source --sockdir "$src" --test migration --append "$append" "${disks[@]}"
	wait "$dpid" || true
	cat "$GH_WORK/source/console.log" "$GH_WORK/destination/console.log" > "$GH_WORK/console.log"
	vm_results "" "$GH_WORK/console.log"
	rm -rf "$src" "$dst" "$GH_WORK/vd0.img" "$GH_WORK/sd0.img"
}

h_main "$@"
