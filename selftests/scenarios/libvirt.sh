#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# Scenario: libvirt sets and changes the hints: a virtqemud of the libvirt series, started in
# a private directory, runs a TCG domain with a hinted virtio and scsi disk (<growth_hints>);
# the guest reads them, "virsh update-device --live" changes them (guest: new values and
# uevent; host: dumpxml), bad values are refused and change nothing, a change made behind
# libvirt's back (GROWTH_HINTS_CHANGED) reaches dumpxml, "virsh event" sees one
# growth-hints-change per change, IDE and USB disks are refused.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

lv_obj=${GH_LIBVIRT_OBJ:-$top/build/libvirt-obj}
# The build's compiled-in prefix (scripts/build-libvirt.sh): configuration, state and
# sockets of this daemon live there and nowhere else.
lv_prefix="$top/build/out/libvirt"
lv_sock="$lv_prefix/run/libvirt/virtqemud-sock"
dom=gh-libvirt
G=$((1 << 30)) T=$((1 << 40))
results="$GH_WORK/host.results"

virsh() { "$lv_obj/tools/virsh" -q -c "qemu:///system?socket=$lv_sock" "$@"; }

# rec NAME ok|fail [DIAG]: a host result, kept in a file because the on_wait handlers run in
# their own processes; printed after the guest's.
rec() {
	[ -z "${3:-}" ] || printf '# %s: %s\n' "$1" "$3" >> "$results"
	if [ "$2" = ok ]; then echo "ok $1" >> "$results"; else echo "not ok $1" >> "$results"; fi
}
rec_eq() { if [ "$2" = "$3" ]; then rec "$1" ok; else rec "$1" fail "got '$2', want '$3'"; fi; }

# hints_xml DEV: "MIN MAX INC" of disk DEV in the live XML (0 for what is not written).
hints_xml() {
	local x v r=()
	x=$(virsh dumpxml "$dom")
	for v in min max increment; do
		v=$(printf '%s' "$x" | xmllint --xpath "string(//disk[target/@dev='$1']/growth_hints/$v)" - 2>/dev/null)
		r+=("${v:-0}")
	done
	echo "${r[*]}"
}

# disk_xml DEV BUS SERIAL MIN MAX INC: the <disk> of the domain, with <growth_hints>.
disk_xml() {
	local img="$GH_WORK/$3.img" addr=""
	[ "$2" != scsi ] || addr="<address type='drive' controller='0' bus='0' target='0' unit='0'/>"
	cat <<-EOF
	<disk type='file' device='disk'>
	  <driver name='qemu' type='raw'/>
	  <source file='$img'/>
	  <growth_hints>
	    <min>$4</min>
	    <max>$5</max>
	    <increment>$6</increment>
	  </growth_hints>
	  <target dev='$1' bus='$2'/>
	  <serial>$3</serial>
	  $addr
	</disk>
	EOF
}

# update DEV BUS SERIAL MIN MAX INC: virsh update-device --live; prints virsh's errors.
update() {
	disk_xml "$@" > "$GH_WORK/update-$1.xml"
	{ virsh update-device "$dom" "$GH_WORK/update-$1.xml" --live >/dev/null; } 2>&1
}

# qmp_hints ID: "MIN MAX INC" that QEMU has for device ID (query-growth-hints).
qmp_hints() {
	virsh qemu-monitor-command "$dom" \
		"{\"execute\": \"query-growth-hints\", \"arguments\": {\"id\": \"$1\"}}" |
		python3 -c 'import json, sys; h = json.load(sys.stdin)["return"][0]; print(h["min"], h["max"], h["increment"])'
}

on_wait_change() {
	local err
	err=$(update vda virtio vd0 $((2 * G)) $((32 * T)) $((2 * G))) || { echo "vda: $err"; return 1; }
	err=$(update sda scsi sd0 $((2 * G)) $((32 * T)) $((2 * G))) || { echo "sda: $err"; return 1; }
	rec_eq "update-device: dumpxml shows the new values of vda" "$(hints_xml vda)" "$((2 * G)) $((32 * T)) $((2 * G))"
	rec_eq "update-device: dumpxml shows the new values of sda" "$(hints_xml sda)" "$((2 * G)) $((32 * T)) $((2 * G))"
	# refused by libvirt (min > max): the error names the rule, QEMU and the XML keep the values
	if err=$(update vda virtio vd0 $((64 * T)) $((32 * T)) $((2 * G))); then
		rec "update-device with min > max refused" fail "it was accepted"
	elif [[ $err == *"must not be larger than the maximum"* ]]; then
		rec "update-device with min > max refused" ok
	else
		rec "update-device with min > max refused" fail "unexpected message: $err"
	fi
	# refused by QEMU (the maximum is below the disk size of 10 GiB)
	if err=$(update vda virtio vd0 0 $((4 * G)) 0); then
		rec "update-device below the disk size refused" fail "it was accepted"
	elif [[ $err == *"smaller than the disk size"* ]]; then
		rec "update-device below the disk size refused" ok
	else
		rec "update-device below the disk size refused" fail "unexpected message: $err"
	fi
	rec_eq "refused updates: QEMU keeps the values" "$(qmp_hints virtio-disk0)" "$((2 * G)) $((32 * T)) $((2 * G))"
	rec_eq "refused updates: dumpxml keeps the values" "$(hints_xml vda)" "$((2 * G)) $((32 * T)) $((2 * G))"
}

# Behind libvirt's back: block-set-growth-hints through qemu-monitor-command.  libvirt learns
# the values from GROWTH_HINTS_CHANGED.
on_wait_freeze() {
	local id out
	for id in virtio-disk0 scsi0-0-0-0; do
		out=$(virsh qemu-monitor-command "$dom" \
			"{\"execute\": \"block-set-growth-hints\", \"arguments\": {\"id\": \"$id\", \"min\": 0, \"max\": $((10 * G)), \"increment\": $G}}" 2>&1) ||
			{ echo "$id: $out"; return 1; }
	done
	local n=0
	while [ "$(hints_xml sda)" != "0 $((10 * G)) $G" ] && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	rec_eq "GROWTH_HINTS_CHANGED: dumpxml follows QEMU (vda)" "$(hints_xml vda)" "0 $((10 * G)) $G"
	rec_eq "GROWTH_HINTS_CHANGED: dumpxml follows QEMU (sda)" "$(hints_xml sda)" "0 $((10 * G)) $G"
}

# domain_xml NAME DISK...: a TCG domain booting the test kernel with these <disk>s.
domain_xml() {
	local name=$1
	shift
	cat <<-EOF
	<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
	  <name>$name</name>
	  <memory unit='MiB'>512</memory>
	  <vcpu>1</vcpu>
	  <os>
	    <type arch='x86_64' machine='pc'>hvm</type>
	    <kernel>$GH_KERNEL</kernel>
	    <initrd>$GH_INITRD</initrd>
	    <cmdline>$cmdline</cmdline>
	  </os>
	  <on_poweroff>destroy</on_poweroff>
	  <on_reboot>destroy</on_reboot>
	  <on_crash>destroy</on_crash>
	  <devices>
	    <emulator>$GH_QEMU</emulator>
	    $*
	    <controller type='scsi' index='0' model='virtio-scsi'/>
	    <serial type='file'>
	      <source path='$GH_WORK/vm/console.log'/>
	      <target port='0'/>
	    </serial>
	    <serial type='pipe'>
	      <source path='$GH_WORK/vm/ctl'/>
	      <target port='1'/>
	    </serial>
	    <memballoon model='none'/>
	  </devices>
	  <qemu:commandline>
	    <qemu:arg value='-L'/>
	    <qemu:arg value='/usr/share/seabios'/>
	    <qemu:arg value='-L'/>
	    <qemu:arg value='/usr/share/qemu'/>
	  </qemu:commandline>
	</domain>
	EOF
}

daemon_start() {
	rm -rf "$lv_prefix"
	mkdir -p "$lv_prefix/etc/libvirt" "$lv_prefix/run" "$lv_prefix/var"
	# root without cgroups, namespaces, security drivers or virtlogd: a private test daemon
	cat > "$lv_prefix/etc/libvirt/qemu.conf" <<-EOF
	user = "root"
	group = "root"
	dynamic_ownership = 0
	remember_owner = 0
	security_driver = "none"
	cgroup_controllers = [ ]
	namespaces = [ ]
	stdio_handler = "file"
	EOF
	cat > "$GH_WORK/virtqemud.conf" <<-EOF
	log_outputs = "2:file:$GH_WORK/virtqemud.log"
	EOF
	LIBVIRT_DIR_OVERRIDE=1 "$lv_obj/src/virtqemud" --config "$GH_WORK/virtqemud.conf" \
		--pid-file "$GH_WORK/virtqemud.pid" > "$GH_WORK/virtqemud.out" 2>&1 &
	echo $! > "$GH_WORK/virtqemud.bgpid"
	local n=0
	until virsh version >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -lt 100 ] && kill -0 "$(cat "$GH_WORK/virtqemud.bgpid")" 2>/dev/null || return 1
		sleep 0.2
	done
}
daemon_stop() {
	local p
	p=$(cat "$GH_WORK/virtqemud.bgpid" 2>/dev/null) || return 0
	virsh destroy "$dom" >/dev/null 2>&1 || true
	kill "$p" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$p" 2>/dev/null || true
	rm -f "$GH_WORK/virtqemud.bgpid"
}

# refused NAME XML-FILE PATTERN: virsh define of the file fails with a message matching PATTERN
refused() {
	local err
	if err=$(virsh define "$2" 2>&1); then
		h_fail "$1"
		h_diag "$1: the domain was defined"
		virsh undefine "$(xmllint --xpath 'string(/domain/name)' "$2")" >/dev/null 2>&1 || true
	elif [[ $err == *$3* ]]; then
		h_ok "$1"
	else
		h_diag "$1: unexpected message: $err"
		h_fail "$1"
	fi
}

scenario() {
	if [ ! -x "$lv_obj/src/virtqemud" ]; then
		h_skip "libvirt" "no virtqemud in $lv_obj: run scripts/build-libvirt.sh"
		return
	fi
	if ! qemu_has_hints; then
		h_skip "libvirt" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	# Unprivileged, virtqemud would be a session daemon with its paths in $HOME, not in the
	# build's private prefix.
	if [ "$(id -u)" != 0 ]; then
		h_skip "libvirt" "the private virtqemud runs as root (the system daemon of the build's prefix)"
		return
	fi
	trap daemon_stop EXIT
	if ! daemon_start; then
		h_diag "virtqemud did not start:"
		tail -n 5 "$GH_WORK/virtqemud.out" "$GH_WORK/virtqemud.log" 2>/dev/null | sed 's/^/#   /'
		h_fail "virtqemud started"
		return
	fi
	h_ok "virtqemud started"
	mkdir -p "$GH_WORK/vm"
	mkfifo "$GH_WORK/vm/ctl.in" "$GH_WORK/vm/ctl.out"
	for s in vd0 sd0; do "$out/qemu-img" create -q -f raw "$GH_WORK/$s.img" 10G; done
	cmdline="console=ttyS0 panic=-1 oops=panic rdinit=/init gh.test=runtime-change gh.disks=vd0,sd0"
	cmdline+=" gh.old=$G:$((16 * T)):$G gh.new=$((2 * G)):$((32 * T)):$((2 * G)) gh.freeze=0:$((10 * G)):$G"

	# Buses that cannot carry the hints, and values QEMU would refuse, are refused at define.
	domain_xml gh-ide "$(disk_xml hda ide vd0 $G $((16 * T)) $G)" > "$GH_WORK/ide.xml"
	refused "define: hints on an IDE disk refused" "$GH_WORK/ide.xml" "not supported on bus 'ide'"
	domain_xml gh-usb "$(disk_xml sdb usb vd0 $G $((16 * T)) $G)" > "$GH_WORK/usb.xml"
	refused "define: hints on a USB disk refused" "$GH_WORK/usb.xml" "not supported on bus 'usb'"
	domain_xml gh-bad "$(disk_xml vda virtio vd0 $G $((16 * T)) 1000)" > "$GH_WORK/bad.xml"
	refused "define: an increment that is not a multiple of 512 refused" "$GH_WORK/bad.xml" \
		"must be a multiple of the logical block size"

	domain_xml "$dom" "$(disk_xml vda virtio vd0 $G $((16 * T)) $G)" \
		"$(disk_xml sda scsi sd0 $G $((16 * T)) $G)" > "$GH_WORK/domain.xml"
	local err
	if ! err=$(virsh define "$GH_WORK/domain.xml" 2>&1); then
		h_diag "define: $err"
		h_fail "domain with hinted virtio and scsi disks defined"
		return
	fi
	h_ok "domain with hinted virtio and scsi disks defined"
	local caps
	caps=$(cat "$lv_prefix"/var/cache/libvirt/qemu/capabilities/*.xml 2>/dev/null)
	h_eq "capabilities of the series' QEMU: virtio-blk.growth-hints" \
		"$(grep -c "flag name='virtio-blk.growth-hints'" <<< "$caps")" 1
	h_eq "capabilities of the series' QEMU: scsi-disk.growth-hints" \
		"$(grep -c "flag name='scsi-disk.growth-hints'" <<< "$caps")" 1

	: > "$results"
	if ! err=$(virsh start "$dom" 2>&1); then
		h_diag "start: $err"
		tail -n 5 "$lv_prefix/var/log/libvirt/qemu/$dom.log" 2>/dev/null | sed 's/^/#   /'
		h_fail "domain started"
		return
	fi
	h_ok "domain started"
	local qpid
	qpid=$(cat "$lv_prefix/run/libvirt/qemu/$dom.pid")
	h_eq "QEMU command line: x-growth-hints on both disks" \
		"$(tr '\0' '\n' < "/proc/$qpid/cmdline" | grep -c '"x-growth-hints":true,"x-growth-min":1073741824,"x-growth-max":17592186044416,"x-growth-increment":1073741824')" 2
	# The public event, as a management application sees it.
	virsh event --domain "$dom" --event growth-hints-change --loop > "$GH_WORK/events.log" 2>&1 &
	local evpid=$!
	# The guest's time limit, as run-vm.sh's.
	(sleep "${GH_TIMEOUT:-300}"; virsh destroy "$dom" >/dev/null 2>&1) &
	local watchdog=$!
	VM_LOG="$GH_WORK/vm/console.log" VM_STATUS=0
	local quiet=1
	[ "${GH_VERBOSE:-0}" = 0 ] || quiet=0
	follow_console "$VM_LOG" "$GH_WORK/vm/ctl.in" "$qpid" "$quiet" "bash $GH_SCENARIO on-wait" >&2
	kill "$watchdog" "$evpid" 2>/dev/null || true
	VM_STATUS=${FOLLOW_STATUS:-125}
	vm_results ""
	while IFS= read -r line; do
		case "$line" in
		"ok "*) h_ok "${line#ok }" ;;
		"not ok "*) h_fail "${line#not ok }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$results"
	h_eq "host checks made" "$(grep -c '^\(not \)\{0,1\}ok ' "$results")" 8
	# One event per change that QEMU made: two updates, two changes behind libvirt's back; none
	# for the refused updates.
	h_eq "growth-hints-change events: one per change" \
		"$(grep -c "^event 'growth-hints-change' for domain '$dom':" "$GH_WORK/events.log")" 4
	h_eq "growth-hints-change event of the update of vda" \
		"$(grep -A6 "^event 'growth-hints-change'" "$GH_WORK/events.log" | first_lines 7 | tr '\n' ' ')" \
		"event 'growth-hints-change' for domain '$dom': dev: vda min: $((2 * G)) max: $((32 * T)) increment: $((2 * G)) advertised: yes reason: set "
	h_eq "growth-hints-change event of the change of sda behind libvirt's back" \
		"$(grep -A6 "^event 'growth-hints-change'" "$GH_WORK/events.log" | grep -v '^--$' | tail -n 7 | tr '\n' ' ')" \
		"event 'growth-hints-change' for domain '$dom': dev: sda min: 0 max: $((10 * G)) increment: $G advertised: yes reason: set "
}

h_main "$@"
