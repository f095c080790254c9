#!/bin/sh
# Hot-unplug of a virtio-blk disk while the host changes its hints and size in a loop and the
# guest does I/O on it: the disk goes away cleanly, the other disk ends with the host's final
# values and its data intact, and the kernel log is clean.
# gh.disks=KEEP,UNPLUG (serials)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
keep_serial=$(gh_param disks | cut -d, -f1)
gone_serial=$(gh_param disks | cut -d, -f2)
if ! keep=$(gh_disk "$keep_serial") || ! gone=$(gh_disk "$gone_serial"); then
	t_fail "$keep_serial and $gone_serial present"
	gh_done
	exit
fi
gh_io_start "$keep" "$gone"
gh_wait storm-start || t_fail "storm started: $GH_REPLY"
sleep 1
if gh_wait unplug "$gone_serial"; then
	absent() { [ ! -e "/sys/block/$gone" ]; }
	if gh_poll 300 absent; then t_ok "$gone removed"; else t_fail "$gone removed"; fi
else
	t_fail "unplug requested: $GH_REPLY"
fi
sleep 1
if ! gh_storm_settle "$keep"; then
	gh_done
	exit
fi
want=$GH_WANT size=$GH_SIZE
t_eq "$keep no mismatch" "$(grep -c "^$keep\$" /tmp/io.bad 2>/dev/null || echo 0)" 0
t_eq "$keep final hints" "$(gh_hints "$keep")" "$want"
t_eq "$keep final size" "$(gh_size_bytes "$keep")" "$size"
t_eq "$keep log lines" "$(gh_log_lines "$keep")" 0
gh_io_check unplug "$keep"
gh_done
