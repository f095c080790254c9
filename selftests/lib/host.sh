# shellcheck shell=bash
# Host side of the scenarios (selftests/scenarios/*.sh).  Source it.
#
# A scenario is a bash script that defines scenario() and, for each "GH-WAIT TOKEN" its guest
# test prints, on_wait_TOKEN (dashes become underscores); it ends with: h_main "$@".
# It prints KTAP result lines without header and plan (selftests/run.sh nests them under
# the scenario's top-level result) and exits 0 (pass), 1 (fail) or 4 (all skipped).
#
# Environment (set by selftests/run.sh, defaults for running a scenario alone):
#   GH_KERNEL  guest kernel            GH_QEMU  QEMU binary
#   GH_INITRD  initramfs               GH_WORK  this scenario's directory for logs and images
#   GH_VERBOSE=1  echo the guest consoles on stderr

. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

export GH_KERNEL="${GH_KERNEL:-$out/bzImage}"
export GH_INITRD="${GH_INITRD:-$out/initramfs.cpio.gz}"
export GH_QEMU="${GH_QEMU:-$out/qemu-system-x86_64}"
export GH_WORK="${GH_WORK:-$top/build/results/scenarios/$(basename "$0" .sh)}"
GH_SCENARIO=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
qmp_py="$top/selftests/lib/qmp.py"

H_N=0 H_FAILED=0 H_PASSED=0 H_SKIPPED=0
h_ok() { H_N=$((H_N + 1)); H_PASSED=$((H_PASSED + 1)); echo "ok $H_N $*"; }
h_fail() { H_N=$((H_N + 1)); H_FAILED=$((H_FAILED + 1)); echo "not ok $H_N $*"; }
h_skip() {
	local n=$1
	shift
	H_N=$((H_N + 1)) H_SKIPPED=$((H_SKIPPED + 1))
	echo "ok $H_N $n # SKIP $*"
}
h_diag() { echo "# $*"; }
h_eq() {
	if [ "$2" = "$3" ]; then
		h_ok "$1"
	else
		h_diag "$1: got '$2', want '$3'"
		h_fail "$1"
	fi
}

# qmp COMMAND [ARGS-JSON]: on the VM whose QMP socket is $GH_QMP (set for on_wait_*).
qmp() { python3 "$qmp_py" "${GH_QMP:?qmp: GH_QMP is not set}" "$@"; }
qmp_at() { python3 "$qmp_py" "$@"; }

# set_hints ID MIN MAX INC: block-set-growth-hints on device ID (bytes; 0 0 0 withdraws the
# hints); on failure prints why.
set_hints() {
	local err
	err=$(qmp block-set-growth-hints "{\"id\": \"$1\", \"min\": $2, \"max\": $3, \"increment\": $4}" \
		2>&1 >/dev/null) || { echo "block-set-growth-hints $1 $2 $3 $4: $err"; return 1; }
}

# growth_hints_cmd ID MIN MAX INC: the same as a "qmp.py --batch" line.
growth_hints_cmd() {
	echo "block-set-growth-hints {\"id\": \"$1\", \"min\": $2, \"max\": $3, \"increment\": $4}"
}
# qmp_batch: the "COMMAND ARGS" lines on stdin, on one QMP connection (see qmp.py --batch).
qmp_batch() { python3 "$qmp_py" "${GH_QMP:?qmp_batch: GH_QMP is not set}" --batch; }

# storm_start START_GIB ID...: until storm_stop, in the background: round after round, raise
# the maximum of each disk by 1 GiB (it starts at 64 GiB) and grow it by 1 GiB, from
# START_GIB.  Every state is valid.  Errors (a disk that was unplugged) are kept in the log.
# The storm also ends when its QEMU's QMP socket is gone, and h_main stops it when the
# scenario ends, so a guest that fails before its storm_stop leaves nothing running.
storm_start() {
	local start=$1
	shift
	rm -f "$GH_WORK/storm.stop" "$GH_WORK/storm.rounds"
	setsid bash "$GH_SCENARIO" storm-loop "$start" "$@" >"$GH_WORK/storm.log" 2>&1 </dev/null &
	echo $! > "$GH_WORK/storm.pid"
}
_storm_loop() {
	local start=$1 r=0 id G=$((1 << 30))
	shift
	while [ ! -e "$GH_WORK/storm.stop" ] && [ -S "${GH_QMP:?}" ]; do
		r=$((r + 1))
		for id in "$@"; do
			growth_hints_cmd "$id" 0 $(((64 + r) * G)) "$G"
			echo "block_resize {\"device\": \"drv-$id\", \"size\": $(((start + r) * G))}"
		done | qmp_batch >/dev/null || true
		echo "$r" > "$GH_WORK/storm.rounds"
		sleep 0.2
	done
}
# storm_stop: stop the storm; prints the final "MIN MAX INC SIZE" in bytes.
storm_stop() {
	local r G=$((1 << 30))
	_storm_end
	r=$(cat "$GH_WORK/storm.rounds" 2>/dev/null || echo 0)
	echo "0 $(((64 + r) * G)) $G $((($1 + r) * G))"
}

# _storm_end: ask a running storm to stop and wait for it; after 10 s, kill its process group
# (storm_start runs it in a session of its own).
_storm_end() {
	local pid t=100
	pid=$(cat "$GH_WORK/storm.pid" 2>/dev/null) || return 0
	touch "$GH_WORK/storm.stop"
	while kill -0 "$pid" 2>/dev/null; do
		if [ $((t -= 1)) -le 0 ]; then
			kill -TERM -- "-$pid" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	rm -f "$GH_WORK/storm.pid"
}

# qemu_has_hints: $GH_QEMU has the growth properties on virtio-blk-pci and scsi-hd.
qemu_has_hints() {
	local q=$GH_QEMU
	"$q" -device virtio-blk-pci,help 2>/dev/null | matches 'x-growth-max' &&
		"$q" -device scsi-hd,help 2>/dev/null | matches 'x-growth-max'
}
# hint_props MIN MAX INC: the QEMU device properties for these values (bytes or 1G, 64T).
hint_props() { echo "x-growth-hints=on,x-growth-min=$1,x-growth-max=$2,x-growth-increment=$3"; }

# vm NAME [run-vm.sh OPTIONS...]: boot a guest for this scenario; console in
# $GH_WORK/NAME/console.log; GH-WAIT lines go to this script's on_wait_* functions.
# The guest is stopped after GH_TIMEOUT seconds (default 300). A limit is there for a hang, not
# for speed: it is at least five times the guest's time on an idle machine, as a loaded machine
# (scripts/stress-suites.sh) takes up to 3.5 times as long; a longer guest, or one that slows
# down more under load (storm), sets its own.
# Leaves the guest's exit status in VM_STATUS and the console log path in VM_LOG.
vm() {
	local name=$1
	shift
	mkdir -p "$GH_WORK/$name"
	VM_LOG="$GH_WORK/$name/console.log"
	VM_STATUS=0
	local echo=/dev/null
	[ "${GH_VERBOSE:-0}" = 0 ] || echo=/dev/stderr
	bash "$top/scripts/run-vm.sh" --kernel "$GH_KERNEL" --initrd "$GH_INITRD" --qemu "$GH_QEMU" \
		--dir "$GH_WORK/$name" --timeout "${GH_TIMEOUT:-300}" \
		--on-wait "bash $GH_SCENARIO on-wait" "$@" >"$echo" 2>"$GH_WORK/$name/run-vm.err" ||
		VM_STATUS=$?
	return 0
}

# vm_results PREFIX [LOG]: the guest's results from a console log, renumbered into this
# scenario's list with PREFIX; then checks that the guest finished and that the kernel log is
# free of warnings, bugs and sanitizer reports.
vm_results() {
	local prefix=${1:+$1 } log=${2:-$VM_LOG} line res
	local -a lines
	[ -e "$log" ] || : > "$log"
	mapfile -t lines < <(tr -d '\r' < "$log" | sed -n 's/^GH| //p')
	for line in "${lines[@]}"; do
		case "$line" in
		"ok "*" # SKIP "*)
			res=${line#ok * }
			h_skip "$prefix${res%% # SKIP *}" "${res#* # SKIP }"
			;;
		"ok "*) res=${line#ok * }; h_ok "$prefix$res" ;;
		"not ok "*) res=${line#not ok * }; h_fail "$prefix$res" ;;
		"#"*) echo "$line" ;;
		esac
	done
	if ! grep -q '^GH-EXIT ' "$log"; then
		h_diag "${prefix}the guest did not finish (status $VM_STATUS); last console lines:"
		tr -d '\r' < "$log" | grep -v '^GH-DMESG' | tail -n 15 | sed 's/^/#   /' || true
		tail -n 5 "$(dirname "$log")/run-vm.err" 2>/dev/null | sed 's/^/#   /' || true
		h_fail "${prefix}guest finished"
		return 0
	fi
	local bad reports
	reports=$(kernel_reports "$log")
	printf '%s\n' "$reports" | sed -n 's/^known: /# known upstream kernel report, not counted: /p'
	bad=$(printf '%s\n' "$reports" | grep -v '^known: ' | first_lines 5 || true)
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | sed 's/^/# /'
		h_fail "${prefix}kernel log clean"
	fi
	return 0
}

# Reports of the kernel that are known, upstream and unrelated to the series: a name and an
# extended regex each, matched against the report's first lines.  Only these are excused.
known_reports=(
	"pciehp lock order on hot-unplug (upstream; pci_rescan_remove_lock vs reset_lock)|is trying to acquire lock:.*reset_lock.*already holding lock:.*pci_rescan_remove_lock"
)
# kernel_reports LOG: the first line of each warning, bug, sanitizer, lockdep or hung-task
# report in a console log; a known one is a line "known: NAME" instead.
kernel_reports() {
	local n k name re block
	tr -d '\r' < "$1" | grep -v '^GH-DMESG| ' > "$1.reports" || true
	while IFS=: read -r n _; do
		block=$(sed -n "${n},$((n + 12))p" "$1.reports" | tr '\n' ' ')
		for k in "${known_reports[@]}"; do
			name=${k%%|*} re=${k#*|}
			if [[ $block =~ $re ]]; then
				echo "known: $name"
				continue 2
			fi
		done
		sed -n "${n}p" "$1.reports"
	done < <(grep -nE 'WARNING:|BUG:|UBSAN|KASAN|Kernel panic|Oops|INFO: task .* blocked' "$1.reports" || true)
	rm -f "$1.reports"
}

# h_done: the scenario's exit status.
h_done() {
	if [ "$H_FAILED" -gt 0 ]; then
		exit 1
	elif [ "$H_PASSED" -eq 0 ]; then
		exit 4
	fi
	exit 0
}

# h_main "$@": run the scenario, or answer one GH-WAIT when called by run-vm.sh.
h_main() {
	if [ "${1:-}" = storm-loop ]; then
		shift
		_storm_loop "$@"
		exit 0
	fi
	if [ "${1:-}" = on-wait ]; then
		local fn="on_wait_${2//-/_}"
		declare -F "$fn" >/dev/null || { echo "no handler $fn in $GH_SCENARIO"; exit 1; }
		shift 2
		"$fn" "$@"
		exit $?
	fi
	rm -rf "$GH_WORK"
	mkdir -p "$GH_WORK"
	trap _storm_end EXIT
	scenario
	# Disk images are sparse but still hold what the guest wrote.
	find "$GH_WORK" -name '*.img' -delete
	h_done
}
