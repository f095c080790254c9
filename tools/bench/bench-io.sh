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
# Prints a table with median, min and max of each and the ratio; writes it to
# build/results/bench-io.txt and, with env.txt and the raw values (raw.tsv: "round", the guest,
# the kind and the IOPS or boot seconds), to tools/bench/results/<date>-io/ (BENCH_IO_OUT to
# write elsewhere).  Under TCG the absolute numbers are far below real hardware; the ratios are
# what matters, and their resolution is the spread of the paired ratios.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

rounds=${BENCH_IO_ROUNDS:-8} boots=${BENCH_BOOTS:-5}
kernel=${GH_KERNEL:-$out/bzImage} qemu=${GH_QEMU:-$out/qemu-system-x86_64}
work="$top/build/results/bench-io"
build_lock # a benchmark: nothing else heavy may run meanwhile
rm -rf "$work"
mkdir -p "$work"
props="x-growth-hints=on,x-growth-min=0,x-growth-max=64G,x-growth-increment=1G"
"$qemu" -device virtio-blk-pci,help 2>/dev/null | matches x-growth-max ||
	die "$qemu has no growth hint properties: run 'make qemu'"

vm() { # vm NAME ARGS...: one guest; its console in $work/NAME/console.log
	local name=$1
	shift
	bash "$top/scripts/run-vm.sh" --kernel "$kernel" --qemu "$qemu" --dir "$work/$name" --quiet \
		--timeout 600 --append scsi_debug.add_host=0 "$@" >/dev/null 2>"$work/$name.err" ||
		die "guest $name failed; see $work/$name/console.log"
}

# stats: numbers on stdin -> "median min max"
stats() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

info "random reads: 2 guests, $rounds alternating rounds of 3 s each on a hinted and a plain disk"
: > "$work/iops.txt"
for slots in h,p p,h; do
	name="iops-${slots/,/}"
	d1="virtio:size=1G:serial=${slots%,*}" d2="virtio:size=1G:serial=${slots#*,}"
	[ "${slots%,*}" = h ] && d1+=":props=$props" || d2+=":props=$props"
	vm "$name" --test bench-io --append "gh.disks=h,p gh.rounds=$rounds gh.seconds=3 gh.max=$((64 << 30))" \
		--disk "$d1" --disk "$d2"
	grep -q '^GH-EXIT 0' "$work/$name/console.log" || die "the I/O guest failed; see $work/$name/console.log"
	tr -d '\r' < "$work/$name/console.log" | sed -n "s/^GH| # bench-io \([0-9]*\) /$name \1 /p" >> "$work/iops.txt"
done
# iops.txt: "GUEST ROUND KIND IOPS"
read -r ih ih_min ih_max < <(awk '$3 == "hinted" { print $4 }' "$work/iops.txt" | stats)
read -r ip ip_min ip_max < <(awk '$3 == "plain" { print $4 }' "$work/iops.txt" | stats)
read -r pr pr_min pr_max < <(awk '{ v[$1 " " $2, $3] = $4; k[$1 " " $2] = 1 }
	END { for (r in k) printf "%.3f\n", v[r, "hinted"] / v[r, "plain"] }' "$work/iops.txt" | stats)

info "boot time: $boots alternating boots with two hinted and two plain disks"
for i in $(seq "$boots"); do
	for kind in hinted plain; do
		p=""
		[ "$kind" = plain ] || p=":props=$props"
		vm "boot-$kind-$i" --test none --disk "virtio:size=1G$p" --disk "virtio:size=1G$p"
		tr -d '\r' < "$work/boot-$kind-$i/console.log" | sed -n 's/^GH-START none //p' >> "$work/boot-$kind.txt"
	done
done
read -r bh bh_min bh_max < <(stats < "$work/boot-hinted.txt")
read -r bp bp_min bp_max < <(stats < "$work/boot-plain.txt")

{
	echo "Hint path cost on virtio-blk ($(date -u +%Y-%m-%d), TCG, tools/bench/bench-io.sh)"
	printf '%-28s %12s %12s %12s\n' "" "median" "min" "max"
	printf '%-28s %12s %12s %12s\n' "4k randread IOPS, hints" "$ih" "$ih_min" "$ih_max"
	printf '%-28s %12s %12s %12s\n' "4k randread IOPS, no hints" "$ip" "$ip_min" "$ip_max"
	printf '%-28s %12s\n' "ratio of the medians" "$(ratio "$ih" "$ip")"
	printf '%-28s %12s %12s %12s\n' "paired ratio per round" "$pr" "$pr_min" "$pr_max"
	printf '%-28s %12s %12s %12s\n' "boot to /init s, hints" "$bh" "$bh_min" "$bh_max"
	printf '%-28s %12s %12s %12s\n' "boot to /init s, no hints" "$bp" "$bp_min" "$bp_max"
	printf '%-28s %12s\n' "ratio (hints / none)" "$(ratio "$bh" "$bp")"
	echo "(2 guests x $rounds rounds of 3 s per disk, hinted disk first in one and second in the other; $boots boots per kind, alternating)"
} | tee "$top/build/results/bench-io.txt"
outdir=${BENCH_IO_OUT:-$top/tools/bench/results/$(date -u +%Y-%m-%d)-io}
mkdir -p "$outdir"
{ echo '```'; cat "$top/build/results/bench-io.txt"; echo '```'; } > "$outdir/results.md"
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
} > "$outdir/env.txt"
