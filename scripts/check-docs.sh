#!/usr/bin/env bash
# Drift check: the numbers and names that Documentation/ states, compared with their
# sources of truth (the kernel and QEMU series, tools/).  Prints KTAP version 1, one
# result per fact; exits 1 if any fact differs or a source the series should have is
# missing.  A fact whose source belongs to a series that has no patches yet is skipped.
#
# GH_KERNEL_PATCHES / GH_QEMU_PATCHES / GH_UTIL_LINUX_PATCHES name other patch directories
# (for trying the check against a series that is not exported yet).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

doc="$top/Documentation"
spec="$doc/virtio/blk-growth.tex"
cover="$doc/virtio/cover-letter.txt"
t10="$doc/scsi/capacity-growth-vpd.md"
design="$doc/design.md"
guide="$doc/user-guide.md"
kpatches="${GH_KERNEL_PATCHES:-$top/kernel/patches}"
qpatches="${GH_QEMU_PATCHES:-$top/qemu/patches}"
upatches="${GH_UTIL_LINUX_PATCHES:-$top/util-linux/patches}"
uapi=include/uapi/linux/virtio_blk.h

for f in "$spec" "$cover" "$t10" "$design" "$guide"; do
	[ -f "$f" ] || die "$f is missing: it is one of the documents this check reads; restore it from git"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- KTAP bookkeeping -------------------------------------------------------
results=()
failed=0
pass() { results+=("ok $(( ${#results[@]} + 1 )) $1${2:+ # $2}"); }
fail() {
	results+=("not ok $(( ${#results[@]} + 1 )) $1 # $2")
	failed=1
}
skip() { results+=("ok $(( ${#results[@]} + 1 )) $1 # SKIP $2"); }
# expect NAME DOC_VALUE SOURCE_VALUE WHAT: compare one fact.
expect() {
	if [ -z "$2" ]; then
		fail "$1" "not found in the documentation ($4)"
	elif [ -z "$3" ]; then
		fail "$1" "source missing: $4"
	elif [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "documentation says '$2', source says '$3' ($4)"
	fi
}

# --- Sources ----------------------------------------------------------------
# Patch files of a series in series order.
series_patches() {
	local dir=$1 list name
	[ -d "$dir" ] || return 0
	list="$dir/../series"
	if [ -f "$list" ]; then
		while read -r name; do
			case "$name" in '' | '#'*) continue ;; esac
			if [ -f "$dir/$name" ]; then echo "$dir/$name"; fi
		done < "$list"
	fi
	# Patches the series file does not list (e.g. in GH_*_PATCHES), in name order.
	find "$dir" -maxdepth 1 -name '*.patch' ! -name '0000-cover-letter.patch' | sort |
		while read -r name; do
			grep -qxF "${name##*/}" "$list" 2>/dev/null || echo "$name"
		done
}
mapfile -t kseries < <(series_patches "$kpatches")
mapfile -t qseries < <(series_patches "$qpatches")
mapfile -t useries < <(series_patches "$upatches")

# added FILE-REGEX PATCH...: the lines the patches add to files matching FILE-REGEX,
# without the leading '+'.
added() {
	local re=$1
	shift
	[ $# -gt 0 ] || return 0
	awk -v re="$re" '
		/^diff --git / { file = ""; next }
		/^\+\+\+ / { file = $2; sub(/^b\//, "", file); next }
		file != "" && file ~ re && /^\+/ { print substr($0, 2) }' "$@"
}

# patched_header WHAT PATH PATCH...: PATH as the series WHAT (kernel|qemu) leaves it,
# printed as a file name.  The base copy comes from the tree (build/WHAT, tag gh-base),
# else make-tree.sh's cached base repository, else (kernel only) the base package that
# fetch-base.sh downloaded, else the system's header (usable only if the series applies
# to it).  On failure the reason is in $tmp/WHAT.err.
patched_header() {
	local what=$1 path=$2 dir="$tmp/$1-hdr" p repo deb copy base bases=()
	shift 2
	for repo in "$top/build/$what" "$GH_CACHE"/git/*; do
		case "$what:${repo##*/}" in kernel:qemu_* | qemu:linux-source-*) continue ;; esac
		if git -C "$repo" cat-file -e "gh-base:$path" 2>/dev/null; then
			bases+=("git:$repo")
		fi
	done
	if [ "$what" = kernel ]; then
		# Extract the header from the package once (~15 s) and keep it.
		for deb in "$GH_CACHE"/dl/linux-source-*.deb; do
			[ -f "$deb" ] || continue
			copy="$GH_CACHE/check-docs/$(basename "$deb" .deb).${path##*/}"
			if [ ! -s "$copy" ]; then
				mkdir -p "${copy%/*}"
				if dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
					xz -dc | tar -xO --wildcards "*/$path" > "$copy.tmp" 2>/dev/null; then
					mv "$copy.tmp" "$copy"
				else
					rm -f "$copy.tmp"
				fi
			fi
			if [ -s "$copy" ]; then bases+=("file:$copy"); fi
		done
		if [ -f "/usr/include/${path#include/uapi/}" ]; then bases+=("file:/usr/include/${path#include/uapi/}"); fi
	fi
	for base in "${bases[@]}"; do
		rm -rf "$dir"
		mkdir -p "$dir/${path%/*}"
		case "$base" in
		git:*) git -C "${base#git:}" show "gh-base:$path" > "$dir/$path" ;;
		file:*) cp "${base#file:}" "$dir/$path" ;;
		esac
		for p in "$@"; do
			grep -q "^+++ b/$path\$" "$p" || continue
			(cd "$dir" && git apply --include="$path" "$p") 2>/dev/null || continue 2
		done
		echo "$dir/$path"
		return 0
	done
	echo "no base copy of $path that the $what series applies to (tried: ${bases[*]:-none}); run 'make $what-tree'" > "$tmp/$what.err"
	return 1
}

# layout STRUCT FILE: "name offset size" for each member of a packed C struct (the uapi
# header) or of a virtio spec struct listing; nested members as outer.inner, and the
# nested struct itself as one entry.  Last line: "sizeof <size>".
layout() {
	sed -e 's://.*$::' "$2" | awk -v want="$1" '
		function size_of(t) {
			sub(/^u?int/, "u", t); sub(/_t$/, "", t)
			if (t ~ /^(__)?(virtio|le|be|u)8$/) return 1
			if (t ~ /^(__)?(virtio|le|be|u)16$/) return 2
			if (t ~ /^(__)?(virtio|le|be|u)32$/) return 4
			if (t ~ /^(__)?(virtio|le|be|u)64$/) return 8
			return -1
		}
		{
			line = $0
			# Block comments, also across lines.
			if (incomment) { if (sub(/^.*\*\//, "", line)) incomment = 0; else next }
			gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line)
			if (sub(/\/\*.*$/, "", line)) incomment = 1
		}
		!found && !done && line ~ ("struct[ \t]+" want "[ \t]*\\{") { found = 1; depth = 1; off = 0; next }
		!found { next }
		line ~ /^[ \t]*struct[ \t]+[A-Za-z0-9_]+[ \t]*\{/ { start[++depth] = off; next }
		line ~ /^[ \t]*\}/ {
			if (depth == 1) { print "sizeof", off; found = 0; done = 1; next }
			name = line
			sub(/^[ \t]*\}[ \t]*/, "", name); sub(/[ \t]*;.*$/, "", name)
			sub(/[ \t]*__attribute__.*$/, "", name)
			prefix[depth] = ""
			print name, start[depth], off - start[depth]
			depth--
			next
		}
		line ~ /;/ {
			n = split(line, w, /[ \t;]+/)
			t = ""; v = ""
			for (i = 1; i <= n; i++) if (w[i] != "") { if (t == "") t = w[i]; else if (v == "") v = w[i] }
			if (t == "" || v == "") next
			s = size_of(t)
			if (s < 0) { print "error unknown type " t > "/dev/stderr"; bad = 2; next }
			count = 1
			if (match(v, /\[[0-9]+\]/)) { count = substr(v, RSTART + 1, RLENGTH - 2); v = substr(v, 1, RSTART - 1) }
			print v, off, s * count
			off += s * count
		}
		END { exit bad }'
}

# --- 1. virtio-blk: spec text vs the uapi header of the kernel series ---------
virtio_fields=(min_capacity max_capacity capacity_increment)
hdr=""
if [ ${#kseries[@]} -eq 0 ]; then
	hdr_state="skip"
elif hdr=$(patched_header kernel "$uapi" "${kseries[@]}") && grep -q 'VIRTIO_BLK_F_GROWTH' "$hdr"; then
	hdr_state="ok"
elif [ -n "$hdr" ]; then
	hdr_state="missing"
	echo "the kernel series does not add VIRTIO_BLK_F_GROWTH to $uapi" > "$tmp/kernel.err"
else
	hdr_state="missing"
fi

layout virtio_blk_config "$spec" > "$tmp/spec.layout"
if [ "$hdr_state" = ok ]; then
	layout virtio_blk_config "$hdr" > "$tmp/hdr.layout"
	hbit=$(sed -nE 's/^#define[[:space:]]+VIRTIO_BLK_F_GROWTH[[:space:]]+([0-9]+).*/\1/p' "$hdr" | first_line)
	hsizeof=$(awk '$1 == "sizeof" { print $2 }' "$tmp/hdr.layout")
	hafter=$(awk 'f && $1 != "sizeof" { printf "%s%s", s, $1; s = " " } $1 == "zoned" { f = 1 }' "$tmp/hdr.layout")
fi
# vcheck NAME DOC_VALUE SOURCE_VALUE WHAT
vcheck() {
	case "$hdr_state" in
	skip) skip "$1" "kernel series not yet present" ;;
	missing)
		if [ -z "${uapi_reported:-}" ]; then
			fail "$1" "source missing: $(tr '\n' ' ' < "$tmp/kernel.err")"
			uapi_reported=${#results[@]}
		else
			fail "$1" "source missing: see test $uapi_reported"
		fi ;;
	*) expect "$@" ;;
	esac
}

sbit=$(sed -nE 's/^\\item\[VIRTIO_BLK_F_GROWTH \(([0-9]+)\)\].*/\1/p' "$spec" | first_line)
vcheck virtio_feature_bit_spec "$sbit" "${hbit:-}" "\\item[VIRTIO_BLK_F_GROWTH (N)] in ${spec#"$top"/} vs #define in $uapi"

for f in "$design" "$cover" "$guide"; do
	# Every "VIRTIO_BLK_F_GROWTH (N)" or "`VIRTIO_BLK_F_GROWTH` (N)" in prose.
	bits=$(grep -oE 'VIRTIO_BLK_F_GROWTH`? \([0-9]+\)' "$f" | grep -oE '[0-9]+' | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
	[ -n "$bits" ] || continue
	vcheck "virtio_feature_bit_${f##*/}" "$bits" "${hbit:-}" "VIRTIO_BLK_F_GROWTH (N) in ${f#"$top"/}"
done

safter=$(awk 'f && $1 != "sizeof" { printf "%s%s", s, $1; s = " " } $1 == "zoned" { f = 1 }' "$tmp/spec.layout")
vcheck virtio_fields_after_zoned "$safter" "${hafter:-}" "struct virtio_blk_config members after zoned"

for fld in "${virtio_fields[@]}"; do
	h=""
	[ "$hdr_state" = ok ] && h=$(awk -v n="$fld" '$1 == n { print $2 "/" $3 }' "$tmp/hdr.layout")
	s=$(awk -v n="$fld" '$1 == n { print $2 "/" $3 }' "$tmp/spec.layout")
	vcheck "virtio_listing_offset_$fld" "$s" "$h" "offset/size from the struct listing in ${spec#"$top"/}"
	t=$(sed -nE 's/^\\field\{'"$fld"'\} & ([0-9]+) & ([0-9]+) \\\\.*/\1\/\2/p' "$spec" | first_line)
	vcheck "virtio_table_offset_$fld" "$t" "$h" "offset/size from the offset table in ${spec#"$top"/}"
done

vcheck virtio_listing_sizeof "$(awk '$1 == "sizeof" { print $2 }' "$tmp/spec.layout")" "${hsizeof:-}" \
	"size of struct virtio_blk_config from the listing in ${spec#"$top"/}"
ssize=$(sed -nE 's/.*space of at least ([0-9]+) bytes.*/\1/p' "$spec" | first_line)
[ -n "$ssize" ] || ssize=$(tr '\n' ' ' < "$spec" | sed -nE 's/.*space of at least ([0-9]+) bytes.*/\1/p')
vcheck virtio_config_size_spec "$ssize" "${hsizeof:-}" "configuration space size in ${spec#"$top"/}"
dsize=$(tr '\n' ' ' < "$design" | grep -oE 'configuration space is [0-9]+ bytes' | grep -oE '[0-9]+' | first_line || true)
vcheck virtio_config_size_design "$dsize" "${hsizeof:-}" "configuration space size in ${design#"$top"/}"

# Offsets in prose: design.md names each field, the cover mail lists the three.
doffs=""
for fld in "${virtio_fields[@]}"; do
	o=$(tr '\n' ' ' < "$design" | grep -oE "\`$fld\` \((offset )?[0-9]+\)" | grep -oE '[0-9]+' | first_line || true)
	doffs+="${doffs:+ }${o:-?}"
done
coffs=$(tr '\n' ' ' < "$cover" | grep -oE 'offsets [0-9]+, [0-9]+ and [0-9]+' | grep -oE '[0-9]+' | tr '\n' ' ' | sed 's/ $//' || true)
hoffs=""
if [ "$hdr_state" = ok ]; then
	for fld in "${virtio_fields[@]}"; do
		hoffs+="${hoffs:+ }$(awk -v n="$fld" '$1 == n { print $2 }' "$tmp/hdr.layout")"
	done
fi
vcheck virtio_offsets_design "$doffs" "$hoffs" "field offsets named in ${design#"$top"/}"
vcheck virtio_offsets_cover_letter "$coffs" "$hoffs" "field offsets listed in ${cover#"$top"/}"

# The layout parser itself, against the C compiler's offsetof() on the real header.
if [ "$hdr_state" != ok ]; then
	vcheck virtio_layout_parser_matches_compiler "" "" ""
elif ! command -v "${CC:-cc}" >/dev/null; then
	skip virtio_layout_parser_matches_compiler "no C compiler (${CC:-cc}); install gcc"
else
	{
		printf '#include <stdio.h>\n#include <stddef.h>\n#include "%s"\nint main(void)\n{\n' "$hdr"
		for fld in "${virtio_fields[@]}"; do
			printf '\tprintf("%%zu ", offsetof(struct virtio_blk_config, %s));\n' "$fld"
		done
		printf '\tprintf("%%zu\\n", sizeof(struct virtio_blk_config));\n\treturn 0;\n}\n'
	} > "$tmp/off.c"
	if "${CC:-cc}" -o "$tmp/off" "$tmp/off.c" 2> "$tmp/cc.err"; then
		expect virtio_layout_parser_matches_compiler "$hoffs $hsizeof" "$("$tmp/off")" \
			"offsets and size from this script's parser vs offsetof()/sizeof()"
	else
		fail virtio_layout_parser_matches_compiler "the patched $uapi does not compile: $(head -n 3 "$tmp/cc.err" | tr '\n' ' ')"
	fi
fi

# QEMU's copy of the header (include/standard-headers) as its series leaves it: the
# same bit, offsets and size as the kernel's.
qhpath=include/standard-headers/linux/virtio_blk.h
if [ ${#qseries[@]} -eq 0 ]; then
	skip virtio_qemu_header_matches_kernel "qemu series not yet present"
elif [ "$hdr_state" != ok ]; then
	vcheck virtio_qemu_header_matches_kernel "" "" ""
elif ! qhdr=$(patched_header qemu "$qhpath" "${qseries[@]}"); then
	fail virtio_qemu_header_matches_kernel "source missing: $(tr '\n' ' ' < "$tmp/qemu.err")"
else
	layout virtio_blk_config "$qhdr" > "$tmp/qhdr.layout"
	summary() { # summary LAYOUT HEADER: "bit N name@offset/size... sizeof N"
		printf 'bit %s' "$(sed -nE 's/^#define[[:space:]]+VIRTIO_BLK_F_GROWTH[[:space:]]+([0-9]+).*/\1/p' "$2" | first_line)"
		for fld in "${virtio_fields[@]}"; do
			awk -v n="$fld" '$1 == n { printf " %s@%s/%s", $1, $2, $3 }' "$1"
		done
		awk '$1 == "sizeof" { printf " sizeof %s\n", $2 }' "$1"
	}
	expect virtio_qemu_header_matches_kernel "$(summary "$tmp/qhdr.layout" "$qhdr")" \
		"$(summary "$tmp/hdr.layout" "$hdr")" "QEMU's $qhpath (first) vs the kernel's $uapi"
fi

# --- 2. SCSI: the T10 proposal vs the kernel and QEMU series ------------------
# The layout table of the proposal: "NAME first last" for each multi-byte field (rows
# from "(MSB)" to "(LSB)"), and "PAGE_CODE <hex>" / "PAGE_LENGTH <hex>" from the
# values shown in the table.
t10_layout() {
	awk '
		/^```/ { inblock = !inblock; next }
		!inblock || !/^[|+]/ { next }
		{
			byte = ""
			if (match($0, /^\|[ \t]*[0-9]+[ \t]*\|/)) { byte = substr($0, RSTART + 1, RLENGTH - 2); gsub(/[ \t]/, "", byte) }
			if (byte != "" && index($0, "(MSB)")) { first = byte; next }
			if (byte != "" && index($0, "(LSB)")) { print name, first, byte; next }
			if (byte == "" && first != "" && /[A-Z]/) {
				name = $0; gsub(/[-+|]/, "", name); sub(/^[ \t]+/, "", name); sub(/[ \t]+$/, "", name)
				if (match(name, /\([0-9A-F]+h\)/)) { val = substr(name, RSTART + 1, RLENGTH - 3); sub(/[ \t]*\(.*$/, "", name) ; vals[name] = val }
				gsub(/ /, "_", name)
			}
			if (byte == "1" && match($0, /PAGE CODE \([0-9A-F]+h\)/)) {
				v = substr($0, RSTART, RLENGTH); sub(/^PAGE CODE \(/, "", v); sub(/h\)$/, "", v)
				print "PAGE_CODE", v
			}
		}
		END { if ("PAGE LENGTH" in vals) print "PAGE_LENGTH_VALUE", vals["PAGE LENGTH"] }' "$1"
}
t10_layout "$t10" > "$tmp/t10.layout"
tfield() { awk -v n="$1" '$1 == n { print $2 "-" $3 }' "$tmp/t10.layout"; }
hexnorm() {
	local v=${1#0[xX]}
	if [ -n "$v" ]; then printf '%02x\n' "$((16#$v))"; fi
}

# Summary table of the proposal ("| 4-11 | MINIMUM CAPACITY | 8 | ..."): must match the
# layout table (a check inside the document, needs no series).
for fld in MINIMUM_CAPACITY MAXIMUM_CAPACITY CAPACITY_GRANULARITY PAGE_LENGTH; do
	words=${fld//_/ }
	row=$(grep -E "^\| [0-9]+-[0-9]+ \| $words \| [0-9]+ \|" "$t10" | first_line || true)
	sum=$(echo "$row" | awk -F'|' '$2 != "" { gsub(/ /, "", $2); gsub(/ /, "", $4); split($2, r, "-"); print r[1] "-" r[2] ((r[2] - r[1] + 1 == $4) ? "" : " (length column " $4 ")") }')
	expect "scsi_summary_matches_layout_$fld" "$sum" "$(tfield "$fld")" "summary table vs layout table in ${t10#"$top"/}"
done

# The byte ranges, PAGE LENGTH and sense code design.md repeats, against table x and 4.3.
dtext=$(tr '\n' ' ' < "$design")
for fld in MINIMUM_CAPACITY MAXIMUM_CAPACITY CAPACITY_GRANULARITY; do
	d=$(echo "$dtext" | grep -oE "${fld//_/ } \((bytes )?[0-9]+-[0-9]+\)" | grep -oE '[0-9]+-[0-9]+' | first_line || true)
	expect "scsi_offset_${fld}_design" "$d" "$(tfield "$fld")" "byte range in ${design#"$top"/} vs table x"
done
d=$(echo "$dtext" | grep -oE 'PAGE LENGTH = [0-9A-F]+h' | grep -oE '[0-9A-F]+h' | tr -d h | first_line || true)
expect scsi_page_length_design "$d" "$(awk '$1 == "PAGE_LENGTH_VALUE" { print $2 }' "$tmp/t10.layout")" \
	"PAGE LENGTH in ${design#"$top"/} vs table x"
d=$(echo "$dtext" | grep -oE 'INQUIRY DATA HAS CHANGED \([0-9A-F]{2}h/[0-9A-F]{2}h\)' | grep -oE '[0-9A-F]{2}h/[0-9A-F]{2}h' |
	tr -d h | tr 'A-F' 'a-f' | first_line || true)
ua=$(tr '\n' ' ' < "$t10" | grep -oE 'INQUIRY DATA HAS CHANGED \(ASC [0-9A-F]{2}h, ASCQ [0-9A-F]{2}h\)' |
	grep -oE '[0-9A-F]{2}h' | tr -d 'h' | tr 'A-F' 'a-f' | paste -sd/ - || true)
expect scsi_unit_attention_design "$d" "$ua" "ASC/ASCQ in ${design#"$top"/} vs 4.3 of the proposal"

# Kernel: the page code is a #define whose name says "growth"; the fields are read with
# get_unaligned_be64() at byte offsets, named by the variable they are stored in; the
# shortest page accepted is the length the parser insists on.
kscsi="$tmp/kernel-scsi.added"
added '^(drivers/scsi/|include/scsi/)' "${kseries[@]}" > "$kscsi"
qscsi="$tmp/qemu-scsi.added"
added '^(hw/scsi/|include/hw/scsi/|scsi/|include/scsi/)' "${qseries[@]}" > "$qscsi"

# define_value FILE REGEX [EXCLUDE]: value of the first "#define NAME VALUE" whose NAME
# matches REGEX (and not EXCLUDE).
define_value() {
	sed -nE 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z0-9_]+)[[:space:]]+\(?(0[xX][0-9a-fA-F]+|[0-9]+)\)?.*/\1 \2/p' "$1" |
		awk -v re="$2" -v ex="${3:-^$}" '!d && toupper($1) ~ re && toupper($1) !~ ex { print $2; d = 1 }'
}
# be64_offsets FILE FUNCTIONS: "field first-last" for each 8-byte big-endian access by
# one of FUNCTIONS (a regex) at an offset that is a sum of constants, #defined names and
# "buflen", with field MINIMUM_CAPACITY, MAXIMUM_CAPACITY or CAPACITY_GRANULARITY from
# the words on the line; the first access per field counts.  buflen follows QEMU's VPD
# emulation: 4 (after the page header) at a "case 0x..:", then "buflen += N" / "= N".
be64_offsets() {
	awk -v fn="$2" '
		function eval_sum(e,    n, t, i, v, x) {
			gsub(/[ \t()]/, "", e)
			n = split(e, t, "+"); v = 0
			for (i = 1; i <= n; i++) {
				x = t[i]
				if (x in def) x = def[x]
				if (x == "buflen") x = bl
				if (x !~ /^[0-9]+$/) return ""
				v += x
			}
			return v
		}
		/^[ \t]*#[ \t]*define[ \t]+[A-Za-z0-9_]+[ \t]+[0-9]+/ { split($0, d, /[ \t]+/); n = (d[1] == "#define") ? 2 : 3; def[d[n]] = d[n + 1] }
		/case[ \t]+0[xX][0-9a-fA-F]+[ \t]*:/ { bl = 4 }
		/^[ \t]*buflen[ \t]*\+=[ \t]*[0-9]+/ { sub(/^[ \t]*buflen[ \t]*\+=[ \t]*/, ""); bl += $0 + 0; next }
		/^[ \t]*buflen[ \t]*=[ \t]*[0-9]+/ { sub(/^[ \t]*buflen[ \t]*=[ \t]*/, ""); bl = $0 + 0; next }
		$0 ~ ("(" fn ")[ \t]*\\(") {
			l = $0; e = ""
			if (match(l, /\[[^]]+\]/)) e = substr(l, RSTART + 1, RLENGTH - 2)
			else if (match(l, /\([ \t]*[a-z_]+[ \t]*\+[^,)]+/)) { e = substr(l, RSTART + 1, RLENGTH - 1); sub(/^[ \t]*[a-z_]+[ \t]*\+/, "", e) }
			else if (match(l, /\([ \t]*[a-z_]+[ \t]*[,)]/)) e = "0"
			if (e == "") next
			o = eval_sum(e)
			if (o == "") next
			u = toupper(l); f = ""
			if (u ~ /MIN/) f = "MINIMUM_CAPACITY"
			else if (u ~ /MAX/) f = "MAXIMUM_CAPACITY"
			else if (u ~ /INC|GRAN|STEP/) f = "CAPACITY_GRANULARITY"
			if (f != "" && !(f in seen)) { seen[f] = 1; nseen++; print f, o "-" o + 7 }
		}
		# QEMU style: the PAGE LENGTH is what buflen grew by in the case of the page.
		/^[ \t]*break;/ && nseen && !lenout && bl { lenout = 1; print "PAGE_LENGTH", bl - 4 }' "$1"
}
be64_offsets "$kscsi" 'get_unaligned_be64' > "$tmp/kernel.offsets"
be64_offsets "$qscsi" 'stq_be_p|stq_p' > "$tmp/qemu.offsets"

# scheck SERIES NAME DOC_VALUE SOURCE_VALUE WHAT
scheck() {
	local what=$1 n
	shift
	if [ "$what" = kernel ]; then n=${#kseries[@]}; else n=${#qseries[@]}; fi
	if [ "$n" -eq 0 ]; then
		skip "$1" "$what series not yet present"
	else
		expect "$1" "$2" "$3" "$4 in the $what series"
	fi
}

tcode=$(awk '$1 == "PAGE_CODE" { print $2 }' "$tmp/t10.layout")
kcode=$(define_value "$kscsi" 'GROWTH' '(LEN|SIZE|OFF|MIN|MAX|INC|GRAN)')
[ -n "$kcode" ] || kcode=$(grep -E -i 'growth' "$kscsi" | grep -oE '0[xX][bB][0-9a-fA-F]' | first_line || true)
scheck kernel scsi_page_code_kernel "$(hexnorm "$tcode")" "$(hexnorm "$kcode")" "PAGE CODE in table x vs the growth page #define"
qcode=$(define_value "$qscsi" 'GROWTH' '(LEN|SIZE|OFF|MIN|MAX|INC|GRAN)')
[ -n "$qcode" ] || qcode=$(grep -E -i 'case[[:space:]]+0[xX][0-9a-fA-F]+:.*growth' "$qscsi" | grep -oE '0[xX][0-9a-fA-F]+' | first_line || true)
[ -n "$qcode" ] || qcode=$(grep -E 'case[[:space:]]+0[xX][bB][0-9a-fA-F][[:space:]]*:' "$qscsi" | grep -oE '0[xX][0-9a-fA-F]+' | first_line || true)
scheck qemu scsi_page_code_qemu "$(hexnorm "$tcode")" "$(hexnorm "$qcode")" "PAGE CODE in table x vs the VPD page the device emulates"

# QEMU lists the page in the Supported VPD Pages page (a byte appended in page 0x00).
qlisted=$(grep -E 'outbuf\[buflen\+\+\][[:space:]]*=[[:space:]]*0[xX][0-9a-fA-F]+' "$qscsi" | grep -i 'growth' |
	grep -oE '0[xX][0-9a-fA-F]+' | first_line || true)
scheck qemu scsi_page_listed_qemu "$(hexnorm "$tcode")" "$(hexnorm "$qlisted")" "PAGE CODE in table x vs the code QEMU lists in page 00h"

# The page code named in the prose of every document.
for f in "$t10" "$design" "$guide"; do
	codes=$(grep -oE '(page code|uses) \**[0-9A-F]{2}h' "$f" | grep -oE '[0-9A-F]{2}h' | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
	[ -n "$codes" ] || continue
	expect "scsi_page_code_named_in_${f##*/}" "$codes" "${tcode}h" "page code in the prose of ${f#"$top"/} vs table x"
done

for fld in MINIMUM_CAPACITY MAXIMUM_CAPACITY CAPACITY_GRANULARITY; do
	scheck kernel "scsi_offset_${fld}_kernel" "$(tfield "$fld")" \
		"$(awk -v n="$fld" '$1 == n { print $2 }' "$tmp/kernel.offsets")" "byte range in table x vs the 8-byte load"
	scheck qemu "scsi_offset_${fld}_qemu" "$(tfield "$fld")" \
		"$(awk -v n="$fld" '$1 == n { print $2 }' "$tmp/qemu.offsets")" "byte range in table x vs the 8-byte store"
done

# PAGE LENGTH: the value in table x vs the kernel's #define (the shortest it accepts).
tlen=$(awk '$1 == "PAGE_LENGTH_VALUE" { print $2 }' "$tmp/t10.layout")
[ -n "$tlen" ] && tlen=$(( 16#$tlen ))
klen=$(define_value "$kscsi" 'GROWTH.*(LEN|SIZE)')
[ -n "$klen" ] && klen=$((klen))
scheck kernel scsi_page_length_kernel "$tlen" "$klen" "PAGE LENGTH in table x vs the growth page length #define"
scheck qemu scsi_page_length_qemu "$tlen" "$(awk '$1 == "PAGE_LENGTH" { print $2 }' "$tmp/qemu.offsets")" \
	"PAGE LENGTH in table x vs the bytes QEMU appends after the header"

# The unit attention on change: ASC/ASCQ in the proposal vs what virtio_scsi rescans on
# (kernel) and the sense code QEMU raises.
kua=$(added '^drivers/scsi/virtio_scsi\.c$' "${kseries[@]}" |
	grep -oE 'asc == 0x[0-9a-fA-F]{2} && ascq == 0x[0-9a-fA-F]{2}' |
	sed -E 's/asc == 0x(..) && ascq == 0x(..)/\1\/\2/' | tr 'A-F' 'a-f' | grep -xF -- "${ua:-none}" | first_line || true)
scheck kernel scsi_unit_attention_kernel "$ua" "$kua" "ASC/ASCQ in 4.3 vs a pair virtio_scsi newly rescans on"
qua=$(awk '
	tolower($0) ~ /inquiry/ { near = 4 }
	near > 0 && match($0, /\.asc[ \t]*=[ \t]*0x[0-9a-fA-F]+,[ \t]*\.ascq[ \t]*=[ \t]*0x[0-9a-fA-F]+/) {
		v = substr($0, RSTART, RLENGTH); gsub(/[^0-9a-fA-Fx,]/, "", v); gsub(/0x/, "", v); sub(/^[^,]*a/, "", v)
		split(substr($0, RSTART, RLENGTH), p, /0x/); print tolower(substr(p[2], 1, 2) "/" substr(p[3], 1, 2)); exit
	}
	{ near-- }' "$qscsi")
scheck qemu scsi_unit_attention_qemu "$ua" "$qua" "ASC/ASCQ in 4.3 vs the inquiry-data-changed sense code"

# --- 3. sysfs names: the ABI text of the kernel series vs the guides -----------
abi="$tmp/abi.added"
added '^Documentation/ABI/' "${kseries[@]}" > "$abi"
mapfile -t abinames < <(sed -nE 's|^What:[[:space:]]+/sys/block/<disk>/queue/([a-z_]*growth[a-z_]*)$|\1|p' "$abi" | sort -u)
ksysfs="$tmp/blk-sysfs.added"
added '^block/blk-sysfs\.c$' "${kseries[@]}" > "$ksysfs"
if [ ${#kseries[@]} -eq 0 ]; then
	skip sysfs_names_in_abi "kernel series not yet present"
elif [ ${#abinames[@]} -eq 0 ]; then
	fail sysfs_names_in_abi "source missing: no queue/*growth* What: entry in the series' Documentation/ABI"
else
	expect sysfs_names_in_abi "3" "${#abinames[@]}" "number of growth attributes in the ABI text: ${abinames[*]}"
	for n in "${abinames[@]}"; do
		for f in "$design" "$guide"; do
			if grep -q "$n" "$f"; then pass "sysfs_${n}_named_in_${f##*/}"
			else fail "sysfs_${n}_named_in_${f##*/}" "${f#"$top"/} does not mention $n from the ABI"; fi
		done
		if grep -q "\"$n\"" "$ksysfs"; then pass "sysfs_${n}_is_a_queue_attribute"
		else fail "sysfs_${n}_is_a_queue_attribute" "source missing: no \"$n\" attribute added to block/blk-sysfs.c"; fi
	done
fi
# Every growth attribute name the documents use must be in the ABI (catches typos); the
# libblkid getters (blkid_topology_get_*) must be symbols the util-linux series exports.
mapfile -t usyms < <(added '^libblkid/src/libblkid\.sym$' "${useries[@]}" |
	sed -nE 's/^[[:space:]]+(blkid_[a-z_]+);$/\1/p' | sort -u)
for f in "$design" "$guide"; do
	used=$(grep -oE '\bblkid_topology_get_[a-z_]*grow[a-z_]*\b' "$f" | sort -u || true)
	[ -n "$used" ] || continue
	name="libblkid_getters_used_in_${f##*/}_exist"
	if [ ${#useries[@]} -eq 0 ]; then skip "$name" "util-linux series not yet present"; continue; fi
	unknown=$(comm -23 <(echo "$used") <(printf '%s\n' "${usyms[@]}") | tr '\n' ' ')
	if [ -z "$unknown" ]; then pass "$name"
	else fail "$name" "not in libblkid.sym of the util-linux series: $unknown"; fi
done
for f in "$design" "$guide" "$t10" "$cover"; do
	used=$(grep -oE '\b[a-z_]*grow[a-z_]*_bytes?\b' "$f" | grep -v '^blkid_topology_get_' | sort -u || true)
	[ -n "$used" ] || continue
	name="sysfs_names_used_in_${f##*/}_exist"
	if [ ${#kseries[@]} -eq 0 ]; then skip "$name" "kernel series not yet present"; continue; fi
	unknown=$(comm -23 <(echo "$used") <(printf '%s\n' "${abinames[@]}") | tr '\n' ' ')
	if [ -z "$unknown" ]; then pass "$name"
	else fail "$name" "not in the ABI text of the kernel series: $unknown"; fi
done

# --- 4. uevent, KUnit: the kernel series vs the guides --------------------------
kall="$tmp/kernel.added"
added '.' "${kseries[@]}" > "$kall"
for f in "$design" "$guide"; do
	d=$(grep -oE 'GROWTH_HINTS=[0-9]+' "$f" | sort -u | first_line || true)
	k=$(grep -oE '"GROWTH_HINTS=[0-9]+"' "$kall" | tr -d '"' | first_line || true)
	scheck kernel "uevent_key_${f##*/}" "$d" "$k" "uevent environment in ${f#"$top"/} vs kobject_uevent_env()"
done
mapfile -t kopts < <(grep -oE 'CONFIG_[A-Z0-9_]*KUNIT[A-Z0-9_]*' "$guide" | sort -u)
for o in "${kopts[@]}"; do
	k=$(grep -oE "^config ${o#CONFIG_}\$" "$kall" | sed 's/^config /CONFIG_/' || true)
	scheck kernel "kunit_option_$o" "$o" "$k" "KUnit option in ${guide#"$top"/} vs Kconfig"
done
mapfile -t ksuites < <(grep -A3 -E 'static struct kunit_suite' "$kall" | sed -nE 's/.*\.name[[:space:]]*=[[:space:]]*"([^"]+)".*/\1/p' | sort -u)
# shellcheck disable=SC2016 # backquotes are Markdown, not shell
mapfile -t dsuites < <(sed -nE 's/^\| `([a-z0-9_]+)` \| `CONFIG_.*/\1/p' "$guide" | sort -u)
for d in "${dsuites[@]}"; do
	k=$(printf '%s\n' "${ksuites[@]}" | grep -xF -- "$d" || true)
	scheck kernel "kunit_suite_$d" "$d" "$k" "KUnit suite in ${guide#"$top"/} vs the kunit_suite definitions"
done

# scsi_debug parameters named in the guide: growth_* on a modprobe line or in backquotes
# (the sysfs *_bytes names are checked above).
# shellcheck disable=SC2016 # backquotes are Markdown, not shell
mapfile -t dparams < <({ grep -E '^modprobe scsi_debug' "$guide" | grep -oE '\bgrowth_[a-z_]+='
	grep -oE '`growth_[a-z_]+`' "$guide"; } | tr -d '`=' | grep -v '_bytes$' | sort -u)
for d in "${dparams[@]}"; do
	k=$(grep -oE "module_param_named\($d," "$kall" | first_line | sed -E 's/.*\(//; s/,$//' || true)
	scheck kernel "scsi_debug_parameter_$d" "$d" "$k" "scsi_debug parameter in ${guide#"$top"/} vs module_param_named()"
done

# --- 5. QEMU property names: the QEMU series vs the guides ----------------------
qall="$tmp/qemu.added"
added '.' "${qseries[@]}" > "$qall"
mapfile -t qprops < <(grep -oE 'DEFINE_PROP_SIZE\("[a-z-]*growth[a-z-]*"' "$qall" | sed -E 's/.*\("//; s/"$//' | sort -u)
for p in min-growth max-growth growth-increment; do
	name="qemu_property_$p"
	if [ ${#qseries[@]} -eq 0 ]; then skip "$name" "qemu series not yet present"; continue; fi
	if ! printf '%s\n' "${qprops[@]}" | matches -xF -- "$p"; then
		fail "$name" "source missing: no DEFINE_PROP_SIZE(\"$p\", ...) in the qemu series"
	elif ! grep -qF -- "$p=" "$guide"; then
		fail "$name" "${guide#"$top"/} shows no command line with $p="
	else
		pass "$name"
	fi
done
for f in "$design" "$guide"; do
	# shellcheck disable=SC2016 # backquotes are Markdown, not shell
	used=$(grep -oE '(,|`)(min|max)-growth(=|`)|(,|`)growth-[a-z]+(=|`)' "$f" | tr -d ',`=' | grep -vx 'growth-mkfs' | sort -u || true)
	[ -n "$used" ] || continue
	name="qemu_properties_used_in_${f##*/}_exist"
	if [ ${#qseries[@]} -eq 0 ]; then skip "$name" "qemu series not yet present"; continue; fi
	unknown=$(comm -23 <(echo "$used") <(printf '%s\n' "${qprops[@]}") | tr '\n' ' ')
	if [ -z "$unknown" ]; then pass "$name"
	else fail "$name" "no such property in the qemu series: $unknown"; fi
done

# --- 6. growth-mkfs subcommands: tools/ vs the user guide -----------------------
mapfile -t tsrc < <(grep -l -s -e 'mkfs-args' "$top"/tools/*.c "$top"/tools/*/*.c | sort)
mapfile -t subs < <(sed -nE 's/^growth-mkfs ([a-z-]+) .*/\1/p' "$guide" | sort -u)
for s in "${subs[@]}"; do
	name="growth_mkfs_subcommand_$s"
	if [ ${#tsrc[@]} -eq 0 ]; then skip "$name" "growth-mkfs not yet present in tools/"; continue; fi
	if grep -qF "\"$s\"" "${tsrc[@]}"; then pass "$name"
	else fail "$name" "${guide#"$top"/} documents 'growth-mkfs $s' but the growth-mkfs source has no \"$s\""; fi
done

# Options and environment variables of growth-mkfs named in its section of the guide.
# shellcheck disable=SC2016 # backquotes are Markdown, not shell
mapfile -t topts < <(awk '/^### 2.4 /, /^## 3\./' "$guide" | grep -oE '`(--[a-z-]+|GROWTH_[A-Z0-9_]+)' | tr -d '`' | sort -u)
for o in "${topts[@]}"; do
	name="growth_mkfs_option_$o"
	if [ ${#tsrc[@]} -eq 0 ]; then skip "$name" "growth-mkfs not yet present in tools/"; continue; fi
	# "--opt..." in a usage or strcmp, or "opt" in a getopt_long table; env vars quoted.
	if grep -qE -- "\"(${o}|${o#--}\")" "$top"/tools/*.c; then pass "$name"
	else fail "$name" "${guide#"$top"/} names $o but no tools/*.c source has it"; fi
done

# --- 7. make check: the suites and scenarios the user guide lists -------------------
# shellcheck disable=SC2016 # backquotes are Markdown, not shell
mapfile -t dsuites < <(awk '/^\| Suite \| Command/, /^$/' "$guide" | sed -nE 's/^\| `([a-z-]+)` \|.*/\1/p' | sort -u)
# The suites of scripts/check.sh ("name|script|command") whose script exists.
mapfile -t csuites < <(sed -nE 's/^[[:space:]]*"([a-z-]+)\|([^|]*)\|.*"$/\1 \2/p' "$top/scripts/check.sh" 2>/dev/null |
	while read -r n sc; do
		case "$n" in *-sanitize) continue ;; esac
		if [ -e "$top/$sc" ]; then echo "$n"; fi
	done | sort -u)
if [ ${#csuites[@]} -eq 0 ]; then
	skip make_check_suites_documented "scripts/check.sh not yet present"
else
	expect make_check_suites_documented "${dsuites[*]}" "${csuites[*]}" \
		"suite table in ${guide#"$top"/} vs the suites of scripts/check.sh that exist"
fi
# shellcheck disable=SC2016
mapfile -t dscen < <(awk '/^\| Scenario \| What/, /^$/' "$guide" | sed -nE 's/^\| `([a-z-]+)` \|.*/\1/p' | sort -u)
mapfile -t sscen < <(find "$top/selftests/scenarios" -maxdepth 1 -name '*.sh' -printf '%f\n' 2>/dev/null | sed 's/\.sh$//' | sort -u)
if [ ${#sscen[@]} -eq 0 ]; then
	skip scenarios_documented "selftests/scenarios not yet present"
else
	expect scenarios_documented "${dscen[*]}" "${sscen[*]}" "scenario table in ${guide#"$top"/} vs selftests/scenarios/*.sh"
fi

# --- Report ---------------------------------------------------------------------
echo "KTAP version 1"
echo "1..${#results[@]}"
printf '%s\n' "${results[@]}"
if [ "$failed" -ne 0 ]; then
	echo "# documentation and sources disagree: fix whichever side is wrong (see the lines above)" >&2
	exit 1
fi
