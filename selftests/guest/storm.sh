#!/bin/sh
# A storm of configuration changes under I/O: the host changes the hints and grows the disks
# hundreds of times while the guest reads and writes them.  Afterwards each disk shows the
# host's final values, the data is intact, nothing was logged and the kernel log is clean.
# gh.disks=SERIAL,...
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
disks=""
for serial in $(gh_param disks | tr ',' ' '); do
	if d=$(gh_disk "$serial"); then disks="$disks $d"; else t_fail "$serial present"; fi
done
# shellcheck disable=SC2086
gh_io_start $disks
if ! gh_wait storm; then
	gh_io_stop >/dev/null
	t_fail "storm: $GH_REPLY"
	gh_done
	exit
fi
# shellcheck disable=SC2086
set -- $GH_REPLY
want="$1 $2 $3" size=$4
diag "host's final values: $want at $size bytes"
settled() {
	for _x in $disks; do
		[ "$(gh_hints "$_x")" = "$want" ] && [ "$(gh_size_bytes "$_x")" = "$size" ] || return 1
	done
}
gh_poll 600 settled || true
diag "I/O rounds and mismatches during the storm: $(gh_io_stop)"
t_eq "no mismatch during the storm" "$(wc -l 2>/dev/null < /tmp/io.bad || echo 0)" 0
[ ! -s /tmp/io.bad ] || diag "mismatches on: $(sort /tmp/io.bad | uniq -c | tr '\n' ' ')"
# Not a data error: when a rescan's READ CAPACITY runs out of retries on the storm's unit
# attentions, sd (which the series does not change there) sets the capacity to 0 until the
# next rescan ("detected capacity change from N to 0"); a read then returns nothing.  Shown,
# not failed; the final size and data are checked below.
[ ! -s /tmp/io.short ] || diag "short reads (capacity 0 for a moment): $(sort /tmp/io.short | uniq -c | tr '\n' ' ')"
dmesg | sed -n '/I\/O error\|Read Capacity\|to 0$/{s/^/dmesg: /p}' | sed -n 1,20p | while read -r l; do diag "$l"; done
for d in $disks; do
	t_eq "$d final hints" "$(gh_hints "$d")" "$want"
	t_eq "$d final size" "$(gh_size_bytes "$d")" "$size"
	t_eq "$d log lines" "$(gh_log_lines "$d")" 0
done
# shellcheck disable=SC2086
gh_io_check storm $disks
if gh_kernel_clean >/dev/null; then t_ok "kernel log clean"; else t_fail "kernel log clean"; fi
gh_done
