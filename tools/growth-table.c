// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The table of known cloud disks (hwdb format, growth-hints.hwdb(5)): parse
 * it and look a disk up by its model key.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "growth-hints.h"
#include "growth-internal.h"

#define fail gh__fail
#define fmt gh__fmt

static int path_join(char *buf, size_t len, const char *a, const char *b)
{
	return fmt(buf, len, "%s/%s", a, b);
}


static int db_value(const char *v, size_t n, uint64_t *out)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return gh_parse_size(buf, out);
}

/*
 * The properties a record gives: GROWTH_MIN (a size with an optional
 * suffix, the table's own files) or ID_GROWTH_MIN_BYTES (udev's hwdb
 * fragment, bytes); the same for MAX and INCREMENT.  -1: another key.
 */
static int prop_index(const char *p, size_t k)
{
	static const char *const names[3][2] = {
		{ "GROWTH_MIN", "ID_GROWTH_MIN_BYTES" },
		{ "GROWTH_MAX", "ID_GROWTH_MAX_BYTES" },
		{ "GROWTH_INCREMENT", "ID_GROWTH_INCREMENT_BYTES" },
	};
	int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 2; j++)
			if (strlen(names[i][j]) == k && !memcmp(p, names[i][j], k))
				return i;
	return -1;
}

int gh_db_match(const char *text, size_t len, const char *what, const char *key,
		uint64_t *min, uint64_t *max, uint64_t *increment, char *err, size_t errlen)
{
	const char *p = text, *end = text + len, *nl, *eq;
	char line[GH_TEXT_MAX];
	int lineno = 0, state = 0, matched = 0, have = 0, i;
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
			i = prop_index(p, k);
			if (i >= 0) {
				if (db_value(eq + 1, n - k - 1, &v[i]) < 0)
					goto bad_value;
				have |= 1 << i;
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
		return fail(err, errlen, "%s:%d: record needs GROWTH_MIN, GROWTH_MAX and GROWTH_INCREMENT (or ID_GROWTH_*_BYTES)",
			    what, matched);
	if (!v[1] || v[0] > v[1] || v[2] % 512)
		return fail(err, errlen,
			    "%s:%d: inconsistent record: need max > 0, min <= max and an increment that is a multiple of 512 (0: none)",
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
	const char *p = cfg ? cfg->db_path : NULL;
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
	if (cfg && cfg->builtin_db) {
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
	if (gh__read_text(path, modalias, sizeof(modalias), dev, err, errlen) < 0)
		return -1;
	fmt(path, sizeof(path), "%s/device/vendor", diskdir);
	if (gh__read_text(path, vendor, sizeof(vendor), dev, err, errlen) < 0)
		return -1;
	fmt(path, sizeof(path), "%s/device/model", diskdir);
	if (gh__read_text(path, model, sizeof(model), dev, err, errlen) < 0)
		return -1;

	if (!strncmp(modalias, "virtio:d00000002v", 17) ||
	    (!modalias[0] && !model[0] && !strncmp(disk, "vd", 2))) {
		fmt(path, sizeof(path), "%s/class/dmi/id/sys_vendor", root);
		if (gh__read_text(path, sysv, sizeof(sysv), dev, err, errlen) < 0)
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

int gh__table_hints(const struct gh_config *cfg, const char *root, const char *diskdir,
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

