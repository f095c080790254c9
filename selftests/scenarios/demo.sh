#!/usr/bin/env bash
# shellcheck disable=SC2317 # scenario is called through h_main
# Scenario: make demo as a newcomer sees it (scripts/demo.sh on what the check built), its tables checked
# The demo prints the hints the guest sees before and after a live grow, plain mkfs of both
# tool sets on the hinted disk, and XFS of each grown live to 2100 GiB, then says in words what
# the tables show.  Checked here: the hints and the grow; the XFS layouts against what the
# unpatched mkfs.xfs makes for a file of the disk's size and what the policy plans for the disk's
# size and maximum (tools/growth-mkfs); every row of the
# growth table against ceil(size / AG size); and the closing words against the table.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

G=$((1 << 30))
# stock_plan SIZE_BYTES: "AGS AGSIZE_MIB" of the unpatched mkfs.xfs -N on a sparse file
stock_plan() {
	local img="$GH_WORK/plan.img" o
	rm -f "$img"
	truncate -s "$1" "$img"
	o=$("$out/xfsprogs-stock/sbin/mkfs.xfs" -N -f "$img" 2>&1) || { echo "? ?"; return; }
	rm -f "$img"
	awk '/^meta-data=/ { for (i = 1; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "agcount") c = kv[2]; if (kv[1] == "agsize") a = kv[2] } }
		/^data / { for (i = 1; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "bsize") b = kv[2] } }
		END { gsub(/,/, "", c); gsub(/,/, "", a); print c, int(a * b / 1048576) }' <<< "$o"
}
# policy_plan SIZE_BYTES MAX: "AGS AGSIZE_MIB" of the growth policy (tools/growth-mkfs, the
# project's implementation of tools/POLICY.md) for a loop device of that size
policy_plan() {
	local img="$GH_WORK/policy.img" dev j
	rm -f "$img"
	truncate -s "$1" "$img"
	dev=$(losetup -f --show "$img" 2>/dev/null) || { echo "? ?"; return; }
	j=$("$top/tools/growth-mkfs" --json --max "$2" mkfs-args -t xfs "$dev" 2>/dev/null)
	losetup -d "$dev"
	rm -f "$img"
	python3 -c 'import json, sys; x = json.load(sys.stdin)["xfs"]; print(x["agcount"], x["agsize"] >> 20)' <<< "$j" 2>/dev/null ||
		echo "? ?"
}

scenario() {
	local log="$GH_WORK/demo.txt"
	if ! qemu_has_hints; then
		h_skip "demo" "$GH_QEMU has no growth hint properties"
		return
	fi
	if [ ! -x "$out/xfsprogs-stock/sbin/mkfs.xfs" ] || [ ! -x "$top/tools/growth-mkfs" ]; then
		h_skip "demo" "no unpatched mkfs.xfs in $out or no tools/growth-mkfs (make mkfs-stock tools)"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		h_skip "demo" "the policy's plan needs a loop device (root)"
		return
	fi
	GH_DEMO_NO_BUILD=1 bash "$top/scripts/demo.sh" > "$log" 2> "$GH_WORK/demo.err" || true
	h_diag "the demo's output: $log"

	# 1. the hints before and after the live grow
	h_eq "hints of vda before the grow" "$(awk '$1 == "vda" && $2 ~ /^[0-9]+$/ { print $2, $3, $4, $5; exit }' "$log")" \
		"$((10 * G)) $G $((16 << 40)) $G"
	h_eq "vda after the grow" "$(awk '$1 == "vda" && $2 ~ /^[0-9]+$/ && ++n == 2 { print $2, $3, $4, $5 }' "$log")" \
		"$((12 * G)) $G $((16 << 40)) $G"
	if grep -q '^ACTION=change DEVNAME=vda RESIZE=1' "$log"; then
		h_ok "RESIZE uevent of vda"
	else
		h_fail "RESIZE uevent of vda"
	fi

	# 2. plain mkfs.xfs on the 12 GiB disk with a 16 TiB maximum: the unpatched tool's own
	# layout, and the policy's for the series
	local got_old got_new
	got_old=$(awk '$1 == "unpatched" && $2 == "6.13" { print $3, $4; exit }' "$log")
	got_new=$(awk '$1 == "with" && $3 == "series" && !done { print $4, $5; done = 1 }' "$log")
	h_eq "unpatched mkfs.xfs layout" "$got_old" "$(stock_plan $((12 * G)))"
	h_eq "the series' mkfs.xfs layout: the policy's" "$got_new" "$(policy_plan $((12 * G)) 16T)"

	# 3. the growth table: each row is ceil(size / AG size) for both
	local rows=0 bad=0 size a b new_ag old_ag
	new_ag=${got_new#* } old_ag=${got_old#* }
	while read -r size a b; do
		rows=$((rows + 1))
		if [ "$a" != $(((size * 1024 + new_ag - 1) / new_ag)) ] ||
			[ "$b" != $(((size * 1024 + old_ag - 1) / old_ag)) ]; then
			h_diag "row $size GiB: $a and $b AGs, want $(((size * 1024 + new_ag - 1) / new_ag)) and $(((size * 1024 + old_ag - 1) / old_ag))"
			bad=$((bad + 1))
		fi
	done < <(sed -n '/^  *size GiB/,/^The series/p' "$log" | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }')
	h_eq "growth table rows" "$rows" 5
	h_eq "growth table rows that follow the AG sizes" "$bad" 0

	# 4. the closing words say what the table shows
	local words
	words=$(sed -n 's/^The series. XFS started with \([0-9]*\) AGs of \([0-9]*\) MiB.*/\1 \2/p' "$log")
	h_eq "closing words: the series' start" "$words" "$got_new"
	words=$(sed -n 's/^started with \([0-9]*\) AGs of \([0-9]*\) MiB.*/\1 \2/p' "$log")
	h_eq "closing words: the unpatched start" "$words" "$got_old"
}

h_main "$@"
