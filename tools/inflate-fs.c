// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * growth-inflate: the superblocks of XFS and ext2/3/4, read from the image as they are
 * on disk, and the mkfs command that makes the same filesystem (UUID, label, block and
 * inode size, every feature and no other) with the layout the target gets.
 *
 * The superblocks are read directly (a few fixed fields of two stable formats) rather
 * than through xfs_db or dumpe2fs: the tool needs the feature words as numbers, to pass
 * the exact set to mkfs and to check the result bit for bit, and it must refuse an
 * image before anything is written without running a program per question.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "inflate.h"

static uint16_t be16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void uuid_fmt(const uint8_t *u, char *out)
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* ---- XFS -------------------------------------------------------------------------- */

/* On-disk bits (xfs_format.h). */
#define XFS_SB_VERSION_NUMBITS		0x000f
#define XFS_SB_VERSION_ATTRBIT		0x0010
#define XFS_SB_VERSION_NLINKBIT		0x0020
#define XFS_SB_VERSION_QUOTABIT		0x0040
#define XFS_SB_VERSION_ALIGNBIT		0x0080
#define XFS_SB_VERSION_DALIGNBIT	0x0100
#define XFS_SB_VERSION_LOGV2BIT		0x0400
#define XFS_SB_VERSION_SECTORBIT	0x0800
#define XFS_SB_VERSION_EXTFLGBIT	0x1000
#define XFS_SB_VERSION_DIRV2BIT		0x2000
#define XFS_SB_VERSION_BORGBIT		0x4000
#define XFS_SB_VERSION_MOREBITSBIT	0x8000
#define XFS_SB_VERSION2_LAZYSBCOUNTBIT	0x0002
#define XFS_SB_VERSION2_ATTR2BIT	0x0008
#define XFS_SB_VERSION2_PARENTBIT	0x0010
#define XFS_SB_VERSION2_PROJID32BIT	0x0080
#define XFS_SB_VERSION2_CRCBIT		0x0100
#define XFS_SB_VERSION2_FTYPE		0x0200
#define XFS_RO_FINOBT	0x1
#define XFS_RO_RMAPBT	0x2
#define XFS_RO_REFLINK	0x4
#define XFS_RO_INOBTCNT	0x8
#define XFS_IN_FTYPE	0x1
#define XFS_IN_SPINODES	0x2
#define XFS_IN_META_UUID 0x4
#define XFS_IN_BIGTIME	0x8
#define XFS_IN_NEEDSREPAIR 0x10
#define XFS_IN_NREXT64	0x20
#define XFS_IN_EXCHRANGE 0x40
#define XFS_IN_PARENT	0x80
#define XFS_IN_METADIR	0x100
#define XFS_RO_KNOWN	0xf
#define XFS_IN_KNOWN	0x1ff

static int xfs_read(const unsigned char *b, struct gi_fs *fs, char *err, size_t len)
{
	struct gi_xfs *x = &fs->x;

	if (memcmp(b, "XFSB", 4))
		return gi_fail(err, len, "no XFS superblock");
	x->blocksize = be32(b + 4);
	x->dblocks = be64(b + 8);
	x->rblocks = be64(b + 16);
	memcpy(fs->uuid, b + 32, 16);
	x->logstart = be64(b + 48);
	x->agblocks = be32(b + 84);
	x->agcount = be32(b + 88);
	x->logblocks = be32(b + 96);
	x->versionnum = be16(b + 100);
	x->sectsize = be16(b + 102);
	x->inodesize = be16(b + 104);
	memcpy(fs->label, b + 108, 12);
	fs->label[12] = '\0';
	x->inprogress = b[126];
	x->icount = be64(b + 128);
	x->ifree = be64(b + 136);
	x->fdblocks = be64(b + 144);
	x->qflags = be16(b + 176);
	x->dirblocksize = x->blocksize << b[192];
	x->logsectsize = be16(b + 194);
	if (x->versionnum & XFS_SB_VERSION_MOREBITSBIT)
		x->features2 = be32(b + 200);
	if ((x->versionnum & XFS_SB_VERSION_NUMBITS) == 5) {
		x->compat = be32(b + 208);
		x->ro_compat = be32(b + 212);
		x->incompat = be32(b + 216);
		x->log_incompat = be32(b + 220);
	}
	if (x->blocksize < 512 || x->blocksize > 65536 || (x->blocksize & (x->blocksize - 1)) ||
	    x->sectsize < 512 || x->inodesize < 256 || !x->agcount || !x->dblocks)
		return gi_fail(err, len, "inconsistent XFS superblock (block size %u, sector size %u, "
			    "inode size %u, %u AGs)", x->blocksize, x->sectsize, x->inodesize,
			    x->agcount);
	fs->size = x->dblocks * x->blocksize;
	return 0;
}

static int xfs_refuse(const struct gi_fs *fs, char *err, size_t len)
{
	const struct gi_xfs *x = &fs->x;
	unsigned v = x->versionnum & XFS_SB_VERSION_NUMBITS;

	if (x->inprogress)
		return gi_fail(err, len, "the XFS superblock says mkfs did not finish (sb_inprogress)");
	if (v != 4 && v != 5)
		return gi_fail(err, len, "XFS version %u is not supported", v);
	if (x->incompat & XFS_IN_NEEDSREPAIR)
		return gi_fail(err, len, "the XFS filesystem needs repair (needsrepair flag): run xfs_repair on it");
	if (x->log_incompat)
		return gi_fail(err, len, "the XFS log needs recovery (log incompat features 0x%x): mount it once or run xfs_repair",
			    x->log_incompat);
	if (x->incompat & ~XFS_IN_KNOWN)
		return gi_fail(err, len, "unknown XFS incompatible features 0x%x", x->incompat & ~XFS_IN_KNOWN);
	if (x->ro_compat & ~XFS_RO_KNOWN)
		return gi_fail(err, len, "unknown XFS read-only compatible features 0x%x",
			    x->ro_compat & ~XFS_RO_KNOWN);
	if (x->compat)
		return gi_fail(err, len, "unknown XFS compatible features 0x%x", x->compat);
	if (!x->logstart)
		return gi_fail(err, len, "an XFS filesystem with an external log is not supported");
	if (x->rblocks)
		return gi_fail(err, len, "an XFS filesystem with a realtime section is not supported");
	return 0;
}

/* ---- ext2/3/4 --------------------------------------------------------------------- */

struct feat { uint32_t bit; const char *name; int make; };
/* make: 1 mke2fs -O sets it, 0 a state the tool refuses, -1 refused as not makeable */
static const struct feat ext_compat[] = {
	{ 0x0001, "dir_prealloc", 1 }, { 0x0002, "imagic_inodes", -1 }, { 0x0004, "has_journal", 1 },
	{ 0x0008, "ext_attr", 1 }, { 0x0010, "resize_inode", 1 }, { 0x0020, "dir_index", 1 },
	{ 0x0040, "lazy_bg", -1 }, { 0x0080, "exclude_inode", -1 }, { 0x0100, "exclude_bitmap", -1 },
	{ 0x0200, "sparse_super2", 1 }, { 0x0400, "fast_commit", 1 }, { 0x0800, "stable_inodes", 1 },
	{ 0x1000, "orphan_file", 1 },
	{ 0, NULL, 0 },
};
static const struct feat ext_incompat[] = {
	{ 0x0001, "compression", -1 }, { 0x0002, "filetype", 1 }, { 0x0004, "needs_recovery", 0 },
	{ 0x0008, "journal_dev", -1 }, { 0x0010, "meta_bg", 1 }, { 0x0040, "extent", 1 },
	{ 0x0080, "64bit", 1 }, { 0x0100, "mmp", 1 }, { 0x0200, "flex_bg", 1 },
	{ 0x0400, "ea_inode", 1 }, { 0x1000, "dirdata", -1 }, { 0x2000, "metadata_csum_seed", 1 },
	{ 0x4000, "large_dir", 1 }, { 0x8000, "inline_data", 1 }, { 0x10000, "encrypt", 1 },
	{ 0x20000, "casefold", 1 },
	{ 0, NULL, 0 },
};
static const struct feat ext_ro_compat[] = {
	{ 0x0001, "sparse_super", 1 }, { 0x0002, "large_file", 1 }, { 0x0008, "huge_file", 1 },
	{ 0x0010, "uninit_bg", 1 }, { 0x0020, "dir_nlink", 1 }, { 0x0040, "extra_isize", 1 },
	{ 0x0100, "quota", 1 }, { 0x0200, "bigalloc", 1 }, { 0x0400, "metadata_csum", 1 },
	{ 0x1000, "read-only", -1 }, { 0x2000, "project", 1 }, { 0x4000, "shared_blocks", -1 },
	{ 0x8000, "verity", 1 }, { 0x10000, "orphan_present", 0 },
	{ 0, NULL, 0 },
};
#define EXT_IN_RECOVER	0x0004
#define EXT_IN_CSUM_SEED 0x2000
#define EXT_RO_METADATA_CSUM 0x0400
#define EXT_RO_ORPHAN_PRESENT 0x10000

static int ext_read(const unsigned char *b, struct gi_fs *fs, char *err, size_t len)
{
	struct gi_ext *e = &fs->e;
	uint32_t log;

	if (le16(b + 56) != 0xef53)
		return gi_fail(err, len, "no ext2/3/4 superblock");
	e->inodes_count = le32(b + 0);
	e->blocks = le32(b + 4);
	e->r_blocks = le32(b + 8);
	e->free_blocks = le32(b + 12);
	e->free_inodes = le32(b + 16);
	log = le32(b + 24);
	e->blocks_per_group = le32(b + 32);
	e->inodes_per_group = le32(b + 40);
	e->max_mnt_count = (int16_t)le16(b + 54);
	e->state = le16(b + 58);
	e->errors = le16(b + 60);
	e->checkinterval = le32(b + 68);
	e->rev_level = le32(b + 76);
	e->def_resuid = le16(b + 80);
	e->def_resgid = le16(b + 82);
	e->first_ino = e->rev_level ? le32(b + 84) : 11;
	e->inode_size = e->rev_level ? le16(b + 88) : 128;
	e->compat = le32(b + 92);
	e->incompat = le32(b + 96);
	e->ro_compat = le32(b + 100);
	memcpy(fs->uuid, b + 104, 16);
	memcpy(fs->label, b + 120, 16);
	fs->label[16] = '\0';
	memcpy(e->hash_seed, b + 236, 16);
	e->def_hash_version = b[252];
	e->default_mount_opts = le32(b + 256);
	if (e->incompat & 0x80) {	/* 64bit */
		e->blocks |= (uint64_t)le32(b + 336) << 32;
		e->r_blocks |= (uint64_t)le32(b + 340) << 32;
		e->free_blocks |= (uint64_t)le32(b + 344) << 32;
	}
	e->log_groups_per_flex = b[372];
	e->error_count = le32(b + 404);
	memcpy(e->mount_opts, b + 512, 64);
	e->mount_opts[64] = '\0';
	e->usr_quota_inum = le32(b + 576);
	e->grp_quota_inum = le32(b + 580);
	e->prj_quota_inum = le32(b + 620);
	e->checksum_seed = le32(b + 624);
	e->encoding = le16(b + 636);
	e->encoding_flags = le16(b + 638);
	if (log > 6 || !e->blocks || !e->blocks_per_group || !e->inodes_per_group)
		return gi_fail(err, len, "inconsistent ext superblock (log block size %u, %llu blocks)",
			    log, (unsigned long long)e->blocks);
	e->blocksize = 1024u << log;
	e->groups = (uint32_t)((e->blocks - le32(b + 20) + e->blocks_per_group - 1) /
			       e->blocks_per_group);
	fs->size = e->blocks * e->blocksize;
	return 0;
}

static const struct feat *unknown_or_bad(const struct feat *t, uint32_t words, uint32_t *unknown)
{
	uint32_t known = 0;
	int i;

	for (i = 0; t[i].name; i++) {
		known |= t[i].bit;
		if ((words & t[i].bit) && t[i].make <= 0)
			return &t[i];
	}
	*unknown = words & ~known;
	return NULL;
}

static int ext_refuse(const struct gi_fs *fs, char *err, size_t len)
{
	const struct gi_ext *e = &fs->e;
	const struct feat *const tabs[3] = { ext_compat, ext_incompat, ext_ro_compat };
	const uint32_t words[3] = { e->compat, e->incompat, e->ro_compat };
	static const char *const kind[3] = { "compatible", "incompatible", "read-only compatible" };
	const struct feat *f;
	uint32_t unknown;
	int i;

	if (e->incompat & EXT_IN_RECOVER)
		return gi_fail(err, len, "the journal needs recovery (needs_recovery): run e2fsck on it");
	if (e->ro_compat & EXT_RO_ORPHAN_PRESENT)
		return gi_fail(err, len, "the orphan file holds inodes (orphan_present): run e2fsck on it");
	if (!(e->state & 1))
		return gi_fail(err, len, "it was not cleanly unmounted (state not clean): run e2fsck on it");
	if ((e->state & 2) || e->error_count)
		return gi_fail(err, len, "it has recorded errors (%u): run e2fsck on it", e->error_count);
	for (i = 0; i < 3; i++) {
		f = unknown_or_bad(tabs[i], words[i], &unknown);
		if (f)
			return gi_fail(err, len, "feature %s cannot be made by mke2fs", f->name);
		if (unknown)
			return gi_fail(err, len, "unknown ext %s features 0x%x", kind[i], unknown);
	}
	if (e->rev_level == 0)
		return gi_fail(err, len, "a revision 0 ext2 filesystem is not supported");
	return 0;
}

int gi_fs_read(int fd, uint64_t off, const char *type, struct gi_fs *fs, char *err, size_t len)
{
	unsigned char b[1024];
	int r;

	memset(fs, 0, sizeof(*fs));
	if (!strcmp(type, "xfs")) {
		fs->kind = GI_XFS;
		if (pread(fd, b, 512, (off_t)off) != 512)
			return gi_fail(err, len, "cannot read the XFS superblock: %s", strerror(errno));
		r = xfs_read(b, fs, err, len);
	} else if (!strcmp(type, "ext4") || !strcmp(type, "ext3") || !strcmp(type, "ext2")) {
		fs->kind = GI_EXT;
		if (pread(fd, b, 1024, (off_t)off + 1024) != 1024)
			return gi_fail(err, len, "cannot read the ext superblock: %s", strerror(errno));
		r = ext_read(b, fs, err, len);
	} else {
		return gi_fail(err, len, "not ext2/3/4 or XFS");
	}
	snprintf(fs->type, sizeof(fs->type), "%s", type);
	uuid_fmt(fs->uuid, fs->uuid_str);
	return r;
}

int gi_fs_refuse(const struct gi_fs *fs, char *err, size_t len)
{
	return fs->kind == GI_XFS ? xfs_refuse(fs, err, len) : ext_refuse(fs, err, len);
}

void gi_fs_notes(const struct gi_fs *fs, const char *where)
{
	if (fs->kind == GI_XFS) {
		if (fs->x.qflags)
			gi_warn("%s: XFS quota (flags 0x%x): limits are not copied; usage is counted again "
				"when the copy is mounted with quotas", where, fs->x.qflags);
		if (fs->x.incompat & XFS_IN_META_UUID)
			gi_warn("%s: the metadata UUID differs from the UUID (meta_uuid); the copy has "
				"UUID %s throughout", where, fs->uuid_str);
	} else {
		if (fs->e.ro_compat & 0x100)
			gi_warn("%s: ext4 quota: limits and grace times are not copied; usage is counted "
				"again", where);
	}
}

/* Inode ratio of mke2fs.conf's usage types (the defaults shipped by e2fsprogs). */
uint64_t gi_ext_inodes_for(const struct gi_fs *fs, uint64_t size)
{
	uint64_t ratio;

	(void)fs;
	if (size < 3ULL << 20)
		ratio = 8192;
	else if (size < 512ULL << 20)
		ratio = 4096;
	else if (size < 4ULL << 40)
		ratio = 16384;
	else if (size < 16ULL << 40)
		ratio = 32768;
	else
		ratio = 65536;
	return size / ratio;
}

/*
 * The smallest filesystem the copy fits in: the used bytes, 5% for the metadata of a new
 * layout (inode chunks, directories, btrees), the log or journal of that size and a floor
 * (mkfs.xfs makes nothing under 300 MiB).
 */
uint64_t gi_fs_min_size(const struct gi_fs *fs, uint64_t used, uint64_t inodes)
{
	uint64_t need = used + used / 20 + (64ULL << 20);

	if (fs->kind == GI_XFS) {
		if (need < 300ULL << 20)
			need = 300ULL << 20;
	} else {
		/* enough inodes at the usage type's ratio */
		while (gi_ext_inodes_for(fs, need) < inodes + 16)
			need += need / 8;
	}
	return need;
}

/* ---- command lines ---------------------------------------------------------------- */

void gi_argv_add(struct gi_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->argc + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->argv = realloc(a->argv, sizeof(char *) * (size_t)a->cap);
		if (!a->argv)
			abort();
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	a->argv[a->argc++] = s;
	a->argv[a->argc] = NULL;
}

void gi_argv_free(struct gi_argv *a)
{
	int i;

	for (i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	memset(a, 0, sizeof(*a));
}

char *gi_argv_str(const struct gi_argv *a)
{
	size_t n = 1;
	char *s;
	int i;

	for (i = 0; i < a->argc; i++)
		n += strlen(a->argv[i]) + 3;
	s = calloc(1, n);
	if (!s)
		abort();
	for (i = 0; i < a->argc; i++) {
		int q = strchr(a->argv[i], ' ') != NULL || !*a->argv[i];

		if (i)
			strcat(s, " ");
		if (q)
			strcat(s, "'");
		strcat(s, a->argv[i]);
		if (q)
			strcat(s, "'");
	}
	return s;
}

void gi_temp_uuid(const struct gi_fs *fs, char *out)
{
	uint8_t u[16];

	if (getrandom(u, sizeof(u), 0) != (ssize_t)sizeof(u))
		memset(u, 0x5a, sizeof(u));
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	if (!memcmp(u, fs->uuid, 16))
		u[0] ^= 0xff;
	uuid_fmt(u, out);
}

/* Does the usage text of mkfs.xfs name this suboption ("exchange=")? */
static int knows(const char *help, const char *opt)
{
	return help && strstr(help, opt) != NULL;
}

/*
 * A feature newer mkfs.xfs versions know: say 0 or 1 only to a mkfs that knows it (which
 * may default to 1); a source that has it needs a mkfs that can make it.
 */
static int newer_feature(const char *help, char *opts, size_t size, const char *opt,
			 uint32_t on, const char *what, char *err, size_t len)
{
	if (knows(help, opt)) {
		snprintf(opts + strlen(opts), size - strlen(opts), ",%s%d", opt, !!on);
		return 0;
	}
	if (on)
		return gi_fail(err, len, "the source has %s, which this mkfs.xfs cannot make", what);
	return 0;
}

static int xfs_argv(const struct gi_fs *fs, const char *help, struct gi_argv *a, char *err,
		    size_t len)
{
	const struct gi_xfs *x = &fs->x;
	int v5 = (x->versionnum & XFS_SB_VERSION_NUMBITS) == 5;
	char m[256], i[128], n[128];

	gi_argv_add(a, "-f");
	gi_argv_add(a, "-b");
	gi_argv_add(a, "size=%u", x->blocksize);
	gi_argv_add(a, "-s");
	gi_argv_add(a, "size=%u", x->sectsize);
	if (v5) {
		snprintf(m, sizeof(m), "crc=1,finobt=%d,rmapbt=%d,reflink=%d,bigtime=%d,inobtcount=%d,uuid=%s",
			 !!(x->ro_compat & XFS_RO_FINOBT), !!(x->ro_compat & XFS_RO_RMAPBT),
			 !!(x->ro_compat & XFS_RO_REFLINK), !!(x->incompat & XFS_IN_BIGTIME),
			 !!(x->ro_compat & XFS_RO_INOBTCNT), fs->uuid_str);
		snprintf(i, sizeof(i), "size=%u,sparse=%d", x->inodesize,
			 !!(x->incompat & XFS_IN_SPINODES));
		snprintf(n, sizeof(n), "size=%u,ftype=1", x->dirblocksize);
		if (newer_feature(help, i, sizeof(i), "nrext64=", x->incompat & XFS_IN_NREXT64,
				  "nrext64", err, len) < 0 ||
		    newer_feature(help, i, sizeof(i), "exchange=", x->incompat & XFS_IN_EXCHRANGE,
				  "exchange", err, len) < 0 ||
		    newer_feature(help, n, sizeof(n), "parent=", x->incompat & XFS_IN_PARENT,
				  "parent pointers", err, len) < 0 ||
		    newer_feature(help, m, sizeof(m), "metadir=", x->incompat & XFS_IN_METADIR,
				  "metadir", err, len) < 0)
			return -1;
	} else {
		snprintf(m, sizeof(m), "crc=0,uuid=%s", fs->uuid_str);
		snprintf(i, sizeof(i), "size=%u,attr=%d,projid32bit=%d", x->inodesize,
			 x->features2 & XFS_SB_VERSION2_ATTR2BIT ? 2 :
			 (x->versionnum & XFS_SB_VERSION_ATTRBIT) ? 1 : 0,
			 !!(x->features2 & XFS_SB_VERSION2_PROJID32BIT));
		snprintf(n, sizeof(n), "size=%u,ftype=%d", x->dirblocksize,
			 !!(x->features2 & XFS_SB_VERSION2_FTYPE));
		gi_argv_add(a, "-l");
		gi_argv_add(a, "lazy-count=%d", !!(x->features2 & XFS_SB_VERSION2_LAZYSBCOUNTBIT));
	}
	if (x->versionnum & XFS_SB_VERSION_BORGBIT)
		strcat(n, ",version=ci");
	gi_argv_add(a, "-m");
	gi_argv_add(a, "%s", m);
	gi_argv_add(a, "-i");
	gi_argv_add(a, "%s", i);
	gi_argv_add(a, "-n");
	gi_argv_add(a, "%s", n);
	if (x->logsectsize && x->logsectsize != x->sectsize) {
		gi_argv_add(a, "-l");
		gi_argv_add(a, "sectsize=%u", x->logsectsize);
	}
	gi_argv_add(a, "-L");
	gi_argv_add(a, "inflating");
	return 0;
}

static void ext_features(const struct gi_ext *e, char *out, size_t len, int csum_seed)
{
	const struct feat *const tabs[3] = { ext_compat, ext_incompat, ext_ro_compat };
	const uint32_t words[3] = { e->compat, e->incompat | (csum_seed ? EXT_IN_CSUM_SEED : 0),
				    e->ro_compat };
	int i, j;

	snprintf(out, len, "none");
	for (i = 0; i < 3; i++)
		for (j = 0; tabs[i][j].name; j++)
			if ((words[i] & tabs[i][j].bit) && tabs[i][j].make > 0)
				snprintf(out + strlen(out), len - strlen(out), ",%s", tabs[i][j].name);
	/* say what it lacks where mke2fs may add it on its own */
	if (!(e->incompat & 0x80))
		snprintf(out + strlen(out), len - strlen(out), ",^64bit");
	if (!(e->compat & 0x10))
		snprintf(out + strlen(out), len - strlen(out), ",^resize_inode");
}

/* Does the ext filesystem get the temporary checksum seed (gi_fs_finish())? */
static int ext_temp_seed(const struct gi_ext *e)
{
	return (e->ro_compat & EXT_RO_METADATA_CSUM) && !(e->incompat & EXT_IN_CSUM_SEED);
}

static int ext_argv(const struct gi_fs *fs, struct gi_argv *a)
{
	const struct gi_ext *e = &fs->e;
	char feats[1024], ext[512], seed[37];
	uint64_t pct100;

	ext_features(e, feats, sizeof(feats), ext_temp_seed(e));
	gi_argv_add(a, "-F");
	gi_argv_add(a, "-q");
	gi_argv_add(a, "-t");
	gi_argv_add(a, "%s", fs->type);
	gi_argv_add(a, "-b");
	gi_argv_add(a, "%u", e->blocksize);
	gi_argv_add(a, "-I");
	gi_argv_add(a, "%u", e->inode_size);
	gi_argv_add(a, "-O");
	gi_argv_add(a, "%s", feats);
	gi_argv_add(a, "-U");
	gi_argv_add(a, "%s", fs->uuid_str);
	gi_argv_add(a, "-L");
	gi_argv_add(a, "inflating");
	/* reserved blocks: the source's share, in hundredths of a percent */
	pct100 = e->blocks ? (e->r_blocks * 10000 + e->blocks / 2) / e->blocks : 500;
	gi_argv_add(a, "-m");
	gi_argv_add(a, "%llu.%02llu", (unsigned long long)(pct100 / 100),
		    (unsigned long long)(pct100 % 100));
	if (e->log_groups_per_flex && (e->incompat & 0x200)) {
		gi_argv_add(a, "-G");
		gi_argv_add(a, "%u", 1u << e->log_groups_per_flex);
	}
	uuid_fmt(e->hash_seed, seed);
	snprintf(ext, sizeof(ext), "hash_seed=%s", seed);
	if (e->ro_compat & 0x100) {	/* quota: the same quota types */
		snprintf(ext + strlen(ext), sizeof(ext) - strlen(ext), ",quotatype=");
		if (e->usr_quota_inum)
			strcat(ext, "usrquota:");
		if (e->grp_quota_inum)
			strcat(ext, "grpquota:");
		if (e->prj_quota_inum)
			strcat(ext, "prjquota:");
		ext[strlen(ext) - 1] = '\0';
	}
	if (e->incompat & 0x20000)	/* casefold */
		snprintf(ext + strlen(ext), sizeof(ext) - strlen(ext), ",encoding=%s%s",
			 e->encoding == 1 ? "utf8-12.1" : "utf8",
			 e->encoding_flags & 1 ? ",encoding_flags=strict" : "");
	gi_argv_add(a, "-E");
	gi_argv_add(a, "%s", ext);
	return 0;
}

int gi_mkfs_argv(const struct gi_fs *fs, const char *prog, const char *help, const char *dev,
		 struct gi_argv *a, char *err, size_t len)
{
	gi_argv_add(a, "%s", prog);
	if (fs->kind == GI_XFS) {
		if (xfs_argv(fs, help, a, err, len) < 0)
			return -1;
	} else {
		ext_argv(fs, a);
	}
	gi_argv_add(a, "%s", dev);
	return 0;
}

int gi_fs_compare(const struct gi_fs *src, const struct gi_fs *made, int final, char *err,
		  size_t len)
{
	if (src->kind == GI_XFS) {
		const struct gi_xfs *s = &src->x, *m = &made->x;
		/* stripe alignment and quota accounting are the layout's and the mount's; the
		 * attribute bit is set by the first xattr */
		uint16_t vmask = (uint16_t)~(XFS_SB_VERSION_DALIGNBIT | XFS_SB_VERSION_QUOTABIT |
					     XFS_SB_VERSION_SECTORBIT | XFS_SB_VERSION_ATTRBIT);
		uint32_t in_src = s->incompat & ~XFS_IN_META_UUID;
		uint32_t in_made = m->incompat & ~(final ? 0 : XFS_IN_META_UUID);

		if ((s->versionnum & vmask) != (m->versionnum & vmask) || s->features2 != m->features2 ||
		    s->ro_compat != m->ro_compat || in_src != in_made || s->compat != m->compat)
			return gi_fail(err, len, "features differ: source versionnum 0x%x features2 0x%x "
				    "ro_compat 0x%x incompat 0x%x, made 0x%x 0x%x 0x%x 0x%x",
				    s->versionnum, s->features2, s->ro_compat, s->incompat,
				    m->versionnum, m->features2, m->ro_compat, m->incompat);
		if (s->blocksize != m->blocksize || s->inodesize != m->inodesize ||
		    s->sectsize != m->sectsize || s->dirblocksize != m->dirblocksize)
			return gi_fail(err, len, "block, inode, sector or directory block size differs");
	} else {
		const struct gi_ext *s = &src->e, *m = &made->e;
		uint32_t seed = !final && ext_temp_seed(s) ? EXT_IN_CSUM_SEED : 0;

		if (s->compat != m->compat || (s->incompat | seed) != m->incompat ||
		    s->ro_compat != m->ro_compat)
			return gi_fail(err, len, "features differ: source compat 0x%x incompat 0x%x "
				    "ro_compat 0x%x, made 0x%x 0x%x 0x%x", s->compat, s->incompat,
				    s->ro_compat, m->compat, m->incompat, m->ro_compat);
		if (s->blocksize != m->blocksize || s->inode_size != m->inode_size)
			return gi_fail(err, len, "block or inode size differs");
		if (m->inodes_count - m->free_inodes > m->inodes_count ||
		    (uint64_t)s->inodes_count - s->free_inodes > m->inodes_count)
			return gi_fail(err, len, "the new filesystem has %u inodes, the source uses %u",
				    m->inodes_count, s->inodes_count - s->free_inodes);
	}
	if (final && (memcmp(src->uuid, made->uuid, 16) || strcmp(src->label, made->label)))
		return gi_fail(err, len, "UUID or label differ: source %s '%s', made %s '%s'",
			    src->uuid_str, src->label, made->uuid_str, made->label);
	return 0;
}
