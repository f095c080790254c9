// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mkfs options for a filesystem that starts at SIZE and may end anywhere
 * between SIZE and MAX: the policy of POLICY.md.
 *
 * The numbers mirror what mke2fs 1.47 and mkfs.xfs 6.1 compute on their own
 * (so that the plan can say what the result will be).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "growth-hints.h"
#include "growth-internal.h"
#include "growth-args.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)

#define BLOCK 4096ULL

/*
 * POLICY.md, "XFS allocation groups": the device as made keeps at least
 * XFS_MIN_AGS AGs, the fewest with which xfs_repair outvotes one bad
 * superblock, as it does with mkfs.xfs's default of four (with two it
 * cannot tell which of the two is right: fstests xfs/070).  The AGs but
 * the last take AG_SHARE_NUM/AG_SHARE_DEN of the device between them, so
 * that the last keeps an eighth of it (a 16 MiB runt AG costs 61% on the
 * metadata workload at the size as made; an eighth costs nothing
 * measurable).
 */
#define XFS_MIN_AGS 3
#define AG_SHARE_NUM 7
#define AG_SHARE_DEN 8
/* Every AG, the last included, at least 1/AG_SHARE_DEN of the device: at most eight. */
#define XFS_MAX_AGS AG_SHARE_DEN

/*
 * POLICY.md, "The log and the journal": a larger log or journal showed no
 * gain on the metadata workload, so with a device hint they stay mkfs's
 * choice for the size as made; with an explicit target they are the
 * target's default, up to 1/LOG_SHARE of the device as made.
 */
#define LOG_SHARE 32

/* XFS, in 4 KiB blocks */
#define XFS_MIN_BYTES		(300 * MiB)		/* mkfs.xfs >= 5.19 refuses less */
#define XFS_AG_MIN_BLOCKS	(16 * MiB / BLOCK)
#define XFS_AG_MAX_BLOCKS	((1ULL << 28) - 1)	/* 1 TiB less a block */
#define XFS_LOG_MIN_BLOCKS	(64 * MiB / BLOCK)	/* mkfs.xfs >= 6.1 minimum */
#define XFS_LOG_MAX_BLOCKS	521728ULL		/* 2 GiB less 10 MiB */
#define XFS_MAX_BYTES		(1ULL << 63)		/* 8 EiB */

/* ext4 */
#define EXT4_DESC_SIZE		64ULL			/* 64bit descriptors */
#define EXT4_MAX_BYTES		(1ULL << 60)		/* 1 EiB with 64bit, 4 KiB */
#define EXT4_32BIT_BLOCKS	(1ULL << 32)
#define EXT4_MAX_INODES		0xffffffffULL		/* s_inodes_count is 32 bits */
#define EXT4_JOURNAL_MIN_BLOCKS	1024ULL			/* mke2fs refuses a smaller one */

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

static void reason(struct gh_plan *p, const char *f, ...) __attribute__((format(printf, 2, 3)));

static void reason(struct gh_plan *p, const char *f, ...)
{
	size_t n = strlen(p->reason);
	va_list ap;

	va_start(ap, f);
	vsnprintf(p->reason + n, sizeof(p->reason) - n, f, ap);
	va_end(ap);
}

/* What the user's options say that the plan depends on. */
struct user_geom {
	uint64_t blocksize;	/* -b (ext4), -b size= (XFS); 0: none */
	uint64_t data_size;	/* XFS -d size= */
	uint64_t su, sw;	/* XFS stripe, bytes */
	int noalign;
};

static int user_geom(const struct gh_plan_req *req, struct user_geom *g, char *err,
		     size_t errlen)
{
	struct gh__uopt uo[128];
	uint64_t sunit = 0, swidth = 0, su = 0, swn = 0, v;
	int n, i;

	memset(g, 0, sizeof(*g));
	n = gh__user_opts(req->fs, req->user, req->nuser, uo, 128);
	if (n < 0)
		return fail(err, errlen, "an option of yours has no value");
	for (i = 0; i < n; i++) {
		const struct gh__uopt *u = &uo[i];
		int bad = 0;

		if (req->fs == GH_FS_EXT4) {
			if (u->letter == 'b') {
				bad = gh__user_size(u->val, u->vlen, 0, &v) < 0 || v < 1024 ||
				      v > 65536 || (v & (v - 1));
				g->blocksize = v;
			}
		} else if (u->letter == 'b' && !strcmp(u->key, "size")) {
			bad = !u->val || gh__user_size(u->val, u->vlen, 0, &v) < 0 || v < 512 ||
			      (v & (v - 1));
			g->blocksize = v;
		} else if (u->letter == 'd') {
			uint64_t *dst = !strcmp(u->key, "size") ? &g->data_size :
					!strcmp(u->key, "su") ? &su : !strcmp(u->key, "sw") ? &swn :
					!strcmp(u->key, "sunit") ? &sunit :
					!strcmp(u->key, "swidth") ? &swidth : NULL;

			if (!strcmp(u->key, "noalign"))
				g->noalign = 1;
			if (dst)
				bad = !u->val || gh__user_size(u->val, u->vlen,
							       g->blocksize ? g->blocksize : BLOCK,
							       dst) < 0;
		}
		if (bad)
			return fail(err, errlen, "cannot read your -%c %s%s%.*s", u->letter, u->key,
				    u->val && u->key[0] ? "=" : "", u->val ? (int)u->vlen : 0,
				    u->val ? u->val : "");
	}
	if (su || swn) {
		g->su = su;
		g->sw = su * swn;
	} else if (sunit || swidth) {
		g->su = sunit * 512;	/* in 512-byte sectors */
		g->sw = swidth * 512;
	}
	return 0;
}

/* ---- XFS ---------------------------------------------------------------- */

/* mkfs.xfs calc_default_ag_geometry(): one device, or a striped one (multidisk). */
static uint64_t xfs_default_agsize(uint64_t dblocks, int multidisk)
{
	uint64_t blocks;
	int shift;

	if (dblocks >= 32 * TiB / BLOCK || (!multidisk && dblocks >= 4 * TiB / BLOCK))
		return XFS_AG_MAX_BLOCKS;
	if (!multidisk && dblocks >= 128 * MiB / BLOCK) {
		shift = 2;
	} else {
		shift = 5;		/* 32 AGs */
		if (dblocks <= 512 * GiB / BLOCK)
			shift--;
		if (dblocks <= 8 * GiB / BLOCK)
			shift--;
		if (dblocks < 128 * MiB / BLOCK)
			shift--;
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

static void plan_xfs(struct gh_plan *p, const struct gh_plan_req *req, const struct user_geom *g)
{
	uint64_t sb = p->size / BLOCK, fb = p->final / BLOCK;
	uint64_t want_ag, limit_ag, ag = 0, want_log, cap_log, log, su = 0, sw = 0, k, n;
	char a[32], b[32], v[40];
	const char *why_ag;

	/* Stripe: the user's, else the device's (as mkfs.xfs reads it from libblkid). */
	if (g->su) {
		su = g->su;
		sw = g->sw;
	} else if (!g->noalign && req->io_min && req->io_opt && req->io_min != req->io_opt &&
		   req->io_min != req->physical_block && req->io_opt % req->io_min == 0) {
		su = req->io_min;
		sw = req->io_opt;
	}
	if (su % BLOCK || (sw && sw % su))
		su = sw = 0;	/* mkfs.xfs will say what is wrong with it */
	p->stripe_unit = su;

	p->log_agnum = -1;
	p->agsize_blocks = xfs_default_agsize(sb, su != 0);
	p->agcount = xfs_agcount(sb, p->agsize_blocks);
	p->agcount_final = div_ceil(fb, p->agsize_blocks);
	p->log_blocks = xfs_default_log(sb);
	if (!p->hinted) {
		reason(p, "no growth hint: mkfs.xfs defaults");
		return;
	}
	if (!p->grows) {
		reason(p, "will not grow: mkfs.xfs defaults");
		return;
	}
	if (p->size < XFS_MIN_BYTES) {
		reason(p, "below mkfs.xfs's 300 MiB minimum: nothing to plan");
		return;
	}
	if (p->guess) {
		/* POLICY.md: a table record may not change the AG count or the log. */
		reason(p, "the max is a table guess (%s): mkfs.xfs defaults, %llu AGs at that max",
		       "no AG count or log size from a guess",
		       (unsigned long long)p->agcount_final);
		return;
	}

	/*
	 * A striped device keeps mkfs.xfs's multidisk geometry: it has 8, 16
	 * or 32 AGs, more than a layout whose every AG is 1/8 of the device
	 * at least may have.
	 */
	if (su) {
		reason(p, "striped device: mkfs.xfs's multidisk defaults (%llu AGs)",
		       (unsigned long long)p->agcount);
		return;
	}

	/*
	 * AG size: what mkfs would pick at the final size, but the device as
	 * made must hold XFS_MIN_AGS AGs and every AG, the last included,
	 * must be at least 1/8 of it: for the fewest AGs k from XFS_MIN_AGS
	 * up that allow it, the others at most 7/8 of the device between
	 * them, MiB aligned (mkfs.xfs calc_growth_agsize()).
	 */
	want_ag = xfs_default_agsize(fb, 0);
	for (k = XFS_MIN_AGS; k <= XFS_MAX_AGS; k++) {
		limit_ag = (sb / AG_SHARE_DEN * AG_SHARE_NUM / (k - 1)) & ~(MiB / BLOCK - 1);
		ag = min_u64(want_ag, limit_ag);
		n = div_ceil(sb, ag);
		if ((sb - (n - 1) * ag) * AG_SHARE_DEN >= sb)
			break;
	}
	why_ag = ag == want_ag ? "mkfs default for the final size" :
		 "largest that keeps every AG at least 1/8 of the device";
	if (k > XFS_MAX_AGS || ag <= p->agsize_blocks) {
		reason(p, "the final size's AGs are no larger than the default's: mkfs.xfs defaults");
		return;
	}
	p->agsize_blocks = ag;
	p->agcount = xfs_agcount(sb, ag);
	p->agcount_final = div_ceil(fb, ag);

	/*
	 * Log: it can never grow.  With a target, the target's default up to
	 * 1/LOG_SHARE of the device; else mkfs's default for the size as made.
	 */
	want_log = xfs_default_log(fb);
	cap_log = (sb / LOG_SHARE) & ~(MiB / BLOCK - 1);
	log = p->target ? max_u64(min_u64(want_log, cap_log), p->log_blocks) : p->log_blocks;
	p->log_blocks = log;

	size_arg(ag * BLOCK, v, sizeof(v));
	add_opt(p, 'd', "agsize", v);
	if (p->log_blocks != xfs_default_log(sb)) {
		size_arg(p->log_blocks * BLOCK, v, sizeof(v));
		add_opt(p, 'l', "size", v);
	}
	/* mkfs puts the log in AG agcount/2: with three AGs or more a full one */

	gh_format_size(ag * BLOCK, a, sizeof(a));
	gh_format_size(p->log_blocks * BLOCK, b, sizeof(b));
	reason(p, "agsize %s (%llu AGs now, %llu at %s; %s), log %s (%s)", a,
	       (unsigned long long)p->agcount, (unsigned long long)p->agcount_final,
	       p->target ? "the target" : "max", why_ag, b,
	       p->log_blocks == xfs_default_log(sb) ? "mkfs default for the size as made" :
	       p->log_blocks == want_log ? "mkfs default for the target" :
					   "the target's default capped at 1/32 of the device");
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

/* ext2fs_default_journal_size(), in filesystem blocks */
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

/* mke2fs calc_reserved_gdt_blocks(): the reserve for growth up to RESIZE
 * blocks (0: mke2fs's own choice, 1024 times the size or 2^32 blocks). */
static uint32_t ext4_rsv(uint64_t blocks, uint64_t resize, uint64_t bs)
{
	uint64_t bpg = bs * 8, dpb = bs / EXT4_DESC_SIZE, addr = bs / 4, max = resize, rsv;

	if (!max) {
		max = 0xffffffffULL;
		if (blocks < max / 1024)
			max = blocks * 1024;
	}
	rsv = div_ceil(div_ceil(max, bpg), dpb);
	if (rsv <= div_ceil(div_ceil(blocks, bpg), dpb))
		return 0;
	rsv -= div_ceil(div_ceil(blocks, bpg), dpb);
	return (uint32_t)min_u64(rsv, addr);
}

/* The largest size the reserve of RSV descriptor blocks lets resize_inode reach. */
static uint64_t ext4_rsv_reach(uint64_t blocks, uint32_t rsv, uint64_t bs)
{
	uint64_t bpg = bs * 8, dpb = bs / EXT4_DESC_SIZE;

	return (div_ceil(div_ceil(blocks, bpg), dpb) + rsv) * dpb * bpg * bs;
}

static void plan_ext4(struct gh_plan *p, const struct gh_plan_req *req, const struct user_geom *g)
{
	uint64_t bs, sb, fb, bpg, ipg, cap, want_j, cap_j, j, rsv_default;
	uint32_t ratio_now, ratio;
	const char *type_now, *type;
	char a[32], v[40];
	int small;

	(void)req;
	type_now = ext4_type(p->size, &ratio_now);
	small = !strcmp(type_now, "small") || !strcmp(type_now, "floppy");
	bs = g->blocksize ? g->blocksize : small ? 1024 : BLOCK;
	p->blocksize = (uint32_t)bs;
	p->usage_type = type_now;
	p->inode_ratio = ratio_now;
	sb = p->size / bs;
	p->journal_blocks = ext4_default_journal(sb);
	p->resize_inode = 1;
	p->bit64 = 1;
	p->reserved_gdt_blocks = ext4_rsv(sb, 0, bs);
	if (!p->hinted) {
		reason(p, "no growth hint: mke2fs defaults");
		return;
	}
	if (!p->grows) {
		/*
		 * "Will not grow" is a hint of now: it may change at run time, and a
		 * resize_inode left out cannot be added online (POLICY.md 3.2).
		 */
		reason(p, "will not grow: mke2fs defaults, its growth reserve kept");
		return;
	}

	/*
	 * Usage type (POLICY.md): the type of the size as made, unless the
	 * final size is a target.  A small device keeps its 1 KiB blocks:
	 * 4 KiB blocks would give it fewer backup superblocks than the
	 * defaults (POLICY.md 3.4).  With a target, an image is still filled
	 * at the size as made: never fewer inodes than its type gives (the
	 * smaller of the two ratios, POLICY.md 3.6), so what is left of the
	 * target's type is its 4 KiB blocks where the size as made is small.
	 */
	type = type_now;
	ratio = ratio_now;
	if (p->target)
		type = ext4_type(p->final, &ratio);
	if (ratio_now < ratio)
		ratio = ratio_now;
	if (!g->blocksize)
		bs = BLOCK;
	if (!p->guess && strcmp(type, type_now) && small &&
	    strcmp(type, "small") && strcmp(type, "floppy")) {
		/* No "default" type in mke2fs.conf to name: spell it out. */
		snprintf(v, sizeof(v), "%u", ratio);
		add_opt(p, 'b', "", "4096");
		add_opt(p, 'I', "", "256");
		add_opt(p, 'i', "", v);
		p->usage_type = type;
		p->inode_ratio = ratio;
	} else if (small) {
		bs = p->blocksize;	/* the small type's blocks */
	} else if (!p->guess) {
		p->usage_type = type;
	}
	p->blocksize = (uint32_t)bs;
	sb = p->size / bs;

	/* 2^32 inodes: no group can be added past them (resize2fs and the kernel refuse). */
	bpg = bs * 8;
	ipg = bpg * bs / p->inode_ratio;
	cap = EXT4_MAX_INODES / ipg * bpg * bs;
	if (p->final > cap) {
		char c[32];

		gh_format_size(cap, c, sizeof(c));
		p->final = cap;
		reason(p, "target capped at %s: 2^32 inodes at %u bytes per inode; ", c,
		       p->inode_ratio);
	}
	fb = p->final / bs;

	/*
	 * Growth reserve: resize_inode reserves GDT blocks for growth, at most
	 * one indirect block of them, and only below 2^32 blocks.  mke2fs's
	 * default reserve covers 1024x; beyond the reserve the kernel's online
	 * resize converts to meta_bg itself, so no meta_bg up front
	 * (POLICY.md: it costs mount time at every size).  -E resize only
	 * when it makes the reserve smaller than the default.
	 */
	rsv_default = ext4_rsv(sb, 0, bs);
	p->reserved_gdt_blocks = (uint32_t)rsv_default;
	if (fb < EXT4_32BIT_BLOCKS && fb > sb && ext4_rsv(sb, fb, bs) < rsv_default) {
		p->resize_blocks = fb;
		if (!ext4_rsv(sb, fb, bs)) {
			/*
			 * The descriptor blocks of S cover F already: mke2fs takes a
			 * reserve of 0 for "not set" and reserves its own, so ask for
			 * a size that needs one block.
			 */
			p->resize_blocks = ext4_rsv_reach(sb, 0, bs) / bs + 1;
		}
		p->reserved_gdt_blocks = ext4_rsv(sb, p->resize_blocks, bs);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)p->resize_blocks);
		add_opt(p, 'E', "resize", v);
	}
	if (!p->guess || fb * bs >= EXT4_32BIT_BLOCKS * bs)
		add_opt(p, 'O', "64bit", NULL);

	if (p->guess) {
		reason(p, "the max is a table guess: mke2fs's inode ratio and journal, %s",
		       p->resize_blocks ? "growth reserve for the max" : "its growth reserve");
		return;
	}

	/* Journal: mke2fs's for the size as made; with a target, the target's
	 * default up to 1/LOG_SHARE of the device. */
	want_j = ext4_default_journal(fb);
	cap_j = ((sb * bs / LOG_SHARE) & ~(MiB - 1)) / bs;
	p->journal_blocks = ext4_default_journal(sb);
	j = p->target ? max_u64(min_u64(want_j, cap_j), p->journal_blocks) : p->journal_blocks;
	if (j * bs >= MiB && j >= EXT4_JOURNAL_MIN_BLOCKS && j != p->journal_blocks) {
		p->journal_blocks = j;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)(j * bs / MiB));
		add_opt(p, 'J', "size", v);
	}

	gh_format_size(p->journal_blocks * bs, a, sizeof(a));
	reason(p, "type %s (inode ratio %u) %s, %s, journal %s (%s)", p->usage_type, p->inode_ratio,
	       p->target ? "of the target" : "of the size as made",
	       p->resize_blocks ? "growth reserve sized for the final size" :
	       fb >= ext4_rsv_reach(sb, p->reserved_gdt_blocks, bs) / bs ?
			"mke2fs's growth reserve; the kernel converts to meta_bg past it" :
			"mke2fs's growth reserve",
	       a,
	       p->journal_blocks == ext4_default_journal(sb) ? "mke2fs default for the size as made" :
	       p->journal_blocks == want_j ? "mke2fs default for the target" :
					     "the target's default capped at 1/32 of the device");
}

int gh_plan_mkfs(const struct gh_plan_req *req, struct gh_plan *p, char *err, size_t errlen)
{
	uint64_t limit, size, max;
	struct user_geom g;

	if (!p)
		return fail(err, errlen, "no plan buffer");
	memset(p, 0, sizeof(*p));
	if (!req)
		return fail(err, errlen, "no request");
	p->fs = req->fs;
	p->blocksize = BLOCK;
	limit = req->fs == GH_FS_XFS ? XFS_MAX_BYTES : EXT4_MAX_BYTES;
	if (user_geom(req, &g, err, errlen) < 0)
		return -1;
	size = req->size;
	if (req->fs == GH_FS_XFS && g.data_size) {
		if (g.data_size > size)
			return fail(err, errlen, "-d size=%llu is larger than the device (%llu bytes)",
				    (unsigned long long)g.data_size, (unsigned long long)size);
		size = g.data_size;
	}
	if (!size)
		return fail(err, errlen, "device size is 0");
	if (size > limit)
		return fail(err, errlen, "device size %llu is past the %s format limit",
			    (unsigned long long)size, req->fs == GH_FS_XFS ? "XFS" : "ext4");
	if (req->final && req->final < size)
		return fail(err, errlen, "--final %llu is smaller than the device (%llu bytes)",
			    (unsigned long long)req->final, (unsigned long long)size);
	p->size = size;
	p->max = req->max;
	p->target = req->final != 0;
	p->hinted = req->max != 0 || p->target;
	p->guess = !p->target && req->max && req->source == GH_SOURCE_TABLE;
	max = p->target ? req->final : req->max ? req->max : size;
	if (max < size)
		max = size;
	/* A max past the format's limit is planned for the limit. */
	p->final = min_u64(max, limit) & ~(BLOCK - 1);
	if (p->final < size)
		p->final = size;
	p->grows = p->final / BLOCK > size / BLOCK;
	if (req->fs == GH_FS_XFS)
		plan_xfs(p, req, &g);
	else
		plan_ext4(p, req, &g);
	if (max > limit)
		reason(p, "; max capped at the %s limit", req->fs == GH_FS_XFS ? "XFS" : "ext4");
	return 0;
}
