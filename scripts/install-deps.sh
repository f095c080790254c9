#!/usr/bin/env bash
# Install the Debian packages the project needs (make deps).  A fast no-op when everything
# is there.  meson >= 1.5 and python3-pycotap come from bookworm-backports through the
# private apt config in lib.sh; the system's apt configuration is never modified.
# The last two lines of pkgs but one are what the fstests suites need to build and run fstests
# (its README's Debian list, less what only other filesystems' or optional tests use); the
# last one what blktests runs beyond those (in its guest, whose root is the host's) and lvm2,
# which dm/005 and the lvm scenario (in the test guest's initramfs) use, and stress-ng, which
# scripts/stress-suites.sh loads the machine with, bmap-tools and cloud-guest-utils (growpart),
# two of the deployment paths tools/bench/bench-inflate.sh compares growth-inflate with, and
# libfdisk-dev and dosfstools, which growth-inflate (its partition tables) and its tests (the
# images' EFI system partitions) need.
# The line that starts with libxml2-dev is what libvirt (libvirt/BASE) needs for a build of
# its QEMU driver, daemon and virsh, beyond glib, meson, ninja, perl and python3 above:
# libxml2 with xmllint, xsltproc, gnutls, json-c (the QEMU driver), libtirpc (XDR for
# the remote driver and the daemon) and libnl (11.3.0's src/util/virnetdevbridge.c does not
# build without it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential flex bison bc libelf-dev libssl-dev cpio ccache libglib2.0-dev libfdt-dev
	libpixman-1-dev ninja-build busybox-static seabios qemu-system-data xfsprogs e2fsprogs
	sg3-utils pkg-config xz-utils dpkg-dev socat jq shellcheck python3 kmod
	qemu-system-x86 ipxe-qemu fdisk libncurses-dev libblkid-dev python3-matplotlib udev
	uuid-dev liburcu-dev libinih-dev autoconf automake libtool rsync nvme-cli
	libxml2-dev libxml2-utils xsltproc libgnutls28-dev libjson-c-dev libtirpc-dev libnl-3-dev libnl-route-3-dev
	xfslibs-dev libattr1-dev libacl1-dev libaio-dev libcap-dev liburing-dev libgdbm-dev
	libgdbm-compat-dev libtool-bin acl attr gawk fio psmisc dmsetup xfsdump
	mdadm parted lvm2 stress-ng bmap-tools cloud-guest-utils libfdisk-dev dosfstools)
backports=(meson python3-pycotap)
# install-deps.sh --demo (make demo): all but what only libvirt, the peer suites, the stress
# runs and the benchmarks' other tools need.
if [ "${1:-}" = --demo ]; then
	not_demo=(libxml2-dev libxml2-utils xsltproc libgnutls28-dev libjson-c-dev libtirpc-dev
		libnl-3-dev libnl-route-3-dev xfslibs-dev libaio-dev liburing-dev libgdbm-dev
		libgdbm-compat-dev fio psmisc xfsdump mdadm parted stress-ng bmap-tools
		cloud-guest-utils dosfstools)
	demo_pkgs=()
	for p in "${pkgs[@]}"; do
		[[ " ${not_demo[*]} " == *" $p "* ]] || demo_pkgs+=("$p")
	done
	pkgs=("${demo_pkgs[@]}")
elif [ $# -gt 0 ]; then
	die "usage: install-deps.sh [--demo]"
fi

installed() { [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]; }

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
meson_ok() {
	local v
	v=$(meson --version 2>/dev/null) || return 1
	[ "$(printf '%s\n1.5\n' "$v" | sort -V | first_line)" = 1.5 ] && installed python3-pycotap
}
need_bpo=0
meson_ok || need_bpo=1

[ ${#missing[@]} -eq 0 ] && [ $need_bpo = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	[ ${#missing[@]} -eq 0 ] || warn "missing Debian packages: ${missing[*]}"
	[ $need_bpo = 0 ] || warn "meson >= 1.5 and python3-pycotap (bookworm-backports) are missing"
	die "run 'make deps' as root (or: sudo apt-get install ${missing[*]:-} and meson >= 1.5 from bookworm-backports)"
fi

export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	info "installing: ${missing[*]}"
	apt-get -q update >/dev/null || die "apt-get update failed; check the machine's apt sources and network"
	apt-get -q install -y --no-install-recommends "${missing[@]}" ||
		die "apt-get install ${missing[*]} failed; see the apt output above"
fi
if [ $need_bpo = 1 ]; then
	info "installing meson and python3-pycotap from bookworm-backports (private apt config)"
	papt_setup bpo bookworm-backports
	cache="$dldir/bpo"
	mkdir -p "$cache"
	rm -f "$cache"/*.deb
	(cd "$cache" && papt bpo apt-get -q download "${backports[@]}") >/dev/null ||
		die "downloading ${backports[*]} from bookworm-backports failed; see $aptdir/update-bpo.log"
	(cd "$cache" && apt-get -q install -y --no-install-recommends ./meson_*.deb ./python3-pycotap_*.deb) ||
		die "installing the backported meson/python3-pycotap failed; see the apt output above"
	meson_ok || die "meson is still older than 1.5 after installing from bookworm-backports"
fi
info "all build dependencies are installed"
