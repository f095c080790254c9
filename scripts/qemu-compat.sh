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
#      runs under scripts/vduse-shim.c, as this machine has no VDUSE module);
#   4. a vduse-blk export with growth-hints (under the shim's run mode): the feature bit and
#      the three fields, block-export-set-growth-hints writes them once with one
#      configuration interrupt, refused and unchanged values write nothing, and an export
#      without growth-hints refuses the command.
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
echo "1..5"

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
# 4. vduse-blk with growth-hints: the shim creates the device and logs what libvduse writes.
# le64 HEX: a 64-bit number as the little-endian hex bytes the shim prints.
le64() { python3 -c 'import sys; print(int(sys.argv[1]).to_bytes(8, "little").hex())' "$1"; }
# growth_bit LINE: bit 20 (VIRTIO_BLK_F_GROWTH) of features= in a config_size= line.
growth_bit() {
	local f=${1#*features=}
	echo $(((${f%% *} >> 20) & 1))
}
# vduse_log_wait PATTERN: wait up to 30 s for a line of the daemon's log.
vduse_log_wait() {
	local i
	for i in $(seq 300); do
		grep -q -- "$1" "$tmp/vduse-run.log" && return 0
		sleep 0.1
	done
	return 1
}
qsd_sock="$tmp/qsd.sock"
G=$((1 << 30)) T=$((1 << 40))
VDUSE_SHIM_RUN=1 LD_PRELOAD="$tmp/vduse-shim.so" "$obj/storage-daemon/qemu-storage-daemon" \
	--blockdev null-co,node-name=n0,size=$((10 * G)) --blockdev null-co,node-name=n1,size=$((10 * G)) \
	--export "vduse-blk,id=e0,node-name=n0,name=vduse-gh0,writable=on,growth-hints.min=$G,growth-hints.max=$((16 * T)),growth-hints.increment=$G" \
	--export vduse-blk,id=e1,node-name=n1,name=vduse-gh1,writable=on \
	--chardev "socket,id=m0,path=$qsd_sock,server=on,wait=off" --monitor chardev=m0 \
	>"$tmp/vduse-run.log" 2>&1 &
pids+=($!)
rc=0
# set_config lines of the export of n0, that is all of them
sets() { grep -c '^vduse-shim: set_config' "$tmp/vduse-run.log" || true; }
# The daemon creates the exports before its monitor: once QMP answers, both exist.
if ! python3 "$qmp_py" "$qsd_sock" query-block-exports >/dev/null 2>&1; then
	echo "# the daemon did not start"
	rc=1
else
	mapfile -t created < <(grep '^vduse-shim: config_size=' "$tmp/vduse-run.log")
	want="config_size=120 .* tail=$(le64 $((G / 512)))$(le64 $((16 * T / 512)))$(le64 $((G / 512)))"
	if ! [[ ${created[0]} =~ $want ]]; then
		echo "# with growth-hints: '${created[0]}', want '$want'"; rc=1
	fi
	if [ "$(growth_bit "${created[0]}")" != 1 ]; then
		echo "# with growth-hints: VIRTIO_BLK_F_GROWTH (bit 20) not offered"; rc=1
	fi
	if ! [[ ${created[1]} =~ config_size=96\  ]] ||
		[ "$(growth_bit "${created[1]}")" != 0 ]; then
		echo "# without growth-hints: '${created[1]}', want config_size=96 without bit 20"; rc=1
	fi
	got=$(python3 "$qmp_py" "$qsd_sock" query-block-exports | python3 -c '
import json, sys
print(" ".join("%s:%s" % (e["id"], "none" if "growth-hints" not in e else
      "%d,%d,%d" % tuple(e["growth-hints"][k] for k in ("min", "max", "increment")))
      for e in sorted(json.load(sys.stdin), key=lambda e: e["id"])))')
	if [ "$got" != "e0:$G,$((16 * T)),$G e1:none" ]; then
		echo "# query-block-exports: '$got'"; rc=1
	fi
	set_e() { { python3 "$qmp_py" "$qsd_sock" block-export-set-growth-hints \
		"{\"id\": \"$1\", \"min\": $2, \"max\": $3, \"increment\": $4}" >/dev/null; } 2>&1; }
	set_e e0 0 $((32 * T)) $((2 * G)) || { echo "# block-export-set-growth-hints failed"; rc=1; }
	if ! vduse_log_wait config_irq; then
		echo "# no configuration interrupt after block-export-set-growth-hints"; rc=1
	fi
	want="set_config offset=96 length=24 data=$(le64 0)$(le64 $((32 * T / 512)))$(le64 $((2 * G / 512)))"
	grep -q "$want" "$tmp/vduse-run.log" || { echo "# no '$want'"; rc=1; }
	nsets=$(sets)
	err=$(set_e e0 0 $((8 * G)) 0) && { echo "# a maximum below the size was accepted"; rc=1; }
	case "$err" in *"smaller than the disk size"*) ;; *) echo "# refused with: '$err'"; rc=1 ;; esac
	set_e e0 0 $((32 * T)) $((2 * G)) || { echo "# setting the current values failed"; rc=1; }
	err=$(set_e e1 0 $((16 * T)) 0) && { echo "# the export without growth-hints accepted the command"; rc=1; }
	case "$err" in *"created without growth-hints"*) ;; *) echo "# e1 refused with: '$err'"; rc=1 ;; esac
	if [ "$(sets)" != "$nsets" ] || [ "$(grep -c '^vduse-shim: config_irq' "$tmp/vduse-run.log")" != 1 ]; then
		echo "# refused or unchanged values wrote the configuration space"; rc=1
	fi
fi
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/vduse-run.log"
result "$rc" "vduse-blk export with growth-hints: feature, fields, one change with one interrupt, refusals"
exit "$failed"
