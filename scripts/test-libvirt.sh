#!/usr/bin/env bash
# The libvirt tree's own tests that cover the libvirt series, as KTAP (the "libvirt" suite):
#   genericxml2xmltest    a driver that does not support <growth_hints> refuses them
#   qemuxmlconftest       the -device properties; the rules, buses and QEMU refused at define
#   qemumonitorjsontest   block-set-growth-hints and query-growth-hints on the test monitor
#   qemuhotplugtest       update-device on a running disk: change, withdraw, refused by QEMU
#                         (the definition keeps the old values), refused by libvirt
#   qemugrowthhintstest   virDomainSetBlockGrowthHints: partial updates, live and config,
#                         refusals that change neither, the tunable event, vhost-user disks
#   qemucapabilitiestest  the capability dumps are unchanged by the new flags
#   domaincapstest        the domain capabilities (<growthHints>) of each dump
#   virschematest         every new XML file against the schema
# Uses what scripts/build-libvirt.sh built in build/libvirt-obj; builds nothing.  The
# end-to-end check with a daemon and a guest is the scenario selftests/scenarios/libvirt.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="${GH_LIBVIRT_OBJ:-$top/build/libvirt-obj}"
read -r -a tests <<< "$(libvirt_tests)"
echo "KTAP version 1"
echo "1..${#tests[@]}"
src="${GH_LIBVIRT_SRC:-$top/build/libvirt}"
# A test the tree does not have yet (an earlier patch of the series) is skipped.
missing=""
for t in "${tests[@]}"; do
	[ ! -f "$src/tests/$t.c" ] || [ -x "$obj/tests/$t" ] || missing="$missing $t"
done
if [ -n "$missing" ]; then
	all_not_ok "no libvirt build in $obj (missing:$missing): run 'make libvirt'" "${tests[@]}"
	exit 1
fi
n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	if [ ! -f "$src/tests/$t.c" ]; then
		echo "ok $n $t # SKIP not in this tree"
		continue
	fi
	if meson test -C "$obj" --no-rebuild --print-errorlogs "$t" >"$obj/test-$t.log" 2>&1; then
		echo "ok $n $t"
	else
		# the test's own lines name the failed cases
		grep -E '^ *[0-9]+\) .*(FAILED|\.\.\. $)|expected|unexpected|error' "$obj/test-$t.log" |
			first_lines 15 | diag
		echo "not ok $n $t"
		failed=1
	fi
done
exit $failed
