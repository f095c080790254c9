#!/usr/bin/env bash
# Regenerate <what>/patches and <what>/series from the commits gh-base..series in
# build/<what>.  Output is stable: re-exporting an unchanged tree changes no file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:?usage: export-series.sh kernel|qemu|util-linux|e2fsprogs|xfsprogs|libvirt|fstests|blktests}
tree="$top/build/$what"
dir="$top/$what/patches"
[ -d "$tree/.git" ] || die "no tree at $tree: run 'make $what-tree' first"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes; commit them first"
count=$(git -C "$tree" rev-list --count gh-base..HEAD)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cover=()
# <what>/subject-prefix, if present, replaces "PATCH" (e.g. "RFC PATCH v2").
prefix=()
if [ -s "$top/$what/subject-prefix" ]; then
	prefix=(--subject-prefix="$(cat "$top/$what/subject-prefix")")
fi
if [ -f "$top/$what/cover-letter.txt" ] && [ "$count" -gt 0 ]; then
	git -C "$tree" config "branch.series.description" "$(cat "$top/$what/cover-letter.txt")"
	cover=(--cover-letter --cover-from-description=subject)
fi
git -C "$tree" -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
	-c diff.renames=true -c format.signOff=false format-patch -q --zero-commit \
	--no-signature --no-base --encode-email-headers --thread=shallow "${cover[@]}" "${prefix[@]}" \
	-o "$tmp" gh-base..HEAD >/dev/null
if [ -f "$tmp/0000-cover-letter.patch" ]; then
	# The cover letter is dated now; date it like the newest patch instead.
	d=$(git -C "$tree" log -1 --format=%aD HEAD)
	sed -i "s/^Date: .*/Date: $d/" "$tmp/0000-cover-letter.patch"
fi
# Message-Id/In-Reply-To differ per run; they belong to sending, not to the series.
sed -i '/^Message-ID: /d; /^Message-Id: /d; /^In-Reply-To: /d; /^References: /d' "$tmp"/*.patch 2>/dev/null || true

mkdir -p "$dir"
changed=0
for f in "$dir"/*.patch; do
	[ -e "$f" ] || continue
	[ -e "$tmp/${f##*/}" ] || { rm -f "$f"; changed=1; }
done
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || continue
	if ! cmp -s "$f" "$dir/${f##*/}"; then
		cp "$f" "$dir/${f##*/}"
		changed=1
	fi
done
for f in "$tmp"/*.patch; do
	[ -e "$f" ] && [ "${f##*/}" != 0000-cover-letter.patch ] && echo "${f##*/}"
done > "$tmp/series"
cmp -s "$tmp/series" "$top/$what/series" || { cp "$tmp/series" "$top/$what/series"; changed=1; }
if [ "$changed" = 1 ]; then
	info "$what: exported $count patch(es) to $what/patches"
else
	info "$what: series unchanged ($count patch(es))"
fi
