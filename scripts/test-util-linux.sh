#!/usr/bin/env bash
# The util-linux tree's own tests that cover the series, as KTAP (the "util-linux" suite):
#   blkid/growth       the partition rule (test_blkid_topology)
#   blkid/growth-loop  the whole path on loop devices with GPT and DOS tables: blkid -i -o udev,
#                      blkid -p -i -o udev, lsblk's GROW-* columns (root; hints from a copy of
#                      the queue directory mounted in a private mount namespace; skips without
#                      root or loop devices)
#   lsblk/lsblk        lsblk on sysfs dumps, one of them with growth hints
#   lsblk/growth       on that dump: --topology as in stock util-linux, partitions' values as
#                      properties
#   blkid/lowprobe-pt  blkid -p -o udev on partition table images (the GPT prober changed)
#   blkid/low-probe    the same on file system images (blkid's udev output changed)
# Not blkid/topology: it needs the kernel to find a loop device's partitions itself (this
# machine's kernel reads no partition tables), and it shows nothing blkid/growth-loop and the
# util-linux scenario do not.  Uses build/util-linux and what 'make util-linux' built in
# build/util-linux-obj (the programs and the tests' helper); builds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src="$top/build/util-linux"
obj="$top/build/util-linux-obj"
tests=(blkid/growth blkid/growth-loop lsblk/lsblk lsblk/growth blkid/lowprobe-pt blkid/low-probe)
echo "KTAP version 1"
echo "1..${#tests[@]}"

log="$top/build/test-util-linux.log"
: > "$log"
# What the tests run: a missing one would make its test skip, not fail.
missing=""
for p in blkid lsblk test_blkid_topology sample-partitions sfdisk partx losetup mount unshare; do
	[ -x "$obj/$p" ] || missing="$missing $p"
done
if [ ! -f "$src/tests/run.sh" ] || [ -n "$missing" ]; then
	all_not_ok "no util-linux build in $obj (missing:${missing:- the tree}): run 'make util-linux'" "${tests[@]}"
	exit 1
fi

n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	rc=0
	out=$(cd "$src" && tests/run.sh --srcdir="$src" --builddir="$obj" --parsable "$t" 2>&1) || rc=$?
	printf '%s\n' "$out" >> "$log"
	# The lines of the test and its subtests: "name: description ... OK|SKIPPED (why)|FAILED".
	results=$(printf '%s\n' "$out" | grep -E '\.\.\. (OK|SKIPPED|FAILED|KNOWN FAIL)' || true)
	# The test's own line, and its subtests' unless they passed.
	printf '%s\n' "$results" | sed -E '/\[[0-9]+\] .* \.\.\. OK$/d; s/^[[:space:]]*/# /; s/[[:space:]]+\.\.\./ .../'
	skip=$(printf '%s\n' "$results" | sed -nE 's/.*\.\.\. SKIPPED \((.*)\)$/\1/p' | first_line)
	if [ "$rc" != 0 ] || [ -z "$results" ] || printf '%s\n' "$results" | matches -E 'FAILED'; then
		echo "# see $log and $obj/tests/output/$t*"
		echo "not ok $n $t"
		failed=1
	elif [ -n "$skip" ]; then
		echo "ok $n $t # SKIP $skip"
	else
		echo "ok $n $t"
	fi
done
exit $failed
