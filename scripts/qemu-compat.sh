#!/usr/bin/env bash
# What the QEMU series must not change, checked against QEMU built from the unpatched base
# (the same version, the same configuration; build/base/build/qemu-obj, built on first use
# in the same layout as build/ so that ccache serves the files the series does not touch):
#   1. a migration stream of the same command line, without hints, carries the same device
#      state and the same description of it (QEMU's scripts/analyze-migration.py, every
#      section but the RAM pages, whose split into iterations depends on timing);
#   2. the switch x-growth-hints=on adds one subsection per device to the stream
#      (virtio-blk-device/growth-hints, scsi-disk/growth-hints), with the hints of the
#      command line and after a run-time change;
#   3. a vduse-blk export creates a configuration space of the unpatched size (the export
#      runs under scripts/vduse-shim.c, as this machine has no VDUSE module).
# Output: KTAP version 1.  Exit status: 0 if all passed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="$top/build/qemu-obj"
base="$top/build/base"
bobj="$base/build/qemu-obj"
tree="$top/build/qemu"
qmp_py="$top/selftests/lib/qmp.py"

[ -f "$obj/build.ninja" ] || die "no QEMU build in $obj: run scripts/build-qemu.sh first"
[ -d "$tree/.git" ] || die "no tree at $tree: run 'make qemu-tree' first"
base_checkout "$tree" "$base/build/qemu"
info "building the unpatched QEMU in $bobj (the first time takes a few minutes)"
GH_CCACHE_BASEDIR="$base" GH_QEMU_SRC="$base/build/qemu" GH_QEMU_OBJ="$bobj" \
	bash "$top/scripts/build-qemu.sh" >&2
for o in "$obj" "$bobj"; do
	(build_lock && ninja -C "$o" qemu-system-x86_64 storage-daemon/qemu-storage-daemon) \
		>"$o/compat-build.log" 2>&1 ||
		{ grep -E 'error|FAILED' "$o/compat-build.log" | first_lines 30 >&2
		  die "build failed; see $o/compat-build.log"; }
done

tmp=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0 failed=0
result() { # result OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}

# stream OBJ FILE [QMP-COMMAND ARGS]...: start QEMU from OBJ (stopped, a fixed clock), run
# the QMP commands given as pairs, migrate to FILE, quit.  The devices are in $devices.
stream() {
	local o=$1 file=$2 sock="$tmp/qmp.sock" status="" i pid
	shift 2
	rm -f "$sock" "$file"
	"$o/qemu-system-x86_64" "${qemu_firmware[@]}" \
		-M pc -nodefaults -S -m 32 -display none -rtc base=2020-01-01T00:00:00,clock=vm \
		-qmp "unix:$sock,server=on,wait=off" "${devices[@]}" >"$file.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	while [ $# -ge 2 ]; do
		python3 "$qmp_py" "$sock" "$1" "$2" >>"$file.log" 2>&1 || return 1
		shift 2
	done
	# No bandwidth or downtime limit: the stopped guest's RAM goes in as few passes as it can.
	python3 "$qmp_py" "$sock" migrate-set-parameters \
		'{"downtime-limit": 2000000, "max-bandwidth": 1099511627776}' >>"$file.log" 2>&1 || return 1
	python3 "$qmp_py" "$sock" migrate "{\"uri\": \"file:$file\"}" >>"$file.log" 2>&1 || return 1
	for i in $(seq 300); do
		status=$(python3 "$qmp_py" "$sock" query-migrate |
			python3 -c 'import json, sys; print(json.load(sys.stdin).get("status", ""))')
		case "$status" in completed | failed) break ;; esac
		sleep 0.05
	done
	python3 "$qmp_py" "$sock" quit >/dev/null 2>&1 || true
	wait "$pid" || true
	[ "$status" = completed ] || { echo "migration $status after $i polls" >>"$file.log"; return 1; }
}

# has_subsection FILE NAME: the stream in FILE carries the subsection NAME.
has_subsection() { LC_ALL=C grep -c -a -F "$2" "$1" >/dev/null; }

echo "KTAP version 1"
echo "1..4"

# 1. Same command line, no hints: the patched QEMU writes the unpatched device state and
# description (the unpatched tree's analyze-migration.py reads both streams).
# shellcheck disable=SC2054 # commas separate QEMU options, not array elements
devices=(-blockdev null-co,node-name=d0,size=1073741824 -device virtio-blk-pci,drive=d0,id=vd0
	-device virtio-scsi-pci -blockdev null-co,node-name=d1,size=1073741824
	-device scsi-hd,drive=d1,id=sd0)
rc=0
analyze="$base/build/qemu/scripts/analyze-migration.py"
: > "$tmp/cmp.log"
if stream "$bobj" "$tmp/base.mig" && stream "$obj" "$tmp/series.mig"; then
	for dump in state desc; do
		for v in base series; do
			python3 "$analyze" -d "$dump" -f "$tmp/$v.mig" >"$tmp/$v.$dump" 2>>"$tmp/cmp.log" ||
				{ echo "analyze-migration.py -d $dump failed on the $v stream" >>"$tmp/cmp.log"; rc=1; }
		done
		diff -u "$tmp/base.$dump" "$tmp/series.$dump" >>"$tmp/cmp.log" 2>&1 || rc=1
	done
else
	rc=1
fi
[ "$rc" = 0 ] || { first_lines 40 < "$tmp/cmp.log"; cat "$tmp"/*.mig.log; } | sed 's/^/# /'
result "$rc" "stream without hints: device state and description as unpatched QEMU's ($(grep -c '^    "' "$tmp/base.state" 2>/dev/null || echo 0) sections)"

# 2. The switch on: one subsection per device, before and after a run-time change.
# shellcheck disable=SC2054
devices=(-blockdev null-co,node-name=d0,size=1073741824
	-device virtio-blk-pci,drive=d0,id=vd0,x-growth-hints=on,x-growth-min=1G,x-growth-max=64T,x-growth-increment=1G
	-device virtio-scsi-pci -blockdev null-co,node-name=d1,size=1073741824
	-device scsi-hd,drive=d1,id=sd0,x-growth-hints=on,x-growth-min=1G,x-growth-max=64T,x-growth-increment=1G)
rc=0
stream "$obj" "$tmp/hints.mig" || rc=$?
for s in virtio-blk-device/growth-hints scsi-disk/growth-hints; do
	if ! has_subsection "$tmp/hints.mig" "$s"; then echo "# $s missing with x-growth-hints=on"; rc=1; fi
done
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/hints.mig.log"
result "$rc" "x-growth-hints=on adds virtio-blk-device/growth-hints and scsi-disk/growth-hints"
rc=0
set='{"min": 0, "max": 140737488355328, "increment": 1073741824'
stream "$obj" "$tmp/changed.mig" block-set-growth-hints "$set, \"id\": \"vd0\"}" \
	block-set-growth-hints "$set, \"id\": \"sd0\"}" || rc=$?
for s in virtio-blk-device/growth-hints scsi-disk/growth-hints; do
	if ! has_subsection "$tmp/changed.mig" "$s"; then echo "# $s missing after a run-time change"; rc=1; fi
done
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/changed.mig.log"
result "$rc" "after a run-time change: virtio-blk-device/growth-hints and scsi-disk/growth-hints"

# 3. vduse-blk: the configuration space of an export keeps its size.
cc -shared -fPIC -O2 -Wall -o "$tmp/vduse-shim.so" "$top/scripts/vduse-shim.c" -ldl
sizes=()
for o in "$bobj" "$obj"; do
	LD_PRELOAD="$tmp/vduse-shim.so" timeout 30 "$o/storage-daemon/qemu-storage-daemon" \
		--blockdev null-co,node-name=n0,size=1073741824 \
		--export vduse-blk,id=e0,node-name=n0,name=vduse-compat,writable=on >"$tmp/vduse.log" 2>&1 || true
	sizes+=("$(sed -n 's/^vduse-shim: config_size=\([0-9]*\).*/\1/p' "$tmp/vduse.log")")
	sed 's/^/# /' "$tmp/vduse.log"
done
rc=0
if [ -z "${sizes[0]}" ] || [ "${sizes[0]}" != "${sizes[1]}" ]; then
	echo "# vduse-blk configuration space: unpatched ${sizes[0]:-?} bytes, series ${sizes[1]:-?} bytes"
	rc=1
fi
result "$rc" "vduse-blk export configuration space as unpatched (${sizes[1]:-?} bytes)"
exit "$failed"
