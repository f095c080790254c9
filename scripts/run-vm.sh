#!/usr/bin/env bash
# Boot one test guest under QEMU (TCG) and follow its serial console.
#
# run-vm.sh [OPTIONS]
#   --kernel PATH     guest kernel (default build/out/bzImage)
#   --initrd PATH     initramfs (default build/out/initramfs.cpio.gz)
#   --qemu PATH       QEMU binary (default build/out/qemu-system-x86_64)
#   --disk SPEC       BUS:size=SIZE[:id=ID][:serial=SERIAL][:file=PATH][:props=K=V,K=V...]
#                     BUS is virtio (virtio-blk-pci), scsi (scsi-hd on one virtio-scsi-pci),
#                     nvme (an nvme controller with the drive as namespace 1) or nvme-ns (an
#                     nvme controller nvc-ID with an nvme-ns device ID; serial= is the
#                     controller's); images are sparse raw files, created unless file= exists.
#                     Repeatable.
#   --test NAME       guest test to run (selftests/guest/NAME.sh, or tools/bench/guest/NAME.sh
#                     for a benchmark; kernel arg gh.test=NAME)
#   --append ARGS     more kernel command line (e.g. gh.key=value)
#   --dir DIR         keep console.log, qemu.log and disk images in DIR (default: temporary)
#   --sockdir DIR     QMP socket (qmp.sock) and host->guest channel (ctl.in) (default: temporary)
#   --on-wait CMD     answers the guest's "GH-WAIT TOKEN ARGS" lines: runs CMD TOKEN ARGS with
#                     GH_QMP, GH_CTL, GH_VM_DIR set; exit 0 answers "ok", else "fail"; its
#                     output is appended to the answer; the output "-" means "already answered"
#   --incoming URI    start as the destination of a migration (-incoming URI)
#   --timeout SECS    kill QEMU after SECS (default 300)
#   --memory SIZE     guest RAM (default 512M)
#   --machine pc|q35  machine type (default pc); on q35 each virtio disk is behind its own
#                     pcie-root-port, so that it is a PCIe function (FLR) and hot-pluggable
#   --quiet           do not echo the console on stdout
#   --interactive     console on this terminal (with --test shell: a shell in the guest)
#   --qemu-arg ARG    one more QEMU argument (repeatable)
# Exit status: the guest test's exit status ("GH-EXIT N" on the console); 124 on timeout;
# 125 if the guest stopped without finishing its test (QEMU error, panic, migrated away).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel="$out/bzImage"
initrd="$out/initramfs.cpio.gz"
qemu="$out/qemu-system-x86_64"
disks=() append="" test="" dir="" sockdir="" on_wait="" incoming="" timeout=300 memory=512M
machine=pc
quiet=0 interactive=0 extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--qemu) qemu=$2; shift 2 ;;
	--disk) disks+=("$2"); shift 2 ;;
	--test) test=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--sockdir) sockdir=$2; shift 2 ;;
	--on-wait) on_wait=$2; shift 2 ;;
	--incoming) incoming=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--memory) memory=$2; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--interactive) interactive=1; shift ;;
	--qemu-arg) extra+=("$2"); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see run-vm.sh --help)" ;;
	esac
done
[ -r "$kernel" ] || die "no kernel at $kernel: run 'make kernel' (or pass --kernel)"
[ -r "$initrd" ] || die "no initramfs at $initrd: run 'make initramfs' (or pass --initrd)"
[ -x "$qemu" ] || qemu=$(command -v "$qemu") ||
	die "no QEMU at $qemu: run 'make qemu' (or pass --qemu /usr/bin/qemu-system-x86_64)"

cleanup=()
bg=()
# shellcheck disable=SC2317 # called by the EXIT trap
on_exit() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	[ ${#cleanup[@]} -eq 0 ] || rm -rf "${cleanup[@]}"
}
trap on_exit EXIT
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/gh-vm.XXXXXX")
	cleanup+=("$dir")
fi
if [ -z "$sockdir" ]; then
	sockdir=$(mktemp -d "${TMPDIR:-/tmp}/gh-sock.XXXXXX")
	cleanup+=("$sockdir")
fi
mkdir -p "$dir" "$sockdir"
log="$dir/console.log"
qmp="$sockdir/qmp.sock"
ctl="$sockdir/ctl"
rm -f "$log" "$qmp" "$ctl.in" "$ctl.out"
mkfifo "$ctl.in" "$ctl.out"

qemu_img() {
	local img=$1 size=$2 tool
	for tool in "$out/qemu-img" qemu-img; do
		if command -v "$tool" >/dev/null; then
			"$tool" create -q -f raw "$img" "$size" && return 0
		fi
	done
	truncate -s "$size" "$img"
}

case "$machine" in pc | q35) ;; *) die "--machine must be pc or q35, not '$machine'" ;; esac
args=(-accel tcg -machine "$machine" -m "$memory" -smp 1 -nodefaults -display none -monitor none
	-no-reboot -L /usr/share/seabios -L /usr/share/qemu
	-kernel "$kernel" -initrd "$initrd"
	-serial chardev:con
	-chardev "pipe,id=ctl,path=$ctl" -serial chardev:ctl
	-qmp "unix:$qmp,server=on,wait=off")
# q35 hot-plugs through ACPI by default, which the test kernel lacks; use the root ports'
# native (pciehp) hot-plug instead.
[ "$machine" = pc ] || args+=(-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off)
nvirtio=0 nscsi=0 nnvme=0
for spec in "${disks[@]}"; do
	bus=${spec%%:*} size="" id="" serial="" file="" props=""
	IFS=: read -r -a kv <<< "${spec#*:}"
	for f in "${kv[@]}"; do
		case "$f" in
		size=*) size=${f#size=} ;;
		id=*) id=${f#id=} ;;
		serial=*) serial=${f#serial=} ;;
		file=*) file=${f#file=} ;;
		props=*) props=${f#props=} ;;
		"") ;;
		*) die "--disk $spec: unknown field '$f' (size=, id=, serial=, file=, props=)" ;;
		esac
	done
	case "$bus" in
	virtio) id=${id:-vd$nvirtio}; nvirtio=$((nvirtio + 1)) ;;
	scsi)
		id=${id:-sd$nscsi}
		[ $nscsi -gt 0 ] || args+=(-device "virtio-scsi-pci,id=scsi0")
		nscsi=$((nscsi + 1))
		;;
	nvme | nvme-ns) id=${id:-nv$nnvme}; nnvme=$((nnvme + 1)) ;;
	*) die "--disk $spec: bus must be virtio, scsi, nvme or nvme-ns" ;;
	esac
	if [ -z "$file" ]; then
		file="$dir/$id.img"
		rm -f "$file" # a fresh disk on every boot; pass file= to keep one
	fi
	if [ ! -e "$file" ]; then
		[ -n "$size" ] || die "--disk $spec: size= is needed to create $file"
		qemu_img "$file" "$size" || die "cannot create disk image $file"
	fi
	args+=(-drive "file=$file,format=raw,if=none,id=drv-$id")
	dev="drive=drv-$id,id=$id,serial=${serial:-$id}${props:+,$props}"
	if [ "$bus" = virtio ] && [ "$machine" = q35 ]; then
		args+=(-device "pcie-root-port,id=rp-$id,chassis=$nvirtio,slot=$nvirtio"
			-device "virtio-blk-pci,bus=rp-$id,$dev")
	elif [ "$bus" = virtio ]; then
		args+=(-device "virtio-blk-pci,$dev")
	elif [ "$bus" = nvme ]; then
		args+=(-device "nvme,$dev")
	elif [ "$bus" = nvme-ns ]; then
		args+=(-device "nvme,id=nvc-$id,serial=${serial:-$id}"
			-device "nvme-ns,bus=nvc-$id,drive=drv-$id,id=$id${props:+,$props}")
	else
		args+=(-device "scsi-hd,bus=scsi0.0,scsi-id=$((nscsi - 1)),lun=0,$dev")
	fi
done
cmdline="console=ttyS0 panic=-1 oops=panic rdinit=/init${test:+ gh.test=$test}$append"
args+=(-append "$cmdline")
[ -z "$incoming" ] || args+=(-incoming "$incoming")
args+=("${extra[@]}")
if [ $interactive = 1 ]; then
	args+=(-chardev "stdio,id=con,signal=on,logfile=$log")
	printf '%q ' "$qemu" "${args[@]}" > "$dir/qemu.cmdline"
	"$qemu" "${args[@]}"
	exit
fi
args+=(-chardev "file,id=con,path=$log")
printf '%q ' "$qemu" "${args[@]}" > "$dir/qemu.cmdline"
echo >> "$dir/qemu.cmdline"

timeout "$timeout" "$qemu" "${args[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
qpid=$!
bg+=("$qpid")

export GH_QMP=$qmp GH_CTL=$ctl.in GH_VM_DIR=$dir
follow_console "$log" "$ctl.in" "$qpid" "$quiet" "$on_wait"
status=$FOLLOW_STATUS

qrc=0
wait "$qpid" || qrc=$?
bg=()
if [ "$qrc" = 124 ]; then
	warn "timeout after ${timeout}s: QEMU killed; console: $log"
	exit 124
fi
if [ -z "$status" ]; then
	if [ "$qrc" != 0 ] || [ -s "$dir/qemu.log" ]; then
		sed 's/^/qemu: /' "$dir/qemu.log" >&2
	fi
	warn "the guest did not finish its test (QEMU exit status $qrc); console: $log"
	exit 125
fi
exit "$status"
