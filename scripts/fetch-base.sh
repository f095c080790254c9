#!/usr/bin/env bash
# Download and verify the pinned base of one series:
# fetch-base.sh kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt.
# Prints the downloaded file(s), one per line.  The pinned version comes first; if the
# registry no longer serves it, the newest of the same series, then the newest later
# release, is taken with a warning.  The kernel base is a binary package holding the
# source tarball; every other base is a Debian source package (orig and debian tarballs).
# Every file the registry lists but does not serve is named with its HTTP status; a source
# package whose tarballs arrived is used even if a file beside them (a signature) did not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:?usage: fetch-base.sh kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt}
base="$top/$what/BASE"
if [ "$what" = kernel ]; then kind=deb; else kind=source; fi
[ -r "$base" ] || die "no $base"
pkg=$(base_get "$base" package)
ver=$(base_get "$base" version)
suite=$(base_get "$base" suite)
series=$(base_get "$base" series)
mkdir -p "$dldir"
cd "$dldir"

papt_setup "$what" "$suite"

# Every version the index lists, newest first, as "package version".
candidates() {
	local p
	if [ "$kind" = deb ]; then
		for p in $(papt "$what" apt-cache pkgnames linux-source- | grep -E '^linux-source-[0-9]+\.[0-9]+$'); do
			papt "$what" apt-cache madison "$p" | awk -v p="$p" '{ print p, $3 }'
		done
	else
		papt "$what" apt-cache showsrc "$pkg" | sed -n "s/^Version: /$pkg /p"
	fi | sort -u | sort -k2,2 -r -V
}

# upstream series of a version: 7.3 of 7.3.4-1, 10.0 of 1:10.0.13+ds-0
series_of() { echo "$1" | sed -E 's/^[0-9]+://; s/^([0-9]+\.[0-9]+).*/\1/'; }

order() {
	local all p v
	all=$(candidates)
	echo "$pkg $ver"
	echo "$all" | while read -r p v; do
		[ -n "$v" ] && [ "$v" != "$ver" ] && [ "$(series_of "$v")" = "$series" ] && echo "$p $v"
	done
	echo "$all" | while read -r p v; do
		[ -n "$v" ] || continue
		s=$(series_of "$v")
		[ "$s" != "$series" ] && [ "$(printf '%s\n%s\n' "$series" "$s" | sort -V | tail -n 1)" = "$s" ] && echo "$p $v"
	done
	return 0
}

# The files one candidate consists of (after download); nothing unless all are there (a
# source package whose debian tarball is missing is not a base).
files_of() {
	local p=$1 v=$2 uv
	if [ "$kind" = deb ]; then
		find . -maxdepth 1 -name "${p}_${v#*:}_*.deb" -printf '%f\n' | sort | first_line
	else
		uv=${v#*:}
		# The tarballs, not their signatures (.asc)
		[ -n "$(find . -maxdepth 1 -name "${p}_${uv%-*}.orig.tar.*" ! -name '*.asc' -printf x)" ] &&
			[ -n "$(find . -maxdepth 1 -name "${p}_${uv}.debian.tar.*" ! -name '*.asc' -printf x)" ] || return 0
		find . -maxdepth 1 \( -name "${p}_${uv%-*}.orig.tar.*" -o -name "${p}_${uv}.debian.tar.*" \) \
			! -name '*.asc' -printf '%f\n' | sort
	fi
}

verify_pinned() {
	if [ "$kind" = deb ]; then
		sha256_ok "$1" "$(base_get "$base" sha256)"
	else
		local f ok=0
		for f in $1; do
			case "$f" in
			*.orig.*) sha256_ok "$f" "$(base_get "$base" orig_sha256)" || ok=1 ;;
			*.debian.*) sha256_ok "$f" "$(base_get "$base" debian_sha256)" || ok=1 ;;
			esac
		done
		return $ok
	fi
}

download() {
	local p=$1 v=$2 log="$dldir/download-$what.log"
	# The trees are prepared side by side (scripts/check.sh): one apt at a time.
	(
		flock 6
		if [ "$kind" = deb ]; then
			papt "$what" apt-get -q download "$p=$v" >"$log" 2>&1
		else
			papt "$what" apt-get -q source --download-only "$p=$v" >"$log" 2>&1
		fi
	) 6>"$aptdir/apt.lock"
}

tried=""
while read -r p v; do
	[ -n "$p" ] || continue
	files=$(files_of "$p" "$v")
	if [ "$p $v" = "$pkg $ver" ] && [ -n "$files" ] && verify_pinned "$files"; then
		echo "$files"
		exit 0
	fi
	if [ "$p $v" = "$pkg $ver" ] || [ -z "$files" ]; then
		info "downloading $p $v"
		if ! download "$p" "$v"; then
			files=$(files_of "$p" "$v")
			if [ -z "$files" ]; then
				warn "$p $v could not be downloaded: $(apt_why_not "$dldir/download-$what.log")"
				tried="$tried $p=$v"
				continue
			fi
			# The tarballs are here (and checked below); only a file beside them is not.
			warn "$p $v: $(apt_why_not "$dldir/download-$what.log"); its tarballs arrived, so it is used"
		fi
		files=$(files_of "$p" "$v")
	fi
	[ -n "$files" ] || die "apt reported success for $p $v but no file is in $dldir"
	if [ "$p $v" = "$pkg $ver" ]; then
		verify_pinned "$files" || die "$p $v does not match the sha256 in $base; remove $dldir/$files and retry"
	else
		warn "pinned $pkg $ver is not available; using $p $v instead (update $what/BASE if it works):"
		# shellcheck disable=SC2086 # one file name per word
		sha256sum $files >&2
	fi
	echo "$files"
	exit 0
done < <(order)

die "nothing to download for the $what base: tried${tried:- nothing}. The registry configured in apt ($(apt_mirror)) must serve $pkg (suite $suite); check 'apt-get update' and network access, or set $(srcvar_of "$what") to an existing git tree"
