/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * growth-inflate's parts (not libgrowthhints API): the source image and its
 * partitions, the filesystems' superblocks, the partition tables (libfdisk),
 * loop devices, the copier and the tree digest.  growth-inflate.c runs them.
 */
#ifndef INFLATE_H
#define INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GI_PROG "growth-inflate"
#define GI_MAX_PARTS 128

/* Exit statuses (growth-inflate(8)). */
enum {
	GI_EXIT_OK = 0,
	GI_EXIT_FAIL = 1,	/* failed while writing: the target is not a good copy */
	GI_EXIT_USAGE = 2,	/* bad command line */
	GI_EXIT_SOURCE = 3,	/* the image cannot be inflated: nothing written */
	GI_EXIT_TARGET = 4,	/* the target (size, hints, busy) does not fit: nothing written */
	GI_EXIT_VERIFY = 5,	/* --verify found a difference */
};

/* ---- messages (growth-inflate.c) ---- */
extern int gi_quiet;
void gi_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gi_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gi_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gi_fmt_bytes(uint64_t b, char *buf, size_t len);

/* ---- filesystems (inflate-fs.c) ---- */
enum gi_kind { GI_RAW = 0, GI_XFS, GI_EXT };

struct gi_xfs {
	uint32_t blocksize, agblocks, agcount, logblocks, dirblocksize;
	uint16_t versionnum, sectsize, inodesize, logsectsize, qflags;
	uint64_t dblocks, rblocks, logstart, icount, ifree, fdblocks;
	uint32_t features2, compat, ro_compat, incompat, log_incompat;
	uint8_t inprogress;
};

struct gi_ext {
	uint32_t blocksize, inodes_count, free_inodes, first_ino, log_groups_per_flex;
	uint32_t compat, incompat, ro_compat, default_mount_opts, checkinterval;
	uint32_t error_count, checksum_seed, blocks_per_group, inodes_per_group, groups;
	uint64_t blocks, r_blocks, free_blocks;
	uint16_t inode_size, state, errors, def_resuid, def_resgid, encoding, encoding_flags;
	int16_t max_mnt_count;
	uint32_t usr_quota_inum, grp_quota_inum, prj_quota_inum, rev_level;
	uint8_t hash_seed[16], def_hash_version;
	char mount_opts[65];
};

struct gi_fs {
	enum gi_kind kind;
	char type[16];		/* "xfs", "ext4", "ext3", "ext2" */
	uint8_t uuid[16];
	char uuid_str[37];
	char label[17];
	uint64_t size;		/* bytes of the filesystem */
	struct gi_xfs x;
	struct gi_ext e;
};

/* Read the superblock of the filesystem at OFF of FD (blkid said TYPE).  0, or -1 with
 * why in err (an unreadable or inconsistent superblock). */
int gi_fs_read(int fd, uint64_t off, const char *type, struct gi_fs *fs, char *err, size_t len);
/* Why the filesystem cannot be inflated as it is (needs repair or log recovery, a
 * feature or a part the tool cannot make): 0, or -1 with the reason. */
int gi_fs_refuse(const struct gi_fs *fs, char *err, size_t len);
/* Features of the source the tool reports it does not carry (quota limits, ...). */
void gi_fs_notes(const struct gi_fs *fs, const char *where);
/* The smallest filesystem that holds USED bytes and INODES of FS. */
uint64_t gi_fs_min_size(const struct gi_fs *fs, uint64_t used, uint64_t inodes);
/* ext: inodes plain mke2fs gives a filesystem of SIZE bytes (a lower bound). */
uint64_t gi_ext_inodes_for(const struct gi_fs *fs, uint64_t size);

/* A command line being built. */
struct gi_argv {
	int argc, cap;
	char **argv;
};
void gi_argv_add(struct gi_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gi_argv_free(struct gi_argv *a);
char *gi_argv_str(const struct gi_argv *a);

/* The mkfs command that makes FS anew on DEV with its UUID, block and inode sizes and
 * features, a temporary label (its identity is set last).  HELP is
 * the mkfs program's usage text (which options it knows).  0 or -1 with err. */
int gi_mkfs_argv(const struct gi_fs *fs, const char *prog, const char *help, const char *dev,
		 struct gi_argv *a, char *err, size_t len);
/* Compare the features of the filesystem made on DEV with the source's (STAGE 0: as
 * made, with the temporary identity; 1: final).  0, or -1 with the difference. */
int gi_fs_compare(const struct gi_fs *src, const struct gi_fs *made, int final, char *err,
		  size_t len);
/* A temporary UUID for the filesystem while it is written. */
void gi_temp_uuid(const struct gi_fs *fs, char *out);

/* ---- tools ---- */
struct gi_tools {
	const char *mkfs_xfs, *mke2fs;		/* as given or found */
	char xfs_db[4096], xfs_repair[4096];
	char tune2fs[4096], e2fsck[4096], dumpe2fs[4096];
	char *xfs_help, *e2_help;
	const char *qemu_img;
};
/* Run ARGV (NULL-terminated); its stdout and stderr into OUT (malloc'ed, may be NULL).
 * Returns the exit status, 128 + signal, or -1 if it could not run. */
int gi_run(char *const *argv, char **out);
/* The program NAME beside PROG (a path) if it is there, else NAME (found in PATH). */
void gi_sibling(const char *prog, const char *name, char *out, size_t len);

/* An error message into ERR (LEN bytes); returns -1. */
int gi_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- loop devices (inflate-part.c) ---- */
/* Attach FD (offset OFF, SIZELIMIT bytes, 0: to the end) to a free loop device; read-only
 * if RO, with partition scanning if PARTSCAN; auto-cleared on its last close.  The node's
 * path in PATH, an open descriptor returned (or -1 with err). */
int gi_loop_attach(int fd, uint64_t off, uint64_t sizelimit, int ro, int partscan,
		   char *path, size_t plen, char *err, size_t len);
/* The source FD is a block device: its own device (the disk for OFF 0, else the kernel's
 * partition that starts at OFF and holds SIZE bytes) opened read-only, its path in PATH
 * (or -1 with err). */
int gi_blk_source(int fd, uint64_t off, uint64_t size, char *path, size_t plen, char *err,
		  size_t len);

/* ---- partition tables (inflate-part.c) ---- */
struct gi_part {
	int partno;		/* 1-based; 0 for a bare filesystem */
	uint64_t start, size;	/* bytes, in the image */
	uint64_t new_size;	/* bytes, on the target */
	char type[40];		/* GPT type GUID, or MBR type code "0x83" */
	char uuid[40];		/* GPT partition GUID */
	char name[80];		/* GPT partition name */
	char attrs[128];	/* GPT attributes as libfdisk writes them */
	int bootable;		/* MBR active flag */
	char fstype[32];	/* what libblkid found in it, "" if nothing */
	int last;		/* the partition that ends last: extended */
	struct gi_fs fs;
	/* for filesystems made anew */
	uint64_t used_bytes, used_inodes;
	char src_dev[64], dst_dev[4096];
	int src_loop_fd;
	uint64_t files, dirs, bytes_copied;
};

struct gi_image {
	const char *path;
	int fd;			/* the raw image (a converted qcow2's temporary) */
	uint64_t size;
	char label[8];		/* "gpt", "dos", "" for a bare filesystem */
	char disk_id[64];	/* GPT disk GUID, MBR "0x12345678" */
	unsigned sector;	/* the table's sector size */
	size_t gpt_entries;	/* GPT: number of entries */
	uint64_t first_usable;	/* bytes: where partitions may start */
	int nparts;
	struct gi_part parts[GI_MAX_PARTS];
	unsigned char bootcode[440];	/* MBR / protective MBR boot code */
};

/* Read IMG's partition table (libfdisk) or take it as a bare filesystem; what each holds
 * (libblkid).  0, or -1 with err. */
int gi_image_read(struct gi_image *img, char *err, size_t len);
/* Write the table of IMG to the target (FD, SIZE bytes, logical SECTOR): FINAL 0 writes
 * the interim table (same partitions, no identity: random GUIDs, types "Linux reserved"
 * / 0xda, names "growth-inflate incomplete"), 1 the source's.  0 or -1 with err. */
int gi_table_write(struct gi_image *img, int fd, const char *path, uint64_t size,
		   int final, char *err, size_t len);
/* The end of the target's usable area for partitions (bytes) with IMG's table type. */
uint64_t gi_table_tail(const struct gi_image *img, uint64_t target_size);
/* Make the kernel see partitions of the disk FD (DISK: its kernel name) as IMG has them
 * (BLKRRPART, then BLKPG for what the kernel did not find); node paths in part->dst_dev.
 * DIR: where to make nodes if /dev has none.  0 or -1 with err. */
int gi_kernel_parts(struct gi_image *img, int fd, const char *disk, const char *dir,
		    char *err, size_t len);

/* ---- the copier and the digest (inflate-copy.c) ---- */
struct gi_progress {
	uint64_t total, done, files;
	double start;
	double last;
	int tty;
};
void gi_progress_tick(struct gi_progress *p, uint64_t add, int force);
double gi_now(void);

struct gi_copy_stats {
	uint64_t files, dirs, symlinks, specials, hardlinks, bytes, xattrs;
	uint64_t reflinked, verity, unsupported;
};

/* GROWTH_INFLATE_TEST_KILL=copy: SIGKILL after the first file (tests only). */
extern int gi_test_kill;

/* Copy the tree of the directory SRC into DST (an empty filesystem's root), with full
 * fidelity (growth-inflate(8), "What is copied").  REFLINK: the source may share extents
 * (report them).  0, or -1 with err. */
int gi_copy_tree(const char *src, const char *dst, int reflink, struct gi_progress *pg,
		 struct gi_copy_stats *st, char *err, size_t len);

/* Digest of a tree (contents and metadata).  Fills DIGEST (64 hex + NUL); the records
 * themselves in *RECORDS (malloc'ed, one per line) if RECORDS is not NULL. */
int gi_tree_digest(const char *root, char *digest, char **records, size_t *nrecords,
		   char *err, size_t len);

/* SHA-256 (inflate-sha256.c) */
struct gi_sha256 {
	uint32_t h[8];
	uint64_t n;
	unsigned char buf[64];
	size_t fill;
};
void gi_sha256_init(struct gi_sha256 *s);
void gi_sha256_update(struct gi_sha256 *s, const void *data, size_t len);
void gi_sha256_final(struct gi_sha256 *s, unsigned char out[32]);
void gi_hex(const unsigned char *in, size_t n, char *out);

#endif /* INFLATE_H */
