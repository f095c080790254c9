#!/bin/sh
# tools/bench/bench-many-ags.sh, guest part: XFS with many allocation groups behind a latency
# device (dm-delay over a virtio disk: each read and write waits gh.delay ms).
#   gh.layouts=NAME:SERIAL,...  disks holding the layouts the host made (mounted read-write)
#   gh.delay=MS                 dm-delay's delay for reads, writes and flushes (0: none)
#   gh.mounts=N                 cold mounts (and unmounts) of each layout (default 3)
#   gh.grow=SERIAL              an empty disk: gh.grows times, a fresh 2 GiB XFS (mkfs.xfs's
#                               defaults: 4 AGs) on it grown by xfs_growfs to the whole disk
#   gh.repair=NAME,...          layouts to check with xfs_repair -n, -P and without
#   gh.repairs=PROG,...         the xfs_repair binaries (default: Debian's, /bin/xfs_repair)
#   gh.repair_timeout=S         xfs_repair without -P is killed after S seconds (default 300)
# Prints "# many-ags LAYOUT MEASURE RUN VALUE" lines for the host: seconds (_s), counts, KiB;
# "phase_NAME_s" are the kernel's phase times, when it prints them ("XFS (dm-N): phase NAME
# US us": the bench's debug patch, not part of the series).
# shellcheck source=SCRIPTDIR/../../../selftests/guest/lib/gh.sh
. /lib/gh/gh.sh
delay=$(gh_param delay 0) mounts=$(gh_param mounts 3) grows=$(gh_param grows 1)
rtimeout=$(gh_param repair_timeout 300)
mkdir -p /mnt/x

out() { echo "# many-ags $*"; }
# slow SERIAL NAME: the disk behind dm-delay, as /dev/mapper/NAME
slow() {
	_d=$(gh_disk "$1") || { t_fail "disk $1 present"; return 1; }
	dmsetup --noudevsync create "$2" --table "0 $(cat "/sys/block/$_d/size") delay /dev/$_d 0 $delay" ||
		{ t_fail "dm-delay over $_d"; return 1; }
	[ -b "/dev/mapper/$2" ] || dmsetup mknodes "$2"
}
# iostat NAME: "READS WRITES" completed on /dev/mapper/NAME so far
iostat() {
	# shellcheck disable=SC2046
	set -- $(cat "/sys/block/$(dmsetup info -c --noheadings -o blkdevname "$1" | tr -d " ")/stat")
	echo "$1 $5"
}
# mark TAG: a line in the kernel log; phases TAG: "NAME US" for each phase line after it
mark() { echo "gh-mark $1" > /dev/kmsg; }
phases() {
	dmesg | sed -n "/gh-mark $1\$/,\$p" |
		sed -n 's/.*XFS ([^)]*): phase \([a-z_0-9]*\) \([0-9]*\) us.*/\1 \2/p'
}
# timed LAYOUT MEASURE RUN [gh-timecmd options] COMMAND...: out LAYOUT MEASURE_s RUN SECONDS;
# its status in T_STATUS, the rest of gh-timecmd's line in T_REST
timed() {
	_l=$1 _m=$2 _r=$3
	shift 3
	# shellcheck disable=SC2046
	set -- $(gh-timecmd "$@")
	T_STATUS=$2 T_REST="$3 $4 $5"
	out "$_l ${_m}_s $_r $1"
}
# phase_out LAYOUT RUN TAG
phase_out() {
	phases "$3" | while read -r _p _us; do
		out "$1 phase_${_p}_s $2 $(awk -v u="$_us" 'BEGIN { printf "%.6f", u / 1e6 }')"
	done
}

# The latency as a reader sees it: 4 KiB reads at queue depth 1 for 2 s.
calibrate() {
	_iops=$(gh-randread "/dev/mapper/$1" 2 64)
	out "- read_latency_ms 1 $(awk -v i="$_iops" 'BEGIN { printf "%.3f", 1000 / i }')"
}

bench_mounts() { # NAME
	_n=$1 _dev=/dev/mapper/$1
	out "$_n agcount 1 $(xfs_db -r -c 'sb 0' -c 'p agcount' "$_dev" | sed 's/.*= //')"
	_i=1
	while [ "$_i" -le "$mounts" ]; do
		sync
		echo 3 > /proc/sys/vm/drop_caches
		mark "$_n-mount-$_i"
		# shellcheck disable=SC2046
		set -- $(iostat "$_n")
		_r0=$1 _w0=$2
		timed "$_n" mount "$_i" mount -t xfs "$_dev" /mnt/x
		[ "$T_STATUS" = 0 ] || { t_fail "mount $_n ($_i)"; return 1; }
		# shellcheck disable=SC2046
		set -- $(iostat "$_n")
		out "$_n mount_reads $_i $(($1 - _r0))"
		out "$_n mount_writes $_i $(($2 - _w0))"
		phase_out "$_n" "$_i" "$_n-mount-$_i"
		mark "$_n-umount-$_i"
		timed "$_n" umount "$_i" umount /mnt/x
		[ "$T_STATUS" = 0 ] || { t_fail "umount $_n ($_i)"; return 1; }
		phase_out "$_n" "$_i" "$_n-umount-$_i"
		_i=$((_i + 1))
	done
	t_ok "$_n: $mounts mounts and unmounts"
}

bench_grow() { # NAME
	_n=$1 _dev=/dev/mapper/$1 _i=1
	while [ "$_i" -le "$grows" ]; do
		mkfs.xfs -q -f -K -d size=2g "$_dev" || { t_fail "mkfs.xfs 2 GiB"; return 1; }
		mount -t xfs "$_dev" /mnt/x || { t_fail "mount the 2 GiB filesystem"; return 1; }
		sync
		echo 3 > /proc/sys/vm/drop_caches
		mark "$_n-grow-$_i"
		# shellcheck disable=SC2046
		set -- $(iostat "$_n")
		_r0=$1 _w0=$2
		timed "$_n" growfs "$_i" -s -o /tmp/growfs.log xfs_growfs /mnt/x
		[ "$T_STATUS" = 0 ] || { sed 's/^/# /' /tmp/growfs.log; t_fail "xfs_growfs ($_i)"; }
		# shellcheck disable=SC2086
		set -- $T_REST
		out "$_n growfs_memdrop_kib $_i $3"
		# shellcheck disable=SC2046
		set -- $(iostat "$_n")
		out "$_n growfs_reads $_i $(($1 - _r0))"
		out "$_n growfs_writes $_i $(($2 - _w0))"
		phase_out "$_n" "$_i" "$_n-grow-$_i"
		umount /mnt/x || { t_fail "umount after growfs"; return 1; }
		out "$_n agcount $_i $(xfs_db -r -c 'sb 0' -c 'p agcount' "$_dev" | sed 's/.*= //')"
		_i=$((_i + 1))
	done
	t_ok "$_n: $grows growfs runs"
}

bench_repair() { # NAME PROG
	_n=$1 _dev=/dev/mapper/$1 _prog=$2 _k=${2##*/}
	case "$_prog" in /opt/gh-mkfs/*) _k=series ;; *) _k=debian ;; esac
	for _p in -P ""; do
		sync
		echo 3 > /proc/sys/vm/drop_caches
		_t=0
		[ -n "$_p" ] || _t=$rtimeout
		# shellcheck disable=SC2086
		timed "$_n" "repair_${_k}${_p:+_P}" 1 -s -t "$_t" -o /tmp/repair.log "$_prog" -n $_p "$_dev"
		# shellcheck disable=SC2086
		set -- $T_REST
		out "$_n repair_${_k}${_p:+_P}_status 1 $T_STATUS"
		out "$_n repair_${_k}${_p:+_P}_maxrss_kib 1 $1"
		out "$_n repair_${_k}${_p:+_P}_threads 1 $2"
		out "$_n repair_${_k}${_p:+_P}_memdrop_kib 1 $3"
		case "$T_STATUS" in
		0) t_ok "$_n: xfs_repair -n $_p ($_k)" ;;
		-1) t_ok "$_n: xfs_repair -n $_p ($_k) stopped after $_t s" ;;
		*) tail -n 5 /tmp/repair.log | sed 's/^/# /'; t_fail "$_n: xfs_repair -n $_p ($_k): status $T_STATUS" ;;
		esac
	done
}

diag "delay $delay ms; $(grep -c ^processor /proc/cpuinfo) cpu, $(sed -n 's/MemTotal: *//p' /proc/meminfo)"
layouts=$(gh_param layouts | tr , ' ')
first=""
for l in $layouts; do
	slow "${l#*:}" "${l%%:*}" || continue
	[ -n "$first" ] || { first=${l%%:*}; calibrate "$first"; }
	bench_mounts "${l%%:*}"
done
g=$(gh_param grow)
if [ -n "$g" ]; then
	slow "$g" grow && bench_grow grow
fi
for r in $(gh_param repair | tr , ' '); do
	for p in $(gh_param repairs /bin/xfs_repair | tr , ' '); do
		bench_repair "$r" "$p"
	done
done
gh_done
