#!/bin/sh
# blkid and lsblk of the util-linux series: "lsblk -b -o NAME,SIZE,GROW-MIN,GROW-MAX,GROW-INC"
# and the ID_GROWTH_* lines of "blkid -i -o udev" for every disk and partition, exactly as the
# host expects them; "lsblk -t" prints stock util-linux's columns; then the host changes the
# hints of some disks and the next calls show it.
# gh.expect=SERIAL:PART:SIZE:MIN:MAX:INC,...  (PART 0 is the disk itself; bytes; 0 = no hint;
#                                             "-": unknown, lsblk prints nothing, blkid no tag)
# gh.changed=...                               the devices whose values the change alters
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh

# lsblk_row DEV: "NAME SIZE MIN MAX INC" of DEV from the lsblk -P output in $LS ("-" for empty).
lsblk_row() {
	echo "$LS" | sed -n "s/^NAME=\"$1\" SIZE=\"\([^\"]*\)\" GROW-MIN=\"\([^\"]*\)\" GROW-MAX=\"\([^\"]*\)\" GROW-INC=\"\([^\"]*\)\"\$/$1:\1:\2:\3:\4/p" |
		awk -F: '{ for (i = 1; i <= NF; i++) if ($i == "") $i = "-"; $1 = $1; print }'
}
# growth_tags MIN MAX INC: what blkid -i -o udev prints for these values, sorted, one line.
growth_tags() {
	_t=""
	[ "$3" = 0 ] || [ "$3" = - ] || _t="$_t ID_GROWTH_INCREMENT_BYTES=$3"
	[ "$2" = 0 ] || [ "$2" = - ] || _t="$_t ID_GROWTH_MAX_BYTES=$2"
	[ "$1" = 0 ] || [ "$1" = - ] || _t="$_t ID_GROWTH_MIN_BYTES=$1"
	echo "${_t# }"
}

# check PREFIX LIST: lsblk and blkid of every device in LIST against its values.
check() {
	LS=$(lsblk -b -P -o NAME,SIZE,GROW-MIN,GROW-MAX,GROW-INC 2>&1)
	echo "$LS" | sed "s/^/# $1: /"
	for _spec in $(echo "$2" | tr ',' ' '); do
		IFS=: read -r serial part size min max inc <<-EOF
		$_spec
		EOF
		if ! d=$(gh_disk "$serial"); then
			t_fail "$1 $serial present"
			continue
		fi
		dev=$d
		[ "$part" = 0 ] || dev=$d$part
		want="$dev $size $min $max $inc"
		got=$(lsblk_row "$dev")
		t_eq "$1 $serial${part#0} lsblk" "$got" "$want"
		got=$(blkid -i -o udev "/dev/$dev" 2>&1 | grep '^ID_GROWTH_' | sort | tr '\n' ' ')
		t_eq "$1 $serial${part#0} blkid -i" "${got% }" "$(growth_tags "$min" "$max" "$inc")"
	done
}

case "$(lsblk --list-columns 2>&1)" in
*GROW-MAX*) ;;
*)
	t_skip "util-linux" "the initramfs has no lsblk with GROW-MAX (make util-linux initramfs)"
	gh_done
	exit 4
	;;
esac
if ! gh_has_hints "$(gh_disk "$(gh_param expect | sed 's/:.*//')")"; then
	t_skip "util-linux" "kernel has no growth hint attributes"
	gh_done
	exit 4
fi

check before "$(gh_param expect)"
# --topology is what it is in stock util-linux: the GROW-* columns only when asked for.
t_eq "lsblk -t prints stock util-linux's columns" "$(lsblk -t | sed -n '1{s/  */ /g;s/ $//;p}')" \
	"NAME ALIGNMENT MIN-IO OPT-IO PHY-SEC LOG-SEC ROTA SCHED RQ-SIZE RA WSAME"

# hints_are DISK "MIN MAX INC": a SCSI disk learns of the change with its next command.
hints_are() {
	case "$1" in sd*) sg_turs "/dev/$1" >/dev/null 2>&1 ;; esac
	[ "$(gh_hints "$1")" = "$2" ]
}
changed=$(gh_param changed)
if gh_wait change; then
	for _spec in $(echo "$changed" | tr ',' ' '); do
		IFS=: read -r serial part size min max inc <<-EOF
		$_spec
		EOF
		[ "$part" = 0 ] || continue
		d=$(gh_disk "$serial") || continue
		gh_poll 300 hints_are "$d" "$min $max $inc" ||
			diag "$serial: hints still '$(gh_hints "$d")' after 30 s"
	done
	check after "$changed"
else
	t_fail "the host changed the hints: $GH_REPLY"
fi
gh_done
