#!/usr/bin/env bash
# Apply the virtio specification patch of Documentation/virtio/ to a checkout of the
# specification source and build its PDF and HTML with the specification's own scripts.
# build-virtio-spec.sh SPEC-CHECKOUT
#   SPEC-CHECKOUT  a git checkout of the OASIS virtio-spec repository (see
#                  Documentation/virtio/README.md); it is cloned, not changed.
# Output: build/virtio-spec/<revision>.pdf and .html; the LaTeX logs in build/virtio-spec.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=${1:?usage: build-virtio-spec.sh SPEC-CHECKOUT}
if [ ! -f "$src/device-types/blk/description.tex" ] || [ ! -x "$src/makepdf.sh" ]; then
	die "$src is not a checkout of the virtio specification source (see Documentation/virtio/README.md)"
fi
missing=()
for tool in xelatex htlatex; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] || die "${missing[*]} missing: install the Debian packages texlive-xetex" \
	"texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-plain-generic fonts-liberation"

mapfile -t patches < <(find "$top/Documentation/virtio" -maxdepth 1 -name '0*.patch' | sort)
[ ${#patches[@]} -gt 0 ] || die "no patch in Documentation/virtio"
dir="$top/build/virtio-spec"
log="$top/build/virtio-spec.log"
rm -rf "$dir"
mkdir -p "$top/build"
git clone -q "$src" "$dir"
git -C "$dir" -c user.name="Growth Hints Project" -c user.email=devel@growth-hints.invalid \
	am -q "${patches[@]}" || die "the patch does not apply to $src at $(git -C "$src" log -1 --format='%h %s')"
info "applied to $(git -C "$src" log -1 --format='%h (%cs) %s')"

# Three xelatex passes and htlatex take a core for minutes: one build at a time per machine.
build_lock
rev=$(cat "$dir/REVISION")
# makehtml.sh overwrites the LaTeX log of makepdf.sh: keep it as <revision>-pdf.log.
(cd "$dir" && ./makepdf.sh && cp "$rev.log" "$rev-pdf.log" && ./makehtml.sh) > "$log" 2>&1 < /dev/null ||
	die "the specification build failed; see $log"
if [ ! -s "$dir/$rev.pdf" ] || [ ! -s "$dir/$rev.html" ]; then
	die "no $rev.pdf or $rev.html; see $log"
fi
# The last xelatex pass must resolve every reference (the new conformance entries included).
if grep -E "There were undefined references|Reference .* undefined" "$dir/$rev-pdf.log"; then
	die "undefined references in the PDF build; see $dir/$rev-pdf.log"
fi
info "built $dir/$rev.pdf and $dir/$rev.html"
