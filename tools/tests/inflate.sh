# growth-inflate's tests, sourced by tests/run.sh (its result, diag and $tmp).
#   - no root: every bad input refused with its exit status and nothing written (a
#     missing TARGET is not created, an existing one keeps its bytes); a GPT image of
#     partitions that are not ext2/3/4 or XFS carried to a file (identity, the last
#     partition extended, the backup header at the end, the bytes of the partitions,
#     the gap and the boot code);
#   - root (else skipped, saying why): the fidelity image (every file type and attribute
#     of growth-inflate(8)) on XFS and ext4 against inflate-tree.py and --verify; the
#     layout against the series' mkfs run on the same hinted target; a grown copy under
#     Debian's xfs_repair -n and e2fsck -fn; MBR and bare images; a hinted block device;
#     a source that needs repair; a target mounted or held; a run killed half way.
# The series' mkfs.xfs and mke2fs come from $GH_OUT (default ../build/out), else PATH.
gi=./growth-inflate
gi_out=${GH_OUT:-$(cd .. && pwd)/build/out}
gi_t="$tmp/inflate"
mkdir -p "$gi_t"
export GROWTH_INFLATE_MKFS_XFS=mkfs.xfs GROWTH_INFLATE_MKE2FS=mke2fs
[ -x "$gi_out/xfsprogs/sbin/mkfs.xfs" ] && GROWTH_INFLATE_MKFS_XFS="$gi_out/xfsprogs/sbin/mkfs.xfs"
[ -x "$gi_out/e2fsprogs/sbin/mke2fs" ] && GROWTH_INFLATE_MKE2FS="$gi_out/e2fsprogs/sbin/mke2fs"
[ -f "$gi_out/e2fsprogs/etc/mke2fs.conf" ] && export MKE2FS_CONFIG="$gi_out/e2fsprogs/etc/mke2fs.conf"
# Debian's own checkers for the grown copies: this machine's (Debian 12) and Debian 13's
# (selftests/lib/debian-tools.sh, the stock-compat suite's copy of trixie's programs)
stock_repair=/usr/sbin/xfs_repair stock_fsck=/usr/sbin/e2fsck
[ -x "$stock_fsck" ] || stock_fsck=/sbin/e2fsck

# gi_expect NAME STATUS PATTERN -- ARGS...: growth-inflate exits with STATUS and says PATTERN
gi_expect() {
	local name=$1 want=$2 pat=$3 rc=0
	shift 4
	"$gi" "$@" > "$gi_t/out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pat" "$gi_t/out"; then
		result 0 "inflate: $name"
	else
		{ echo "exit status $rc (want $want), output:"; cat "$gi_t/out"; } | diag
		result 1 "inflate: $name"
	fi
}

# --- no root ---------------------------------------------------------------------------
gi_expect "no arguments: usage, status 2" 2 "expected IMAGE and TARGET" --
gi_expect "a missing IMAGE: status 3" 3 "cannot open" -- "$gi_t/nothing.img" "$gi_t/t.img"
head -c 4M /dev/urandom > "$gi_t/random.img"
gi_expect "an unknown source filesystem (no table, no ext or XFS): status 3" 3 \
	"no partition table and no ext2/3/4 or XFS filesystem" -- --size=1G "$gi_t/random.img" "$gi_t/t.img"
# a qcow2 header with a backing file (the header alone decides)
{ printf 'QFI\373\0\0\0\3\0\0\0\0\0\0\1\0\0\0\0\10'; head -c 492 /dev/zero; } > "$gi_t/backed.qcow2"
gi_expect "a qcow2 image with a backing file: status 3" 3 "backing file" -- --size=1G \
	"$gi_t/backed.qcow2" "$gi_t/t.img"
{ printf '\072\377\046\355'; head -c 508 /dev/zero; } > "$gi_t/android.img"
gi_expect "an Android sparse image: refused by name" 3 "Android sparse" -- --size=1G \
	"$gi_t/android.img" "$gi_t/t.img"
if [ -e "$gi_t/t.img" ]; then
	result 1 "inflate: no refused input created TARGET"
else
	result 0 "inflate: no refused input created TARGET"
fi

bash tests/inflate-image.sh --layout raw-only --size 256M "$gi_t/raw.img"
gi_expect "a missing file TARGET without --size: status 4" 4 "--size is needed" -- \
	"$gi_t/raw.img" "$gi_t/t.img"
gi_expect "a target smaller than the partitions: status 4" 4 "is too small" -- --size=64M \
	"$gi_t/raw.img" "$gi_t/t.img"
gi_expect "--growth-max below the target's size: status 4" 4 "do not fit" -- --size=1G \
	--growth-max=512M "$gi_t/raw.img" "$gi_t/t.img"
gi_expect "--growth-increment not a multiple of 512: status 4" 4 "not a multiple" -- --size=1G \
	--growth-max=4G --growth-increment=1000 "$gi_t/raw.img" "$gi_t/t.img"
gi_expect "--growth-min above the target's size: status 4" 4 "min" -- --size=1G \
	--growth-min=2G --growth-max=4G "$gi_t/raw.img" "$gi_t/t.img"
gi_expect "--growth-min without a maximum: status 4" 4 "need a maximum" -- --size=1G \
	--growth-min=1G "$gi_t/raw.img" "$gi_t/t.img"
gi_expect "a bad size: status 2" 2 "not a size" -- --size=1.5G "$gi_t/raw.img" "$gi_t/t.img"
head -c 1M /dev/urandom > "$gi_t/keep.img"
sum=$(sha256sum < "$gi_t/keep.img")
gi_expect "an existing TARGET too small (no --size): status 4" 4 "is too small" -- \
	"$gi_t/raw.img" "$gi_t/keep.img"
if [ "$(sha256sum < "$gi_t/keep.img")" = "$sum" ] && [ ! -e "$gi_t/t.img" ]; then
	result 0 "inflate: nothing written to TARGET by a refused run"
else
	result 1 "inflate: nothing written to TARGET by a refused run"
fi

# partitions copied byte for byte, the table carried: no root needed
rc=0
"$gi" --quiet --size=2G --growth-max=1T "$gi_t/raw.img" "$gi_t/raw-out.img" > "$gi_t/out" 2>&1 || rc=$?
if [ $rc = 0 ]; then
	sfdisk -d "$gi_t/raw.img" | grep -v -e '^device:' -e '^last-lba:' | sed 's/^[^ ]*raw.img/P/; s/size= *[0-9]*,//' > "$gi_t/t1"
	sfdisk -d "$gi_t/raw-out.img" | grep -v -e '^device:' -e '^last-lba:' | sed 's/^[^ ]*raw-out.img/P/; s/size= *[0-9]*,//' > "$gi_t/t2"
	last=$(sfdisk -d "$gi_t/raw-out.img" | sed -n 's/^last-lba: //p')
	p3=$(sfdisk -d "$gi_t/raw-out.img" | sed -n 's/.*img3 : start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
	bad=""
	cmp -s "$gi_t/t1" "$gi_t/t2" || bad="$bad table($(diff "$gi_t/t1" "$gi_t/t2" | tr '\n' ' '))"
	[ "$last" = $((2 * 1024 * 1024 * 2 - 34)) ] || bad="$bad last-lba=$last"
	set -- $p3 0 0
	# extended to the end as sfdisk extends it: aligned down to 1 MiB
	[ $(($1 + $2 - 1)) -le "$last" ] && [ $((last - ($1 + $2 - 1))) -lt 2048 ] &&
		[ $((($1 + $2) % 2048)) = 0 ] || bad="$bad p3-end=$(($1 + $2 - 1))"
	sfdisk --verify "$gi_t/raw-out.img" 2>&1 | grep -qi "no errors" || bad="$bad verify"
	gi_n=$(stat -c %s "$gi_t/raw.img")
	cmp -s <(head -c 440 "$gi_t/raw.img") <(head -c 440 "$gi_t/raw-out.img") || bad="$bad bootcode"
	cmp -s <(dd if="$gi_t/raw.img" bs=512 skip=34 count=$((gi_n / 512 - 34 - 33)) status=none) \
		<(dd if="$gi_t/raw-out.img" bs=512 skip=34 count=$((gi_n / 512 - 34 - 33)) status=none) || bad="$bad bytes"
	[ "$(stat -c %b "$gi_t/raw-out.img")" -lt $((64 * 2048)) ] || bad="$bad allocated=$(stat -c %b "$gi_t/raw-out.img")"
	if [ -z "$bad" ]; then result 0 "inflate: GPT of raw partitions to a file: GUIDs, types, names, attributes, bytes, boot code, last partition extended, backup at the end, sparse"
	else echo "$bad" | diag; result 1 "inflate: GPT of raw partitions to a file: GUIDs, types, names, attributes, bytes, boot code, last partition extended, backup at the end, sparse"; fi
else
	diag < "$gi_t/out"
	result 1 "inflate: GPT of raw partitions to a file: GUIDs, types, names, attributes, bytes, boot code, last partition extended, backup at the end, sparse"
fi
rm -f "$gi_t"/*.img

# --- root --------------------------------------------------------------------------------
gi_root_tests=(
	"fidelity on XFS: inflate-tree.py and --verify agree with the source"
	"fidelity on ext4: inflate-tree.py and --verify agree with the source"
	"XFS on a hinted file target: the layout of the series' mkfs.xfs on the same hinted partition"
	"ext4 on a hinted file target: the layout of the series' mke2fs on the same hinted partition"
	"a grown XFS copy passes Debian's xfs_repair -n"
	"a grown XFS copy passes Debian 13's xfs_repair -n"
	"a grown ext4 copy passes Debian's e2fsck -fn"
	"a grown ext4 copy passes Debian 13's e2fsck -fn"
	"MBR image: disk identifier, types and active flag carried"
	"bare XFS image onto a hinted block device (hints from sysfs through libblkid)"
	"a source that needs repair (XFS dirty log): status 3, nothing written"
	"a source that needs repair (ext4 with errors): status 3, nothing written"
	"a mounted target: status 4"
	"a target held open exclusively: status 4"
	"a run killed half way leaves no source identity (interim table, temporary UUID)"
	"a target smaller than the root's used data: status 4, nothing written"
)
gi_why=""
[ "$(id -u)" = 0 ] || gi_why="needs root (loop devices, mounts)"
[ -z "$gi_why" ] && ! command -v losetup > /dev/null && gi_why="needs losetup"
[ -z "$gi_why" ] && [ ! -e /dev/loop-control ] && gi_why="needs loop devices"
if [ -n "$gi_why" ]; then
	for name in "${gi_root_tests[@]}"; do result skip "inflate: $name" "$gi_why"; done
	return 0
fi

gi_loops=()
gi_mnts=()
gi_cleanup() {
	local m l
	for m in "${gi_mnts[@]}"; do umount "$m" 2>/dev/null || true; done
	for l in "${gi_loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	gi_mnts=()
	gi_loops=()
}
# gi_loop FILE [OFFSET]: a read-only loop device (on gi_loops)
gi_loop() {
	local l
	l=$(losetup -f --show -r ${2:+-o $2} "$1")
	gi_loops+=("$l")
	echo "$l"
}
# gi_mount DEV DIR OPTS
gi_mount() { mkdir -p "$2"; mount -o "$3" "$1" "$2" && gi_mnts+=("$2"); }
# gi_hinted LODEV MIN MAX INC CMD...: CMD in a mount namespace where LODEV has growth hints
gi_hinted() {
	local lo=$1 q="$gi_t/queue-${1##*/}" f
	rm -rf "$q" && mkdir "$q"
	for f in "/sys/block/${lo#/dev/}"/queue/*; do
		[ -f "$f" ] && cat "$f" > "$q/${f##*/}" 2>/dev/null
	done
	echo "$2" > "$q/min_growth_bytes"
	echo "$3" > "$q/max_growth_bytes"
	echo "$4" > "$q/growth_increment_bytes"
	shift 4
	unshare --mount --propagation private /bin/bash -c \
		'mount --bind "$1" "/sys/block/${2#/dev/}/queue" && shift 2 && exec "$@"' \
		hinted "$q" "$lo" "$@"
}
# gi_tree IMAGE OFFSET FSTYPE OUT: inflate-tree.py of the filesystem at OFFSET
gi_tree() {
	local l opts=ro,nouuid
	[ "$3" = ext4 ] && opts=ro,noload
	l=$(gi_loop "$1" "$2")
	gi_mount "$l" "$gi_t/m" "$opts"
	python3 tests/inflate-tree.py "$gi_t/m" > "$4"
	umount "$gi_t/m"
	losetup -d "$l"
}
g64=$((64 << 30)) t16=$((16 << 40)) g1=$((1 << 30))
root_off=$((135168 * 512))

# 1-2: fidelity, 3-4: layout, 5-6: grown
for fs in xfs ext4; do
	name="fidelity on $( [ $fs = xfs ] && echo XFS || echo ext4): inflate-tree.py and --verify agree with the source"
	bash tests/inflate-image.sh --fs $fs --size 1G "$gi_t/src-$fs.img"
	rc=0
	"$gi" --size=64G --growth-min=64G --growth-max=16T --growth-increment=1G --verify \
		"$gi_t/src-$fs.img" "$gi_t/dst-$fs.img" > "$gi_t/out-$fs" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		gi_tree "$gi_t/src-$fs.img" $root_off $fs "$gi_t/tree-src"
		gi_tree "$gi_t/dst-$fs.img" $root_off $fs "$gi_t/tree-dst"
		gi_n=$(wc -l < "$gi_t/tree-src")
		if cmp -s "$gi_t/tree-src" "$gi_t/tree-dst" && grep -q -- "--verify: 1 filesystem matches" "$gi_t/out-$fs" &&
			[ "$gi_n" -ge 35 ]; then
			result 0 "inflate: $name ($gi_n inodes)"
		else
			{ diff "$gi_t/tree-src" "$gi_t/tree-dst" || true; } | cut -c1-300 | sed -n 1,20p | diag
			result 1 "inflate: $name"
		fi
	else
		diag < "$gi_t/out-$fs"
		result 1 "inflate: $name"
	fi
	gi_cleanup
done

# The layout: the series' mkfs run itself on a target of the same size, table and hints
# (a fresh file: the same partition table, a partscan loop device whose queue has the same
# growth hints), with the options growth-inflate printed, and with none.
for fs in xfs ext4; do
	name="$( [ $fs = xfs ] && echo "XFS on a hinted file target: the layout of the series' mkfs.xfs" ||
		echo "ext4 on a hinted file target: the layout of the series' mke2fs") on the same hinted partition"
	if [ ! -f "$gi_t/dst-$fs.img" ]; then result 1 "inflate: $name"; continue; fi
	rm -f "$gi_t/plain.img"
	truncate -s 64G "$gi_t/plain.img"
	sfdisk -d "$gi_t/dst-$fs.img" | sfdisk -q --no-reread --no-tell-kernel "$gi_t/plain.img" > /dev/null
	lo=$(losetup -f --show -P "$gi_t/plain.img")
	gi_loops+=("$lo")
	partx -a "$lo" 2> /dev/null || true
	args=$(sed -n "s%^growth-inflate: partition 3: [^ ]*/\(mkfs.xfs\|mke2fs\) \(.*\) /dev/loop[0-9]*p3$%\2%p" "$gi_t/out-$fs")
	geo() {	# geo DEV: the geometry without identity
		if [ $fs = xfs ]; then
			"$gi_out/xfsprogs/sbin/xfs_db" -r -c 'sb 0' -c 'print blocksize dblocks agblocks agcount logblocks logstart sectsize inodesize imax_pct rootino' "$1" 2>/dev/null ||
				xfs_db -r -c 'sb 0' -c 'print blocksize dblocks agblocks agcount logblocks logstart sectsize inodesize imax_pct rootino' "$1"
		else
			dumpe2fs -h "$1" 2>/dev/null | grep -E '^(Inode count|Block count|Reserved block count|Blocks per group|Inodes per group|Reserved GDT blocks|Flex block group size|Journal size|Inode size|First block|Block size):'
		fi
	}
	ok=1
	eval "set -- $args"
	if [ $fs = xfs ]; then
		gi_hinted "$lo" $g64 $t16 $g1 "$GROWTH_INFLATE_MKFS_XFS" -q "$@" "${lo}p3" > "$gi_t/mkfs.log" 2>&1 || ok=0
	else
		gi_hinted "$lo" $g64 $t16 $g1 "$GROWTH_INFLATE_MKE2FS" "$@" "${lo}p3" > "$gi_t/mkfs.log" 2>&1 || ok=0
	fi
	geo "${lo}p3" > "$gi_t/geo-plain"
	l2=$(gi_loop "$gi_t/dst-$fs.img" $root_off)
	geo "$l2" > "$gi_t/geo-inflated"
	# and the series' mkfs without any option: the same AGs / groups
	if [ $fs = xfs ]; then
		gi_hinted "$lo" $g64 $t16 $g1 "$GROWTH_INFLATE_MKFS_XFS" -N -f "${lo}p3" > "$gi_t/plain-N" 2>&1 || ok=0
		want=$(sed -n 's/.*agcount=\([0-9]*\), agsize=\([0-9]*\) blks.*/agcount = \1 agblocks = \2/p' "$gi_t/plain-N")
		got=$(sed -n 's/^agcount = //p' "$gi_t/geo-inflated")
		got="agcount = $got agblocks = $(sed -n 's/^agblocks = //p' "$gi_t/geo-inflated")"
	else
		gi_hinted "$lo" $g64 $t16 $g1 "$GROWTH_INFLATE_MKE2FS" -n -F "${lo}p3" > "$gi_t/plain-N" 2>&1 || ok=0
		want=$(sed -n 's/^Creating filesystem with \([0-9]*\) 4k blocks.*/blocks \1/p' "$gi_t/plain-N")
		got="blocks $(sed -n 's/^Block count: *//p' "$gi_t/geo-inflated")"
	fi
	if [ $ok = 1 ] && [ -s "$gi_t/geo-plain" ] && cmp -s "$gi_t/geo-plain" "$gi_t/geo-inflated" && [ "$want" = "$got" ]; then
		result 0 "inflate: $name ($(tr '\n' ' ' < "$gi_t/geo-inflated" | cut -c1-160))"
	else
		{ cat "$gi_t/mkfs.log"; diff "$gi_t/geo-plain" "$gi_t/geo-inflated" || true; echo "plain mkfs: '$want', inflated: '$got'"
		  echo "mkfs options: $args"; cat "$gi_t/out-$fs"; } | diag
		result 1 "inflate: $name"
	fi
	gi_cleanup
	rm -f "$gi_t/plain.img"
done

# A grown copy: the file to 256 GiB, the GPT backup moved, partition 3 to the end, growfs;
# then Debian 12's own checker, and Debian 13's.
trixie_bin=$(bash ../selftests/lib/debian-tools.sh trixie 2> "$gi_t/trixie.err") || trixie_bin=""
for fs in xfs ext4; do
	name=$( [ $fs = xfs ] && echo "a grown XFS copy passes Debian's xfs_repair -n" || echo "a grown ext4 copy passes Debian's e2fsck -fn")
	name13=$( [ $fs = xfs ] && echo "a grown XFS copy passes Debian 13's xfs_repair -n" || echo "a grown ext4 copy passes Debian 13's e2fsck -fn")
	if [ ! -f "$gi_t/dst-$fs.img" ]; then result 1 "inflate: $name"; result 1 "inflate: $name13"; continue; fi
	ok=1
	truncate -s 256G "$gi_t/dst-$fs.img"
	{ sfdisk -q --relocate gpt-bak-std "$gi_t/dst-$fs.img" && echo ", +" | sfdisk -q -N 3 --no-reread --no-tell-kernel "$gi_t/dst-$fs.img"; } > "$gi_t/grow.log" 2>&1 || ok=0
	size=$(sfdisk -d "$gi_t/dst-$fs.img" | sed -n 's/.*img3 : start= *[0-9]*, size= *\([0-9]*\).*/\1/p' || true)
	l=$(losetup -f --show -o $root_off --sizelimit $((size * 512)) "$gi_t/dst-$fs.img")
	gi_loops+=("$l")
	if [ $fs = xfs ]; then
		gi_mount "$l" "$gi_t/m" rw && xfs_growfs "$gi_t/m" >> "$gi_t/grow.log" 2>&1 || ok=0
		agc=$(xfs_info "$gi_t/m" 2>/dev/null | sed -n 's/.*agcount=\([0-9]*\),.*/\1/p' || true)
		umount "$gi_t/m"
		"$stock_repair" -n "$l" >> "$gi_t/grow.log" 2>&1 || ok=0
		what="$agc AGs at 256 GiB"
	else
		# offline (an online resize needs CAP_SYS_RESOURCE, which a container may lack); resize2fs wants a
		# check after the last mount (growth-inflate mounted it to copy)
		{ "$stock_fsck" -fp "$l" && resize2fs "$l"; } >> "$gi_t/grow.log" 2>&1 || ok=0
		"$stock_fsck" -fn "$l" >> "$gi_t/grow.log" 2>&1 || ok=0
		what="$(dumpe2fs -h "$l" 2>/dev/null | sed -n 's/^Block count: *//p') blocks"
	fi
	if [ $ok = 1 ]; then result 0 "inflate: $name ($what)"
	else diag < "$gi_t/grow.log"; result 1 "inflate: $name"; fi
	check=$([ $fs = xfs ] && echo "xfs_repair -n" || echo "e2fsck -fn")
	if [ -z "$trixie_bin" ]; then
		result skip "inflate: $name13" "Debian 13's programs are not available: $(tail -n 1 "$gi_t/trixie.err")"
	elif "$trixie_bin/${check%% *}" "${check#* }" "$l" > "$gi_t/grow13.log" 2>&1; then
		result 0 "inflate: $name13 ($("$trixie_bin/${check%% *}" -V 2>&1 | first_lines 1))"
	else
		diag < "$gi_t/grow13.log"; result 1 "inflate: $name13"
	fi
	gi_cleanup
	rm -f "$gi_t/dst-$fs.img" "$gi_t/src-$fs.img"
done

# MBR
name="MBR image: disk identifier, types and active flag carried"
bash tests/inflate-image.sh --layout dos --fs ext4 --fill none --size 600M "$gi_t/dos.img"
rc=0
"$gi" --quiet --size=8G "$gi_t/dos.img" "$gi_t/dos-out.img" > "$gi_t/out" 2>&1 || rc=$?
t1=$(sfdisk -d "$gi_t/dos.img" | grep -E '^label-id|img1|img2' | sed 's/^[^ ]*img/P/; s/size= *[0-9]*,//')
t2=$(sfdisk -d "$gi_t/dos-out.img" 2>/dev/null | grep -E '^label-id|img1|img2' | sed 's/^[^ ]*img/P/; s/size= *[0-9]*,//' || true)
end=$(sfdisk -d "$gi_t/dos-out.img" 2>/dev/null | sed -n 's/.*img2 : start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p' || true)
set -- $end 0 0
if [ $rc = 0 ] && [ "$t1" = "$t2" ] && [ $(($1 + $2)) = $((8 << 21)) ] && echo "$t2" | grep -q bootable; then
	result 0 "inflate: $name"
else
	{ cat "$gi_t/out"; echo "$t1"; echo "$t2"; echo "end: $end"; } | diag
	result 1 "inflate: $name"
fi
rm -f "$gi_t"/dos*.img

# A hinted block device target: a loop device whose queue shows hints (the kernel gives
# loop devices none); growth-inflate reads them as mkfs does.
name="bare XFS image onto a hinted block device (hints from sysfs through libblkid)"
bash tests/inflate-image.sh --layout bare --fs xfs --fill none --size 1G --label bare "$gi_t/bare.img"
truncate -s 64G "$gi_t/disk.img"
lo=$(losetup -f --show "$gi_t/disk.img")
gi_loops+=("$lo")
rc=0
gi_hinted "$lo" $g64 $t16 $g1 "$gi" "$gi_t/bare.img" "$lo" > "$gi_t/out" 2>&1 || rc=$?
agc=$(xfs_db -r -c 'sb 0' -c 'print agcount' "$lo" 2>/dev/null | sed 's/.* = //' || true)
src_id=$(blkid -p -o value -s UUID -s LABEL "$gi_t/bare.img" | tr '\n' ' ' || true)
dst_id=$(blkid -p -o value -s UUID -s LABEL "$lo" | tr '\n' ' ' || true)
gi_hinted "$lo" $g64 $t16 $g1 "$GROWTH_INFLATE_MKFS_XFS" -N -f "$lo" > "$gi_t/plain-N" 2>&1 || true
want=$(sed -n 's/.*agcount=\([0-9]*\),.*/\1/p' "$gi_t/plain-N")
if [ $rc = 0 ] && grep -q "growth hints min 64 GiB, max 16 TiB" "$gi_t/out" && [ "$src_id" = "$dst_id" ] &&
	[ -n "$agc" ] && [ "$agc" = "$want" ]; then
	result 0 "inflate: $name ($agc AGs, as the series' mkfs.xfs -N there)"
else
	{ cat "$gi_t/out"; echo "ids '$src_id' '$dst_id', AGs $agc, plain $want"; } | diag
	result 1 "inflate: $name"
fi

# The target mounted, then held open exclusively
name="a mounted target: status 4"
gi_mount "$lo" "$gi_t/m" ro,nouuid
gi_expect "$name" 4 "is mounted" -- "$gi_t/bare.img" "$lo"
umount "$gi_t/m"
name="a target held open exclusively: status 4"
python3 -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print("held", flush=True); time.sleep(30)' "$lo" > "$gi_t/held" &
holder=$!
for _ in $(seq 1 50); do grep -q held "$gi_t/held" 2>/dev/null && break; sleep 0.1; done
gi_expect "$name" 4 "is in use" -- "$gi_t/bare.img" "$lo"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
gi_cleanup
rm -f "$gi_t/disk.img"

# Sources that need repair: an XFS log left dirty (shutdown), an ext4 that recorded errors
name="a source that needs repair (XFS dirty log): status 3, nothing written"
l=$(losetup -f --show "$gi_t/bare.img")
gi_loops+=("$l")
gi_mount "$l" "$gi_t/m" rw
echo data > "$gi_t/m/file"
sync
echo more > "$gi_t/m/file2"
xfs_io -x -c shutdown "$gi_t/m"
umount "$gi_t/m"
gi_cleanup
gi_expect "$name" 3 "needs repair" -- --size=8G "$gi_t/bare.img" "$gi_t/t.img"
[ -e "$gi_t/t.img" ] && { echo "t.img was created" | diag; }
name="a source that needs repair (ext4 with errors): status 3, nothing written"
bash tests/inflate-image.sh --layout bare --fs ext4 --fill none --size 256M "$gi_t/bad-ext4.img"
debugfs -w -R "ssv state 2" "$gi_t/bad-ext4.img" > /dev/null 2>&1
gi_expect "$name" 3 "run e2fsck" -- --size=8G "$gi_t/bad-ext4.img" "$gi_t/t.img"
rm -f "$gi_t/bare.img" "$gi_t/bad-ext4.img" "$gi_t/t.img"

# Killed half way (GROWTH_INFLATE_TEST_KILL=copy: SIGKILL right after the first file is
# copied): no source identity anywhere on the target, and no loop device left behind.
name="a run killed half way leaves no source identity (interim table, temporary UUID)"
bash tests/inflate-image.sh --fs xfs --size 1G "$gi_t/src.img"
rc=0
# (through sh, which reports the kill into the log)
GROWTH_INFLATE_TEST_KILL=copy sh -c '"$@"; exit $?' sh "$gi" --size=8G "$gi_t/src.img" "$gi_t/killed.img" > "$gi_t/out" 2>&1 || rc=$?
sleep 1
table=$(sfdisk -d "$gi_t/killed.img" 2>&1 || true)
l=$(gi_loop "$gi_t/killed.img" $root_off)
uuid=$(blkid -p -o value -s UUID "$l" || true)
src_uuid=$(blkid -p -o value -s UUID "$(gi_loop "$gi_t/src.img" $root_off)" || true)
left=$(losetup -j "$gi_t/killed.img" | grep -v "$l" || true)
gi_cleanup
if [ $rc = 137 ] && echo "$table" | grep -q "growth-inflate incomplete" &&
	! echo "$table" | grep -qi -e 0B1D5A77 -e 11111111-2222 -e 4F68BCE3 -e C12A7328 &&
	[ -n "$uuid" ] && [ "$uuid" != "$src_uuid" ] && [ -z "$left" ]; then
	result 0 "inflate: $name"
else
	{ echo "status $rc; uuid $uuid (source $src_uuid); loops left: $left"; echo "$table"; cat "$gi_t/out"; } | diag
	result 1 "inflate: $name"
fi

# A target that holds the partitions before the last but not the root's used data (with the
# smallest filesystem its mkfs makes): refused before anything is written.
head -c 1M /dev/urandom > "$gi_t/keep.img"
truncate -s 200M "$gi_t/keep.img"
sum=$(sha256sum < "$gi_t/keep.img")
gi_expect "a target smaller than the root's used data: status 4, nothing written" 4 \
	"used data ([0-9]* inodes) of the last need" -- "$gi_t/src.img" "$gi_t/keep.img"
[ "$(sha256sum < "$gi_t/keep.img")" = "$sum" ] ||
	{ echo "the target changed" | diag; result 1 "inflate: the too small target was not written"; }
rm -f "$gi_t"/*.img
