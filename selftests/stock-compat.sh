#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_wait_* and scenario are called through h_main
# The stock-compat suite: every layout that plain mkfs.xfs and mkfs.ext4 of the series (no
# options: what a user or an installer runs) make on a hinted disk is one that unpatched,
# current distribution tools and kernels check, repair and grow.  KTAP, one result per
# (layout, tool) check, with the tool's version in a diagnostic line.
#
# 1. In a guest (this project's kernel and QEMU), plain mkfs on virtio disks with growth hints
#    (2 GiB that may grow to 64 TiB, 10 GiB to 16 TiB, 10 GiB to 100 GiB) and without (the
#    control), then data written.  (The v3 image mode, one AG larger than the disk, is
#    withdrawn: Documentation/design.md 2.6.)
# 2. On the host, on copies of the disks (one check cannot change another's input), with
#    Debian 12's tools (the host's own on Debian 12) and Debian 13's (trixie's packages unpacked
#    into $GH_CACHE/debian-tools and run with their own glibc; selftests/lib/debian-tools.sh):
#    XFS: xfs_repair -n, xfs_repair, xfs_admin -l, fsck.xfs -f run by bash, and xfs_repair after
#    the first 512 bytes are zeroed (from a secondary superblock); ext4: e2fsck -fn, tune2fs -l,
#    and e2fsck -b with the first backup after the primary superblock (at 1024) is zeroed.
# 3. The guest kernel and Debian 12's kernel (selftests/lib/debian-kernel.sh, with its xfs and
#    ext4 modules) each mount a copy, find the data, grow it online (xfs_growfs, resize2fs) to
#    twice its size and find the data again; they mount the restored copies and find the data.
# 4. The stock tools of both releases check the grown copies (xfs_repair -n, e2fsck -fn).
# Images and consoles: build/results/stock-compat/ (images are deleted when everything passed).
set -euo pipefail
GH_WORK=${GH_WORK:-$(cd "$(dirname "$0")/.." && pwd)/build/results/stock-compat}
export GH_WORK
. "$(dirname "$0")/lib/host.sh"

# NAME|FS|SIZE|HINTS (min max increment; - for none)|GROWN TO|what it is
layouts=(
	"xfs-2g-64t|xfs|2G|1G 64T 1G|4G|XFS, plain mkfs.xfs on a 2 GiB disk that may grow to 64 TiB"
	"ext4-2g-64t|ext4|2G|1G 64T 1G|4G|ext4, plain mkfs.ext4 on a 2 GiB disk that may grow to 64 TiB"
	"xfs-10g-16t|xfs|10G|1G 16T 1G|20G|XFS, plain mkfs.xfs on a 10 GiB disk that may grow to 16 TiB"
	"ext4-10g-16t|ext4|10G|1G 16T 1G|20G|ext4, plain mkfs.ext4 on a 10 GiB disk that may grow to 16 TiB"
	"xfs-10g-100g|xfs|10G|1G 100G 1G|20G|XFS, plain mkfs.xfs on a 10 GiB disk that may grow to 100 GiB"
	"ext4-10g-100g|ext4|10G|1G 100G 1G|20G|ext4, plain mkfs.ext4 on a 10 GiB disk that may grow to 100 GiB"
	"xfs-10g-nohints|xfs|10G|-|20G|XFS, plain mkfs.xfs on a 10 GiB disk without hints (the control)"
	"ext4-10g-nohints|ext4|10G|-|20G|ext4, plain mkfs.ext4 on a 10 GiB disk without hints (the control)"
)
series_xfs="$out/xfsprogs/sbin"
img="$GH_WORK/img"

bytes() { numfmt --from=iec "$1"; }

# Toolsets: "deb12" and "deb13"; ts_bin: a directory to put first in PATH; ts_skip: why not.
declare -A ts_label=([deb12]="Debian 12" [deb13]="Debian 13") ts_bin ts_skip ts_xfs ts_e2
toolsets=(deb12 deb13)
tool_names=(xfs_repair xfs_db xfs_io xfs_admin fsck.xfs e2fsck tune2fs dumpe2fs)
setup_toolsets() {
	local p dir
	# Debian 12's: the host's own when the host is Debian 12 (make deps installs xfsprogs and
	# e2fsprogs), else bookworm's packages like Debian 13's.
	if [ "$(. /etc/os-release && echo "${ID:-}-${VERSION_ID:-}")" = debian-12 ]; then
		dir="$GH_WORK/tools-deb12"
		mkdir -p "$dir"
		for p in "${tool_names[@]}"; do
			if ! [ -x "/usr/sbin/$p" ] && ! [ -x "/sbin/$p" ]; then
				ts_skip[deb12]="the host has no $p (make deps: apt packages xfsprogs, e2fsprogs)"
				break
			fi
			ln -sf "$(PATH=/usr/sbin:/sbin command -v "$p")" "$dir/$p"
		done
		ts_bin[deb12]=$dir
	elif ! ts_bin[deb12]=$(bash "$top/selftests/lib/debian-tools.sh" bookworm 2>"$GH_WORK/tools-deb12.err"); then
		ts_skip[deb12]=$(sed -n 's/^[^:]*: error: //p' "$GH_WORK/tools-deb12.err" | first_line)
	fi
	if ! ts_bin[deb13]=$(bash "$top/selftests/lib/debian-tools.sh" trixie 2>"$GH_WORK/tools-deb13.err"); then
		ts_skip[deb13]="Debian 13's tools are not available: $(sed -n 's/^[^:]*: error: //p' "$GH_WORK/tools-deb13.err" | first_line)"
	fi
	for p in "${toolsets[@]}"; do
		[ -z "${ts_skip[$p]:-}" ] || { h_diag "${ts_label[$p]}: ${ts_skip[$p]}"; continue; }
		ts_xfs[$p]="xfsprogs $("${ts_bin[$p]}/xfs_repair" -V | sed 's/.* //')"
		ts_e2[$p]="e2fsprogs $("${ts_bin[$p]}/e2fsck" -V 2>&1 | sed -n '1s/^e2fsck \([^ ]*\).*/\1/p')"
		h_diag "${ts_label[$p]}'s tools: ${ts_xfs[$p]}, ${ts_e2[$p]} (${ts_bin[$p]})"
	done
}

# tool_check NAME TS WANT [-p PATTERN]... -- COMMAND...: run COMMAND with TS's tools first in
# PATH (stdin /dev/null, PS1 unset: a non-interactive boot check); WANT is ok (exit 0), fixed
# (exit 0 or 1: e2fsck corrected errors) or refused (not 0); each PATTERN (ERE) must be in the
# output.  A diagnostic line gives the release, tool version and exit status (with the output's
# last lines when the result is not ok); the output is kept in $GH_WORK/logs.
tool_check() {
	local name=$1 ts=$2 want=$3 pats=() rc=0 good=1 log pat
	shift 3
	while [ "$1" = -p ]; do pats+=("$2"); shift 2; done
	shift
	if [ -n "${ts_skip[$ts]:-}" ]; then
		h_skip "$name" "${ts_skip[$ts]}"
		return 1
	fi
	mkdir -p "$GH_WORK/logs"
	log="$GH_WORK/logs/$(echo "$name" | tr -c 'A-Za-z0-9.-' '_').log"
	env -u PS1 PATH="${ts_bin[$ts]}:$PATH" "$@" </dev/null >"$log" 2>&1 || rc=$?
	case "$want:$rc" in
	ok:0 | fixed:0 | fixed:1) ;;
	refused:0 | ok:* | fixed:*) good=0 ;;
	esac
	# The release, its package version and the command, as a user would type it.
	local cmd="$*" pkg=${ts_xfs[$ts]:-}
	cmd=${cmd//${ts_bin[$ts]}\//} cmd=${cmd//$GH_WORK\//}
	case "$1" in e2fsck | tune2fs | dumpe2fs) pkg=${ts_e2[$ts]:-} ;; esac
	h_diag "${ts_label[$ts]} $pkg: $cmd: exit $rc"
	for pat in "${pats[@]}"; do
		matches -E -- "$pat" "$log" || { good=0; h_diag "no line matches /$pat/"; }
	done
	if [ $good = 1 ]; then
		h_ok "$name"
		return 0
	fi
	grep -v '^[[:space:]]*$' "$log" | tail -n 6 | cut -c 1-150 | sed 's/^/#   /' || true
	h_fail "$name"
	return 1
}

copy() { cp --sparse=always "$1" "$2"; }
zero() { dd if=/dev/zero of="$1" bs="$2" seek="$3" count=1 conv=notrunc status=none; }

# checks_as_made NAME FS: the stock tools on copies of the layout as mkfs made it; a copy
# restored after its primary superblock was zeroed is kept as $img/r12-NAME.raw (Debian 12)
# or r13-NAME.raw (Debian 13).
checks_as_made() {
	local n=$1 fs=$2 ts L c="$GH_WORK/copy.raw" backup bs
	for ts in "${toolsets[@]}"; do
		L=${ts_label[$ts]}
		rm -f "$c"
		case "$fs" in
		xfs)
			copy "$img/$n.raw" "$c"
			tool_check "$n: $L xfs_repair -n accepts it" "$ts" ok \
				-p 'No modify flag set, skipping filesystem flush and exiting' -- xfs_repair -n "$c" || true
			tool_check "$n: $L xfs_admin -l reads it" "$ts" ok -p '^label = "' -- xfs_admin -l "$c" || true
			copy "$img/$n.raw" "$c"
			tool_check "$n: $L xfs_repair accepts it" "$ts" ok -p '^done$' -- xfs_repair "$c" || true
			copy "$img/$n.raw" "$c"
			tool_check "$n: $L fsck.xfs -f run by bash passes" "$ts" ok -- bash "${ts_bin[$ts]:-}/fsck.xfs" -f "$c" || true
			copy "$img/$n.raw" "$c"
			zero "$c" 512 0
			if tool_check "$n: first 512 bytes zeroed: $L xfs_repair restores the primary from a secondary superblock" \
				"$ts" ok -p 'verified secondary superblock' -- xfs_repair "$c" &&
				tool_check "$n: restored by $L xfs_repair: xfs_repair -n clean" "$ts" ok -- xfs_repair -n "$c"; then
				mv "$c" "$img/${ts/deb/r}-$n.raw"
			fi
			;;
		ext4)
			copy "$img/$n.raw" "$c"
			tool_check "$n: $L e2fsck -fn clean" "$ts" ok -p ': [0-9]+/[0-9]+ files' -- e2fsck -fn "$c" || true
			tool_check "$n: $L tune2fs -l reads it (magic 0xEF53, state clean)" "$ts" ok \
				-p '^Filesystem magic number: +0xEF53$' -p '^Filesystem state: +clean$' -- tune2fs -l "$c" || true
			if [ -n "${ts_skip[$ts]:-}" ]; then
				h_skip "$n: primary superblock zeroed: $L e2fsck -b restores it" "${ts_skip[$ts]}"
				continue
			fi
			backup=$("${ts_bin[$ts]}/dumpe2fs" "$c" 2>/dev/null | sed -n 's/.*Backup superblock at \([0-9]*\),.*/\1/p' | first_line)
			bs=$("${ts_bin[$ts]}/dumpe2fs" -h "$c" 2>/dev/null | sed -n 's/^Block size: *//p')
			h_diag "$n: first backup superblock at block ${backup:-none} ($bs-byte blocks)"
			zero "$c" 1024 1
			if tool_check "$n: primary superblock zeroed: $L e2fsck -b ${backup:-none} restores it" "$ts" fixed \
				-- e2fsck -fy -b "${backup:-0}" -B "${bs:-4096}" "$c" &&
				tool_check "$n: restored by $L e2fsck: e2fsck -fn clean, magic 0xEF53" "$ts" ok \
					-p ': [0-9]+/[0-9]+ files' -- e2fsck -fn "$c" &&
				matches '^Filesystem magic number: *0xEF53$' < <("${ts_bin[$ts]}/tune2fs" -l "$c" 2>/dev/null); then
				mv "$c" "$img/${ts/deb/r}-$n.raw"
			fi
			;;
		esac
	done
	rm -f "$c"
}

# checks_grown NAME FS KERNEL IMAGE: the stock tools on a copy after the kernel grew it.
checks_grown() {
	local n=$1 fs=$2 k=$3 f=$4 ts L
	for ts in "${toolsets[@]}"; do
		L=${ts_label[$ts]}
		case "$fs" in
		xfs) tool_check "$n: grown by the $k: $L xfs_repair -n accepts it" "$ts" ok \
			-p 'No modify flag set' -- xfs_repair -n "$f" || true ;;
		ext4) tool_check "$n: grown by the $k: $L e2fsck -fn clean" "$ts" ok -p ': [0-9]+/[0-9]+ files' -- e2fsck -fn "$f" || true ;;
		esac
	done
}

# grown NAME FS PREFIX KERNEL BOOT: checks_grown on PREFIX-NAME if the guest BOOT grew it.
grown() {
	[ -e "$img/$3-$1.raw" ] || return 0
	if tr -d '\r' < "$GH_WORK/$5/console.log" | matches "^GH| ok [0-9]* $3-$1: filesystem grown to the disk"; then
		checks_grown "$1" "$2" "$4" "$img/$3-$1.raw"
	else
		h_skip "$1: grown by the $4: stock tools" "the $4 did not grow $3-$1 (see its results above)"
	fi
}

on_wait_resize() { # SERIAL BYTES
	local err
	err=$(qmp block_resize "{\"device\": \"drv-$1\", \"size\": $2}" 2>&1 >/dev/null) ||
		{ echo "block_resize $1 $2: $err"; return 1; }
}

# boot NAME PREFIX KERNEL-ARGS... : a guest for the layouts' copies PREFIX-NAME (grown) and the
# restored copies r12-, r13-NAME listed in RESTORED; the rest of the arguments go to vm.
# disk_args PREFIX: the --disk options and gh.grow of the copies PREFIX-NAME.
disk_args=() grow=""
add_disks() { # add_disks PREFIX: grow every layout's copy PREFIX-NAME
	local l n fs size hints to props
	grow=""
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs size hints to _ <<< "$l"
		props=""
		# shellcheck disable=SC2086 # three words
		[ "$hints" = - ] || props=":props=$(hint_props $hints)"
		copy "$img/$n.raw" "$img/$1-$n.raw"
		disk_args+=(--disk "virtio:size=$size:id=$1-$n:serial=$1-$n:file=$img/$1-$n.raw$props")
		grow+="${grow:+,}$1-$n:$fs:$(bytes "$to")"
	done
}
check=""
add_restored() { # add_restored PREFIX...: the restored copies with these prefixes
	local l n fs p
	check=""
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs _ <<< "$l"
		for p in "$@"; do
			[ -e "$img/$p-$n.raw" ] || continue
			disk_args+=(--disk "virtio:id=$p-$n:serial=$p-$n:file=$img/$p-$n.raw")
			check+="${check:+,}$p-$n:$fs"
		done
	done
}

# vm_bg NAME ARGS...: vm in the background; vm_bg_results NAME PREFIX after wait: its results.
vm_bg() {
	(
		vm "$@"
		echo "$VM_STATUS" > "$GH_WORK/$1/status"
	) &
}
vm_bg_results() {
	VM_LOG="$GH_WORK/$1/console.log" VM_STATUS=$(cat "$GH_WORK/$1/status" 2>/dev/null || echo 125)
	vm_results "$2"
}

phase() { h_diag "$1: $((SECONDS - t0)) s"; t0=$SECONDS; }

scenario() {
	local l n fs size hints to what props mkfs="" fill="" t0=$SECONDS start=$SECONDS kver dk
	echo "KTAP version 1"
	finish() {
		h_diag "total $((SECONDS - start)) s"
		echo "1..$H_N"
		if [ "$H_FAILED" = 0 ]; then
			rm -rf "$img"
			exit 0
		fi
		h_diag "images kept in $img"
		exit 1
	}
	local p missing=""
	for p in "$series_xfs/mkfs.xfs" "$series_xfs/xfs_repair" "$GH_KERNEL" "$GH_INITRD"; do
		[ -e "$p" ] || missing+=" $p"
	done
	if [ -n "$missing" ]; then
		h_fail "stock-compat: missing$missing (make xfsprogs kernel initramfs)"
		finish
	fi
	if ! gzip -dc "$GH_INITRD" | cpio -it --quiet 2>/dev/null | matches -x 'tests/stock-compat.sh'; then
		h_fail "stock-compat: $GH_INITRD has no tests/stock-compat.sh (make initramfs)"
		finish
	fi
	if ! qemu_has_hints; then
		h_skip "stock-compat" "$GH_QEMU has no growth hint properties (x-growth-hints)"
		finish
	fi
	mkdir -p "$img"
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs size hints to what <<< "$l"
		h_diag "$n: $what${hints:+; hints (min max increment) $hints}; grown to $to"
	done
	setup_toolsets
	phase "tools ready"

	# 1. The layouts, made by plain mkfs in the guest.
	local disks=()
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs size hints to _ <<< "$l"
		props=""
		# shellcheck disable=SC2086 # three words
		[ "$hints" = - ] || props=":props=$(hint_props $hints)"
		mkfs+="${mkfs:+,}$n:$fs"
		disks+=(--disk "virtio:size=$size:id=$n:serial=$n:file=$img/$n.raw$props")
	done
	vm made --test stock-compat --append "gh.mkfs=$mkfs gh.fill=$fill" "${disks[@]}"
	vm_results "made:"
	phase "layouts made in the guest"

	# 2. The stock tools on copies of each.
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs _ <<< "$l"
		checks_as_made "$n" "$fs"
	done
	phase "stock tools on the layouts as made"

	# 3. Each kernel grows its own copy of every layout; it mounts restored copies.
	# The two guests run side by side (one CPU each).
	disk_args=()
	add_disks gk
	add_restored r12
	vm_bg guest-kernel --test stock-compat --append "gh.grow=$grow gh.check=$check" "${disk_args[@]}"
	dk="$GH_WORK/debian-kernel"
	if kver=$(bash "$top/selftests/lib/debian-kernel.sh" "$dk" xfs ext4 2>"$GH_WORK/debian-kernel.err"); then
		disk_args=()
		add_disks dk
		add_restored r13
		vm_bg debian-kernel --kernel "$dk/vmlinuz" --initrd "$dk/initramfs.cpio.gz" --test stock-compat \
			--append "gh.grow=$grow gh.check=$check" "${disk_args[@]}"
	fi
	wait
	vm_bg_results guest-kernel "guest kernel:"
	if [ -n "${kver:-}" ]; then
		vm_bg_results debian-kernel "Debian 12 kernel $kver:"
	else
		sed 's/^/# /' "$GH_WORK/debian-kernel.err"
		h_skip "Debian 12 kernel" "Debian's kernel package could not be prepared"
	fi
	phase "the guest kernel and Debian 12's kernel"

	# 4. The stock tools on the grown copies.
	for l in "${layouts[@]}"; do
		IFS='|' read -r n fs _ <<< "$l"
		grown "$n" "$fs" gk "guest kernel" guest-kernel
		grown "$n" "$fs" dk "Debian 12 kernel" debian-kernel
	done
	phase "stock tools on the grown layouts"
	finish
}

h_main "$@"
