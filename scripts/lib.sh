# shellcheck shell=bash
# Common helpers for the project's scripts.  Source it; do not run it.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GH_CACHE="${GH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/growth-hints}"
export CCACHE_DIR="${CCACHE_DIR:-$GH_CACHE/ccache}"
export CCACHE_BASEDIR="${GH_CCACHE_BASEDIR:-$top}"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
# Private apt state: the system's apt configuration is never touched.
# shellcheck disable=SC2034 # used by the scripts that source this file
aptdir="$GH_CACHE/apt"
# shellcheck disable=SC2034
dldir="$GH_CACHE/dl"
# shellcheck disable=SC2034
out="$top/build/out"

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
info() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# The first plain Debian mirror URI in the machine's own apt sources.
apt_mirror() {
	if [ -n "${GH_APT_MIRROR:-}" ]; then
		echo "$GH_APT_MIRROR"
		return
	fi
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk '
			function take() { if (r == "" && u != "" && s !~ /-security/) r = u; u = ""; s = "" }
			/^[[:space:]]*$/ { take() }
			/^URIs:/ { u = $2 }
			/^Suites:/ { s = $0 }
			END { take(); if (r != "") print r }' "$f")
		[ -n "$uri" ] && { echo "$uri"; return; }
	done
	local lists=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] && lists+=("$f")
	done
	uri=""
	[ ${#lists[@]} -eq 0 ] || uri=$(awk '/^deb[[:space:]]/ && !/-security/ && r == "" {
		sub(/\[[^]]*\]/, ""); r = $2 } END { if (r != "") print r }' "${lists[@]}")
	[ -n "$uri" ] || die "no Debian mirror in /etc/apt/sources*; set GH_APT_MIRROR to one"
	echo "$uri"
}

# apt with a private sources list "$aptdir/<name>.list" and its own lists.
papt_opts() {
	local name=$1
	printf '%s\n' -o "APT::Sandbox::User=root" \
		-o "Dir::Etc::SourceList=$aptdir/$name.list" \
		-o "Dir::Etc::SourceParts=$aptdir/empty.d" \
		-o "Dir::State::Lists=$aptdir/lists-$name" \
		-o "Dir::Cache::Archives=$aptdir/archives" \
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" \
		-o "Acquire::Retries=2"
}

# papt_setup NAME SUITE...: write the list for NAME and update it.
papt_setup() {
	local name=$1 mirror suite kr=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	mkdir -p "$aptdir/empty.d" "$aptdir/lists-$name/partial" "$aptdir/archives/partial"
	mirror=$(apt_mirror)
	: > "$aptdir/$name.list.new"
	for suite in "$@"; do
		printf 'deb [signed-by=%s] %s %s main\n' "$kr" "$mirror" "$suite" >> "$aptdir/$name.list.new"
		printf 'deb-src [signed-by=%s] %s %s main\n' "$kr" "$mirror" "$suite" >> "$aptdir/$name.list.new"
	done
	# Lists fetched for other suites (a BASE that changed its suite) are no use: update again.
	local stamp="$aptdir/lists-$name/.stamp"
	cmp -s "$aptdir/$name.list.new" "$aptdir/$name.list" || rm -f "$stamp"
	mv "$aptdir/$name.list.new" "$aptdir/$name.list"
	if [ -z "$(find "$stamp" -mmin -360 2>/dev/null)" ]; then
		local opts
		mapfile -t opts < <(papt_opts "$name")
		# One apt at a time (trees are prepared side by side, scripts/check.sh).
		flock "$aptdir/apt.lock" apt-get "${opts[@]}" -q update >"$aptdir/update-$name.log" 2>&1 ||
			die "apt-get update of suites '$*' from $mirror failed; see $aptdir/update-$name.log"
		touch "$stamp"
	fi
}

papt() {
	local name=$1 opts
	shift
	mapfile -t opts < <(papt_opts "$name")
	"$1" "${opts[@]}" "${@:2}"
}

# apt_why_not LOG: what apt could not get, by file name and status (no host names).
apt_why_not() {
	local missing
	missing=$(sed -nE 's|^E: Failed to fetch [^ ]*/([^/ ]+) +([0-9]{3}) +([^[]*[^[ ]).*|\1 (\2 \3)|p' "$1" |
		sed 's/%7[eE]/~/g; s/%2[bB]/+/g; s/%3[aA]/:/g' | sort -u |
		paste -sd, - | sed 's/,/, /g')
	if [ -n "$missing" ]; then
		echo "the registry lists it but does not serve ${missing}"
	else
		grep -m1 -oE 'Unable to locate.*|Can not find.*|E: .*' "$1" || echo "see $1"
	fi
}

# srcvar_of WHAT: the variable naming an existing tree to use as its base (UTIL_LINUX_SRC).
srcvar_of() { local v=${1^^}; echo "${v//-/_}_SRC"; }

# BASE files are "key=value" lines.
base_get() { sed -n "/^$2=/{s///p;q}" "$1"; }

# Pipelines never end early.  A reader that exits before its writer is done (head, grep -q,
# awk with exit, sed with q) kills the writer with SIGPIPE, and "set -o pipefail" turns that
# into a failure that depends on timing.  These read all their input; use them in pipelines,
# and let the hygiene suite's pipe check find the others.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }	# median N...
# libvirt's test programs that the libvirt series touches (build-libvirt.sh, test-libvirt.sh)
libvirt_tests() { echo genericxml2xmltest qemuxmlconftest qemuhotplugtest qemumonitorjsontest qemugrowthhintstest qemucapabilitiestest domaincapstest virschematest; }
first_line() { sed -n 1p; }				# the first line
first_lines() { sed -n "1,${1}p"; }			# first_lines N: the first N lines
matches() { grep -c "$@" >/dev/null; }		# matches [GREP-OPTS] PATTERN: a line matches

# kernel_complained: the kernel's log has a warning, an XFS or ext4 error, or a per-AG
# reservation that failed ("Per-AG reservation for AG N failed. Filesystem may run out of
# space."): a benchmark that sees one stops rather than report the numbers.
kernel_complained() {
	dmesg 2>/dev/null |
		matches -E 'WARNING|BUG|XFS .*(error|corrupt)|EXT4-fs (error|warning)|[Rr]eservation .*failed|may run out|ENOSPC'
}

sha256_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# peer_tree WHAT: build/WHAT, the tree of a peer test suite (fstests, blktests): its pinned
# base and WHAT/patches, made by make-tree.sh when absent.  When the base is simply not there
# (no peer tarball, no network) the reason goes to build/WHAT.missing and the status is 2: the
# suite's tests then skip.  Any other failure dies.
peer_tree() {
	local what=$1 rc=0
	mkdir -p "$top/build"
	rm -f "$top/build/$what.missing"
	[ -e "$top/build/$what/.git" ] && return 0
	bash "$top/scripts/make-tree.sh" "$what" 2>"$top/build/$what-tree.log" || rc=$?
	[ $rc = 0 ] && return 0
	cat "$top/build/$what-tree.log" >&2
	# fetch-peer.sh exits 2 when the base is simply not there.
	[ $rc = 2 ] || die "make-tree.sh $what failed; see build/$what-tree.log"
	sed -n 's/^fetch-peer.sh: warning: //p' "$top/build/$what-tree.log" > "$top/build/$what.missing"
	[ -s "$top/build/$what.missing" ] ||
		echo "$what is missing (see build/$what-tree.log)" > "$top/build/$what.missing"
	warn "$(cat "$top/build/$what.missing"); the $what suites will skip"
	return 2
}

# base_checkout TREE DIR: DIR is a checkout of TREE's unpatched base (tag gh-base), sharing
# TREE's objects; checked out again only when the base moved (qemu-compat.sh, test-blktests.sh).
base_checkout() {
	local tree=$1 dir=$2 want
	want=$(git -C "$tree" rev-parse gh-base)
	[ -d "$dir/.git" ] && [ "$(git -C "$dir" rev-parse HEAD)" = "$want" ] && return 0
	info "checking out the unpatched base in $dir"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	git clone -q --shared --no-checkout "$tree" "$dir"
	git -C "$dir" checkout -q --detach "$want"
}

# peer_copy WHAT DIR: build/WHAT into DIR, where the suite is built and run (both fstests and
# blktests build and run in their source directory); only files whose content changed are
# copied, so that a warm build does nothing, and tests/ loses what the series no longer has.
peer_copy() {
	local what=$1 dir=$2
	mkdir -p "$dir"
	rsync -rl --checksum --exclude=/.git "$top/build/$what/" "$dir/"
	rsync -rl --checksum --delete --exclude=group.list "$top/build/$what/tests/" "$dir/tests/"
}

# The peer suites' KTAP results, numbered in order: result ok|notok|skip NAME [DIRECTIVE];
# diag: its input as KTAP diagnostic lines.
result_n=0
result() {
	result_n=$((result_n + 1))
	case "$1" in
	ok) echo "ok $result_n $2${3:+ # $3}" ;;
	skip) echo "ok $result_n $2 # SKIP $3" ;;
	*) echo "not ok $result_n $2${3:+ # $3}" ;;
	esac
}
diag() { sed 's/^/# /'; }

# A peer suite's known failures: failures the unpatched base shares, one line each,
#   TEST WHERE REASON
# WHERE is a comma-separated list of where the test ran (a configuration, a device) or *.
# known_failure FILE TEST WHERE: the reason FILE gives, if it lists TEST for WHERE.
known_failure() {
	awk -v t="$2" -v w="$3" '!/^#/ && NF >= 3 && $1 == t {
		n = split($2, ws, ","); for (i = 1; i <= n; i++) if (ws[i] == "*" || ws[i] == w) {
			$1 = $2 = ""; sub(/^ +/, ""); print; exit } }' "$1" 2>/dev/null || true
}
# known_failures_check FILE MAX [PASSED...]: the file stays true (none of the PASSED entries,
# "TEST WHERE" of listed failures that passed in this run) and small (at most MAX entries,
# each with a reason); says what is wrong on stdout and returns 1 if anything is.
known_failures_check() {
	local file=$1 max=$2 entries bad ok=0
	shift 2
	entries=$(grep -cvE '^(#|[[:space:]]*$)' "$file" 2>/dev/null || true)
	bad=$(awk '!/^#/ && NF > 0 && NF < 3' "$file" 2>/dev/null || true)
	local e
	for e in "$@"; do
		echo "$e passes now: remove it from ${file#"$top"/}"
		ok=1
	done
	if [ "${entries:-0}" -gt "$max" ]; then
		echo "${file#"$top"/} has $entries entries, more than $max"
		ok=1
	fi
	if [ -n "$bad" ]; then
		while IFS= read -r e; do echo "without a reason: $e"; done <<< "$bad"
		ok=1
	fi
	return $ok
}

# Builds take all cores: serialize them across concurrent users of one machine.
build_lock() {
	# A caller that already holds the lock for a longer job (a benchmark, say) says so.
	[ -z "${GH_BUILD_LOCK_HELD:-}" ] || return 0
	mkdir -p "$GH_CACHE"
	exec 9>"$GH_CACHE/build.lock"
	if ! flock -n 9; then
		info "waiting for another build on this machine to finish"
		flock 9
	fi
}

# The firmware a QEMU built without its blobs needs (Debian's seabios, ipxe-qemu and
# qemu-system-data), as -L options.
qemu_firmware=(-L /usr/share/seabios -L /usr/lib/ipxe/qemu -L /usr/share/qemu)
# qemu_wrapper DIR OBJ: DIR/qemu-system-x86_64 runs OBJ's binary with the firmware path.  The
# QEMU test harnesses want a binary of that name and cannot pass options themselves.
qemu_wrapper() {
	printf '#!/bin/sh\nexec "%s/qemu-system-x86_64" %s "$@"\n' "$2" "${qemu_firmware[*]}" \
		>"$1/qemu-system-x86_64"
	chmod +x "$1/qemu-system-x86_64"
}

# follow_console LOG CTL PID QUIET HOOK: follow a guest's console LOG until process PID (its
# QEMU) ends, echoing it unless QUIET is 1, and answer the guest test's "GH-WAIT TOKEN ARGS"
# requests.  The guest writes them to its second serial port (the fifo CTL's ".out" side),
# not to the console, where a kernel message could land in the middle of one.  HOOK (a
# command line; empty answers "fail") runs as HOOK TOKEN ARGS; exit 0 answers "ok", else
# "fail", with its output; the output "-" means "already answered".  The answer,
# "GH-GO TOKEN ok|fail TEXT", goes to the fifo CTL, the port's other direction.  Sets
# FOLLOW_STATUS to N of the guest's "GH-EXIT N" line, empty if it printed none.
# (run-vm.sh; selftests/scenarios/libvirt.sh follows a QEMU that libvirt started.)
# shellcheck disable=SC2034 # FOLLOW_STATUS is read by the callers
follow_console() {
	local log=$1 ctl=$2 pid=$3 quiet=$4 line waiter
	FOLLOW_STATUS=""
	_follow_requests "$ctl" "$pid" "$5" &
	waiter=$!
	while IFS= read -r line; do
		line=${line%$'\r'}
		[ "$quiet" = 1 ] || printf '%s\n' "$line"
		case "$line" in
		"GH-EXIT "*) FOLLOW_STATUS=${line#GH-EXIT } ;;
		esac
	done < <(tail -s 0.2 -n +1 -F --pid="$pid" "$log" 2>/dev/null)
	wait "$waiter" || true
}
# _follow_requests CTL PID HOOK: answer each "GH-WAIT TOKEN ARGS" line the guest writes to
# CTL's ".out" fifo, one after the other, until PID ends.  The fifo is opened for reading and
# writing, so that the open never waits for QEMU and the loop sees PID end.
_follow_requests() {
	local ctl=$1 pid=$2 fd line part="" token rc reply
	local -a hook=() w
	[ -z "$3" ] || read -r -a hook <<< "$3"
	exec {fd}<>"${ctl%.in}.out"
	while kill -0 "$pid" 2>/dev/null; do
		# A line that has not fully arrived when read times out is kept in "part".
		IFS= read -r -t 1 -u "$fd" line || { part+=$line; continue; }
		line=$part${line%$'\r'} part=""
		case "$line" in
		"GH-WAIT "*) ;;
		*) continue ;;
		esac
		read -r -a w <<< "${line#GH-WAIT }"
		token=${w[0]:-}
		if [ ${#hook[@]} -eq 0 ]; then
			_follow_answer "$pid" "$ctl" "$token" fail "no --on-wait handler"
			continue
		fi
		rc=0
		reply=$("${hook[@]}" "${w[@]}") || rc=$?
		reply=$(printf '%s' "$reply" | tr '\n' ' ')
		reply=${reply% }
		[ "$reply" = "-" ] && continue
		if [ $rc = 0 ]; then
			_follow_answer "$pid" "$ctl" "$token" ok "$reply"
		else
			_follow_answer "$pid" "$ctl" "$token" fail "$reply"
		fi
	done
	exec {fd}>&-
}
# _follow_answer PID CTL TOKEN WORD [TEXT]: write the host's answer to the guest.
_follow_answer() {
	local pid=$1 ctl=$2
	shift 2
	kill -0 "$pid" 2>/dev/null || return 0
	# shellcheck disable=SC2016 # $1 and $2 belong to the inner shell
	timeout 10 bash -c 'printf "%s\n" "$1" > "$2"' _ "GH-GO $*" "$ctl" ||
		warn "could not answer '$1' to the guest"
}

# meson_setup_once NAME SRC OBJ OPTION...: meson setup of SRC in OBJ with these options and
# ccache, unless OBJ was set up with exactly these; its output goes to build/NAME-setup.log.
meson_setup_once() {
	local name=$1 src=$2 obj=$3 log=$top/build/$1-setup.log
	shift 3
	[ -f "$obj/build.ninja" ] && [ "$(cat "$obj/.setup-opts" 2>/dev/null)" = "$*" ] && return 0
	info "configuring $name in $obj"
	rm -rf "$obj"
	CC="ccache gcc" meson setup "$@" "$obj" "$src" >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "meson setup of $name failed; see $log"; }
	echo "$*" > "$obj/.setup-opts"
}

# all_not_ok WHY NAME...: a suite that cannot run: WHY as a diagnostic, each NAME "not ok".
all_not_ok() {
	local i=0 why=$1
	shift
	echo "# $why"
	for t in "$@"; do i=$((i + 1)); echo "not ok $i $t"; done
}

# qemu_ninja OBJ LOG TARGET...: build TARGETs in the QEMU build OBJ into OBJ/LOG; on failure
# show the errors and die.  The caller holds the build lock if it needs one.
qemu_ninja() {
	local obj=$1 log=$1/$2
	shift 2
	ninja -C "$obj" "$@" >"$log" 2>&1 ||
		{ grep -E 'error|FAILED' "$log" | first_lines 30 >&2; die "QEMU build failed; see $log"; }
}
