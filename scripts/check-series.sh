#!/usr/bin/env bash
# Bisectability: build every commit of a series on its own.
# check-series.sh [kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt|fstests|blktests]...
# Walks gh-base+1 .. series in the tree under build/, building incrementally (git checkout
# touches only the files that differ, so each step rebuilds what that patch changed),
# then returns the tree to its branch.  Prints KTAP: one result per patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- kernel qemu util-linux

build_one() {
	case "$1" in
	# the guest build, then the series' tests and drivers as modules (exports)
	kernel)
		GH_KCONFIG_PARTIAL=1 bash "$top/scripts/build-kernel.sh" guest &&
			GH_KCONFIG_PARTIAL=1 bash "$top/scripts/build-kernel.sh" modules
		;;
	qemu) bash "$top/scripts/build-qemu.sh" ;;
	util-linux) bash "$top/scripts/build-util-linux.sh" --all ;;
	e2fsprogs) bash "$top/scripts/build-e2fsprogs.sh" ;;
	xfsprogs) bash "$top/scripts/build-xfsprogs.sh" ;;
	fstests) bash "$top/scripts/build-fstests.sh" ;;
	blktests) bash "$top/scripts/build-blktests.sh" ;;
	# libvirt: each patch must also pass the tests of the series that exist at that point
	libvirt) bash "$top/scripts/build-libvirt.sh" && bash "$top/scripts/test-libvirt.sh" ;;
	esac
}

commits=()
for what in "$@"; do
	tree="$top/build/$what"
	[ -d "$tree/.git" ] || die "no tree at $tree: run 'make $what-tree' first"
	git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes; commit them first"
	while read -r c; do commits+=("$what $c"); done < <(git -C "$tree" rev-list --reverse gh-base..series)
done

echo "KTAP version 1"
echo "1..${#commits[@]}"
n=0 failed=0
for entry in "${commits[@]}"; do
	what=${entry%% *} c=${entry#* }
	tree="$top/build/$what"
	n=$((n + 1))
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$tree" checkout -q "$c"
	log="$top/build/check-series-$what-$n.log"
	if build_one "$what" >"$log" 2>&1; then
		echo "ok $n $what: $subject"
	else
		echo "# build failed, see $log:"
		grep -E 'error|Error' "$log" | first_lines 5 | sed 's/^/# /'
		echo "not ok $n $what: $subject"
		failed=1
	fi
	git -C "$tree" checkout -q series
done
# Leave the artifacts of the whole series behind, with the full configuration.
for what in "$@"; do
	case "$what" in
	kernel) bash "$top/scripts/build-kernel.sh" guest >/dev/null 2>&1 || true ;;
	qemu) build_one qemu >/dev/null 2>&1 || true ;;
	util-linux) bash "$top/scripts/build-util-linux.sh" >/dev/null 2>&1 || true ;;
	e2fsprogs | xfsprogs | fstests | blktests | libvirt) build_one "$what" >/dev/null 2>&1 || true ;;
	esac
done
exit "$failed"
