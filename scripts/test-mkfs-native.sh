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
eq "ext4 10G target 10T: inodes of the big type (32 KiB each)" "$(e2field "Inode count")" $((10 * 1024 * 1024 / 32))
eq "ext4 10G target 10T: journal 320 MiB (1/32 of 10 GiB)" "$(e2field "Total journal blocks")" $((320 * 256))
img 10G
mke2fs_ "$series_e2/mke2fs" "" growth_target=100G
eq "ext4 10G target 100G: reserved GDT blocks 11" "$(e2field "Reserved GDT blocks")" 11
img 10G
mke2fs_ "$series_e2/mke2fs" "" growth_target=10G
eq "ext4 10G target 10G: no resize_inode" \
	"$(e2field "Filesystem features" | tr ' ' '\n' | grep -c '^resize_inode$' || true)" 0
# 10 GiB for 10 TiB: one AG of the size mkfs.xfs gives a filesystem made at 10 TiB (1 TiB),
# larger than the file; xfs_repair takes its geometry from the primary superblock.
img 10T
"$stock_xfs/mkfs.xfs" -q -f "$work/img"
ref_agblocks=$(xfsfield agblocks)
img 10G
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t "$work/img"
eq "xfs 10G target 10T: one AG" "$(xfsfield agcount)" 1
eq "xfs 10G target 10T: agsize of mkfs.xfs at 10T ($ref_agblocks blocks)" "$(xfsfield agblocks)" "$ref_agblocks"
eq "xfs 10G target 10T: data blocks of the file" "$(xfsfield dblocks)" $((10 << 18))
eq "xfs 10G target 10T: log 320 MiB" "$(xfsfield logblocks)" $((320 * 256))
if out=$("$series_xfs/xfs_repair" -n "$work/img" 2>&1) &&
	[[ $out == *"Single AG - geometry taken from the primary superblock (CRC ok)"* ]]; then
	ok "xfs 10G target 10T: xfs_repair -n clean, geometry from the primary"
else
	echo "$out" | first_lines 8 | sed 's/^/# /' || true
	nok "xfs 10G target 10T: xfs_repair -n clean, geometry from the primary"
fi
# The opt-out and a filesystem without CRCs: two AGs within the file (7/8 of it).
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t,growth_single_ag=0 "$work/img"
eq "xfs 10G target 10T growth_single_ag=0: agsize 8960 MiB" "$(xfsfield agblocks)" $((8960 * 256))
eq "xfs 10G target 10T growth_single_ag=0: agcount 2" "$(xfsfield agcount)" 2
printf '[data]\ngrowth_single_ag=0\n' > "$work/single.cfg"
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10t -c options="$work/single.cfg" "$work/img" >/dev/null
eq "xfs 10G target 10T, -c growth_single_ag=0: agcount 2" "$(xfsfield agcount)" 2
"$series_xfs/mkfs.xfs" -q -f -m crc=0 -d growth_target=10t "$work/img" >/dev/null 2>&1
eq "xfs 10G target 10T crc=0: agcount 2 (no CRC to trust a single superblock)" "$(xfsfield agcount)" 2
# A user's agsize larger than the device is still refused.
if "$series_xfs/mkfs.xfs" -q -f -d agsize=16g "$work/img" >/dev/null 2>&1; then
	nok "xfs 10G -d agsize=16g: still refused"
else
	ok "xfs 10G -d agsize=16g: still refused"
fi
img 300M
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10g "$work/img"
eq "xfs 300M target 10G: one AG of 2560 MiB" "$(xfsfield agcount) $(xfsfield agblocks)" "1 $((2560 * 256))"
"$series_xfs/mkfs.xfs" -q -f -d growth_target=10g,growth_single_ag=0 "$work/img"
eq "xfs 300M target 10G growth_single_ag=0: agsize 262 MiB" "$(xfsfield agblocks)" $((262 * 256))
eq "xfs 300M target 10G growth_single_ag=0: log in AG 0" "$(( $(xfsfield logstart) < 262 * 256 ))" 1
if "$series_xfs/xfs_repair" -n "$work/img" >/dev/null 2>&1; then
	ok "xfs 300M target 10G growth_single_ag=0: xfs_repair -n clean"
else
	nok "xfs 300M target 10G growth_single_ag=0: xfs_repair -n clean"
fi
echo "1..$n"
[ "$failed" = 0 ]
