#!/usr/bin/env bash
# What finding a lost primary superblock costs xfs_repair on the layouts mkfs.xfs makes: the
# defaults' (four AGs) and the one the xfsprogs series makes on a disk that may grow far
# (-d growth_target=64t: three AGs, two of 7/16 of the disk), never grown, on sparse files of
# 10 GiB, 100 GiB and 1 TiB whose first sector is zeroed; with the unpatched xfs_repair of this
# host (Debian's) and with the series' (build/out/xfsprogs); then the same with a single-AG
# filesystem image's superblock stored at 100 MiB, below AG 1 (an image kept as a file).
# Measured: the exit status, whether the primary was restored from a verified secondary
# superblock, the MiB the search for it read (xfs_repair prints a dot per 1 MiB read), and the
# wall time of the whole repair.  On a sparse file the reads cost no I/O: the time is the CPU
# cost of the scan; on a real disk add the time to read the MiB counted.
# Usage: tools/bench/recovery.sh [OUT-DIR]  (default tools/bench/results/<date>-recovery)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$top/build/out/xfsprogs/sbin
stock=$(command -v xfs_repair)
out=${1:-$top/tools/bench/results/$(date +%F)-recovery}
work=$(mktemp -d "$top/build/recovery.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for p in "$series/mkfs.xfs" "$series/xfs_repair" "$stock"; do
	[ -x "$p" ] || { echo "missing $p (make xfsprogs; apt install xfsprogs)" >&2; exit 1; }
done
img=$work/img
truncate -s 512M "$work/nested"
"$series/mkfs.xfs" -q -f --unsupported -d agcount=1 "$work/nested" >/dev/null 2>&1
dd if="$work/nested" of="$work/nested.sb" bs=4096 count=1 status=none

{
echo "# Finding a lost primary superblock: xfs_repair on never-grown layouts"
echo
echo "\`tools/bench/recovery.sh\`, $(date +%F). Sparse files, first sector zeroed. MiB read: the"
echo "1 MiB reads of the search for a secondary superblock (the dots xfs_repair prints). Time:"
echo "the whole repair, wall clock, one run (on a sparse file the reads cost no I/O)."
echo
echo "| size | layout | nested single-AG image at 100 MiB | xfs_repair | exit | restored from a secondary | MiB read | time (s) |"
echo "|---|---|---|---|---|---|---|---|"
} > "$out/results.md"

for size in 10G 100G 1T; do
	for layout in defaults hinted; do
		for nested in no yes; do
			rm -f "$img"
			truncate -s "$size" "$img"
			if [ "$layout" = defaults ]; then
				"$series/mkfs.xfs" -q -f "$img"
			else
				"$series/mkfs.xfs" -q -f -d growth_target=64t "$img"
			fi
			geo=$("$series/xfs_db" -r -c 'sb 0' -c 'print agcount' -c 'print agblocks' "$img" |
				sed 's/.* = //' | tr '\n' ' ')
			[ "$nested" = no ] ||
				dd if="$work/nested.sb" of="$img" bs=1M seek=100 conv=notrunc status=none
			dd if=/dev/zero of="$img" bs=512 count=1 conv=notrunc status=none
			cp --sparse=always "$img" "$img.lost"
			for bin in stock series; do
				if [ $bin = stock ]; then r=$stock v="Debian's $("$stock" -V | sed 's/.* //')"
				else r=$series/xfs_repair v="the series' (v4)"; fi
				cp --sparse=always "$img.lost" "$img"
				t0=$(date +%s.%N)
				rc=0
				timeout 3600 "$r" "$img" > "$work/log" 2>&1 || rc=$?
				t1=$(date +%s.%N)
				reads=$(sed -E 's/[[:alnum:])]\.+//g' "$work/log" | tr -cd '.' | wc -c)
				ver=$(grep -q 'verified secondary superblock' "$work/log" && echo yes || echo no)
				stop=$(grep -o 'Only one AG detected' "$work/log" | sed -n 1p || true)
				# shellcheck disable=SC2086 # geo is two words: AG count and size
				printf '| %s | %s (%s AGs of %s blocks) | %s | %s | %s%s | %s | %s | %.2f |\n' \
					"$size" "$layout" $geo "$nested" "$v" "$rc" "${stop:+ ($stop)}" "$ver" \
					"$reads" "$(echo "$t1 - $t0" | bc)" >> "$out/results.md"
			done
		done
	done
done
rm -f "$img" "$img.lost"
{
	echo "date: $(date -Is)"
	echo "host: $(uname -srm); cpus: $(nproc)"
	echo "stock xfs_repair: $stock ($("$stock" -V))"
	echo "series xfs_repair: $series/xfs_repair ($("$series/xfs_repair" -V)), $(git -C "$top" describe --always --dirty)"
	echo "backing filesystem: $(df -T "$work" | awk 'NR == 2 { print $2 }')"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/env.txt"
cat "$out/results.md"
