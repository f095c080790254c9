#!/usr/bin/env bash
# The e2fsprogs tree's own tests that cover the series, and the series' mke2fs against the
# unpatched one where the hints must change nothing, as KTAP (the "e2fsprogs" suite):
#   m_growth_hints    a hinted disk's default layout (MKE2FS_DEVICE_GROWTH=min,max,inc stands in
#                     for the hints): the reserve for the maximum, at least one block; 64bit
#                     where the maximum needs it; the user's options win; bad hints ignored
#   m_growth_64bit    a 64bit turned off in mke2fs.conf ([defaults], fs type, usage type) or by
#                     -O stays off: the plan capped at 2^32 blocks, growth_target refused
#   m_growth_nohints  no hints, unknown (0), will not grow (max = size), growth_target = size,
#                     use_growth_hints = false: the layout without hints, byte for byte
#   m_growth_target   growth_target keeps the inodes of the size as made (the inode floor)
#   the tree's other m_* tests (every mke2fs test but m_assume_storage_prezeroed, which depends
#   on how the host's file system allocates a loop device's backing file, and the m_mmp* tests,
#   which wait for MMP intervals: 11 s each) and the r_* tests of the resize inode, reserve and
#   meta_bg (r_move_itable, r_resize_inode, r_min_itable, r_inline_xattr, r_meta_bg_shrink)
# and, against build/out/e2fsprogs-stock (which ignores the hook): with the hook saying "no hint"
# (0,0,0) or "will not grow" (max = size) the superblock and dumpe2fs (every group) are those of
# the unpatched mke2fs.  Uses build/e2fsprogs and what 'make e2fsprogs mkfs-stock' built in
# build/e2fsprogs-obj and build/out; builds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src="$top/build/e2fsprogs"
obj="$top/build/e2fsprogs-obj"
stock="$out/e2fsprogs-stock/sbin/mke2fs"
echo "KTAP version 1"
if [ ! -x "$obj/tests/test_one" ] || [ ! -x "$obj/misc/mke2fs" ] || [ ! -x "$stock" ] ||
	[ ! -d "$src/tests/m_growth_hints" ]; then
	echo "1..1"
	echo "not ok 1 e2fsprogs: no build of the series with its tests in $obj, or no $stock (make e2fsprogs mkfs-stock)"
	exit 1
fi
tests=(m_growth_hints m_growth_64bit m_growth_nohints m_growth_target)
for t in "$src"/tests/m_*; do
	t=${t##*/}
	case " ${tests[*]} m_assume_storage_prezeroed m_mmp m_mmp_bad_csum m_mmp_bad_magic " in
	*" $t "*) continue ;;
	esac
	tests+=("$t")
done
tests+=(r_move_itable r_resize_inode r_min_itable r_inline_xattr r_meta_bg_shrink)

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); failed=1; echo "not ok $n $*"; }
log="$top/build/test-e2fsprogs.log"
: > "$log"
for t in "${tests[@]}"; do
	# test_one prints "name: description: ok|failed|skipped (why)" and leaves name.failed (the
	# diff against the expected output) behind on failure.
	res=$(cd "$obj/tests" && ./test_one "$src/tests/$t" 2>&1 | tee -a "$log" | grep -E "^$t: " | first_line)
	case "$res" in
	*": ok") ok "${res%: ok}" ;;
	*": skipped"*) ok "$t # SKIP $(echo "${res#*: skipped}" | sed 's/^ *(//; s/)$//')" ;;
	*)
		[ -f "$obj/tests/$t.failed" ] && first_lines 20 < "$obj/tests/$t.failed" | sed 's/^/# /'
		nok "${res:-$t: no result (see $log)}"
		;;
	esac
done

# The unpatched mke2fs against the series' with the hook saying "no hint" or "will not grow".
work=$(mktemp -d "$top/build/test-e2fsprogs.XXXXXX")
trap 'rm -rf "$work"' EXIT
export MKE2FS_CONFIG="$out/e2fsprogs/etc/mke2fs.conf" E2FSPROGS_FAKE_TIME=1700000000
uuid=6b1c1f3e-2c4d-4e5f-8a9b-0c1d2e3f4a5b
# layout BIN HINTS: superblock and dumpe2fs of BIN's ext4 on a fresh 10 GiB image (with
# MKE2FS_DEVICE_GROWTH=HINTS) in $work/sb and $work/dump
layout() {
	rm -f "$work/img"
	truncate -s 10G "$work/img"
	MKE2FS_DEVICE_GROWTH=$2 "$1" -q -F -t ext4 -U "$uuid" -E "hash_seed=$uuid" "$work/img"
	dd if="$work/img" of="$work/sb" bs=1024 skip=1 count=1 status=none
	"$obj/misc/dumpe2fs" "$work/img" > "$work/dump" 2>/dev/null
}
layout "$stock" ""
mv "$work/sb" "$work/sb.stock"
mv "$work/dump" "$work/dump.stock"
G=$((1 << 30))
for hints in 0,0,0 $((10 * G)),$((10 * G)),$G 0,$((10 * G)),$G; do
	layout "$obj/misc/mke2fs" "$hints"
	if cmp -s "$work/sb.stock" "$work/sb" && cmp -s "$work/dump.stock" "$work/dump"; then
		ok "ext4 10 GiB, hints $hints: superblock and every group as the unpatched mke2fs"
	else
		diff "$work/dump.stock" "$work/dump" | first_lines 10 | sed 's/^/# /' || true
		nok "ext4 10 GiB, hints $hints: superblock and every group as the unpatched mke2fs"
	fi
done
echo "1..$n"
exit $failed
