#!/usr/bin/env bash
# Build blktests with the project's blktests series (make blktests): the tree build/blktests
# (the pinned base and blktests/patches, made by 'make blktests-tree' when absent) is copied
# into $GH_CACHE/blktests/<commit> and built there, since blktests builds and runs in its
# source directory (the guest of test-blktests.sh reads it through the host's root).
# When the base is missing (no peer tarball, no network) it says so in
# build/blktests.missing and exits 0: the blktests suites then report skips.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rc=0
peer_tree blktests || rc=$?
[ $rc = 0 ] || exit 0
for p in make gcc g++ rsync; do
	command -v "$p" >/dev/null || die "$p is missing: run 'make deps'"
done
commit=$(base_get "$top/blktests/BASE" commit)
obj="$GH_CACHE/blktests/${commit:0:12}"
build_lock
log="$obj.log"
peer_copy blktests "$obj"
: > "$log"
info "building blktests in $obj"
if ! (cd "$obj" && make -j"$(nproc)" CC="ccache gcc" CXX="ccache g++" >>"$log" 2>&1); then
	{ grep -E 'error|Error' "$log" || tail -n 10 "$log"; } | first_lines 30 >&2
	die "blktests build failed; see $log"
fi
for f in check new src/openclose; do
	[ -e "$obj/$f" ] || die "the blktests build in $obj has no $f; see $log"
done
echo "$obj" > "$top/build/blktests.obj"
info "blktests ready: $obj"
