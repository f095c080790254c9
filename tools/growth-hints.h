/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgrowthhints: read the growth hints of a block device (min / max /
 * increment of the capacity its provider may give it) and turn them into
 * mkfs options that stay sensible for every size the device may end at
 * (POLICY.md).
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
#define GH_ERR_MAX	512

/* "1.0.0": the library's version (the package's). */
const char *gh_version(void);

enum gh_source {
	GH_SOURCE_NONE = 0,	/* no hint: nothing is known about growth */
	GH_SOURCE_SYSFS,	/* the device: queue/{min,max}_growth_bytes, growth_increment_bytes */
	GH_SOURCE_TABLE,	/* a table record by model (udev hwdb or built in): a guess */
	GH_SOURCE_OVERRIDE,	/* --min / --max / --increment */
};

/* "sysfs", "table", "override", "none" */
const char *gh_source_name(enum gh_source src);

struct gh_config {
	const char *sysfs_root;	/* NULL or "": "/sys" */
	/*
	 * Device nodes; NULL or "": "/dev", or "<dir>/dev" when sysfs_root is
	 * "<dir>/sys" (a tree of both, as in a test fixture or a chroot).
	 */
	const char *dev_root;
	/* udev's database ("b<major>:<minor>" files); NULL or "": "/run/udev/data",
	 * or "<dir>/run/udev/data" when sysfs_root is "<dir>/sys" */
	const char *udev_db;
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
	uint64_t tail;		/* bytes between the partition's end and the disk's end */
	char pttype[16];	/* partition table of the disk ("gpt", "dos"), "" if unknown */
	/* The hints, in bytes; all 0 when source is GH_SOURCE_NONE. */
	uint64_t min;
	uint64_t max;
	uint64_t increment;
	enum gh_source source;
	/* I/O topology of the disk (queue/), bytes; 0 if unknown. */
	uint32_t logical_block;
	uint32_t physical_block;
	uint32_t io_min;
	uint32_t io_opt;
	/* Where the hints came from, or why there are none. */
	char origin[2 * GH_TEXT_MAX];
	/* What the table was asked for: "growth:nvme:mAmazon ...", or "". */
	char match[GH_TEXT_MAX];
};

/*
 * Probe DEVICE: a path ("/dev/vda1": must exist and be a block device) or a
 * kernel name ("vda1", looked up in sysfs only).  CFG may be NULL (the
 * defaults, no table files, no built-in table).  Returns 0, or -1 with one
 * line in err.
 *
 * Sources in order: the device's sysfs attributes; udev's ID_GROWTH_*
 * properties with ID_GROWTH_SOURCE=table (the hwdb rule); the table files
 * of db_path; the built-in table.  A partition's hints depend on where it
 * lies in its disk's partition table (POLICY.md, "Partitions"): the last one
 * follows the disk, any other one may grow up to the next one; one whose
 * place is not known (no readable DOS or GPT table listing it, a logical
 * partition) has none (GH_SOURCE_NONE).
 */
int gh_probe(const struct gh_config *cfg, const char *device,
	     struct gh_hints *h, char *err, size_t errlen);

/* The path of DEVICE's node: DEVICE itself if it has a '/', else
 * <dev_root>/DEVICE.  0, or -1 if it does not fit. */
int gh_device_path(const struct gh_config *cfg, const char *device, char *buf, size_t len);

/* The shipped table (udev/60-growth-hints.hwdb), built in. */
extern const char gh_builtin_db[];

/* Where the table is looked for after $GROWTH_HINTS_DB. */
#define GH_DB_SYSTEM_PATH "/etc/growth-hints/hwdb.d:/usr/lib/growth-hints/hwdb.d"

struct gh_overrides {
	int has_min, has_max, has_increment;
	uint64_t min, max, increment;
};

/*
 * Apply --min/--max/--increment, then check the result with the kernel's
 * rules.  Without a max (from the device, the table or --max) --min and
 * --increment alone change nothing and the device stays "no hint".
 * 0, or -1 with err.
 */
int gh_apply_overrides(struct gh_hints *h, const struct gh_overrides *o,
		       char *err, size_t errlen);

/*
 * Look KEY up in the table text (hwdb format, growth-hints.hwdb(5)).
 * Returns 1 and fills min/max/increment on a match, 0 on none, -1 with err
 * on a syntax error (err names WHAT and the line).
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

/* One mkfs option: -<letter> [key[=value]] ; -O features use key only. */
struct gh_opt {
	char letter;
	char key[24];
	char value[40];
};

/* What the plan is asked for. */
struct gh_plan_req {
	enum gh_fstype fs;
	uint64_t size;			/* bytes of the device now */
	uint64_t max;			/* ceiling (max_growth_bytes), 0: no growth hint */
	uint64_t final;			/* explicit final size (--final), 0: none */
	enum gh_source source;		/* where max came from; TABLE is a guess */
	uint32_t io_min, io_opt;	/* queue/minimum_io_size, optimal_io_size, 0: unknown */
	uint32_t physical_block;	/* queue/physical_block_size, 0: unknown */
	char *const *user;		/* the user's mkfs options (not the device), or NULL */
	int nuser;
};

struct gh_plan {
	enum gh_fstype fs;
	uint64_t size;		/* bytes the filesystem has now */
	uint64_t max;		/* the ceiling asked for (0: none) */
	uint64_t final;		/* the largest size the geometry is sized for */
	int grows;		/* final > size */
	int hinted;		/* a maximum or a target was given (0: no growth hint) */
	int guess;		/* the maximum is a table guess: nothing that costs at size */
	int target;		/* final is an explicit target (--final) */
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
	uint64_t stripe_unit;		/* bytes the AG size is aligned to, 0: none */
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
 * Choose mkfs options for REQ (POLICY.md).  The user's options in REQ take
 * part: -b, -d size=, stripe and the options that decide what ours would.
 * Returns 0, or -1 with err when a user option cannot be read (the caller
 * then runs mkfs with the user's options alone).
 */
int gh_plan_mkfs(const struct gh_plan_req *req, struct gh_plan *p, char *err,
		 size_t errlen);

/* A command line; free it with gh_argv_free(). */
struct gh_argv {
	int argc;
	int dropped;		/* plan options dropped for the user's */
	int merged;		/* plan options merged into a user option (-E) */
	char **argv;		/* argc strings and a NULL */
};

void gh_argv_free(struct gh_argv *a);

/*
 * The plan's options as mkfs arguments, less those that conflict with the
 * user's (USER: mkfs arguments, not including the device).  The user's are
 * not copied.  Returns 0, or -1 if a user argument is malformed.
 */
int gh_plan_args(const struct gh_plan *p, char *const *user, int nuser,
		 struct gh_argv *out);

/*
 * The whole mkfs command: PROG, the plan's options less the user's, the
 * user's options, DEVICE.  Options mkfs keeps only once (mke2fs -E) are
 * merged into the user's.  0 or -1 as gh_plan_args().
 */
int gh_mkfs_argv(const struct gh_plan *p, const char *prog, char *const *user,
		 int nuser, const char *device, struct gh_argv *out);

#ifdef __cplusplus
}
#endif

#endif /* GROWTH_HINTS_H */
