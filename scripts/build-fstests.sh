#!/usr/bin/env bash
# Build fstests with the project's fstests series (make fstests): the tree build/fstests
# (the pinned base and fstests/patches, made by 'make fstests-tree' when absent) is copied
# into $GH_CACHE/fstests/<commit> and built there, since fstests builds and runs in its
# source directory.  Only changed files are copied, so a warm build does nothing.
# When the base is missing (no peer tarball, no network) it says so in
# build/fstests.missing and exits 0: the fstests suites then report skips.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rc=0
peer_tree fstests || rc=$?
[ $rc = 0 ] || exit 0
for p in autoconf libtoolize aclocal autoheader rsync make; do
	command -v "$p" >/dev/null || die "$p is missing: run 'make deps'"
done
commit=$(base_get "$top/fstests/BASE" commit)
obj="$GH_CACHE/fstests/${commit:0:12}"
mkdir -p "$obj" "$CCACHE_DIR"
build_lock
log="$obj.log"
: > "$log"
peer_copy fstests "$obj"
info "building fstests in $obj"
if ! (cd "$obj" && CC="ccache gcc" make -j2 >>"$log" 2>&1); then
	{ grep -E 'error|Error' "$log" || tail -n 10 "$log"; } | first_lines 30 >&2
	die "fstests build failed; see $log"
fi
for f in check ltp/fsstress ltp/fsx src/fill2fs tests/xfs/group.list tests/ext4/group.list; do
	[ -e "$obj/$f" ] || die "the fstests build in $obj has no $f; see $log"
done
echo "$obj" > "$top/build/fstests.obj"
info "fstests ready: $obj"
