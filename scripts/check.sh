#!/usr/bin/env bash
# make check: build what the tests need, run every suite, count the top-level KTAP results.
# check.sh [--no-build] [SUITE...]
#   --no-build  use the artifacts in build/out as they are
# Every guest (KUnit, the scenarios, blktests, the Debian-kernel checks aside) boots one
# kernel: the debug build build/out/bzImage-sanitize (make kernel-sanitize: the guest
# configuration with KASAN, UBSAN, lockdep and hung-task detection), so that every scenario
# runs under the sanitizers and the check builds one kernel, not two.  GH_CHECK_KERNEL=guest
# uses the plain guest kernel (make kernel, what the demo and the benchmarks boot) instead.
# Each suite's KTAP goes to build/results/<suite>.tap (its stderr to <suite>.log).
# The suites run in two lanes, the longest single-CPU ones (second_lane) beside the others;
# GH_CHECK_LANES=1 runs them one after the other.
# Last line: "N passed, N failed, N skipped"; the exit status is non-zero on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build=1 only=()
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) build=0; shift ;;
	-*) die "unknown option '$1' (usage: check.sh [--no-build] [SUITE...])" ;;
	*) only+=("$1"); shift ;;
	esac
done
variant=${GH_CHECK_KERNEL:-sanitize}
case "$variant" in
sanitize) export GH_KERNEL="$out/bzImage-sanitize" GH_MODULES="$out/modules-sanitize" ;;
guest) export GH_KERNEL="$out/bzImage" GH_MODULES="$out/modules" ;;
*) die "GH_CHECK_KERNEL is 'sanitize' (the default) or 'guest', not '$variant'" ;;
esac

# suite name | script that must exist | command
suites=(
	"hygiene|scripts/check-hygiene.sh|bash scripts/check-hygiene.sh"
	"docs|scripts/check-docs.py|python3 scripts/check-docs.py"
	"tools|tools/Makefile|make -s -C tools check"
	"util-linux|scripts/test-util-linux.sh|bash scripts/test-util-linux.sh"
	"mkfs-native|scripts/test-mkfs-native.sh|bash scripts/test-mkfs-native.sh"
	"e2fsprogs|scripts/test-e2fsprogs.sh|bash scripts/test-e2fsprogs.sh"
	"qtest|scripts/qtest.sh|bash scripts/qtest.sh"
	"iotests|scripts/iotests.sh|bash scripts/iotests.sh"
	"qemu-compat|scripts/qemu-compat.sh|bash scripts/qemu-compat.sh"
	"kunit|selftests/kunit.sh|bash selftests/kunit.sh"
	"scenarios|selftests/run.sh|bash selftests/run.sh"
	"stock-compat|selftests/stock-compat.sh|bash selftests/stock-compat.sh"
	"fstests|scripts/test-fstests.sh|bash scripts/test-fstests.sh"
	"blktests|scripts/test-blktests.sh|bash scripts/test-blktests.sh"
	"libvirt|scripts/test-libvirt.sh|bash scripts/test-libvirt.sh"
)
# Suites whose producers are still being written: a missing script is a skip, not a failure.
# The lead empties this list when every suite exists.
pending=()
# The second lane (see below): the longest single-CPU suites, in this order.  qemu-compat
# first: on a cold cache it builds the unpatched QEMU, which must not starve the guests of
# the scenarios (each has a time limit); the first lane starts with suites without guests.
second_lane=(qemu-compat blktests fstests stock-compat)

results="$top/build/results"
mkdir -p "$results"
cd "$top"
# Two runs in one checkout would overwrite each other's results: one at a time.
exec 8>"$results/.check.lock"
flock -n 8 || { info "waiting for another check.sh in this checkout to finish"; flock 8; }
start=$SECONDS

# in_lane PIDVAR FUNC: run FUNC in the background in its own process group, so that when
# check.sh ends early (a failure, an interrupt) the lane stops with it, every process under it.
lane_pids=()
in_lane() {
	set -m
	"$2" &
	printf -v "$1" %s $!
	set +m
	lane_pids+=("${!1}")
}
# shellcheck disable=SC2317 # called by the trap
stop_lanes() {
	local p
	for p in "${lane_pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
}
trap stop_lanes EXIT
trap 'exit 130' INT TERM
case "${GH_CHECK_LANES:-2}" in
1 | 2) ;;
*) die "GH_CHECK_LANES is 1 or 2, not '$GH_CHECK_LANES'" ;;
esac

buildlog="$results/build.log"
step() { # step DESCRIPTION COMMAND...: a build step; its output goes to $buildlog
	local t0=$SECONDS
	info "$1"
	"${@:2}" >>"$buildlog" 2>&1 || { tail -n 30 "$buildlog" >&2; die "$1 failed; see $buildlog"; }
	info "$1: $((SECONDS - t0)) s"
}
# The userspace builds (their trees prepared, configured, built: much of it one process at a
# time) run beside the kernel's and QEMU's, which keep both cores busy; check.sh holds the
# build lock for both lanes.
userspace() {
	buildlog="$results/build-userspace.log"
	: > "$buildlog"
	step "building libblkid, blkid and lsblk (util-linux)" make -s util-linux
	step "building mke2fs and mkfs.xfs of the series and their bases" make -s e2fsprogs xfsprogs mkfs-stock
	step "building the tools" make -s tools
	step "building fstests" make -s fstests
	step "building blktests" make -s blktests
	step "building libvirt (the QEMU driver, virtqemud, virsh and the series' tests)" make -s libvirt
}
if [ $build = 1 ]; then
	: > "$buildlog"
	build_lock
	export GH_BUILD_LOCK_HELD=1
	userspace_pid=
	in_lane userspace_pid userspace
	if [ "$variant" = sanitize ]; then
		step "building the guest kernel (debug build: KASAN, UBSAN, lockdep)" make -s kernel-sanitize
	else
		step "building the guest kernel" make -s kernel
	fi
	step "building QEMU" make -s qemu
	wait "$userspace_pid" || die "the userspace builds failed (see above and $results/build-userspace.log)"
	step "building the initramfs" make -s initramfs
	unset GH_BUILD_LOCK_HELD
	exec 9>&-
	info "builds done in $((SECONDS - start)) s"
fi

# run_suite NAME SCRIPT CMD: its KTAP in $results/NAME.tap, stderr in NAME.log; its summary
# line (and its "not ok" lines) in NAME.sum, its counts ("P F K") in NAME.count.
run_suite() {
	local name=$1 script=$2 cmd=$3 tap="$results/$1.tap" t0=$SECONDS rc=0 p k f argv
	rm -f "$results/$name.sum" "$results/$name.count"
	if [ ! -e "$script" ]; then
		if [[ " ${pending[*]} " == *" $name "* ]]; then
			printf 'KTAP version 1\n1..1\nok 1 %s # SKIP %s is not written yet\n' "$name" "$script" > "$tap"
		else
			printf 'KTAP version 1\n1..1\nnot ok 1 %s: %s is missing\n' "$name" "$script" > "$tap"
		fi
	else
		read -r -a argv <<< "$cmd"
		"${argv[@]}" > "$tap" 2> "$results/$name.log" || rc=$?
	fi
	p=$(grep -E '^ok [0-9]+' "$tap" | grep -cv '# SKIP' || true)
	k=$(grep -E '^ok [0-9]+' "$tap" | grep -c '# SKIP' || true)
	f=$(grep -cE '^not ok [0-9]+' "$tap" || true)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		# A suite that fails without saying which test failed counts as one failure.
		echo "not ok $((p + k + 1)) $name exited with status $rc (see $results/$name.log)" >> "$tap"
		f=1
	elif [ $((p + k + f)) = 0 ]; then
		echo "not ok 1 $name printed no KTAP result (see $results/$name.log)" >> "$tap"
		f=1
	fi
	{
		printf '%-20s %d passed, %d failed, %d skipped (%d s)\n' "$name:" "$p" "$f" "$k" $((SECONDS - t0))
		grep -E '^not ok [0-9]+' "$tap" | sed 's/^/    /' || true
	} > "$results/$name.sum"
	echo "$p $f $k" > "$results/$name.count"
}

# The suites of the second lane run, one after the other, beside those of the first: each
# of them is mostly one emulated CPU or one host process, and the machine has two cores
# (GH_CHECK_LANES=1: every suite in turn, in table order).  A suite's summary is printed
# when its lane reaches it; the second lane's after the first lane is done.
selected=()
for s in "${suites[@]}"; do
	IFS='|' read -r name _ <<< "$s"
	if [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $name "* ]]; then
		selected+=("$s")
	fi
done
lane2=()
if [ "${GH_CHECK_LANES:-2}" = 2 ]; then
	lane1=()
	for s in "${selected[@]}"; do
		IFS='|' read -r name _ <<< "$s"
		[[ " ${second_lane[*]} " == *" $name "* ]] || lane1+=("$s")
	done
	for l in "${second_lane[@]}"; do
		for s in "${selected[@]}"; do
			[ "${s%%|*}" != "$l" ] || lane2+=("$s")
		done
	done
	selected=("${lane1[@]}")
fi
second_lane_suites() {
	local s name script cmd
	for s in "${lane2[@]}"; do
		IFS='|' read -r name script cmd <<< "$s"
		run_suite "$name" "$script" "$cmd"
	done
	touch "$results/.lane2-done"
}
lane2_pid=
if [ ${#lane2[@]} -gt 0 ]; then
	rm -f "$results/.lane2-done"
	in_lane lane2_pid second_lane_suites
	info "running ${second_lane[*]} beside the other suites (GH_CHECK_LANES=1: one at a time)"
	# The scenarios' guests have time limits: while the second lane has one core, one
	# scenario at a time on the other (two starved mkfs-native past its limit in a cold run);
	# when it ends, as many as selftests/run.sh runs by default.
	[ -n "${GH_SCENARIO_JOBS:-}" ] || export GH_SCENARIO_SOLO_UNTIL="$results/.lane2-done"
fi
passed=0 failed=0 skipped=0
report() { # report NAME: print its summary, add its counts
	local p f k
	if [ -r "$results/$1.count" ]; then
		cat "$results/$1.sum"
		read -r p f k < "$results/$1.count"
	else
		echo "$1: no result (its lane ended early; see $results/$1.log)"
		p=0 f=1 k=0
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
}
for s in "${selected[@]}"; do
	IFS='|' read -r name script cmd <<< "$s"
	run_suite "$name" "$script" "$cmd"
	report "$name"
done
if [ -n "$lane2_pid" ]; then
	wait "$lane2_pid" || true
	for s in "${lane2[@]}"; do
		IFS='|' read -r name _ <<< "$s"
		report "$name"
	done
fi
info "total time $((SECONDS - start)) s; KTAP in $results/"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
