#!/usr/bin/env bash
# Build fstests with the project's fstests series (make fstests): the tree build/fstests
# (the pinned base and fstests/patches, made by 'make fstests-tree' when absent) is copied
# into $GH_CACHE/fstests/<commit> and built there, since fstests builds and runs in its
# source directory.  Only changed files are copied, so a warm build does nothing.
# When the base is missing (no peer tarball, no network) it says so in
# build/fstests.missing and exits 0: the fstests suites then report skips.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree="$top/build/fstests"
missing="$top/build/fstests.missing"
mkdir -p "$top/build"
rm -f "$missing"
if [ ! -f "$tree/check" ]; then
	rc=0
	bash "$top/scripts/make-tree.sh" fstests 2>"$top/build/fstests-tree.log" || rc=$?
	if [ $rc != 0 ]; then
		cat "$top/build/fstests-tree.log" >&2
		# fetch-peer.sh exits 2 when the base is simply not there.
		if [ $rc = 2 ]; then
			sed -n 's/^fetch-peer.sh: warning: //p' "$top/build/fstests-tree.log" > "$missing"
			[ -s "$missing" ] || echo "fstests is missing (see build/fstests-tree.log)" > "$missing"
			warn "$(cat "$missing"); the fstests suites will skip"
			exit 0
		fi
		die "make-tree.sh fstests failed; see build/fstests-tree.log"
	fi
fi
for p in autoconf libtoolize aclocal autoheader rsync make; do
	command -v "$p" >/dev/null || die "$p is missing: run 'make deps'"
done
commit=$(base_get "$top/fstests/BASE" commit)
obj="$GH_CACHE/fstests/${commit:0:12}"
mkdir -p "$obj" "$CCACHE_DIR"
build_lock
log="$obj.log"
: > "$log"
# Content that changed only: an unchanged file keeps its time, so make rebuilds what changed.
rsync -rl --checksum --exclude=/.git "$tree/" "$obj/"
# A test the series no longer has must not run: tests/ is copied with deletions (but the
# group lists the build writes there).
rsync -rl --checksum --delete --exclude=group.list "$tree/tests/" "$obj/tests/"
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
