# shellcheck shell=sh
# Helpers for the guest test scripts (busybox sh).  Source it: . /lib/gh/gh.sh
# Results are KTAP lines without header or plan: the host harness (selftests/run.sh)
# nests them under the scenario and writes the plan.

GH_N=0
GH_FAILED=0
GH_PASSED=0
GH_SKIPPED=0
GH_HINT_ATTRS="min_growth_bytes max_growth_bytes growth_increment_bytes"

diag() { echo "# $*"; }
t_ok() { GH_N=$((GH_N + 1)); GH_PASSED=$((GH_PASSED + 1)); echo "ok $GH_N $*"; }
t_fail() { GH_N=$((GH_N + 1)); GH_FAILED=$((GH_FAILED + 1)); echo "not ok $GH_N $*"; }
# t_skip NAME REASON...
t_skip() {
	_n=$1
	shift
	GH_N=$((GH_N + 1))
	GH_SKIPPED=$((GH_SKIPPED + 1))
	echo "ok $GH_N $_n # SKIP $*"
}
# t_eq NAME GOT WANT: its status is 1 when GOT is not WANT
t_eq() {
	if [ "$2" = "$3" ]; then
		t_ok "$1"
	else
		diag "$1: got '$2', want '$3'"
		t_fail "$1"
		return 1
	fi
}
# t_cmd NAME COMMAND...: ok when the command succeeds; its output is kept as diagnostics.
t_cmd() {
	_n=$1
	shift
	if _o=$("$@" 2>&1); then
		t_ok "$_n"
	else
		echo "$_o" | tail -n 15 | sed 's/^/# /'
		t_fail "$_n"
	fi
}
# gh_done: the test's exit status (1 if any check failed).
gh_done() {
	diag "guest: $GH_PASSED passed, $GH_FAILED failed, $GH_SKIPPED skipped"
	[ "$GH_FAILED" = 0 ]
}

# gh_param KEY [DEFAULT]: value of gh.KEY= on the kernel command line.
gh_param() {
	read -r _cl < /proc/cmdline
	for _w in $_cl; do
		case "$_w" in
		"gh.$1="*) echo "${_w#gh."$1"=}"; return 0 ;;
		esac
	done
	echo "${2:-}"
}

# gh_wait TOKEN [ARGS...]: ask the host to act ("GH-WAIT TOKEN ARGS" on ttyS1, and on the
# console for the log) and block until it answers on ttyS1.  Succeeds when the answer is
# "GH-GO TOKEN ok"; the rest of the answer is left in GH_REPLY.
gh_wait() {
	GH_REPLY=""
	echo "GH-WAIT $*"
	echo "GH-WAIT $*" >&3
	if ! IFS= read -r _line <&3; then
		diag "no answer from the host for '$1' (is ttyS1 connected?)"
		return 1
	fi
	_line=$(echo "$_line" | tr -d '\r')
	case "$_line" in
	"GH-GO $1 ok"*) GH_REPLY=${_line#"GH-GO $1 ok"}; GH_REPLY=${GH_REPLY# }; return 0 ;;
	esac
	GH_REPLY=${_line#"GH-GO $1 "}
	diag "host answered '$_line' to '$1'"
	return 1
}

# gh_poll TENTHS COMMAND...: run COMMAND every 0.1 s until it succeeds, at most TENTHS times.
gh_poll() {
	_t=$1
	shift
	while [ "$_t" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

_gh_serial_of() {
	case "$1" in
	vd*) cat "/sys/block/$1/serial" 2>/dev/null ;;
	sd*) tail -c +5 "/sys/block/$1/device/vpd_pg80" 2>/dev/null | tr -d '\000 ' ;;
	nvme*) tr -d ' ' < "/sys/block/$1/device/serial" 2>/dev/null ;;
	esac
}
_gh_find_disk() {
	for _d in /sys/block/vd* /sys/block/sd* /sys/block/nvme*n*; do
		[ -e "$_d" ] || continue
		# the hidden per-path disks of NVMe multipath (nvme0c0n1)
		case "${_d##*/}" in nvme*c*n*) continue ;; esac
		if [ "$(_gh_serial_of "${_d##*/}")" = "$1" ]; then
			echo "${_d##*/}"
			return 0
		fi
	done
	return 1
}
# gh_disk SERIAL: the name (vda, sdb, ...) of the disk with that serial; waits up to 10 s.
gh_disk() {
	gh_poll 100 _gh_find_disk "$1" || return 1
	_gh_find_disk "$1"
}

# gh_has_hints DISK: the kernel has the growth hint attributes.
gh_has_hints() { [ -r "/sys/block/$1/queue/min_growth_bytes" ]; }
# gh_hints DISK: "min max increment" as the kernel shows them.
gh_hints() {
	_r=""
	for _a in $GH_HINT_ATTRS; do
		_r="$_r $(cat "/sys/block/$1/queue/$_a" 2>/dev/null || echo '?')"
	done
	echo "${_r# }"
}
gh_size_bytes() { echo $(($(cat "/sys/block/$1/size") * 512)); }
gh_lbs() { cat "/sys/block/$1/queue/logical_block_size"; }

# gh_check_hints PREFIX DISK "MIN MAX INC": one result per attribute, exact bytes.
gh_check_hints() {
	_p=$1 _d=$2
	# shellcheck disable=SC2086
	set -- $3
	if ! gh_has_hints "$_d"; then
		t_skip "$_p hints" "kernel has no /sys/block/$_d/queue/min_growth_bytes"
		return 0
	fi
	t_eq "$_p min_growth_bytes" "$(cat "/sys/block/$_d/queue/min_growth_bytes")" "$1"
	t_eq "$_p max_growth_bytes" "$(cat "/sys/block/$_d/queue/max_growth_bytes")" "$2"
	t_eq "$_p growth_increment_bytes" "$(cat "/sys/block/$_d/queue/growth_increment_bytes")" "$3"
}

# gh_be64 N: N as 8 big-endian bytes, "xx xx xx xx xx xx xx xx".
gh_be64() { printf '%016x' "$1" | sed 's/../& /g; s/ $//'; }

# gh_vpd_hex DISK PAGE: the page as sg_vpd --hex prints it, bytes only, space separated.
gh_vpd_hex() {
	sg_vpd --page="$2" --hex "/dev/$1" 2>/dev/null |
		awk '/^ [0-9a-f]+ / { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) printf "%s ", $i }' |
		sed 's/ $//'
}

# gh_expected_vpd_bb LBS "MIN MAX INC": the Capacity Growth VPD page for these byte values.
gh_expected_vpd_bb() {
	# shellcheck disable=SC2086
	set -- "$1" $2
	echo "00 bb 00 18 $(gh_be64 $(($2 / $1))) $(gh_be64 $(($3 / $1))) $(gh_be64 $(($4 / $1)))"
}

# gh_uevents_clear / gh_uevent_seen PATTERN...: the uevent helper's log (/run/uevents.log).
# A fresh 1 MiB random pattern in /tmp/pattern; prints its sha256.
gh_new_pattern() {
	dd if=/dev/urandom of=/tmp/pattern bs=1M count=1 2>/dev/null
	sha256sum < /tmp/pattern | cut -d' ' -f1
}

gh_uevents_clear() { : > /run/uevents.log; }
gh_uevent_seen() {
	_l=/run/uevents.log
	for _pat in "$@"; do
		_l2=$(grep -e "$_pat" "$_l" 2>/dev/null) || return 1
		echo "$_l2" > /run/uevents.match
		_l=/run/uevents.match
	done
}

# gh_kernel_clean: no kernel warning, bug or sanitizer report so far.
gh_kernel_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|UBSAN|KASAN|Oops|Call Trace|INFO: task .* blocked'
}

# gh_io_start DISK...: write a 4 MiB random pattern at the start of each disk, then, in the
# background until gh_io_stop, read it back (past the page cache) and compare, and rewrite a
# scratch area after it.  A disk that goes away is left alone from then on.  A read of the
# pattern that returns other data is a mismatch (/tmp/io.bad: corruption); one that returns
# less than 4 MiB (the disk was smaller for a moment) is counted apart (/tmp/io.short).
gh_io_start() {
	rm -f /tmp/io.stop /tmp/io.bad /tmp/io.short /tmp/io.rounds
	for _d in "$@"; do
		dd if=/dev/urandom of="/tmp/io.$_d" bs=1M count=4 2>/dev/null
		dd if="/tmp/io.$_d" of="/dev/$_d" bs=1M conv=fsync 2>/dev/null
		sha256sum < "/tmp/io.$_d" | cut -d' ' -f1 > "/tmp/io.$_d.sum"
	done
	(
		while [ ! -e /tmp/io.stop ]; do
			for _d in "$@"; do
				[ -b "/dev/$_d" ] || continue
				blockdev --flushbufs "/dev/$_d" 2>/dev/null
				dd if="/dev/$_d" of=/tmp/io.read bs=1M count=4 2>/dev/null
				if [ ! -b "/dev/$_d" ]; then
					:
				elif [ "$(wc -c < /tmp/io.read)" != 4194304 ]; then
					echo "$_d" >> /tmp/io.short
				elif [ "$(sha256sum < /tmp/io.read | cut -d' ' -f1)" != "$(cat "/tmp/io.$_d.sum")" ]; then
					echo "$_d" >> /tmp/io.bad
				fi
				dd if=/dev/urandom of="/dev/$_d" bs=64k count=16 seek=128 conv=fsync 2>/dev/null
			done
			echo x >> /tmp/io.rounds
		done
	) &
	GH_IO_PID=$!
}
# gh_io_stop: stop the background I/O; prints "ROUNDS MISMATCHES".
gh_io_stop() {
	touch /tmp/io.stop
	wait "$GH_IO_PID"
	echo "$(wc -l 2>/dev/null < /tmp/io.rounds || echo 0) $(wc -l 2>/dev/null < /tmp/io.bad || echo 0)"
}
# gh_io_check PREFIX DISK...: after gh_io_stop, each disk still holds its pattern.
gh_io_check() {
	_p=$1
	shift
	for _d in "$@"; do
		blockdev --flushbufs "/dev/$_d" 2>/dev/null
		t_eq "$_p $_d data intact" "$(dd if="/dev/$_d" bs=1M count=4 2>/dev/null | sha256sum | cut -d' ' -f1)" \
			"$(cat "/tmp/io.$_d.sum")"
	done
}
# gh_log_lines DISK: the kernel's "ignoring capacity growth hints" lines for the disk.
gh_log_lines() { dmesg | grep -c "$1: ignoring capacity growth hints"; }
# gh_storm_settle DISK: ask the host to stop its background storm; it answers with the hints
# and size it set last ("MIN MAX INC SIZE").  Waits until DISK shows them, stops the background
# I/O (its "ROUNDS MISMATCHES" become a diagnostic) and sets GH_WANT ("MIN MAX INC") and
# GH_SIZE.  Returns 1 (after a failed test line) when the host did not stop the storm.
gh_storm_settle() {
	if ! gh_wait storm-stop; then
		gh_io_stop >/dev/null
		t_fail "storm stopped: $GH_REPLY"
		return 1
	fi
	# shellcheck disable=SC2086
	set -- "$1" $GH_REPLY
	GH_WANT="$2 $3 $4" GH_SIZE=$5
	_settle_disk=$1
	# shellcheck disable=SC2317 # called through gh_poll
	_settled() { [ "$(gh_hints "$_settle_disk")" = "$GH_WANT" ] &&
		[ "$(gh_size_bytes "$_settle_disk")" = "$GH_SIZE" ]; }
	gh_poll 300 _settled || true
	diag "I/O rounds and mismatches: $(gh_io_stop)"
}
# gh_disk_spec SERIAL:SIZE:LBS:MIN:MAX:INC: find the disk and check its capacity, logical block
# size and hints (bytes).  Sets serial size lbs min max inc and d (the disk's name); returns 1
# (after a failed test line) when there is no such disk.
gh_disk_spec() {
	IFS=: read -r serial size lbs min max inc <<-EOF
	$1
	EOF
	if ! d=$(gh_disk "$serial"); then
		t_fail "$serial present"
		return 1
	fi
	diag "$serial is $d: $(gh_hints "$d")"
	t_eq "$serial capacity" "$(gh_size_bytes "$d")" "$size"
	t_eq "$serial logical_block_size" "$(gh_lbs "$d")" "$lbs"
	gh_check_hints "$serial" "$d" "$min $max $inc"
}
# gh_check_growth_uevent NAME DISK: a change uevent with GROWTH_HINTS=1 arrived for DISK.
gh_check_growth_uevent() {
	if gh_poll 50 gh_uevent_seen "ACTION=change" "DEVNAME=$2 " "GROWTH_HINTS=1"; then
		t_ok "$1 uevent GROWTH_HINTS=1"
	else
		diag "uevents: $(cat /run/uevents.log)"
		t_fail "$1 uevent GROWTH_HINTS=1"
	fi
}
