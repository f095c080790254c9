// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of libgrowthhints and growth-mkfs on sysfs fixture trees made
 * under a temporary directory.  KTAP version 1 on stdout; exit 1 on failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "growth-hints.h"
#include "growth-internal.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)

struct t {
	const char *name;
	int failed;
	char root[PATH_MAX];		/* this case's sysfs fixture */
	char dir[PATH_MAX];		/* scratch directory of this case */
};

static char base[PATH_MAX];
static char tool[PATH_MAX];

#define sfmt gh__fmt

static void diag(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void diag(struct t *t, const char *fmt, ...)
{
	va_list ap;

	t->failed = 1;
	printf("# %s: ", t->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define CHECK(t, cond) \
	do { if (!(cond)) diag(t, "line %d: %s", __LINE__, #cond); } while (0)
#define CHECK_U64(t, a, b) \
	do { \
		uint64_t a_ = (a), b_ = (b); \
		if (a_ != b_) \
			diag(t, "line %d: %s == %" PRIu64 ", expected %" PRIu64, __LINE__, #a, a_, b_); \
	} while (0)
#define CHECK_STR(t, a, b) \
	do { \
		const char *a_ = (a), *b_ = (b); \
		if (strcmp(a_, b_)) \
			diag(t, "line %d: %s == \"%s\", expected \"%s\"", __LINE__, #a, a_, b_); \
	} while (0)
#define CHECK_HAS(t, hay, needle) \
	do { \
		const char *h_ = (hay), *n_ = (needle); \
		if (!strstr(h_, n_)) \
			diag(t, "line %d: \"%s\" does not contain \"%s\"", __LINE__, h_, n_); \
	} while (0)

/* ---- fixtures ----------------------------------------------------------- */

static void mkdirs(struct t *t, const char *path)
{
	char buf[PATH_MAX], *p;

	sfmt(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			diag(t, "mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		diag(t, "mkdir %s: %s", buf, strerror(errno));
}

/* Write dir/rel (making its directories); the path in path. */
static void write_under(struct t *t, const char *dir, const char *rel, const char *content,
			char *path, size_t len)
{
	FILE *f;

	sfmt(path, len, "%s/%s", dir, rel);
	*strrchr(path, '/') = '\0';
	mkdirs(t, path);
	sfmt(path, len, "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f) {
		diag(t, "create %s: %s", path, strerror(errno));
		return;
	}
	fputs(content, f);
	fclose(f);
}

/* Write root/rel. */
static void put(struct t *t, const char *rel, const char *content)
{
	char path[PATH_MAX * 2];

	write_under(t, t->root, rel, content, path, sizeof(path));
}

static void putf(struct t *t, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void putf(struct t *t, const char *rel, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(t, rel, buf);
}

static void link_class(struct t *t, const char *name, const char *target)
{
	char path[PATH_MAX * 2], to[PATH_MAX];

	sfmt(path, sizeof(path), "%s/class/block", t->root);
	mkdirs(t, path);
	sfmt(path, sizeof(path), "%s/class/block/%s", t->root, name);
	sfmt(to, sizeof(to), "../../%s", target);
	if (symlink(to, path) < 0)
		diag(t, "symlink %s: %s", path, strerror(errno));
}

/* A whole disk of SECTORS 512-byte sectors; hints NULL: no attributes. */
static void disk(struct t *t, const char *name, uint64_t sectors, const char *min,
		 const char *max, const char *inc)
{
	char rel[PATH_MAX];

	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/size", name);
	putf(t, rel, "%" PRIu64 "\n", sectors);
	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/queue/logical_block_size", name);
	put(t, rel, "512\n");
	if (min) {
		sfmt(rel, sizeof(rel), "devices/virtual/block/%s/queue/min_growth_bytes", name);
		putf(t, rel, "%s\n", min);
		sfmt(rel, sizeof(rel), "devices/virtual/block/%s/queue/max_growth_bytes", name);
		putf(t, rel, "%s\n", max);
		sfmt(rel, sizeof(rel), "devices/virtual/block/%s/queue/growth_increment_bytes",
			 name);
		putf(t, rel, "%s\n", inc);
	}
	sfmt(rel, sizeof(rel), "devices/virtual/block/%s", name);
	link_class(t, name, rel);
}

static void part(struct t *t, const char *disk_name, const char *name, uint64_t start,
		 uint64_t sectors)
{
	char rel[PATH_MAX];

	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/%s/size", disk_name, name);
	putf(t, rel, "%" PRIu64 "\n", sectors);
	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/%s/start", disk_name, name);
	putf(t, rel, "%" PRIu64 "\n", start);
	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/%s/partition", disk_name, name);
	put(t, rel, "1\n");
	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/%s", disk_name, name);
	link_class(t, name, rel);
}

static void dev_attr(struct t *t, const char *name, const char *attr, const char *val)
{
	char rel[PATH_MAX];

	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/device/%s", name, attr);
	put(t, rel, val);
}

static void hint_attr(struct t *t, const char *name, const char *attr, const char *val)
{
	char rel[PATH_MAX];

	sfmt(rel, sizeof(rel), "devices/virtual/block/%s/queue/%s", name, attr);
	put(t, rel, val);
}

/* A table file in the case's scratch directory; returns its path. */
static const char *table(struct t *t, const char *file, const char *text)
{
	static char path[PATH_MAX * 2];

	write_under(t, t->dir, file, text, path, sizeof(path));
	return path;
}

static struct gh_config cfg_of(struct t *t, const char *db_path, int builtin)
{
	struct gh_config c;

	c.sysfs_root = t->root;
	c.db_path = db_path;
	c.builtin_db = builtin ? gh_builtin_db : NULL;
	return c;
}

/* Probe that must succeed. */
static int probe_ok(struct t *t, const struct gh_config *c, const char *dev, struct gh_hints *h)
{
	char err[GH_ERR_MAX];

	if (gh_probe(c, dev, h, err, sizeof(err)) < 0) {
		diag(t, "probe %s failed: %s", dev, err);
		return -1;
	}
	return 0;
}

/* Probe that must fail with an error naming DEV and containing WHAT. */
static void probe_err(struct t *t, const struct gh_config *c, const char *dev, const char *what)
{
	char err[GH_ERR_MAX] = "";
	struct gh_hints h;

	if (gh_probe(c, dev, &h, err, sizeof(err)) == 0) {
		diag(t, "probe %s succeeded (source %s), expected an error with \"%s\"", dev,
		     gh_source_name(h.source), what);
		return;
	}
	if (strncmp(err, dev, strlen(dev)) || err[strlen(dev)] != ':')
		diag(t, "error \"%s\" does not start with the device \"%s:\"", err, dev);
	CHECK_HAS(t, err, what);
	CHECK(t, !strchr(err, '\n'));
}

/* ---- probe cases -------------------------------------------------------- */

static void t_disk_sysfs(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	if (probe_ok(t, &c, "vda", &h))
		return;
	CHECK_STR(t, h.name, "vda");
	CHECK_STR(t, h.disk, "vda");
	CHECK(t, !h.partition);
	CHECK_U64(t, h.size, 10 * GiB);
	CHECK_U64(t, h.min, 0);
	CHECK_U64(t, h.max, 10 * TiB);
	CHECK_U64(t, h.increment, GiB);
	CHECK(t, h.source == GH_SOURCE_SYSFS);
	CHECK_HAS(t, h.origin, "queue");
}

/*
 * The kernel's rules and no others: an increment of 0 (none stated) and a
 * minimum or maximum that is not a multiple of the increment are hints.
 */
static void t_kernel_rules(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	disk(t, "vda", 10 * GiB / 512, "0", "107374182400", "0");
	if (probe_ok(t, &c, "vda", &h) == 0) {
		CHECK_U64(t, h.max, 100 * GiB);
		CHECK_U64(t, h.increment, 0);
		CHECK(t, h.source == GH_SOURCE_SYSFS);
	}
	disk(t, "vdb", 10 * GiB / 512, "536870912", "107374186496", "1073741824");
	if (probe_ok(t, &c, "vdb", &h) == 0) {
		CHECK_U64(t, h.min, 512 * MiB);
		CHECK_U64(t, h.max, 100 * GiB + 4096);
		CHECK_U64(t, h.increment, GiB);
		CHECK(t, h.source == GH_SOURCE_SYSFS);
	}
}

static void t_disk_no_hints(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	disk(t, "vdb", 10 * GiB / 512, "0", "0", "0");
	if (probe_ok(t, &c, "vda", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	CHECK_U64(t, h.max, 0);
	CHECK_U64(t, h.size, 10 * GiB);
	/* virtio-blk by name, no DMI: the key has an empty vendor */
	CHECK_STR(t, h.match, "growth:virtio:dmi:sv");
	if (probe_ok(t, &c, "vdb", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	CHECK_HAS(t, h.origin, "no table record");
}

static void dev_dir(struct t *t, char *buf, size_t len);
static void write_gpt(struct t *t, const char *path, uint64_t sectors, const uint64_t (*parts)[2],
		      int n);

/*
 * 20 GiB disk that may grow to 100 GiB: vda1 [1 MiB, 1 GiB), vda2 from 1 GiB
 * on, VDA2_SECTORS long; with TABLE, a GPT on dev/vda that lists both.
 */
static void two_parts(struct t *t, uint64_t vda2_sectors, int table)
{
	const uint64_t n = 20 * GiB / 512;
	const uint64_t parts[2][2] = { { 2048, GiB / 512 - 1 },
				       { GiB / 512, GiB / 512 + vda2_sectors - 1 } };
	char dev[PATH_MAX], img[PATH_MAX * 2];

	disk(t, "vda", n, "0", "107374182400", "1073741824");
	part(t, "vda", "vda1", 2048, GiB / 512 - 2048);
	part(t, "vda", "vda2", GiB / 512, vda2_sectors);
	if (!table)
		return;
	dev_dir(t, dev, sizeof(dev));
	sfmt(img, sizeof(img), "%s/vda", dev);
	write_gpt(t, img, n, parts, 2);
}

/* The GPT keeps 33 sectors after its last usable one. */
#define GPT_END (33 * 512ULL)

static void t_part_at_end(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	struct gh_hints h;

	/* vda2 up to the GPT's last usable sector */
	two_parts(t, (20 * GiB - GPT_END) / 512 - GiB / 512, 1);
	if (probe_ok(t, &c, "vda2", &h))
		return;
	CHECK(t, h.partition);
	CHECK_STR(t, h.disk, "vda");
	CHECK_U64(t, h.size, 19 * GiB - GPT_END);
	CHECK_U64(t, h.start, GiB);
	CHECK_U64(t, h.disk_size, 20 * GiB);
	CHECK_U64(t, h.min, 0);		/* the disk's min 0 lies before its start */
	CHECK_U64(t, h.max, 99 * GiB - GPT_END);
	CHECK_U64(t, h.increment, GiB);
	CHECK(t, h.source == GH_SOURCE_SYSFS);
	CHECK_HAS(t, h.origin, "follows the disk");
}

static void t_part_not_at_end(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	struct gh_hints h;

	/* vda1 followed by vda2: up to vda2's start (its size) */
	two_parts(t, 10 * GiB / 512, 1);
	if (probe_ok(t, &c, "vda1", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_SYSFS);
	CHECK_U64(t, h.max, GiB - MiB);
	CHECK_U64(t, h.min, 0);
	CHECK_HAS(t, h.origin, "followed on vda by a partition at byte 1073741824");
	/* vda2 followed by free space: it follows the disk all the same */
	if (probe_ok(t, &c, "vda2", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_SYSFS);
	CHECK_U64(t, h.size, 10 * GiB);
	CHECK_U64(t, h.max, 99 * GiB - GPT_END);
	CHECK_HAS(t, h.origin, "follows the disk");
}

/* Where the table cannot be read or does not list the partition: no hints,
 * not "will not grow". */
static void t_part_unknown(struct t *t)
{
	const uint64_t parts[2][2] = { { 2048, GiB / 512 - 1 }, { GiB / 512, 11 * GiB / 512 - 1 } };
	char dev[PATH_MAX], img[PATH_MAX * 2];
	struct gh_config c = cfg_of(t, NULL, 0);
	struct gh_hints h;

	two_parts(t, 10 * GiB / 512, 0);
	if (probe_ok(t, &c, "vda2", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	CHECK_U64(t, h.max, 0);
	CHECK_U64(t, h.min, 0);
	CHECK_U64(t, h.increment, 0);
	CHECK_HAS(t, h.origin, "where vda2 lies on vda is not known");

	/* a table that does not list the partition the kernel has */
	dev_dir(t, dev, sizeof(dev));
	sfmt(img, sizeof(img), "%s/vda", dev);
	write_gpt(t, img, 20 * GiB / 512, parts, 2);
	part(t, "vda", "vda3", 12 * GiB / 512, GiB / 512);
	if (probe_ok(t, &c, "vda3", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	CHECK_U64(t, h.max, 0);
	CHECK_HAS(t, h.origin, "has no partition at byte 12884901888");
}

static void t_table_scsi(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sda", "modalias", "scsi:t-0x00\n");
	dev_attr(t, "sda", "vendor", "Google  \n");
	dev_attr(t, "sda", "model", "PersistentDisk  \n");
	disk(t, "sdb", 30 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sdb", "vendor", "Msft    \n");
	dev_attr(t, "sdb", "model", "Virtual Disk    \n");
	if (probe_ok(t, &c, "sda", &h))
		return;
	CHECK_STR(t, h.match, "growth:scsi:vGoogle:mPersistentDisk");
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.min, 10 * GiB);
	CHECK_U64(t, h.max, 64 * TiB);
	CHECK_U64(t, h.increment, GiB);
	CHECK_STR(t, h.origin, "built-in table");
	if (probe_ok(t, &c, "sdb", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.max, 32767 * GiB);
}

static void t_table_nvme(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	disk(t, "nvme1n1", 100 * GiB / 512, "0", "0", "0");
	dev_attr(t, "nvme1n1", "model", "Amazon Elastic Block Store              \n");
	disk(t, "nvme2n1", 100 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "nvme2n1", "model", "Amazon EC2 NVMe Instance Storage\n");
	if (probe_ok(t, &c, "nvme1n1", &h))
		return;
	CHECK_STR(t, h.match, "growth:nvme:mAmazon Elastic Block Store");
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.min, GiB);
	CHECK_U64(t, h.max, 16 * TiB);
	CHECK_U64(t, h.increment, GiB);
	if (probe_ok(t, &c, "nvme2n1", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
}

static void t_table_virtio_dmi(struct t *t)
{
	const uint64_t parts[1][2] = { { 2048, 8 * GiB / 512 - 34 } };
	char dev[PATH_MAX], img[PATH_MAX * 2];
	const char *db;
	struct gh_config c;
	struct gh_hints h;

	db = table(t, "site.hwdb",
		   "# a site's record\n"
		   "growth:virtio:dmi:svExample Cloud*\n"
		   " GROWTH_MIN=1G\n GROWTH_MAX=2T\n GROWTH_INCREMENT=1G\n");
	c = cfg_of(t, db, 1);
	disk(t, "vda", 8 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "vda", "modalias", "virtio:d00000002v00001AF4\n");
	dev_attr(t, "vda", "vendor", "0x1af4\n");
	put(t, "class/dmi/id/sys_vendor", "Example Cloud Inc.\n");
	/* and a GPT with one partition up to its last usable sector */
	part(t, "vda", "vda1", 2048, 8 * GiB / 512 - 33 - 2048);
	dev_dir(t, dev, sizeof(dev));
	sfmt(img, sizeof(img), "%s/vda", dev);
	write_gpt(t, img, 8 * GiB / 512, parts, 1);
	if (probe_ok(t, &c, "vda", &h))
		return;
	CHECK_STR(t, h.match, "growth:virtio:dmi:svExample Cloud Inc.");
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.max, 2 * TiB);
	CHECK_HAS(t, h.origin, "site.hwdb");
	if (probe_ok(t, &c, "vda1", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.size, 8 * GiB - MiB - GPT_END);
	CHECK_U64(t, h.max, 2 * TiB - MiB - GPT_END);
	/* the record's min less the start and the GPT's end */
	CHECK_U64(t, h.min, GiB - MiB - GPT_END);
}

static void t_table_order(struct t *t)
{
	const char *a;
	char path[PATH_MAX * 3];
	struct gh_config c;
	struct gh_hints h;

	/* a directory: files in name order, first match wins, over built-in */
	table(t, "d/20-late.hwdb",
	      "growth:scsi:vGoogle:m*\n GROWTH_MIN=1G\n GROWTH_MAX=3T\n GROWTH_INCREMENT=1G\n");
	table(t, "d/10-early.hwdb",
	      "growth:scsi:vGoogle:mPersistent*\n GROWTH_MIN=1G\n GROWTH_MAX=5T\n"
	      " GROWTH_INCREMENT=1G\n");
	table(t, "d/ignored.txt", "not a table\n");
	a = table(t, "first.hwdb", "# nothing here\n");
	sfmt(path, sizeof(path), "%s:%s/missing:%s/d", a, t->dir, t->dir);
	c = cfg_of(t, path, 1);
	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sda", "vendor", "Google\n");
	dev_attr(t, "sda", "model", "PersistentDisk\n");
	if (probe_ok(t, &c, "sda", &h))
		return;
	CHECK_U64(t, h.max, 5 * TiB);
	CHECK_HAS(t, h.origin, "10-early.hwdb");
}

static void t_table_too_small(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;

	/* a 20 TiB EBS volume is past the table's 16 TiB: ignored, not an error */
	disk(t, "nvme0n1", 20 * TiB / 512, NULL, NULL, NULL);
	dev_attr(t, "nvme0n1", "model", "Amazon Elastic Block Store\n");
	if (probe_ok(t, &c, "nvme0n1", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	CHECK_HAS(t, h.origin, "ignored");
}

static void t_builtin_table(struct t *t)
{
	static const char *const keys[] = {
		"growth:nvme:mAmazon Elastic Block Store",
		"growth:scsi:vGoogle:mPersistentDisk",
		"growth:nvme:mnvme_card-pd",
		"growth:scsi:vMsft:mVirtual Disk",
		"growth:nvme:mMSFT NVMe Accelerator v1.0",
	};
	char err[GH_ERR_MAX];
	uint64_t mn, mx, inc;
	size_t i;
	int r;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		r = gh_db_match(gh_builtin_db, strlen(gh_builtin_db), "builtin", keys[i], &mn, &mx,
				&inc, err, sizeof(err));
		if (r != 1) {
			diag(t, "%s: r=%d %s", keys[i], r, r < 0 ? err : "no match");
			continue;
		}
		CHECK(t, inc == GiB && mn <= mx && mx >= 16 * TiB && mx % inc == 0);
	}
	r = gh_db_match(gh_builtin_db, strlen(gh_builtin_db), "builtin",
			"growth:nvme:mAmazon EC2 NVMe Instance Storage", &mn, &mx, &inc, err,
			sizeof(err));
	CHECK(t, r == 0);
	r = gh_db_match(gh_builtin_db, strlen(gh_builtin_db), "builtin",
			"growth:virtio:dmi:svOpenStack Foundation", &mn, &mx, &inc, err,
			sizeof(err));
	CHECK(t, r == 0);
}

static void t_bad_table(struct t *t)
{
	static const struct {
		const char *text, *what;
	} cases[] = {
		{ "growth:scsi:v*\n GROWTH_MIN 1G\n", "without '='" },
		{ "growth:scsi:v*\n GROWTH_MIN=1X\n GROWTH_MAX=2T\n GROWTH_INCREMENT=1G\n", "bad size" },
		{ "growth:scsi:v*\n GROWTH_MIN=-1\n GROWTH_MAX=2T\n GROWTH_INCREMENT=1G\n", "bad size" },
		{ "scsi:v*\n GROWTH_MIN=1G\n", "does not start" },
		{ "growth:scsi:v*\n GROWTH_MAX=2T\n", "needs GROWTH_MIN" },
		{ "growth:scsi:v*\n GROWTH_MIN=3T\n GROWTH_MAX=2T\n GROWTH_INCREMENT=1G\n", "inconsistent" },
		{ "growth:scsi:v*\n GROWTH_MIN=0\n GROWTH_MAX=0\n GROWTH_INCREMENT=1G\n", "inconsistent" },
		{ "growth:scsi:v*\n GROWTH_MIN=1G\n GROWTH_MAX=2T\n GROWTH_INCREMENT=1000\n", "inconsistent" },
		{ " GROWTH_MIN=1G\n", "outside a record" },
		{ "growth:x\n GROWTH_MIN=1G\ngrowth:y\n", "missing blank line" },
	};
	struct gh_config c;
	const char *db;
	size_t i;

	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sda", "vendor", "ACME\n");
	dev_attr(t, "sda", "model", "Disk\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		db = table(t, "bad.hwdb", cases[i].text);
		c = cfg_of(t, db, 0);
		probe_err(t, &c, "sda", cases[i].what);
	}
}

static void t_missing_device(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	char path[PATH_MAX * 2];

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	sfmt(path, sizeof(path), "%s/no-such-dev", t->dir);
	probe_err(t, &c, path, "no such device");
	probe_err(t, &c, "sdq", "no such block device");
	probe_err(t, &c, "..", "not a block device name");
}

static void t_not_block(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	const char *f;

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	f = table(t, "regular-file", "x\n");
	probe_err(t, &c, f, "not a block device");
	probe_err(t, &c, "/dev/null", "not a block device");
}

static void t_unreadable_sysfs(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	char rel[PATH_MAX];

	/* no class/block at all */
	probe_err(t, &c, "vda", "cannot read sysfs");
	/* an attribute that cannot be read (a directory where a file is) */
	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	sfmt(rel, sizeof(rel), "devices/virtual/block/vda/queue/max_growth_bytes/x");
	put(t, rel, "1\n");
	probe_err(t, &c, "vda", "cannot read");
	/* a size file missing */
	disk(t, "vdb", 10 * GiB / 512, NULL, NULL, NULL);
	sfmt(rel, sizeof(rel), "%s/devices/virtual/block/vdb/size", t->root);
	unlink(rel);
	probe_err(t, &c, "vdb", "missing");
	/* class entry pointing nowhere */
	link_class(t, "vdc", "devices/virtual/block/nothing");
	probe_err(t, &c, "vdc", "no such block device");
}

static void t_garbage_sysfs(struct t *t)
{
	static const struct {
		const char *attr, *val, *what;
	} cases[] = {
		{ "max_growth_bytes", "lots\n", "not a number" },
		{ "max_growth_bytes", "", "not a number" },
		{ "max_growth_bytes", "12 34\n", "not a number" },
		{ "max_growth_bytes", "99999999999999999999999\n", "overflows" },
		{ "max_growth_bytes", "18446744073709551616\n", "overflows" },
		{ "min_growth_bytes", "-1073741824\n", "negative" },
		{ "max_growth_bytes", "0\n", "max is 0 but min 1073741824" },
		{ "growth_increment_bytes", "1000\n", "not a multiple of the 512-byte block" },
		{ "min_growth_bytes", "21474836480\n", "min 21474836480 > disk size" },
		{ "max_growth_bytes", "5368709120\n", "max 5368709120 < disk size" },
	};
	struct gh_config c = cfg_of(t, NULL, 0);
	char rel[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		disk(t, "vda", 10 * GiB / 512, "1073741824", "107374182400", "1073741824");
		hint_attr(t, "vda", cases[i].attr, cases[i].val);
		probe_err(t, &c, "vda", cases[i].what);
		sfmt(rel, sizeof(rel), "%s/class/block/vda", t->root);
		unlink(rel);
	}
	/* min > max */
	disk(t, "vdb", 10 * GiB / 512, "107374182400", "10737418240", "1073741824");
	probe_err(t, &c, "vdb", "min 107374182400 > max");
	/* one attribute of three */
	disk(t, "vdc", 10 * GiB / 512, NULL, NULL, NULL);
	hint_attr(t, "vdc", "max_growth_bytes", "107374182400\n");
	probe_err(t, &c, "vdc", "min_growth_bytes is missing");
	/* sizes */
	disk(t, "vdd", 0, NULL, NULL, NULL);
	probe_err(t, &c, "vdd", "size is 0");
	disk(t, "vde", 1ULL << 60, NULL, NULL, NULL);
	probe_err(t, &c, "vde", "overflow");
	put(t, "devices/virtual/block/vdf/size", "ten\n");
	link_class(t, "vdf", "devices/virtual/block/vdf");
	probe_err(t, &c, "vdf", "not a number");
	/* a partition past the end of its disk; a bad start */
	disk(t, "vdg", 10 * GiB / 512, NULL, NULL, NULL);
	part(t, "vdg", "vdg1", 2048, 10 * GiB / 512);
	probe_err(t, &c, "vdg1", "ends past its disk");
	part(t, "vdg", "vdg2", 0, 2048);
	put(t, "devices/virtual/block/vdg/vdg2/start", "-5\n");
	probe_err(t, &c, "vdg2", "negative");
}

static void t_sizes(struct t *t)
{
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "10G", 10 * GiB }, { "10g", 10 * GiB },
		{ "64T", 64 * TiB }, { "1P", 1ULL << 50 }, { "15E", 15ULL << 60 },
		{ "512KiB", 512 * KiB }, { "3MB", 3 * MiB },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "G", "1.5T", "-1", "10Q", "16E", "18446744073709551616", "1 G", "10GiBs",
	};
	char buf[32];
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (gh_parse_size(good[i].s, &v) < 0)
			diag(t, "\"%s\" refused", good[i].s);
		else
			CHECK_U64(t, v, good[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gh_parse_size(bad[i], &v) == 0)
			diag(t, "\"%s\" accepted as %" PRIu64, bad[i], v);
	CHECK(t, gh_parse_u64("123\n", &v) == 0 && v == 123);
	CHECK(t, gh_parse_u64("123\n\n", &v) < 0);
	CHECK(t, gh_parse_u64("+1", &v) < 0);
	gh_format_size(10 * GiB, buf, sizeof(buf));
	CHECK_STR(t, buf, "10 GiB");
	gh_format_size(1536 * MiB, buf, sizeof(buf));
	CHECK_STR(t, buf, "1.5 GiB");
	gh_format_size(100, buf, sizeof(buf));
	CHECK_STR(t, buf, "100 B");
}

static void t_overrides(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 0);
	struct gh_overrides o = { 0, 1, 0, 0, 10 * TiB, 0 };
	char err[GH_ERR_MAX] = "";
	struct gh_hints h;

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	if (probe_ok(t, &c, "vda", &h))
		return;
	CHECK(t, gh_apply_overrides(&h, &o, err, sizeof(err)) == 0);
	CHECK(t, h.source == GH_SOURCE_OVERRIDE);
	CHECK_U64(t, h.max, 10 * TiB);
	o.max = 5 * GiB;
	CHECK(t, gh_apply_overrides(&h, &o, err, sizeof(err)) < 0);
	CHECK_HAS(t, err, "vda: --max 5368709120 is smaller than the device");
	/* --increment alone on sysfs hints keeps their max */
	disk(t, "vdb", 10 * GiB / 512, "0", "107374182400", "1073741824");
	if (probe_ok(t, &c, "vdb", &h))
		return;
	o.has_max = 0;
	o.has_increment = 1;
	o.increment = 4 * GiB;
	CHECK(t, gh_apply_overrides(&h, &o, err, sizeof(err)) == 0);
	CHECK_U64(t, h.max, 100 * GiB);
	CHECK_U64(t, h.increment, 4 * GiB);
}

/* ---- policy cases ------------------------------------------------------- */

static void plan_args(struct t *t, const struct gh_plan *p, char *const *user, int nuser,
		      char *out, size_t len)
{
	struct gh_argv a;
	size_t n = 0;
	int i;

	out[0] = '\0';
	if (gh_plan_args(p, user, nuser, &a) < 0) {
		diag(t, "gh_plan_args failed");
		return;
	}
	for (i = 0; i < a.argc && n < len; i++) {
		sfmt(out + n, len - n, "%s%s", i ? " " : "", a.argv[i]);
		n = strlen(out);
	}
	gh_argv_free(&a);
}

/* A plan for device hints (sysfs) up to MAX, no user options. */
static int plan(struct t *t, enum gh_fstype fs, uint64_t size, uint64_t max, struct gh_plan *p,
		char *args, size_t len)
{
	struct gh_plan_req r = { .fs = fs, .size = size, .max = max, .source = GH_SOURCE_SYSFS };
	char err[GH_ERR_MAX];

	if (gh_plan_mkfs(&r, p, err, sizeof(err)) < 0) {
		diag(t, "plan failed: %s", err);
		return -1;
	}
	plan_args(t, p, NULL, 0, args, len);
	return 0;
}

/* A plan for an explicit final size (--final). */
static int plan_target(struct t *t, enum gh_fstype fs, uint64_t size, uint64_t final,
		       struct gh_plan *p, char *args, size_t len)
{
	struct gh_plan_req r = { .fs = fs, .size = size, .final = final };
	char err[GH_ERR_MAX];

	if (gh_plan_mkfs(&r, p, err, sizeof(err)) < 0) {
		diag(t, "plan failed: %s", err);
		return -1;
	}
	plan_args(t, p, NULL, 0, args, len);
	return 0;
}

static void t_xfs_10g_10t(struct t *t)
{
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_XFS, 10 * GiB, 10 * TiB, &p, a, sizeof(a)))
		return;
	/* three AGs: two of 7/16 of the device, the last the rest; the log mkfs's own */
	CHECK_STR(t, a, "-d agsize=4480m");
	CHECK_U64(t, p.agsize_blocks, 4480 * MiB / 4096);
	CHECK_U64(t, p.agcount, 3);
	CHECK_U64(t, p.agcount_final, 2341);
	CHECK_U64(t, p.log_blocks * 4096, 64 * MiB);
	CHECK(t, p.log_agnum == -1);
	CHECK(t, p.grows);
}

static void t_ext4_10g_10t(struct t *t)
{
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_EXT4, 10 * GiB, 10 * TiB, &p, a, sizeof(a)))
		return;
	/* the inode ratio and journal of 10 GiB; mke2fs's reserve (1024 blocks) */
	CHECK_STR(t, a, "-O 64bit");
	CHECK_STR(t, p.usage_type, "default");
	CHECK_U64(t, p.inode_ratio, 16384);
	CHECK(t, !p.meta_bg && p.resize_inode && p.bit64);
	CHECK_U64(t, p.reserved_gdt_blocks, 1024);
	CHECK_U64(t, p.journal_blocks * 4096, 64 * MiB);
	CHECK_U64(t, p.resize_blocks, 0);
}

static void t_no_growth(struct t *t)
{
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_XFS, 10 * GiB, 10 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
	CHECK(t, !p.grows);
	CHECK_U64(t, p.agcount, 4);
	CHECK_U64(t, p.agsize_blocks, 655360);
	CHECK_U64(t, p.log_blocks, 16384);
	/* ext4 keeps mke2fs's reserve: "will not grow" is a hint of now */
	if (plan(t, GH_FS_EXT4, 10 * GiB, 10 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
	CHECK_U64(t, p.journal_blocks, 16384);
	CHECK_U64(t, p.inode_ratio, 16384);
	CHECK(t, p.resize_inode);
	CHECK_U64(t, p.reserved_gdt_blocks, 1024);
	/* a max below the size plans for the size */
	if (plan(t, GH_FS_XFS, 10 * GiB, GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
}

/* No hint at all is not "will not grow": mkfs keeps every default. */
static void t_no_hint(struct t *t)
{
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_EXT4, 10 * GiB, 0, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
	CHECK(t, !p.hinted);
	CHECK_U64(t, p.reserved_gdt_blocks, 1024);
	if (plan(t, GH_FS_XFS, 10 * GiB, 0, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
	CHECK_U64(t, p.agcount, 4);
}

static void t_1g_64t(struct t *t)
{
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_XFS, GiB, 64 * TiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-d agsize=448m");
	CHECK_U64(t, p.agcount, 3);
	CHECK_U64(t, p.agcount_final, (64 * TiB + 448 * MiB - 1) / (448 * MiB));
	CHECK_U64(t, p.log_blocks, 16384);
	if (plan(t, GH_FS_EXT4, GiB, 64 * TiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-O 64bit");
	CHECK_U64(t, p.inode_ratio, 16384);
	CHECK_U64(t, p.final, 64 * TiB - 128 * MiB);
}

static void t_ext4_resize_inode(struct t *t)
{
	struct gh_plan p;
	char a[512];

	/* 10 GiB -> 1 TiB fits the resize_inode reserve: 8192/64 - 2 = 126 */
	if (plan(t, GH_FS_EXT4, 10 * GiB, TiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-E resize=268435456 -O 64bit");
	CHECK_U64(t, p.reserved_gdt_blocks, 126);
	CHECK(t, p.resize_inode && !p.meta_bg);
	/* 10 GiB -> 8 TiB + 16 GiB: 1026 descriptor blocks, 1024 reserved (mke2fs's own) */
	if (plan(t, GH_FS_EXT4, 10 * GiB, 8 * TiB + 16 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-O 64bit");
	CHECK_U64(t, p.reserved_gdt_blocks, 1024);
	CHECK(t, p.resize_inode);
	/* past the reserve: no meta_bg up front, the kernel converts when it runs out */
	if (plan(t, GH_FS_EXT4, 10 * GiB, 8 * TiB + 32 * GiB, &p, a, sizeof(a)))
		return;
	CHECK(t, !p.meta_bg && p.resize_inode);
	CHECK_HAS(t, p.reason, "converts to meta_bg");
	/* a small device that may grow keeps its 1 KiB blocks (backup superblocks) */
	if (plan(t, GH_FS_EXT4, 256 * MiB, 100 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-O 64bit");
	CHECK_U64(t, p.blocksize, 1024);
	CHECK_U64(t, p.reserved_gdt_blocks, 256);
	if (plan(t, GH_FS_EXT4, 300 * MiB, 10 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-E resize=10485760 -O 64bit");
	CHECK_U64(t, p.reserved_gdt_blocks, 77);
	/* growth the descriptor blocks of the size as made cover: one block, not mke2fs's own */
	if (plan(t, GH_FS_EXT4, 10 * GiB, 16 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-E resize=4194305 -O 64bit");
	CHECK_U64(t, p.reserved_gdt_blocks, 1);
}

static void t_xfs_sizes(struct t *t)
{
	struct gh_plan p;
	char a[512];

	/* growth to 1.6x: the final size's default AG (4 GiB) fits three times */
	if (plan(t, GH_FS_XFS, 10 * GiB, 16 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-d agsize=4g");
	CHECK_U64(t, p.agcount, 3);
	CHECK_U64(t, p.agcount_final, 4);
	/* growth to 2x: its default AG (5 GiB) does not: 7/16 of the device */
	if (plan(t, GH_FS_XFS, 10 * GiB, 20 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-d agsize=4480m");
	CHECK_U64(t, p.agcount, 3);
	CHECK_U64(t, p.agcount_final, 5);
	/* 100 GiB -> 10 TiB */
	if (plan(t, GH_FS_XFS, 100 * GiB, 10 * TiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-d agsize=44800m");
	/* 4 TiB -> 40 TiB: AGs at their 1 TiB maximum */
	if (plan(t, GH_FS_XFS, 4 * TiB, 40 * TiB, &p, a, sizeof(a)))
		return;
	CHECK_U64(t, p.agsize_blocks, (1ULL << 28) - 1);
	CHECK_U64(t, p.agcount_final, 41);
	CHECK(t, p.log_agnum == -1);
	/* too small to plan */
	if (plan(t, GH_FS_XFS, 64 * MiB, 10 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "");
}

/*
 * The XFS AG rule over sizes and maxima (POLICY.md 3.3): whenever the plan
 * sets an AG size, the device as made has three to eight AGs and every AG,
 * the last included, is at least 1/8 of it; the AG size is never smaller
 * than mkfs.xfs's default for the size as made.
 */
static uint64_t div_ceil_u64(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static void t_xfs_ag_rule_sweep(struct t *t)
{
	static const uint64_t sizes[] = { 300 * MiB, 301 * MiB, 512 * MiB, GiB, 2 * GiB,
					  10 * GiB, 10 * GiB + 4096, 13 * GiB, 100 * GiB,
					  TiB, 2 * TiB + 5 * GiB, 3 * TiB, 5 * TiB };
	/* the maximum as a multiple of the size, in 1/100 */
	static const uint64_t ratios[] = { 101, 110, 116, 117, 120, 125, 130, 133, 134, 150,
					   174, 175, 176, 200, 400, 6400 };
	size_t i, j;
	int bad = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizeof(ratios) / sizeof(ratios[0]) + 1; j++) {
			uint64_t s = sizes[i], sb = s / 4096, last, def;
			uint64_t m = j < sizeof(ratios) / sizeof(ratios[0]) ?
				     s / 100 * ratios[j] / 4096 * 4096 : 64 * TiB;
			struct gh_plan p;
			char a[512];

			if (plan(t, GH_FS_XFS, s, m, &p, a, sizeof(a)))
				return;
			def = sb / 4 + (sb % 4 != 0);
			if (!strstr(a, "agsize="))
				continue;
			last = sb - (p.agcount - 1) * p.agsize_blocks;
			if (p.agcount < 3 || p.agcount > 8 || last * 8 < sb ||
			    p.agsize_blocks <= def || div_ceil_u64(sb, p.agsize_blocks) != p.agcount) {
				if (bad++ < 8)
					diag(t, "size %llu max %llu: %s: %llu AGs of %llu blocks, last %llu",
					     (unsigned long long)s, (unsigned long long)m, a,
					     (unsigned long long)p.agcount,
					     (unsigned long long)p.agsize_blocks,
					     (unsigned long long)last);
			}
		}
	}
	CHECK(t, bad == 0);
	/* the review's example: 10 GiB that may grow to 13 GiB: four AGs, the last 1/8 */
	{
		struct gh_plan p;
		char a[512];

		if (plan(t, GH_FS_XFS, 10 * GiB, 13 * GiB, &p, a, sizeof(a)))
			return;
		CHECK_STR(t, a, "-d agsize=2986m");
		CHECK_U64(t, p.agcount, 4);
	}
}

static void t_huge(struct t *t)
{
	char err[GH_ERR_MAX];
	struct gh_plan p;
	char a[512];

	if (plan(t, GH_FS_XFS, 10 * GiB, UINT64_MAX, &p, a, sizeof(a)))
		return;
	CHECK_U64(t, p.final, 1ULL << 63);
	CHECK_HAS(t, p.reason, "capped");
	CHECK_STR(t, a, "-d agsize=4480m");
	CHECK_U64(t, p.agcount_final, (1ULL << 63) / (4480 * MiB) + 1);
	/* ext4: the target stops where 16 KiB per inode reaches 2^32 inodes */
	if (plan(t, GH_FS_EXT4, 10 * GiB, UINT64_MAX, &p, a, sizeof(a)))
		return;
	CHECK_U64(t, p.final, 64 * TiB - 128 * MiB);
	CHECK_STR(t, a, "-O 64bit");
	{
		struct gh_plan_req r = { .fs = GH_FS_EXT4, .size = UINT64_MAX, .max = UINT64_MAX };

		CHECK(t, gh_plan_mkfs(&r, &p, err, sizeof(err)) < 0);
		CHECK_HAS(t, err, "format limit");
		r.fs = GH_FS_XFS;
		r.size = 0;
		r.max = TiB;
		CHECK(t, gh_plan_mkfs(&r, &p, err, sizeof(err)) < 0);
	}
	/* 20 TiB now, 1 PiB max: 64bit and meta_bg past 2^32 blocks */
	if (plan(t, GH_FS_EXT4, 20 * TiB, 1ULL << 50, &p, a, sizeof(a)))
		return;
	CHECK(t, !p.meta_bg && p.bit64);
	CHECK_U64(t, p.final, 256 * TiB - 128 * MiB);
	CHECK_HAS(t, p.reason, "2^32 inodes");
	CHECK_U64(t, p.journal_blocks, 262144);
}

static void t_user_args(struct t *t)
{
	char *u1[] = { "-d", "agcount=8", "-l", "size=1g", "-f" };
	char *u2[] = { "-dagsize=1g", "-L", "root" };
	char *u3[] = { "-l", "logdev=/dev/sdb" };
	char *u4[] = { "-O", "^metadata_csum", "-T", "news" };
	char *u5[] = { "-E", "resize=1000000000,lazy_itable_init=1" };
	char *u6[] = { "-Fq", "-J", "device=/dev/sdb" };
	char *u7[] = { "-O", "^has_journal,resize_inode" };
	char *u8[] = { "-L" };
	struct gh_argv av;
	struct gh_plan p;
	char a[512];

	/* plans for a 10 TiB target: every kind of option of ours */
	if (plan_target(t, GH_FS_XFS, 10 * GiB, 10 * TiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-d agsize=4480m -l size=320m");
	plan_args(t, &p, u1, 5, a, sizeof(a));
	CHECK_STR(t, a, "");
	plan_args(t, &p, u2, 3, a, sizeof(a));
	CHECK_STR(t, a, "-l size=320m");
	plan_args(t, &p, u3, 2, a, sizeof(a));
	CHECK_STR(t, a, "-d agsize=4480m");
	CHECK(t, gh_plan_args(&p, u3, 2, &av) == 0 && av.dropped == 1);
	gh_argv_free(&av);
	CHECK(t, gh_plan_args(&p, u8, 1, &av) < 0);

	if (plan_target(t, GH_FS_EXT4, 10 * GiB, 10 * TiB, &p, a, sizeof(a)))
		return;
	/* the inodes of the size as made: nothing of the big type is left */
	CHECK_STR(t, a, "-O 64bit -J size=320");
	CHECK_U64(t, p.inode_ratio, 16384);
	plan_args(t, &p, u4, 4, a, sizeof(a));
	CHECK_STR(t, a, "-O 64bit -J size=320");
	plan_args(t, &p, u5, 2, a, sizeof(a));
	CHECK_STR(t, a, "-O 64bit -J size=320");
	plan_args(t, &p, u6, 3, a, sizeof(a));
	CHECK_STR(t, a, "-O 64bit");
	plan_args(t, &p, u7, 2, a, sizeof(a));
	CHECK_STR(t, a, "-O 64bit");
	/* 300 MiB ("small") for 10 GiB: 4 KiB blocks, the small type's inodes */
	if (plan_target(t, GH_FS_EXT4, 300 * MiB, 10 * GiB, &p, a, sizeof(a)))
		return;
	CHECK_STR(t, a, "-b 4096 -I 256 -i 4096 -E resize=2621440 -O 64bit");
	CHECK_U64(t, p.inode_ratio, 4096);
}

/* ---- the command -------------------------------------------------------- */

/* Run the tool; stdout into out, return the exit status. */
static int run_tool(struct t *t, const char *env, char *const *args, char *out, size_t len,
		    char *errout, size_t errlen)
{
	char cmd[8192], path[PATH_MAX * 2];
	size_t n = 0;
	FILE *f;
	int st, i;

	sfmt(path, sizeof(path), "%s/stderr", t->dir);
	sfmt(cmd, sizeof(cmd), "%s '%s'", env ? env : "", tool);
	for (i = 0; args[i]; i++)
		sfmt(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " '%s'", args[i]);
	n = strlen(cmd);
	sfmt(cmd + n, sizeof(cmd) - n, " 2>'%s'", path);
	f = popen(cmd, "r");
	if (!f) {
		diag(t, "popen: %s", strerror(errno));
		return -1;
	}
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	st = pclose(f);
	f = fopen(path, "r");
	errout[0] = '\0';
	if (f) {
		n = fread(errout, 1, errlen - 1, f);
		errout[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void t_cli(struct t *t)
{
	char out[8192], err[4096], fake[PATH_MAX * 2], env[PATH_MAX * 3];
	char *show[] = { "--sysfs-root", t->root, "show", "vda", "--json", NULL };
	char *args[] = { "--sysfs-root", t->root, "mkfs-args", "-t", "xfs", "vda", "--json", NULL };
	char *mkfs[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", "--", "-f",
			 "-d", "agcount=4", NULL };
	char *ovr[] = { "--sysfs-root", t->root, "--max", "1T", "mkfs-args", "-t", "ext4", "vdb",
			NULL };
	char *nohint[] = { "--sysfs-root", t->root, "mkfs-args", "-t", "ext4", "vdb", NULL };
	char *bad[] = { "--sysfs-root", t->root, "show", "vdz", NULL };
	char *badmax[] = { "--max", "lots", "show", "vda", NULL };
	FILE *f;
	int rc;

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	disk(t, "vdb", 10 * GiB / 512, NULL, NULL, NULL);

	rc = run_tool(t, NULL, show, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_HAS(t, out, "\"max\":10995116277760,\"increment\":1073741824,\"source\":\"sysfs\"");

	rc = run_tool(t, NULL, args, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_HAS(t, out, "\"args\":[\"-d\",\"agsize=4480m\"]");
	CHECK_HAS(t, out, "\"agcount\":3,\"agcount_at_max\":2341,\"logsize\":67108864");

	/* mkfs with a stand-in mkfs.xfs that prints its arguments */
	sfmt(fake, sizeof(fake), "%s/fake-mkfs", t->dir);
	f = fopen(fake, "w");
	if (f) {
		fputs("#!/bin/sh\necho \"mkfs: $*\"\n", f);
		fclose(f);
		chmod(fake, 0755);
	}
	sfmt(env, sizeof(env), "GROWTH_MKFS_XFS='%s'", fake);
	table(t, "dev/vda", "");
	rc = run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_HAS(t, out, "growth-mkfs: vda: 10 GiB, max 10 TiB (sysfs): ");
	sfmt(fake, sizeof(fake), "mkfs: -f -d agcount=4 %s/dev/vda\n", t->dir);
	CHECK_HAS(t, out, fake);

	rc = run_tool(t, NULL, ovr, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_STR(t, out, "-E resize=268435456 -O 64bit\n");

	/* a disk without hints keeps every mke2fs default */
	rc = run_tool(t, NULL, nohint, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_STR(t, out, "\n");

	rc = run_tool(t, NULL, bad, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 1);
	CHECK_STR(t, out, "");
	CHECK_HAS(t, err, "growth-mkfs: vdz: no such block device");
	CHECK(t, strchr(err, '\n') == err + strlen(err) - 1);

	rc = run_tool(t, NULL, badmax, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 2);
	CHECK_HAS(t, err, "bad size");
}

/* ---- defects found in review (issue 13): each case failed before its fix ---- */

/* A stand-in mkfs: a shell script with BODY; its path in path. */
static void fake_mkfs(struct t *t, const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	sfmt(path, len, "%s/%s", t->dir, name);
	f = fopen(path, "w");
	if (!f) {
		diag(t, "create %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

/* The number after "KEY": in JSON text; UINT64_MAX if absent. */
static uint64_t json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	sfmt(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (!p)
		return UINT64_MAX;
	return strtoull(p + strlen(pat), NULL, 10);
}

/* Occurrences of NEEDLE in HAY. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The fixture's device directory: beside its sysfs root ("<case>/dev"). */
static void dev_dir(struct t *t, char *buf, size_t len)
{
	sfmt(buf, len, "%s/dev", t->dir);
	mkdirs(t, buf);
}

static uint32_t crc32_ieee(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static void le32(unsigned char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * A sparse disk image of SECTORS 512-byte sectors with a GPT (128 entries,
 * primary and backup) holding N partitions [first, last] (inclusive LBAs).
 */
static void write_gpt(struct t *t, const char *path, uint64_t sectors, const uint64_t (*parts)[2],
		      int n)
{
	unsigned char mbr[512], hdr[512], ents[128 * 128];
	int fd, i, k;

	memset(mbr, 0, sizeof(mbr));
	memset(ents, 0, sizeof(ents));
	/* protective MBR */
	mbr[446 + 4] = 0xee;
	le32(mbr + 446 + 8, 1);
	le32(mbr + 446 + 12, sectors - 1 > 0xffffffffULL ? 0xffffffffu : (uint32_t)(sectors - 1));
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	for (i = 0; i < n; i++) {
		unsigned char *e = ents + 128 * i;

		for (k = 0; k < 16; k++) {
			e[k] = (unsigned char)(0x11 + k);		/* type: any non-zero GUID */
			e[16 + k] = (unsigned char)(0x40 + 16 * i + k);	/* unique GUID */
		}
		le64(e + 32, parts[i][0]);
		le64(e + 40, parts[i][1]);
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(sectors * 512)) < 0) {
		diag(t, "gpt image %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	for (k = 0; k < 2; k++) {	/* 0: primary, 1: backup */
		uint64_t my = k ? sectors - 1 : 1, alt = k ? 1 : sectors - 1;
		uint64_t entlba = k ? sectors - 33 : 2;

		memset(hdr, 0, sizeof(hdr));
		memcpy(hdr, "EFI PART", 8);
		le32(hdr + 8, 0x00010000);
		le32(hdr + 12, 92);
		le64(hdr + 24, my);
		le64(hdr + 32, alt);
		le64(hdr + 40, 34);
		le64(hdr + 48, sectors - 34);
		for (i = 0; i < 16; i++)
			hdr[56 + i] = (unsigned char)(0xa0 + i);
		le64(hdr + 72, entlba);
		le32(hdr + 80, 128);
		le32(hdr + 84, 128);
		le32(hdr + 88, crc32_ieee(ents, sizeof(ents)));
		le32(hdr + 16, crc32_ieee(hdr, 92));
		if (pwrite(fd, hdr, 512, (off_t)(my * 512)) != 512 ||
		    pwrite(fd, ents, sizeof(ents), (off_t)(entlba * 512)) != (ssize_t)sizeof(ents))
			diag(t, "gpt write: %s", strerror(errno));
	}
	if (pwrite(fd, mbr, 512, 0) != 512)
		diag(t, "mbr write: %s", strerror(errno));
	close(fd);
}

/*
 * GPT: a 20 GiB disk that may grow to 100 GiB, partitions vda1 [1 MiB, 1 GiB)
 * and vda2 from 1 GiB to the last 1 MiB boundary before the backup GPT.  vda2
 * follows the disk: max = disk max - start - the GPT's end area, min = disk
 * min - the same, at most its size; vda1, followed by vda2, may grow to
 * vda2's start: its size.
 */
static void t_gpt_last_partition(struct t *t)
{
	const uint64_t n = 20 * GiB / 512, last = ((n - 34) / 2048) * 2048 - 1;
	const uint64_t parts[2][2] = { { 2048, GiB / 512 - 1 }, { GiB / 512, last } };
	char dev[PATH_MAX], img[PATH_MAX * 2], out[8192], err[4096];
	char *show2[] = { "--sysfs-root", t->root, "--json", "show", "vda2", NULL };
	char *show1[] = { "--sysfs-root", t->root, "--json", "show", "vda1", NULL };
	uint64_t tail = (n - 1 - last) * 512;
	int rc;

	disk(t, "vda", n, "0", "107374182400", "1073741824");
	hint_attr(t, "vda", "min_growth_bytes", "21474836480\n");
	part(t, "vda", "vda1", parts[0][0], parts[0][1] - parts[0][0] + 1);
	part(t, "vda", "vda2", parts[1][0], parts[1][1] - parts[1][0] + 1);
	dev_dir(t, dev, sizeof(dev));
	sfmt(img, sizeof(img), "%s/vda", dev);
	write_gpt(t, img, n, parts, 2);

	rc = run_tool(t, NULL, show2, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_HAS(t, out, "\"source\":\"sysfs\"");
	CHECK_U64(t, json_u64(out, "max"), 100 * GiB - GiB - GPT_END);
	/* the disk's min (20 GiB) less the start and the GPT's end, at most its size */
	CHECK(t, 20 * GiB - GiB - GPT_END > 20 * GiB - GiB - tail);
	CHECK_U64(t, json_u64(out, "min"), 20 * GiB - GiB - tail);
	rc = run_tool(t, NULL, show1, out, sizeof(out), err, sizeof(err));
	CHECK(t, rc == 0);
	CHECK_HAS(t, out, "\"source\":\"sysfs\"");
	CHECK_U64(t, json_u64(out, "max"), GiB - MiB);
	CHECK_U64(t, json_u64(out, "min"), 0);
}

/* mke2fs keeps only the last -E: ours and the user's become one. */
static void t_user_E_merged(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096];
	char *mkfs[] = { "--sysfs-root", t->root, "--max", "1T", "mkfs", "-t", "ext4", "vdb", "--",
			 "-E", "lazy_itable_init=1", NULL };

	disk(t, "vdb", 10 * GiB / 512, NULL, NULL, NULL);
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vdb", "");
	fake_mkfs(t, "fake-mkfs", "echo \"argv: $*\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_EXT4='%s'", fake);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, count_of(out, "argv: ") == 1);
	CHECK(t, count_of(strstr(out, "argv: ") ? strstr(out, "argv: ") : out, " -E ") == 1);
	CHECK_HAS(t, out, "resize=268435456");
	CHECK_HAS(t, out, "lazy_itable_init=1");
}

/* -E resize= is in the filesystem's blocks: with -b 1024 four times as many. */
static void t_resize_in_fs_blocks(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096];
	char *mkfs[] = { "--sysfs-root", t->root, "--max", "20G", "mkfs", "-t", "ext4", "vdb", "--",
			 "-b", "1024", NULL };

	disk(t, "vdb", 10 * GiB / 512, NULL, NULL, NULL);
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vdb", "");
	fake_mkfs(t, "fake-mkfs", "echo \"argv: $*\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_EXT4='%s'", fake);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 0);
	/* 20 GiB in 1 KiB blocks (in 4 KiB blocks 5242880: less than the 10 GiB now) */
	CHECK_HAS(t, out, "-E resize=20971520 ");
}

/* XFS AG size: stripe alignment, -d size=, and options that set the AG count. */
static void t_xfs_agsize_constraints(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096];
	char *json[] = { "--sysfs-root", t->root, "--json", "mkfs-args", "-t", "xfs", "vdc", NULL };
	char *su[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", "--", "-d",
		       "su=192k,sw=2", NULL };
	char *size[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", "--", "-d",
			 "size=5g", NULL };
	char *conc[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", "--", "-d",
			 "concurrency=4", NULL };

	/* a device with a 192 KiB x 2 stripe keeps mkfs.xfs's multidisk geometry
	 * (16 AGs at 10 GiB): no AG size of ours */
	disk(t, "vdc", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	hint_attr(t, "vdc", "minimum_io_size", "196608\n");
	hint_attr(t, "vdc", "optimal_io_size", "393216\n");
	CHECK(t, run_tool(t, NULL, json, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "agsize="));
	CHECK_HAS(t, out, "striped device");

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vda", "");
	fake_mkfs(t, "fake-mkfs", "echo \"argv: $*\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_XFS='%s'", fake);
	/* the user's stripe: the same */
	CHECK(t, run_tool(t, env, su, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "agsize="));
	/* -d size=5g: the filesystem is 5 GiB: its AGs 7/16 of that */
	CHECK(t, run_tool(t, env, size, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_HAS(t, out, "agsize=2240m");
	/* -d concurrency= sets the AG count: no agsize of ours */
	CHECK(t, run_tool(t, env, conc, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "agsize="));
}

/* ext4: no meta_bg up front; the target stops below 2^32 inodes. */
static void t_ext4_growth_format(struct t *t)
{
	char out[8192], err[4096];
	char *ten[] = { "--sysfs-root", t->root, "--max", "10T", "--json", "mkfs-args", "-t",
			"ext4", "vda", NULL };
	char *sixty4[] = { "--sysfs-root", t->root, "--max", "64T", "--json", "mkfs-args", "-t",
			   "ext4", "vda", NULL };

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	CHECK(t, run_tool(t, NULL, ten, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "meta_bg,") && !strstr(out, "^resize_inode"));
	/* 16 KiB per inode: 2^32 inodes at 64 TiB; the last group cannot be added */
	CHECK(t, run_tool(t, NULL, sixty4, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_U64(t, json_u64(out, "final"), 64 * TiB - 128 * MiB);
	CHECK_HAS(t, out, "2^32 inodes");
}

/* Devices too small for the plan: no -J size=0, no XFS plan below 300 MB. */
static void t_tiny_devices(struct t *t)
{
	char out[8192], err[4096];
	char *e4[] = { "--sysfs-root", t->root, "--max", "100G", "mkfs-args", "-t", "ext4", "vda",
		       NULL };
	char *x[] = { "--sysfs-root", t->root, "--max", "10G", "mkfs-args", "-t", "xfs", "vdb",
		      NULL };

	disk(t, "vda", 4 * MiB / 512, NULL, NULL, NULL);
	disk(t, "vdb", 200 * MiB / 512, NULL, NULL, NULL);
	CHECK(t, run_tool(t, NULL, e4, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "size=0"));
	CHECK(t, run_tool(t, NULL, x, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_STR(t, out, "\n");
}

/* --min/--max/--increment get the kernel's checks and no others; --min or --increment alone
 * on a disk without hints does not make it "will not grow". */
static void t_override_rules(struct t *t)
{
	char out[8192], err[4096];
	char *inc[] = { "--sysfs-root", t->root, "--increment", "3000", "show", "vda", NULL };
	char *mn[] = { "--sysfs-root", t->root, "--min", "20G", "--max", "100G", "show", "vda",
		       NULL };
	char *mult[] = { "--sysfs-root", t->root, "--max", "100G", "--increment", "3G", "show",
			 "vda", NULL };
	char *alone[] = { "--sysfs-root", t->root, "--increment", "1G", "mkfs-args", "-t", "ext4",
			  "vda", NULL };

	disk(t, "vda", 10 * GiB / 512, NULL, NULL, NULL);
	CHECK(t, run_tool(t, NULL, inc, out, sizeof(out), err, sizeof(err)) == 1);
	CHECK_HAS(t, err, "not a multiple");
	CHECK(t, run_tool(t, NULL, mn, out, sizeof(out), err, sizeof(err)) == 1);
	CHECK_HAS(t, err, "disk size");
	/* no multiple of the increment needed (the kernel has no such rule) */
	CHECK(t, run_tool(t, NULL, mult, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_HAS(t, out, "growth_increment_bytes 3221225472");
	CHECK(t, run_tool(t, NULL, alone, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_STR(t, out, "\n");
}

/* gh_probe(NULL, ...) reads /sys with no table; it must not crash. */
static void t_probe_null_config(struct t *t)
{
	char err[GH_ERR_MAX];
	struct dirent *de;
	struct gh_hints h;
	int st = 0, n = 0;
	pid_t pid;
	DIR *d;

	pid = fork();
	if (pid == 0) {
		/* every block device of this machine, then no device at all */
		d = opendir("/sys/class/block");
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' && ++n)
				gh_probe(NULL, de->d_name, &h, err, sizeof(err));
		if (d)
			closedir(d);
		gh_probe(NULL, NULL, &h, err, sizeof(err));
		_exit(0);
	}
	CHECK(t, pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(t, WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFSIGNALED(st))
		diag(t, "gh_probe(NULL, ...) died of signal %d", WTERMSIG(st));
}

/* mkfs --json: stdout is the JSON object alone; mkfs's output goes to stderr. */
static void t_mkfs_json_clean(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096];
	char *mkfs[] = { "--sysfs-root", t->root, "--json", "mkfs", "-t", "xfs", "vda", NULL };

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vda", "");
	fake_mkfs(t, "fake-mkfs", "echo \"argv: $*\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_XFS='%s'", fake);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, out[0] == '{' && count_of(out, "\n") == 1 && strstr(out, "}\n"));
	CHECK_HAS(t, err, "argv: ");
}

/* mkfs killed by a signal: 128 + the signal, as a shell reports it. */
static void t_mkfs_signal_status(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096];
	char *mkfs[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", NULL };

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vda", "");
	fake_mkfs(t, "fake-mkfs", "kill -TERM $$", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_XFS='%s'", fake);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 128 + 15);
}

/* --sysfs-root with a bare name: the device node is the one beside that sysfs
 * (ROOT/../dev/NAME), never the host's /dev/NAME; none there: a usage error. */
static void t_sysfs_root_bare_name(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 3], out[8192], err[4096], node[PATH_MAX * 2];
	char *mkfs[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vda", NULL };
	char *mkfs2[] = { "--sysfs-root", t->root, "mkfs", "-t", "xfs", "vdb", NULL };

	disk(t, "vda", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	disk(t, "vdb", 10 * GiB / 512, "0", "10995116277760", "1073741824");
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vda", "");
	sfmt(node, sizeof(node), "%s/dev/vda\n", t->dir);
	fake_mkfs(t, "fake-mkfs", "for a; do d=$a; done; echo \"device: $d\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_XFS='%s'", fake);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_HAS(t, out, node);
	CHECK(t, run_tool(t, env, mkfs2, out, sizeof(out), err, sizeof(err)) == 2);
	CHECK(t, !strstr(out, "device: "));
}

/* Bad hints or a bad table: mkfs still runs, with its defaults and a warning. */
static void t_mkfs_falls_back(struct t *t)
{
	char fake[PATH_MAX * 2], env[PATH_MAX * 4], out[8192], err[4096], db[PATH_MAX * 2];
	char *mkfs[] = { "--sysfs-root", t->root, "mkfs", "-t", "ext4", "vda", NULL };
	char *mkfs2[] = { "--sysfs-root", t->root, "mkfs", "-t", "ext4", "sda", NULL };
	char *show[] = { "--sysfs-root", t->root, "show", "vda", NULL };

	disk(t, "vda", 10 * GiB / 512, "0", "lots", "1073741824");
	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sda", "vendor", "ACME\n");
	dev_attr(t, "sda", "model", "Disk\n");
	sfmt(db, sizeof(db), "%s", table(t, "bad.hwdb", "growth:scsi:v*\n GROWTH_MIN 1G\n"));
	dev_dir(t, fake, sizeof(fake));
	table(t, "dev/vda", "");
	table(t, "dev/sda", "");
	fake_mkfs(t, "fake-mkfs", "echo \"argv: $*\"", fake, sizeof(fake));
	sfmt(env, sizeof(env), "GROWTH_MKFS_EXT4='%s' GROWTH_HINTS_DB='%s'", fake, db);
	CHECK(t, run_tool(t, env, mkfs, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_HAS(t, out, "argv: /");
	CHECK_HAS(t, err, "warning");
	CHECK(t, run_tool(t, env, mkfs2, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_HAS(t, out, "argv: /");
	CHECK_HAS(t, err, "warning");
	/* show still says what is wrong */
	CHECK(t, run_tool(t, env, show, out, sizeof(out), err, sizeof(err)) == 1);
}

/* A table record is a guess: no inode ratio, AG count or log size from it. */
static void t_table_is_a_guess(struct t *t)
{
	char out[8192], err[4096];
	char *e4[] = { "--sysfs-root", t->root, "mkfs-args", "-t", "ext4", "sda", NULL };
	char *x[] = { "--sysfs-root", t->root, "mkfs-args", "-t", "xfs", "sda", NULL };

	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	dev_attr(t, "sda", "vendor", "Google\n");
	dev_attr(t, "sda", "model", "PersistentDisk\n");
	CHECK(t, run_tool(t, NULL, e4, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strstr(out, "-T ") && !strstr(out, "-i ") && !strstr(out, "-J "));
	CHECK(t, run_tool(t, NULL, x, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_STR(t, out, "\n");
}

/* --final: an explicit target (image builders) and --version. */
static void t_final_and_version(struct t *t)
{
	char out[8192], err[4096];
	char *fin[] = { "--sysfs-root", t->root, "--final", "8T", "--json", "mkfs-args", "-t",
			"ext4", "vdb", NULL };
	char *ver[] = { "--version", NULL };

	disk(t, "vdb", 10 * GiB / 512, NULL, NULL, NULL);
	CHECK(t, run_tool(t, NULL, fin, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK_U64(t, json_u64(out, "final"), 8 * TiB);
	/* the inodes of 10 GiB, not of 8 TiB's big type (32768) */
	CHECK_U64(t, json_u64(out, "inode_ratio"), 16384);
	CHECK(t, run_tool(t, NULL, ver, out, sizeof(out), err, sizeof(err)) == 0);
	CHECK(t, !strncmp(out, "growth-mkfs ", 12));
}

/* udev's database: a table record the rule matched (ID_GROWTH_SOURCE=table); a
 * device entry is not taken from there (sysfs is the device's word). */
static void t_udev_db(struct t *t)
{
	struct gh_config c = cfg_of(t, NULL, 1);
	struct gh_hints h;
	char rel[PATH_MAX];

	disk(t, "sda", 10 * GiB / 512, NULL, NULL, NULL);
	put(t, "devices/virtual/block/sda/dev", "8:0\n");
	dev_attr(t, "sda", "vendor", "ACME\n");
	dev_attr(t, "sda", "model", "Disk\n");
	sfmt(rel, sizeof(rel), "run/udev/data/b8:0");
	table(t, rel, "S:disk/by-id/x\nE:ID_SERIAL=x\nE:ID_GROWTH_MIN_BYTES=1073741824\n"
		      "E:ID_GROWTH_MAX_BYTES=2199023255552\nE:ID_GROWTH_INCREMENT_BYTES=1073741824\n"
		      "E:ID_GROWTH_SOURCE=table\n");
	if (probe_ok(t, &c, "sda", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_TABLE);
	CHECK_U64(t, h.max, 2 * TiB);
	CHECK_HAS(t, h.origin, "udev database");
	/* the same values marked as the device's: not used, the table finds nothing */
	disk(t, "sdb", 10 * GiB / 512, NULL, NULL, NULL);
	put(t, "devices/virtual/block/sdb/dev", "8:16\n");
	dev_attr(t, "sdb", "vendor", "ACME\n");
	dev_attr(t, "sdb", "model", "Disk\n");
	table(t, "run/udev/data/b8:16", "E:ID_GROWTH_MIN_BYTES=0\nE:ID_GROWTH_MAX_BYTES=2199023255552\n"
					"E:ID_GROWTH_INCREMENT_BYTES=1073741824\nE:ID_GROWTH_SOURCE=device\n");
	if (probe_ok(t, &c, "sdb", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
	/* a table record whose max is below the disk: ignored */
	disk(t, "sdc", 10 * GiB / 512, NULL, NULL, NULL);
	put(t, "devices/virtual/block/sdc/dev", "8:32\n");
	table(t, "run/udev/data/b8:32", "E:ID_GROWTH_MIN_BYTES=0\nE:ID_GROWTH_MAX_BYTES=1073741824\n"
					"E:ID_GROWTH_INCREMENT_BYTES=1073741824\nE:ID_GROWTH_SOURCE=table\n");
	if (probe_ok(t, &c, "sdc", &h))
		return;
	CHECK(t, h.source == GH_SOURCE_NONE);
}

/* ---- runner ------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*fn)(struct t *t);
} cases[] = {
	{ "probe_disk_sysfs_hints", t_disk_sysfs },
	{ "probe_disk_no_hints", t_disk_no_hints },
	{ "probe_partition_at_disk_end", t_part_at_end },
	{ "probe_partition_not_at_disk_end", t_part_not_at_end },
	{ "probe_partition_place_unknown", t_part_unknown },
	{ "table_scsi_vendor_model", t_table_scsi },
	{ "table_nvme_model", t_table_nvme },
	{ "table_virtio_dmi_vendor", t_table_virtio_dmi },
	{ "table_search_order", t_table_order },
	{ "table_max_below_size_ignored", t_table_too_small },
	{ "table_builtin_records", t_builtin_table },
	{ "table_bad_records", t_bad_table },
	{ "error_missing_device", t_missing_device },
	{ "error_not_block_device", t_not_block },
	{ "error_unreadable_sysfs", t_unreadable_sysfs },
	{ "error_garbage_sysfs", t_garbage_sysfs },
	{ "probe_kernel_rules", t_kernel_rules },
	{ "parse_sizes", t_sizes },
	{ "overrides", t_overrides },
	{ "plan_xfs_10g_to_10t", t_xfs_10g_10t },
	{ "plan_ext4_10g_to_10t", t_ext4_10g_10t },
	{ "plan_max_equals_size", t_no_growth },
	{ "plan_no_hint_keeps_defaults", t_no_hint },
	{ "plan_1g_to_64t", t_1g_64t },
	{ "plan_ext4_resize_inode_limit", t_ext4_resize_inode },
	{ "plan_xfs_sizes", t_xfs_sizes },
	{ "plan_huge_values", t_huge },
	{ "plan_user_options_win", t_user_args },
	{ "cli_show_mkfs_args_mkfs", t_cli },
	{ "gpt_last_partition_follows_disk", t_gpt_last_partition },
	{ "mkfs_user_E_merged_with_ours", t_user_E_merged },
	{ "mkfs_resize_in_filesystem_blocks", t_resize_in_fs_blocks },
	{ "xfs_agsize_stripe_size_concurrency", t_xfs_agsize_constraints },
	{ "xfs_ag_rule_sweep", t_xfs_ag_rule_sweep },
	{ "ext4_no_meta_bg_inode_limit", t_ext4_growth_format },
	{ "tiny_devices", t_tiny_devices },
	{ "override_validation", t_override_rules },
	{ "probe_null_config", t_probe_null_config },
	{ "mkfs_json_stdout_clean", t_mkfs_json_clean },
	{ "mkfs_signal_exit_status", t_mkfs_signal_status },
	{ "sysfs_root_bare_name_device", t_sysfs_root_bare_name },
	{ "mkfs_falls_back_on_bad_hints", t_mkfs_falls_back },
	{ "table_hints_are_a_guess", t_table_is_a_guess },
	{ "final_target_and_version", t_final_and_version },
	{ "udev_database_table_record", t_udev_db },
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	size_t n = sizeof(cases) / sizeof(cases[0]), i;
	const char *tmp = getenv("TMPDIR");
	char *slash;
	int failed = 0;

	(void)argc;
	sfmt(tool, sizeof(tool), "%s", argv[0]);
	slash = strrchr(tool, '/');
	if (slash)
		sfmt(slash, sizeof(tool) - (size_t)(slash - tool), "/../growth-mkfs");
	else
		sfmt(tool, sizeof(tool), "../growth-mkfs");
	sfmt(base, sizeof(base), "%s/growth-hints-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		printf("Bail out! cannot make a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		struct t t;

		memset(&t, 0, sizeof(t));
		t.name = cases[i].name;
		sfmt(t.dir, sizeof(t.dir), "%s/%zu", base, i + 1);
		sfmt(t.root, sizeof(t.root), "%s/%zu/sys", base, i + 1);
		mkdirs(&t, t.root);
		cases[i].fn(&t);
		printf("%sok %zu %s\n", t.failed ? "not " : "", i + 1, t.name);
		failed += t.failed;
	}
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	printf("# %zu passed, %d failed\n", n - (size_t)failed, failed);
	return failed ? 1 : 0;
}
