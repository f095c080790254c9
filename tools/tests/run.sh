#!/usr/bin/env bash
# make -C tools check: one KTAP document on stdout.
#   - the unit tests (tests/test-growth-hints), then the same under ASan + UBSan (san/);
#   - packaging: make install into a DESTDIR, SONAME, exported symbols, pkg-config, a program
#     built against the installed library, the man pages;
#   - builds with a distribution's flags (_FORTIFY_SOURCE=3 in CPPFLAGS, extra warnings);
#   - the udev hwdb fragment and rule (compiled and queried with systemd-hwdb when installed).
# No root needed.  Run from tools/ after make (the check target does both).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^VERSION := //p' Makefile)
soversion=$(sed -n 's/^SOVERSION := //p' Makefile)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gh-tools-check.XXXXXX")
# At exit, whatever happened: the loop devices of files under $tmp detached (a test that
# stops half way, or one whose device was set up in a command substitution, leaves them),
# then $tmp removed.
cleanup() {
	local l
	if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null; then
		for l in $(losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v t="$tmp/" 'index($2, t) == 1 { print $1 }'); do
			umount "$l" 2>/dev/null || true
			losetup -d "$l" 2>/dev/null || true
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
out="$tmp/results"
: > "$out"
n=0 failed=0

result() {	# result 0|1|skip NAME [REASON]
	n=$((n + 1))
	case $1 in
	0) echo "ok $n $2" >> "$out" ;;
	skip) echo "ok $n $2 # SKIP $3" >> "$out" ;;
	*) echo "not ok $n $2" >> "$out"; failed=$((failed + 1)) ;;
	esac
}
diag() { sed 's/^/# /' >> "$out"; }
# Readers that read all their input (no SIGPIPE for the writer; see scripts/lib.sh).
first_lines() { sed -n "1,${1}p"; }
matches() { grep -c "$@" > /dev/null; }

# The unit tests, renumbered into this document; PREFIX names the build.
unit() {	# unit PREFIX BINARY
	local prefix=$1 bin=$2 line rc=0
	"$bin" > "$tmp/unit.tap" 2> "$tmp/unit.err" || rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) result 0 "$prefix${line#ok * }" ;;
		"not ok "*) result 1 "$prefix${line#not ok * }" ;;
		"#"*) echo "$line" >> "$out" ;;
		esac
	done < "$tmp/unit.tap"
	if [ -s "$tmp/unit.err" ]; then
		diag < "$tmp/unit.err"
	fi
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$tmp/unit.tap"; then
		result 1 "${prefix}exit status $rc without a failed case"
	fi
}

unit "" ./tests/test-growth-hints
# ASan/UBSan: leaks too; any report fails the binary (exit status 1 or a signal).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=1 UBSAN_OPTIONS=print_stacktrace=1 \
	unit "asan_ubsan: " ./san/tests/test-growth-hints

# --- growth-inflate (tests/inflate.sh: no root for the bad inputs and raw partitions) ---
. tests/inflate.sh

# --- packaging ---------------------------------------------------------------------
dest="$tmp/dest"
if make -s install DESTDIR="$dest" PREFIX=/usr > "$tmp/install.log" 2>&1; then
	missing=""
	for f in usr/sbin/growth-mkfs usr/sbin/growth-inflate usr/share/man/man8/growth-inflate.8 "usr/lib/libgrowthhints.so.$version" "usr/lib/libgrowthhints.so.$soversion" \
		usr/lib/libgrowthhints.so usr/lib/libgrowthhints.a usr/include/growth-hints.h \
		usr/lib/pkgconfig/growth-hints.pc usr/share/man/man8/growth-mkfs.8 \
		usr/share/man/man5/growth-hints.hwdb.5 usr/lib/udev/hwdb.d/60-growth-hints.hwdb \
		usr/lib/udev/rules.d/60-growth-hints.rules; do
		[ -e "$dest/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then result 0 "install: make install DESTDIR= PREFIX=/usr installs every file"
	else echo "missing:$missing" | diag; result 1 "install: make install DESTDIR= PREFIX=/usr installs every file"; fi
else
	diag < "$tmp/install.log"
	result 1 "install: make install DESTDIR= PREFIX=/usr installs every file"
fi

so="$dest/usr/lib/libgrowthhints.so.$version"
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "libgrowthhints.so.$soversion" ]; then result 0 "install: SONAME libgrowthhints.so.$soversion"
else echo "SONAME: '$soname'" | diag; result 1 "install: SONAME libgrowthhints.so.$soversion"; fi

# Only the gh_ API is exported, under the version node.
other=$(nm -D --defined-only "$so" 2>/dev/null | awk '$3 !~ /^gh_[a-z]/ && $3 != "GROWTHHINTS_1" { print $3 }')
api=$(nm -D --defined-only "$so" 2>/dev/null | awk '$3 ~ /^gh_[a-z]/ { n++ } END { print n + 0 }')
if [ -z "$other" ] && [ "$api" -ge 10 ]; then result 0 "install: exports only the gh_ API ($api symbols)"
else echo "other exports: $other; gh_ exports: $api" | diag; result 1 "install: exports only the gh_ API"; fi

# pkg-config, and a program built and run against the installed library.
pcdir="$dest/usr/lib/pkgconfig"
cat > "$tmp/user.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <growth-hints.h>

int main(void)
{
	struct gh_plan_req r = { .fs = GH_FS_XFS, .size = 10ULL << 30, .max = 10ULL << 40,
				 .source = GH_SOURCE_SYSFS };
	struct gh_plan p;
	char err[GH_ERR_MAX];

	if (gh_plan_mkfs(&r, &p, err, sizeof(err)) < 0)
		return 1;
	printf("%s %d\n", gh_version(), p.grows);
	return strcmp(gh_source_name(GH_SOURCE_TABLE), "table") != 0;
}
EOF
flags=$(PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs growth-hints 2>&1 || true)
pcver=$(PKG_CONFIG_PATH="$pcdir" pkg-config --modversion growth-hints 2>&1 || true)
read -r -a flagv <<< "$flags"
ran=""
if cc -o "$tmp/user" "$tmp/user.c" "${flagv[@]}" > "$tmp/cc.log" 2>&1 &&
	ran=$(LD_LIBRARY_PATH="$dest/usr/lib" "$tmp/user") &&
	[ "$ran" = "$version 1" ] && [ "$pcver" = "$version" ] &&
	LD_LIBRARY_PATH="$dest/usr/lib" ldd "$tmp/user" | matches "libgrowthhints.so.$soversion"; then
	result 0 "install: pkg-config growth-hints builds a program against the shared library"
else
	{ echo "flags: $flags; version: $pcver"; cat "$tmp/cc.log"; echo "ran: $ran"; } | diag
	result 1 "install: pkg-config growth-hints builds a program against the shared library"
fi

# The man pages render without warnings and carry the version.
for m in man/growth-mkfs.8 man/growth-inflate.8 man/growth-hints.hwdb.5; do
	warn=$(groff -man -Tutf8 -ww -z "$m" 2>&1 || echo "groff failed")
	if [ -z "$warn" ] && grep -q "growth-hints $version" "$m"; then result 0 "man: ${m#man/} renders cleanly, version $version"
	else echo "$warn" | diag; result 1 "man: ${m#man/} renders cleanly, version $version"; fi
done
if [ "$(./growth-mkfs --version)" = "growth-mkfs $version" ]; then result 0 "growth-mkfs --version says $version"
else result 1 "growth-mkfs --version says $version"; fi
if [ "$(./growth-inflate --version)" = "growth-inflate $version" ]; then result 0 "growth-inflate --version says $version"
else result 1 "growth-inflate --version says $version"; fi

# --- a distribution's build flags -----------------------------------------------------
# Debian and Fedora pass their flags in the environment; _FORTIFY_SOURCE=3 in CPPFLAGS and
# more warnings in CFLAGS must not break the build, and no -Werror unless asked for.
src="$tmp/src"
mkdir -p "$src"
cp -r ./*.c ./*.h ./*.in ./*.sym Makefile udev "$src/"
rm -f "$src/growth-hints-db.c"
# Not the flags of the make that runs this check.
unset MAKEFLAGS MFLAGS MAKELEVEL WERROR CFLAGS CPPFLAGS LDFLAGS
build_ok() {	# build_ok NAME ENV...
	local name=$1
	shift
	make -s -C "$src" clean > /dev/null 2>&1 || true
	if env "$@" make -s -C "$src" growth-mkfs growth-inflate libgrowthhints.a > "$tmp/build.log" 2>&1; then
		result 0 "build: $name"
	else
		first_lines 15 < "$tmp/build.log" | diag
		result 1 "build: $name"
	fi
}
build_ok "CPPFLAGS=-D_FORTIFY_SOURCE=3 CFLAGS='-O2 -g' (environment)" CPPFLAGS=-D_FORTIFY_SOURCE=3 CFLAGS="-O2 -g"
build_ok "CFLAGS='-O0 -g -Wconversion -Wpadded' (environment)" CFLAGS="-O0 -g -Wconversion -Wpadded"
werror=$(make -n -C "$src" clean all 2>/dev/null | grep -c -- '-Werror' || true)
if [ "$werror" = 0 ]; then result 0 "build: no -Werror unless WERROR=1"
else result 1 "build: no -Werror unless WERROR=1"; fi

# --- udev ----------------------------------------------------------------------------
hwdb=udev/60-growth-hints.hwdb
bad=$(awk '
	/^#/ || /^$/ { if (inrec && n != 4) print "record at line " start " has " n " of the 4 properties"; inrec = 0; n = 0; next }
	/^[^ ]/ { if (!inrec) { inrec = 1; start = NR }; next }
	/^ ID_GROWTH_(MIN|MAX|INCREMENT)_BYTES=[0-9]+$/ { n++; next }
	/^ ID_GROWTH_SOURCE=table$/ { n++; next }
	{ print "line " NR ": not a udev property in bytes: " $0 }
	END { if (inrec && n != 4) print "last record has " n " of the 4 properties" }' "$hwdb")
if [ -z "$bad" ]; then result 0 "udev: every hwdb record sets ID_GROWTH_{MIN,MAX,INCREMENT}_BYTES and ID_GROWTH_SOURCE=table"
else echo "$bad" | diag; result 1 "udev: every hwdb record sets ID_GROWTH_{MIN,MAX,INCREMENT}_BYTES and ID_GROWTH_SOURCE=table"; fi

# The rule names the properties the util-linux work uses, and both sources.
rules=udev/60-growth-hints.rules
want="ID_GROWTH_MIN_BYTES ID_GROWTH_MAX_BYTES ID_GROWTH_INCREMENT_BYTES ID_GROWTH_SOURCE"
got=$(grep -o 'ENV{ID_GROWTH_[A-Z_]*}=' "$rules" | sed 's/ENV{\(.*\)}=/\1/' | sort -u | tr '\n' ' ')
if [ "$got" = "$(echo "$want" | tr ' ' '\n' | sort -u | tr '\n' ' ')" ] &&
	grep -q 'ENV{ID_GROWTH_SOURCE}="device"' "$rules" &&
	[ "$(grep -c "IMPORT{builtin}=\"hwdb 'growth:" "$rules")" = 3 ]; then
	result 0 "udev: the rule sets $want (device) and imports the hwdb for nvme, scsi, virtio"
else
	echo "set: $got" | diag
	result 1 "udev: the rule sets $want (device) and imports the hwdb for nvme, scsi, virtio"
fi

hwdb_tool=$(command -v systemd-hwdb || true)
if [ -z "$hwdb_tool" ]; then
	result skip "udev: systemd-hwdb compiles the fragment and finds every record" "systemd-hwdb is not installed (Debian package udev)"
else
	root="$tmp/hwdbroot"
	mkdir -p "$root/etc/udev/hwdb.d"
	cp "$hwdb" "$root/etc/udev/hwdb.d/"
	ok=1
	"$hwdb_tool" --root="$root" update > "$tmp/hwdb.log" 2>&1 || ok=0
	for key in "growth:nvme:mAmazon Elastic Block Store" "growth:scsi:vGoogle:mPersistentDisk" \
		"growth:nvme:mnvme_card-pd" "growth:scsi:vMsft:mVirtual Disk" "growth:nvme:mMSFT NVMe Accelerator v1.0"; do
		q=$("$hwdb_tool" --root="$root" query "$key" 2>>"$tmp/hwdb.log" || true)
		case $q in
		*ID_GROWTH_MAX_BYTES=*ID_GROWTH_SOURCE=table* | *ID_GROWTH_SOURCE=table*ID_GROWTH_MAX_BYTES=*) ;;
		*) ok=0; echo "$key: $q" >> "$tmp/hwdb.log" ;;
		esac
	done
	if [ $ok = 1 ]; then result 0 "udev: systemd-hwdb compiles the fragment and finds every record"
	else diag < "$tmp/hwdb.log"; result 1 "udev: systemd-hwdb compiles the fragment and finds every record"; fi
fi

echo "KTAP version 1"
echo "1..$n"
cat "$out"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
