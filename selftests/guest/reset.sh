#!/bin/sh
# Function-level resets of a virtio-blk disk (the driver's reset_prepare/reset_done, which
# quiesce the queue and flush the config work) while the host changes its hints and grows it
# in a loop and the guest does I/O: no hang, then the host's final values, data intact.
# gh.disks=SERIAL  gh.resets=N
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
serial=$(gh_param disks)
if ! d=$(gh_disk "$serial"); then
	t_fail "$serial present"
	gh_done
	exit
fi
pci=$(readlink -f "/sys/block/$d/device")
pci=${pci%/*}
if [ ! -w "$pci/reset" ]; then
	t_fail "$d has a PCI reset ($pci/reset)"
	gh_done
	exit
fi
diag "$d is $pci, reset methods: $(cat "$pci/reset_method" 2>/dev/null)"
gh_io_start "$d"
gh_wait storm-start || t_fail "storm started: $GH_REPLY"
n=$(gh_param resets 10) ok=0
i=0
while [ "$i" -lt "$n" ]; do
	echo 1 > "$pci/reset" && ok=$((ok + 1))
	sleep 0.3
	i=$((i + 1))
done
t_eq "$d resets" "$ok" "$n"
if ! gh_storm_settle "$d"; then
	gh_done
	exit
fi
want=$GH_WANT size=$GH_SIZE
t_eq "no mismatch under resets" "$(wc -l 2>/dev/null < /tmp/io.bad || echo 0)" 0
t_eq "$d final hints" "$(gh_hints "$d")" "$want"
t_eq "$d final size" "$(gh_size_bytes "$d")" "$size"
t_eq "$d log lines" "$(gh_log_lines "$d")" 0
gh_io_check reset "$d"
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
