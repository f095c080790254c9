#!/usr/bin/env bash
# A Debian release's xfsprogs and e2fsprogs, run on this machine whatever its own release.
# debian-tools.sh SUITE (bookworm, trixie, ...): prints a directory to put first in PATH, with
# xfs_repair, xfs_db, xfs_io, e2fsck, tune2fs and dumpe2fs (wrappers that start SUITE's program
# with SUITE's dynamic loader and libraries, glibc included) and SUITE's xfs_admin and fsck.xfs
# scripts.  The packages (xfsprogs, e2fsprogs and the libraries they depend on, recursively) are
# downloaded once with the private apt configuration of scripts/lib.sh (the system's is never
# touched) into $GH_CACHE/dl/debian-tools-SUITE and unpacked into $GH_CACHE/debian-tools/SUITE.
# Fails (exit 1) saying what is missing: a package the registry lists but does not serve is
# named with its file name and HTTP status.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

suite=${1:?usage: debian-tools.sh SUITE}
root="$GH_CACHE/debian-tools/$suite"
bin="$root/bin"
cache="$dldir/debian-tools-$suite"
programs=(xfs_repair xfs_db xfs_io e2fsck tune2fs dumpe2fs)
scripts=(xfs_admin fsck.xfs)

mkdir -p "$dldir"
# Suites run side by side (scripts/check.sh): one download and unpacking at a time.
exec 7>"$cache.lock"
flock 7
if [ ! -e "$root/.done" ]; then
	(papt_setup "debian-$suite" "$suite") 2>"$cache.err" ||
		die "the package index of $suite could not be fetched: $(sed 's/^[^:]*: error: //' "$cache.err")"
	# xfsprogs, e2fsprogs and their library dependencies, recursively (lib*, not python3 and
	# the like: only the binaries above are run).
	pkgs=(xfsprogs e2fsprogs) todo=(xfsprogs e2fsprogs)
	while [ ${#todo[@]} -gt 0 ]; do
		mapfile -t todo < <(papt "debian-$suite" apt-cache depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances "${todo[@]}" |
			sed -nE 's/^[[:space:]]*(Pre)?Depends: (lib[a-z0-9.+-]+)$/\2/p' | sort -u |
			grep -vxF -f <(printf '%s\n' "${pkgs[@]}") || true)
		pkgs+=("${todo[@]}")
	done
	rm -rf "$cache"
	mkdir -p "$cache"
	info "downloading ${pkgs[*]} of $suite (once, into $cache)"
	(cd "$cache" && papt "debian-$suite" apt-get -q download "${pkgs[@]}") >"$cache/download.log" 2>&1 ||
		die "the $suite packages could not be downloaded: $(apt_why_not "$cache/download.log")"
	rm -rf "$root"
	mkdir -p "$root"
	for deb in "$cache"/*.deb; do
		dpkg-deb -x "$deb" "$root/sysroot"
	done
	mkdir -p "$bin"
	loader=$(find "$root/sysroot" -name 'ld-linux-x86-64.so.2' -type f -print -quit)
	[ -n "$loader" ] || die "no ld-linux-x86-64.so.2 in $suite's libc6"
	libs=$(find "$root/sysroot" -name '*.so*' -type f -printf '%h\n' | sort -u | paste -sd: -)
	for p in "${programs[@]}"; do
		exe=$(find "$root/sysroot" -path '*sbin/*' -name "$p" -type f -print -quit)
		[ -n "$exe" ] || die "no $p in $suite's xfsprogs or e2fsprogs"
		missing=$("$loader" --library-path "$libs" --list "$exe" | sed -n 's/^[[:space:]]*\([^ ]*\) => not found$/\1/p')
		[ -z "$missing" ] || die "$suite's $p needs $(echo "$missing" | paste -sd' ' -), in no package downloaded"
		printf '#!/bin/sh\nexec %s --library-path %s --argv0 %s %s "$@"\n' "$loader" "$libs" "$p" "$exe" >"$bin/$p"
		chmod +x "$bin/$p"
	done
	for p in "${scripts[@]}"; do
		exe=$(find "$root/sysroot" -path '*sbin/*' -name "$p" -type f -print -quit)
		[ -n "$exe" ] || die "no $p in $suite's xfsprogs"
		ln -sf "$exe" "$bin/$p"
	done
	(cd "$cache" && ls -- *.deb) > "$root/packages"
	: > "$root/.done"
fi
echo "$bin"
