// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Growth hints of a block device: from the kernel's queue attributes, else
 * from the table of known cloud disks, else none.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "growth-hints.h"
#include "growth-internal.h"

#define SECTOR 512ULL

#ifndef GH_VERSION
#define GH_VERSION "0"
#endif

const char *gh_version(void)
{
	return GH_VERSION;
}

const char *gh_source_name(enum gh_source src)
{
	switch (src) {
	case GH_SOURCE_SYSFS:
		return "sysfs";
	case GH_SOURCE_TABLE:
		return "table";
	case GH_SOURCE_OVERRIDE:
		return "override";
	case GH_SOURCE_NONE:
		break;
	}
	return "none";
}

int gh__fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int gh__fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

#define fail gh__fail
#define fmt gh__fmt

/* Decimal digits at *p into *v; -1 on none or overflow. */
static int parse_digits(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return -1;
		*v = *v * 10 + d;
	}
	*p = s;
	return 0;
}

int gh_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v;

	if (parse_digits(&s, &v) < 0)
		return -1;
	if (*s == '\n')
		s++;
	if (*s)
		return -1;
	*out = v;
	return 0;
}

int gh_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	const char *p = s, *u;
	unsigned shift = 0;
	uint64_t v;

	if (parse_digits(&p, &v) < 0)
		return -1;
	if (*p) {
		u = strchr(units, toupper((unsigned char)*p));
		if (!u)
			return -1;
		shift = 10 * (unsigned)(u - units + 1);
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	}
	if (*p)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

void gh_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned i = 0, exact = 0;

	while (i < 6 && bytes >> (10 * (i + 1)))
		i++;
	while (exact < 6 && bytes && !(bytes & ((1ULL << (10 * (exact + 1))) - 1)))
		exact++;
	if (exact >= i || i == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> (10 * i)), units[i]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)(1ULL << (10 * i)), units[i]);
}

/*
 * Read a small sysfs file.  Returns 0, 1 if it does not exist, -1 with err
 * if it exists but cannot be read.
 */
static int read_attr(const char *path, char *buf, size_t len, const char *dev,
		     char *err, size_t errlen)
{
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		return fail(err, errlen, "%s: cannot read %s: %s", dev, path, strerror(errno));
	}
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return fail(err, errlen, "%s: cannot read %s: %s", dev, path, strerror(e));
	if ((size_t)n == len - 1)
		return fail(err, errlen, "%s: %s is longer than expected", dev, path);
	buf[n] = '\0';
	return 0;
}

/* Read a decimal attribute; 1 if absent. */
static int read_num(const char *path, uint64_t *v, const char *dev, char *err, size_t errlen)
{
	char buf[64], *nl;
	int r;

	r = read_attr(path, buf, sizeof(buf), dev, err, errlen);
	if (r)
		return r;
	if (gh_parse_u64(buf, v) == 0)
		return 0;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (buf[0] == '-')
		return fail(err, errlen, "%s: %s holds a negative number \"%s\"", dev, path, buf);
	if (buf[0] && strspn(buf, "0123456789") == strlen(buf))
		return fail(err, errlen, "%s: %s holds \"%s\", which overflows 64 bits", dev, path, buf);
	return fail(err, errlen, "%s: %s holds \"%s\", not a number", dev, path, buf);
}

/* Read a text attribute, trimmed; "" if absent. */
int gh__read_text(const char *path, char *buf, size_t len, const char *dev,
		     char *err, size_t errlen)
{
	size_t n;
	char *p;
	int r;

	r = read_attr(path, buf, len, dev, err, errlen);
	if (r < 0)
		return r;
	if (r > 0) {
		buf[0] = '\0';
		return 0;
	}
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	for (p = buf; isspace((unsigned char)*p); p++)
		;
	memmove(buf, p, strlen(p) + 1);
	return 0;
}

static int sectors_to_bytes(uint64_t sectors, const char *path, uint64_t *bytes,
			    const char *dev, char *err, size_t errlen)
{
	if (sectors > UINT64_MAX / SECTOR)
		return fail(err, errlen, "%s: %s: %llu sectors overflow 64 bits in bytes",
			    dev, path, (unsigned long long)sectors);
	*bytes = sectors * SECTOR;
	return 0;
}

/*
 * A directory of the system beside sysfs: DIR as configured, else
 * "<root>/SUB" when sysfs_root is "<root>/sys" (a fixture or a chroot),
 * else "/SUB".
 */
static void beside_sysfs(const struct gh_config *cfg, const char *dir, const char *sub,
			 char *buf, size_t len)
{
	const char *root = cfg && cfg->sysfs_root && *cfg->sysfs_root ? cfg->sysfs_root : NULL;
	size_t n;

	if (dir && *dir) {
		fmt(buf, len, "%s", dir);
		return;
	}
	n = root ? strlen(root) : 0;
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (root && n > 4 && !strncmp(root + n - 4, "/sys", 4))
		fmt(buf, len, "%.*s/%s", (int)(n - 4), root, sub);
	else
		fmt(buf, len, "/%s", sub);
}

/* The directory of device nodes (see struct gh_config). */
static void dev_root_of(const struct gh_config *cfg, char *buf, size_t len)
{
	beside_sysfs(cfg, cfg ? cfg->dev_root : NULL, "dev", buf, len);
}

int gh_device_path(const struct gh_config *cfg, const char *device, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (!device || !*device)
		return -1;
	if (strchr(device, '/'))
		return fmt(buf, len, "%s", device);
	dev_root_of(cfg, dir, sizeof(dir));
	return fmt(buf, len, "%s/%s", dir, device);
}

/* Find the kernel name of DEVICE; 0 or -1. */
static int resolve_name(const char *root, const char *device, char *name, size_t len,
			char *err, size_t errlen)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	if (!strchr(device, '/')) {
		base = device;
	} else {
		if (stat(device, &st) < 0)
			return fail(err, errlen, "%s: %s", device,
				    errno == ENOENT ? "no such device" : strerror(errno));
		if (!S_ISBLK(st.st_mode))
			return fail(err, errlen, "%s: not a block device", device);
		fmt(path, sizeof(path), "%s/dev/block/%u:%u", root,
			 major(st.st_rdev), minor(st.st_rdev));
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		} else {
			base = strrchr(device, '/') + 1;
		}
	}
	if (!*base || strlen(base) >= len || strchr(base, '/') || !strcmp(base, ".") ||
	    !strcmp(base, ".."))
		return fail(err, errlen, "%s: not a block device name", device);
	strcpy(name, base);
	return 0;
}

/*
 * The kernel's rules for the three values (blk_growth_hints_check()), on a
 * device of SIZE bytes: a maximum, an increment (0: none stated) that is a
 * multiple of the logical block, min <= max, min <= size <= max.  Neither the
 * minimum nor the maximum need be a multiple of the increment.
 */
static int check_hints(uint64_t min, uint64_t max, uint64_t inc, uint64_t lbs, uint64_t size,
		       const char *what, const char *dev, char *err, size_t errlen)
{
	unsigned long long mn = min, mx = max, in = inc, sz = size;

	if (!mx)
		return fail(err, errlen, "%s: inconsistent %s: max is 0 but min %llu increment %llu",
			    dev, what, mn, in);
	if (in % (lbs ? lbs : 512))
		return fail(err, errlen,
			    "%s: inconsistent %s: increment %llu is not a multiple of the %llu-byte block",
			    dev, what, in, (unsigned long long)(lbs ? lbs : 512));
	if (mn > mx)
		return fail(err, errlen, "%s: inconsistent %s: min %llu > max %llu", dev, what, mn, mx);
	if (mx < sz)
		return fail(err, errlen, "%s: inconsistent %s: max %llu < disk size %llu",
			    dev, what, mx, sz);
	if (mn > sz)
		return fail(err, errlen, "%s: inconsistent %s: min %llu > disk size %llu",
			    dev, what, mn, sz);
	return 0;
}

static const char *const attr_names[3] = {
	"min_growth_bytes", "max_growth_bytes", "growth_increment_bytes",
};

/* The disk's I/O topology; absent attributes read as 0. */
static int read_topology(const char *diskdir, struct gh_hints *h, const char *dev, char *err,
			 size_t errlen)
{
	static const char *const names[4] = {
		"logical_block_size", "physical_block_size", "minimum_io_size", "optimal_io_size",
	};
	uint32_t *dst[4] = { &h->logical_block, &h->physical_block, &h->io_min, &h->io_opt };
	char path[PATH_MAX];
	uint64_t v;
	int i, r;

	for (i = 0; i < 4; i++) {
		fmt(path, sizeof(path), "%s/queue/%s", diskdir, names[i]);
		r = read_num(path, &v, dev, err, errlen);
		if (r < 0)
			return -1;
		*dst[i] = r == 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
	}
	return 0;
}

/* 0 with hints, 1 if there are none (no attributes, or all 0), -1 on error. */
static int sysfs_hints(const char *diskdir, struct gh_hints *h, const char *dev,
		       char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint64_t v[3];
	int r, i, present = 0;

	for (i = 0; i < 3; i++) {
		fmt(path, sizeof(path), "%s/queue/%s", diskdir, attr_names[i]);
		r = read_num(path, &v[i], dev, err, errlen);
		if (r < 0)
			return r;
		if (r == 0)
			present |= 1 << i;
	}
	if (!present)
		return 1;
	if (present != 7) {
		for (i = 0; i < 3 && (present & (1 << i)); i++)
			;
		return fail(err, errlen, "%s: inconsistent sysfs: %s/queue/%s is missing",
			    dev, diskdir, attr_names[i]);
	}
	if (!v[0] && !v[1] && !v[2])
		return 1;	/* the device gives none: try the table */
	if (check_hints(v[0], v[1], v[2], h->logical_block, h->disk_size, "sysfs growth hints",
			dev, err, errlen) < 0)
		return -1;
	h->min = v[0];
	h->max = v[1];
	h->increment = v[2];
	h->source = GH_SOURCE_SYSFS;
	fmt(h->origin, sizeof(h->origin), "sysfs %s/queue/{%s,%s,%s}", diskdir,
		 attr_names[0], attr_names[1], attr_names[2]);
	return 0;
}

/*
 * udev's database entry of the disk (the hwdb rule's ID_GROWTH_* properties).
 * Only a table record (ID_GROWTH_SOURCE=table) is taken from there: device
 * hints come from sysfs itself.  0 with hints, 1 without, -1 on error.
 */
static int udev_hints(const struct gh_config *cfg, const char *diskdir, struct gh_hints *h,
		      const char *dev, char *err, size_t errlen)
{
	static const char *const keys[3] = {
		"ID_GROWTH_MIN_BYTES=", "ID_GROWTH_MAX_BYTES=", "ID_GROWTH_INCREMENT_BYTES=",
	};
	char db[PATH_MAX], path[PATH_MAX * 2], devno[32], line[512], *nl;
	uint64_t v[3] = { 0, 0, 0 };
	int have = 0, table = 0, i;
	FILE *f;

	beside_sysfs(cfg, cfg ? cfg->udev_db : NULL, "run/udev/data", db, sizeof(db));
	fmt(path, sizeof(path), "%s/dev", diskdir);
	if (gh__read_text(path, devno, sizeof(devno), dev, err, errlen) < 0)
		return -1;
	if (!devno[0] || strspn(devno, "0123456789:") != strlen(devno))
		return 1;
	fmt(path, sizeof(path), "%s/b%s", db, devno);
	f = fopen(path, "re");
	if (!f)
		return 1;	/* no udev, or it knows nothing of this disk */
	while (fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "E:", 2))
			continue;
		if (!strcmp(line + 2, "ID_GROWTH_SOURCE=table"))
			table = 1;
		for (i = 0; i < 3; i++)
			if (!strncmp(line + 2, keys[i], strlen(keys[i])) &&
			    gh_parse_u64(line + 2 + strlen(keys[i]), &v[i]) == 0)
				have |= 1 << i;
	}
	fclose(f);
	if (!table || have != 7)
		return 1;
	if (check_hints(v[0], v[1], v[2], 0, v[0], "udev ID_GROWTH_* properties", dev, err,
			errlen) < 0)
		return -1;
	if (v[1] < h->disk_size) {
		fmt(h->origin, sizeof(h->origin),
		    "no sysfs hint; udev database %s: table max below the disk's size: ignored",
		    path);
		return 1;
	}
	h->min = v[0];
	h->max = v[1];
	h->increment = v[2];
	h->source = GH_SOURCE_TABLE;
	fmt(h->origin, sizeof(h->origin), "udev database %s (ID_GROWTH_SOURCE=table)", path);
	return 0;
}

/*
 * A partition: where it lies in its disk's partition table (POLICY.md,
 * "Partitions"; the rule of the util-linux series' libblkid).  A partition
 * followed by another one gets max = the next one's start - its start, min = 0;
 * the last one follows the disk: max = disk max - start - the area the table
 * keeps at the disk's end, min = disk min - start - that area (0 if the disk's
 * min lies before that, at most its size).  The disk's increment either way.
 * When its place is not known (no readable DOS or GPT table listing it, a
 * logical partition), it has no hints at all: never "will not grow".
 */
static void partition_hints(const struct gh_config *cfg, struct gh_hints *h)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], why[GH_ERR_MAX] = "";
	uint64_t end = h->start + h->size, next = 0, keep;
	struct gh__ptable pt;
	int found = 0, i;

	h->tail = h->disk_size - end;
	if (h->max < h->disk_size) {
		fmt(why, sizeof(why), "the disk's max is below its size");
		goto unknown;
	}
	dev_root_of(cfg, dir, sizeof(dir));
	fmt(path, sizeof(path), "%s/%s", dir, h->disk);
	if (gh__read_ptable(path, &pt, why, sizeof(why)) != 0)
		goto unknown;
	fmt(h->pttype, sizeof(h->pttype), "%s", pt.type);
	if (strcmp(pt.type, "gpt") && strcmp(pt.type, "dos")) {
		fmt(why, sizeof(why), "a %s table on %s", pt.type, path);
		goto unknown;
	}
	for (i = 0; i < pt.n; i++) {
		if (pt.start[i] == h->start && pt.size[i] == h->size && !found) {
			found = 1;
			if (!pt.primary[i]) {
				fmt(why, sizeof(why), "a logical partition of the %s table on %s",
				    pt.type, path);
				goto unknown;
			}
		} else if (pt.start[i] >= end) {
			if (!next || pt.start[i] < next)
				next = pt.start[i];
		} else if (pt.start[i] + pt.size[i] > end) {
			fmt(why, sizeof(why), "a partition of the %s table on %s overlaps its end",
			    pt.type, path);
			goto unknown;
		}
	}
	if (!found) {
		fmt(why, sizeof(why), "the %s table on %s has no partition at byte %llu",
		    pt.type, path, (unsigned long long)h->start);
		goto unknown;
	}

	if (next) {
		h->max = next - h->start;
		h->min = 0;
		fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
		    "; followed on %s by a partition at byte %llu: may grow to it", h->disk,
		    (unsigned long long)next);
		return;
	}
	keep = pt.end_bytes < h->tail ? pt.end_bytes : h->tail;
	h->max = h->max - h->start - keep;
	if (pt.max_size && h->max > pt.max_size)
		h->max = pt.max_size > h->size ? pt.max_size : h->size;
	h->min = h->min > h->start + keep ? h->min - h->start - keep : 0;
	if (h->min > h->size)
		h->min = h->size;
	fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
	    "; last partition of %s (%s, %llu bytes after it, %llu kept by the table): "
	    "follows the disk", h->disk, h->pttype, (unsigned long long)h->tail,
	    (unsigned long long)keep);
	return;

unknown:
	h->min = h->max = h->increment = 0;
	h->source = GH_SOURCE_NONE;
	fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
	    "; where %s lies on %s is not known (%s): no hints", h->name, h->disk, why);
}

/* ---- probe -------------------------------------------------------------- */

int gh_probe(const struct gh_config *cfg, const char *device, struct gh_hints *h,
	     char *err, size_t errlen)
{
	const char *root = cfg && cfg->sysfs_root && *cfg->sysfs_root ? cfg->sysfs_root : "/sys";
	char classdir[PATH_MAX], real[PATH_MAX], diskdir[PATH_MAX], path[PATH_MAX + 32];
	uint64_t sectors, disk_sectors, start = 0;
	struct stat st;
	char *slash;
	int r;

	if (!h)
		return fail(err, errlen, "%s: no result buffer", device ? device : "(none)");
	memset(h, 0, sizeof(*h));
	if (!device || !*device)
		return fail(err, errlen, "(none): no device given");
	fmt(path, sizeof(path), "%s/class/block", root);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return fail(err, errlen, "%s: cannot read sysfs: %s: %s", device, path,
			    stat(path, &st) < 0 ? strerror(errno) : "not a directory");
	if (resolve_name(root, device, h->name, sizeof(h->name), err, errlen) < 0)
		return -1;
	fmt(classdir, sizeof(classdir), "%s/class/block/%s", root, h->name);
	if (!realpath(classdir, real)) {
		if (errno == ENOENT)
			return fail(err, errlen, "%s: no such block device in %s/class/block",
				    device, root);
		return fail(err, errlen, "%s: cannot read sysfs: %s: %s", device, classdir,
			    strerror(errno));
	}
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return fail(err, errlen, "%s: cannot read sysfs: %s is not a directory", device, real);

	fmt(path, sizeof(path), "%s/size", real);
	r = read_num(path, &sectors, device, err, errlen);
	if (r > 0)
		return fail(err, errlen, "%s: cannot read sysfs: %s is missing", device, path);
	if (r < 0 || sectors_to_bytes(sectors, path, &h->size, device, err, errlen) < 0)
		return -1;
	if (!sectors)
		return fail(err, errlen, "%s: size is 0 (no medium?)", device);

	fmt(path, sizeof(path), "%s/partition", real);
	h->partition = stat(path, &st) == 0;
	if (h->partition) {
		fmt(diskdir, sizeof(diskdir), "%s", real);
		slash = strrchr(diskdir, '/');
		if (!slash || slash == diskdir)
			return fail(err, errlen, "%s: cannot find the disk of partition %s", device, real);
		*slash = '\0';
		fmt(path, sizeof(path), "%s/size", diskdir);
		r = read_num(path, &disk_sectors, device, err, errlen);
		if (r > 0)
			return fail(err, errlen, "%s: cannot find the disk of partition %s (no %s)",
				    device, h->name, path);
		if (r < 0 || sectors_to_bytes(disk_sectors, path, &h->disk_size, device, err, errlen) < 0)
			return -1;
		fmt(path, sizeof(path), "%s/start", real);
		r = read_num(path, &start, device, err, errlen);
		if (r > 0)
			return fail(err, errlen, "%s: cannot read sysfs: %s is missing", device, path);
		if (r < 0 || sectors_to_bytes(start, path, &h->start, device, err, errlen) < 0)
			return -1;
		if (start > disk_sectors || sectors > disk_sectors - start)
			return fail(err, errlen,
				    "%s: inconsistent sysfs: partition %s (start %llu, %llu sectors) ends past its disk (%llu sectors)",
				    device, h->name, (unsigned long long)start,
				    (unsigned long long)sectors, (unsigned long long)disk_sectors);
		slash = strrchr(diskdir, '/');
		fmt(h->disk, sizeof(h->disk), "%s", slash + 1);
		/* On the real sysfs, libblkid names the whole disk (it knows
		 * device-mapper and the other exceptions). */
		if (!strcmp(root, "/sys") && strchr(device, '/') && stat(device, &st) == 0) {
			char whole[GH_NAME_MAX];

			if (gh__wholedisk(major(st.st_rdev), minor(st.st_rdev), whole,
					  sizeof(whole)) == 0 && strcmp(whole, h->disk))
				return fail(err, errlen,
					    "%s: sysfs says its disk is %s, libblkid says %s",
					    device, h->disk, whole);
		}
	} else {
		fmt(diskdir, sizeof(diskdir), "%s", real);
		h->disk_size = h->size;
		fmt(h->disk, sizeof(h->disk), "%s", h->name);
	}
	if (read_topology(diskdir, h, device, err, errlen) < 0)
		return -1;

	r = sysfs_hints(diskdir, h, device, err, errlen);
	if (r < 0)
		return -1;
	if (r > 0) {
		r = udev_hints(cfg, diskdir, h, device, err, errlen);
		if (r < 0)
			return -1;
	}
	if (r > 0 && gh__table_hints(cfg, root, diskdir, h, device, err, errlen) < 0)
		return -1;

	if (h->source != GH_SOURCE_NONE && h->partition)
		partition_hints(cfg, h);
	return 0;
}

int gh_apply_overrides(struct gh_hints *h, const struct gh_overrides *o, char *err,
		       size_t errlen)
{
	const char *dev = h->name[0] ? h->name : "(device)";
	uint64_t mn = h->min, mx = h->max, inc = h->increment;

	if (!o || (!o->has_min && !o->has_max && !o->has_increment))
		return 0;
	if (o->has_max && o->max < h->size)
		return fail(err, errlen, "%s: --max %llu is smaller than the device (%llu bytes)",
			    dev, (unsigned long long)o->max, (unsigned long long)h->size);
	if (h->source == GH_SOURCE_NONE && !o->has_max) {
		/* A minimum or an increment says nothing about growth: checked, then ignored. */
		inc = o->has_increment ? o->increment : 0;
		if (check_hints(o->has_min ? o->min : 0, h->size, inc, h->logical_block, h->size,
				"--min/--increment", dev, err, errlen) < 0)
			return -1;
		fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
		    "; --min/--increment without a max: ignored");
		return 0;
	}
	if (h->source == GH_SOURCE_NONE) {
		/* --max alone: no minimum, no increment stated */
		mn = 0;
		inc = 0;
	}
	if (o->has_min)
		mn = o->min;
	if (o->has_max)
		mx = o->max;
	if (o->has_increment)
		inc = o->increment;
	if (check_hints(mn, mx, inc, h->logical_block, h->size, "--min/--max/--increment", dev,
			err, errlen) < 0)
		return -1;
	h->min = mn;
	h->max = mx;
	h->increment = inc;
	h->source = GH_SOURCE_OVERRIDE;
	fmt(h->origin, sizeof(h->origin), "command line (--min/--max/--increment)");
	return 0;
}
