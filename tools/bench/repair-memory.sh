#!/usr/bin/env bash
# xfs_repair -n -P and -n on the host: peak memory, threads and time of Debian's xfs_repair,
# the unpatched xfsprogs base and the series' on the many-AGs layouts of
# tools/bench/bench-many-ags.sh (build/many-ags, made by that script). Root is not needed: the
# images are files.
# repair-memory.sh [OUTDIR]   (default tools/bench/results/<date>-repair-memory)
#   BENCH_RM_LAYOUTS  the layouts (t10 t15 h10 g10 h64 g2)
#   BENCH_RM_MODES    the options, ";"-separated ("-n -P;-n": without and with prefetch)
#   BENCH_RM_TIMEOUT  seconds before a run is stopped (600; its status is then 124)
#   BENCH_RM_PROGS    the xfs_repair binaries as NAME:PATH words (debian, base and series,
#                     below); e.g. one built from the series without its last patch, to
#                     measure that patch alone
#   BENCH_RM_NOTE     a line for env.txt that says what those other binaries are
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

images=${BENCH_MA_IMAGES:-$top/build/many-ags}
layouts=${BENCH_RM_LAYOUTS:-t10 t15 h10 g10 h64 g2}
IFS=';' read -r -a modes <<< "${BENCH_RM_MODES:--n -P;-n}"
limit=${BENCH_RM_TIMEOUT:-600}
outdir=${1:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-repair-memory}
read -r -a progs <<< "${BENCH_RM_PROGS:-debian:/usr/sbin/xfs_repair \
	base:$out/xfsprogs-stock/sbin/xfs_repair series:$out/xfsprogs/sbin/xfs_repair}"
for p in "${progs[@]}"; do
	[ -x "${p#*:}" ] || die "no ${p#*:} (make xfsprogs mkfs-stock)"
done
for l in $layouts; do
	[ -s "$images/$l.img" ] || die "no $images/$l.img: run tools/bench/bench-many-ags.sh --images first"
done
command -v /usr/bin/time >/dev/null || die "/usr/bin/time is missing (package time)"
build_lock
mkdir -p "$outdir"
# The threads a run creates: scripts/test-shim.c counts xfs_repair's pthread_create() calls.
cc -shared -fPIC -o "$outdir/.shim.so" "$top/scripts/test-shim.c" -ldl ||
	die "cannot build scripts/test-shim.c"
raw="$outdir/raw.tsv"
printf 'layout\tagcount\toptions\txfs_repair\tpeak_rss_kib\tmax_threads\tthreads_created\tseconds\tstatus\n' > "$raw"
# run PROG OPTIONS IMAGE: GNU time's "KiB seconds" in $outdir/.t, the largest thread count
# seen (sampled every 50 ms) in $outdir/.n, the threads created in $outdir/.c (none when the
# run was stopped); the status of the run.
run() {
	local prog=$1 options=$2 img=$3 tp pid n max=0 rc=0
	rm -f "$outdir/.c"
	# shellcheck disable=SC2086 # OPTIONS are words
	timeout "$limit" /usr/bin/time -f '%M %e' -o "$outdir/.t" \
		env GH_THREADS_OUT="$outdir/.c" LD_PRELOAD="$outdir/.shim.so" "$prog" $options -f "$img" \
		> /dev/null 2>&1 &
	tp=$!
	while kill -0 "$tp" 2>/dev/null; do
		pid=$(pgrep -n -x "${prog##*/}" || true)
		n=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
		[ "${n:-0}" -le "$max" ] || max=$n
		sleep 0.05
	done
	wait "$tp" || rc=$?
	echo "$max" > "$outdir/.n"
	return "$rc"
}
for l in $layouts; do
	ags=$(xfs_db -r -c 'sb 0' -c 'p agcount' "$images/$l.img" | sed 's/.*= //')
	for m in "${modes[@]}"; do
		for p in "${progs[@]}"; do
			rc=0
			: > "$outdir/.t"
			run "${p#*:}" "$m" "$images/$l.img" || rc=$?
			kib="" secs=""
			read -r kib secs < "$outdir/.t" || true
			[ $rc != 124 ] || secs=">$limit"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$l" "$ags" "$m" "${p%%:*}" \
				"${kib:-0}" "$(cat "$outdir/.n")" "$(cat "$outdir/.c" 2>/dev/null || echo -)" \
				"$secs" "$rc" >> "$raw"
		done
	done
done
rm -f "$outdir/.t" "$outdir/.n" "$outdir/.c" "$outdir/.shim.so"
{
	echo "# xfs_repair -n -P and -n on the host: peak RSS, threads and time"
	echo
	echo "\`tools/bench/repair-memory.sh\` on the images of \`tools/bench/bench-many-ags.sh\` (env.txt)."
	echo "debian: Debian 12's xfs_repair; base: the unpatched xfsprogs of xfsprogs/BASE; series:"
	echo "the same with the series; any other name is a binary of BENCH_RM_PROGS, described in env.txt."
	echo "One run each; peak RSS from the kernel (GNU time's %M); threads: the most seen at once,"
	echo "sampled every 50 ms (a short run may show none), and the threads created in all (counted by"
	echo "scripts/test-shim.c; '-' for a run that was stopped). A run stopped after $limit s has status 124."
	echo
	echo "| layout | AGs | options | xfs_repair | peak RSS (MiB) | threads at once | threads created | time (s) | status |"
	echo "|---|---|---|---|---|---|---|---|---|"
	tail -n +2 "$raw" | while IFS=$'\t' read -r l a o p k n c s rc; do
		printf '| %s | %s | %s | %s | %d | %s | %s | %s | %s |\n' "$l" "$a" "$o" "$p" $((k / 1024)) "$n" "$c" "$s" "$rc"
	done
} > "$outdir/results.md"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
	for p in "${progs[@]}"; do echo "${p%%:*}: ${p#*:}: $("${p#*:}" -V)"; done
	[ -z "${BENCH_RM_NOTE:-}" ] || echo "binaries: $BENCH_RM_NOTE"
	echo "series xfsprogs: $(git -C "$top/build/xfsprogs" log --oneline -1 2>/dev/null || echo unknown)"
	for l in $layouts; do
		echo "layout $l: $(xfs_db -r -c 'sb 0' -c 'p agcount agblocks dblocks' "$images/$l.img" | tr '\n' ' ')"
	done
} > "$outdir/env.txt"
cat "$outdir/results.md"
