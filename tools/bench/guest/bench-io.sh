#!/bin/sh
# make bench: 4 KiB random-read IOPS on a disk with hints and one without, in the same guest,
# alternating runs.  gh.disks=HINTED,PLAIN  gh.rounds=N  gh.seconds=S
# Prints "# bench-io ROUND DISK IOPS" lines for the host to collect.
# shellcheck source=SCRIPTDIR/../../../selftests/guest/lib/gh.sh
. /lib/gh/gh.sh
hinted=$(gh_disk "$(gh_param disks | cut -d, -f1)") || { t_fail "hinted disk present"; gh_done; exit; }
plain=$(gh_disk "$(gh_param disks | cut -d, -f2)") || { t_fail "plain disk present"; gh_done; exit; }
t_eq "$hinted has hints" "$(gh_hints "$hinted" | cut -d' ' -f2)" "$(gh_param max)"
t_eq "$plain has none" "$(gh_hints "$plain")" "0 0 0"
rounds=$(gh_param rounds 5) seconds=$(gh_param seconds 3)
# data to read: the first 256 MiB of each disk
for d in "$hinted" "$plain"; do dd if=/dev/urandom of="/dev/$d" bs=1M count=256 conv=fsync 2>/dev/null; done
r=1
while [ "$r" -le "$rounds" ]; do
	order="$hinted $plain"
	[ $((r % 2)) = 0 ] && order="$plain $hinted"
	for d in $order; do
		echo "# bench-io $r $([ "$d" = "$hinted" ] && echo hinted || echo plain) $(gh-randread "/dev/$d" "$seconds")"
	done
	r=$((r + 1))
done
gh_done
