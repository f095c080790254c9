#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_*, cleanup and scenario are called indirectly
# Scenario: a disk served by qemu-storage-daemon over vhost-user-blk: the export's hints
# (growth-hints.*) reach the guest through QEMU's vhost-user-blk-pci, and a run-time change
# on the daemon (QMP block-export-set-growth-hints) reaches it with a GROWTH_HINTS=1 uevent,
# as with the built-in virtio-blk.  On the daemon: query-block-exports reads the values back,
# values that break a rule or do not hold the size are refused with the reason and change
# nothing, and an export without growth-hints refuses the command.  Then x-growth-hints=on
# against a back end that predates the feature (Debian's qemu-storage-daemon, GH_OLD_QSD), which
# answers GET_CONFIG only for its own, shorter configuration space: the VM starts, and the
# guest is offered no feature and reads 0 0 0.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

export GH_QSD="${GH_QSD:-$(dirname "$GH_QEMU")/qemu-storage-daemon}"
qsd_qmp="$GH_WORK/qsd-qmp.sock"
qsd_pid=""
# The guest reads vhost-user-blk's serial from the daemon, which names every export so.
serial=vhost_user_blk

# export_set ID MIN MAX INC: block-export-set-growth-hints on the daemon; prints why not.
export_set() {
	local err
	err=$(qmp_at "$qsd_qmp" block-export-set-growth-hints \
		"{\"id\": \"$1\", \"min\": $2, \"max\": $3, \"increment\": $4}" 2>&1 >/dev/null) ||
		{ echo "block-export-set-growth-hints $*: $err"; return 1; }
}
# export_hints ID: "min max increment" of export ID from query-block-exports, or "none".
export_hints() {
	qmp_at "$qsd_qmp" query-block-exports | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["id"] == sys.argv[1]:
        g = e.get("growth-hints")
        print("none" if g is None else "%d %d %d" % (g["min"], g["max"], g["increment"]))' "$1"
}

on_wait_change() { export_set e0 $((2 << 30)) $((32 << 40)) $((2 << 30)); }
on_wait_freeze() { export_set e0 0 $((10 << 30)) $((1 << 30)); }

old_qsd="${GH_OLD_QSD:-/usr/bin/qemu-storage-daemon}"
old_pid=""

cleanup() {
	[ -z "$qsd_pid" ] || kill "$qsd_pid" 2>/dev/null || true
	[ -z "$old_pid" ] || kill "$old_pid" 2>/dev/null || true
}

# old_backend: x-growth-hints=on offers the feature only when the back end has it.  A back end
# that predates it fails GET_CONFIG for the longer configuration space (v4 of the series did
# not start: "Received bad msg size"); the device must size it for the back end's features.
old_backend() {
	local img="$GH_WORK/old.img" sock="$GH_WORK/vu-old.sock" out
	if [ ! -x "$old_qsd" ]; then
		h_skip "old back end" "no $old_qsd (Debian's qemu-storage-daemon, older than the series)"
		return
	fi
	out=$("$old_qsd" --blockdev null-co,node-name=n0 --export \
		vhost-user-blk,id=p,node-name=n0,addr.type=unix,addr.path=/nonexistent/x,growth-hints.max=1 2>&1) || true
	case "$out" in
	*"Parameter 'growth-hints' is unexpected"*) ;;
	*)
		h_skip "old back end" "$old_qsd knows growth-hints: not a back end that predates the feature"
		return
		;;
	esac
	truncate -s 4G "$img"
	"$old_qsd" --blockdev "file,node-name=o0,filename=$img" \
		--export "vhost-user-blk,id=eo,node-name=o0,writable=on,addr.type=unix,addr.path=$sock" \
		>"$GH_WORK/qsd-old.log" 2>&1 &
	old_pid=$!
	local i
	for i in $(seq 50); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	vm old-backend --test no-hints --memory 512M --append "gh.disks=$serial" \
		--qemu-arg -object --qemu-arg memory-backend-memfd,id=mem,size=512M,share=on \
		--qemu-arg -machine --qemu-arg memory-backend=mem \
		--qemu-arg -chardev --qemu-arg "socket,id=vuo,path=$sock" \
		--qemu-arg -device --qemu-arg vhost-user-blk-pci,chardev=vuo,x-growth-hints=on
	vm_results "old back end:"
	kill "$old_pid" 2>/dev/null || true
	wait "$old_pid" 2>/dev/null || true
	old_pid=""
}

# qsd_supports: the daemon has vhost-user-blk exports with growth-hints, and QEMU the front end.
qsd_supports() {
	[ -x "$GH_QSD" ] || { echo "no qemu-storage-daemon at $GH_QSD"; return 1; }
	"$GH_QEMU" -device help 2>/dev/null | matches '"vhost-user-blk-pci"' ||
		{ echo "$GH_QEMU has no vhost-user-blk-pci"; return 1; }
	"$GH_QEMU" -device vhost-user-blk-pci,help 2>/dev/null | matches 'x-growth-hints=' ||
		{ echo "$GH_QEMU: vhost-user-blk-pci has no x-growth-hints"; return 1; }
	local out
	out=$("$GH_QSD" --blockdev null-co,node-name=n0 --export \
		vhost-user-blk,id=p,node-name=n0,addr.type=unix,addr.path=/nonexistent/x,growth-hints.max=1 2>&1) || true
	case "$out" in
	*"Parameter 'growth-hints' is unexpected"*)
		echo "$GH_QSD: vhost-user-blk exports have no growth-hints"
		return 1
		;;
	esac
}

scenario() {
	local why img="$GH_WORK/vu0.img" img1="$GH_WORK/vu1.img"
	trap cleanup EXIT
	if ! "$GH_QEMU" -device vhost-user-blk-pci,help 2>/dev/null | matches 'x-growth-hints='; then
		h_skip "vhost-user" "$GH_QEMU: vhost-user-blk-pci has no x-growth-hints"
		return
	fi
	old_backend
	if ! why=$(qsd_supports); then
		h_skip "vhost-user" "$why"
		return
	fi
	truncate -s 10G "$img" "$img1"
	rm -f "$qsd_qmp"
	"$GH_QSD" \
		--blockdev "file,node-name=f0,filename=$img" \
		--blockdev "file,node-name=f1,filename=$img1" \
		--export "vhost-user-blk,id=e0,node-name=f0,writable=on,addr.type=unix,addr.path=$GH_WORK/vu0.sock,growth-hints.min=$((1 << 30)),growth-hints.max=$((16 << 40)),growth-hints.increment=$((1 << 30))" \
		--export "vhost-user-blk,id=e1,node-name=f1,writable=on,addr.type=unix,addr.path=$GH_WORK/vu1.sock" \
		--chardev "socket,id=m0,path=$qsd_qmp,server=on,wait=off" --monitor chardev=m0 \
		>"$GH_WORK/qsd.log" 2>&1 &
	qsd_pid=$!

	# The daemon: read-back, refusals that change nothing, an export without hints.
	h_eq "daemon: query-block-exports reads back the export option" \
		"$(export_hints e0)" "$((1 << 30)) $((16 << 40)) $((1 << 30))"
	h_eq "daemon: an export without growth-hints reports none" "$(export_hints e1)" "none"
	local err
	err=$(export_set e0 $((20 << 30)) $((16 << 30)) 0 || true)
	case "$err" in
	*"must not be larger than the maximum"*) h_ok "daemon: a minimum above the maximum is refused with the reason" ;;
	*) h_diag "got: ${err:-success}"; h_fail "daemon: a minimum above the maximum is refused with the reason" ;;
	esac
	err=$(export_set e0 0 $((8 << 30)) 0 || true)
	case "$err" in
	*"smaller than the disk size"*) h_ok "daemon: a maximum below the size is refused with the reason" ;;
	*) h_diag "got: ${err:-success}"; h_fail "daemon: a maximum below the size is refused with the reason" ;;
	esac
	err=$(export_set e0 0 $((16 << 40)) 1000 || true)
	case "$err" in
	*"multiple of the logical block size"*) h_ok "daemon: an increment that is not a multiple of the block size is refused" ;;
	*) h_diag "got: ${err:-success}"; h_fail "daemon: an increment that is not a multiple of the block size is refused" ;;
	esac
	h_eq "daemon: refused values change nothing" \
		"$(export_hints e0)" "$((1 << 30)) $((16 << 40)) $((1 << 30))"
	err=$(export_set e1 0 $((16 << 40)) 0 || true)
	case "$err" in
	*"created without growth-hints"*) h_ok "daemon: an export without growth-hints refuses the command" ;;
	*) h_diag "got: ${err:-success}"; h_fail "daemon: an export without growth-hints refuses the command" ;;
	esac

	# The guest: the export's hints, then two run-time changes on the daemon.  vhost-user
	# needs the guest RAM shared with the daemon.
	vm boot --test runtime-change --memory 512M \
		--append "gh.disks=$serial gh.old=$((1 << 30)):$((16 << 40)):$((1 << 30)) gh.new=$((2 << 30)):$((32 << 40)):$((2 << 30)) gh.freeze=0:$((10 << 30)):$((1 << 30))" \
		--qemu-arg -object --qemu-arg memory-backend-memfd,id=mem,size=512M,share=on \
		--qemu-arg -machine --qemu-arg memory-backend=mem \
		--qemu-arg -chardev --qemu-arg "socket,id=vu0,path=$GH_WORK/vu0.sock" \
		--qemu-arg -device --qemu-arg vhost-user-blk-pci,chardev=vu0,x-growth-hints=on
	vm_results ""
	h_eq "daemon: query-block-exports has the last values" \
		"$(export_hints e0)" "0 $((10 << 30)) $((1 << 30))"
	if ! kill -0 "$qsd_pid" 2>/dev/null; then
		h_diag "qemu-storage-daemon exited:"
		sed 's/^/#   /' "$GH_WORK/qsd.log"
		h_fail "daemon still running"
	fi
}

h_main "$@"
