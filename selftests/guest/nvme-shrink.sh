#!/bin/sh
# An NVMe namespace (x-resizable=on) shrunk under I/O: writers keep writing the part of the
# namespace that a block_resize on the host removes, while it runs.  Afterwards the namespace
# has the new size, a Write to an LBA past the new end fails on the device (LBA Out of Range),
# and the data below the new end is intact.  The host checks that the image kept the new size
# (writes that were waiting in the block layer during the shrink must fail, not grow it back).
# gh.disk=SERIAL gh.old=BYTES gh.new=BYTES (multiples of 1 MiB, 512-byte blocks)
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
serial=$(gh_param disk)
old=$(gh_param old)
new=$(gh_param new)
M=1048576
if ! d=$(gh_disk "$serial"); then
	t_fail "$serial present"
	gh_done
	exit
fi
t_eq "capacity before the shrink" "$(gh_size_bytes "$d")" "$old"

# 1 MiB of data just below the new end
sum=$(gh_new_pattern)
dd if=/tmp/pattern of="/dev/$d" bs=1M seek=$((new / M - 1)) oflag=direct 2>/dev/null

# Four writers of 64 KiB blocks over the part that goes away, each counting its results.
span=$(((old - new) / 65536))
rm -f /tmp/shrink.stop /tmp/shrink.ok /tmp/shrink.fail
for w in 1 2 3 4; do
	(
		i=0
		while [ ! -e /tmp/shrink.stop ]; do
			blk=$((new / 65536 + (i * 4 + w) % span))
			if dd if=/dev/zero of="/dev/$d" bs=64k count=1 seek=$blk oflag=direct 2>/dev/null; then
				echo "$blk" >> /tmp/shrink.ok
			else
				echo "$blk" >> /tmp/shrink.fail
			fi
			i=$((i + 1))
		done
	) &
done
# let them run, then have the host shrink the namespace while they still do
gh_poll 100 test -s /tmp/shrink.ok || true
sleep 1
if gh_wait shrink; then
	t_ok "host shrank the namespace under I/O"
else
	t_fail "host shrank the namespace under I/O: $GH_REPLY"
fi
# the Namespace Attribute Changed event makes the driver read NSZE again
size_is() { [ "$(gh_size_bytes "$1")" = "$2" ]; }
gh_poll 300 size_is "$d" "$new" || true
sleep 1
touch /tmp/shrink.stop
wait
t_eq "capacity after the shrink" "$(gh_size_bytes "$d")" "$new"
diag "writes past the new end: $(wc -l < /tmp/shrink.ok 2>/dev/null || echo 0) succeeded (before the shrink), $(wc -l < /tmp/shrink.fail 2>/dev/null || echo 0) failed"
if [ -s /tmp/shrink.fail ]; then
	t_ok "writes past the new end failed"
else
	t_fail "writes past the new end failed"
fi

# The device refuses a Write past the new end itself (the kernel's block device would stop it
# before): nvme-cli sends the command as it is.
dd if=/dev/zero of=/tmp/blk bs=512 count=1 2>/dev/null
if nvme write "/dev/$d" --start-block=$((new / 512)) --block-count=0 --data-size=512 \
	--data=/tmp/blk >/tmp/nvme-write.out 2>&1; then
	t_fail "a Write past the new end fails on the device"
else
	diag "nvme write past the end: $(tr '\n' ' ' < /tmp/nvme-write.out)"
	t_ok "a Write past the new end fails on the device"
fi
blockdev --flushbufs "/dev/$d" 2>/dev/null
t_eq "data below the new end intact" \
	"$(dd if="/dev/$d" bs=1M skip=$((new / M - 1)) count=1 2>/dev/null | sha256sum | cut -d' ' -f1)" "$sum"
t_cmd "kernel log clean" gh_kernel_clean
gh_done
