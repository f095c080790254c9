#!/usr/bin/env bash
# blktests on the series' kernel: KTAP, one result per blktests test ("ok 3 scsi/012").
# test-blktests.sh [--full] [--debian-kernel] [TEST...]
#   (none)           the selection of make check: the tests of the blktests series and the
#                    existing tests that read queue attributes or revalidate a disk
#   --full           make check-peer: the groups the series can affect (block, scsi, loop, dm,
#                    md, nvme with the loop transport) whole, the series' tests included,
#                    but for the few in $slow (reported as skips, with the reason)
#   --debian-kernel  Debian's kernel (selftests/lib/debian-kernel.sh), which has no growth
#                    hints, instead of build/out/bzImage: the series' tests must say so
#   TEST...          only these tests or groups (scsi/012 nvme ...)
# blktests (build/blktests: the pinned base and blktests/patches, built by make blktests) runs
# in one guest under QEMU (TCG) that boots the kernel on the host's root filesystem, read-only
# over virtio-9p under a tmpfs overlay (selftests/guest/hostroot.sh), so that blktests uses the
# host's bash, fio, util-linux, sg3-utils, nvme-cli, dmsetup and mdadm; the kernel's modules
# come from build/out/modules.  The guest's QEMU disks (virtio-blk, scsi-hd and NVMe, each with
# growth hints) are blktests' TEST_DEVS.
# A failing test fails the suite unless blktests/known-failures lists it (failures the
# unpatched base kernel shares, with the reason) or it fails on the base kernel too: failures
# not listed run again in a second guest on the unpatched base kernel (build/kernel at gh-base,
# the same configuration; built once in build/base, about 20 minutes for the debug build;
# GH_BLKTESTS_BASE_RERUN=0 turns that off), and one that fails there too is reported as a skip
# to be listed.  The file is checked to stay true (a listed test that passes now is a failure)
# and small.  A test of the series that skips because the kernel lacks the growth hints fails:
# the series' kernel has them.
# Results and logs: build/results/blktests/ (check.log, results/, dmesg.log, console.log).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# make check: the series' tests, and existing tests that revalidate a disk or change its
# capacity (README.md, "Peer suites", for how long they take).
curated=(block/048 scsi/012 scsi/013 scsi/014 dm/004 dm/005 md/005 nvme/070 nvme/071
	scsi/006 loop/007 nvme/027)
# make check-peer: whole groups.
groups=(block scsi loop dm md nvme)
# ...but for these, which do not exercise what the series changes and outlast a session under
# TCG; GH_BLKTESTS_SLOW=1 runs them too.
declare -A slow=(
	[nvme/002]="creates and discovers 1000 NVMe-oF subsystems: over an hour under TCG with the debug kernel; the series does not touch discovery"
)
known="$top/blktests/known-failures"
known_max=25

full=0 debian=0 only=() kver=""
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1; shift ;;
	--debian-kernel) debian=1; shift ;;
	-*) die "unknown option '$1' (usage: test-blktests.sh [--full] [--debian-kernel] [TEST...])" ;;
	*) only+=("$1"); shift ;;
	esac
done
if [ ${#only[@]} -gt 0 ]; then
	tests=("${only[@]}")
elif [ $full = 1 ]; then
	tests=("${groups[@]}")
else
	tests=("${curated[@]}")
fi
excluded=()
if [ $full = 1 ] && [ ${#only[@]} -eq 0 ] && [ "${GH_BLKTESTS_SLOW:-0}" != 1 ]; then
	excluded=("${!slow[@]}")
fi
# The guest's time limit catches a hang, not slowness: make check's selection takes about
# 300 s on an idle 2-core machine, and 2953 s beside the other suites with stress-ng on both
# cores (.ci/times/2026-12-07-stress-0caa327.log), ten times as long where a scenario takes
# up to six (its programs come from the host over virtio-9p).  Twice that is the limit.
timeout=${BLKTESTS_TIMEOUT:-}
[ -n "$timeout" ] || if [ $full = 1 ]; then timeout=7200; else timeout=6000; fi

echo "KTAP version 1"

obj=$(cat "$top/build/blktests.obj" 2>/dev/null || true)
qemu="$out/qemu-system-x86_64"
kernel=${GH_KERNEL:-$out/bzImage} initrd=${GH_INITRD:-$out/initramfs.cpio.gz}
modules=${GH_MODULES:-$out/modules}
# The guest sees the host's root: paths it is given must be absolute.
kernel=$(realpath -m "$kernel") initrd=$(realpath -m "$initrd") modules=$(realpath -m "$modules")
why=""
if [ -s "$top/build/blktests.missing" ]; then
	why=$(cat "$top/build/blktests.missing")
elif [ -z "$obj" ] || [ ! -x "$obj/check" ]; then
	why="blktests is not built (make blktests)"
elif [ ! -r "$kernel" ] || [ ! -r "$initrd" ] || [ ! -x "$qemu" ]; then
	why="the guest kernel, initramfs or QEMU is not built (make kernel initramfs qemu)"
elif ! "$qemu" -device help 2>/dev/null | matches '"virtio-9p-pci"'; then
	why="$qemu has no virtio-9p (make qemu: built with --enable-virtfs)"
elif [ $debian = 0 ] && [ ! -d "$modules/lib/modules" ]; then
	why="no modules of the guest kernel in $modules (make kernel)"
fi
if [ -n "$why" ]; then
	echo "1..1"
	result skip "blktests" "$why"
	exit 0
fi

results="$top/build/results/blktests"
rm -rf "$results"
mkdir -p "$results/out"
work=$(mktemp -d "${TMPDIR:-/tmp}/gh-blktests.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $debian = 1 ]; then
	kver=$(bash "$top/selftests/lib/debian-kernel.sh" "$work/debian" 9p 9pnet_virtio overlay \
		2>"$work/debian.err") || {
		diag < "$work/debian.err"
		echo "1..1"
		result skip "blktests" "Debian's kernel package could not be prepared"
		exit 0
	}
	kernel="$work/debian/vmlinuz" initrd="$work/debian/initramfs.cpio.gz"
	# The package as unpacked by debian-kernel.sh: lib/modules/<release>, boot/config-<release>.
	modules=$(find "$dldir/debian-kernel" -mindepth 4 -maxdepth 4 -path "*/lib/modules/$kver" |
		sort | tail -n 1)
	modules=${modules%/lib/modules/"$kver"}
fi

# guest KERNEL INITRD MODULES OUTDIR TEST...: run blktests' TESTs in one guest; its results,
# check.log and console.log go to OUTDIR; the exit status of run-vm.sh.
guest() {
	local k=$1 i=$2 m=$3 o=$4 vm
	shift 4
	mkdir -p "$o"
	vm=$(mktemp -d "$work/vm.XXXXXX")
	# The guest's job: what runs, the blktests configuration.
	{
		printf 'GUEST=blktests-guest.sh\nBLKTESTS=%q\nMODULES=%q\n' "$obj" "$m"
		printf 'TESTS=(%s)\n' "$*"
		# The loop transport only (no network in the guest); fio-based tests run at most
		# 30 s each; nvmet's file-backed namespaces are sparse files on the guest's tmpfs.
		printf 'CONFIG=%q\n' "NVMET_TRTYPES=loop
TIMEOUT=30
NVME_IMG_SIZE=512M${excluded[*]:+
EXCLUDE=(${excluded[*]})}"
	} > "$o/job"
	# Three disks with growth hints, one per transport: blktests' test devices.
	local hints="x-growth-hints=on,x-growth-min=1G,x-growth-max=64T,x-growth-increment=1G" st=0
	bash "$top/scripts/run-vm.sh" --kernel "$k" --initrd "$i" --qemu "$qemu" \
		--dir "$vm" --timeout "$timeout" --memory 2G --test hostroot --quiet \
		--append "gh.out=$o gh.top=$top scsi_debug.add_host=0" \
		--disk "virtio:size=2G:props=$hints" --disk "scsi:size=2G:props=$hints" \
		--disk "nvme:size=2G:props=x-resizable=on,$hints" \
		--qemu-arg -virtfs --qemu-arg "local,path=/,mount_tag=ghroot,security_model=none,readonly=on,multidevs=remap" \
		--qemu-arg -virtfs --qemu-arg "local,path=$o,mount_tag=ghout,security_model=none,multidevs=remap" \
		>/dev/null 2>"$o/run-vm.err" || st=$?
	cp "$vm/console.log" "$o/console.log" 2>/dev/null || true
	return $st
}

t0=$SECONDS
rc=0
guest "$kernel" "$initrd" "$modules" "$results/out" "${tests[@]}" || rc=$?
cp "$results/out/console.log" "$results/out/run-vm.err" "$results/" 2>/dev/null || true
secs=$((SECONDS - t0))
log="$results/out/check.log"

# parse LOG: one line per test and device from blktests' output: "TEST|WHERE|STATUS|DETAIL".
parse() {
	awk '
	function flush() { if (t != "") print t "|" w "|" s "|" d; t = "" }
	/^[a-z]+\/([0-9]+|\*\*\*) .*\[(passed|failed|not run)\][[:space:]]*$/ {
		flush()
		t = $1; w = "nodev"; d = ""
		if ($2 == "=>") w = $3
		if (match($0, /\((tr|bd)=[^)]*\)/)) w = w "_" substr($0, RSTART + 1, RLENGTH - 2)
		s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s)
		next
	}
	/^    / && t != "" {
		line = $0; sub(/^ +/, "", line)
		if (s == "not run" || (s == "failed" && line !~ /^(runtime|date)[[:space:]]/))
			d = d (d == "" ? "" : "; ") line
		next
	}
	{ flush() }
	END { flush() }' "$1"
}

# runtimes LOG: "TEST SECONDS, ..." from blktests' output, in the order the tests ran; the
# seconds of a test run on several devices add up (what its guest's time limit has to cover).
runtimes() {
	awk '
	/^[a-z]+\/[0-9]+ .*\[(passed|failed|not run)\][[:space:]]*$/ { t = $1; next }
	/^    runtime[[:space:]]/ && t != "" && $NF ~ /^[0-9.]+s$/ {
		if (!(t in secs)) order[n++] = t
		secs[t] += substr($NF, 1, length($NF) - 1)
	}
	END { for (i = 0; i < n; i++) printf "%s%s %d", (i ? ", " : ""), order[i], secs[order[i]] + 0.5 }' "$1"
}

if [ ! -s "$log" ]; then
	echo "1..1"
	{
		echo "blktests did not run (run-vm.sh status $rc after $secs s); last console lines:"
		tr -d '\r' < "$results/console.log" 2>/dev/null | grep -v '^GH-DMESG' | tail -n 20 || true
		tail -n 5 "$results/run-vm.err" 2>/dev/null || true
	} | diag
	result notok "blktests" "no results"
	exit 0
fi

# The series' own tests: those blktests/patches adds.
series_tests=" $(git -C "$top/build/blktests" diff --name-only --diff-filter=A gh-base..HEAD -- 'tests/*/[0-9]*' 2>/dev/null |
	sed -n 's|^tests/\([a-z]*/[0-9]*\)$|\1|p' | tr '\n' ' ') "

parse "$log" > "$work/lines"

# Failures that blktests/known-failures does not list run again, in a second guest, on the
# unpatched base kernel (build/kernel at gh-base, the same configuration, built once in
# build/base): one that fails there too is shared with the base, not new.
declare -A shared=()
newfail=()
while IFS='|' read -r t where status _; do
	if [ "$status" = failed ] && [ -z "$(known_failure "$known" "$t" "$where")" ] &&
		[[ " ${newfail[*]} " != *" $t "* ]]; then
		newfail+=("$t")
	fi
done < "$work/lines"
if [ ${#newfail[@]} -gt 0 ] && [ $debian = 0 ] && [ "${GH_BLKTESTS_BASE_RERUN:-1}" = 1 ]; then
	variant=guest
	[[ "$kernel" != *-sanitize ]] || variant=sanitize
	bout="$top/build/base/out"
	bsuffix=""
	[ $variant = guest ] || bsuffix="-$variant"
	if bash "$top/scripts/build-kernel.sh" --base "$variant" > "$results/base-build.log" 2>&1; then
		guest "$bout/bzImage$bsuffix" "$initrd" "$bout/modules$bsuffix" "$results/base" \
			"${newfail[@]}" || true
		while IFS='|' read -r t _ status _; do
			[ "$status" != failed ] || shared[$t]=1
		done < <(parse "$results/base/check.log" 2>/dev/null)
		echo "run again on the unpatched base kernel: ${newfail[*]}; failing there too: ${!shared[*]}" | diag
	else
		tail -n 5 "$results/base-build.log" | diag
		echo "the unpatched base kernel could not be built (see $results/base-build.log): failures count as new" | diag
	fi
fi
# Group-level skips ("nvme/*** [not run]") apply to every test of the group that did not run.
mapfile -t names < <(awk -F'|' '$1 !~ /\*\*\*$/ { print $1 }' "$work/lines" | awk '!seen[$0]++')
{
	awk -F'|' '$1 ~ /\*\*\*$/ { print }' "$work/lines" | diag
	diag < "$results/out/guest.log" 2>/dev/null
	echo "blktests ran ${#names[@]} tests in $secs s (guest status $rc)" | diag
	echo "blktests seconds: $(runtimes "$log")" | diag
} 2>/dev/null || true
echo "1..$(( ${#names[@]} + ${#excluded[@]} + 2 ))"
for t in "${excluded[@]}"; do
	result skip "$t" "not run by --full (GH_BLKTESTS_SLOW=1 runs it): ${slow[$t]}"
done
known_passed=()
for t in "${names[@]}"; do
	mapfile -t inst < <(awk -F'|' -v t="$t" '$1 == t' "$work/lines")
	st=pass skipwhy="" faildetail="" wheres=""
	npass=0 nfail=0 nskip=0
	for l in "${inst[@]}"; do
		IFS='|' read -r _ where status detail <<< "$l"
		case "$status" in
		passed) npass=$((npass + 1)) ;;
		failed)
			nfail=$((nfail + 1))
			wheres+="${wheres:+,}$where"
			faildetail+="$where: ${detail:-failed}"$'\n'
			;;
		*)
			nskip=$((nskip + 1))
			skipwhy+="${skipwhy:+; }${where:+$where: }${detail:-not run}"
			;;
		esac
	done
	if [ $nfail -gt 0 ]; then
		st=fail
	elif [ $npass -eq 0 ]; then
		st=skip
	fi
	# A listed failure that passed everywhere it ran is no longer true.
	if [ $st = pass ]; then
		for l in "${inst[@]}"; do
			IFS='|' read -r _ where _ _ <<< "$l"
			[ -z "$(known_failure "$known" "$t" "$where")" ] || known_passed+=("$t $where")
		done
	fi
	case "$st" in
	pass) result ok "$t" ;;
	skip)
		if [[ "$series_tests" == *" $t "* ]] && [[ "$skipwhy" =~ growth|does\ not\ have\ parameter ]]; then
			result notok "$t" "skipped, but the series' kernel has growth hints: $skipwhy"
		else
			result skip "$t" "$skipwhy"
		fi
		;;
	fail)
		printf '%s' "$faildetail" | diag
		for f in "$results/out/results"/*/"$t.out.bad"; do
			[ -f "$f" ] || continue
			echo "${f#"$top"/}:"
			diff -u "$obj/tests/$t.out" "$f" 2>/dev/null | first_lines 20 || true
		done | diag
		reasons="" unknown=""
		IFS=, read -r -a ws <<< "$wheres"
		for w in "${ws[@]}"; do
			r=$(known_failure "$known" "$t" "$w")
			if [ -n "$r" ]; then
				reasons=$r
			else
				unknown+="${unknown:+,}$w"
			fi
		done
		if [ -z "$unknown" ]; then
			result skip "$t" "known failure, the base kernel fails too: $reasons"
		elif [ -n "${shared[$t]:-}" ]; then
			result skip "$t" "fails on the unpatched base kernel too ($unknown; list it in blktests/known-failures with the reason)"
		else
			result notok "$t" "new failure ($unknown; not in blktests/known-failures)"
		fi
		;;
	esac
done

# The guest must have run every test: one stopped by its time limit (status 124) or ended
# early leaves the tests after the last result unrun, and that is a failure, not a shorter list.
if [ "$rc" = 0 ]; then
	result ok "blktests guest ran to the end"
else
	{
		echo "the guest ended with status $rc after $secs s$([ "$rc" != 124 ] || echo " (its time limit, ${timeout} s: BLKTESTS_TIMEOUT)"); the tests after the last result did not run; last console lines:"
		tr -d '\r' < "$results/console.log" 2>/dev/null | grep -v '^GH-DMESG' | tail -n 10 || true
	} | diag
	result notok "blktests guest ran to the end" "status $rc"
fi
if msg=$(known_failures_check "$known" "$known_max" "${known_passed[@]}"); then
	result ok "blktests/known-failures: true and small"
else
	echo "$msg" | diag
	result notok "blktests/known-failures: true and small"
fi
