#!/usr/bin/env bash
# The pinned base of a peer test suite (fstests, blktests: not Debian packages) as a cached
# git repository, the base commit tagged gh-base; prints its path.  fetch-peer.sh fstests|blktests
# <what>/BASE names the commit, the tarball and the upstream repository.  The base comes from
#   1. $PEER_DIR/<tarball>, a git archive whose embedded commit (git get-tar-commit-id) must
#      be the pinned one.  Without PEER_DIR: ../shared/peer beside the checkout, or else beside
#      the local repository it was cloned from, or the one that was cloned from (a CI clone in
#      /tmp of a clone of /work/main finds /work/shared/peer);
#   2. else a clone of the upstream repository at the pinned commit (needs a network);
#   3. else nothing: exit status 2 and the reason on stderr (the suites then skip).
# Cached in $GH_CACHE/git/<tarball name>, so the tarball or the network is needed once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# fetch-peer.sh --dir fstests|blktests prints only the directory the tarball is taken from
# (status 2 if none holds it).
where=0
[ "${1:-}" != --dir ] || { where=1; shift; }
what=${1:?usage: fetch-peer.sh [--dir] fstests|blktests}
base="$top/$what/BASE"
[ -r "$base" ] || die "no $base"
commit=$(base_get "$base" commit)
tarball=$(base_get "$base" tarball)
upstream=$(base_get "$base" git)
if [ -z "$commit" ] || [ -z "$tarball" ]; then
	die "$base names no commit or no tarball"
fi
name=${tarball%.tar.gz}
repo="$GH_CACHE/git/$name"
peer=${PEER_DIR:-$top/../shared/peer}
if [ -z "${PEER_DIR:-}" ]; then
	# Up the chain of local clones, a few at most: each one's ../shared/peer.
	repo_dir=$top
	for _ in 1 2 3 4; do
		[ ! -f "$repo_dir/../shared/peer/$tarball" ] || { peer=$(cd "$repo_dir/../shared/peer" && pwd); break; }
		origin=$(git -C "$repo_dir" remote get-url origin 2>/dev/null || true)
		origin=${origin#file://}
		case $origin in /*) [ -d "$origin" ] || break ;; *) break ;; esac
		repo_dir=$origin
	done
fi
if [ "$where" = 1 ]; then
	[ -f "$peer/$tarball" ] || exit 2
	echo "$peer"
	exit 0
fi
ident=(-c "user.name=Growth Hints Project" -c "user.email=devel@growth-hints.invalid")

mkdir -p "$GH_CACHE/git"
exec 8>"$repo.lock"
flock 8
if [ "$(git -C "$repo" rev-parse -q --verify 'gh-base^{commit}' 2>/dev/null)" != "" ] &&
	[ "$(cat "$repo/.git/gh-peer-commit" 2>/dev/null)" = "$commit" ]; then
	echo "$repo"
	exit 0
fi
rm -rf "$repo" "$repo.tmp"
mkdir -p "$repo.tmp"
if [ -f "$peer/$tarball" ]; then
	# The commit git archive recorded in the tarball; gzip may be cut short once it is read.
	got=$(git get-tar-commit-id < <(gzip -dc "$peer/$tarball" 2>/dev/null) || true)
	[ "$got" = "$commit" ] ||
		die "$peer/$tarball holds commit '${got:-none}', not $commit as $what/BASE pins"
	tar -xzf "$peer/$tarball" -C "$repo.tmp"
	[ -d "$repo.tmp/$name" ] || die "$peer/$tarball does not unpack into $name/"
	mv "$repo.tmp/$name" "$repo.tmp/src"
	how=$tarball
elif [ -n "$upstream" ]; then
	info "no $peer/$tarball: cloning $what from $upstream at $commit"
	git init -q "$repo.tmp/clone"
	if ! git -C "$repo.tmp/clone" fetch -q --depth 1 "$upstream" "$commit" 2>"$repo.tmp/fetch.log" &&
		! git -C "$repo.tmp/clone" fetch -q "$upstream" 2>>"$repo.tmp/fetch.log"; then
		cat "$repo.tmp/fetch.log" >&2
		rm -rf "$repo.tmp"
		warn "$what is missing: no $peer/$tarball (set PEER_DIR) and $upstream could not be fetched"
		exit 2
	fi
	git -C "$repo.tmp/clone" rev-parse -q --verify "$commit^{commit}" >/dev/null || {
		rm -rf "$repo.tmp"
		warn "$what is missing: $upstream has no commit $commit"
		exit 2
	}
	mkdir -p "$repo.tmp/src"
	# The same files as the tarball: git archive honours export-ignore as it did.
	git -C "$repo.tmp/clone" archive "$commit" | tar -x -C "$repo.tmp/src"
	how="$upstream"
else
	rm -rf "$repo.tmp"
	warn "$what is missing: no $peer/$tarball (set PEER_DIR) and no upstream repository in $base"
	exit 2
fi
src="$repo.tmp/src"
git -C "$src" init -q -b main
git -C "$src" "${ident[@]}" add -A -f
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git -C "$src" "${ident[@]}" commit -q -m "Base: $what ${commit:0:12}" -m "From $how."
git -C "$src" tag gh-base
echo "$commit" > "$src/.git/gh-peer-commit"
mv "$src" "$repo"
rm -rf "$repo.tmp"
info "$what ${commit:0:12} unpacked from $how (cached in $repo)"
echo "$repo"
