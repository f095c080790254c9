#!/usr/bin/env bash
# Repository hygiene as KTAP: shellcheck, the patch series regenerate to the committed files,
# checkpatch on every series, no download URLs in scripts, no pipeline that ends early.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cd "$top"
tests=(shellcheck "kernel series regenerates" "qemu series regenerates" "util-linux series regenerates"
	"e2fsprogs series regenerates" "xfsprogs series regenerates" "libvirt series regenerates" "fstests series regenerates"
	"blktests series regenerates"
	"kernel checkpatch --strict" "qemu checkpatch" "util-linux checkpatch" "no URLs in scripts"
	"pipelines read all input" "scripts are executable" "a clone elsewhere finds the peer suites")
echo "KTAP version 1"
echo "1..${#tests[@]}"
n=0
result() { # result STATUS NAME [SKIP-REASON]; the diagnostics come before it
	n=$((n + 1))
	case "$1" in
	0) echo "ok $n $2" ;;
	skip) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2" ;;
	esac
}

# 1. shellcheck: every shell script of the project (guest scripts are busybox sh); the
# benchmarks' scripts are in tools/bench/ (their guest parts in tools/bench/guest/).
mapfile -t files < <(git ls-files -- 'scripts/*.sh' 'selftests/*.sh' 'selftests/**/*.sh' .ci/run \
	selftests/guest/lib/init selftests/guest/lib/uevent 'tools/bench/*.sh')
rc=0
shellcheck "${files[@]}" > "$top/build/shellcheck.log" 2>&1 || rc=$?
head -n 40 "$top/build/shellcheck.log" | diag
result $rc shellcheck

# 10 (run here, reported last). The Makefile runs scripts/*.sh and tools/bench/*.sh directly:
# each must be committed with its execute bit (a clone gets the mode from git, not from the
# developer's disk).  The guest's scripts get theirs in the initramfs.
notexec=$(git ls-files -s -- 'scripts/*.sh' ':(glob)tools/bench/*.sh' .ci/run |
	awk '$1 != "100755" { print $4 }')

# 2-7. The committed series and the tree under build/ are the same: export the tree into a
# clone of HEAD; nothing may change.  Without a tree (fresh checkout) the clone makes one
# from the base and the committed series first, so the series must also apply.  The
# developer's files are never touched.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gh-hygiene.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone -q --shared "$top" "$tmp/repo"
mkdir -p "$tmp/repo/build"
for what in kernel qemu util-linux e2fsprogs xfsprogs libvirt fstests blktests; do
	log="$tmp/$what.log"
	tree="$top/build/$what"
	# A peer suite's base may simply be missing (no peer tarball, no network): a skip.
	if [ ! -d "$tree/.git" ] && [ -s "$top/build/$what.missing" ]; then
		result skip "$what series regenerates" "$(cat "$top/build/$what.missing")"
		continue
	fi
	if [ -d "$tree/.git" ]; then
		ln -s "$tree" "$tmp/repo/build/$what"
		how="build/$what exported"
	else
		how="made from the base and exported"
	fi
	if (cd "$tmp/repo" && { [ -e "build/$what" ] || bash scripts/make-tree.sh "$what"; } &&
		bash scripts/export-series.sh "$what") >"$log" 2>&1 &&
		git -C "$tmp/repo" diff --exit-code --stat -- "$what/" >>"$log" 2>&1 &&
		[ -z "$(git -C "$tmp/repo" status --porcelain -- "$what/")" ]; then
		echo "$what: $how: no change" | diag
		result 0 "$what series regenerates"
	else
		tail -n 20 "$log" | diag
		git -C "$tmp/repo" status --porcelain -- "$what/" | diag
		if [ -d "$tree/.git/rebase-merge" ] || [ -d "$tree/.git/rebase-apply" ] ||
			! git -C "$tree" symbolic-ref -q HEAD >/dev/null 2>&1; then
			echo "build/$what is not on its branch (a rebase or bisect in progress?): finish that first" | diag
		else
			echo "build/$what and $what/patches differ: 'make $what-export' and commit, or 'make $what-tree'" | diag
		fi
		result 1 "$what series regenerates"
	fi
done

# 5-7. checkpatch of each series with the tree's own script; util-linux has none and follows
# the kernel's coding style (Documentation/howto-contribute.txt), so it gets the kernel's.
checkpatch() { # checkpatch WHAT NAME [--tree WHAT] [--filter CMD] OPTIONS...
	local what=$1 name=$2 tree="$tmp/repo/build/$1/" p filter=""
	shift 2
	if [ "${1:-}" = --tree ]; then
		tree="$tmp/repo/build/$2/"
		shift 2
	fi
	if [ "${1:-}" = --filter ]; then
		filter=$2
		shift 2
	fi
	local patches=()
	while read -r p; do
		case "$p" in "" | \#*) continue ;; esac
		patches+=("$top/$what/patches/$p")
	done < <(cat "$top/$what/series" 2>/dev/null || true)
	if [ ${#patches[@]} -eq 0 ]; then
		result skip "$name" "the $what series has no patches"
	elif [ ! -x "$tree/scripts/checkpatch.pl" ]; then
		result 1 "$name"
		echo "no $tree/scripts/checkpatch.pl (the tree could not be made)" | diag
	else
		local rc=0 filtered=()
		if [ -n "$filter" ]; then
			mkdir -p "$tmp/checkpatch-$what"
			for p in "${patches[@]}"; do
				"$filter" < "$p" > "$tmp/checkpatch-$what/${p##*/}"
				filtered+=("$tmp/checkpatch-$what/${p##*/}")
			done
			patches=("${filtered[@]}")
		fi
		(cd "$tree" && ./scripts/checkpatch.pl "$@" "${patches[@]}") >"$tmp/checkpatch-$what.log" 2>&1 || rc=$?
		{ grep -E 'ERROR|WARNING|CHECK|total:' "$tmp/checkpatch-$what.log" || true; } | first_lines 40 | diag
		result $rc "$name"
	fi
}
# util-linux: expected test outputs are program output (lsblk pads with blanks), not code.
ul_code_only() {
	awk '/^diff --git / { skip = ($3 ~ /^a\/tests\/expected\//) } !skip'
}
# Two kernel warnings say nothing about a patch here: FILE_PATH_CHANGES for new files under
# directories that MAINTAINERS already covers (block/, drivers/scsi/, drivers/nvme/host/), and
# UNKNOWN_COMMIT_ID for a Fixes: tag, since the base (a Debian source package) has no history.
# One --strict check contradicts a subsystem's own style: OPEN_ENDED_LINE, since fs/xfs
# writes a function definition's parameters one per line after the open parenthesis.
checkpatch kernel "kernel checkpatch --strict" --strict --terse --no-summary --show-types \
	--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID,OPEN_ENDED_LINE
checkpatch qemu "qemu checkpatch"
# Kernel-only rules off: MAINTAINERS, the execute bit of the tree's test scripts, and the
# 100-column limit (lsblk's column table is wider throughout).
checkpatch util-linux "util-linux checkpatch" --tree kernel --filter ul_code_only --no-tree --terse \
	--no-summary --show-types --ignore FILE_PATH_CHANGES,EXECUTE_PERMISSIONS --max-line-length=150

# 8. Bases come from apt by package name: no download URLs in scripts (the benchmarks' too),
# Makefile, CI.
urls=$(git grep -nE 'https?://' -- scripts 'tools/bench/*.sh' Makefile .ci 2>/dev/null || true)
if [ -n "$urls" ]; then
	echo "$urls" | diag
	result 1 "no URLs in scripts"
else
	result 0 "no URLs in scripts"
fi

# 9. No pipeline depends on a reader that stops early (SIGPIPE under pipefail fails at random).
rc=0
python3 scripts/check-pipes.py "${files[@]}" > "$tmp/pipes.log" 2>&1 || rc=$?
diag < "$tmp/pipes.log"
result $rc "pipelines read all input"

# 10. See above.
if [ -n "$notexec" ]; then
	# shellcheck disable=SC2086 # one name per word
	echo "committed without the execute bit (git update-index --chmod=+x):" $notexec | diag
	result 1 "scripts are executable"
else
	result 0 "scripts are executable"
fi

# 11. make check passes wherever the clone is: a clone outside the checkout's directory (the
# clone of HEAD above, under $TMPDIR) finds the peer suites' snapshots (../shared/peer) through
# the repository it was cloned from, so fstests and blktests run there too instead of skipping.
if [ -n "${PEER_DIR:-}" ] || ! bash "$top/scripts/fetch-peer.sh" --dir blktests >/dev/null; then
	result skip "a clone elsewhere finds the peer suites" "the checkout itself finds no blktests snapshot in a ../shared/peer"
elif out=$(GH_CACHE="$tmp/peer-cache" PEER_DIR='' bash "$tmp/repo/scripts/fetch-peer.sh" blktests 2>&1) &&
	git -C "$(printf '%s\n' "$out" | tail -n 1)" rev-parse -q --verify gh-base >/dev/null; then
	result 0 "a clone elsewhere finds the peer suites"
else
	printf '%s\n' "$out" | diag
	result 1 "a clone elsewhere finds the peer suites"
fi
