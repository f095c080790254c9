#!/usr/bin/env bash
# The mke2fs and mkfs.xfs of the e2fsprogs and xfsprogs series on image files, as KTAP (the
# "mkfs-native" suite):
#   - on files of several sizes (files have no growth hints) the superblock and the geometry
#     are byte for byte those of the unpatched bases (fixed UUID, hash seed and time);
#   - the growth_target options give tools/POLICY.md's geometry for an explicit target
#     (section 3.6 and the examples of section 4).
# The hinted path needs a kernel with the hints: the mkfs-native scenario.  Uses what
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

# A non-rotational device: mkfs.xfs's implicit concurrency default makes an AG per CPU when the
# device is large enough; the growth layout keeps that many AGs (one per CPU at most) and makes
# them only as large as that allows.  A loop device with rotational=0; the CPU count of a larger
# machine through an LD_PRELOAD shim (scripts/ncpus-shim.c).  Root only.
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null &&
	cc -shared -fPIC -o "$work/ncpus.so" "$top/scripts/ncpus-shim.c" -ldl 2>"$work/cc.log"; then
	# ssd_geom BIN CPUS [OPTS...]: "agcount agsize" of BIN on a 100 GiB non-rotational loop device
	ssd_geom() {
		local bin=$1 cpus=$2 dev
		shift 2
		img 100G
		dev=$(losetup -f --show "$work/img")
		echo 0 > "/sys/block/${dev#/dev/}/queue/rotational"
		GH_NCPUS=$cpus LD_PRELOAD="$work/ncpus.so" "$bin" -q -f "$@" "$dev" >/dev/null 2>&1
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

# Options that set the AG geometry themselves conflict with growth_target and
# growth_single_ag; growth_single_ag needs growth_target and CRCs.
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
refused "xfs -d growth_single_ag=1,agcount=4" "Cannot specify both" -d growth_single_ag=1,agcount=4
refused "xfs -d growth_target=5g" "growth_target must not be smaller than the filesystem" -d growth_target=5g
refused "xfs -d growth_single_ag=1 without a target" "needs growth_target" -d growth_single_ag=1
refused "xfs -m crc=0 -d growth_target=64t,growth_single_ag=1" "needs a V5 filesystem" \
	-m crc=0 -d growth_target=64t,growth_single_ag=1
# A user's agsize larger than the device is still refused.
refused "xfs 10G -d agsize=16g" "too big, data area is" -d agsize=16g

# The opt-in image mode: one AG of the target's AG size (mkfs.xfs's at 10 TiB), larger than
# the filesystem, which is one block smaller than the file: the block after it holds a spare
# superblock (magic XSSB).  Only the series' xfs_repair takes it.
img 10T
"$stock_xfs/mkfs.xfs" -q -f "$work/img"
ref_agblocks=$(xfsfield agblocks)
img 10G
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t,growth_single_ag=1 "$work/img" 2>"$work/mkfs.err"
eq "xfs 10G image mode: one AG of mkfs.xfs's AG size at 10T ($ref_agblocks blocks)" \
	"$(xfsfield agcount) $(xfsfield agblocks)" "1 $ref_agblocks"
eq "xfs 10G image mode: data blocks = the file less one block" "$(xfsfield dblocks)" $(((10 << 18) - 1))
if matches "EXPERIMENTAL" < "$work/mkfs.err"; then
	ok "xfs 10G image mode: mkfs warns that it is experimental"
else
	nok "xfs 10G image mode: mkfs warns that it is experimental"
fi
eq "xfs 10G image mode: the spare superblock's magic in the last block" \
	"$(dd if="$work/img" bs=4 count=1 skip=$((((10 << 18) - 1) * 4096)) iflag=skip_bytes status=none)" XSSB
check_log "xfs 10G image mode"
if out=$("$series_xfs/xfs_repair" -n "$work/img" 2>&1) &&
	[[ $out == *"One AG larger than the filesystem: geometry from the primary superblock (CRC ok)"* ]]; then
	ok "xfs 10G image mode: the series' xfs_repair -n clean, geometry from the primary"
else
	echo "$out" | first_lines 8 | sed 's/^/# /' || true
	nok "xfs 10G image mode: the series' xfs_repair -n clean, geometry from the primary"
fi
if [ -n "$stock_repair" ]; then
	refuses "xfs 10G image mode: this host's xfs_repair refuses it (as the man page says)" \
		"Only one AG detected" "$stock_repair" -n "$work/img"
fi
# Primary superblock lost: the series' xfs_repair restores it from the spare.
dd if=/dev/zero of="$work/img" bs=512 count=1 conv=notrunc status=none
if "$series_xfs/xfs_repair" "$work/img" >"$work/repair.log" 2>&1 &&
	matches "found the spare superblock" < "$work/repair.log"; then
	ok "xfs 10G image mode: first sector zeroed, the series' xfs_repair restores it from the spare"
else
	first_lines 8 < "$work/repair.log" | sed 's/^/# /' || true
	nok "xfs 10G image mode: first sector zeroed, the series' xfs_repair restores it from the spare"
fi
eq "xfs 10G image mode, restored: one AG, dblocks as made" "$(xfsfield agcount) $(xfsfield dblocks)" \
	"1 $(((10 << 18) - 1))"
repair_n "xfs 10G image mode, restored: xfs_repair -n clean" "$series_xfs/xfs_repair"
# A spare that disagrees with AG 0's AGF (here: a spare moved one block) is not taken.
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t,growth_single_ag=1 "$work/img" 2>/dev/null
dd if="$work/img" of="$work/img" bs=4096 skip=$(((10 << 18) - 1)) seek=$(((10 << 18) - 2)) count=1 \
	conv=notrunc status=none
dd if=/dev/zero of="$work/img" bs=512 count=1 conv=notrunc status=none
if "$series_xfs/xfs_repair" -n "$work/img" >/dev/null 2>&1; then
	nok "xfs 10G image mode: a spare that is not right after the filesystem is not taken"
else
	ok "xfs 10G image mode: a spare that is not right after the filesystem is not taken"
fi
# Every other single-AG filesystem still needs -o force_geometry (fstests xfs/202).
img 300M
"$series_xfs/mkfs.xfs" -q -f --unsupported -d agcount=1 "$work/img" >/dev/null 2>&1
refuses "xfs 300M agcount=1 (--unsupported): xfs_repair still refuses without force_geometry" \
	"Only one AG detected" "$series_xfs/xfs_repair" -n "$work/img"
# The review's reproducer of a log planned past the end of the device: refused or inside.
img 512M
if "$series_xfs/mkfs.xfs" -N -f -l size=1g -d growth_target=64t,growth_single_ag=1 "$work/img" >/dev/null 2>&1; then
	nok "xfs 512M image mode -l size=1g: refused"
else
	ok "xfs 512M image mode -l size=1g: refused"
fi
"$series_xfs/mkfs.xfs" -q -f -l size=400m -d growth_target=64t,growth_single_ag=1 "$work/img" 2>/dev/null
check_log "xfs 512M image mode -l size=400m"
img 1G
"$series_xfs/mkfs.xfs" -q -f -l concurrency=192 -d growth_target=64t,growth_single_ag=1 "$work/img" 2>/dev/null
check_log "xfs 1G image mode -l concurrency=192"
echo "1..$n"
[ "$failed" = 0 ]
