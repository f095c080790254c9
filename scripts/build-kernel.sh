#!/usr/bin/env bash
# Build the guest kernel from build/kernel: build-kernel.sh [--base] [VARIANT]
# VARIANT: guest (the default), or kernel/config/VARIANT.config on top of guest.config
# (sanitize, latency, fstests; modules: for check-series.sh).
# Output: build/out/bzImage (guest) or build/out/bzImage-VARIANT, and its modules and
# configuration as a root tree, build/out/modules[-VARIANT]/lib/modules/<release> and
# .../boot/config-<release> (the suites in the host-root guest load the modules; nothing
# else does).
#   --base  the unpatched base instead (build/kernel at gh-base, checked out in
#           build/base/kernel), the same configuration as far as the base knows its options,
#           into build/base/out: what a failure on the series' kernel is compared with
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base=0
if [ "${1:-}" = --base ]; then
	base=1
	shift
fi
variant=${1:-guest}
# GH_KERNEL_SRC, GH_KERNEL_OBJ and GH_KERNEL_OUT build another tree into another output
# directory.
if [ $base = 1 ]; then
	[ -d "$top/build/kernel/.git" ] || die "no kernel tree at $top/build/kernel: run 'make kernel-tree' first"
	base_checkout "$top/build/kernel" "$top/build/base/kernel"
	export GH_KCONFIG_PARTIAL=1
	GH_KERNEL_SRC="$top/build/base/kernel" GH_KERNEL_OBJ="$top/build/base/kernel-obj-$variant"
	GH_KERNEL_OUT="$top/build/base/out"
fi
src="${GH_KERNEL_SRC:-$top/build/kernel}"
obj="${GH_KERNEL_OBJ:-$top/build/kernel-obj-$variant}"
out="${GH_KERNEL_OUT:-$out}"
[ -f "$src/Makefile" ] || die "no kernel tree at $src: run 'make kernel-tree' first"
frags=("$top/kernel/config/guest.config")
[ "$variant" = guest ] || frags+=("$top/kernel/config/$variant.config")
mkdir -p "$obj" "$out" "$CCACHE_DIR"
build_lock
kmake() { make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

# Options of the fragments that the current .config lacks (e.g. after building an
# older commit of the series, whose Kconfig did not know them yet); a later fragment's
# value of an option replaces an earlier one's.
missing_opts() {
	cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' |
		awk -F= '!($1 in v) { order[n++] = $1 } { v[$1] = $0 }
			END { for (i = 0; i < n; i++) print v[order[i]] }' |
		while read -r line; do
			grep -qxF "$line" "$obj/.config" || echo "$line"
		done
}

# Reconfigure when a fragment changed or lost an option; else keep the build incremental.
sum=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)
[ -f "$obj/.config" ] && kmake olddefconfig >/dev/null
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragsum" 2>/dev/null)" != "$sum" ] ||
	[ -n "$(missing_opts)" ]; then
	kmake tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frags[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	missing=$(missing_opts)
	if [ -n "$missing" ] && [ "${GH_KCONFIG_PARTIAL:-0}" = 1 ]; then
		# check-series builds commits that predate some options.
		warn "this tree does not know these fragment options: $missing"
	elif [ -n "$missing" ]; then
		die "kernel config lost these fragment options (dependencies missing?): $missing"
	fi
	echo "$sum" > "$obj/.fragsum"
fi
info "building kernel ($variant) in $obj"
kmake -j"$(nproc)" KBUILD_BUILD_TIMESTAMP="2000-01-01" KBUILD_BUILD_USER=gh KBUILD_BUILD_HOST=gh bzImage
suffix=""
[ "$variant" = guest ] || suffix="-$variant"
kmake -j"$(nproc)" KBUILD_BUILD_TIMESTAMP="2000-01-01" modules
rel=$(kmake -s kernelrelease)
rm -rf "$out/modules$suffix.new"
kmake INSTALL_MOD_PATH="$out/modules$suffix.new" modules_install >/dev/null
mkdir -p "$out/modules$suffix.new/boot"
cp "$obj/.config" "$out/modules$suffix.new/boot/config-$rel"
rm -rf "$out/modules$suffix"
mv "$out/modules$suffix.new" "$out/modules$suffix"
cp "$obj/arch/x86/boot/bzImage" "$out/bzImage$suffix"
info "kernel ready: $(ls "$out"/bzImage*)"
