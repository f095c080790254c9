#!/usr/bin/env bash
# fstests with the userspace of the series: KTAP, one result per fstests case and
# configuration ("ok 3 xfs/202 [hinted]").
# test-fstests.sh [--full] [--group GROUP]... [--config NAME]... [--kernel IMAGE
#                 [--base-kernel IMAGE]] [TEST...]
#   (none)     the selection of make check (about 4 minutes)
#   --full     make check-peer: the XFS growfs group, xfs/202, the mkfs and repair cases of
#              the quick group and the ext4 resize group, with the series' new cases
#   --group    the cases of the filesystem's own directory in any of these fstests groups
#              (GROUP "quick+log": the cases in both)
#   --config   only these configurations (default: all of "configs" below)
#   --kernel   on this kernel (a bzImage with its modules in modules<suffix> beside it, as
#              scripts/build-kernel.sh writes them), in a guest under QEMU that boots it on the
#              host's root filesystem (selftests/guest/hostroot.sh), with two virtio disks as
#              the test and scratch devices, instead of on the host's kernel
#   --base-kernel  with --kernel: a case that fails runs again on this kernel (the unpatched
#              base, built the same way), and one that fails there too is not a new failure
#   TEST...    only these cases (xfs/202 ...), in every configuration of their filesystem
# fstests (build/fstests, the pinned base plus fstests/patches) runs from its build in
# $GH_CACHE/fstests (make fstests), on two loop devices over sparse files, on the host's
# kernel, as root, with the series' xfsprogs and e2fsprogs (build/out/xfsprogs,
# build/out/e2fsprogs) first in PATH.  A case that fails runs again with the unpatched bases
# (build/out/*-stock) and plain mkfs options: only a failure the bases do not share fails.
# Shared failures are listed with their reason in fstests/known-failures, which is checked to
# stay true (a listed case that passes now is a failure; on the host's kernel only, which is
# what the file describes) and small.
# Results and logs: build/results/fstests/<configuration>/ (fstests' RESULT_BASE).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Configurations: name | filesystem | MKFS_OPTIONS.
#   plain   the options fstests uses by default;
#   hinted  the layout plain mkfs makes on a disk whose hints say it may grow to 64 TiB.
configs=(
	"plain|xfs|"
	"hinted|xfs|-d growth_target=64t"
	"plain|ext4|"
	"hinted|ext4|-E growth_target=64T"
)
optional_configs=()
# make check: what the series changes most directly, within about 4 minutes (README.md);
# xfs/070 is the redundancy of the secondary superblocks (a bad one is outvoted).
curated_xfs=(xfs/202 xfs/070 xfs/841 xfs/842 xfs/843 xfs/015 xfs/606)
curated_ext4=(ext4/309 ext4/306)
# Per configuration run of ./check, seconds, before it counts as hung.
limit=${FSTESTS_TIMEOUT:-}
dev_size=16G
known="$top/fstests/known-failures"
known_max=15

full=0 only_configs=() only_tests=() groups=() kernel="" base_kernel="" guest_args=()
usage="test-fstests.sh [--full] [--group GROUP]... [--config NAME]... [--kernel IMAGE [--base-kernel IMAGE]] [TEST...]"
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?--kernel needs a kernel image}; shift 2; continue ;;
	--base-kernel) base_kernel=${2:?--base-kernel needs a kernel image}; shift 2; continue ;;
	esac
	guest_args+=("$1")
	case "$1" in
	--full) full=1; shift ;;
	--group) groups+=("${2:?--group needs a group}"); guest_args+=("$2"); shift 2 ;;
	--config) only_configs+=("${2:?--config needs a name}"); guest_args+=("$2"); shift 2 ;;
	-*) die "unknown option '$1' (usage: $usage)" ;;
	*) only_tests+=("$1"); shift ;;
	esac
done
[ -z "$base_kernel" ] || [ -n "$kernel" ] || die "--base-kernel goes with --kernel (usage: $usage)"
[ -n "$limit" ] || if [ $full = 1 ] || [ ${#groups[@]} -gt 0 ]; then limit=5400; else limit=600; fi

obj=$(cat "$top/build/fstests.obj" 2>/dev/null || true)
# FSTESTS_SERIES_BIN / FSTESTS_BASE_BIN (directories separated by ":") run other builds, an
# older version of a series for example.
IFS=: read -r -a series_bin <<< "${FSTESTS_SERIES_BIN:-$out/xfsprogs/sbin:$out/e2fsprogs/sbin}"
IFS=: read -r -a stock_bin <<< "${FSTESTS_BASE_BIN:-$out/xfsprogs-stock/sbin:$out/e2fsprogs-stock/sbin}"

# The cases of one filesystem for this run, sorted.
group_of() { # group_of FS GROUP...: the cases of FS in any of these groups (from the sources);
	# a GROUP "a+b" is the cases in both a and b
	local fs=$1 f g a line all
	shift
	for f in "$obj/tests/$fs"/[0-9]*; do
		case "${f##*/}" in *.*) continue ;; esac
		line=$(grep -m1 '^_begin_fstest' "$f" || true)
		for g in "$@"; do
			all=1
			for a in ${g//+/ }; do
				[[ " $line " == *" $a "* ]] || all=0
			done
			if [ $all = 1 ]; then
				echo "$fs/${f##*/}"
				break
			fi
		done
	done
}
quick_mkfs_repair() { # the XFS cases in the quick group and in mkfs or repair
	local t line
	for t in $(group_of xfs mkfs repair); do
		line=$(grep -m1 '^_begin_fstest' "$obj/tests/$t")
		[[ " $line " == *" quick "* ]] && echo "$t"
	done
	return 0
}
select_tests() { # select_tests FS: one case a line
	local fs=$1
	if [ ${#only_tests[@]} -gt 0 ]; then
		printf '%s\n' "${only_tests[@]}" | { grep "^$fs/" || true; }
	elif [ ${#groups[@]} -gt 0 ]; then
		group_of "$fs" "${groups[@]}"
	elif [ $full = 1 ] && [ "$fs" = xfs ]; then
		{ group_of xfs growfs; quick_mkfs_repair; echo xfs/202; } | sort -u
	elif [ $full = 1 ]; then
		group_of ext4 resize
	elif [ "$fs" = xfs ]; then
		printf '%s\n' "${curated_xfs[@]}" | sort
	else
		printf '%s\n' "${curated_ext4[@]}" | sort
	fi
}

# With --kernel: this script again, with the other arguments, in a guest on that kernel.
if [ -n "$kernel" ]; then
	# fstests_guest IMAGE OUTDIR ARGS...: one guest on IMAGE runs test-fstests.sh ARGS; its
	# KTAP in OUTDIR/fstests.tap; the exit status of run-vm.sh.
	fstests_guest() {
		local k=$1 o=$2 img modules vm st=0
		shift 2
		img=$(realpath -m "$k")
		modules="$(dirname "$img")/modules$(basename "$img" | sed 's/^bzImage//')"
		rm -rf "$o"
		mkdir -p "$o"
		vm=$(mktemp -d "$work/vm.XXXXXX")
		{
			printf 'GUEST=fstests-guest.sh\nMODULES=%q\nFSTESTS=%q\n' "$modules" "$obj"
			printf 'LIMIT=%q\n' "$limit"
			printf 'ARGS=(%s)\n' "$(printf '%q ' "$@")"
		} > "$o/job"
		bash "$top/scripts/run-vm.sh" --kernel "$img" --initrd "$initrd" --qemu "$qemu" \
			--dir "$vm" --timeout $((limit * ${#configs[@]} + 600)) --memory 2G --test hostroot --quiet \
			--append "gh.out=$o gh.top=$top scsi_debug.add_host=0" \
			--disk "virtio:size=$dev_size" --disk "virtio:size=$dev_size" \
			--qemu-arg -virtfs --qemu-arg "local,path=/,mount_tag=ghroot,security_model=none,readonly=on,multidevs=remap" \
			--qemu-arg -virtfs --qemu-arg "local,path=$o,mount_tag=ghout,security_model=none,multidevs=remap" \
			>/dev/null 2>"$o/run-vm.err" || st=$?
		cp "$vm/console.log" "$o/console.log" 2>/dev/null || true
		rm -rf "$vm"
		return $st
	}
	qemu="$out/qemu-system-x86_64" initrd=$(realpath -m "${GH_INITRD:-$out/initramfs.cpio.gz}")
	why=""
	if [ -s "$top/build/fstests.missing" ]; then
		why=$(cat "$top/build/fstests.missing")
	elif [ -z "$obj" ] || [ ! -x "$obj/check" ]; then
		why="fstests is not built (make fstests)"
	elif [ ! -r "$kernel" ] || [ ! -r "$initrd" ] || [ ! -x "$qemu" ]; then
		why="no kernel $kernel, or the initramfs or QEMU is not built (make initramfs qemu)"
	elif [ -n "$base_kernel" ] && [ ! -r "$base_kernel" ]; then
		why="no base kernel $base_kernel"
	elif ! "$qemu" -device help 2>/dev/null | matches '"virtio-9p-pci"'; then
		why="$qemu has no virtio-9p (make qemu: built with --enable-virtfs)"
	fi
	echo "KTAP version 1"
	if [ -n "$why" ]; then
		echo "1..1"
		result skip "fstests on $kernel" "$why"
		exit 0
	fi
	results="$top/build/results/fstests-kernel"
	rm -rf "$results"
	mkdir -p "$results"
	work=$(mktemp -d "${TMPDIR:-/tmp}/gh-fstests.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	rc=0
	fstests_guest "$kernel" "$results/series" "${guest_args[@]}" || rc=$?
	tap="$results/series/fstests.tap"
	if ! grep -q '^1\.\.' "$tap" 2>/dev/null; then
		echo "1..1"
		{
			echo "no results from the guest on $kernel (run-vm.sh status $rc); last console lines:"
			tr -d '\r' < "$results/series/console.log" 2>/dev/null | grep -v '^GH-DMESG' | tail -n 20 || true
			tail -n 5 "$results/series/fstests.err" 2>/dev/null || true
		} | diag
		result notok "fstests on $kernel" "no results"
		exit 0
	fi
	# A new failure on --kernel that fails on --base-kernel too is not the kernel's: the
	# same cases, in the same configurations, on the base.
	mapfile -t failed < <(sed -n 's/^not ok [0-9]* \([a-z0-9]*\/[0-9]*\) \[.*# new failure.*/\1/p' "$tap" | sort -u)
	declare -A on_base=()
	if [ -n "$base_kernel" ] && [ ${#failed[@]} -gt 0 ]; then
		base_args=()
		for c in "${only_configs[@]}"; do base_args+=(--config "$c"); done
		fstests_guest "$base_kernel" "$results/base" "${base_args[@]}" "${failed[@]}" || true
		while read -r st t cfg; do
			on_base["$t $cfg"]=$st
		done < <(sed -n -e 's/^ok [0-9]* \([^ ]*\) \(\[[^]]*\]\).*/ok \1 \2/p' \
			-e 's/^not ok [0-9]* \([^ ]*\) \(\[[^]]*\]\).*/notok \1 \2/p' "$results/base/fstests.tap" 2>/dev/null)
	fi
	while IFS= read -r line; do
		if [[ "$line" =~ ^not\ ok\ ([0-9]+)\ ([^ ]+)\ (\[[^]]*\])\ \#\ new\ failure ]] &&
			[ "${on_base["${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"]:-}" = notok ]; then
			echo "ok ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]} # SKIP fails on the base kernel too ($base_kernel)"
		elif [ "$line" != "KTAP version 1" ]; then
			echo "$line"
		fi
	done < "$tap"
	echo "on $kernel$([ -z "$base_kernel" ] || echo ", failures again on $base_kernel"); results: ${results#"$top"/}" | diag
	exit 0
fi

# The configurations of this run and their cases.
runs=() total=1
for c in "${configs[@]}" "${optional_configs[@]}"; do
	IFS='|' read -r name fs opts <<< "$c"
	if [ ${#only_configs[@]} -gt 0 ]; then
		[[ " ${only_configs[*]} " == *" $name "* ]] || continue
	elif [[ " ${optional_configs[*]} " == *" $c "* ]]; then
		continue
	fi
	runs+=("$c")
done

echo "KTAP version 1"

# Whatever is missing makes every case a skip, with the reason.
why=""
if [ -s "$top/build/fstests.missing" ]; then
	why=$(cat "$top/build/fstests.missing")
elif [ -z "$obj" ] || [ ! -x "$obj/check" ]; then
	why="fstests is not built (make fstests)"
elif [ "$(id -u)" != 0 ]; then
	why="fstests needs root (loop devices, mount)"
else
	# What fstests runs of xfsprogs and e2fsprogs, from each userspace.
	for p in mkfs.xfs xfs_repair xfs_db xfs_growfs xfs_io xfs_admin xfs_info xfs_spaceman \
		mke2fs e2fsck resize2fs tune2fs dumpe2fs debugfs; do
		found=0
		for d in "${series_bin[@]}"; do [ -x "$d/$p" ] && found=1; done
		[ $found = 1 ] || why="no $p of the series in ${series_bin[*]} (make xfsprogs e2fsprogs)"
		found=0
		for d in "${stock_bin[@]}"; do [ -x "$d/$p" ] && found=1; done
		[ $found = 1 ] || why="no $p of the bases in ${stock_bin[*]} (make mkfs-stock)"
	done
fi
if [ -n "$why" ]; then
	echo "1..${#runs[@]}"
	for c in "${runs[@]}"; do
		IFS='|' read -r name fs opts <<< "$c"
		result skip "$fs [$name]" "$why"
	done
	exit 0
fi

declare -A tests_of
for c in "${runs[@]}"; do
	IFS='|' read -r name fs opts <<< "$c"
	tests_of[$name-$fs]=$(select_tests "$fs")
	total=$((total + $(echo "${tests_of[$name-$fs]}" | grep -c . || true)))
done
echo "1..$total"
echo "kernel $(uname -r), fstests $(git -C "$top/build/fstests" describe --always --tags 2>/dev/null || echo '?')" |
	diag

# Loop devices over sparse files, in a directory others can traverse (fstests runs some
# commands as the fsgqa user).
work=$(mktemp -d "${TMPDIR:-/tmp}/gh-fstests.XXXXXX")
chmod 755 "$work"
loops=()
# FSTESTS_TEST_DEV and FSTESTS_SCRATCH_DEV: these devices instead (the guest's disks, with
# --kernel), whatever they hold.
test_dev=${FSTESTS_TEST_DEV:-} scratch_dev=${FSTESTS_SCRATCH_DEV:-}
cleanup() {
	local m l
	for m in "$work/scratch" "$work/test"; do
		if mountpoint -q "$m"; then
			# Only fstests' own processes (started here) can be using these mounts.
			fuser -km "$m" >/dev/null 2>&1 || true
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		fi
	done
	for l in "${loops[@]}"; do
		losetup -d "$l" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/test" "$work/scratch"
if [ -z "$test_dev" ] || [ -z "$scratch_dev" ]; then
	truncate -s "$dev_size" "$work/test.img" "$work/scratch.img"
	test_dev=$(losetup -f --show "$work/test.img")
	loops+=("$test_dev")
	scratch_dev=$(losetup -f --show "$work/scratch.img")
	loops+=("$scratch_dev")
fi

# fstests wants an fsgqa user for the cases that drop privileges.
if ! id fsgqa >/dev/null 2>&1; then
	useradd -m fsgqa >/dev/null 2>&1 || echo "could not create the fsgqa user" | diag
fi

# A PATH directory per userspace: the programs, fsck.ext* and mkfs.ext*, and mkfs and fsck
# wrappers (util-linux's mkfs and fsck look in /sbin before PATH, so fstests' "mkfs -t ext4"
# and "fsck -t ext4" would run Debian's mke2fs and e2fsck).
make_bin() { # make_bin DIR SBIN...
	local dir=$1 d f
	shift
	mkdir -p "$dir"
	for d in "$@"; do
		for f in "$d"/*; do
			ln -sf "$f" "$dir/${f##*/}"
		done
	done
	for f in ext2 ext3 ext4; do
		ln -sf mke2fs "$dir/mkfs.$f"
		ln -sf e2fsck "$dir/fsck.$f"
	done
	cat > "$dir/mkfs" <<-'EOF'
	#!/bin/sh
	# mkfs [-t TYPE] [--] ARGS: mkfs.TYPE from PATH
	type=ext2
	while [ $# -gt 0 ]; do
		case "$1" in
		-t) type=$2; shift 2 ;;
		-V) shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	exec "mkfs.$type" "$@"
	EOF
	sed 's/mkfs/fsck/g; s/type=ext2/type=ext4/' "$dir/mkfs" > "$dir/fsck"
	chmod +x "$dir/mkfs" "$dir/fsck"
}
make_bin "$work/bin-series" "${series_bin[@]}"
make_bin "$work/bin-stock" "${stock_bin[@]}"
# Both userspaces make ext4 with the e2fsprogs tree's own mke2fs.conf, as its package would.
if [ -f "$out/e2fsprogs/etc/mke2fs.conf" ]; then
	export MKE2FS_CONFIG="$out/e2fsprogs/etc/mke2fs.conf"
fi
echo "series: ${series_bin[*]}; bases: ${stock_bin[*]}" | diag

results="$top/build/results/fstests"
rm -rf "$results"
mkdir -p "$results"

# run_check NAME FS BIN MKFS_OPTIONS TEST...: ./check in fstests' build; prints lines
# "pass|fail|notrun|lost TEST [REASON]".
prepared_fs=""
run_check() {
	local name=$1 fs=$2 bin=$3 opts=$4 rb="$results/$1" cfg t
	shift 4
	mkdir -p "$rb"
	if [ "$prepared_fs" != "$fs" ]; then
		# The test filesystem, made once per filesystem type with the series' plain mkfs.
		if mountpoint -q "$work/test"; then umount "$work/test"; fi
		if [ "$fs" = xfs ]; then
			"$work/bin-series/mkfs.xfs" -f -q "$test_dev"
		else
			"$work/bin-series/mke2fs" -q -F -t ext4 "$test_dev"
		fi
		prepared_fs=$fs
	fi
	cfg="$rb/local.config"
	cat > "$cfg" <<-EOF
	export FSTYP=$fs
	export TEST_DEV=$test_dev
	export TEST_DIR=$work/test
	export SCRATCH_DEV=$scratch_dev
	export SCRATCH_MNT=$work/scratch
	export MKFS_OPTIONS="$opts"
	export RESULT_BASE=$rb
	# Debian's xfs_scrub (xfsprogs 6.1) is not the series': no online scrub.
	export XFS_SCRUB_PROG=""
	EOF
	local rc=0
	(cd "$obj" && PATH="$bin:$PATH" HOST_OPTIONS="$cfg" \
		timeout -k 30 "$limit" ./check "$@") > "$rb/check.out" 2>&1 || rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "./check timed out after $limit s" >> "$rb/check.out"
		for m in "$work/scratch" "$work/test"; do
			if mountpoint -q "$m"; then
				fuser -km "$m" >/dev/null 2>&1 || true
				umount "$m" 2>/dev/null || umount -l "$m" || true
			fi
		done
	fi
	local ran notrun failed
	ran=" $(sed -n 's/^Ran: //p' "$rb/check.out" | tail -n 1) "
	notrun=" $(sed -n 's/^Not run: //p' "$rb/check.out" | tail -n 1) "
	failed=" $(sed -n 's/^Failures: //p' "$rb/check.out" | tail -n 1) "
	for t in "$@"; do
		if [[ "$notrun" == *" $t "* ]]; then
			echo "notrun $t $(tr '\n' ' ' < "$rb/$t.notrun" 2>/dev/null)"
		elif [[ "$failed" == *" $t "* ]]; then
			echo "fail $t"
		elif [[ "$ran" == *" $t "* ]]; then
			echo "pass $t"
		else
			echo "lost $t"
		fi
	done
}

# Known failures: "TEST CONFIGS REASON" lines; CONFIGS is fs:name,... or *.
known_reason() { known_failure "$known" "$1" "$3:$2"; } # known_reason TEST NAME FS
declare -A base_result
known_passed=()
for c in "${runs[@]}"; do
	IFS='|' read -r name fs opts <<< "$c"
	mapfile -t list < <(echo "${tests_of[$name-$fs]}" | grep . || true)
	[ ${#list[@]} -gt 0 ] || continue
	t0=$SECONDS
	run_check "$fs-$name" "$fs" "$work/bin-series" "$opts" "${list[@]}" > "$work/res"
	echo "$fs [$name] MKFS_OPTIONS='$opts': ${#list[@]} cases in $((SECONDS - t0)) s" | diag
	# Failures run again with the bases, plain options (the bases know no growth target).
	mapfile -t bad < <(awk '$1 == "fail" { print $2 }' "$work/res")
	need=()
	for t in "${bad[@]}"; do
		[ -n "${base_result[$t]:-}" ] || need+=("$t")
	done
	if [ ${#need[@]} -gt 0 ]; then
		while read -r st t _; do
			base_result[$t]=$st
		done < <(run_check "$fs-$name-base" "$fs" "$work/bin-stock" "" "${need[@]}")
	fi
	while read -r st t reason; do
		label="$t [$name]"
		why=$(known_reason "$t" "$name" "$fs")
		case "$st" in
		pass)
			result ok "$label"
			# The file lists failures of the host's kernel; on a kernel of our own
			# (--kernel) a listed case may pass, and that says nothing about the file.
			[ -z "$why" ] || [ "${FSTESTS_OWN_KERNEL:-0}" = 1 ] || known_passed+=("$t $fs:$name")
			;;
		notrun)
			result skip "$label" "${reason:-not run}"
			;;
		lost)
			result notok "$label" "did not finish (./check timed out or stopped; see ${results#"$top"/}/$fs-$name/check.out)"
			;;
		fail)
			for f in "$results/$fs-$name/$t.out.bad" "$results/$fs-$name/$t.full"; do
				[ -f "$f" ] && echo "see ${f#"$top"/}"
			done | diag
			if [ -f "$results/$fs-$name/$t.out.bad" ]; then
				diff -u "$obj/tests/$t.out" "$results/$fs-$name/$t.out.bad" 2>/dev/null |
					first_lines 20 | diag || true
			fi
			case "${base_result[$t]:-}" in
			fail | lost)
				if [ -n "$why" ]; then
					result skip "$label" "known failure, the base fails too: $why"
				else
					echo "$t fails with the base too; list it in fstests/known-failures with the reason" | diag
					result skip "$label" "fails with the base too (not in fstests/known-failures)"
				fi
				;;
			*)
				result notok "$label" "new failure (the base: ${base_result[$t]:-not run})"
				;;
			esac
			;;
		esac
	done < "$work/res"
done

# The known-failures file stays true and small.
entries=$(grep -cvE '^(#|[[:space:]]*$)' "$known" 2>/dev/null || true)
if msg=$(known_failures_check "$known" "$known_max" "${known_passed[@]}"); then
	result ok "fstests/known-failures: ${entries:-0} entries, true and small"
else
	echo "$msg" | diag
	result notok "fstests/known-failures: ${entries:-0} entries, true and small"
fi
