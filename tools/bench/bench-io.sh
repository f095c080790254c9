#!/usr/bin/env bash
# make bench, guest part: what the hints cost a virtio-blk disk (they should cost nothing).
#  1. 4 KiB random-read IOPS (O_DIRECT, queue depth 1) on a disk with hints and one without,
#     in the same guest, in alternating runs (BENCH_IO_ROUNDS, default 8, of 3 s each).  Two
#     guests: the hinted disk is the first virtio disk in one and the second in the other, so
#     neither the slot nor the order of the runs can pass for a cost of the hints.  Each round
#     gives a paired ratio (hinted / plain, runs seconds apart), which cancels the slow drift
#     of a shared machine; the medians of the raw IOPS are printed as well.
#  2. Boot time to /init (guest uptime) with two hinted disks and with two plain ones, in
#     alternating boots (BENCH_BOOTS each, default 5).
# Writes the raw values (raw.tsv: the measure, the guest, the round, the kind and the IOPS or
# boot seconds) and env.txt to tools/bench/results/<date>-io/ (BENCH_IO_OUT to write
# elsewhere), then results.md from raw.tsv: median, min and max of each, the ratios, and the
# distribution-free 95% interval of the median paired ratio (order statistics: the resolution
# of the run).  bench-io.sh --report DIR writes DIR/results.md again from DIR/raw.tsv.
# Under TCG the absolute numbers are far below real hardware; the ratios are what matters.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

# stats: numbers on stdin -> "median min max"
stats() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# median_interval: numbers on stdin -> "LOW HIGH K COVERAGE", the order statistics x(K) and
# x(n+1-K) that hold the median with at least 95% confidence whatever the distribution (the
# sign test's interval), or nothing for fewer than 6 numbers.
median_interval() {
	sort -g | awk '{ v[NR] = $1 } END {
		n = NR; p = 0.5 ^ n; tail = 0; k = 0
		for (i = 0; i < n; i++) {	# tail = P(X <= i), X ~ Bin(n, 1/2)
			if (i > 0) p = p * (n - i + 1) / i
			if (tail + p > 0.025) break
			tail += p; k = i + 1
		}
		if (k >= 1) printf "%s %s %d %.1f\n", v[k], v[n + 1 - k], k, 100 * (1 - 2 * tail)
	}'
}

# io_report DIR: DIR/results.md from DIR/raw.tsv (and the date of DIR/env.txt).
io_report() {
	local dir=$1 raw=$1/raw.tsv day ih ih_min ih_max ip ip_min ip_max pr pr_min pr_max
	local pairs lo hi k cov bh bh_min bh_max bp bp_min bp_max n rounds boots
	[ -r "$raw" ] || die "no $raw"
	day=$(sed -n 's/^date: \([0-9-]*\).*/\1/p' "$dir/env.txt" 2>/dev/null)
	val() { awk -F'\t' -v m="$1" -v k="$2" '$1 == m && $4 == k { print $5 }' "$raw"; }
	read -r ih ih_min ih_max < <(val iops hinted | stats)
	read -r ip ip_min ip_max < <(val iops plain | stats)
	# One paired ratio per guest and round: hinted / plain, runs seconds apart.
	pairs=$(awk -F'\t' '$1 == "iops" { v[$2 " " $3, $4] = $5; r[$2 " " $3] = 1 }
		END { for (x in r) printf "%.3f\n", v[x, "hinted"] / v[x, "plain"] }' "$raw")
	read -r pr pr_min pr_max < <(stats <<< "$pairs")
	read -r lo hi k cov < <(median_interval <<< "$pairs") || true
	n=$(wc -l <<< "$pairs")
	read -r bh bh_min bh_max < <(val boot_s hinted | stats)
	read -r bp bp_min bp_max < <(val boot_s plain | stats)
	rounds=$(awk -F'\t' '$1 == "iops" && $3 > m { m = $3 } END { print m + 0 }' "$raw")
	boots=$(val boot_s hinted | wc -l)
	{
		echo '```'
		echo "Hint path cost on virtio-blk (${day:-$(date -u +%Y-%m-%d)}, TCG, tools/bench/bench-io.sh)"
		printf '%-28s %12s %12s %12s\n' "" "median" "min" "max"
		printf '%-28s %12s %12s %12s\n' "4k randread IOPS, hints" "$ih" "$ih_min" "$ih_max"
		printf '%-28s %12s %12s %12s\n' "4k randread IOPS, no hints" "$ip" "$ip_min" "$ip_max"
		printf '%-28s %12s\n' "ratio of the medians" "$(ratio "$ih" "$ip")"
		printf '%-28s %12s %12s %12s\n' "paired ratio per round" "$pr" "$pr_min" "$pr_max"
		printf '%-28s %12s %12s %12s\n' "boot to /init s, hints" "$bh" "$bh_min" "$bh_max"
		printf '%-28s %12s %12s %12s\n' "boot to /init s, no hints" "$bp" "$bp_min" "$bp_max"
		printf '%-28s %12s\n' "ratio (hints / none)" "$(ratio "$bh" "$bp")"
		echo "(2 guests x $rounds rounds of 3 s per disk, hinted disk first in one and second in the other; $boots boots per kind, alternating)"
		echo '```'
		echo
		if [ -n "$lo" ]; then
			echo "The median of the $n paired ratios lies in [$lo, $hi] with $cov% confidence whatever their"
			echo "distribution (the sign test's interval: the ${k}th smallest and the ${k}th largest ratio)."
			echo "So at that confidence the hints cost less than $(awk -v l="$lo" 'BEGIN { printf "%.1f", 100 * (1 - l) }')% of the random-read IOPS:"
			echo "the resolution of this run."
		else
			echo "Fewer than 6 paired ratios: no distribution-free interval of their median."
		fi
	} > "$dir/results.md"
}

if [ "${1:-}" = --report ]; then
	[ $# = 2 ] || die "usage: bench-io.sh [--report DIR]"
	io_report "$2"
	cat "$2/results.md"
	exit 0
fi

rounds=${BENCH_IO_ROUNDS:-8} boots=${BENCH_BOOTS:-5}
kernel=${GH_KERNEL:-$out/bzImage} qemu=${GH_QEMU:-$out/qemu-system-x86_64}
work="$top/build/results/bench-io"
build_lock # a benchmark: nothing else heavy may run meanwhile
rm -rf "$work"
mkdir -p "$work"
props="x-growth-hints=on,x-growth-min=0,x-growth-max=64T,x-growth-increment=1G"
"$qemu" -device virtio-blk-pci,help 2>/dev/null | matches x-growth-max ||
	die "$qemu has no growth hint properties: run 'make qemu'"

vm() { # vm NAME ARGS...: one guest; its console in $work/NAME/console.log
	local name=$1
	shift
	bash "$top/scripts/run-vm.sh" --kernel "$kernel" --qemu "$qemu" --dir "$work/$name" --quiet \
		--timeout 600 --append scsi_debug.add_host=0 "$@" >/dev/null 2>"$work/$name.err" ||
		die "guest $name failed; see $work/$name/console.log"
}

info "random reads: 2 guests, $rounds alternating rounds of 3 s each on a hinted and a plain disk"
: > "$work/iops.txt"
for slots in h,p p,h; do
	name="iops-${slots/,/}"
	d1="virtio:size=1G:serial=${slots%,*}" d2="virtio:size=1G:serial=${slots#*,}"
	[ "${slots%,*}" = h ] && d1+=":props=$props" || d2+=":props=$props"
	vm "$name" --test bench-io --append "gh.disks=h,p gh.rounds=$rounds gh.seconds=3 gh.max=$((64 << 40))" \
		--disk "$d1" --disk "$d2"
	grep -q '^GH-EXIT 0' "$work/$name/console.log" || die "the I/O guest failed; see $work/$name/console.log"
	tr -d '\r' < "$work/$name/console.log" | sed -n "s/^GH| # bench-io \([0-9]*\) /$name \1 /p" >> "$work/iops.txt"
done
info "boot time: $boots alternating boots with two hinted and two plain disks"
for i in $(seq "$boots"); do
	for kind in hinted plain; do
		p=""
		[ "$kind" = plain ] || p=":props=$props"
		vm "boot-$kind-$i" --test none --disk "virtio:size=1G$p" --disk "virtio:size=1G$p"
		tr -d '\r' < "$work/boot-$kind-$i/console.log" | sed -n 's/^GH-START none //p' >> "$work/boot-$kind.txt"
	done
done
outdir=${BENCH_IO_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-io}
mkdir -p "$outdir"
# iops.txt: "GUEST ROUND KIND IOPS"; boot-KIND.txt: one boot time per line
{
	printf 'measure\tguest\tround\tkind\tvalue\n'
	awk '{ printf "iops\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4 }' "$work/iops.txt"
	for kind in hinted plain; do
		awk -v k="$kind" '{ printf "boot_s\t-\t%d\t%s\t%s\n", NR, k, $1 }' "$work/boot-$kind.txt"
	done
} > "$outdir/raw.tsv"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host kernel: $(uname -r); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | first_line); cpus: $(nproc)"
	echo "guest kernel: $kernel; QEMU: $("$qemu" --version | first_line) (TCG)"
	echo "parameters: rounds=$rounds of 3 s per disk and guest, boots=$boots per kind; hinted disk: $props"
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "duration: $SECONDS s"
} > "$outdir/env.txt"
io_report "$outdir"
cat "$outdir/results.md"
