#!/usr/bin/env bash
# Build what the project uses of the e2fsprogs series: mke2fs, e2fsck, resize2fs, dumpe2fs
# (and tune2fs, debugfs and the tests' helpers, which the tree's own tests run), linked with
# the libblkid of the util-linux series (make util-linux) so that mke2fs sees the growth hints.
# build-e2fsprogs.sh [--stock|--system-blkid]
#   (none)          the series (build/e2fsprogs) -> build/out/e2fsprogs/sbin
#   --stock         the unpatched base (tag gh-base), the same programs -> build/out/e2fsprogs-stock/sbin,
#                   the reference of the unhinted-disk comparison and of the demo
#   --system-blkid  the series against the system's libblkid, which has no growth getters:
#                   proves the configure check (nothing installed)
# Out of tree, in build/e2fsprogs-obj (-stock-obj, -sysblkid-obj).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
case "$mode" in
"" | --stock | --system-blkid) ;;
*) die "unknown argument '$1' (usage: build-e2fsprogs.sh [--stock|--system-blkid])" ;;
esac
tree="$top/build/e2fsprogs"
ul="$out/util-linux"
[ -f "$tree/configure.ac" ] || die "no e2fsprogs tree at $tree: run 'make e2fsprogs-tree' first"
case "$mode" in
"") obj="$top/build/e2fsprogs-obj" dest="$out/e2fsprogs" src=$tree ;;
--stock) obj="$top/build/e2fsprogs-stock-obj" dest="$out/e2fsprogs-stock" src="$top/build/e2fsprogs-stock-src" ;;
--system-blkid) obj="$top/build/e2fsprogs-sysblkid-obj" dest="" src=$tree ;;
esac
if [ "$mode" != --system-blkid ]; then
	[ -f "$ul/lib/libblkid.a" ] || die "no libblkid of the util-linux series in $ul: run 'make util-linux'"
fi
mkdir -p "$out" "$CCACHE_DIR" "$obj"
build_lock
log="$obj.log"
: > "$log"

if [ "$mode" = --stock ]; then
	base=$(git -C "$tree" rev-parse gh-base)
	if [ "$(cat "$src/.gh-base" 2>/dev/null)" != "$base" ]; then
		rm -rf "$src" "$obj"
		mkdir -p "$src" "$obj"
		git -C "$tree" archive gh-base | tar -x -C "$src"
		echo "$base" > "$src/.gh-base"
	fi
fi

cfg=(--disable-nls --disable-fuse2fs --disable-defrag --disable-uuidd --without-libarchive
	--disable-e2initrd-helper --disable-fsck)
cflags="-g -O2"
ldflags=""
if [ "$mode" != --system-blkid ]; then
	cflags="$cflags -I$ul/include"
	ldflags="-L$ul/lib"
fi
# configure again when its options or the tree's configure changed.
want="${cfg[*]} CFLAGS=$cflags LDFLAGS=$ldflags $(sha256sum < "$src/configure" | cut -d' ' -f1)"
if [ ! -f "$obj/MCONFIG" ] || [ "$(cat "$obj/.configure-opts" 2>/dev/null)" != "$want" ]; then
	info "configuring e2fsprogs in $obj"
	(cd "$obj" && CC="ccache gcc" CFLAGS="$cflags" LDFLAGS="$ldflags" "$src/configure" "${cfg[@]}") >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "configure of e2fsprogs failed; see $log"; }
	echo "$want" > "$obj/.configure-opts"
fi

progs=(misc/mke2fs misc/dumpe2fs misc/tune2fs e2fsck/e2fsck resize/resize2fs debugfs/debugfs)
info "building ${progs[*]##*/} in $obj"
mk() { make -C "$obj/$1" -j2 V=0 "${@:2}" >>"$log" 2>&1; }
{
	make -C "$obj" -j2 V=0 top-deps >>"$log" 2>&1 &&
		make -C "$obj" -j2 V=0 libs >>"$log" 2>&1 &&
		for p in "${progs[@]}"; do mk "${p%/*}" "${p##*/}" || exit 1; done &&
		if [ "$mode" = "" ]; then
			# What the tree's tests run besides the programs (tests/test_config).
			mk tests/progs test_icount crcsum && mk misc e2image && mk tests test_one test_script
		fi
} || { grep -E 'error|Error' "$log" | first_lines 30 >&2; die "e2fsprogs build failed; see $log"; }
if [ "$mode" = --system-blkid ]; then
	if matches '^#define HAVE_BLKID_TOPOLOGY_GET_GROWTH 1' "$obj/lib/config.h"; then
		die "configure found the growth getters in the system's libblkid; this build proves nothing"
	fi
	info "e2fsprogs builds without the libblkid growth getters ($obj)"
	exit 0
fi

rm -rf "$dest.new"
mkdir -p "$dest.new/sbin"
for p in "${progs[@]}"; do
	cp "$obj/$p" "$dest.new/sbin/"
done
if [ "$mode" = "" ]; then
	ln -s mke2fs "$dest.new/sbin/mkfs.ext4"
	# Without a configuration file mke2fs uses built-in defaults that are not Debian's:
	# the guest gets the tree's own mke2fs.conf (misc/mke2fs.conf.in), as a package installs it.
	mkdir -p "$dest.new/etc"
	cp "$obj/misc/mke2fs.conf" "$dest.new/etc/mke2fs.conf"
fi
rm -rf "$dest"
mv "$dest.new" "$dest"
info "e2fsprogs ready: $dest"
