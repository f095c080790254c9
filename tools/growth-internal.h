/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the library's files (and its tests); not public API. */
#ifndef GROWTH_INTERNAL_H
#define GROWTH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "growth-hints.h"

#define GH_INTERNAL __attribute__((visibility("hidden")))

/* Format one line into err (if any); returns -1. */
GH_INTERNAL int gh__fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf through a function (no truncation warnings for paths): 0, or
 * -1 if the result was cut. */
GH_INTERNAL int gh__fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Read a text attribute, blanks trimmed; "" if absent.  0 or -1 with err. */
GH_INTERNAL int gh__read_text(const char *path, char *buf, size_t len, const char *dev,
			      char *err, size_t errlen);

/* The table's hints for the disk at DISKDIR (h->disk_size set): fills h,
 * or leaves source NONE with the reason in origin.  0, or -1 with err for
 * a bad table. */
GH_INTERNAL int gh__table_hints(const struct gh_config *cfg, const char *root,
				const char *diskdir, struct gh_hints *h, const char *dev,
				char *err, size_t errlen);

/* The partitions of the disk node PATH as libblkid reads them. */
struct gh__ptable {
	char type[16];		/* "gpt", "dos", ... */
	uint64_t end_bytes;	/* GPT: after the last usable LBA (backup entries and header) */
	uint64_t max_size;	/* largest partition it can describe (MBR: 2^32-1 sectors), 0: no limit */
	int n;
	uint64_t start[128];	/* bytes */
	uint64_t size[128];
	int primary[128];	/* not a logical partition of an extended one */
};

/* 0 with a table, 1 without one (or none readable: why in err), -1 never. */
GH_INTERNAL int gh__read_ptable(const char *path, struct gh__ptable *pt, char *err,
				size_t errlen);

/* The whole disk of a device number as libblkid resolves it: 0 with its
 * kernel name in disk, -1 if libblkid cannot tell. */
GH_INTERNAL int gh__wholedisk(unsigned major, unsigned minor, char *disk, size_t len);

#endif /* GROWTH_INTERNAL_H */
