/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgrowthhints: read the growth hints of a block device (min / max /
 * increment of the capacity its provider may give it) and turn them into
 * mkfs options sized for the final size.
 *
 * No global state: every call gets what it needs in its arguments.  Errors
 * come back as a negative return and one line in the caller's buffer that
 * names the device and the problem.
 */
#ifndef GROWTH_HINTS_H
#define GROWTH_HINTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GH_NAME_MAX	64
#define GH_TEXT_MAX	256
#define GH_ERR_MAX	320

enum gh_source {
	GH_SOURCE_NONE = 0,	/* no hint: the device is not expected to grow */
	GH_SOURCE_SYSFS,	/* queue/{min,max}_growth_bytes, growth_increment_bytes */
	GH_SOURCE_TABLE,	/* a record of the known cloud disk table */
	GH_SOURCE_OVERRIDE,	/* --min / --max / --increment */
};

const char *gh_source_name(enum gh_source src);

struct gh_config {
	const char *sysfs_root;	/* NULL or "": "/sys" */
	/* Table search path: files or directories (their *.hwdb files in
	 * name order), separated by ':'; the first matching record wins. */
	const char *db_path;
	/* Table text searched after db_path (the built-in copy); NULL: none. */
	const char *builtin_db;
};

struct gh_hints {
	char name[GH_NAME_MAX];	/* kernel name: "vda1" */
	char disk[GH_NAME_MAX];	/* its whole disk: "vda" */
	int partition;		/* 1 for a partition */
	uint64_t size;		/* bytes */
	uint64_t disk_size;	/* bytes of the whole disk */
	uint64_t start;		/* partition start in bytes, 0 for a disk */
	/* The hints, in bytes; all 0 when source is GH_SOURCE_NONE. */
	uint64_t min;
	uint64_t max;
	uint64_t increment;
	enum gh_source source;
	/* Where the hints came from, or why there are none. */
	char origin[2 * GH_TEXT_MAX];
	/* What the table was asked for: "growth:nvme:mAmazon ...", or "". */
	char match[GH_TEXT_MAX];
};

/*
 * Probe DEVICE: a path ("/dev/vda1": must exist and be a block device) or a
 * kernel name ("vda1", looked up in sysfs only).  Returns 0, or -1 with one
 * line in err.
 */
int gh_probe(const struct gh_config *cfg, const char *device,
	     struct gh_hints *h, char *err, size_t errlen);

/* The shipped table (growth-hints.hwdb), built in. */
extern const char gh_builtin_db[];

/* Where the table is looked for after $GROWTH_HINTS_DB. */
#define GH_DB_SYSTEM_PATH "/etc/growth-hints/hwdb.d:/usr/lib/growth-hints/hwdb.d"

struct gh_overrides {
	int has_min, has_max, has_increment;
	uint64_t min, max, increment;
};

/* Apply --min/--max/--increment; -1 with err if the result is inconsistent. */
int gh_apply_overrides(struct gh_hints *h, const struct gh_overrides *o,
		       char *err, size_t errlen);

/*
 * Look KEY up in the table text (hwdb format, see README.md).  Returns 1 and
 * fills min/max/increment on a match, 0 on none, -1 with err on a syntax
 * error (err names WHAT and the line).
 */
int gh_db_match(const char *text, size_t len, const char *what,
		const char *key, uint64_t *min, uint64_t *max,
		uint64_t *increment, char *err, size_t errlen);

/* Parse "4096", "10G", "16T", "1.5T" is refused; suffixes K M G T P E (powers
 * of 1024), optionally followed by "iB" or "B".  0 or -1. */
int gh_parse_size(const char *s, uint64_t *out);

/* Parse a sysfs number: decimal digits and an optional trailing newline. */
int gh_parse_u64(const char *s, uint64_t *out);

/* "10 GiB", "1.5 TiB", "512 B" */
void gh_format_size(uint64_t bytes, char *buf, size_t len);

enum gh_fstype { GH_FS_EXT4, GH_FS_XFS };

#define GH_MAX_OPTS	12
#define GH_MAX_ARGS	40
#define GH_ARG_MAX	160

/* One mkfs option: -<letter> [key[=value]] ; -O features use key only. */
struct gh_opt {
	char letter;
	char key[24];
	char value[40];
};

struct gh_plan {
	enum gh_fstype fs;
	uint64_t size;		/* bytes now */
	uint64_t final;		/* bytes the plan is sized for (max, capped) */
	int grows;		/* final > size */
	int hinted;		/* a maximum was given (0: no growth hint) */
	int nopts;
	struct gh_opt opts[GH_MAX_OPTS];
	char reason[GH_TEXT_MAX * 2];
	uint32_t blocksize;
	/* XFS; the numbers mkfs.xfs gives with these options */
	uint64_t agsize_blocks;
	uint64_t agcount;		/* now */
	uint64_t agcount_final;		/* after growing to final */
	uint64_t log_blocks;
	int log_agnum;			/* -1: mkfs default (middle AG) */
	/* ext4; the numbers mke2fs gives with these options */
	const char *usage_type;		/* "floppy" "small" "default" "big" "huge" */
	uint32_t inode_ratio;
	uint64_t journal_blocks;
	uint64_t resize_blocks;		/* -E resize=, 0 if not used */
	uint32_t reserved_gdt_blocks;
	int resize_inode;
	int meta_bg;
	int bit64;
};

/*
 * Choose mkfs options for a device of SIZE bytes that may grow to MAX.  MAX == SIZE
 * means "will not grow"; MAX == 0 means no growth hint (mkfs keeps its defaults).
 */
int gh_plan_mkfs(enum gh_fstype fs, uint64_t size, uint64_t max,
		 struct gh_plan *p, char *err, size_t errlen);

struct gh_argv {
	int argc;
	int dropped;			/* plan options dropped for the user's */
	char argv[GH_MAX_ARGS][GH_ARG_MAX];
};

/*
 * The plan's options as mkfs arguments, less those that conflict with the
 * user's (USER: mkfs arguments, not including the device).  The user's are
 * not copied.  Returns 0, or -1 if a user argument is malformed or the
 * result does not fit.
 */
int gh_plan_args(const struct gh_plan *p, char *const *user, int nuser,
		 struct gh_argv *out);

#ifdef __cplusplus
}
#endif

#endif /* GROWTH_HINTS_H */
