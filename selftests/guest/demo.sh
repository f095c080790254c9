#!/bin/sh
# make demo, guest side: show the disks and their hints, let the host grow vda, show it again.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
show() {
	printf '%-5s %16s %16s %20s %16s\n' DISK SIZE MIN_GROWTH MAX_GROWTH INCREMENT
	for b in /sys/block/vd* /sys/block/sd*; do
		[ -e "$b" ] || continue
		d=${b##*/}
		if gh_has_hints "$d"; then
			# shellcheck disable=SC2046
			set -- $(gh_hints "$d")
		else
			set -- - - -
		fi
		printf '%-5s %16s %16s %20s %16s\n' "$d" "$(gh_size_bytes "$d")" "$1" "$2" "$3"
	done
}
gh_disk vd0 >/dev/null
gh_disk sd0 >/dev/null
echo "vda is the virtio-blk disk, sda the scsi-hd disk on virtio-scsi."
echo "The guest sees (bytes; '-' = this kernel has no growth hint attributes):"
show
gh_has_hints vda || echo "(kernel without the growth hints series)"
gh_uevents_clear
vda=$(gh_size_bytes vda)
if gh_wait grow; then
	grown() { [ "$(gh_size_bytes vda)" != "$vda" ]; }
	gh_poll 300 grown
	echo "After the host grew vd0 (virtio-blk) live:"
	show
	echo "uevents for vda:"
	grep 'DEVNAME=vda ' /run/uevents.log | tr ' ' '\n' | grep -E '^(ACTION|DEVNAME|RESIZE|GROWTH_HINTS)=' | paste -sd' ' -
fi
