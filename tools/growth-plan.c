// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mkfs options for a filesystem that starts at SIZE and may grow to MAX.
 *
 * The numbers mirror what mke2fs 1.47 and mkfs.xfs 6.1 compute on their own
 * (so that the plan can say what the result will be); README.md explains
 * the policy and its caps.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "growth-hints.h"
#include "growth-internal.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)
#define PiB (1ULL << 50)

#define BLOCK 4096ULL

/* The log / journal may take at most 1/LOG_SHARE of the device as made. */
#define LOG_SHARE 32

/* XFS, in 4 KiB blocks */
#define XFS_AG_MIN_BLOCKS	(16 * MiB / BLOCK)
#define XFS_AG_MAX_BLOCKS	((1ULL << 28) - 1)	/* 1 TiB less a block */
#define XFS_LOG_MIN_BLOCKS	(64 * MiB / BLOCK)	/* mkfs.xfs >= 6.1 minimum */
#define XFS_LOG_MAX_BLOCKS	521728ULL		/* 2 GiB less 10 MiB */
#define XFS_MAX_BYTES		(1ULL << 63)		/* 8 EiB */

/* ext4, in 4 KiB blocks */
#define EXT4_BLOCKS_PER_GROUP	32768ULL
#define EXT4_DESC_PER_BLOCK	64ULL			/* 64bit: 64-byte descriptors */
#define EXT4_ADDR_PER_BLOCK	1024ULL			/* cap of reserved GDT blocks */
#define EXT4_MAX_BYTES		(1ULL << 60)		/* 1 EiB with 64bit, 4 KiB */
#define EXT4_32BIT_BLOCKS	(1ULL << 32)

#define fail gh__fail

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* A size as mkfs reads it: the largest exact unit of k/m/g/t. */
static void size_arg(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "kmgt";
	int i = -1;

	while (i < 3 && bytes && !(bytes & ((1ULL << (10 * (i + 2))) - 1)))
		i++;
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> (10 * (i + 1))),
			 units[i]);
}

static void add_opt(struct gh_plan *p, char letter, const char *key, const char *value)
{
	struct gh_opt *o;

	if (p->nopts >= GH_MAX_OPTS)
		return;
	o = &p->opts[p->nopts++];
	o->letter = letter;
	snprintf(o->key, sizeof(o->key), "%s", key);
	snprintf(o->value, sizeof(o->value), "%s", value ? value : "");
}

/* ---- XFS ---------------------------------------------------------------- */

/* mkfs.xfs calc_default_ag_geometry() for one device (not multidisk). */
static uint64_t xfs_default_agsize(uint64_t dblocks)
{
	uint64_t blocks;
	int shift;

	if (dblocks >= 4 * TiB / BLOCK)
		return XFS_AG_MAX_BLOCKS;
	if (dblocks >= 128 * MiB / BLOCK) {
		shift = 2;
	} else {
		shift = 2;		/* <= 8 GiB and < 128 MiB: 5 - 3 */
		if (dblocks < 64 * MiB / BLOCK)
			shift--;
		if (dblocks < 32 * MiB / BLOCK)
			shift--;
	}
	blocks = dblocks >> shift;
	if ((dblocks & ((1ULL << shift) - 1)) && blocks < XFS_AG_MAX_BLOCKS)
		blocks++;
	return blocks;
}

/* AGs mkfs.xfs makes: a last AG under the minimum is dropped. */
static uint64_t xfs_agcount(uint64_t dblocks, uint64_t agsize)
{
	uint64_t rem = dblocks % agsize;

	return dblocks / agsize + (rem >= XFS_AG_MIN_BLOCKS);
}

/* mkfs.xfs default log: fs/2048, at least 64 MiB, at most 2 GiB - 10 MiB. */
static uint64_t xfs_default_log(uint64_t dblocks)
{
	return min_u64(max_u64(dblocks / 2048, XFS_LOG_MIN_BLOCKS), XFS_LOG_MAX_BLOCKS);
}

static void plan_xfs(struct gh_plan *p)
{
	uint64_t sb = p->size / BLOCK, fb = p->final / BLOCK;
	uint64_t want_ag, limit_ag, ag, want_log, cap_log, log, last;
	char a[32], b[32], v[40];

	p->log_agnum = -1;
	p->agsize_blocks = xfs_default_agsize(sb);
	p->log_blocks = xfs_default_log(sb);
	if (!p->grows || sb < 2 * XFS_AG_MIN_BLOCKS + XFS_LOG_MIN_BLOCKS) {
		p->agcount = p->agcount_final = xfs_agcount(sb, p->agsize_blocks);
		snprintf(p->reason, sizeof(p->reason), "%s: mkfs.xfs defaults",
			 p->grows ? "device too small to plan for growth" :
			 p->hinted ? "will not grow" : "no growth hint");
		return;
	}

	/*
	 * AG size: what mkfs would pick at the final size, but the first
	 * device must hold two AGs (mkfs refuses one) and a last AG smaller
	 * than 16 MiB is dropped, so at most size - 16 MiB, MiB aligned.
	 */
	want_ag = xfs_default_agsize(fb);
	limit_ag = (sb - XFS_AG_MIN_BLOCKS) & ~(MiB / BLOCK - 1);
	ag = max_u64(min_u64(want_ag, limit_ag), p->agsize_blocks);
	ag = min_u64(ag, XFS_AG_MAX_BLOCKS);
	p->agsize_blocks = ag;
	p->agcount = xfs_agcount(sb, ag);
	p->agcount_final = div_ceil(fb, ag);

	/*
	 * Log: it can never grow, so size it for the final size, but never
	 * more than 1/32 of the device as made; never less than mkfs's own.
	 */
	want_log = xfs_default_log(fb);
	cap_log = (sb / LOG_SHARE) & ~(MiB / BLOCK - 1);
	log = max_u64(min_u64(want_log, cap_log), p->log_blocks);
	p->log_blocks = log;

	size_arg(ag * BLOCK, v, sizeof(v));
	add_opt(p, 'd', "agsize", v);
	size_arg(log * BLOCK, v, sizeof(v));
	add_opt(p, 'l', "size", v);
	/* mkfs puts the log in AG agcount/2; a short last AG cannot hold it. */
	last = sb - (p->agcount - 1) * ag;
	if (p->agcount / 2 == p->agcount - 1 && last < ag && last < log + XFS_AG_MIN_BLOCKS) {
		p->log_agnum = 0;
		add_opt(p, 'l', "agnum", "0");
	}

	gh_format_size(ag * BLOCK, a, sizeof(a));
	gh_format_size(log * BLOCK, b, sizeof(b));
	snprintf(p->reason, sizeof(p->reason),
		 "agsize %s (%llu AGs now, %llu at max; %s), log %s (%s)", a,
		 (unsigned long long)p->agcount, (unsigned long long)p->agcount_final,
		 ag == want_ag ? "mkfs default for the max size" :
		 ag == limit_ag ? "largest the first device allows: 2 AGs, the last >= 16 MiB" :
				  "mkfs default for the current size",
		 b,
		 log == want_log ? "mkfs default for the max size" :
		 log == cap_log ? "max-size default capped at 1/32 of the device" :
				  "mkfs default for the current size");
}

/* ---- ext4 --------------------------------------------------------------- */

/* mke2fs size types and their inode ratios (mke2fs.conf) */
static const char *ext4_type(uint64_t bytes, uint32_t *ratio)
{
	if (bytes < 3 * MiB) {
		*ratio = 8192;
		return "floppy";
	}
	if (bytes < 512 * MiB) {
		*ratio = 4096;
		return "small";
	}
	if (bytes < 4 * TiB) {
		*ratio = 16384;
		return "default";
	}
	if (bytes < 16 * TiB) {
		*ratio = 32768;
		return "big";
	}
	*ratio = 65536;
	return "huge";
}

/* ext2fs_default_journal_size(), in 4 KiB blocks */
static uint64_t ext4_default_journal(uint64_t blocks)
{
	if (blocks < 2048)
		return 0;
	if (blocks < 32768)
		return 1024;
	if (blocks < 256 * 1024)
		return 4096;
	if (blocks < 512 * 1024)
		return 8192;
	if (blocks < 4096 * 1024)
		return 16384;
	if (blocks < 8192 * 1024)
		return 32768;
	if (blocks < 16384 * 1024)
		return 65536;
	if (blocks < 32768 * 1024)
		return 131072;
	return 262144;
}

static uint32_t ext4_default_rsv(uint64_t blocks)
{
	uint64_t max = 0xffffffffULL, rsv;

	if (blocks < max / 1024)
		max = blocks * 1024;
	rsv = div_ceil(div_ceil(max, EXT4_BLOCKS_PER_GROUP), EXT4_DESC_PER_BLOCK) -
	      div_ceil(div_ceil(blocks, EXT4_BLOCKS_PER_GROUP), EXT4_DESC_PER_BLOCK);
	return (uint32_t)min_u64(rsv, EXT4_ADDR_PER_BLOCK);
}

static void plan_ext4(struct gh_plan *p)
{
	uint64_t sb = p->size / BLOCK, fb = p->final / BLOCK;
	uint64_t desc_now, desc_final, rsv, want_j, cap_j, j;
	uint32_t ratio_now;
	const char *type_now, *how;
	char a[32], v[40], feat[96] = "";

	type_now = ext4_type(p->size, &ratio_now);
	p->usage_type = type_now;
	p->inode_ratio = ratio_now;
	p->blocksize = !strcmp(type_now, "small") || !strcmp(type_now, "floppy") ? 1024 : 4096;
	p->journal_blocks = ext4_default_journal(p->size / p->blocksize);
	p->resize_inode = 1;
	p->bit64 = 1;
	p->reserved_gdt_blocks = p->blocksize == BLOCK ? ext4_default_rsv(sb) : 0;
	if (!p->grows) {
		if (!p->hinted) {
			snprintf(p->reason, sizeof(p->reason), "no growth hint: mke2fs defaults");
		} else if (p->final == p->size && p->size >= 512 * MiB) {
			/* Will not grow: no reserve for growth. */
			p->resize_inode = 0;
			p->reserved_gdt_blocks = 0;
			add_opt(p, 'O', "^resize_inode", NULL);
			snprintf(p->reason, sizeof(p->reason),
				 "will not grow: no resize_inode reserve, mke2fs defaults otherwise");
		} else {
			snprintf(p->reason, sizeof(p->reason), "will not grow: mke2fs defaults");
		}
		return;
	}
	if (p->size < 512 * MiB && p->final < 512 * MiB) {
		snprintf(p->reason, sizeof(p->reason), "small filesystem: mke2fs defaults");
		return;
	}

	/* Size type for the final size: inode ratio (and 4 KiB blocks). */
	p->usage_type = ext4_type(p->final, &p->inode_ratio);
	p->blocksize = BLOCK;
	p->journal_blocks = ext4_default_journal(sb);
	if (strcmp(p->usage_type, type_now)) {
		if (!strcmp(p->usage_type, "default")) {
			/* No "default" type in mke2fs.conf: spell it out. */
			add_opt(p, 'b', "", "4096");
			add_opt(p, 'I', "", "256");
			add_opt(p, 'i', "", "16384");
		} else {
			add_opt(p, 'T', "", p->usage_type);
		}
	}

	/*
	 * Growth reserve: resize_inode reserves GDT blocks up to its format
	 * limit (one indirect block: 1024 descriptor blocks) and only below
	 * 2^32 blocks; beyond either, meta_bg (kernel online resize handles
	 * both).
	 */
	desc_now = div_ceil(div_ceil(sb, EXT4_BLOCKS_PER_GROUP), EXT4_DESC_PER_BLOCK);
	desc_final = div_ceil(div_ceil(fb, EXT4_BLOCKS_PER_GROUP), EXT4_DESC_PER_BLOCK);
	rsv = desc_final - desc_now;
	strcat(feat, "64bit");
	if (rsv <= EXT4_ADDR_PER_BLOCK && fb < EXT4_32BIT_BLOCKS) {
		p->resize_blocks = fb;
		/* mke2fs falls back to its default reserve for 0 */
		p->reserved_gdt_blocks = rsv ? (uint32_t)rsv : ext4_default_rsv(sb);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)fb);
		add_opt(p, 'E', "resize", v);
		how = "resize_inode reserve for the max";
	} else {
		p->resize_inode = 0;
		p->meta_bg = 1;
		p->reserved_gdt_blocks = 0;
		add_opt(p, 'O', "meta_bg", NULL);
		add_opt(p, 'O', "^resize_inode", NULL);
		how = fb >= EXT4_32BIT_BLOCKS ? "meta_bg: max is past 2^32 blocks" :
		      "meta_bg: max is past the resize_inode limit";
	}
	add_opt(p, 'O', "64bit", NULL);

	/* Journal: sized for the final size, capped at 1/32 of the device. */
	want_j = ext4_default_journal(fb);
	cap_j = (sb / LOG_SHARE) & ~(MiB / BLOCK - 1);
	j = max_u64(min_u64(want_j, cap_j), p->journal_blocks);
	p->journal_blocks = j;
	snprintf(v, sizeof(v), "size=%llu", (unsigned long long)(j * BLOCK / MiB));
	add_opt(p, 'J', "size", v + 5);

	gh_format_size(j * BLOCK, a, sizeof(a));
	snprintf(p->reason, sizeof(p->reason),
		 "type %s (inode ratio %u) for the max size, %s, journal %s (%s)",
		 p->usage_type, p->inode_ratio, how, a,
		 j == want_j ? "mke2fs default for the max size" :
		 j == cap_j ? "max-size default capped at 1/32 of the device" :
			      "mke2fs default for the current size");
}

int gh_plan_mkfs(enum gh_fstype fs, uint64_t size, uint64_t max, struct gh_plan *p,
		 char *err, size_t errlen)
{
	uint64_t limit = fs == GH_FS_XFS ? XFS_MAX_BYTES : EXT4_MAX_BYTES;

	memset(p, 0, sizeof(*p));
	p->fs = fs;
	p->blocksize = BLOCK;
	if (!size)
		return fail(err, errlen, "device size is 0");
	if (size > limit)
		return fail(err, errlen, "device size %llu is past the %s format limit",
			    (unsigned long long)size, fs == GH_FS_XFS ? "XFS" : "ext4");
	p->hinted = max != 0;
	if (max < size)
		max = size;
	p->size = size;
	/* A max past the format's limit is planned for the limit. */
	p->final = min_u64(max, limit) & ~(BLOCK - 1);
	if (p->final < size)
		p->final = size;
	p->grows = p->final / BLOCK > size / BLOCK;
	if (fs == GH_FS_XFS)
		plan_xfs(p);
	else
		plan_ext4(p);
	if (max > limit) {
		size_t n = strlen(p->reason);

		snprintf(p->reason + n, sizeof(p->reason) - n, "; max capped at the %s limit",
			 fs == GH_FS_XFS ? "XFS" : "ext4");
	}
	return 0;
}

/* ---- arguments ---------------------------------------------------------- */

struct user_opt {
	char letter;
	char key[32];
};

static int takes_arg(enum gh_fstype fs, char c)
{
	const char *with = fs == GH_FS_XFS ? "bcdilLmnprs" : "bCdeEgGiIJlLmMNoOrtTUz";

	return c && strchr(with, c) != NULL;
}

/* Split the user's mkfs arguments into (letter, sub-option key) pairs. */
static int user_opts(enum gh_fstype fs, char *const *user, int nuser, struct user_opt *uo,
		     int max)
{
	int n = 0, i;

	for (i = 0; i < nuser; i++) {
		const char *a = user[i], *val = NULL, *s;
		char letter;

		if (a[0] != '-' || !a[1] || a[1] == '-')
			continue;	/* a device or a long option: nothing of ours */
		for (s = a + 1; *s; s++) {
			if (takes_arg(fs, *s)) {
				letter = *s;
				if (s[1])
					val = s + 1;
				else if (i + 1 < nuser)
					val = user[++i];
				else
					return -1;
				goto split;
			}
			if (n < max) {
				uo[n].letter = *s;
				uo[n++].key[0] = '\0';
			}
		}
		continue;
split:
		if (fs == GH_FS_EXT4 && strchr("bIiTJ", letter)) {
			if (n < max) {
				uo[n].letter = letter;
				uo[n++].key[0] = '\0';
			}
			continue;
		}
		while (*val) {
			size_t k = strcspn(val, ",=");

			if (*val == '^')
				val++, k--;
			if (n < max) {
				uo[n].letter = letter;
				snprintf(uo[n].key, sizeof(uo[n].key), "%.*s", (int)k, val);
				n++;
			}
			val += k;
			val += strcspn(val, ",");
			if (*val == ',')
				val++;
		}
	}
	return n;
}

static int in_reserve_group(char letter, const char *key)
{
	return (letter == 'O' && (!strcmp(key, "meta_bg") || !strcmp(key, "resize_inode"))) ||
	       (letter == 'E' && !strcmp(key, "resize"));
}

static int conflicts(enum gh_fstype fs, const struct gh_opt *o, const struct user_opt *u)
{
	const char *key = o->key[0] == '^' ? o->key + 1 : o->key;

	if (o->letter == u->letter && (!strcmp(key, u->key) || !key[0] || !u->key[0]))
		return 1;
	if (fs == GH_FS_XFS) {
		if (o->letter == 'd' && u->letter == 'd' && !strcmp(u->key, "agcount"))
			return 1;
		if (o->letter == 'l' && u->letter == 'l' &&
		    (!strcmp(u->key, "logdev") || !strcmp(u->key, "internal")))
			return 1;
		return 0;
	}
	if (strchr("bIi", o->letter) && u->letter == 'T')
		return 1;
	if (o->letter == 'J' && u->letter == 'O' && !strcmp(u->key, "has_journal"))
		return 1;
	if (in_reserve_group(o->letter, key) && in_reserve_group(u->letter, u->key))
		return 1;
	return 0;
}

int gh_plan_args(const struct gh_plan *p, char *const *user, int nuser, struct gh_argv *out)
{
	struct user_opt uo[64];
	int keep[GH_MAX_OPTS];
	int nu, i, j;

	memset(out, 0, sizeof(*out));
	nu = user_opts(p->fs, user, nuser, uo, 64);
	if (nu < 0)
		return -1;
	for (i = 0; i < p->nopts; i++) {
		keep[i] = 1;
		for (j = 0; j < nu && keep[i]; j++)
			if (conflicts(p->fs, &p->opts[i], &uo[j]))
				keep[i] = 0;
		out->dropped += !keep[i];
	}
	/* One argument per letter, in the plan's order: "-d" "agsize=..". */
	for (i = 0; i < p->nopts; i++) {
		char *arg;
		size_t len;

		if (!keep[i])
			continue;
		for (j = 0; j < i; j++)
			if (keep[j] && p->opts[j].letter == p->opts[i].letter)
				break;
		if (j < i)
			continue;	/* already emitted with an earlier one */
		if (out->argc + 2 > GH_MAX_ARGS)
			return -1;
		snprintf(out->argv[out->argc++], GH_ARG_MAX, "-%c", p->opts[i].letter);
		arg = out->argv[out->argc++];
		arg[0] = '\0';
		for (j = i; j < p->nopts; j++) {
			const struct gh_opt *o = &p->opts[j];

			if (!keep[j] || o->letter != p->opts[i].letter)
				continue;
			len = strlen(arg);
			if (snprintf(arg + len, GH_ARG_MAX - len, "%s%s%s%s", len ? "," : "", o->key,
				     o->key[0] && o->value[0] ? "=" : "", o->value) >=
			    (int)(GH_ARG_MAX - len))
				return -1;
		}
	}
	return 0;
}
