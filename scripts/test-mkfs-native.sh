#!/usr/bin/env bash
# The mke2fs and mkfs.xfs of the e2fsprogs and xfsprogs series on image files, as KTAP (the
# "mkfs-native" suite):
#   - on files of several sizes (files have no growth hints) the superblock and the geometry
#     are byte for byte those of the unpatched bases (fixed UUID, hash seed and time);
#   - the growth_target options give tools/POLICY.md's geometry for an explicit target
#     (section 3.6 and the examples of section 4);
#   - the withdrawn image mode is gone: no growth_single_ag, and a stale superblock of one AG
#     larger than the filesystem is refused by the series' xfs_repair, which changes nothing;
#   - the XFS AG rule on every path (a sweep of mkfs.xfs -N over sizes, targets, sector and
#     block sizes, stripes; CPU counts on a non-rotational loop device): 3-8 AGs, every AG at
#     least 1/8 of the device, no block dropped, the log inside; else the unpatched geometry;
#   - the hinted path through libblkid on loop devices whose queue directory is replaced in a
#     private mount namespace (root): a maximum alone is a hint; MKFS_XFS_GROWTH_HINTS=0;
#   - a lost primary with a single-AG image stored below AG 1: the series' xfs_repair restores
#     it on the default and the hinted layouts.
# The hinted path of the kernel itself: the mkfs-native scenario.  Uses what
# 'make e2fsprogs xfsprogs mkfs-stock' built in build/out; builds nothing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

series_e2="$out/e2fsprogs/sbin" stock_e2="$out/e2fsprogs-stock/sbin"
series_xfs="$out/xfsprogs/sbin" stock_xfs="$out/xfsprogs-stock/sbin"
echo "KTAP version 1"
for p in "$series_e2/mke2fs" "$series_e2/dumpe2fs" "$stock_e2/mke2fs" "$series_xfs/mkfs.xfs" \
	"$series_xfs/xfs_db" "$stock_xfs/mkfs.xfs"; do
	if [ ! -x "$p" ]; then
		echo "1..1"
		echo "not ok 1 mkfs-native: $p is missing (make e2fsprogs xfsprogs mkfs-stock)"
		exit 1
	fi
done
export MKE2FS_CONFIG="$out/e2fsprogs/etc/mke2fs.conf" E2FSPROGS_FAKE_TIME=1700000000
uuid=6b1c1f3e-2c4d-4e5f-8a9b-0c1d2e3f4a5b
work=$(mktemp -d "$top/build/mkfs-native.XXXXXX")
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); failed=1; echo "not ok $n $*"; }
# same NAME A B: ok when the two files are identical, else the start of their diff.
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		diff "$2" "$3" | first_lines 10 | sed 's/^/# /' || true
		nok "$1"
	fi
}
eq() { if [ "$2" = "$3" ]; then ok "$1"; else echo "# got '$2', want '$3'"; nok "$1"; fi; }
# img SIZE: a fresh sparse file
img() { rm -f "$work/img"; truncate -s "$1" "$work/img"; }
mke2fs_() { # mke2fs_ BIN ARGS...: a reproducible mke2fs
	"$1" -q -F -t ext4 -U "$uuid" -E "hash_seed=$uuid${3:+,$3}" "$work/img" >/dev/null
}
xfs_sb() { "$series_xfs/xfs_db" -r -c 'sb 0' -c print "$work/img"; }
sb_bytes() { dd if="$work/img" bs="$1" skip="$2" count=1 status=none; }
e2field() { "$series_e2/dumpe2fs" -h "$work/img" 2>/dev/null | sed -n "s/^$1: *//p"; }
xfsfield() { "$series_xfs/xfs_db" -r -c 'sb 0' -c "print $1" "$work/img" | sed 's/.* = //'; }

# 1. No hints: the unpatched tools' superblock, byte for byte.
for size in 300M 2G 16G 2T; do
	img "$size"
	mke2fs_ "$stock_e2/mke2fs"
	sb_bytes 1024 1 > "$work/sb.stock"
	"$series_e2/dumpe2fs" "$work/img" > "$work/dump.stock" 2>/dev/null
	img "$size"
	mke2fs_ "$series_e2/mke2fs"
	sb_bytes 1024 1 > "$work/sb.series"
	"$series_e2/dumpe2fs" "$work/img" > "$work/dump.series" 2>/dev/null
	same "ext4 $size: superblock identical to the unpatched mke2fs" "$work/sb.stock" "$work/sb.series"
	same "ext4 $size: dumpe2fs (every group) identical" "$work/dump.stock" "$work/dump.series"

	img "$size"
	"$stock_xfs/mkfs.xfs" -q -f -m uuid="$uuid" "$work/img"
	sb_bytes 512 0 > "$work/sb.stock"
	xfs_sb > "$work/xsb.stock"
	img "$size"
	"$series_xfs/mkfs.xfs" -q -f -m uuid="$uuid" "$work/img"
	sb_bytes 512 0 > "$work/sb.series"
	xfs_sb > "$work/xsb.series"
	same "xfs $size: superblock identical to the unpatched mkfs.xfs" "$work/sb.stock" "$work/sb.series"
	same "xfs $size: xfs_db sb 0 identical" "$work/xsb.stock" "$work/xsb.series"
done

# 2. An explicit target (POLICY.md 4: "10 GiB, target 10 TiB", "10 GiB -> 100 GiB").
img 10G
mke2fs_ "$series_e2/mke2fs" "" growth_target=10T
eq "ext4 10G target 10T: inodes of the size as made (16 KiB each, not the big type's 32)" "$(e2field "Inode count")" $((10 * 1024 * 1024 / 16))
eq "ext4 10G target 10T: journal 320 MiB (1/32 of 10 GiB)" "$(e2field "Total journal blocks")" $((320 * 256))
img 10G
mke2fs_ "$series_e2/mke2fs" "" growth_target=100G
eq "ext4 10G target 100G: reserved GDT blocks 11" "$(e2field "Reserved GDT blocks")" 11
img 10G
mke2fs_ "$series_e2/mke2fs" "" growth_target=10G
# A target of the size as made changes nothing: resize_inode and mke2fs's reserve stay.
eq "ext4 10G target 10G: resize_inode and mke2fs's reserve kept" \
	"$(e2field "Filesystem features" | tr ' ' '\n' | grep -c '^resize_inode$' || true) $(e2field "Reserved GDT blocks")" "1 1024"
# XFS with a target (what plain mkfs.xfs makes on a disk with the same hints, bar the log):
# three AGs within the file, two of 7/16 of it, whatever the target: a layout Debian's
# xfs_repair takes, and the fewest AGs with which it outvotes one bad superblock (fstests
# xfs/070), as with the default four.
# log_in_device: the internal log ends inside the data section (AG number and block from
# logstart).
log_in_device() {
	local start agblklog agblocks dblocks logblocks
	start=$(xfsfield logstart) agblklog=$(xfsfield agblklog) agblocks=$(xfsfield agblocks)
	dblocks=$(xfsfield dblocks) logblocks=$(xfsfield logblocks)
	[ $(((start >> agblklog) * agblocks + (start & ((1 << agblklog) - 1)) + logblocks)) -le "$dblocks" ]
}
check_log() { if log_in_device; then ok "$1: the internal log ends inside the device"; else nok "$1: the internal log ends inside the device"; fi; }
stock_repair=$(command -v xfs_repair || true)
# repair_n NAME BIN: xfs_repair -n BIN accepts the image
repair_n() {
	local out
	if out=$("$2" -n "$work/img" 2>&1); then
		ok "$1"
	else
		echo "$out" | first_lines 6 | sed 's/^/# /' || true
		nok "$1"
	fi
}
img 10G
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t "$work/img"
eq "xfs 10G target 10T: three AGs of 4480 MiB (7/16 of the file)" \
	"$(xfsfield agcount) $(xfsfield agblocks)" "3 $((4480 * 256))"
eq "xfs 10G target 10T: log 320 MiB (the target's, at most 1/32)" "$(xfsfield logblocks)" $((320 * 256))
check_log "xfs 10G target 10T"
repair_n "xfs 10G target 10T: the series' xfs_repair -n clean" "$series_xfs/xfs_repair"
if [ -n "$stock_repair" ]; then
	repair_n "xfs 10G target 10T: this host's xfs_repair -n clean ($("$stock_repair" -V))" "$stock_repair"
	cp --sparse=always "$work/img" "$work/img.keep"
	dd if=/dev/zero of="$work/img" bs=512 count=1 conv=notrunc status=none
	if "$stock_repair" "$work/img" >"$work/repair.log" 2>&1 && "$stock_repair" -n "$work/img" >/dev/null 2>&1; then
		ok "xfs 10G target 10T: first sector zeroed, this host's xfs_repair restores it from AG 1"
	else
		first_lines 6 < "$work/repair.log" | sed 's/^/# /' || true
		nok "xfs 10G target 10T: first sector zeroed, this host's xfs_repair restores it from AG 1"
	fi
	# fstests xfs/070: the last secondary superblock overwritten; repair must not need a
	# brute force scan (with two AGs it has nothing left to compare the primary with).
	cp --sparse=always "$work/img.keep" "$work/img"
	agno=$(($(xfsfield agcount) - 1))
	dd if=/dev/zero bs=512 count=1 status=none | tr '\0' '\377' |
		dd of="$work/img" bs=4096 seek=$((agno * $(xfsfield agblocks))) conv=notrunc status=none
	if timeout 120 "$stock_repair" "$work/img" >"$work/repair.log" 2>&1 &&
		! matches "attempting to find secondary superblock" "$work/repair.log" &&
		"$stock_repair" -n "$work/img" >/dev/null 2>&1; then
		ok "xfs 10G target 10T: last secondary superblock overwritten, this host's xfs_repair outvotes it"
	else
		first_lines 6 < "$work/repair.log" | sed 's/^/# /' || true
		nok "xfs 10G target 10T: last secondary superblock overwritten, this host's xfs_repair outvotes it"
	fi
	mv "$work/img.keep" "$work/img"
else
	ok "xfs 10G target 10T: this host's xfs_repair # SKIP no xfs_repair on this host (apt package xfsprogs)"
fi
# growth_target=64t: the AG size is still 7/16 of the file (a target is not capped, the file is).
"$series_xfs/mkfs.xfs" -q -f -d growth_target=64t "$work/img"
eq "xfs 10G target 64T: agcount 3" "$(xfsfield agcount)" 3
img 300M
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10g "$work/img"
eq "xfs 300M target 10G: agsize 131 MiB" "$(xfsfield agblocks)" $((131 * 256))
eq "xfs 300M target 10G: log in AG 1, a full one" "$(($(xfsfield logstart) >> $(xfsfield agblklog)))" 1
check_log "xfs 300M target 10G"
repair_n "xfs 300M target 10G: xfs_repair -n clean" "$series_xfs/xfs_repair"

# The test shims (scripts/test-shim.c): a CPU count other than this machine's, and the number
# of threads a program created.
shim=0
if cc -shared -fPIC -o "$work/shim.so" "$top/scripts/test-shim.c" -ldl 2>"$work/cc.log"; then
	shim=1
fi

# xfs_repair on a filesystem of many AGs, nearly all empty (what a small image grown far is):
# the series' starts no inode prefetch for an AG without inodes (xfsprogs patch 10) and no
# phase 6 work queue for an AG without directories (patch 11), so the threads it creates do not
# grow with the AG count; the unpatched one creates more than one per AG (five for every AG's
# prefetch in each of three phases).
# threads_n BIN: the threads BIN -n created on the image, or why there is no count
threads_n() {
	rm -f "$work/threads"
	if ! GH_THREADS_OUT="$work/threads" LD_PRELOAD="$work/shim.so" "$1" -n "$work/img" \
		>"$work/repair.log" 2>&1; then
		echo "none: xfs_repair -n failed: $(first_line < "$work/repair.log")"
	else
		cat "$work/threads" 2>/dev/null || echo "none: no count written"
	fi
}
if [ $shim = 1 ]; then
	img 30G
	"$stock_xfs/mkfs.xfs" -q -f -d agcount=300 "$work/img"
	t=$(threads_n "$series_xfs/xfs_repair")
	if [[ $t =~ ^[0-9]+$ ]] && [ "$t" -lt 300 ]; then
		ok "xfs 300 AGs, 299 without inodes: the series' xfs_repair -n creates fewer threads than AGs ($t)"
	else
		nok "xfs 300 AGs, 299 without inodes: the series' xfs_repair -n creates fewer threads than AGs ($t)"
	fi
	t=$(threads_n "$stock_xfs/xfs_repair")
	if [[ $t =~ ^[0-9]+$ ]] && [ "$t" -gt 300 ]; then
		ok "xfs 300 AGs: the unpatched xfs_repair -n creates more threads than AGs ($t), what the check above tells apart"
	else
		nok "xfs 300 AGs: the unpatched xfs_repair -n creates more threads than AGs ($t), what the check above tells apart"
	fi
else
	ok "xfs 300 AGs: threads of xfs_repair -n # SKIP needs cc ($(first_line < "$work/cc.log" 2>/dev/null))"
fi

# A non-rotational device: mkfs.xfs's implicit concurrency default makes an AG per CPU when the
# device is large enough; the growth layout keeps that many AGs (one per CPU at most) and makes
# them only as large as that allows.  A loop device with rotational=0; the CPU count of a larger
# machine through the test shim (GH_NCPUS).  Root only.
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && [ $shim = 1 ]; then
	# ssd_geom BIN CPUS [OPTS...]: "agcount agsize" of BIN on a 100 GiB non-rotational loop device
	ssd_geom() {
		local bin=$1 cpus=$2 dev
		shift 2
		img 100G
		dev=$(losetup -f --show "$work/img")
		echo 0 > "/sys/block/${dev#/dev/}/queue/rotational"
		GH_NCPUS=$cpus LD_PRELOAD="$work/shim.so" "$bin" -q -f "$@" "$dev" >/dev/null 2>&1
		losetup -d "$dev"
		echo "$(xfsfield agcount) $(xfsfield agblocks)"
	}
	g=$((100 << 18)) # 100 GiB in 4 KiB blocks
	eq "xfs SSD 100G, 2 CPUs, target 64T: three AGs of 7/16 (the default's four are not per CPU)" \
		"$(ssd_geom "$series_xfs/mkfs.xfs" 2 -d growth_target=64t)" "3 $((44800 * 256))"
	eq "xfs SSD 100G, 4 CPUs, unpatched: four AGs of 25 GiB" "$(ssd_geom "$stock_xfs/mkfs.xfs" 4)" "4 $((g / 4))"
	eq "xfs SSD 100G, 4 CPUs, target 64T: four AGs, as large as four allow (29866 MiB)" \
		"$(ssd_geom "$series_xfs/mkfs.xfs" 4 -d growth_target=64t)" "4 $((29866 * 256))"
	stock8=$(ssd_geom "$stock_xfs/mkfs.xfs" 8)
	eq "xfs SSD 100G, 8 CPUs, unpatched: eight AGs" "${stock8%% *}" 8
	eq "xfs SSD 100G, 8 CPUs, target 64T: the concurrency geometry unchanged" \
		"$(ssd_geom "$series_xfs/mkfs.xfs" 8 -d growth_target=64t)" "$stock8"
	eq "xfs SSD 100G, 8 CPUs, explicit -d concurrency=8 without a target: unpatched geometry" \
		"$(ssd_geom "$series_xfs/mkfs.xfs" 8 -d concurrency=8)" "$stock8"
else
	ok "xfs on a non-rotational device # SKIP needs root, losetup and cc ($(first_line < "$work/cc.log" 2>/dev/null))"
fi

# Options that set the AG geometry themselves conflict with growth_target.
refuses() { # refuses NAME WANT CMD...: CMD fails, saying WANT
	local name=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		nok "$name"
	elif [[ $out == *"$want"* ]]; then
		ok "$name ($want)"
	else
		echo "$out" | first_lines 4 | sed 's/^/# /' || true
		nok "$name, saying '$want'"
	fi
}
# refused NAME WANT ARGS...: mkfs.xfs ARGS on the image fails, saying WANT
refused() { refuses "$1: refused" "$2" "$series_xfs/mkfs.xfs" -N -f "${@:3}" "$work/img"; }
img 10G
refused "xfs -d growth_target=1t,agcount=4" "Cannot specify both" -d growth_target=1t,agcount=4
refused "xfs -d agsize=1g,growth_target=1t" "Cannot specify both" -d agsize=1g,growth_target=1t
refused "xfs -d growth_target=1t,concurrency=4" "Cannot specify both" -d growth_target=1t,concurrency=4
refused "xfs -d growth_target=5g" "growth_target must not be smaller than the filesystem" -d growth_target=5g
# A user's agsize larger than the device is still refused.
refused "xfs 10G -d agsize=16g" "too big, data area is" -d agsize=16g

# The image mode of v3 (one AG larger than the filesystem, a spare superblock) is withdrawn
# (design.md 2.6): mkfs.xfs has no such option, and the series' xfs_repair never takes the
# geometry of a single AG from a superblock it cannot check against another copy.
refused "xfs -d growth_target=64t,growth_single_ag=1 (the withdrawn image mode)" "unknown option" \
	-d growth_target=64t,growth_single_ag=1
# A grown filesystem whose sector 0 holds a stale superblock of one AG larger than the
# filesystem, with a good CRC (what the image mode's superblock looked like before its first
# growth): the v3 xfs_repair took its geometry and cut the filesystem back to it, losing every
# file past it; now it refuses as every xfs_repair in use does, and changes nothing.
# The stale superblock: that of a 2 GiB filesystem of one AG, its AG made 1 TiB (less a block)
# with xfs_db, which keeps the CRC good; the filesystem: 10 GiB, the same UUID.
img 2G
"$series_xfs/mkfs.xfs" -q -f --unsupported -m uuid="$uuid" -d agcount=1 "$work/img" >/dev/null 2>&1
"$series_xfs/xfs_db" -x -c 'sb 0' -c 'write agblocks 268435455' -c 'write agblklog 28' \
	-c 'write dblocks 524287' "$work/img" >/dev/null 2>&1
dd if="$work/img" of="$work/stale.sb" bs=512 count=1 status=none
img 10G
"$series_xfs/mkfs.xfs" -q -f -m uuid="$uuid" "$work/img"
dd if="$work/stale.sb" of="$work/img" bs=512 count=1 conv=notrunc status=none
cp --sparse=always "$work/img" "$work/img.stale"
refuses "xfs stale single-AG superblock (one AG larger than the filesystem, good CRC): the series' xfs_repair refuses it" \
	"Only one AG detected" "$series_xfs/xfs_repair" "$work/img"
if cmp -s "$work/img" "$work/img.stale"; then
	ok "xfs stale single-AG superblock: the series' xfs_repair changed nothing"
else
	nok "xfs stale single-AG superblock: the series' xfs_repair changed nothing"
fi
rm -f "$work/img.stale"
# Every other single-AG filesystem still needs -o force_geometry (fstests xfs/202).
img 300M
"$series_xfs/mkfs.xfs" -q -f --unsupported -d agcount=1 "$work/img" >/dev/null 2>&1
refuses "xfs 300M agcount=1 (--unsupported): xfs_repair still refuses without force_geometry" \
	"Only one AG detected" "$series_xfs/xfs_repair" -n "$work/img"

# 3. The AG rule on every path (POLICY.md 3.3), with mkfs.xfs -N over sizes, targets, sector
# and block sizes and stripes: where the series chooses the AG size ("agsize chosen for it"),
# the device as made keeps three to eight AGs, every AG (the last included) at least 1/8 of
# it, every block the unpatched mkfs.xfs keeps (no last AG dropped) and the internal log inside
# a full AG;
# where it does not, and on every striped device, the geometry is the unpatched mkfs.xfs's.
# geom OUT: "agcount agsize dblocks logblocks" of mkfs.xfs -N output
geom() {
	awk 'match($0, /agcount=[0-9]+, agsize=[0-9]+ blks/) {
		split(substr($0, RSTART, RLENGTH), a, /[=, ]+/); g = a[2] " " a[4] }
	/^data +=/ && match($0, /blocks=[0-9]+/) { g = g " " substr($0, RSTART + 7, RLENGTH - 7) }
	/^log +=internal/ && match($0, /blocks=[0-9]+/) { g = g " " substr($0, RSTART + 7, RLENGTH - 7) }
	END { print g }' <<<"$1"
}
sweep_bad=() sweep_same_bad=() sweep_stripe_bad=() sweep_n=0 sweep_grown=0 sweep_same=0 sweep_striped=0
# sweep_one SIZE-BYTES TARGET-BYTES OPTS...: one layout against the unpatched one (sweep_ref:
# the geometry of the unpatched mkfs.xfs -N with OPTS)
sweep_ref=""
sweep_one() {
	local s=$1 t=$2 out
	shift 2
	if ! out=$("$series_xfs/mkfs.xfs" -N -f "$@" -d growth_target="$t" "$work/img" 2>&1); then
		# refused like the unpatched mkfs.xfs (a striped 300 MiB file ends up too small)
		if [ -z "$sweep_ref" ]; then
			sweep_n=$((sweep_n + 1)) sweep_same=$((sweep_same + 1))
		else
			sweep_bad+=("$s $t $*: mkfs.xfs failed: $(first_line <<<"$out")")
		fi
		return
	fi
	sweep_check "$s $t $*" "$out" "$sweep_ref" "$([[ $* == *su=* ]] && echo 1)" 3
}
# sweep_check DESC OUT REF STRIPED MIN-AGCOUNT: the properties of one mkfs.xfs -N output OUT
# against the unpatched geometry REF
sweep_check() {
	local g r=$3 ac as db lb last
	g=$(geom "$2")
	read -r ac as db lb <<<"$g"
	sweep_n=$((sweep_n + 1))
	if [ -n "$4" ]; then
		sweep_striped=$((sweep_striped + 1))
		[ "${g% *}" = "${r% *}" ] || sweep_stripe_bad+=("$1: $g, unpatched $r")
	elif [[ $2 == *"agsize chosen for it"* ]]; then
		sweep_grown=$((sweep_grown + 1))
		last=$((db - (ac - 1) * as))
		if [ "$ac" -lt "$5" ] || [ "$ac" -gt 8 ] || [ $((last * 8)) -lt "$db" ] ||
			[ "$db" -lt "$(cut -d' ' -f3 <<<"$r")" ] || [ "$lb" -ge "$as" ]; then
			sweep_bad+=("$1: $ac AGs of $as blocks, last $last of $db; log $lb; unpatched $r")
		fi
	else
		sweep_same=$((sweep_same + 1))
		[ "${g% *}" = "${r% *}" ] || sweep_same_bad+=("$1: $g, unpatched $r")
	fi
}
for size in $((300 << 20)) $((301 << 20)) $((1 << 30)) $((10 << 30)) $(((10 << 30) + 4096)) \
	$((100 << 30)) $((1 << 40)) $((3 << 40)) $((5 << 40)); do
	img "$size"
	for opts in "" "-s size=4096" "-b size=1024" "-d su=64k,sw=4" "-d su=4m,sw=1"; do
		# shellcheck disable=SC2086 # the options are words
		sweep_ref=$(geom "$("$stock_xfs/mkfs.xfs" -N -f $opts "$work/img" 2>&1)")
		# shellcheck disable=SC2086
		for pct in 110 117 120 125 130 134 150 175 400 6400; do
			sweep_one "$size" $((size * pct / 100 / 4096 * 4096)) $opts
		done
		# shellcheck disable=SC2086
		sweep_one "$size" $((64 << 40)) $opts
	done
done
# The SSD path over CPU counts (root: a loop device with rotational=0; the CPU count through
# scripts/test-shim.c): never fewer AGs than the concurrency default makes, one per CPU (three
# at least), and the same rules.
if [ "$(id -u)" = 0 ] && [ $shim = 1 ]; then
	for size in 10G 30G 100G; do
		img "$size"
		dev=$(losetup -f --show "$work/img")
		echo 0 > "/sys/block/${dev#/dev/}/queue/rotational"
		s=$(stat -c %s "$work/img")
		for cpus in 1 2 3 4 6 8 16; do
			ref=$(GH_NCPUS=$cpus LD_PRELOAD="$work/shim.so" "$stock_xfs/mkfs.xfs" -N -f "$dev" 2>&1)
			sweep_ref=$(geom "$ref")
			min=$(cut -d' ' -f1 <<<"$sweep_ref")
			[ "$min" -le "$cpus" ] || min=$cpus
			[ "$min" -ge 3 ] || min=3
			for t in $((s * 120 / 100)) $((s * 150 / 100)) $((64 << 40)); do
				t=$((t / 4096 * 4096))
				out=$(GH_NCPUS=$cpus LD_PRELOAD="$work/shim.so" "$series_xfs/mkfs.xfs" -N -f \
					-d growth_target="$t" "$dev" 2>&1) ||
					{ sweep_bad+=("SSD $size $cpus CPUs $t: mkfs.xfs failed"); continue; }
				sweep_check "SSD $size, $cpus CPUs, target $t" "$out" "$sweep_ref" "" "$min"
			done
		done
		losetup -d "$dev"
	done
fi
sweep_report() { # sweep_report NAME ARRAY-NAME
	local -n bad=$2
	if [ ${#bad[@]} = 0 ]; then
		ok "$1"
	else
		printf '# %s\n' "${bad[@]:0:8}"
		nok "$1 (${#bad[@]} layouts fail)"
	fi
}
sweep_report "xfs sweep: $sweep_grown growth layouts of $sweep_n (sizes, targets, sectors, blocks, stripes, CPU counts): 3-8 AGs and at least one per CPU on SSDs, every AG at least 1/8 of the device, no block dropped that the unpatched mkfs.xfs keeps, the log inside an AG" sweep_bad
sweep_report "xfs sweep: $sweep_same layouts the growth rule leaves alone: the unpatched geometry" sweep_same_bad
sweep_report "xfs sweep: $sweep_striped striped layouts (su=64k,sw=4 and su=4m,sw=1): the unpatched multidisk geometry" sweep_stripe_bad

# 4. The hinted path through libblkid, on loop devices whose queue directory is replaced, in a
# private mount namespace, by a copy with growth hints (the kernel gives loop devices none).
# Root only.  hinted_dev SIZE MIN MAX INC: a loop device (LODEV) of SIZE with those hints;
# hinted CMD...: CMD where it has them.
LODEV=""
lodev_done() { [ -z "$LODEV" ] || losetup -d "$LODEV"; LODEV=""; }
hinted_dev() {
	local f
	lodev_done
	img "$1"
	LODEV=$(losetup -f --show "$work/img") || return 1
	echo 1 > "/sys/block/${LODEV#/dev/}/queue/rotational"
	rm -rf "$work/queue" && mkdir "$work/queue"
	for f in "/sys/block/${LODEV#/dev/}"/queue/*; do
		[ -f "$f" ] && cat "$f" > "$work/queue/${f##*/}" 2>/dev/null
	done
	echo "$2" > "$work/queue/min_growth_bytes"
	echo "$3" > "$work/queue/max_growth_bytes"
	echo "$4" > "$work/queue/growth_increment_bytes"
}
hinted() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private /bin/bash -c \
		'mount --bind "$1" "/sys/block/${2#/dev/}/queue" && shift 2 && exec "$@"' \
		hinted "$work/queue" "$LODEV" "$@"
}
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && command -v unshare >/dev/null &&
	hinted_dev 10G 0 $((64 << 40)) 0 && hinted true 2>/dev/null; then
	trap 'lodev_done; rm -rf "$work"' EXIT
	# A maximum alone (no minimum, no increment), as the kernel reports a device-mapper
	# volume: a hint like any other (U23).
	hinted "$series_xfs/mkfs.xfs" -q -f "$LODEV" >/dev/null 2>&1
	eq "xfs 10G loop device, hints max 64T alone (min 0, increment 0): three AGs of 4480 MiB" \
		"$(xfsfield agcount) $(xfsfield agblocks)" "3 $((4480 * 256))"
	hinted_dev 10G 0 $((100 << 30)) 0
	hinted "$series_e2/mke2fs" -q -F -t ext4 "$LODEV" >/dev/null 2>&1
	eq "ext4 10G loop device, hints max 100G alone: reserved GDT blocks for 100 GiB (11)" \
		"$(e2field "Reserved GDT blocks")" 11
	# The system-wide switch: MKFS_XFS_GROWTH_HINTS=0 gives the unpatched geometry, the
	# command line wins over it, a bad value is refused before anything is written (U12).
	hinted_dev 10G $((1 << 30)) $((64 << 40)) $((1 << 30))
	"$stock_xfs/mkfs.xfs" -q -f -m uuid="$uuid" "$LODEV"
	xfs_sb > "$work/xsb.stock"
	hinted "$series_xfs/mkfs.xfs" -q -f "$LODEV" >/dev/null 2>&1
	eq "xfs 10G loop device, hints 1G-64T in 1G steps: three AGs" "$(xfsfield agcount)" 3
	MKFS_XFS_GROWTH_HINTS=0 hinted "$series_xfs/mkfs.xfs" -q -f -m uuid="$uuid" "$LODEV" >/dev/null 2>&1
	xfs_sb > "$work/xsb.series"
	same "xfs 10G loop device with hints, MKFS_XFS_GROWTH_HINTS=0: xfs_db sb 0 identical to the unpatched mkfs.xfs" \
		"$work/xsb.stock" "$work/xsb.series"
	MKFS_XFS_GROWTH_HINTS=0 hinted "$series_xfs/mkfs.xfs" -q -f -d growth_hints=1 "$LODEV" >/dev/null 2>&1
	eq "xfs 10G loop device with hints, MKFS_XFS_GROWTH_HINTS=0 and -d growth_hints=1: three AGs" \
		"$(xfsfield agcount)" 3
	MKFS_XFS_GROWTH_HINTS=0 hinted "$series_xfs/mkfs.xfs" -q -f -d growth_target=64t "$LODEV" >/dev/null 2>&1
	eq "xfs 10G loop device with hints, MKFS_XFS_GROWTH_HINTS=0 and -d growth_target=64t: three AGs" \
		"$(xfsfield agcount)" 3
	sb_bytes 512 0 > "$work/sb.before"
	refuses "xfs MKFS_XFS_GROWTH_HINTS=yes: refused" "must be 0 or 1" \
		env MKFS_XFS_GROWTH_HINTS=yes "$series_xfs/mkfs.xfs" -f "$LODEV"
	sb_bytes 512 0 > "$work/sb.after"
	same "xfs MKFS_XFS_GROWTH_HINTS=yes: the device unchanged" "$work/sb.before" "$work/sb.after"
	lodev_done
else
	ok "xfs and ext4 on hinted loop devices # SKIP needs root, losetup, unshare and a mount namespace"
fi

# 5. A lost primary superblock with a single-AG filesystem image stored as a file below AG 1
# (its superblock at 100 MiB), on the default layout and on the hinted one (three AGs of
# 7/16, and four of a target's AG size that no guess knows): xfs_repair must restore the
# primary from AG 1, as it does on the default layout, and not stop at the image ("Only one
# AG detected").  The unpatched xfs_repair stops on the hinted layouts: the exposure the
# series' xfs_repair closes (POLICY.md 3.3).
img 512M
"$series_xfs/mkfs.xfs" -q -f --unsupported -d agcount=1 "$work/img" >/dev/null 2>&1
dd if="$work/img" of="$work/nested.sb" bs=4096 count=1 status=none
# nested_loss NAME MKFS-OPTS...: a 10 GiB filesystem with the nested image's superblock at
# 100 MiB and its first sector zeroed, in $work/img.lost
nested_loss() {
	img 10G
	"$series_xfs/mkfs.xfs" -q -f "${@:2}" "$work/img" >/dev/null 2>&1
	dd if="$work/nested.sb" of="$work/img" bs=1M seek=100 conv=notrunc status=none
	dd if=/dev/zero of="$work/img" bs=512 count=1 conv=notrunc status=none
	cp --sparse=always "$work/img" "$work/img.lost"
}
# restores NAME BIN: BIN restores the primary, and the filesystem is then clean
restores() {
	cp --sparse=always "$work/img.lost" "$work/img"
	if timeout 300 "$2" "$work/img" >"$work/repair.log" 2>&1 && "$2" -n "$work/img" >/dev/null 2>&1; then
		ok "$1"
	else
		grep -v '^\.*$' "$work/repair.log" | first_lines 6 | sed 's/^/# /' || true
		nok "$1"
	fi
}
for layout in "default|" "hinted, three AGs of 7/16|-d growth_target=64t" \
	"target 11G, four AGs of 2816 MiB|-d growth_target=11g"; do
	name=${layout%%|*} opts=${layout#*|}
	# shellcheck disable=SC2086 # the options are words
	nested_loss "$name" $opts
	restores "xfs 10G $name layout, primary lost, a single-AG image below AG 1: the series' xfs_repair restores it" \
		"$series_xfs/xfs_repair"
	if [ -n "$stock_repair" ] && [ "$name" = default ]; then
		restores "xfs 10G $name layout, primary lost, a single-AG image below AG 1: this host's xfs_repair restores it" \
			"$stock_repair"
	elif [ -n "$stock_repair" ]; then
		# The exposure POLICY.md 3.3 documents: unpatched repair stops at the image.
		cp --sparse=always "$work/img.lost" "$work/img"
		refuses "xfs 10G $name layout, primary lost, a single-AG image below AG 1: this host's xfs_repair stops at the image (documented)" \
			"Only one AG detected" timeout 300 "$stock_repair" "$work/img"
	fi
done
rm -f "$work/img.lost"
echo "1..$n"
[ "$failed" = 0 ]
