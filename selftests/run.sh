#!/usr/bin/env bash
# Run the growth hints scenarios, one guest (or two) per scenario, and print one KTAP
# document: one top-level result per scenario, its checks nested below.
#
# selftests/run.sh [--list] [--kernel PATH] [--qemu PATH] [--verbose] [SCENARIO...]
#   default: every scenario, in the order of --list.  Logs: build/results/scenarios/NAME/.
#   --sanitize   use build/out/bzImage-sanitize (make kernel-sanitize) as the guest kernel
#   --verbose    also print each scenario's results and guest consoles on stderr as it runs
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

here="$top/selftests"
# Order matters only for reading; every scenario is independent.
all=(hints no-hints runtime-change vhost-user live-resize hostile nvme compat migration mkfs mkfs-native lvm storm reset unplug util-linux libvirt demo inflate many-ags)

kernel=${GH_KERNEL:-$out/bzImage} qemu=${GH_QEMU:-$out/qemu-system-x86_64} verbose=0 list=0 names=()
while [ $# -gt 0 ]; do
	case "$1" in
	--list) list=1; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--qemu) qemu=$2; shift 2 ;;
	--sanitize) kernel="$out/bzImage-sanitize"; shift ;;
	--verbose) verbose=1; export GH_VERBOSE=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1' (see selftests/run.sh --help)" ;;
	*) names+=("$1"); shift ;;
	esac
done
if [ $list = 1 ]; then
	for n in "${all[@]}"; do
		printf '%-16s %s\n' "$n" "$(sed -n '/^# Scenario: /{s///p;q}' "$here/scenarios/$n.sh")"
	done
	exit 0
fi
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
for n in "${names[@]}"; do
	[ -f "$here/scenarios/$n.sh" ] || die "no scenario '$n' (selftests/run.sh --list)"
done
[ -r "$kernel" ] || die "no guest kernel $kernel: run 'make kernel' (or 'make kernel-sanitize')"
[ -x "$qemu" ] || die "no QEMU $qemu: run 'make qemu'"
[ -r "${GH_INITRD:-$out/initramfs.cpio.gz}" ] || die "no $out/initramfs.cpio.gz: run 'make initramfs'"
# Two runs in one checkout would share build/results/scenarios: one at a time.
mkdir -p "$top/build/results"
exec 8>"$top/build/results/.scenarios.lock"
flock -n 8 || { info "waiting for another selftests/run.sh in this checkout to finish"; flock 8; }
export GH_KERNEL=$kernel GH_QEMU=$qemu GH_INITRD=${GH_INITRD:-$out/initramfs.cpio.gz}

# Scenarios are independent (own work directory, own QMP sockets and images): without
# --verbose, GH_SCENARIO_JOBS of them (default: the number of CPUs, each guest being one
# emulated CPU) run at a time; the results are printed in order. With
# GH_SCENARIO_SOLO_UNTIL=FILE, one at a time until FILE exists (check.sh's second lane of
# suites creates it when it ends, so that the lanes share the cores), then GH_SCENARIO_JOBS.
jobs=${GH_SCENARIO_JOBS:-$(nproc)}
[ $verbose = 0 ] || jobs=1
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "GH_SCENARIO_JOBS is a positive number, not '$jobs'"
solo_until=${GH_SCENARIO_SOLO_UNTIL:-}
allowed() { # how many scenarios may run now
	if [ -n "$solo_until" ] && [ ! -e "$solo_until" ]; then echo 1; else echo "$jobs"; fi
}
echo "KTAP version 1"
echo "1..${#names[@]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_one() { # run_one NAME: its KTAP in $tmp/NAME, stderr in .err, status in .rc, seconds in .secs
	local n=$1 start=$SECONDS rc=0
	export GH_WORK="$top/build/results/scenarios/$n"
	if [ $verbose = 1 ]; then
		bash "$here/scenarios/$n.sh" 2> >(sed "s/^/[$n] /" >&2) | tee "$tmp/$n" | sed "s/^/[$n] /" >&2 || rc=${PIPESTATUS[0]}
	else
		bash "$here/scenarios/$n.sh" > "$tmp/$n" 2> "$tmp/$n.err" || rc=$?
	fi
	echo $((SECONDS - start)) > "$tmp/$n.secs"
	echo "$rc" > "$tmp/$n.rc"
}
for n in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$(allowed)" ]; do sleep 1; done
	run_one "$n" &
done
wait || true

i=0 failed=0
for n in "${names[@]}"; do
	i=$((i + 1))
	res="$tmp/$n"
	rc=$(cat "$res.rc" 2>/dev/null || echo 1)
	total=$(grep -cE '^(not )?ok ' "$res" 2>/dev/null || true)
	echo "    KTAP version 1"
	echo "    # Subtest: $n"
	echo "    1..$total"
	sed 's/^/    /' "$res" 2>/dev/null || true
	echo "    # $n: $(cat "$res.secs" 2>/dev/null || echo '?') s"
	if [ $verbose = 0 ] && [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ -s "$res.err" ]; then
		tail -n 10 "$res.err" | sed 's/^/    # /'
	fi
	if [ "$rc" = 0 ] && [ "$total" -gt 0 ]; then
		echo "ok $i $n"
	elif [ "$rc" = 4 ]; then
		reason=$(sed -n '/^ok [0-9]* .* # SKIP /{s///p;q}' "$res")
		echo "ok $i $n # SKIP ${reason:-no check could run}"
	else
		[ "$total" -gt 0 ] || echo "# $n: no results (exit status $rc)"
		echo "not ok $i $n"
		failed=1
	fi
done
exit $failed
