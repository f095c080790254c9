#!/bin/sh
# Guest side of scripts/test-blktests.sh and scripts/test-fstests.sh --kernel (busybox, in
# the initramfs): boots into the host's root filesystem the way virtme-ng does, read-only
# over virtio-9p (mount tag ghroot) under a tmpfs overlay, mounts the output directory (mount
# tag ghout, writable) at the path gh.out names, and runs there the script of the project's
# selftests/lib (gh.top: the checkout) that the job's GUEST= line names (blktests-guest.sh,
# fstests-guest.sh), so that the suite runs with the host's bash, fio, util-linux,
# sg3-utils, nvme-cli, dmsetup and mdadm.  Its exit status is the test's.
set -u
arg() { sed -n "s/.*gh\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
out=$(arg out)
top=$(arg top)
if [ -z "$out" ] || [ -z "$top" ]; then
	echo "gh.out= and gh.top= are needed"
	exit 1
fi

# blktests makes and removes many devices: no uevent helper for each of them.
echo > /proc/sys/kernel/hotplug 2>/dev/null

r=/mnt/root
mkdir -p /mnt/host /mnt/rw "$r"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 ghroot /mnt/host ||
	{ echo "cannot mount the host's root (virtio-9p tag ghroot)"; exit 1; }
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work "$r" ||
	{ echo "cannot mount the overlay over the host's root"; exit 1; }
mount -t proc proc "$r/proc"
mount -t sysfs sysfs "$r/sys"
mount -t devtmpfs devtmpfs "$r/dev"
mkdir -p "$r/dev/pts" "$r/dev/shm"
ln -sf /proc/self/fd "$r/dev/fd"
ln -sf /proc/self/fd/0 "$r/dev/stdin"
ln -sf /proc/self/fd/1 "$r/dev/stdout"
ln -sf /proc/self/fd/2 "$r/dev/stderr"
mount -t devpts devpts "$r/dev/pts"
mount -t tmpfs tmpfs "$r/dev/shm"
mount -t tmpfs -o mode=0755 tmpfs "$r/run"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
mount -t configfs configfs "$r/sys/kernel/config" 2>/dev/null
# The tmpfs hides the host's /tmp: a checkout, a cache or a kernel build there (a CI clone
# in /tmp, say) comes back from the host's root.  Before the output directory is mounted,
# which may lie inside the checkout.  The job (written by the host) names the others: every
# NAME=/tmp/... line of it.
for p in "$top" $(sed -n 's/^[A-Z_]*=\(\/tmp\/.*\)$/\1/p' "/mnt/host$out/job" 2>/dev/null |
	sed 's/\\\(.\)/\1/g'); do
	case "$p" in
	/tmp/*)
		mkdir -p "$r$p"
		mount -o bind "/mnt/host$p" "$r$p" ||
			{ echo "cannot show the host's $p in the guest"; exit 1; }
		;;
	esac
done
mkdir -p "$r$out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ghout "$r$out" ||
	{ echo "cannot mount the output directory (virtio-9p tag ghout)"; exit 1; }

script=$(sed -n 's/^GUEST=\([a-z-]*\.sh\)$/\1/p' "$r$out/job")
if [ -z "$script" ] || [ ! -f "$r$top/selftests/lib/$script" ]; then
	echo "the job names no script of selftests/lib (GUEST=...)"
	umount "$r$out" 2>/dev/null
	exit 1
fi
chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash "$top/selftests/lib/$script" "$out"
status=$?
sync
umount "$r$out" 2>/dev/null
exit $status
