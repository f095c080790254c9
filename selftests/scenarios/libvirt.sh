#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_*, cleanup and scenario are called through h_main
# Scenario: libvirt sets and changes the hints: a virtqemud of the libvirt series, started in
# a private directory, runs a TCG domain with a hinted virtio and scsi disk and a vhost-user
# disk served by qemu-storage-daemon (<growth_hints/>: the back end has the values).  The
# guest reads them; "virsh domblkgrowth" changes one value or some (guest: new values and
# uevent; host: dumpxml and dumpxml --inactive), refused values change nothing, a change made
# behind libvirt's back (GROWTH_HINTS_CHANGED) reaches dumpxml, the daemon's changes reach the
# guest through the vhost-user disk, "virsh event --event tunable" prints each change once,
# domstats and blockresize's warning; define refuses IDE and USB disks and vhost-user values.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

lv_obj=${GH_LIBVIRT_OBJ:-$top/build/libvirt-obj}
# The build's compiled-in prefix (scripts/build-libvirt.sh): configuration, state and
# sockets of this daemon live there and nowhere else.
lv_prefix="$top/build/out/libvirt"
lv_sock="$lv_prefix/run/libvirt/virtqemud-sock"
dom=gh-libvirt
G=$((1 << 30)) T=$((1 << 40)) M=$((1 << 20))
results="$GH_WORK/host.results"
export GH_QSD="${GH_QSD:-$(dirname "$GH_QEMU")/qemu-storage-daemon}"
qsd_qmp="$GH_WORK/qsd-qmp.sock"
# The guest reads vhost-user-blk's serial from the daemon, which names every export so.
vu_serial=vhost_user_blk

virsh() { "$lv_obj/tools/virsh" -q -c "qemu:///system?socket=$lv_sock" "$@"; }
# show ARGS...: virsh ARGS, and the command with its output in transcript.txt (for the user
# guide, section 1.4); returns virsh's status.
show() {
	local out rc=0
	out=$(virsh "$@" 2>&1) || rc=$?
	printf '$ virsh %s\n%s\n\n' "$*" "$out" >> "$GH_WORK/transcript.txt"
	return $rc
}

# rec NAME ok|fail [DIAG]: a host result, kept in a file because the on_wait handlers run in
# their own processes; printed after the guest's.
rec() {
	[ -z "${3:-}" ] || printf '# %s: %s\n' "$1" "$3" >> "$results"
	if [ "$2" = ok ]; then echo "ok $1" >> "$results"; else echo "not ok $1" >> "$results"; fi
}
rec_eq() { if [ "$2" = "$3" ]; then rec "$1" ok; else rec "$1" fail "got '$2', want '$3'"; fi; }

# hints_xml DEV [--inactive]: "MIN MAX INC" of disk DEV in the XML (0 for what is not written).
hints_xml() {
	local x v r=()
	x=$(virsh dumpxml "$dom" ${2:+"$2"})
	for v in min max increment; do
		v=$(printf '%s' "$x" | xmllint --xpath "string(//disk[target/@dev='$1']/growth_hints/$v)" - 2>/dev/null)
		r+=("${v:-0}")
	done
	echo "${r[*]}"
}
# both_xml DEV: "live MIN MAX INC / inactive MIN MAX INC"
both_xml() { echo "live $(hints_xml "$1") / inactive $(hints_xml "$1" --inactive)"; }

# growth DEV [OPTIONS...]: virsh domblkgrowth (in the transcript); prints virsh's errors.
growth() {
	local out rc=0
	out=$(virsh domblkgrowth "$dom" "$@" 2>&1) || rc=$?
	printf '$ virsh domblkgrowth %s %s\n%s\n\n' "$dom" "$*" "$out" >> "$GH_WORK/transcript.txt"
	[ "$rc" = 0 ] || echo "$out"
	return "$rc"
}
# growth_ok NAME DEV OPTIONS...: a change that must succeed.
growth_ok() {
	local name=$1 err
	shift
	if err=$(growth "$@"); then rec "$name" ok; else rec "$name" fail "$err"; fi
}
# growth_refused NAME PATTERN DEV OPTIONS...: a change refused with a message matching PATTERN.
growth_refused() {
	local name=$1 pattern=$2 err
	shift 2
	if err=$(growth "$@"); then
		rec "$name" fail "it was accepted"
	elif [[ $err == *$pattern* ]]; then
		rec "$name" ok
	else
		rec "$name" fail "unexpected message: $err"
	fi
}

# qmp_hints ID: "MIN MAX INC" that QEMU has for device ID (query-growth-hints).
qmp_hints() {
	virsh qemu-monitor-command "$dom" \
		"{\"execute\": \"query-growth-hints\", \"arguments\": {\"id\": \"$1\"}}" |
		python3 -c 'import json, sys; h = json.load(sys.stdin)["return"][0]; print(h["min"], h["max"], h["increment"])'
}

# export_set ID MIN MAX INC: block-export-set-growth-hints on the storage daemon.
export_set() {
	local err
	err=$(qmp_at "$qsd_qmp" block-export-set-growth-hints \
		"{\"id\": \"$1\", \"min\": $2, \"max\": $3, \"increment\": $4}" 2>&1 >/dev/null) ||
		{ echo "block-export-set-growth-hints $*: $err"; return 1; }
}

# The guest's "change" step: partial updates of vda on the live and persistent definition, a
# live-only change of sda, refusals, and the daemon's new values for the vhost-user disk.
on_wait_change() {
	local err
	growth_ok "domblkgrowth vda --max 32T --live --config" vda --max 32T --live --config
	rec_eq "partial update: only the maximum changed (dumpxml, dumpxml --inactive)" "$(both_xml vda)" \
		"live $G $((32 * T)) $G / inactive $G $((32 * T)) $G"
	growth_ok "domblkgrowth vda --min 2G --increment 2G --live --config" \
		vda --min 2G --increment 2G --live --config
	rec_eq "partial update: minimum and increment changed, the maximum kept" "$(both_xml vda)" \
		"live $((2 * G)) $((32 * T)) $((2 * G)) / inactive $((2 * G)) $((32 * T)) $((2 * G))"
	growth_ok "domblkgrowth sda --min 2G --max 32T --increment 2G --live" \
		sda --min 2G --max 32T --increment 2G --live
	rec_eq "live-only change of sda: dumpxml --inactive keeps the old values" "$(both_xml sda)" \
		"live $((2 * G)) $((32 * T)) $((2 * G)) / inactive $G $((16 * T)) $G"
	# refused by libvirt's rules, by the disk size, and on the vhost-user disk: nothing changes
	growth_refused "domblkgrowth with min > max refused" "must not be larger than the maximum" \
		vda --min 64T --live --config
	growth_refused "domblkgrowth below the disk size refused" "must hold its size (10737418240 bytes)" \
		vda --max 4G --live --config
	growth_refused "domblkgrowth on the vhost-user disk refused" "are set on its back end" \
		vdb --max 32T --live
	rec_eq "refused changes: QEMU keeps the values" "$(qmp_hints virtio-disk0)" "$((2 * G)) $((32 * T)) $((2 * G))"
	rec_eq "refused changes: dumpxml and dumpxml --inactive keep the values" "$(both_xml vda)" \
		"live $((2 * G)) $((32 * T)) $((2 * G)) / inactive $((2 * G)) $((32 * T)) $((2 * G))"
	show dumpxml "$dom" --xpath "//disk[target/@dev='vda']/growth_hints" || true
	show domblkgrowth "$dom" vda || true
	show domblkgrowth "$dom" vda --config || true
	rec_eq "domblkgrowth prints the live values, the size and advertised" \
		"$(virsh domblkgrowth "$dom" vda | tr -s ' ' | tr '\n' ' ')" \
		"min : $((2 * G)) max : $((32 * T)) increment : $((2 * G)) size : $((10 * G)) advertised : yes "
	err=$(export_set e0 $((2 * G)) $((32 * T)) $((2 * G))) || { echo "vhost-user: $err"; return 1; }
}

# The "freeze" step: a live-only change of vda, a change of sda behind libvirt's back
# (GROWTH_HINTS_CHANGED), the daemon's values; blockresize beyond the maximum of vdc.
on_wait_freeze() {
	local out n=0
	growth_ok "domblkgrowth vda --min 0 --max 10G --increment 1G --live" \
		vda --min 0 --max 10G --increment 1G --live
	rec_eq "live-only change of vda: dumpxml --inactive keeps the values set with --config" \
		"$(both_xml vda)" "live 0 $((10 * G)) $G / inactive $((2 * G)) $((32 * T)) $((2 * G))"
	out=$(virsh qemu-monitor-command "$dom" \
		"{\"execute\": \"block-set-growth-hints\", \"arguments\": {\"id\": \"scsi0-0-0-0\", \"min\": 0, \"max\": $((10 * G)), \"increment\": $G}}" 2>&1) ||
		{ echo "sda: $out"; return 1; }
	printf '$ virsh qemu-monitor-command %s %s\n%s\n\n' "$dom" \
		"'{\"execute\": \"block-set-growth-hints\", \"arguments\": {\"id\": \"scsi0-0-0-0\", \"min\": 0, \"max\": $((10 * G)), \"increment\": $G}}'" \
		"$out" >> "$GH_WORK/transcript.txt"
	while [ "$(hints_xml sda)" != "0 $((10 * G)) $G" ] && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	rec_eq "GROWTH_HINTS_CHANGED: dumpxml follows QEMU (sda)" "$(both_xml sda)" \
		"live 0 $((10 * G)) $G / inactive $G $((16 * T)) $G"
	out=$(export_set e0 0 $((10 * G)) "$G") || { echo "vhost-user: $out"; return 1; }
	# vdc (512 MiB, at most 768 MiB): a resize beyond the maximum is not refused, but virsh
	# warns, and the guest no longer sees the hints
	show domblkgrowth "$dom" vdc || true
	out=$(virsh blockresize "$dom" vdc 1G 2>&1) || { echo "blockresize: $out"; return 1; }
	printf '$ virsh blockresize %s vdc 1G\n%s\n\n' "$dom" "$out" >> "$GH_WORK/transcript.txt"
	show domblkgrowth "$dom" vdc || true
	if [[ $out == *"beyond the growth hint maximum of 'vdc' ($((768 * M)) bytes)"* ]]; then
		rec "blockresize beyond the maximum warns" ok
	else
		rec "blockresize beyond the maximum warns" fail "got: $out"
	fi
	show domstats "$dom" --block || true
	out=$(virsh domstats "$dom" --block | tr -d ' ')
	local i
	i=$(grep -o '^block\.[0-9]*\.name=vdc$' <<< "$out" | cut -d. -f2)
	rec_eq "domstats: growth_hints of vdc after the resize" \
		"$(grep "^block\.$i\.growth_hints\." <<< "$out" | tr '\n' ' ')" \
		"block.$i.growth_hints.min=0 block.$i.growth_hints.max=$((768 * M)) block.$i.growth_hints.increment=0 block.$i.growth_hints.advertised=no "
}

# disk_xml DEV BUS SERIAL MIN MAX INC [IMAGE]: a file <disk> with <growth_hints>.
disk_xml() {
	local img=${7:-$GH_WORK/$3.img} addr=""
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
# vhost_xml DEV SOCKET [HINTS]: a vhost-user <disk>; HINTS defaults to <growth_hints/>.
vhost_xml() {
	cat <<-EOF
	<disk type='vhostuser' device='disk'>
	  <driver name='qemu' type='raw'/>
	  <source type='unix' path='$2'>
	    <reconnect enabled='yes' timeout='10'/>
	  </source>
	  ${3:-<growth_hints/>}
	  <target dev='$1' bus='virtio'/>
	</disk>
	EOF
}

# domain_xml NAME DISK...: a TCG domain booting the test kernel with these <disk>s; memory
# shared with the vhost-user back end.
domain_xml() {
	local name=$1
	shift
	cat <<-EOF
	<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
	  <name>$name</name>
	  <memory unit='MiB'>512</memory>
	  <memoryBacking>
	    <source type='memfd'/>
	    <access mode='shared'/>
	  </memoryBacking>
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
cleanup() {
	local p
	if p=$(cat "$GH_WORK/virtqemud.bgpid" 2>/dev/null); then
		virsh destroy "$dom" >/dev/null 2>&1 || true
		kill "$p" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
		rm -f "$GH_WORK/virtqemud.bgpid"
	fi
	if p=$(cat "$GH_WORK/qsd.bgpid" 2>/dev/null); then
		kill "$p" 2>/dev/null || true
		rm -f "$GH_WORK/qsd.bgpid"
	fi
}

# qsd_start: qemu-storage-daemon exports vu0.img over vhost-user-blk with the guest's old hints.
qsd_start() {
	truncate -s 10G "$GH_WORK/vu0.img"
	rm -f "$qsd_qmp"
	"$GH_QSD" \
		--blockdev "file,node-name=f0,filename=$GH_WORK/vu0.img" \
		--export "vhost-user-blk,id=e0,node-name=f0,writable=on,addr.type=unix,addr.path=$GH_WORK/vu0.sock,growth-hints.min=$G,growth-hints.max=$((16 * T)),growth-hints.increment=$G" \
		--chardev "socket,id=m0,path=$qsd_qmp,server=on,wait=off" --monitor chardev=m0 \
		>"$GH_WORK/qsd.log" 2>&1 &
	echo $! > "$GH_WORK/qsd.bgpid"
	local n=0
	until [ -S "$GH_WORK/vu0.sock" ] && [ -S "$qsd_qmp" ]; do
		n=$((n + 1))
		[ $n -lt 100 ] && kill -0 "$(cat "$GH_WORK/qsd.bgpid")" 2>/dev/null || return 1
		sleep 0.1
	done
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

# tunable_events DEV: the growth hint parts of the tunable events of disk DEV, one a line
tunable_events() {
	awk -v dev="$1" '
		/^event .tunable. for domain/ { if (ev != "" && d == dev) print ev; ev = ""; d = ""; next }
		/growth_hints\.disk:/ { d = $2 }
		/growth_hints\./ { sub(/^[ \t]+/, ""); ev = ev $0 " " }
		END { if (ev != "" && d == dev) print ev }
	' "$GH_WORK/events.log"
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
	if ! "$GH_QEMU" -device vhost-user-blk-pci,help 2>/dev/null | matches 'x-growth-hints='; then
		h_skip "libvirt" "$GH_QEMU: vhost-user-blk-pci has no x-growth-hints"
		return
	fi
	if [ ! -x "$GH_QSD" ]; then
		h_skip "libvirt" "no qemu-storage-daemon at $GH_QSD"
		return
	fi
	# Unprivileged, virtqemud would be a session daemon with its paths in $HOME, not in the
	# build's private prefix.
	if [ "$(id -u)" != 0 ]; then
		h_skip "libvirt" "the private virtqemud runs as root (the system daemon of the build's prefix)"
		return
	fi
	trap cleanup EXIT
	if ! daemon_start; then
		h_diag "virtqemud did not start:"
		tail -n 5 "$GH_WORK/virtqemud.out" "$GH_WORK/virtqemud.log" 2>/dev/null | sed 's/^/#   /'
		h_fail "virtqemud started"
		return
	fi
	h_ok "virtqemud started"
	if ! qsd_start; then
		h_diag "qemu-storage-daemon did not start:"
		sed 's/^/#   /' "$GH_WORK/qsd.log"
		h_fail "qemu-storage-daemon started"
		return
	fi
	h_ok "qemu-storage-daemon started"
	mkdir -p "$GH_WORK/vm"
	mkfifo "$GH_WORK/vm/ctl.in" "$GH_WORK/vm/ctl.out"
	for s in vd0 sd0; do "$out/qemu-img" create -q -f raw "$GH_WORK/$s.img" 10G; done
	"$out/qemu-img" create -q -f raw "$GH_WORK/vd2.img" 512M
	cmdline="console=ttyS0 panic=-1 oops=panic rdinit=/init gh.test=runtime-change gh.disks=vd0,sd0,$vu_serial"
	cmdline+=" gh.old=$G:$((16 * T)):$G gh.new=$((2 * G)):$((32 * T)):$((2 * G)) gh.freeze=0:$((10 * G)):$G"

	# Buses that cannot carry the hints, values that break a rule and values on a vhost-user
	# disk are refused at define.
	domain_xml gh-ide "$(disk_xml hda ide vd0 $G $((16 * T)) $G)" > "$GH_WORK/ide.xml"
	refused "define: hints on an IDE disk refused" "$GH_WORK/ide.xml" "not supported on bus 'ide'"
	domain_xml gh-usb "$(disk_xml sdb usb vd0 $G $((16 * T)) $G)" > "$GH_WORK/usb.xml"
	refused "define: hints on a USB disk refused" "$GH_WORK/usb.xml" "not supported on bus 'usb'"
	domain_xml gh-bad "$(disk_xml vda virtio vd0 $G $((16 * T)) 1000)" > "$GH_WORK/bad.xml"
	refused "define: an increment that is not a multiple of 512 refused" "$GH_WORK/bad.xml" \
		"must be a multiple of the logical block size"
	domain_xml gh-vu "$(vhost_xml vda "$GH_WORK/vu0.sock" "<growth_hints><max>$((16 * T))</max></growth_hints>")" \
		> "$GH_WORK/vu-values.xml"
	refused "define: values on a vhost-user disk refused" "$GH_WORK/vu-values.xml" "its back end owns them"

	domain_xml "$dom" "$(disk_xml vda virtio vd0 $G $((16 * T)) $G)" \
		"$(disk_xml sda scsi sd0 $G $((16 * T)) $G)" \
		"$(vhost_xml vdb "$GH_WORK/vu0.sock")" \
		"$(disk_xml vdc virtio vd2 0 $((768 * M)) 0 "$GH_WORK/vd2.img")" > "$GH_WORK/domain.xml"
	printf '$ virsh define ide.xml\n%s\n\n' "$(virsh define "$GH_WORK/ide.xml" 2>&1)" >> "$GH_WORK/transcript.txt"
	local err
	if ! err=$(virsh define "$GH_WORK/domain.xml" 2>&1); then
		h_diag "define: $err"
		h_fail "domain with hinted virtio, scsi and vhost-user disks defined"
		return
	fi
	h_ok "domain with hinted virtio, scsi and vhost-user disks defined"
	local caps f
	caps=$(cat "$lv_prefix"/var/cache/libvirt/qemu/capabilities/*.xml 2>/dev/null)
	for f in virtio-blk.growth-hints scsi-disk.growth-hints vhost-user-blk.growth-hints \
		block-set-growth-hints query-growth-hints; do
		h_eq "capabilities of the series' QEMU: $f" "$(grep -c "flag name='$f'" <<< "$caps")" 1
	done
	show domcapabilities --emulatorbin "$GH_QEMU" --virttype qemu --xpath "//devices/disk/enum[@name='growthHints']" || true
	h_eq "domain capabilities: the disks that can have growth hints" \
		"$(virsh domcapabilities --emulatorbin "$GH_QEMU" --virttype qemu |
			xmllint --xpath "//devices/disk/enum[@name='growthHints']/value/text()" - 2>/dev/null | tr '\n' ' ')" \
		"virtio scsi vhostuser "

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
	tr '\0' '\n' < "/proc/$qpid/cmdline" | grep -e '-device.*x-growth' -e 'x-growth' >> "$GH_WORK/transcript.txt" || true
	h_eq "QEMU command line: x-growth-hints and the values on vda and sda" \
		"$(tr '\0' '\n' < "/proc/$qpid/cmdline" | grep -c '"x-growth-hints":true,"x-growth-min":1073741824,"x-growth-max":17592186044416,"x-growth-increment":1073741824')" 2
	h_eq "QEMU command line: x-growth-hints alone on the vhost-user disk" \
		"$(tr '\0' '\n' < "/proc/$qpid/cmdline" | grep '"driver":"vhost-user-blk-pci"' | grep -o '"x-growth[^,}]*')" \
		'"x-growth-hints":true'
	# The tunable event, as a management application sees it.
	virsh event --domain "$dom" --event tunable --loop > "$GH_WORK/events.log" 2>&1 &
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
	h_eq "host checks made" "$(grep -c '^\(not \)\{0,1\}ok ' "$results")" 17
	# One tunable event per change: three of vda (two partial updates and the live-only one),
	# two of sda (domblkgrowth and behind libvirt's back); none for the refused changes, the
	# vhost-user disk or the resize of vdc, which changed no value.
	h_eq "tunable events: one per change" \
		"$(grep -c "^event 'tunable' for domain '$dom':" "$GH_WORK/events.log")" 5
	h_eq "tunable events of vda" "$(tunable_events vda)" \
		"growth_hints.disk: vda growth_hints.min: $G growth_hints.max: $((32 * T)) growth_hints.increment: $G 
growth_hints.disk: vda growth_hints.min: $((2 * G)) growth_hints.max: $((32 * T)) growth_hints.increment: $((2 * G)) 
growth_hints.disk: vda growth_hints.min: 0 growth_hints.max: $((10 * G)) growth_hints.increment: $G "
	h_eq "tunable events of sda (the second behind libvirt's back)" "$(tunable_events sda)" \
		"growth_hints.disk: sda growth_hints.min: $((2 * G)) growth_hints.max: $((32 * T)) growth_hints.increment: $((2 * G)) 
growth_hints.disk: sda growth_hints.min: 0 growth_hints.max: $((10 * G)) growth_hints.increment: $G "
	h_eq "tunable events of the vhost-user disk and vdc: none" "$(tunable_events vdb)$(tunable_events vdc)" ""
}

h_main "$@"
