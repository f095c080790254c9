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
static int read_text(const char *path, char *buf, size_t len, const char *dev,
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

static int path_join(char *buf, size_t len, const char *a, const char *b)
{
	return fmt(buf, len, "%s/%s", a, b);
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

/* Kernel validation of the interface, done again on what sysfs says. */
static int check_hints(const struct gh_hints *h, uint64_t lbs, const char *what,
		       const char *dev, char *err, size_t errlen)
{
	unsigned long long mn = h->min, mx = h->max, inc = h->increment;
	unsigned long long sz = h->disk_size;

	if (!inc)
		return fail(err, errlen, "%s: inconsistent %s: increment is 0 but min %llu max %llu",
			    dev, what, mn, mx);
	if (lbs && inc % lbs)
		return fail(err, errlen,
			    "%s: inconsistent %s: increment %llu is not a multiple of the %llu-byte block",
			    dev, what, inc, (unsigned long long)lbs);
	if (mn % inc || mx % inc)
		return fail(err, errlen,
			    "%s: inconsistent %s: min %llu / max %llu not multiples of increment %llu",
			    dev, what, mn, mx, inc);
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

/* 0 with hints, 1 if there are none (no attributes, or all 0), -1 on error. */
static int sysfs_hints(const char *diskdir, struct gh_hints *h, const char *dev,
		       char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint64_t v[3], lbs = 0;
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
	fmt(path, sizeof(path), "%s/queue/logical_block_size", diskdir);
	r = read_num(path, &lbs, dev, err, errlen);
	if (r < 0)
		return r;
	h->min = v[0];
	h->max = v[1];
	h->increment = v[2];
	if (check_hints(h, lbs, "sysfs growth hints", dev, err, errlen) < 0)
		return -1;
	h->source = GH_SOURCE_SYSFS;
	fmt(h->origin, sizeof(h->origin), "sysfs %s/queue/{%s,%s,%s}", diskdir,
		 attr_names[0], attr_names[1], attr_names[2]);
	return 0;
}

/* ---- the table ---------------------------------------------------------- */

static int db_value(const char *v, size_t n, uint64_t *out)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return gh_parse_size(buf, out);
}

int gh_db_match(const char *text, size_t len, const char *what, const char *key,
		uint64_t *min, uint64_t *max, uint64_t *increment, char *err, size_t errlen)
{
	const char *p = text, *end = text + len, *nl, *eq;
	char line[GH_TEXT_MAX];
	int lineno = 0, state = 0, matched = 0, have = 0;
	uint64_t v[3] = { 0, 0, 0 };
	size_t n, k;

	/* state: 0 between records, 1 in match lines, 2 in properties */
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0) {		/* a blank line ends a record */
			if (matched)
				break;
			state = 0;
			continue;
		}
		if (p[0] == '#')
			continue;
		if (p[0] == ' ' || p[0] == '\t') {
			while (n && (*p == ' ' || *p == '\t')) {
				p++;
				n--;
			}
			if (!n || *p == '#')
				continue;
			if (state == 0)
				return fail(err, errlen, "%s:%d: property outside a record", what, lineno);
			eq = memchr(p, '=', n);
			if (!eq)
				return fail(err, errlen, "%s:%d: property without '='", what, lineno);
			k = (size_t)(eq - p);
			state = 2;
			if (!matched)
				continue;
			if (k == 10 && !memcmp(p, "GROWTH_MIN", 10)) {
				if (db_value(eq + 1, n - k - 1, &v[0]) < 0)
					goto bad_value;
				have |= 1;
			} else if (k == 10 && !memcmp(p, "GROWTH_MAX", 10)) {
				if (db_value(eq + 1, n - k - 1, &v[1]) < 0)
					goto bad_value;
				have |= 2;
			} else if (k == 16 && !memcmp(p, "GROWTH_INCREMENT", 16)) {
				if (db_value(eq + 1, n - k - 1, &v[2]) < 0)
					goto bad_value;
				have |= 4;
			}
			/* Other keys are for other readers; ignore them. */
			continue;
		}
		if (state == 2)
			return fail(err, errlen, "%s:%d: match line after properties (missing blank line)",
				    what, lineno);
		state = 1;
		if (n >= sizeof(line))
			return fail(err, errlen, "%s:%d: match line too long", what, lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		if (strncmp(line, "growth:", 7))
			return fail(err, errlen, "%s:%d: match line does not start with \"growth:\"",
				    what, lineno);
		if (!matched && fnmatch(line, key, 0) == 0)
			matched = lineno;
	}
	if (!matched)
		return 0;
	if (have != 7)
		return fail(err, errlen, "%s:%d: record needs GROWTH_MIN, GROWTH_MAX and GROWTH_INCREMENT",
			    what, matched);
	if (!v[2] || v[0] % v[2] || v[1] % v[2] || v[0] > v[1] || !v[1])
		return fail(err, errlen,
			    "%s:%d: inconsistent record: need increment > 0, min <= max, both multiples of it",
			    what, matched);
	*min = v[0];
	*max = v[1];
	*increment = v[2];
	return 1;

bad_value:
	return fail(err, errlen, "%s:%d: bad size (use a number with an optional K/M/G/T/P/E suffix)",
		    what, lineno);
}

static int read_file(const char *path, char **text, size_t *len, const char *dev,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, n = 0;
	char *buf = NULL, *nb;

	if (!f)
		return errno == ENOENT ? 1 :
		       fail(err, errlen, "%s: cannot read table %s: %s", dev, path, strerror(errno));
	for (;;) {
		if (cap - n < 4096) {
			if (cap > (1 << 24)) {
				free(buf);
				fclose(f);
				return fail(err, errlen, "%s: table %s is too large", dev, path);
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return fail(err, errlen, "%s: out of memory", dev);
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n, f);

		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return fail(err, errlen, "%s: cannot read table %s", dev, path);
	}
	fclose(f);
	*text = buf;
	*len = n;
	return 0;
}

/* Put "DEV: bad table: " before the syntax error in err. */
static int table_error(const char *dev, char *err, size_t errlen)
{
	char msg[GH_ERR_MAX];

	fmt(msg, sizeof(msg), "%s", err);
	return fail(err, errlen, "%s: bad table: %s", dev, msg);
}

struct db_hit {
	uint64_t min, max, inc;
	char where[GH_TEXT_MAX];
};

static int match_file(const char *path, const char *key, struct db_hit *hit,
		      const char *dev, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	r = read_file(path, &text, &len, dev, err, errlen);
	if (r)
		return r < 0 ? r : 0;
	r = gh_db_match(text, len, path, key, &hit->min, &hit->max, &hit->inc, err, errlen);
	free(text);
	if (r < 0)
		return table_error(dev, err, errlen);
	if (r > 0)
		fmt(hit->where, sizeof(hit->where), "table %s", path);
	return r;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int match_dir(const char *dir, const char *key, struct db_hit *hit,
		     const char *dev, char *err, size_t errlen)
{
	char *names[256], path[PATH_MAX];
	struct dirent *de;
	size_t n = 0, i, l;
	int r = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 :
		       fail(err, errlen, "%s: cannot read table directory %s: %s", dev, dir,
			    strerror(errno));
	while ((de = readdir(d)) && n < 256) {
		l = strlen(de->d_name);
		if (l > 5 && !strcmp(de->d_name + l - 5, ".hwdb"))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n; i++) {
		if (!r && names[i]) {
			if (path_join(path, sizeof(path), dir, names[i]) < 0)
				r = fail(err, errlen, "%s: table path too long", dev);
			else
				r = match_file(path, key, hit, dev, err, errlen);
		}
		free(names[i]);
	}
	return r;
}

static int db_lookup(const struct gh_config *cfg, const char *key, struct db_hit *hit,
		     const char *dev, char *err, size_t errlen)
{
	const char *p = cfg->db_path;
	char elem[PATH_MAX];
	struct stat st;
	size_t n;
	int r;

	while (p && *p) {
		n = strcspn(p, ":");
		if (n >= sizeof(elem))
			return fail(err, errlen, "%s: table search path element too long", dev);
		memcpy(elem, p, n);
		elem[n] = '\0';
		p += n + (p[n] == ':');
		if (!n || stat(elem, &st) < 0)
			continue;
		r = S_ISDIR(st.st_mode) ? match_dir(elem, key, hit, dev, err, errlen) :
					  match_file(elem, key, hit, dev, err, errlen);
		if (r)
			return r;
	}
	if (cfg->builtin_db) {
		r = gh_db_match(cfg->builtin_db, strlen(cfg->builtin_db), "(built-in table)", key,
				&hit->min, &hit->max, &hit->inc, err, errlen);
		if (r > 0)
			fmt(hit->where, sizeof(hit->where), "built-in table");
		return r < 0 ? table_error(dev, err, errlen) : r;
	}
	return 0;
}

/* The table key of a disk, "" if its kind is unknown. */
static int table_key(const char *root, const char *diskdir, const char *disk, char *key,
		     size_t len, const char *dev, char *err, size_t errlen)
{
	char path[PATH_MAX], modalias[128], vendor[64], model[96], sysv[96];

	key[0] = '\0';
	fmt(path, sizeof(path), "%s/device/modalias", diskdir);
	if (read_text(path, modalias, sizeof(modalias), dev, err, errlen) < 0)
		return -1;
	fmt(path, sizeof(path), "%s/device/vendor", diskdir);
	if (read_text(path, vendor, sizeof(vendor), dev, err, errlen) < 0)
		return -1;
	fmt(path, sizeof(path), "%s/device/model", diskdir);
	if (read_text(path, model, sizeof(model), dev, err, errlen) < 0)
		return -1;

	if (!strncmp(modalias, "virtio:d00000002v", 17) ||
	    (!modalias[0] && !model[0] && !strncmp(disk, "vd", 2))) {
		fmt(path, sizeof(path), "%s/class/dmi/id/sys_vendor", root);
		if (read_text(path, sysv, sizeof(sysv), dev, err, errlen) < 0)
			return -1;
		fmt(key, len, "growth:virtio:dmi:sv%s", sysv);
	} else if (!strncmp(modalias, "scsi:", 5) ||
		   (!modalias[0] && vendor[0] && model[0] && strncmp(disk, "nvme", 4))) {
		fmt(key, len, "growth:scsi:v%s:m%s", vendor, model);
	} else if (!strncmp(disk, "nvme", 4) && model[0]) {
		fmt(key, len, "growth:nvme:m%s", model);
	}
	return 0;
}

static int table_hints(const struct gh_config *cfg, const char *root, const char *diskdir,
		       struct gh_hints *h, const char *dev, char *err, size_t errlen)
{
	struct db_hit hit;
	char a[32], b[32];
	int r;

	if (table_key(root, diskdir, h->disk, h->match, sizeof(h->match), dev, err, errlen) < 0)
		return -1;
	if (!h->match[0]) {
		fmt(h->origin, sizeof(h->origin),
			 "no sysfs hint; not a SCSI, NVMe or virtio-blk disk the table knows");
		return 0;
	}
	memset(&hit, 0, sizeof(hit));
	r = db_lookup(cfg, h->match, &hit, dev, err, errlen);
	if (r < 0)
		return -1;
	if (r == 0) {
		fmt(h->origin, sizeof(h->origin), "no sysfs hint; no table record matches");
		return 0;
	}
	if (hit.max < h->disk_size) {
		gh_format_size(hit.max, a, sizeof(a));
		gh_format_size(h->disk_size, b, sizeof(b));
		fmt(h->origin, sizeof(h->origin),
			 "no sysfs hint; %s says max %s but the disk is already %s: ignored",
			 hit.where, a, b);
		return 0;
	}
	h->min = hit.min;
	h->max = hit.max;
	h->increment = hit.inc;
	h->source = GH_SOURCE_TABLE;
	fmt(h->origin, sizeof(h->origin), "%s", hit.where);
	return 0;
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
	} else {
		fmt(diskdir, sizeof(diskdir), "%s", real);
		h->disk_size = h->size;
		fmt(h->disk, sizeof(h->disk), "%s", h->name);
	}

	r = sysfs_hints(diskdir, h, device, err, errlen);
	if (r < 0)
		return -1;
	if (r > 0 && table_hints(cfg, root, diskdir, h, device, err, errlen) < 0)
		return -1;

	if (h->source != GH_SOURCE_NONE && h->partition) {
		if (h->start + h->size != h->disk_size) {
			fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
				 "; partition does not end at the end of %s: no growth", h->disk);
			h->min = h->max = h->increment = 0;
			h->source = GH_SOURCE_NONE;
		} else {
			/* The partition gets the disk's headroom. */
			h->max = h->max - h->disk_size + h->size;
			h->min = h->size;
			fmt(h->origin + strlen(h->origin), sizeof(h->origin) - strlen(h->origin),
				 "; partition ends at the end of %s: inherits its headroom", h->disk);
		}
	}
	return 0;
}

int gh_apply_overrides(struct gh_hints *h, const struct gh_overrides *o, char *err,
		       size_t errlen)
{
	const char *dev = h->name[0] ? h->name : "(device)";

	if (!o->has_min && !o->has_max && !o->has_increment)
		return 0;
	if (o->has_min)
		h->min = o->min;
	if (o->has_max)
		h->max = o->max;
	if (o->has_increment)
		h->increment = o->increment;
	if (h->source == GH_SOURCE_NONE) {
		if (!o->has_max)
			h->max = h->size;
	}
	if (h->max < h->size)
		return fail(err, errlen, "%s: --max %llu is smaller than the device (%llu bytes)",
			    dev, (unsigned long long)h->max, (unsigned long long)h->size);
	if (h->min > h->max)
		return fail(err, errlen, "%s: min %llu > max %llu", dev,
			    (unsigned long long)h->min, (unsigned long long)h->max);
	h->source = GH_SOURCE_OVERRIDE;
	fmt(h->origin, sizeof(h->origin), "command line (--min/--max/--increment)");
	return 0;
}
