// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * growth-inflate: the copier and the tree digest.
 *
 * A copier of its own rather than libarchive, tar or cp -a: the tool needs every file
 * type, the holes of sparse files (SEEK_DATA/SEEK_HOLE, data moved by copy_file_range),
 * every extended attribute namespace including security.* and trusted.* and the POSIX
 * ACLs as the raw system.posix_acl_* values, inode flags (FS_IOC_GETFLAGS/SETFLAGS,
 * immutable and append-only set last), project IDs, nanosecond times and hard links, on
 * two mounted filesystems of the same type, and it must fail on anything it cannot
 * carry rather than skip it.  libarchive's disk writer covers most of it but goes
 * through an archive entry model (pathnames, no SEEK_DATA on the writer, fflags by
 * name), and cp -a drops inode flags and does not fail on xattrs it cannot set.
 *
 * Everything is relative to directory descriptors (openat, fstatat, mkdirat,
 * symlinkat, mknodat, linkat, utimensat), so no path is ever looked up twice and path
 * length does not matter; xattrs of files that cannot be opened (symlinks, device
 * nodes, fifos, sockets) go through /proc/self/fd/<dir>/<name> with the l*xattr calls.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "inflate.h"

/* Inode flags carried (and compared): those a user can set with chattr.  Not the ones
 * the filesystem keeps for itself (extents, htree index, huge file, inline data, EA
 * inode), nor encryption or verity, which cannot be set on a copy. */
#define GI_FLAGS (FS_SECRM_FL | FS_UNRM_FL | FS_COMPR_FL | FS_SYNC_FL | FS_IMMUTABLE_FL | \
		  FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL | FS_JOURNAL_DATA_FL | \
		  FS_NOTAIL_FL | FS_DIRSYNC_FL | FS_TOPDIR_FL | FS_NOCOW_FL | FS_DAX_FL | \
		  FS_PROJINHERIT_FL | FS_CASEFOLD_FL)
#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif
#ifndef FS_VERITY_FL
#define FS_VERITY_FL 0x00100000
#endif
#ifndef FS_DAX_FL
#define FS_DAX_FL 0x02000000
#endif

#define BUFSZ (1 << 20)

double gi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void gi_progress_tick(struct gi_progress *p, uint64_t add, int force)
{
	double now, rate, left;
	char a[32], b[32], r[32];

	p->done += add;
	if (!p->tty || gi_quiet)
		return;
	now = gi_now();
	if (!force && now - p->last < 0.5)
		return;
	p->last = now;
	rate = now > p->start ? p->done / (now - p->start) : 0;
	left = rate > 0 && p->total > p->done ? (p->total - p->done) / rate : 0;
	gi_fmt_bytes(p->done, a, sizeof(a));
	gi_fmt_bytes(p->total, b, sizeof(b));
	gi_fmt_bytes((uint64_t)rate, r, sizeof(r));
	fprintf(stderr, "\r" GI_PROG ": %s of %s (%3.0f%%), %llu files, %s/s, %.0f s left   ",
		a, b, p->total ? 100.0 * (double)p->done / (double)p->total : 100.0,
		(unsigned long long)p->files, r, left);
	if (force)
		fputc('\n', stderr);
}

struct link {
	ino_t ino;
	char *path;		/* relative to the target's root */
};

struct cp {
	int src_root, dst_root;
	int reflink;
	struct gi_progress *pg;
	struct gi_copy_stats *st;
	char *err;
	size_t elen;
	char *buf;
	struct link *links;
	size_t nlinks, caplinks;
	char *rel;		/* the current path, relative to the root */
	size_t rlen, rcap;
};

static int cfail(struct cp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(struct cp *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, c->elen, "%s: ", c->rlen ? c->rel : ".");
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->elen)
		vsnprintf(c->err + n, c->elen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void push(struct cp *c, const char *name, size_t *saved)
{
	size_t n = strlen(name);

	*saved = c->rlen;
	if (c->rlen + n + 2 > c->rcap) {
		c->rcap = (c->rlen + n + 2) * 2;
		c->rel = realloc(c->rel, c->rcap);
		if (!c->rel)
			abort();
	}
	if (c->rlen)
		c->rel[c->rlen++] = '/';
	memcpy(c->rel + c->rlen, name, n + 1);
	c->rlen += n;
}

static void pop(struct cp *c, size_t saved)
{
	c->rlen = saved;
	c->rel[saved] = '\0';
}

/* ---- extended attributes ------------------------------------------------------------ */

/* An inode: an open descriptor, or a name in a directory (no descriptor). */
struct obj {
	int fd;
	int dir;
	const char *name;
};

static void procpath(const struct obj *o, char *p, size_t len)
{
	snprintf(p, len, "/proc/self/fd/%d/%s", o->dir, o->name);
}

static ssize_t x_list(const struct obj *o, char *buf, size_t len)
{
	char p[PATH_MAX];

	if (o->fd >= 0)
		return flistxattr(o->fd, buf, len);
	procpath(o, p, sizeof(p));
	return llistxattr(p, buf, len);
}

static ssize_t x_get(const struct obj *o, const char *n, void *buf, size_t len)
{
	char p[PATH_MAX];

	if (o->fd >= 0)
		return fgetxattr(o->fd, n, buf, len);
	procpath(o, p, sizeof(p));
	return lgetxattr(p, n, buf, len);
}

static int x_set(const struct obj *o, const char *n, const void *v, size_t len)
{
	char p[PATH_MAX];

	if (o->fd >= 0)
		return fsetxattr(o->fd, n, v, len, 0);
	procpath(o, p, sizeof(p));
	return lsetxattr(p, n, v, len, 0);
}

static int x_remove(const struct obj *o, const char *n)
{
	char p[PATH_MAX];

	if (o->fd >= 0)
		return fremovexattr(o->fd, n);
	procpath(o, p, sizeof(p));
	return lremovexattr(p, n);
}

/* The names of O's xattrs (a malloc'ed list of NUL-terminated names), length in *n. */
static char *x_names(const struct obj *o, ssize_t *n)
{
	char *names = NULL;
	ssize_t len;

	for (;;) {
		len = x_list(o, NULL, 0);
		if (len < 0) {
			if (errno == ENOTSUP || errno == EOPNOTSUPP) {
				*n = 0;
				return calloc(1, 1);
			}
			return NULL;
		}
		names = realloc(names, (size_t)len + 1);
		if (!names)
			abort();
		*n = x_list(o, names, (size_t)len);
		if (*n >= 0)
			return names;
		if (errno != ERANGE) {
			free(names);
			return NULL;
		}
	}
}

static int copy_xattrs(struct cp *c, const struct obj *s, const struct obj *d)
{
	char *names, *dnames, *n;
	ssize_t len, dlen, vlen;
	void *v = NULL;
	size_t vcap = 0;

	names = x_names(s, &len);
	if (!names)
		return cfail(c, "cannot list extended attributes: %s", strerror(errno));
	for (n = names; n < names + len; n += strlen(n) + 1) {
		for (;;) {
			vlen = x_get(s, n, NULL, 0);
			if (vlen < 0)
				break;
			if ((size_t)vlen > vcap) {
				vcap = (size_t)vlen;
				v = realloc(v, vcap);
				if (!v)
					abort();
			}
			vlen = x_get(s, n, v, vcap);
			if (vlen >= 0 || errno != ERANGE)
				break;
		}
		if (vlen < 0) {
			cfail(c, "cannot read extended attribute %s: %s", n, strerror(errno));
			goto bad;
		}
		if (x_set(d, n, v, (size_t)vlen) < 0) {
			cfail(c, "cannot set extended attribute %s: %s", n, strerror(errno));
			goto bad;
		}
		c->st->xattrs++;
	}
	/* what the target has and the source does not (a label an LSM gave it, an ACL
	 * inherited): removed */
	dnames = x_names(d, &dlen);
	if (dnames) {
		for (n = dnames; n < dnames + dlen; n += strlen(n) + 1) {
			char *m;
			int found = 0;

			for (m = names; m < names + len && !found; m += strlen(m) + 1)
				found = !strcmp(m, n);
			if (!found && x_remove(d, n) < 0) {
				cfail(c, "cannot remove extended attribute %s the copy got: %s", n,
				      strerror(errno));
				free(dnames);
				goto bad;
			}
		}
		free(dnames);
	}
	free(v);
	free(names);
	return 0;
bad:
	free(v);
	free(names);
	return -1;
}

/* ---- metadata ------------------------------------------------------------------------ */

/* Inode flags and project ID of an open file or directory; 0 if the filesystem has none. */
static void get_flags(int fd, unsigned *flags, unsigned *projid)
{
	struct fsxattr fx;
	int f = 0;

	*flags = 0;
	*projid = 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &f) == 0)
		*flags = (unsigned)f;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0)
		*projid = fx.fsx_projid;
}

/*
 * Owner, mode, xattrs, project ID, times, then the flags (immutable and append-only
 * forbid the others).  The owner before the mode (chown clears set-user-ID) and before
 * the xattrs (it clears security.capability).  FD: the inode open (files and
 * directories), else -1 and the name in DIR.
 */
static int set_meta(struct cp *c, const struct stat *st, int sfd, int sdir, int fd, int dir,
		    const char *name)
{
	struct obj s = { sfd, sdir, name }, d = { fd, dir, name };
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int r;

	r = fd >= 0 ? fchown(fd, st->st_uid, st->st_gid) :
		      fchownat(dir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return cfail(c, "cannot set the owner %u:%u: %s", st->st_uid, st->st_gid,
			     strerror(errno));
	if (!S_ISLNK(st->st_mode)) {
		r = fd >= 0 ? fchmod(fd, st->st_mode & 07777) :
			      fchmodat(dir, name, st->st_mode & 07777, 0);
		if (r < 0)
			return cfail(c, "cannot set the mode %o: %s", st->st_mode & 07777,
				     strerror(errno));
	}
	if (copy_xattrs(c, &s, &d) < 0)
		return -1;
	if (fd >= 0) {
		unsigned sflags, sproj, dflags, dproj;
		struct fsxattr fx;

		get_flags(sfd, &sflags, &sproj);
		if (sflags & FS_VERITY_FL)
			c->st->verity++;
		if (sproj && ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0) {
			fx.fsx_projid = sproj;
			if (ioctl(fd, FS_IOC_FSSETXATTR, &fx) < 0)
				return cfail(c, "cannot set the project ID %u: %s", sproj, strerror(errno));
		}
		if (futimens(fd, ts) < 0)
			return cfail(c, "cannot set the times: %s", strerror(errno));
		get_flags(fd, &dflags, &dproj);
		if ((sflags & GI_FLAGS) != (dflags & GI_FLAGS)) {
			int f = (int)((dflags & ~GI_FLAGS) | (sflags & GI_FLAGS));

			if (ioctl(fd, FS_IOC_SETFLAGS, &f) < 0)
				return cfail(c, "cannot set the inode flags 0x%x: %s", sflags & GI_FLAGS,
					     strerror(errno));
		}
	} else if (utimensat(dir, name, ts, AT_SYMLINK_NOFOLLOW) < 0) {
		return cfail(c, "cannot set the times: %s", strerror(errno));
	}
	return 0;
}

/* ---- files -------------------------------------------------------------------------- */

static int shared_extents(int fd)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ex[32];
	} m;
	uint64_t start = 0;
	unsigned i;

	for (;;) {
		memset(&m, 0, sizeof(m));
		m.fm.fm_start = start;
		m.fm.fm_length = FIEMAP_MAX_OFFSET - start;
		m.fm.fm_extent_count = 32;
		if (ioctl(fd, FS_IOC_FIEMAP, &m.fm) < 0 || !m.fm.fm_mapped_extents)
			return 0;
		for (i = 0; i < m.fm.fm_mapped_extents; i++) {
			if (m.ex[i].fe_flags & FIEMAP_EXTENT_SHARED)
				return 1;
			if (m.ex[i].fe_flags & FIEMAP_EXTENT_LAST)
				return 0;
		}
		start = m.ex[i - 1].fe_logical + m.ex[i - 1].fe_length;
	}
}

static int copy_range(struct cp *c, int sfd, int dfd, off_t off, off_t end)
{
	while (off < end) {
		size_t want = end - off > (off_t)BUFSZ ? BUFSZ : (size_t)(end - off);
		loff_t in = off, out = off;
		ssize_t n = copy_file_range(sfd, &in, dfd, &out, want, 0);

		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == ENOTSUP)) {
			n = pread(sfd, c->buf, want, off);
			if (n > 0 && pwrite(dfd, c->buf, (size_t)n, off) != n)
				return cfail(c, "cannot write: %s", errno ? strerror(errno) : "short write");
		}
		if (n < 0)
			return cfail(c, "cannot copy data at %lld: %s", (long long)off, strerror(errno));
		if (n == 0)
			return cfail(c, "the file is shorter than its size (%lld)", (long long)off);
		off += n;
		c->st->bytes += (uint64_t)n;
		gi_progress_tick(c->pg, (uint64_t)n, 0);
	}
	return 0;
}

int gi_test_kill;

static int copy_reg(struct cp *c, int sdir, int ddir, const char *name, const struct stat *st)
{
	int sfd, dfd, r = -1;
	off_t off = 0, data, hole;

	sfd = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (sfd < 0)
		return cfail(c, "cannot open: %s", strerror(errno));
	dfd = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dfd < 0) {
		cfail(c, "cannot create: %s", strerror(errno));
		close(sfd);
		return -1;
	}
	if (c->reflink && st->st_size && shared_extents(sfd))
		c->st->reflinked++;
	while (off < st->st_size) {
		data = lseek(sfd, off, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0) {
			/* no SEEK_DATA: all of it is data */
			data = off;
			hole = st->st_size;
		} else {
			hole = lseek(sfd, data, SEEK_HOLE);
			if (hole < 0 || hole > st->st_size)
				hole = st->st_size;
		}
		if (copy_range(c, sfd, dfd, data, hole) < 0)
			goto out;
		off = hole;
	}
	if (ftruncate(dfd, st->st_size) < 0) {
		cfail(c, "cannot set the size: %s", strerror(errno));
		goto out;
	}
	r = set_meta(c, st, sfd, sdir, dfd, ddir, name);
	if (gi_test_kill) {
		/* the test hook GROWTH_INFLATE_TEST_KILL=copy: killed half way */
		fsync(dfd);
		raise(SIGKILL);
	}
out:
	close(sfd);
	if (close(dfd) < 0 && r == 0)
		r = cfail(c, "cannot write: %s", strerror(errno));
	return r;
}

static struct link *find_link(struct cp *c, ino_t ino)
{
	size_t i;

	for (i = 0; i < c->nlinks; i++)
		if (c->links[i].ino == ino)
			return &c->links[i];
	return NULL;
}

static int copy_dir(struct cp *c, int sfd, int dfd, int root);

static int copy_entry(struct cp *c, int sdir, int ddir, const char *name, int root)
{
	struct stat st;
	struct link *l;
	int r = 0;

	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return cfail(c, "cannot stat: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		l = find_link(c, st.st_ino);
		if (l) {
			if (linkat(c->dst_root, l->path, ddir, name, 0) < 0)
				return cfail(c, "cannot link to %s: %s", l->path, strerror(errno));
			c->st->hardlinks++;
			return 0;
		}
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		r = copy_reg(c, sdir, ddir, name, &st);
		c->st->files++;
		c->pg->files++;
		break;
	case S_IFDIR: {
		int s2, d2, made = 1;
		unsigned flags, proj;

		if (mkdirat(ddir, name, 0700) < 0) {
			/* the lost+found mke2fs made */
			if (!(errno == EEXIST && root && !strcmp(name, "lost+found")))
				return cfail(c, "cannot make the directory: %s", strerror(errno));
			made = 0;
		}
		s2 = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		d2 = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s2 < 0 || d2 < 0) {
			cfail(c, "cannot open the directory: %s", strerror(errno));
			if (s2 >= 0)
				close(s2);
			if (d2 >= 0)
				close(d2);
			return -1;
		}
		get_flags(s2, &flags, &proj);
		if (flags & FS_ENCRYPT_FL) {
			close(s2);
			close(d2);
			return cfail(c, "an encrypted directory (fscrypt) cannot be copied");
		}
		if ((flags & FS_CASEFOLD_FL) && made) {
			/* only on an empty directory */
			int f = 0;

			ioctl(d2, FS_IOC_GETFLAGS, &f);
			f |= FS_CASEFOLD_FL;
			if (ioctl(d2, FS_IOC_SETFLAGS, &f) < 0) {
				close(s2);
				close(d2);
				return cfail(c, "cannot make the directory case-insensitive: %s",
					     strerror(errno));
			}
		}
		c->st->dirs++;
		r = copy_dir(c, s2, d2, 0);
		if (r == 0)
			r = set_meta(c, &st, s2, sdir, d2, ddir, name);
		close(s2);
		close(d2);
		return r;
	}
	case S_IFLNK: {
		char *t = malloc((size_t)st.st_size + 2 > PATH_MAX ? (size_t)st.st_size + 2 : PATH_MAX);
		ssize_t n;

		if (!t)
			abort();
		n = readlinkat(sdir, name, t, (size_t)st.st_size + 1 > PATH_MAX ?
				(size_t)st.st_size + 1 : PATH_MAX);
		if (n < 0) {
			free(t);
			return cfail(c, "cannot read the symbolic link: %s", strerror(errno));
		}
		t[n] = '\0';
		if (symlinkat(t, ddir, name) < 0) {
			free(t);
			return cfail(c, "cannot make the symbolic link: %s", strerror(errno));
		}
		free(t);
		c->st->symlinks++;
		r = set_meta(c, &st, -1, sdir, -1, ddir, name);
		break;
	}
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (mknodat(ddir, name, (st.st_mode & S_IFMT) | 0600, st.st_rdev) < 0)
			return cfail(c, "cannot make the %s: %s",
				     S_ISCHR(st.st_mode) ? "character device" :
				     S_ISBLK(st.st_mode) ? "block device" :
				     S_ISFIFO(st.st_mode) ? "fifo" : "socket", strerror(errno));
		c->st->specials++;
		r = set_meta(c, &st, -1, sdir, -1, ddir, name);
		break;
	default:
		return cfail(c, "unknown file type 0%o", st.st_mode & S_IFMT);
	}
	if (r == 0 && st.st_nlink > 1) {
		if (c->nlinks == c->caplinks) {
			c->caplinks = c->caplinks ? c->caplinks * 2 : 256;
			c->links = realloc(c->links, c->caplinks * sizeof(*c->links));
			if (!c->links)
				abort();
		}
		c->links[c->nlinks].ino = st.st_ino;
		c->links[c->nlinks].path = strdup(c->rel);
		c->nlinks++;
	}
	return r;
}

/*
 * Reading ahead.  A tree of small files copied one after another waits for each file's
 * read in turn; a second cursor over the same (read-only, so unchanging) directory asks for
 * the data of the next regular files first (POSIX_FADV_WILLNEED), so that the reads overlap.
 * Bounded by RA_FILES files and RA_BYTES bytes ahead of the copy.
 */
#define RA_FILES 64
#define RA_BYTES ((off_t)64 << 20)

struct readahead {
	DIR *d;
	off_t sizes[RA_FILES];
	unsigned head, n;
	off_t bytes;
};

static void ra_fill(struct readahead *ra, int sfd)
{
	struct dirent *de;
	struct stat st;
	int fd;

	while (ra->d && ra->n < RA_FILES && ra->bytes < RA_BYTES) {
		de = readdir(ra->d);
		if (!de) {
			closedir(ra->d);
			ra->d = NULL;
			break;
		}
		if (de->d_type != DT_REG)
			continue;
		st.st_size = 0;
		fd = openat(sfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			if (fstat(fd, &st) == 0 && st.st_size > 0)
				posix_fadvise(fd, 0, st.st_size < RA_BYTES ? st.st_size : RA_BYTES,
					      POSIX_FADV_WILLNEED);
			close(fd);
		}
		if (st.st_size > RA_BYTES)
			st.st_size = RA_BYTES;
		ra->sizes[(ra->head + ra->n) % RA_FILES] = st.st_size;
		ra->n++;
		ra->bytes += st.st_size;
	}
}

static void ra_next(struct readahead *ra, int sfd)
{
	if (ra->n) {
		ra->bytes -= ra->sizes[ra->head];
		ra->head = (ra->head + 1) % RA_FILES;
		ra->n--;
	}
	ra_fill(ra, sfd);
}

static int copy_dir(struct cp *c, int sfd, int dfd, int root)
{
	/* the second cursor needs an offset of its own: not a dup() */
	int dup_fd = dup(sfd), ra_fd = openat(sfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	struct readahead ra = { 0 };
	struct dirent *de;
	DIR *d;
	size_t saved;

	if (dup_fd < 0 || !(d = fdopendir(dup_fd))) {
		if (dup_fd >= 0)
			close(dup_fd);
		if (ra_fd >= 0)
			close(ra_fd);
		return cfail(c, "cannot read the directory: %s", strerror(errno));
	}
	/* no second cursor, no reading ahead: the copy is the same */
	if (ra_fd >= 0 && !(ra.d = fdopendir(ra_fd)))
		close(ra_fd);
	ra_fill(&ra, sfd);
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				r = cfail(c, "cannot read the directory: %s", strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		push(c, de->d_name, &saved);
		r = copy_entry(c, sfd, dfd, de->d_name, root);
		pop(c, saved);
		if (de->d_type == DT_REG)
			ra_next(&ra, sfd);
	}
	if (ra.d)
		closedir(ra.d);
	closedir(d);
	return r;
}

int gi_copy_tree(const char *src, const char *dst, int reflink, struct gi_progress *pg,
		 struct gi_copy_stats *st, char *err, size_t len)
{
	struct cp c = { .reflink = reflink, .pg = pg, .st = st, .err = err, .elen = len };
	struct stat sst, lst;
	int r = -1;
	size_t i;

	c.src_root = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c.dst_root = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c.buf = malloc(BUFSZ);
	c.rcap = 256;
	c.rel = calloc(1, c.rcap);
	if (!c.buf || !c.rel)
		abort();
	if (c.src_root < 0 || c.dst_root < 0) {
		snprintf(err, len, "cannot open %s or %s: %s", src, dst, strerror(errno));
		goto out;
	}
	if (fstat(c.src_root, &sst) < 0) {
		snprintf(err, len, "cannot stat %s: %s", src, strerror(errno));
		goto out;
	}
	if (copy_dir(&c, c.src_root, c.dst_root, 1) < 0)
		goto out;
	/* the lost+found mke2fs makes, where the source has none */
	if (fstatat(c.src_root, "lost+found", &lst, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
		unlinkat(c.dst_root, "lost+found", AT_REMOVEDIR);
	r = set_meta(&c, &sst, c.src_root, c.src_root, c.dst_root, c.dst_root, ".");
	if (r == 0 && syncfs(c.dst_root) < 0) {
		snprintf(err, len, "cannot write %s: %s", dst, strerror(errno));
		r = -1;
	}
out:
	for (i = 0; i < c.nlinks; i++)
		free(c.links[i].path);
	free(c.links);
	free(c.buf);
	free(c.rel);
	if (c.src_root >= 0)
		close(c.src_root);
	if (c.dst_root >= 0)
		close(c.dst_root);
	return r;
}

/* ---- the digest ------------------------------------------------------------------------- */

struct dg {
	char *out;		/* the records */
	size_t olen, ocap;
	size_t n;
	struct link *links;	/* inode -> first path */
	size_t nlinks, caplinks;
	char *rel;
	size_t rlen, rcap;
	char *buf;
	char *err;
	size_t elen;
};

static void emit(struct dg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct dg *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->out + g->olen, g->ocap - g->olen, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < g->ocap - g->olen) {
			g->olen += (size_t)n;
			return;
		}
		g->ocap = g->ocap * 2 + (size_t)n + 1;
		g->out = realloc(g->out, g->ocap);
		if (!g->out)
			abort();
	}
}

/* A path with tabs, newlines and backslashes escaped. */
static void emit_path(struct dg *g, const char *p)
{
	if (!*p)
		p = ".";
	for (; *p; p++) {
		if (*p == '\n')
			emit(g, "\\n");
		else if (*p == '\t')
			emit(g, "\\t");
		else if (*p == '\\')
			emit(g, "\\\\");
		else
			emit(g, "%c", *p);
	}
}

static int dg_data(struct dg *g, int fd, off_t size, char *hex)
{
	struct gi_sha256 s;
	unsigned char h[32];
	off_t off = 0, data, hole;
	char pos[64];

	gi_sha256_init(&s);
	while (off < size) {
		data = lseek(fd, off, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0) {
			data = off;
			hole = size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0 || hole > size)
				hole = size;
		}
		snprintf(pos, sizeof(pos), "@%lld+%lld", (long long)data, (long long)(hole - data));
		gi_sha256_update(&s, pos, strlen(pos));
		for (off = data; off < hole;) {
			size_t want = hole - off > (off_t)BUFSZ ? BUFSZ : (size_t)(hole - off);
			ssize_t n = pread(fd, g->buf, want, off);

			if (n <= 0)
				return -1;
			gi_sha256_update(&s, g->buf, (size_t)n);
			off += n;
		}
	}
	gi_sha256_final(&s, h);
	gi_hex(h, 16, hex);	/* 128 bits are enough to tell files apart */
	return 0;
}

static int dg_xattrs(const struct obj *o, char *hex)
{
	struct gi_sha256 s;
	unsigned char h[32];
	ssize_t len, vlen;
	char *names, *n, **v;
	size_t cnt = 0, i, j;
	char *val = NULL;

	names = x_names(o, &len);
	if (!names)
		return -1;
	for (n = names; n < names + len; n += strlen(n) + 1)
		cnt++;
	v = calloc(cnt + 1, sizeof(*v));
	for (i = 0, n = names; n < names + len; n += strlen(n) + 1)
		v[i++] = n;
	/* sorted: both filesystems may list in their own order */
	for (i = 1; i < cnt; i++)
		for (j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	gi_sha256_init(&s);
	for (i = 0; i < cnt; i++) {
		vlen = x_get(o, v[i], NULL, 0);
		val = realloc(val, vlen > 0 ? (size_t)vlen : 1);
		if (vlen < 0 || (vlen = x_get(o, v[i], val, (size_t)vlen)) < 0) {
			free(val);
			free(v);
			free(names);
			return -1;
		}
		gi_sha256_update(&s, v[i], strlen(v[i]) + 1);
		gi_sha256_update(&s, &vlen, sizeof(vlen));
		gi_sha256_update(&s, val, (size_t)vlen);
	}
	gi_sha256_final(&s, h);
	if (cnt)
		gi_hex(h, 8, hex);
	else
		strcpy(hex, "-");
	snprintf(hex + strlen(hex), 24, "/%zu", cnt);
	free(val);
	free(v);
	free(names);
	return 0;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dg_dir(struct dg *g, int dfd);

static int dg_entry(struct dg *g, int dir, const char *name, int fd_given)
{
	struct stat st;
	char data[40] = "-", xa[64], link[PATH_MAX + 1] = "";
	unsigned flags = 0, proj = 0;
	int fd = -1, r = 0;
	struct link *l = NULL;
	size_t i;

	if (fd_given >= 0) {
		fd = fd_given;
		if (fstat(fd, &st) < 0)
			goto bad;
	} else if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		goto bad;
	}
	if (fd < 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			goto bad;
	}
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		for (i = 0; i < g->nlinks && !l; i++)
			if (g->links[i].ino == st.st_ino)
				l = &g->links[i];
		if (!l) {
			if (g->nlinks == g->caplinks) {
				g->caplinks = g->caplinks ? g->caplinks * 2 : 256;
				g->links = realloc(g->links, g->caplinks * sizeof(*g->links));
				if (!g->links)
					abort();
			}
			g->links[g->nlinks].ino = st.st_ino;
			g->links[g->nlinks].path = strdup(g->rel);
			g->nlinks++;
		}
	}
	emit_path(g, g->rel);
	if (l) {
		/* the other names of an inode: only which one they are */
		emit(g, "\thardlink ");
		emit_path(g, l->path);
		emit(g, "\n");
		g->n++;
		goto out;
	}
	if (fd >= 0)
		get_flags(fd, &flags, &proj);
	{
		struct obj o = { fd, dir, name };

		if (dg_xattrs(&o, xa) < 0)
			goto bad;
	}
	if (S_ISREG(st.st_mode) && dg_data(g, fd, st.st_size, data) < 0)
		goto bad;
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlinkat(dir, name, link, sizeof(link) - 1);

		if (n < 0)
			goto bad;
		link[n] = '\0';
	}
	emit(g, "\t%c mode=%o uid=%u gid=%u nlink=%lu size=%lld atime=%lld.%09ld mtime=%lld.%09ld "
	     "rdev=%u:%u flags=0x%x projid=%u xattrs=%s data=%s",
	     S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' :
	     S_ISCHR(st.st_mode) ? 'c' : S_ISBLK(st.st_mode) ? 'b' : S_ISFIFO(st.st_mode) ? 'p' : 's',
	     st.st_mode & 07777, st.st_uid, st.st_gid, (unsigned long)st.st_nlink,
	     S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size, (long long)st.st_atim.tv_sec,
	     st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	     major(st.st_rdev), minor(st.st_rdev), flags & GI_FLAGS, proj, xa, data);
	if (S_ISLNK(st.st_mode)) {
		emit(g, " target=");
		emit_path(g, link);
	}
	emit(g, "\n");
	g->n++;
	if (S_ISDIR(st.st_mode))
		r = dg_dir(g, fd);
out:
	if (fd >= 0 && fd != fd_given)
		close(fd);
	return r;
bad:
	snprintf(g->err, g->elen, "%s: %s", *g->rel ? g->rel : ".", strerror(errno));
	r = -1;
	goto out;
}

static int dg_dir(struct dg *g, int dfd)
{
	int dup_fd = dup(dfd), r = 0;
	char **names = NULL;
	size_t n = 0, cap = 0, i, saved;
	struct dirent *de;
	DIR *d;

	if (dup_fd < 0 || !(d = fdopendir(dup_fd))) {
		if (dup_fd >= 0)
			close(dup_fd);
		snprintf(g->err, g->elen, "%s: %s", *g->rel ? g->rel : ".", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmpstr);
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (r == 0) {
			saved = g->rlen;
			if (g->rlen + len + 2 > g->rcap) {
				g->rcap = (g->rlen + len + 2) * 2;
				g->rel = realloc(g->rel, g->rcap);
				if (!g->rel)
					abort();
			}
			if (g->rlen)
				g->rel[g->rlen++] = '/';
			memcpy(g->rel + g->rlen, names[i], len + 1);
			g->rlen += len;
			r = dg_entry(g, dfd, names[i], -1);
			g->rlen = saved;
			g->rel[saved] = '\0';
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int gi_tree_digest(const char *root, char *digest, char **records, size_t *nrecords,
		   char *err, size_t len)
{
	struct dg g = { .err = err, .elen = len };
	struct gi_sha256 s;
	unsigned char h[32];
	int fd, r;
	size_t i;

	g.ocap = 1 << 16;
	g.out = malloc(g.ocap);
	g.rcap = 256;
	g.rel = calloc(1, g.rcap);
	g.buf = malloc(BUFSZ);
	if (!g.out || !g.rel || !g.buf)
		abort();
	g.out[0] = '\0';
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "cannot open %s: %s", root, strerror(errno));
		r = -1;
	} else {
		r = dg_entry(&g, fd, ".", fd);
		close(fd);
	}
	if (r == 0) {
		gi_sha256_init(&s);
		gi_sha256_update(&s, g.out, g.olen);
		gi_sha256_final(&s, h);
		gi_hex(h, 32, digest);
		if (nrecords)
			*nrecords = g.n;
	}
	for (i = 0; i < g.nlinks; i++)
		free(g.links[i].path);
	free(g.links);
	free(g.rel);
	free(g.buf);
	if (records && r == 0)
		*records = g.out;
	else
		free(g.out);
	return r;
}
