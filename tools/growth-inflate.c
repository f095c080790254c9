// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * growth-inflate: write a disk image onto a disk (or a file) as filesystems made for
 * that disk.  The partition table is carried over (the last partition extended to the
 * end), partitions that are not ext2/3/4 or XFS are copied byte for byte, and ext2/3/4
 * and XFS are made anew by mkfs on the target partition, which reads the disk's growth
 * hints, with the source's UUID, label, block and inode size and features, then the
 * files are copied into them.  Only the layout changes.  growth-inflate(8).
 *
 * Order of work: every check (image, source filesystems, target, hints, programs)
 * before the first write; then an interim partition table without the source's
 * identity (so that mkfs sees the partitions, and libblkid their hints, where they
 * will be); each filesystem is made with a temporary UUID and label and gets its own
 * last; the source's partition table is written last of all.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "growth-hints.h"
#include "inflate.h"

#ifndef GH_VERSION
#define GH_VERSION "0"
#endif

int gi_quiet;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, GI_PROG ": %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void gi_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void gi_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void gi_info(const char *fmt, ...)
{
	va_list ap;

	if (gi_quiet)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void gi_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	gh_format_size(b, buf, len);
}

/* ---- programs ---------------------------------------------------------------------- */

int gi_run(char *const *argv, char **out)
{
	int p[2], st;
	size_t n = 0, cap = 0;
	char *buf = NULL;
	pid_t pid;
	ssize_t r;

	if (out)
		*out = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		if (n + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		r = read(p[0], buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = buf;
	else
		free(buf);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

void gi_sibling(const char *prog, const char *name, char *out, size_t len)
{
	const char *slash = strrchr(prog, '/');

	if (slash) {
		snprintf(out, len, "%.*s/%s", (int)(slash - prog), prog, name);
		if (access(out, X_OK) == 0)
			return;
	}
	snprintf(out, len, "%s", name);
}

/* Print a program's output, indented, at most LINES lines. */
static void show_output(const char *out, int lines)
{
	const char *p = out, *nl;

	while (p && *p && lines-- > 0) {
		nl = strchr(p, '\n');
		fprintf(stderr, "  %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

static int run_checked(const char *what, char *const *argv)
{
	char *out = NULL;
	int rc = gi_run(argv, &out);

	if (rc != 0) {
		struct gi_argv a = { 0 };
		char *s;
		int i;

		for (i = 0; argv[i]; i++)
			gi_argv_add(&a, "%s", argv[i]);
		s = gi_argv_str(&a);
		gi_err("%s failed (exit status %d): %s", what, rc, s);
		show_output(out, 20);
		free(s);
		gi_argv_free(&a);
	}
	free(out);
	return rc == 0 ? 0 : -1;
}

/* ---- options ------------------------------------------------------------------------ */

struct opts {
	const char *image, *target;
	int has_size, verify;
	uint64_t size;
	struct gh_overrides ov;
	const char *mkfs_xfs, *mke2fs, *qemu_img;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " GI_PROG " [--size=BYTES] [--growth-min=BYTES] [--growth-max=BYTES]\n"
		"                      [--growth-increment=BYTES] [--verify] [--quiet] IMAGE TARGET\n"
		"Writes the disk image IMAGE (raw or qcow2; GPT, MBR or a bare ext2/3/4 or XFS\n"
		"filesystem) onto TARGET (a block device, or a file created or truncated to --size)\n"
		"as filesystems made for TARGET by mkfs, with the growth hints of TARGET.\n"
		"options:\n"
		"  --size=BYTES              size of a file TARGET (K/M/G/T suffixes)\n"
		"  --growth-min=BYTES        growth hints of TARGET: override the device's, or\n"
		"  --growth-max=BYTES          give a file TARGET some\n"
		"  --growth-increment=BYTES\n"
		"  --verify                  compare a digest of both trees after the copy\n"
		"  --quiet                   no progress line and no summary\n"
		"  --mkfs-xfs=PROG, --mke2fs=PROG, --qemu-img=PROG   the programs to run\n"
		"  --version, --help\n"
		"environment: GROWTH_INFLATE_MKFS_XFS, GROWTH_INFLATE_MKE2FS, GROWTH_INFLATE_QEMU_IMG\n"
		"see growth-inflate(8)\n");
}

static int size_opt(const char *name, const char *arg, uint64_t *v)
{
	if (gh_parse_size(arg, v) < 0) {
		gi_err("%s: not a size: '%s'", name, arg);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { O_SIZE = 256, O_MIN, O_MAX, O_INC, O_VERIFY, O_QUIET, O_XFS, O_E2, O_QEMU, O_VER, O_HELP };
	static const struct option lo[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "growth-min", required_argument, NULL, O_MIN },
		{ "growth-max", required_argument, NULL, O_MAX },
		{ "growth-increment", required_argument, NULL, O_INC },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "mkfs-xfs", required_argument, NULL, O_XFS },
		{ "mke2fs", required_argument, NULL, O_E2 },
		{ "qemu-img", required_argument, NULL, O_QEMU },
		{ "version", no_argument, NULL, O_VER },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case O_SIZE:
			if (size_opt("--size", optarg, &o->size) < 0)
				return -1;
			o->has_size = 1;
			break;
		case O_MIN:
			if (size_opt("--growth-min", optarg, &o->ov.min) < 0)
				return -1;
			o->ov.has_min = 1;
			break;
		case O_MAX:
			if (size_opt("--growth-max", optarg, &o->ov.max) < 0)
				return -1;
			o->ov.has_max = 1;
			break;
		case O_INC:
			if (size_opt("--growth-increment", optarg, &o->ov.increment) < 0)
				return -1;
			o->ov.has_increment = 1;
			break;
		case O_VERIFY:
			o->verify = 1;
			break;
		case 'q':
		case O_QUIET:
			gi_quiet = 1;
			break;
		case O_XFS:
			o->mkfs_xfs = optarg;
			break;
		case O_E2:
			o->mke2fs = optarg;
			break;
		case O_QEMU:
			o->qemu_img = optarg;
			break;
		case O_VER:
			printf(GI_PROG " %s\n", GH_VERSION);
			exit(0);
		case 'h':
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (argc - optind != 2) {
		gi_err("expected IMAGE and TARGET");
		usage(stderr);
		return -1;
	}
	o->image = argv[optind];
	o->target = argv[optind + 1];
	if (!o->mkfs_xfs)
		o->mkfs_xfs = getenv("GROWTH_INFLATE_MKFS_XFS");
	if (!o->mkfs_xfs || !*o->mkfs_xfs)
		o->mkfs_xfs = "mkfs.xfs";
	if (!o->mke2fs)
		o->mke2fs = getenv("GROWTH_INFLATE_MKE2FS");
	if (!o->mke2fs || !*o->mke2fs)
		o->mke2fs = "mke2fs";
	if (!o->qemu_img)
		o->qemu_img = getenv("GROWTH_INFLATE_QEMU_IMG");
	if (!o->qemu_img || !*o->qemu_img)
		o->qemu_img = "qemu-img";
	return 0;
}

/* ---- the image's format ------------------------------------------------------------- */

static uint32_t rd_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd_be64(const unsigned char *p)
{
	return (uint64_t)rd_be32(p) << 32 | rd_be32(p + 4);
}

static char tmpdir[1024];

/*
 * Open IMAGE read-only; a qcow2 is converted to a temporary sparse raw file by
 * qemu-img (refused with a backing file, an external data file or encryption);
 * other formats are refused by name.  The descriptor of the raw image, or -1.
 */
static int open_image(const struct opts *o, struct gi_image *img)
{
	unsigned char h[512];
	struct stat st;
	int fd;

	fd = open(o->image, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gi_err("cannot open %s: %s", o->image, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		gi_err("%s: not a regular file or block device", o->image);
		close(fd);
		return -1;
	}
	memset(h, 0, sizeof(h));
	if (pread(fd, h, sizeof(h), 0) < 0) {
		gi_err("cannot read %s: %s", o->image, strerror(errno));
		close(fd);
		return -1;
	}
	if (!memcmp(h, "QFI\xfb", 4)) {
		uint32_t version = rd_be32(h + 4);
		uint64_t backing = rd_be64(h + 8), incompat = version >= 3 ? rd_be64(h + 72) : 0;
		uint32_t crypt = rd_be32(h + 32);
		char raw[PATH_MAX], *out = NULL;
		struct gi_argv a = { 0 };
		int rfd, rc;

		if (backing) {
			gi_err("%s: a qcow2 image with a backing file cannot be inflated on its own: "
			       "flatten it first (qemu-img convert -O qcow2 %s flat.qcow2)", o->image,
			       o->image);
			close(fd);
			return -1;
		}
		if (incompat & 4) {
			gi_err("%s: a qcow2 image with an external data file is not supported", o->image);
			close(fd);
			return -1;
		}
		if (crypt) {
			gi_err("%s: an encrypted qcow2 image is not supported", o->image);
			close(fd);
			return -1;
		}
		snprintf(raw, sizeof(raw), "%s/image.raw", tmpdir);
		gi_argv_add(&a, "%s", o->qemu_img);
		gi_argv_add(&a, "convert");
		gi_argv_add(&a, "-q");
		gi_argv_add(&a, "-f");
		gi_argv_add(&a, "qcow2");
		gi_argv_add(&a, "-O");
		gi_argv_add(&a, "raw");
		gi_argv_add(&a, "%s", o->image);
		gi_argv_add(&a, "%s", raw);
		gi_info("%s is qcow2: converting it to a temporary sparse raw image with %s", o->image,
			o->qemu_img);
		rc = gi_run(a.argv, &out);
		gi_argv_free(&a);
		close(fd);
		if (rc != 0) {
			gi_err("%s: qemu-img cannot convert it (exit status %d)%s", o->image, rc,
			       rc == 127 ? ": qemu-img not found (--qemu-img, GROWTH_INFLATE_QEMU_IMG)" : "");
			show_output(out, 10);
			free(out);
			unlink(raw);
			return -1;
		}
		free(out);
		rfd = open(raw, O_RDONLY | O_CLOEXEC);
		unlink(raw);	/* gone when the run ends, however it ends */
		if (rfd < 0 || fstat(rfd, &st) < 0) {
			gi_err("cannot open the converted image: %s", strerror(errno));
			return -1;
		}
		img->size = (uint64_t)st.st_size;
		return rfd;
	}
	{
		static const struct { size_t off; const char *magic; size_t len; const char *name; } f[] = {
			{ 0, "KDMV", 4, "VMDK" }, { 0, "vhdxfile", 8, "VHDX" }, { 0, "conectix", 8, "VHD" },
			{ 0, "\x3a\xff\x26\xed", 4, "Android sparse" }, { 0, "\x1f\x8b", 2, "gzip" },
			{ 0, "\xfd" "7zXZ", 5, "xz" }, { 0, "\x28\xb5\x2f\xfd", 4, "zstd" },
			{ 0, "BZh", 3, "bzip2" }, { 64, "\x7f\x10\xda\xbe", 4, "VDI" },
		};
		size_t i;

		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (!memcmp(h + f[i].off, f[i].magic, f[i].len)) {
				gi_err("%s: a %s image: growth-inflate reads raw and qcow2 images%s",
				       o->image, f[i].name, i >= 4 && i <= 7 ? " (decompress it first)" :
				       " (qemu-img convert -O raw makes one)");
				close(fd);
				return -1;
			}
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &img->size) < 0) {
			gi_err("%s: cannot get its size: %s", o->image, strerror(errno));
			close(fd);
			return -1;
		}
	} else {
		img->size = (uint64_t)st.st_size;
	}
	return fd;
}

/* ---- the target ------------------------------------------------------------------------ */

struct target {
	const char *path;
	int file;		/* a regular file (or to be created) */
	int exists;
	int fd;			/* the disk: the device (O_EXCL until partitions are made), or the file */
	uint64_t size;
	unsigned sector;
	char disk[64];		/* kernel name of the disk the filesystems are made on */
	char diskdev[PATH_MAX];
	int loopfd;		/* a file target's loop device */
	int partition;		/* the target is a partition of a disk */
	struct gh_hints h;
	int hints_view;		/* the hints are shown to mkfs through a private sysfs view */
	uint64_t written0;	/* sectors written by the disk before the run */
};

/* Is DEV (or a partition of it) mounted?  The mount point in WHERE. */
static int mounted(dev_t dev, int whole, char *where, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], mp[PATH_MAX];
	unsigned maj, mnr;
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &mnr, mp) != 3)
			continue;
		if (makedev(maj, mnr) == dev) {
			found = 1;
		} else if (whole) {
			char sys[128], real[PATH_MAX], real2[PATH_MAX];

			/* a partition of it: its sysfs directory is below the disk's */
			snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", maj, mnr);
			if (realpath(sys, real)) {
				snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(dev), minor(dev));
				if (realpath(sys, real2) && !strncmp(real, real2, strlen(real2)) &&
				    real[strlen(real2)] == '/')
					found = 1;
			}
		}
		if (found)
			snprintf(where, len, "%s", mp);
	}
	fclose(f);
	return found;
}

static void fix_option_names(char *err)
{
	static const char *const from[] = { "--min/--max/--increment", "--min/--increment", "--max " };
	static const char *const to[] = { "--growth-min/--growth-max/--growth-increment",
					  "--growth-min/--growth-increment", "--growth-max " };
	char buf[GH_ERR_MAX * 2];
	size_t i;
	char *p;

	for (i = 0; i < 3; i++) {
		p = strstr(err, from[i]);
		if (!p)
			continue;
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - err), err, to[i], p + strlen(from[i]));
		buf[GH_ERR_MAX - 1] = '\0';
		memcpy(err, buf, strlen(buf) + 1);
	}
}

/* Open and check the target; its hints.  0, or -1 (nothing written). */
static int open_target(const struct opts *o, struct target *t, int partitioned)
{
	char err[GH_ERR_MAX], where[PATH_MAX];
	struct stat st;

	t->path = o->target;
	t->fd = t->loopfd = -1;
	if (stat(o->target, &st) < 0) {
		if (errno != ENOENT) {
			gi_err("%s: %s", o->target, strerror(errno));
			return -1;
		}
		t->file = 1;
	} else if (S_ISREG(st.st_mode)) {
		t->file = t->exists = 1;
	} else if (!S_ISBLK(st.st_mode)) {
		gi_err("%s: not a block device or a regular file", o->target);
		return -1;
	}
	if (t->file) {
		if (!o->has_size && !t->exists) {
			gi_err("%s does not exist: --size is needed to create it", o->target);
			return -1;
		}
		t->size = o->has_size ? o->size : (uint64_t)st.st_size;
		if (!t->size || t->size % 512) {
			gi_err("%s: the size must be a positive multiple of 512 bytes", o->target);
			return -1;
		}
		t->sector = 512;
		memset(&t->h, 0, sizeof(t->h));
		snprintf(t->h.name, sizeof(t->h.name), "%s", "TARGET");
		t->h.size = t->h.disk_size = t->size;
		t->h.logical_block = 512;
		snprintf(t->h.origin, sizeof(t->h.origin), "a file has no hints of its own");
	} else {
		if (o->has_size) {
			gi_err("--size is for a file TARGET; %s is a block device", o->target);
			return -1;
		}
		/* O_EXCL: fails while it is mounted, or held by a mount, mkfs, LVM, md ... */
		t->fd = open(o->target, O_RDWR | O_EXCL | O_CLOEXEC);
		if (t->fd < 0) {
			if (errno == EBUSY) {
				if (mounted(st.st_rdev, 1, where, sizeof(where)))
					gi_err("%s is mounted (on %s): nothing was written", o->target, where);
				else
					gi_err("%s is in use (held open exclusively by a mount, a "
					       "filesystem tool, LVM, md or device mapper): nothing was written",
					       o->target);
			} else {
				gi_err("cannot open %s: %s", o->target, strerror(errno));
			}
			return -1;
		}
		if (ioctl(t->fd, BLKGETSIZE64, &t->size) < 0 ||
		    ioctl(t->fd, BLKSSZGET, &t->sector) < 0) {
			gi_err("%s: cannot get its size: %s", o->target, strerror(errno));
			return -1;
		}
		if (gh_probe(NULL, o->target, &t->h, err, sizeof(err)) < 0) {
			gi_err("%s", err);
			return -1;
		}
		t->partition = t->h.partition;
		snprintf(t->disk, sizeof(t->disk), "%s", t->h.name);
		snprintf(t->diskdev, sizeof(t->diskdev), "%s", o->target);
		if (partitioned && t->partition) {
			gi_err("%s is a partition: a whole-disk image needs a whole disk", o->target);
			return -1;
		}
		if (t->partition && (o->ov.has_min || o->ov.has_max || o->ov.has_increment)) {
			gi_err("--growth-* options need a whole disk or a file; %s is a partition, whose "
			       "hints follow its disk's", o->target);
			return -1;
		}
	}
	if (!o->ov.has_max && t->h.source == GH_SOURCE_NONE && (o->ov.has_min || o->ov.has_increment)) {
		gi_err("--growth-min and --growth-increment need a maximum: --growth-max, or a "
		       "device that has hints");
		return -1;
	}
	if (gh_apply_overrides(&t->h, &o->ov, err, sizeof(err)) < 0) {
		fix_option_names(err);
		gi_err("the growth hints do not fit %s: %s", o->target, err);
		return -1;
	}
	if (t->h.source == GH_SOURCE_OVERRIDE)
		snprintf(t->h.origin, sizeof(t->h.origin), "the --growth-* options");
	t->hints_view = t->h.source == GH_SOURCE_OVERRIDE;
	return 0;
}

/* Sectors the disk NAME has written (/sys/block/NAME/stat), 0 if unknown. */
static uint64_t sectors_written(const char *name)
{
	char path[256];
	unsigned long long v[7];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6]);
	fclose(f);
	return n == 7 ? v[6] : 0;
}

/*
 * Show mkfs the hints of the options: in this process's private mount namespace, the
 * disk's queue directory is replaced by a copy with the three growth files, so that
 * libblkid (in mkfs) reads them as it reads a hinted disk's, partition rule included.
 */
static int hints_view(struct target *t)
{
	char q[PATH_MAX], dir[PATH_MAX], path[PATH_MAX * 2], buf[256];
	struct dirent *de;
	DIR *d;

	snprintf(q, sizeof(q), "/sys/class/block/%s/queue", t->disk);
	snprintf(dir, sizeof(dir), "%s/queue", tmpdir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	d = opendir(q);
	if (!d) {
		gi_err("cannot read %s: %s", q, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		int in, out;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", q, de->d_name);
		in = open(path, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			continue;
		n = read(in, buf, sizeof(buf));
		close(in);
		if (n < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
		if (out >= 0) {
			if (write(out, buf, (size_t)n) != n)
				n = -1;
			close(out);
		}
	}
	closedir(d);
	{
		static const char *const names[3] = {
			"min_growth_bytes", "max_growth_bytes", "growth_increment_bytes",
		};
		const uint64_t v[3] = { t->h.min, t->h.max, t->h.increment };
		int i;
		FILE *f;

		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			f = fopen(path, "we");
			if (!f || fprintf(f, "%llu\n", (unsigned long long)v[i]) < 0 || fclose(f) != 0) {
				gi_err("cannot write %s", path);
				return -1;
			}
		}
	}
	if (mount(dir, q, NULL, MS_BIND, NULL) < 0) {
		gi_err("cannot show the growth hints to mkfs (bind mount on %s): %s", q, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- source filesystems ------------------------------------------------------------------ */

static struct gi_tools tools;

static int need_tool(const char *prog, char **help)
{
	char *argv[] = { (char *)prog, NULL };
	int rc = gi_run(argv, help);

	if (rc == 127 || rc < 0) {
		gi_err("cannot run %s: not found (--mkfs-xfs, --mke2fs, GROWTH_INFLATE_MKFS_XFS, "
		       "GROWTH_INFLATE_MKE2FS): nothing was written", prog);
		return -1;
	}
	return 0;
}

/* Attach the source filesystem read-only, check it, mount it, measure it. */
static int open_source_fs(struct gi_image *img, struct gi_part *p, const char *where)
{
	char err[512], mp[PATH_MAX];
	struct gi_argv a = { 0 };
	struct statvfs sv;
	char *out = NULL;
	struct stat st;
	int rc;

	if (gi_fs_refuse(&p->fs, err, sizeof(err)) < 0) {
		gi_err("%s: the %s filesystem cannot be inflated: %s", where, p->fstype, err);
		return -1;
	}
	/* a disk's own partitions where it is one (an initramfs may have no loop driver) */
	if (fstat(img->fd, &st) == 0 && S_ISBLK(st.st_mode))
		p->src_loop_fd = gi_blk_source(img->fd, p->start, p->fs.size, p->src_dev,
					       sizeof(p->src_dev), err, sizeof(err));
	else
		p->src_loop_fd = gi_loop_attach(img->fd, p->start, p->fs.size, 1, 0, p->src_dev,
						sizeof(p->src_dev), err, sizeof(err));
	if (p->src_loop_fd < 0) {
		gi_err("%s: %s", where, err);
		return -1;
	}
	/* a source that needs repair is refused: it would be copied as it is */
	if (p->fs.kind == GI_XFS) {
		gi_argv_add(&a, "%s", tools.xfs_repair);
		gi_argv_add(&a, "-n");
	} else {
		gi_argv_add(&a, "%s", tools.e2fsck);
		gi_argv_add(&a, "-fn");
	}
	gi_argv_add(&a, "%s", p->src_dev);
	rc = gi_run(a.argv, &out);
	if (rc != 0) {
		char *s = gi_argv_str(&a);

		gi_err("%s: the source %s filesystem needs repair or cannot be checked (%s: exit "
		       "status %d): nothing was written", where, p->fstype, s, rc);
		show_output(out, 12);
		free(s);
		free(out);
		gi_argv_free(&a);
		return -1;
	}
	free(out);
	gi_argv_free(&a);
	snprintf(mp, sizeof(mp), "%s/src%d", tmpdir, p->partno);
	mkdir(mp, 0700);
	if (mount(p->src_dev, mp, p->fs.kind == GI_XFS ? "xfs" : "ext4", MS_RDONLY | MS_NOATIME,
		  p->fs.kind == GI_XFS ? "norecovery" : "noload") < 0) {
		gi_err("%s: cannot mount the source %s read-only: %s", where, p->fstype, strerror(errno));
		return -1;
	}
	if (statvfs(mp, &sv) < 0) {
		gi_err("%s: statvfs: %s", where, strerror(errno));
		return -1;
	}
	p->used_bytes = (uint64_t)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
	p->used_inodes = (uint64_t)(sv.f_files - sv.f_ffree);
	gi_fs_notes(&p->fs, where);
	return 0;
}

/* ---- writing ------------------------------------------------------------------------------ */

static int zero_range(struct target *t, int fd, uint64_t off, uint64_t len)
{
	if (!len)
		return 0;
	if (t->file && t->loopfd < 0)
		return 0;	/* a fresh sparse file reads zeros */
	/*
	 * Unmapped where the device can guarantee zeros that way (a thin cloud volume keeps
	 * nothing), else written as zeros by the device or, last, by us.
	 */
	if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return 0;
	{
		uint64_t r[2] = { off, len };

		if (ioctl(fd, BLKZEROOUT, r) == 0)
			return 0;
	}
	{
		static char zeros[1 << 16];

		while (len) {
			size_t n = len > sizeof(zeros) ? sizeof(zeros) : (size_t)len;

			if (pwrite(fd, zeros, n, (off_t)off) != (ssize_t)n)
				return -1;
			off += n;
			len -= n;
		}
	}
	return 0;
}

static int all_zero(const char *b, size_t n)
{
	return n == 0 || (b[0] == 0 && !memcmp(b, b + 1, n - 1));
}

/* Copy [off, off + len) of the image to DST at DOFF: data only; zeros as zeros. */
static int raw_copy(struct gi_image *img, struct target *t, int fd, uint64_t off, uint64_t len,
		    uint64_t doff, struct gi_progress *pg, uint64_t *written)
{
	static char buf[1 << 20];
	uint64_t pos = off, end = off + len;

	while (pos < end) {
		off_t data = lseek(img->fd, (off_t)pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			data = (off_t)end;
		else if (data < 0)
			data = (off_t)pos;
		if ((uint64_t)data > end)
			data = (off_t)end;
		if (zero_range(t, fd, doff + (pos - off), (uint64_t)data - pos) < 0)
			return -1;
		if ((uint64_t)data >= end)
			break;
		hole = lseek(img->fd, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > end)
			hole = (off_t)end;
		for (pos = (uint64_t)data; pos < (uint64_t)hole;) {
			size_t n = (uint64_t)hole - pos > sizeof(buf) ? sizeof(buf) : (size_t)((uint64_t)hole - pos);
			ssize_t r = pread(img->fd, buf, n, (off_t)pos);

			if (r <= 0)
				return -1;
			if (all_zero(buf, (size_t)r)) {
				if (zero_range(t, fd, doff + (pos - off), (uint64_t)r) < 0)
					return -1;
			} else {
				if (pwrite(fd, buf, (size_t)r, (off_t)(doff + (pos - off))) != r)
					return -1;
				*written += (uint64_t)r;
			}
			pos += (uint64_t)r;
			gi_progress_tick(pg, (uint64_t)r, 0);
		}
	}
	return 0;
}

static int fs_identity(const struct gi_part *p, const char *uuid, const char *label, int final)
{
	struct gi_argv a = { 0 };
	int r;

	if (p->fs.kind == GI_XFS) {
		gi_argv_add(&a, "%s", tools.xfs_db);
		gi_argv_add(&a, "-x");
		gi_argv_add(&a, "-p");
		gi_argv_add(&a, "xfs_admin");
		gi_argv_add(&a, "-c");
		gi_argv_add(&a, "uuid %s", uuid);
		/* the label was set while mounted (set_label()); xfs_db cannot take one with
		 * blanks */
		if (label && *label && !strpbrk(label, " \t")) {
			gi_argv_add(&a, "-c");
			gi_argv_add(&a, "label %s", label);
		}
		gi_argv_add(&a, "%s", p->dst_dev);
		r = run_checked("setting the UUID", a.argv);
	} else {
		const struct gi_ext *e = &p->fs.e;
		static const struct { uint32_t bit; const char *name; } mo[] = {
			{ 0x1, "debug" }, { 0x2, "bsdgroups" }, { 0x4, "user_xattr" }, { 0x8, "acl" },
			{ 0x10, "uid16" }, { 0x100, "nobarrier" }, { 0x200, "block_validity" },
			{ 0x400, "discard" }, { 0x800, "nodelalloc" },
		};
		static const char *const jmode[4] = { "^journal_data", "journal_data",
						      "journal_data_ordered", "journal_data_writeback" };
		char opts[512] = "";
		size_t i;

		gi_argv_add(&a, "%s", tools.tune2fs);
		gi_argv_add(&a, "-U");
		gi_argv_add(&a, "%s", uuid);
		if (label) {
			gi_argv_add(&a, "-L");
			gi_argv_add(&a, "%s", label);
		}
		if (final) {
			for (i = 0; i < sizeof(mo) / sizeof(mo[0]); i++)
				snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s%s",
					 *opts ? "," : "", e->default_mount_opts & mo[i].bit ? "" : "^",
					 mo[i].name);
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), ",%s",
				 jmode[(e->default_mount_opts >> 5) & 3]);
			gi_argv_add(&a, "-o");
			gi_argv_add(&a, "%s", opts);
			gi_argv_add(&a, "-e");
			gi_argv_add(&a, "%s", e->errors == 3 ? "panic" : e->errors == 2 ? "remount-ro" :
				    "continue");
			gi_argv_add(&a, "-c");
			gi_argv_add(&a, "%d", e->max_mnt_count);
			gi_argv_add(&a, "-i");
			gi_argv_add(&a, "%us", e->checkinterval);
			gi_argv_add(&a, "-u");
			gi_argv_add(&a, "%u", e->def_resuid);
			gi_argv_add(&a, "-g");
			gi_argv_add(&a, "%u", e->def_resgid);
			if (e->mount_opts[0]) {
				gi_argv_add(&a, "-E");
				gi_argv_add(&a, "mount_opts=%s", e->mount_opts);
			}
		}
		gi_argv_add(&a, "%s", p->dst_dev);
		r = run_checked("setting the UUID", a.argv);
		gi_argv_free(&a);
		/* the checksum seed that let the UUID change cheaply goes with it */
		if (r == 0 && final && (e->ro_compat & 0x400) && !(e->incompat & 0x2000)) {
			gi_argv_add(&a, "%s", tools.tune2fs);
			gi_argv_add(&a, "-O");
			gi_argv_add(&a, "^metadata_csum_seed");
			gi_argv_add(&a, "%s", p->dst_dev);
			r = run_checked("clearing metadata_csum_seed", a.argv);
		}
	}
	gi_argv_free(&a);
	return r;
}

/* The label, on the mounted filesystem (any label, blanks included). */
static int set_label(const char *mp, const char *label)
{
	char l[FSLABEL_MAX];
	int fd = open(mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	memset(l, 0, sizeof(l));
	snprintf(l, sizeof(l), "%s", label);
	r = ioctl(fd, FS_IOC_SETFSLABEL, l);
	close(fd);
	return r;
}

static int read_made(const struct gi_part *p, struct gi_fs *made)
{
	char err[256];
	int fd = open(p->dst_dev, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0) {
		gi_err("cannot open %s: %s", p->dst_dev, strerror(errno));
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	ioctl(fd, BLKFLSBUF, 0);
	r = gi_fs_read(fd, 0, p->fstype, made, err, sizeof(err));
	close(fd);
	if (r < 0)
		gi_err("%s: the filesystem made: %s", p->dst_dev, err);
	return r;
}

struct run {
	uint64_t data_written;
	uint64_t files;
	struct gi_copy_stats st;
	char made[512];
	int verified;
	char digest[65];
};

static int compare_records(const char *a, const char *b)
{
	const char *pa = a, *pb = b;

	while (*pa || *pb) {
		const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
		size_t la = ea ? (size_t)(ea - pa) : strlen(pa), lb = eb ? (size_t)(eb - pb) : strlen(pb);

		if (la != lb || memcmp(pa, pb, la)) {
			gi_err("--verify: the trees differ:");
			fprintf(stderr, "  source: %.*s\n  copy:   %.*s\n", (int)la, pa, (int)lb, pb);
			return -1;
		}
		pa += la + (ea ? 1 : 0);
		pb += lb + (eb ? 1 : 0);
	}
	return 0;
}

/* Make one filesystem anew on p->dst_dev and copy the source's files into it. */
static int inflate_fs(const struct opts *o, struct gi_part *p, struct gi_progress *pg,
		      struct run *run, const char *where)
{
	char err[1024], mp[PATH_MAX], src[PATH_MAX], temp[37];
	struct gi_argv a = { 0 };
	struct gi_fs made;
	struct gi_copy_stats st = { 0 };
	char *s;
	int r;

	if (gi_mkfs_argv(&p->fs, p->fs.kind == GI_XFS ? tools.mkfs_xfs : tools.mke2fs,
			 p->fs.kind == GI_XFS ? tools.xfs_help : tools.e2_help, p->dst_dev, &a, err,
			 sizeof(err)) < 0) {
		gi_err("%s: %s", where, err);
		return -1;
	}
	s = gi_argv_str(&a);
	gi_info("%s: %s", where, s);
	free(s);
	r = run_checked("mkfs", a.argv);
	gi_argv_free(&a);
	if (r < 0 || read_made(p, &made) < 0)
		return -1;
	if (gi_fs_compare(&p->fs, &made, 0, err, sizeof(err)) < 0) {
		gi_err("%s: mkfs did not make the source's filesystem: %s", where, err);
		return -1;
	}
	/* the UUID is the source's only when the copy is complete */
	gi_temp_uuid(&p->fs, temp);
	if (fs_identity(p, temp, NULL, 0) < 0)
		return -1;
	snprintf(mp, sizeof(mp), "%s/dst%d", tmpdir, p->partno);
	snprintf(src, sizeof(src), "%s/src%d", tmpdir, p->partno);
	mkdir(mp, 0700);
	if (mount(p->dst_dev, mp, p->fs.kind == GI_XFS ? "xfs" : "ext4", 0,
		  p->fs.kind == GI_XFS ? "" : "noinit_itable") < 0) {
		gi_err("%s: cannot mount the new filesystem: %s", where, strerror(errno));
		return -1;
	}
	r = gi_copy_tree(src, mp, p->fs.kind == GI_XFS && (p->fs.x.ro_compat & 0x4), pg, &st, err,
			 sizeof(err));
	if (r == 0 && set_label(mp, p->fs.label) < 0 && p->fs.kind == GI_XFS &&
	    strpbrk(p->fs.label, " \t")) {
		snprintf(err, sizeof(err), "cannot set the label '%s' (FS_IOC_SETFSLABEL): %s",
			 p->fs.label, strerror(errno));
		r = -1;
	}
	if (umount2(mp, 0) < 0 && r == 0) {
		gi_err("%s: cannot unmount the new filesystem: %s", where, strerror(errno));
		return -1;
	}
	if (r < 0) {
		gi_err("%s: copying: %s", where, err);
		return -1;
	}
	p->files = st.files + st.dirs + st.symlinks + st.specials + st.hardlinks;
	run->files += p->files;
	run->data_written += st.bytes;
	run->st.files += st.files;
	run->st.dirs += st.dirs;
	run->st.symlinks += st.symlinks;
	run->st.specials += st.specials;
	run->st.hardlinks += st.hardlinks;
	run->st.bytes += st.bytes;
	run->st.xattrs += st.xattrs;
	if (st.reflinked)
		gi_warn("%s: %llu files shared extents with others (reflink) in the source; the copy "
			"stores each separately", where, (unsigned long long)st.reflinked);
	if (st.verity)
		gi_warn("%s: %llu files had fs-verity: the copy does not (enable it again with "
			"fsverity enable)", where, (unsigned long long)st.verity);

	if (o->verify) {
		char d1[65], d2[65], *r1 = NULL, *r2 = NULL;
		size_t n1 = 0, n2 = 0;

		if (mount(p->dst_dev, mp, p->fs.kind == GI_XFS ? "xfs" : "ext4", MS_RDONLY, "") < 0) {
			gi_err("%s: cannot mount the copy to verify it: %s", where, strerror(errno));
			return -1;
		}
		r = gi_tree_digest(src, d1, &r1, &n1, err, sizeof(err));
		if (r == 0)
			r = gi_tree_digest(mp, d2, &r2, &n2, err, sizeof(err));
		umount2(mp, 0);
		if (r < 0) {
			gi_err("%s: --verify: %s", where, err);
			free(r1);
			free(r2);
			return -1;
		}
		if (strcmp(d1, d2)) {
			compare_records(r1, r2);
			free(r1);
			free(r2);
			return -2;
		}
		gi_info("%s: verified: %zu entries, contents and metadata digest %.16s", where, n1, d1);
		run->verified++;
		free(r1);
		free(r2);
	}
	/* last: the source's UUID and label */
	if (fs_identity(p, p->fs.uuid_str, p->fs.label, 1) < 0 || read_made(p, &made) < 0)
		return -1;
	if (gi_fs_compare(&p->fs, &made, 1, err, sizeof(err)) < 0) {
		gi_err("%s: %s", where, err);
		return -1;
	}
	snprintf(run->made + strlen(run->made), sizeof(run->made) - strlen(run->made), "%s%s on %s",
		 run->made[0] ? ", " : "", p->fstype, where);
	if (made.kind == GI_XFS)
		snprintf(run->made + strlen(run->made), sizeof(run->made) - strlen(run->made),
			 " (%u AGs of %llu MiB)", made.x.agcount,
			 (unsigned long long)made.x.agblocks * made.x.blocksize >> 20);
	else
		snprintf(run->made + strlen(run->made), sizeof(run->made) - strlen(run->made),
			 " (%u block groups)", made.e.groups);
	return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

static void on_signal(int sig)
{
	/* mounts die with the private namespace, loop devices clear themselves */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void rm_entries(const char *dir)
{
	char f[PATH_MAX * 2];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			umount2(f, MNT_DETACH);
			if (!strcmp(de->d_name, "queue"))
				rm_entries(f);
			rmdir(f);
		} else {
			unlink(f);
		}
	}
	if (d)
		closedir(d);
}

static void cleanup_tmpdir(void)
{
	if (!tmpdir[0])
		return;
	rm_entries(tmpdir);
	rmdir(tmpdir);
}

static const char *part_where(const struct gi_image *img, const struct gi_part *p, char *buf,
			      size_t len)
{
	if (!img->label[0])
		snprintf(buf, len, "filesystem");
	else
		snprintf(buf, len, "partition %d", p->partno);
	return buf;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct gi_image *img;
	struct target t = { 0 };
	struct gi_progress pg = { 0 };
	struct run run = { 0 };
	char err[1024], where[64], b1[32], b2[32], b3[32];
	struct rlimit rl;
	const char *td;
	int i, need_root = 0, rc;
	uint64_t total = 0, tail = 0, needed_end = 0, w1;
	double t0 = gi_now();

	setvbuf(stderr, NULL, _IOLBF, 0);
	gi_test_kill = getenv("GROWTH_INFLATE_TEST_KILL") &&
		       !strcmp(getenv("GROWTH_INFLATE_TEST_KILL"), "copy");
	if (parse(argc, argv, &o) < 0)
		return GI_EXIT_USAGE;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	img = calloc(1, sizeof(*img));
	if (!img)
		abort();
	td = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/growth-inflate.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmpdir)) {
		gi_err("cannot make a temporary directory %s: %s", tmpdir, strerror(errno));
		return GI_EXIT_FAIL;
	}
	atexit(cleanup_tmpdir);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);

	/* ---- the image ---- */
	{
		struct stat a, b;

		if (stat(o.image, &a) == 0 && stat(o.target, &b) == 0 &&
		    ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
		     (S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev))) {
			gi_err("IMAGE and TARGET are the same file");
			return GI_EXIT_USAGE;
		}
	}
	img->path = o.image;
	img->fd = open_image(&o, img);
	if (img->fd < 0)
		return GI_EXIT_SOURCE;
	if (gi_image_read(img, err, sizeof(err)) < 0) {
		gi_err("%s: nothing was written", err);
		return GI_EXIT_SOURCE;
	}
	for (i = 0; i < img->nparts; i++)
		if (img->parts[i].fs.kind != GI_RAW)
			need_root = 1;
	if (need_root && geteuid() != 0) {
		gi_err("%s has ext2/3/4 or XFS filesystems: making them and copying their files "
		       "needs root (loop devices, mounts): nothing was written", o.image);
		return GI_EXIT_SOURCE;
	}

	/* ---- programs ---- */
	tools.mkfs_xfs = o.mkfs_xfs;
	tools.mke2fs = o.mke2fs;
	gi_sibling(o.mkfs_xfs, "xfs_db", tools.xfs_db, sizeof(tools.xfs_db));
	gi_sibling(o.mkfs_xfs, "xfs_repair", tools.xfs_repair, sizeof(tools.xfs_repair));
	gi_sibling(o.mke2fs, "tune2fs", tools.tune2fs, sizeof(tools.tune2fs));
	gi_sibling(o.mke2fs, "e2fsck", tools.e2fsck, sizeof(tools.e2fsck));
	for (i = 0; i < img->nparts; i++) {
		if (img->parts[i].fs.kind == GI_XFS && !tools.xfs_help &&
		    (need_tool(tools.mkfs_xfs, &tools.xfs_help) < 0 || need_tool(tools.xfs_db, NULL) < 0 ||
		     need_tool(tools.xfs_repair, NULL) < 0))
			return GI_EXIT_FAIL;
		if (img->parts[i].fs.kind == GI_EXT && !tools.e2_help &&
		    (need_tool(tools.mke2fs, &tools.e2_help) < 0 || need_tool(tools.tune2fs, NULL) < 0 ||
		     need_tool(tools.e2fsck, NULL) < 0))
			return GI_EXIT_FAIL;
	}

	/* ---- the target ---- */
	if (open_target(&o, &t, img->label[0] != '\0') < 0)
		return GI_EXIT_TARGET;

	/* ---- the source filesystems: checked, mounted read-only in a private namespace ---- */
	if (need_root) {
		if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			gi_err("cannot make a private mount namespace: %s", strerror(errno));
			return GI_EXIT_FAIL;
		}
	}
	for (i = 0; i < img->nparts; i++) {
		struct gi_part *p = &img->parts[i];

		part_where(img, p, where, sizeof(where));
		if (p->fs.kind == GI_RAW) {
			total += p->size;
			continue;
		}
		if (open_source_fs(img, p, where) < 0)
			return GI_EXIT_SOURCE;
		total += p->used_bytes;
	}

	/* ---- sizes ---- */
	if (img->label[0]) {
		uint64_t usable_end;

		tail = gi_table_tail(img, t.size);
		if (t.sector != img->sector) {
			gi_err("%s has %u-byte sectors, the image's partition table %u-byte ones: "
			       "nothing was written", o.target, t.sector, img->sector);
			return GI_EXIT_TARGET;
		}
		usable_end = t.size > tail ? (t.size - tail) / img->sector * img->sector : 0;
		for (i = 0; i < img->nparts; i++) {
			struct gi_part *p = &img->parts[i];

			if (!p->last) {
				p->new_size = p->size;
				if (p->start + p->size > needed_end)
					needed_end = p->start + p->size;
				continue;
			}
			/* libfdisk aligns the end down to its grain (1 MiB) */
			p->new_size = usable_end / (1 << 20) * (1 << 20) > p->start ?
				      usable_end / (1 << 20) * (1 << 20) - p->start : 0;
			if (!strcmp(img->label, "dos") && p->new_size > 0xffffffffULL * 512)
				p->new_size = 0xffffffffULL * 512;
		}
	} else {
		img->parts[0].new_size = t.size;
	}
	for (i = 0; i < img->nparts; i++) {
		struct gi_part *p = &img->parts[i];
		uint64_t need = p->fs.kind == GI_RAW ? p->size :
				gi_fs_min_size(&p->fs, p->used_bytes, p->used_inodes);

		if (!p->last)
			continue;
		if (p->start + need + tail > t.size || p->start + need + tail < p->start ||
		    needed_end + tail > t.size) {
			gi_fmt_bytes(t.size, b1, sizeof(b1));
			gi_fmt_bytes(p->start + need + tail > needed_end + tail ? p->start + need + tail :
				     needed_end + tail, b2, sizeof(b2));
			gi_fmt_bytes(p->used_bytes, b3, sizeof(b3));
			if (p->fs.kind == GI_RAW)
				gi_err("%s (%s) is too small: the partitions need %s: nothing was written",
				       o.target, b1, b2);
			else
				gi_err("%s (%s) is too small: the partitions before the last and the %s of "
				       "used data (%llu inodes) of the last need %s: nothing was written",
				       o.target, b1, b3, (unsigned long long)p->used_inodes, b2);
			return GI_EXIT_TARGET;
		}
	}

	/* ---- every check has passed: writing ---- */
	if (t.file) {
		t.fd = open(o.target, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (t.fd < 0 || ftruncate(t.fd, 0) < 0 || ftruncate(t.fd, (off_t)t.size) < 0) {
			gi_err("cannot create %s of %llu bytes: %s", o.target, (unsigned long long)t.size,
			       strerror(errno));
			return GI_EXIT_FAIL;
		}
		if (need_root) {
			t.loopfd = gi_loop_attach(t.fd, 0, 0, 0, 1, t.diskdev, sizeof(t.diskdev), err,
						  sizeof(err));
			if (t.loopfd < 0) {
				gi_err("%s", err);
				return GI_EXIT_FAIL;
			}
			snprintf(t.disk, sizeof(t.disk), "%.63s", t.diskdev + 5);
		}
	}
	if (t.hints_view && t.disk[0] && hints_view(&t) < 0)
		return GI_EXIT_FAIL;
	if (t.h.source != GH_SOURCE_NONE) {
		gi_fmt_bytes(t.h.max, b1, sizeof(b1));
		gi_fmt_bytes(t.h.increment, b2, sizeof(b2));
		gi_fmt_bytes(t.h.min, b3, sizeof(b3));
		gi_info("%s: growth hints min %s, max %s, increment %s (%s)", o.target, b3, b1, b2,
			t.h.origin);
	}
	if (t.disk[0])
		t.written0 = sectors_written(t.disk);
	pg.total = total;
	pg.start = pg.last = gi_now();
	pg.tty = isatty(2);

	if (img->label[0]) {
		int dfd = t.loopfd >= 0 ? t.loopfd : t.fd;
		uint64_t first = img->parts[0].start, pos;

		for (i = 0; i < img->nparts; i++)
			if (img->parts[i].start < first)
				first = img->parts[i].start;
		/* an old table goes (both GPT headers); the interim table has no identity */
		if (zero_range(&t, dfd, 0, first) < 0 ||
		    zero_range(&t, dfd, t.size - tail - (t.size - tail) % img->sector,
			       t.size - (t.size - tail - (t.size - tail) % img->sector)) < 0) {
			gi_err("cannot write %s: %s", o.target, strerror(errno));
			return GI_EXIT_FAIL;
		}
		if (gi_table_write(img, dfd, t.loopfd >= 0 ? t.diskdev : o.target, t.size, 0, err,
				   sizeof(err)) < 0) {
			gi_err("%s", err);
			return GI_EXIT_FAIL;
		}
		/* the gaps outside the partitions and the table (boot loader stages) */
		pos = img->first_usable;
		for (;;) {
			uint64_t next = UINT64_MAX;

			for (i = 0; i < img->nparts; i++)
				if (img->parts[i].start >= pos && img->parts[i].start < next)
					next = img->parts[i].start;
			if (next == UINT64_MAX)
				break;
			if (next > pos && raw_copy(img, &t, dfd, pos, next - pos, pos, &pg,
						   &run.data_written) < 0) {
				gi_err("cannot copy the image's gap at %llu: %s", (unsigned long long)pos,
				       strerror(errno));
				return GI_EXIT_FAIL;
			}
			for (i = 0; i < img->nparts; i++)
				if (img->parts[i].start == next)
					pos = next + img->parts[i].size;
		}
		if (need_root) {
			if (gi_kernel_parts(img, dfd, t.disk, tmpdir, err, sizeof(err)) < 0) {
				gi_err("%s", err);
				return GI_EXIT_FAIL;
			}
		}
	} else {
		snprintf(img->parts[0].dst_dev, sizeof(img->parts[0].dst_dev), "%s",
			 t.loopfd >= 0 ? t.diskdev : o.target);
	}
	/* mkfs claims the partitions (or the device) itself */
	if (!t.file) {
		close(t.fd);
		t.fd = open(o.target, O_RDWR | O_CLOEXEC);
		if (t.fd < 0) {
			gi_err("cannot open %s: %s", o.target, strerror(errno));
			return GI_EXIT_FAIL;
		}
	}
	for (i = 0; i < img->nparts; i++) {
		struct gi_part *p = &img->parts[i];
		int dfd = t.loopfd >= 0 ? t.loopfd : t.fd;

		part_where(img, p, where, sizeof(where));
		if (p->fs.kind == GI_RAW) {
			if (raw_copy(img, &t, dfd, p->start, p->size, p->start, &pg, &run.data_written) < 0) {
				gi_err("%s: cannot copy it: %s", where, strerror(errno));
				return GI_EXIT_FAIL;
			}
			continue;
		}
		rc = inflate_fs(&o, p, &pg, &run, where);
		if (rc == -2)
			return GI_EXIT_VERIFY;
		if (rc < 0)
			return GI_EXIT_FAIL;
	}
	gi_progress_tick(&pg, 0, 1);

	/* ---- last: the source's partition table ---- */
	if (img->label[0]) {
		int dfd = t.loopfd >= 0 ? t.loopfd : t.fd;
		const char *dpath = t.loopfd >= 0 ? t.diskdev : o.target;

		if (!t.file) {
			/* O_EXCL again: nothing else may hold it while the table changes */
			close(t.fd);
			t.fd = dfd = open(o.target, O_RDWR | O_EXCL | O_CLOEXEC);
			if (dfd < 0) {
				gi_err("cannot open %s again: %s", o.target, strerror(errno));
				return GI_EXIT_FAIL;
			}
		}
		if (gi_table_write(img, dfd, dpath, t.size, 1, err, sizeof(err)) < 0) {
			gi_err("%s", err);
			return GI_EXIT_FAIL;
		}
		if (!all_zero((const char *)img->bootcode, sizeof(img->bootcode)) &&
		    (pwrite(dfd, img->bootcode, sizeof(img->bootcode), 0) != (ssize_t)sizeof(img->bootcode) ||
		     fsync(dfd) < 0)) {
			gi_err("cannot write the boot code to %s: %s", o.target, strerror(errno));
			return GI_EXIT_FAIL;
		}
		if (!t.file && gi_kernel_parts(img, dfd, t.disk, tmpdir, err, sizeof(err)) < 0)
			gi_warn("the table is written, but the kernel does not show its partitions: %s", err);
	}
	if (t.fd >= 0 && fsync(t.fd) < 0) {
		gi_err("cannot write %s: %s", o.target, strerror(errno));
		return GI_EXIT_FAIL;
	}
	w1 = t.disk[0] ? sectors_written(t.disk) : 0;
	if (t.loopfd >= 0)
		close(t.loopfd);

	if (!gi_quiet) {
		uint64_t written = w1 > t.written0 ? (w1 - t.written0) * 512 : run.data_written;
		struct stat tst;
		int nraw = 0;

		/* a file: what it holds (mkfs's zeroing and discards punch holes in it) */
		if (t.file && stat(o.target, &tst) == 0)
			written = (uint64_t)tst.st_blocks * 512;
		for (i = 0; i < img->nparts; i++)
			nraw += img->parts[i].fs.kind == GI_RAW;
		gi_fmt_bytes(written, b1, sizeof(b1));
		gi_fmt_bytes(run.st.bytes, b2, sizeof(b2));
		printf(GI_PROG ": %s -> %s: %llu files (%s of file data), %s %s, %.0f s; made %s",
		       o.image, o.target, (unsigned long long)run.files, b2, b1,
		       t.file ? "stored" : "written", gi_now() - t0, run.made[0] ? run.made : "nothing");
		if (nraw)
			printf("; %d partition%s copied byte for byte", nraw, nraw > 1 ? "s" : "");
		printf("\n");
		if (run.verified)
			printf(GI_PROG ": --verify: %d filesystem%s match%s the source\n", run.verified,
			       run.verified > 1 ? "s" : "", run.verified > 1 ? "" : "es");
	}
	return GI_EXIT_OK;
}
