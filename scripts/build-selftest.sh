#!/usr/bin/env bash
# Build the series' kselftest (tools/testing/selftests/block) as a static binary for
# the guest: build/out/growth_hints_test.  The series is the only copy of its source.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src="$top/build/kernel/tools/testing/selftests/block"
obj="$top/build/selftest-obj"
[ -f "$src/growth_hints.c" ] || die "no $src/growth_hints.c: run 'make kernel-tree' (the kselftest comes with the kernel series)"
mkdir -p "$obj" "$out"
make -s -C "$src" OUTPUT="$obj" CC="ccache gcc" LDFLAGS=-static >"$obj/build.log" 2>&1 ||
	{ cat "$obj/build.log" >&2; die "building the kselftest failed"; }
cp "$obj/growth_hints" "$out/growth_hints_test"
info "kselftest ready: $out/growth_hints_test"
