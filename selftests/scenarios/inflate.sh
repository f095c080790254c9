#!/usr/bin/env bash
# shellcheck disable=SC2317 # scenario is called through h_main
# Scenario: growth-inflate on the host writes a GPT image (XFS root, and an ext4 variant) onto hinted virtio disk images; the guest checks contents, UUIDs, labels and geometry against its own plain mkfs there
# The host builds two cloud-like images (GPT: BIOS boot, vfat ESP, root of about 16 MiB of
# files with hard links, xattrs, sparse files and device nodes; XFS and ext4) and inflates
# each with tools/growth-inflate onto a 20 GiB disk image file, with the hints the guest's
# disk will have given as options (may grow to 16 TiB in 1 GiB steps).  The guest gets those
# two disks with the same hints, two blank disks of the same size, hints and partition table,
# and a disk holding the host's manifest of the source trees (busybox stat and sha256sum on
# both sides).  It checks: the hints; the partition table's GUIDs; each root's UUID and label;
# the files against the manifest; the series' xfs_repair -n / e2fsck -fn; and that the
# series' mkfs with no options on the blank twin makes the same AGs (XFS) or block groups and
# growth reserve (ext4) as the inflated filesystem has.  Then the guest itself inflates the XFS
# image from a disk of its own onto a blank hinted disk, as a first boot without host tooling
# would: the hints from sysfs, the image's identity, the host's layout.
set -euo pipefail
. "$(dirname "$0")/../lib/host.sh"

G=$((1 << 30))
size=$((20 * G)) max=$((16 << 40))

# manifest DIR: one line per inode, as busybox prints it (the guest runs the same commands)
manifest() {
	(cd "$1" && /bin/busybox find . | LC_ALL=C sort | while IFS= read -r f; do
		line=$(/bin/busybox stat -c '%n|%F|%a|%u|%g|%y|%t:%T|%h' "$f")
		case $line in
		*"|regular file|"* | *"|regular empty file|"*)
			line="$line|$(/bin/busybox stat -c %s "$f")|$(/bin/busybox sha256sum < "$f" | cut -d' ' -f1)" ;;
		*"|symbolic link|"*) line="$line|$(/bin/busybox readlink "$f")" ;;
		esac
		echo "$line"
	done)
}

scenario() {
	local gi="$top/tools/growth-inflate" fs img dst lo root_uuid mf="$GH_WORK/manifest.txt"
	local append="gh.size=$size gh.max=$max"
	if ! qemu_has_hints; then
		h_skip "inflate" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		return
	fi
	if [ ! -x "$gi" ] || [ "$(id -u)" != 0 ] || [ ! -x "$out/xfsprogs/sbin/mkfs.xfs" ] ||
		[ ! -x "$out/e2fsprogs/sbin/mke2fs" ] || [ ! -x /bin/busybox ]; then
		h_skip "inflate" "needs root, tools/growth-inflate (make tools), the series' mkfs (make xfsprogs e2fsprogs) and busybox"
		return
	fi
	export MKE2FS_CONFIG="$out/e2fsprogs/etc/mke2fs.conf"
	: > "$mf"
	for fs in xfs ext4; do
		img="$GH_WORK/src-$fs.img" dst="$GH_WORK/inflated-$fs.img"
		# the image as an image builder makes it: Debian's own mkfs, 1 GiB
		bash "$top/tools/tests/inflate-image.sh" --fs "$fs" --fill 8 --size 1G \
			--label "root-$fs" "$img" > "$GH_WORK/image-$fs.log" 2>&1 ||
			{ h_fail "inflate: build the $fs source image"; sed 's/^/# /' "$GH_WORK/image-$fs.log"; return; }
		if "$gi" --size=$size --growth-min=$size --growth-max=$max --growth-increment=$G --verify \
			--mkfs-xfs="$out/xfsprogs/sbin/mkfs.xfs" --mke2fs="$out/e2fsprogs/sbin/mke2fs" \
			"$img" "$dst" > "$GH_WORK/inflate-$fs.log" 2>&1; then
			h_ok "inflate: growth-inflate --verify writes the $fs image onto a 20 GiB file ($(grep -o '[0-9.]* [KMG]iB stored' "$GH_WORK/inflate-$fs.log"))"
		else
			sed 's/^/# /' "$GH_WORK/inflate-$fs.log"
			h_fail "inflate: growth-inflate --verify writes the $fs image onto a 20 GiB file"
			return
		fi
		# the blank twin: the same size and partition table
		rm -f "$GH_WORK/blank-$fs.img"
		truncate -s $size "$GH_WORK/blank-$fs.img"
		sfdisk -d "$dst" | sfdisk -q --no-reread --no-tell-kernel "$GH_WORK/blank-$fs.img" > /dev/null
		# what the guest expects: the source's identity and files
		lo=$(losetup -f --show -r -o $((135168 * 512)) "$img")
		root_uuid=$(blkid -p -o value -s UUID "$lo")
		mkdir -p "$GH_WORK/mnt"
		mount -o "ro,$([ "$fs" = xfs ] && echo norecovery || echo noload)" "$lo" "$GH_WORK/mnt"
		{ echo "== $fs"; manifest "$GH_WORK/mnt"; } >> "$mf"
		umount "$GH_WORK/mnt"
		losetup -d "$lo"
		append="$append gh.uuid_$fs=$root_uuid gh.label_$fs=root-$fs gh.ptuuid_$fs=$(sfdisk --disk-id "$img" | tr '[:upper:]' '[:lower:]')"
		append="$append gh.partuuid_$fs=$(sfdisk --part-uuid "$img" 3 | tr '[:upper:]' '[:lower:]')"
		# the XFS image stays: the guest inflates it itself, from its own disk
		[ "$fs" = xfs ] || rm -f "$img"
	done
	rm -f "$GH_WORK/guest-xfs.img"
	truncate -s $size "$GH_WORK/guest-xfs.img"
	# the manifest on a small disk of its own
	truncate -s 16M "$GH_WORK/manifest.img"
	dd if="$mf" of="$GH_WORK/manifest.img" conv=notrunc status=none
	append="$append gh.manifest_len=$(stat -c %s "$mf")"
	local hp
	hp=$(hint_props "$size" "$max" "$G")
	# 190 to 240 s on an idle machine; 3.5 times that under stress-suites.sh's load.
	GH_TIMEOUT=${GH_TIMEOUT:-1500} vm inflate --test inflate --append "$append" \
		--disk "virtio:id=vd0:serial=inf-xfs:file=$GH_WORK/inflated-xfs.img:props=$hp" \
		--disk "virtio:id=vd1:serial=inf-ext4:file=$GH_WORK/inflated-ext4.img:props=$hp" \
		--disk "virtio:id=vd2:serial=blank-xfs:file=$GH_WORK/blank-xfs.img:props=$hp" \
		--disk "virtio:id=vd3:serial=blank-ext4:file=$GH_WORK/blank-ext4.img:props=$hp" \
		--disk "virtio:id=vd4:serial=manifest:file=$GH_WORK/manifest.img" \
		--disk "virtio:id=vd5:serial=src-xfs:file=$GH_WORK/src-xfs.img" \
		--disk "virtio:id=vd6:serial=guest-xfs:file=$GH_WORK/guest-xfs.img:props=$hp"
	vm_results ""
	[ "$VM_STATUS" = 0 ] || h_fail "the guest test exited with status $VM_STATUS"
}

h_main "$@"
