#!/usr/bin/env bash
# xfs_repair -n -P on the host: peak memory and time of Debian's xfs_repair, the unpatched
# xfsprogs base and the series' on the many-AGs layouts of tools/bench/bench-many-ags.sh
# (build/many-ags, made by that script). Root is not needed: the images are files.
# repair-memory.sh [OUTDIR]   (default tools/bench/results/<date>-repair-memory)
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

images=${BENCH_MA_IMAGES:-$top/build/many-ags}
layouts=${BENCH_RM_LAYOUTS:-t10 h10 g10 h64 g2}
outdir=${1:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-repair-memory}
progs=("debian:/usr/sbin/xfs_repair" "base:$out/xfsprogs-stock/sbin/xfs_repair"
	"series:$out/xfsprogs/sbin/xfs_repair")
for p in "${progs[@]}"; do
	[ -x "${p#*:}" ] || die "no ${p#*:} (make xfsprogs mkfs-stock)"
done
for l in $layouts; do
	[ -s "$images/$l.img" ] || die "no $images/$l.img: run tools/bench/bench-many-ags.sh first"
done
command -v /usr/bin/time >/dev/null || die "/usr/bin/time is missing (package time)"
build_lock
mkdir -p "$outdir"
raw="$outdir/raw.tsv"
printf 'layout\tagcount\txfs_repair\tpeak_rss_kib\tseconds\tstatus\n' > "$raw"
for l in $layouts; do
	ags=$(xfs_db -r -c 'sb 0' -c 'p agcount' "$images/$l.img" | sed 's/.*= //')
	for p in "${progs[@]}"; do
		rc=0
		/usr/bin/time -f '%M %e' -o "$outdir/.t" "${p#*:}" -n -P -f "$images/$l.img" \
			> /dev/null 2>&1 || rc=$?
		read -r kib secs < "$outdir/.t" || true
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$l" "$ags" "${p%%:*}" "$kib" "$secs" "$rc" >> "$raw"
	done
done
rm -f "$outdir/.t"
{
	echo "# xfs_repair -n -P on the host: peak RSS and time"
	echo
	echo "\`tools/bench/repair-memory.sh\` on the images of \`tools/bench/bench-many-ags.sh\` (env.txt)."
	echo "debian: Debian 12's xfs_repair; base: the unpatched xfsprogs of xfsprogs/BASE; series:"
	echo "the same with the series. One run each; peak RSS from the kernel (GNU time's %M)."
	echo
	echo "| layout | AGs | xfs_repair | peak RSS (MiB) | time (s) | status |"
	echo "|---|---|---|---|---|---|"
	tail -n +2 "$raw" | while IFS=$'\t' read -r l a p k s rc; do
		printf '| %s | %s | %s | %d | %s | %s |\n' "$l" "$a" "$p" $((k / 1024)) "$s" "$rc"
	done
} > "$outdir/results.md"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
	for p in "${progs[@]}"; do echo "${p%%:*}: ${p#*:}: $("${p#*:}" -V)"; done
	echo "series xfsprogs: $(git -C "$top/build/xfsprogs" log --oneline -1 2>/dev/null || echo unknown)"
	for l in $layouts; do
		echo "layout $l: $(xfs_db -r -c 'sb 0' -c 'p agcount agblocks dblocks' "$images/$l.img" | tr '\n' ' ')"
	done
} > "$outdir/env.txt"
cat "$outdir/results.md"
