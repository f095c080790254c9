#!/bin/sh
# NVMe namespaces: exact bytes of the hints in sysfs, 0 0 0 for a namespace without them, then a
# run-time change (block-set-growth-hints) and a grow (a higher maximum, then block_resize)
# reach sysfs with a GROWTH_HINTS=1 uevent (and RESIZE=1 for the grow).
# With native multipath (gh.paths=N) the disk is the multipath disk: it has N paths, it shows
# the hints of the path updated last (like its capacity), and the hidden per-path disks show
# none, so that a rejected report is logged once, for the disk users see.
# gh.disks=SERIAL:SIZE:LBS:MIN:MAX:INC,...  (bytes; the first two are changed at run time)
# gh.new=MIN:MAX:INC  gh.grow=SIZE:MIN:MAX:INC  gh.paths=N (optional)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
# idns_check SERIAL DISK LBS MIN MAX INC: Debian's nvme-cli dumps the NVM Command Set Identify
# Namespace data; NSZRA (byte 296) and the three little-endian counts of logical blocks at
# 304, 312 and 320 (Documentation/nvme/, section 3.8) are the values given to QEMU.
idns_check() {
	if ! nvme nvm-id-ns "/dev/$2" -o binary > /tmp/idns.bin 2>/tmp/idns.err; then
		t_fail "$1 nvme nvm-id-ns: $(cat /tmp/idns.err)"
		return
	fi
	_u8() { od -A n -t u8 -j "$1" -N 8 /tmp/idns.bin | tr -d ' '; }
	_v=1
	[ "$6" != 0 ] || _v=0
	t_eq "$1 nvm-id-ns NSZRA" "$(od -A n -t u1 -j 296 -N 1 /tmp/idns.bin | tr -d ' ')" "$_v"
	t_eq "$1 nvm-id-ns MINNSZE MAXNSZE NSZEINC" "$(_u8 304) $(_u8 312) $(_u8 320)" \
		"$(($4 / $3)) $(($5 / $3)) $(($6 / $3))"
}
changed=""
n=0
for spec in $(gh_param disks | tr ',' ' '); do
	gh_disk_spec "$spec" || continue
	[ -z "$(gh_param idns)" ] || idns_check "$serial" "$d" "$lbs" "$min" "$max" "$inc"
	n=$((n + 1))
	[ $n -gt 2 ] || changed="$changed $serial:$d"
done

hints_are() { [ "$(gh_hints "$1")" = "$2" ]; }
size_is() { [ "$(gh_size_bytes "$1")" = "$2" ]; }

# paths PREFIX DISK: with gh.paths, the multipath disk's paths, which show no hints.
paths=$(gh_param paths)
paths() {
	[ -n "$paths" ] || return 0
	_np=0
	for _p in "/sys/block/$2/multipath/"*; do
		[ -e "$_p" ] || continue
		_np=$((_np + 1))
		t_eq "$1 path ${_p##*/} hints" "$(gh_hints "${_p##*/}")" "0 0 0"
	done
	t_eq "$1 paths" "$_np" "$paths"
}
for sd in $changed; do
	paths "${sd%%:*}" "${sd#*:}"
done

# With gh.paths, a grow is also read past the old end the moment the multipath disk sends its
# RESIZE uevent (gh-read-on-resize, SCHED_FIFO on the guest's one CPU, all reads submitted at
# once; the policy is round-robin, so every usable path gets some).  The last path's controller
# is kept from rescanning by turning its Asynchronous Event Configuration off for the step: its
# path keeps the old capacity.  As in the base kernel, which marks such paths unusable while the
# multipath disk is frozen, before it takes the new capacity, no read may reach that path: its
# read count must not change.  Then that controller is rescanned by hand and its notices turned
# on again.
racers="" late=""
race_start() {
	[ -n "$paths" ] || return 0
	for sd in $changed; do
		_d=${sd#*:}
		for _p in "/sys/block/$_d/multipath/"*; do late=${_p##*/}; done
		late=${late#nvme*c} late=/dev/nvme${late%n*}
		aec=$(nvme get-feature "$late" -f 0x0b 2>/dev/null | sed -n 's/.*[Cc]urrent value: *\(0x[0-9a-fA-F]*\).*/\1/p')
		if [ -z "$aec" ] || ! nvme set-feature "$late" -f 0x0b -v 0 >/dev/null 2>&1; then
			diag "cannot turn the notices of $late off (aec '$aec')"
			late=""
		fi
		_old=$(cat "/sys/block/$_d/size")
		gh-read-on-resize "$_d" "$(gh_size_bytes "$_d")" 8 "/sys/block/$_d/size" \
			"/sys/block/$_d/multipath/"*/size "/sys/block/$_d/multipath/"*/stat \
			> "/tmp/race-$_d" 2>&1 &
		racers="$racers $!:$sd"
		gh_poll 50 grep -q listening "/tmp/race-$_d" || diag "gh-read-on-resize $_d did not start"
	done
}
gone() { ! kill -0 "$1" 2>/dev/null; }
race_check() {
	for _r in $racers; do
		_pid=${_r%%:*} _sd=${_r#*:}
		if ! gh_poll 300 gone "$_pid"; then
			kill "$_pid" 2>/dev/null
			echo "no RESIZE uevent within 30 s" >> "/tmp/race-${_sd#*:}"
		fi
		wait "$_pid"
		_f=/tmp/race-${_sd#*:}
		_ok=1
		t_eq "${_sd%%:*} $1 read past the old end at the RESIZE uevent" "$(sed -n '$p' "$_f")" ok ||
			_ok=0
		# the reads a path got: field 1 of its stat, after less before
		_stale=$(sed -n "s|^before \(.*multipath/.*\)/size: $_old\$|\1|p" "$_f")
		t_eq "${_sd%%:*} $1 a path without the new capacity at the uevent" \
			"$(echo "$_stale" | wc -w)" 1 || _ok=0
		for _p in $_stale; do
			_b=$(sed -n "s|^before $_p/stat: *\([0-9]*\).*|\1|p" "$_f")
			_a=$(sed -n "s|^after $_p/stat: *\([0-9]*\).*|\1|p" "$_f")
			t_eq "${_sd%%:*} $1 reads sent to ${_p##*/}, which has the old capacity" \
				"$((_a - _b))" 0 || _ok=0
		done
		# what the reader saw, when something was wrong
		[ "$_ok" = 1 ] || sed 's/^/# /' "$_f"
	done
	racers=""
	if [ -n "$late" ]; then
		echo 1 > "/sys/class/nvme/${late#/dev/}/rescan_controller"
		nvme set-feature "$late" -f 0x0b -v "$aec" >/dev/null 2>&1 ||
			diag "cannot turn the notices of $late on again"
		late=""
	fi
}

# step NAME SIZE "MIN MAX INC": the host acts, the guest checks the namespaces it changed.
step() {
	gh_uevents_clear
	[ -z "$2" ] || race_start
	if ! gh_wait "$1"; then
		t_fail "$1: the host could not act: $GH_REPLY"
		return 0
	fi
	[ -z "$2" ] || race_check "$1"
	for sd in $changed; do
		serial=${sd%%:*} d=${sd#*:}
		if [ -n "$2" ]; then
			gh_poll 300 size_is "$d" "$2" || diag "$serial: size still $(gh_size_bytes "$d") after 30 s"
			t_eq "$serial $1 capacity" "$(gh_size_bytes "$d")" "$2"
			if gh_poll 50 gh_uevent_seen "ACTION=change" "DEVNAME=$d " "RESIZE=1"; then
				t_ok "$serial $1 uevent RESIZE=1"
			else
				diag "uevents: $(cat /run/uevents.log)"
				t_fail "$serial $1 uevent RESIZE=1"
			fi
		fi
		gh_poll 300 hints_are "$d" "$3" || diag "$serial: hints still '$(gh_hints "$d")' after 30 s"
		gh_check_hints "$serial $1" "$d" "$3"
		paths "$serial $1" "$d"
		gh_check_growth_uevent "$serial $1" "$d"
	done
}

step change "" "$(gh_param new | tr ':' ' ')"
grow=$(gh_param grow)
step grow "${grow%%:*}" "$(echo "${grow#*:}" | tr ':' ' ')"
for sd in $changed; do
	t_cmd "${sd%%:*} readable after the grow" dd if="/dev/${sd#*:}" of=/dev/null bs=4096 count=16
done
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
