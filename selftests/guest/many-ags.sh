#!/bin/sh
# XFS with thousands of allocation groups on a latency device (issue 45): a small filesystem
# grown by xfs_growfs to thousands of AGs, mounted, unmounted and checked; then two crashes:
# the filesystem shut down in the middle of a growfs, and I/O errors (a shutdown) in the
# middle of a mount's AG header reads; each time a remount (log recovery) and xfs_repair -n.
#   gh.disk=SERIAL   the disk (empty)        gh.delay=MS   dm-delay's delay (default 1)
#   gh.mkfs=OPTS     mkfs.xfs -d options of the small filesystem (default size=512m,agcount=4:
#                    AGs of 128 MiB, so that a disk of 128 GiB holds 1024 of them; mkfs.xfs
#                    wants 300 MiB at least and a log of 64 MiB inside an AG)
# No timing is asserted: the times belong to tools/bench/bench-many-ags.sh.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
delay=$(gh_param delay 1) mkfsopts=$(gh_param mkfs size=512m,agcount=4)
disk=$(gh_disk "$(gh_param disk)") || { t_fail "disk present"; gh_done; exit; }
sectors=$(cat "/sys/block/$disk/size")
dev=/dev/mapper/slow mnt=/mnt/x
mkdir -p $mnt

table() { # table delay|error
	case "$1" in
	delay) echo "0 $sectors delay /dev/$disk 0 $delay" ;;
	error) echo "0 $sectors error" ;;
	esac
}
# agcount: the primary superblock's, as on disk (XFS writes around the device's page cache)
agcount() {
	echo 3 > /proc/sys/vm/drop_caches
	xfs_db -r -c 'sb 0' -c 'p agcount' $dev | sed 's/.*= //'
}
# ios FIELD: reads (1) or writes (5) completed on the dm device so far
ios() { awk -v f="$1" '{ print $f }' "/sys/block/$(dmsetup info -c --noheadings -o blkdevname slow | tr -d " ")/stat"; }
# check NAME: unmounted, xfs_repair -n finds nothing (the series' xfs_repair where the guest
# has it; -P: one thread, whose reads on the delayed disk take seconds, not minutes, under TCG)
repair=xfs_repair
[ -x /opt/gh-mkfs/sbin/xfs_repair ] && repair=/opt/gh-mkfs/sbin/xfs_repair
check() { t_cmd "$1: xfs_repair -n clean" $repair -n -P $dev; }
# populate: files, a directory tree, a reflinked file with a CoW fork in flight
populate() {
	mkdir -p $mnt/d/e &&
		dd if=/dev/urandom of=$mnt/d/a bs=64k count=16 2>/dev/null &&
		for i in 1 2 3 4 5 6 7 8; do echo "$i" > "$mnt/d/e/f$i"; done &&
		xfs_io -f -c "pwrite -q 0 1m" $mnt/d/src &&
		xfs_io -f -c "reflink $mnt/d/src" -c "pwrite -q 4k 8k" $mnt/d/clone &&
		sync # on disk before a shutdown, which drops what the log has not written
}

t_cmd "dm-delay ($delay ms) over $disk" dmsetup --noudevsync create slow --table "$(table delay)"
[ -b $dev ] || dmsetup mknodes slow
t_cmd "mkfs.xfs -d $mkfsopts" mkfs.xfs -q -f -K -d "$mkfsopts" $dev
small=$(agcount)
t_cmd "mount the small filesystem" mount -t xfs $dev $mnt
# Nothing more to check without the filesystem (and writes would fill the guest's memory).
mounted() { grep -q " $mnt " /proc/mounts || { diag "not mounted: stopping"; gh_done; exit; }; }
mounted
t_cmd "populate" populate
sum0=$(md5sum < $mnt/d/a)
t_cmd "xfs_growfs to the whole disk" xfs_growfs $mnt
big=$(agcount)
diag "AGs: $small made, $big after growfs"
if [ "$big" -ge 1000 ]; then t_ok "over a thousand AGs ($big)"; else t_fail "over a thousand AGs ($big)"; fi
t_cmd "umount after growfs" umount $mnt
check "grown"
for i in 1 2; do
	echo 3 > /proc/sys/vm/drop_caches
	t_cmd "mount $i" mount -t xfs $dev $mnt
	t_eq "data intact after mount $i" "$(md5sum < $mnt/d/a)" "$sum0"
	t_cmd "create and remove files after mount $i" sh -c "touch $mnt/n$i && rm $mnt/d/e/f$i"
	t_cmd "umount $i" umount $mnt
done
check "mounted twice"

# Crash 1: shut down (no log flush) while xfs_growfs writes the new AG headers.
t_cmd "mkfs.xfs again" mkfs.xfs -q -f -K -d "$mkfsopts" $dev
t_cmd "mount again" mount -t xfs $dev $mnt
mounted
t_cmd "populate again" populate
w0=$(ios 5)
xfs_growfs $mnt > /tmp/growfs.log 2>&1 &
gpid=$!
# Wait for the growfs to be under way (its first hundred writes), then shut down.
n=0
while [ $((n += 1)) -le 600 ] && [ $(($(ios 5) - w0)) -lt 100 ] && kill -0 $gpid 2>/dev/null; do
	usleep 20000
done
diag "shutdown after $(($(ios 5) - w0)) writes of the growfs"
t_cmd "shutdown during growfs" xfs_io -x -c shutdown $mnt
wait $gpid
diag "xfs_growfs status $? after the shutdown: $(tail -n 1 /tmp/growfs.log)"
t_cmd "umount the shut down filesystem" umount $mnt
t_cmd "mount after the shutdown (log recovery)" mount -t xfs $dev $mnt
ag=$(xfs_io -c statfs $mnt | sed -n 's/^geom.agcount = //p')
diag "AGs after recovery: $ag (made with $small, whole disk $big)"
if [ "$ag" = "$small" ] || [ "$ag" = "$big" ]; then
	t_ok "the growfs happened wholly or not at all"
else
	t_fail "the growfs happened wholly or not at all ($ag AGs)"
fi
t_cmd "files readable after recovery" cat $mnt/d/e/f1 $mnt/d/clone
t_cmd "grow the rest after recovery" xfs_growfs $mnt
t_cmd "umount after recovery" umount $mnt
check "after the growfs crash"
t_eq "all AGs after the second growfs" "$(agcount)" "$big"

# Crash 2: the disk fails (every I/O an error) while a cold mount reads the AG headers: the
# mount must fail cleanly (a shutdown during the per-AG reservations) or succeed, nothing else;
# with the disk back, the filesystem mounts and checks clean.
echo 3 > /proc/sys/vm/drop_caches
r0=$(ios 1)
mount -t xfs $dev $mnt > /tmp/mount.log 2>&1 &
mpid=$!
n=0
while [ $((n += 1)) -le 600 ] && kill -0 $mpid 2>/dev/null &&
	[ $(($(ios 1) - r0)) -lt 50 ]; do
	usleep 20000
done
t_cmd "errors on the disk during the mount" sh -c "dmsetup --noudevsync load slow --table '$(table error)' && dmsetup --noudevsync resume slow"
wait $mpid
mst=$?
diag "mount status $mst under errors: $(tail -n 1 /tmp/mount.log)"
grep -q " $mnt " /proc/mounts && umount $mnt 2>/dev/null
t_cmd "the disk back" sh -c "dmsetup --noudevsync load slow --table '$(table delay)' && dmsetup --noudevsync resume slow"
t_cmd "mount after the errors" mount -t xfs $dev $mnt
t_cmd "files readable after the errors" cat $mnt/d/e/f2 $mnt/d/clone
t_cmd "umount after the errors" umount $mnt
check "after the mount errors"
dmsetup --noudevsync remove slow
gh_done
