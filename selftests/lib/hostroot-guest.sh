# shellcheck shell=bash
# Sourced by the scripts selftests/guest/hostroot.sh runs in the host-root guest
# (blktests-guest.sh, fstests-guest.sh): the running kernel's modules and configuration where
# the host's root has its own, and udev as on the machines the suites run on.

# hostroot_modules ROOT: ROOT is a root tree with lib/modules/<release> and
# boot/config-<release> for the running kernel (build/out/modules; Debian's package for
# Debian's kernel); nothing happens where it has none.
hostroot_modules() {
	local root=$1 rel
	rel=$(uname -r)
	if [ -n "$root" ] && [ -d "$root/lib/modules/$rel" ]; then
		mkdir -p /lib/modules
		mount --bind "$root/lib/modules" /lib/modules
	fi
	if [ -n "$root" ] && [ -f "$root/boot/config-$rel" ]; then
		mkdir -p /boot
		cp "$root/boot/config-$rel" "/boot/config-$rel"
	fi
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
}

# hostroot_udev: udev, which settles after each change and makes the /dev/mapper links that
# dmsetup's users expect.  systemd's tools see the chroot and decline ("Running in chroot,
# ignoring request") unless told that it is the system's root.  The disks present at boot
# are not replayed to it (udevadm trigger): the suites read them through sysfs, and
# replaying costs a minute of emulated time.  The daemon's own messages go to the kernel log
# (the suites' dmesg.log): a daemon has no console, and udevadm only says that it failed.
# Its control socket is passed to it as systemd-udevd-control.socket does, with
# PassCredentials=yes: udevd 252 sets SO_PASSCRED only on each connection it accepts, so a
# message that udevadm sends between the accept and that setsockopt carries no credentials.
# udevd then drops it ("Invalid sender uid 65534") and closes the connection, and udevadm
# settle fails with "Failed to wait for daemon to reply: Broken pipe"; a slow guest under load
# hit that.  A connection inherits SO_PASSCRED from the listening socket.
hostroot_udev() {
	export SYSTEMD_IGNORE_CHROOT=1
	mkdir -p /run/udev
	SYSTEMD_LOG_TARGET=kmsg python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
if os.path.exists("/run/udev/control"):
    os.unlink("/run/udev/control")
s.bind("/run/udev/control")
s.listen()
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[1], sys.argv[1:])' /lib/systemd/systemd-udevd --daemon --resolve-names=never
}

# hostroot_disks: the disks present at boot, the QEMU disks, one a line (/dev/vda ...).
hostroot_disks() {
	local d n
	for d in /sys/block/*; do
		n=${d##*/}
		case "$n" in
		nvme*c*) ;;
		vd* | sd* | nvme*n*) echo "/dev/$n" ;;
		esac
	done
}
