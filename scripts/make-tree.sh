#!/usr/bin/env bash
# Create build/<what> as a git tree: the base as one commit (tagged gh-base), then the
# series applied with git am.
# make-tree.sh kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt|fstests|blktests
# KERNEL_SRC= / QEMU_SRC= / UTIL_LINUX_SRC= / E2FSPROGS_SRC= / XFSPROGS_SRC= / LIBVIRT_SRC=
# name an existing git tree to use as the base instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:?usage: make-tree.sh kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt|fstests|blktests}
tree="$top/build/$what"
srcvar=$(srcvar_of "$what")
ident=(-c "user.name=Growth Hints Project" -c "user.email=devel@growth-hints.invalid")

# A cached git repository holding just the base commit.
base_repo() {
	local files ver repo tmp f
	# A peer test suite (fstests, blktests) is pinned to an upstream commit, not a Debian package.
	if [ -n "$(base_get "$top/$what/BASE" tarball)" ]; then
		bash "$top/scripts/fetch-peer.sh" "$what"
		return
	fi
	files=$(bash "$top/scripts/fetch-base.sh" "$what")
	ver=$(echo "$files" | first_line | sed -E 's/\.(deb|orig\.tar\..*|debian\.tar\..*)$//')
	repo="$GH_CACHE/git/$ver"
	mkdir -p "$GH_CACHE/git"
	# One creator at a time: concurrent runs wait for the first to finish.
	exec 8>"$repo.lock"
	flock 8
	if [ ! -d "$repo/.git" ] || ! git -C "$repo" rev-parse -q --verify gh-base >/dev/null; then
		info "unpacking $ver (once; cached in $repo)"
		rm -rf "$repo" "$repo.tmp"
		tmp="$repo.tmp"
		mkdir -p "$tmp"
		if [ "$what" = kernel ]; then
			dpkg-deb --fsys-tarfile "$dldir/$(echo "$files" | first_line)" |
				tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
				xz -dc | tar -x -C "$tmp" --strip-components=1
		else
			for f in $files; do
				case "$f" in *.orig.tar.*) tar -xf "$dldir/$f" -C "$tmp" --strip-components=1 ;; esac
			done
		fi
		git -C "$tmp" init -q -b main
		git -C "$tmp" "${ident[@]}" add -A -f
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			git -C "$tmp" "${ident[@]}" commit -q -m "Base: $ver"
		if [ "$what" = kernel ] && grep -q '^# Debian packaging' "$tmp/.gitignore"; then
			# Debian's tarball ignores every new top-level path; upstream does not.
			sed -i '/^# Debian packaging/,$d' "$tmp/.gitignore"
			sed -i '${/^#$/d}' "$tmp/.gitignore"
			git -C "$tmp" "${ident[@]}" add .gitignore
			GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
				git -C "$tmp" "${ident[@]}" commit -q -m "Base: drop Debian's ignore-everything rule"
		fi
		if [ "$what" = qemu ]; then
			# The +ds tarball has no edk2 archives; Debian's own patch skips them.
			for f in $files; do
				case "$f" in *.debian.tar.*)
					tar -xf "$dldir/$f" -C "$tmp" debian/patches/skip-unpack-edk2-blobs.patch
					git -C "$tmp" apply debian/patches/skip-unpack-edk2-blobs.patch
					rm -rf "$tmp/debian"
					git -C "$tmp" "${ident[@]}" add -A
					GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
						git -C "$tmp" "${ident[@]}" commit -q -m "Base: Debian's skip-unpack-edk2-blobs.patch"
					;;
				esac
			done
		fi
		git -C "$tmp" tag gh-base
		mv "$tmp" "$repo"
	fi
	exec 8>&-
	echo "$repo"
}

if [ -n "${!srcvar:-}" ]; then
	src=${!srcvar}
	git -C "$src" rev-parse -q --verify HEAD >/dev/null || die "$srcvar=$src is not a git tree"
	info "using $src (HEAD) as the $what base"
	rm -rf "$tree"
	git clone -q --shared "$src" "$tree"
	git -C "$tree" tag -f gh-base HEAD >/dev/null
else
	repo=$(base_repo)
	rm -rf "$tree"
	git clone -q "$repo" "$tree"
	git -C "$tree" tag -f gh-base "$(git -C "$repo" rev-parse gh-base)" >/dev/null
fi
git -C "$tree" config user.name "Growth Hints Project"
git -C "$tree" config user.email "devel@growth-hints.invalid"
git -C "$tree" checkout -q -B series gh-base

n=0
while read -r p; do
	case "$p" in "" | \#*) continue ;; esac
	[ -f "$top/$what/patches/$p" ] || die "$what/series names $p, which is not in $what/patches/"
	if ! git -C "$tree" am -q --keep-non-patch "$top/$what/patches/$p" >/dev/null 2>"$tree/.git/am.err"; then
		cat "$tree/.git/am.err" >&2
		git -C "$tree" am --abort || true
		die "$what patch $p does not apply to $(git -C "$tree" log -1 --format=%s gh-base); fix it in $tree and re-export"
	fi
	n=$((n + 1))
done < <(cat "$top/$what/series" 2>/dev/null || true)
info "build/$what: base + $n patch(es) on branch 'series'"
