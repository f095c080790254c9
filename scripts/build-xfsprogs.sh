#!/usr/bin/env bash
# Build what the project uses of the xfsprogs series: mkfs.xfs, xfs_repair, xfs_db,
# xfs_growfs, xfs_spaceman, xfs_io and the xfs_info and xfs_admin scripts (what fstests
# runs), linked with the libblkid of the util-linux series (make util-linux) so that mkfs.xfs
# sees the growth hints.
# build-xfsprogs.sh [--stock|--system-blkid]
#   (none)          the series (build/xfsprogs) -> build/out/xfsprogs/sbin
#   --stock         the unpatched base (tag gh-base), the same programs -> build/out/xfsprogs-stock/sbin,
#                   the reference of the unhinted-disk comparison, of the demo and of fstests
#   --system-blkid  the series against the system's libblkid, which has no growth getters:
#                   proves the configure check (nothing installed)
# xfsprogs builds in its source directory, so each variant builds in a copy
# (build/xfsprogs-obj, -stock-obj, -sysblkid-obj) that only changed files are copied into.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
case "$mode" in
"" | --stock | --system-blkid) ;;
*) die "unknown argument '$1' (usage: build-xfsprogs.sh [--stock|--system-blkid])" ;;
esac
src="$top/build/xfsprogs"
ul="$out/util-linux"
[ -f "$src/configure.ac" ] || die "no xfsprogs tree at $src: run 'make xfsprogs-tree' first"
for p in autoconf libtoolize aclocal rsync; do
	command -v "$p" >/dev/null || die "$p is missing: run 'make deps'"
done
case "$mode" in
"") obj="$top/build/xfsprogs-obj" dest="$out/xfsprogs" ;;
--stock) obj="$top/build/xfsprogs-stock-obj" dest="$out/xfsprogs-stock" ;;
--system-blkid) obj="$top/build/xfsprogs-sysblkid-obj" dest="" ;;
esac
if [ "$mode" != --system-blkid ]; then
	[ -f "$ul/lib/libblkid.a" ] || die "no libblkid of the util-linux series in $ul: run 'make util-linux'"
fi
mkdir -p "$out" "$CCACHE_DIR" "$obj"
build_lock
log="$obj.log"
: > "$log"

# Written by libtoolize, aclocal and autoconf (upstream's git has none of them).
generated=(configure aclocal.m4 ltmain.sh config.guess config.sub install-sh m4/libtool.m4
	m4/ltoptions.m4 m4/ltsugar.m4 m4/ltversion.m4 m4/lt~obsolete.m4)

# The sources: the series' working tree, or the base as it was tagged.
if [ "$mode" = --stock ]; then
	base=$(git -C "$src" rev-parse gh-base)
	if [ "$(cat "$obj/.gh-base" 2>/dev/null)" != "$base" ]; then
		rm -rf "$obj"
		mkdir -p "$obj"
		git -C "$src" archive gh-base | tar -x -C "$obj"
		echo "$base" > "$obj/.gh-base"
	fi
else
	# Content that changed only: an unchanged file keeps its time, so make rebuilds what changed.
	# Not what configure's regeneration below writes (the tarball's copies would replace it).
	rsync -rl --checksum --exclude=/.git "${generated[@]/#/--exclude=/}" "$src/" "$obj/"
fi

# configure: the tarball's for the base; for the series regenerated when configure.ac or
# m4/ changed (upstream's git has no configure; the configure checks are in m4/).
cfg=(--enable-shared=no --disable-gettext --disable-scrub --disable-libicu --disable-editline)
cflags="-g -O2 -std=gnu11"
ldflags=""
if [ "$mode" != --system-blkid ]; then
	cflags="$cflags -I$ul/include"
	ldflags="-L$ul/lib"
fi
if [ "$mode" != --stock ]; then
	inputs=$(cd "$src" && git ls-files -z configure.ac include/builddefs.in 'm4/*.m4' |
		xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$obj/.configure-inputs" 2>/dev/null)" != "$inputs" ]; then
		info "regenerating configure in $obj"
		(cd "$obj" && libtoolize -c -i -f && cp include/install-sh . && aclocal -I m4 && autoconf) >>"$log" 2>&1 ||
			{ tail -n 20 "$log" >&2; die "regenerating xfsprogs' configure failed; see $log"; }
		rm -f "$obj/include/builddefs"
		echo "$inputs" > "$obj/.configure-inputs"
	fi
fi
want="${cfg[*]} CFLAGS=$cflags LDFLAGS=$ldflags"
# configure's answers depend on the libblkid it finds: a new one (its header) configures again.
if [ "$mode" != --system-blkid ] && [ -f "$ul/include/blkid/blkid.h" ]; then
	want="$want blkid.h=$(sha256sum < "$ul/include/blkid/blkid.h" | cut -d' ' -f1)"
fi
if [ ! -f "$obj/include/builddefs" ] || [ "$(cat "$obj/.configure-opts" 2>/dev/null)" != "$want" ]; then
	info "configuring xfsprogs in $obj"
	# The makefiles do not track flags: a new configuration rebuilds everything (ccache).
	if [ -f "$obj/include/builddefs" ]; then
		make -C "$obj" Q=@ clean >>"$log" 2>&1 || true
	fi
	(cd "$obj" && CC="ccache gcc" CFLAGS="$cflags" LDFLAGS="$ldflags" ./configure "${cfg[@]}") >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "configure of xfsprogs failed; see $log"; }
	echo "$want" > "$obj/.configure-opts"
fi

dirs=(libfrog libxfs libxlog libxcmd libhandle mkfs repair db growfs spaceman io)
progs=(mkfs/mkfs.xfs repair/xfs_repair db/xfs_db growfs/xfs_growfs spaceman/xfs_spaceman io/xfs_io)
info "building ${progs[*]##*/} in $obj"
# The top-level Makefile orders the directories (include first); only these are built.
if ! { make -C "$obj" -j2 Q=@ headers && make -C "$obj" -j2 Q=@ "${dirs[@]}"; } >>"$log" 2>&1; then
	{ grep -E 'error|Error' "$log" || tail -n 10 "$log"; } | first_lines 30 >&2
	die "xfsprogs build failed; see $log"
fi
# Once the series has the configure check, it must find the getters in the series' libblkid
# and must not find them in the system's.
if matches -F AC_HAVE_BLKID_TOPO_GROWTH "$obj/configure.ac"; then
	found=no
	if matches '^HAVE_BLKID_TOPO_GROWTH = yes' "$obj/include/builddefs"; then found=yes; fi
	if [ "$mode" = --system-blkid ] && [ $found = yes ]; then
		die "configure found the growth getters in the system's libblkid; this build proves nothing"
	elif [ "$mode" = "" ] && [ $found = no ]; then
		die "configure did not find blkid_topology_get_growth_max_bytes in $ul; see $obj/config.log"
	fi
fi
if [ "$mode" = --system-blkid ]; then
	info "xfsprogs builds without the libblkid growth getters ($obj)"
	exit 0
fi

rm -rf "$dest.new"
mkdir -p "$dest.new/sbin"
for p in "${progs[@]}"; do
	cp "$obj/$p" "$dest.new/sbin/"
done
install -m 0755 "$obj/spaceman/xfs_info.sh" "$dest.new/sbin/xfs_info"
install -m 0755 "$obj/db/xfs_admin.sh" "$dest.new/sbin/xfs_admin"
rm -rf "$dest"
mv "$dest.new" "$dest"
info "xfsprogs ready: $dest"
