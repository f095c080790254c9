#!/usr/bin/env bash
# The guest kernel's KUnit results: boot it once (KUnit runs at boot, CONFIG_KUNIT=y) and
# print the KTAP document from its console without the printk timestamps.
# selftests/kunit.sh [--kernel PATH] [--qemu PATH]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kernel=${GH_KERNEL:-$out/bzImage} qemu=${GH_QEMU:-$out/qemu-system-x86_64}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--qemu) qemu=$2; shift 2 ;;
	*) die "unknown argument '$1' (usage: kunit.sh [--kernel PATH] [--qemu PATH])" ;;
	esac
done
work="$top/build/results/kunit-$(basename "$kernel")"
rm -rf "$work"
mkdir -p "$work"
rc=0
bash "$top/scripts/run-vm.sh" --kernel "$kernel" --qemu "$qemu" --dir "$work" --quiet \
	--timeout "${GH_TIMEOUT:-600}" --test none >/dev/null 2>"$work/run-vm.err" || rc=$?

# KTAP lines only: other kernel messages printed in between are dropped.
ktap=$(tr -d '\r' < "$work/console.log" | sed -n '/^GH-START/,$d; s/^\[ *[0-9]*\.[0-9]*\] //p' |
	sed -n '/^KTAP version 1$/,$p' |
	grep -E '^ *(KTAP version [0-9]+|1\.\.[0-9]+|(not )?ok [0-9]+|#)' || true)
if [ -z "$ktap" ] || ! echo "$ktap" | matches -E '^(not )?ok [0-9]+'; then
	status=0
	echo "KTAP version 1"
	echo "1..1"
	# The project's kernels are configured to run the series' suites: none is a failure.
	enabled=$(grep -ohE '^CONFIG_[A-Z0-9_]*KUNIT_TEST=y' "$top"/kernel/config/*.config | sort -u | tr '\n' ' ')
	if [ "$rc" = 0 ] && [ -n "$enabled" ] && [[ "$(readlink -f "$kernel")" == "$(readlink -f "$out")"/* ]]; then
		echo "# kernel/config enables ${enabled% } but $(basename "$kernel") ran no KUnit suite:"
		echo "# is the option in the build's .config? (rebuild with the fragments merged)"
		echo "not ok 1 kunit"
		status=1
	elif [ "$rc" = 0 ]; then
		echo "ok 1 kunit # SKIP $(basename "$kernel") runs no KUnit suite at boot"
	else
		tail -n 20 "$work/console.log" | sed 's/^/# /'
		echo "not ok 1 kunit: the guest did not boot (run-vm.sh status $rc)"
		status=1
	fi
	exit $status
fi
echo "$ktap"
plan=$(echo "$ktap" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p' | first_line)
have=$(echo "$ktap" | grep -cE '^(not )?ok [0-9]+' || true)
if [ -n "$plan" ] && [ "$have" -lt "$plan" ]; then
	# The kernel stopped (or printed garbage) before finishing: the rest did not pass.
	for i in $(seq $((have + 1)) "$plan"); do
		echo "not ok $i missing: the kernel printed no result (see $work/console.log)"
	done
fi
! echo "$ktap" | matches '^not ok'
