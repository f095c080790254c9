// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * growth-inflate: the image's partition table and the target's, and loop devices.
 *
 * libfdisk reads and writes the tables: it knows GPT (both headers, the entry array's
 * size and checksums, the protective MBR, partition names and attribute bits) and DOS
 * (disk signature, types, the active flag), and it is the library fdisk, sfdisk and
 * cfdisk are built on, so the tables written are those the administrator's own tools
 * write.  libblkid tells what each partition holds.  Loop devices are set up with the
 * kernel's LOOP_CONFIGURE on descriptors (the image may be an unlinked temporary), and
 * partitions the running kernel does not parse are added with BLKPG, as partx does.
 */
#define _GNU_SOURCE
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "inflate.h"

int gi_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- loop devices ------------------------------------------------------------------ */

int gi_loop_attach(int fd, uint64_t off, uint64_t sizelimit, int ro, int partscan,
		   char *path, size_t plen, char *err, size_t len)
{
	struct loop_config cfg;
	int ctl, n, lfd, tries;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return gi_fail(err, len, "cannot open /dev/loop-control: %s (is the loop module loaded?)",
			    strerror(errno));
	for (tries = 0; tries < 20; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			gi_fail(err, len, "no free loop device: %s", strerror(errno));
			close(ctl);
			return -1;
		}
		snprintf(path, plen, "/dev/loop%d", n);
		lfd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (lfd < 0) {
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			nanosleep(&ts, NULL);	/* devtmpfs makes the node */
			lfd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		}
		if (lfd < 0) {
			gi_fail(err, len, "cannot open %s: %s", path, strerror(errno));
			close(ctl);
			return -1;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)fd;
		cfg.info.lo_offset = off;
		cfg.info.lo_sizelimit = sizelimit;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (ro ? LO_FLAGS_READ_ONLY : 0) |
				    (partscan ? LO_FLAGS_PARTSCAN : 0);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			/* a source is read once: not through a second page cache */
			if (ro)
				ioctl(lfd, LOOP_SET_DIRECT_IO, 1UL);
			close(ctl);
			return lfd;
		}
		if (errno == EINVAL || errno == ENOTTY) {
			/* before Linux 5.8 */
			if (ioctl(lfd, LOOP_SET_FD, fd) == 0) {
				if (ioctl(lfd, LOOP_SET_STATUS64, &cfg.info) == 0) {
					close(ctl);
					return lfd;
				}
				ioctl(lfd, LOOP_CLR_FD, 0);
			}
		}
		if (errno != EBUSY) {
			gi_fail(err, len, "cannot set up %s: %s", path, strerror(errno));
			close(lfd);
			close(ctl);
			return -1;
		}
		close(lfd);	/* taken by someone else meanwhile */
	}
	close(ctl);
	return gi_fail(err, len, "no free loop device after %d tries", tries);
}

/* ---- the image ---------------------------------------------------------------------- */

/* What libblkid finds at [off, off + size) of FD: 0 with TYPE ("" for nothing), -1 when
 * signatures are ambiguous. */
static int probe_type(int fd, uint64_t off, uint64_t size, char *type, size_t tlen)
{
	blkid_probe pr = blkid_new_probe();
	const char *t = NULL;
	int r;

	*type = '\0';
	if (!pr)
		return 0;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) < 0) {
		blkid_free_probe(pr);
		return 0;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 0);
	r = blkid_do_safeprobe(pr);
	if (r == 0 && blkid_probe_lookup_value(pr, "TYPE", &t, NULL) == 0 && t)
		snprintf(type, tlen, "%s", t);
	blkid_free_probe(pr);
	return r == -2 ? -1 : 0;
}

static int classify(struct gi_image *img, struct gi_part *p, char *err, size_t len)
{
	char why[256];

	if (probe_type(img->fd, p->start, p->size, p->fstype, sizeof(p->fstype)) < 0)
		return gi_fail(err, len, "%s: ambiguous filesystem signatures (wipefs -n shows them)",
			    p->partno ? "partition" : "image");
	if (!strcmp(p->fstype, "xfs") || !strcmp(p->fstype, "ext4") || !strcmp(p->fstype, "ext3") ||
	    !strcmp(p->fstype, "ext2")) {
		if (gi_fs_read(img->fd, p->start, p->fstype, &p->fs, why, sizeof(why)) < 0)
			return gi_fail(err, len, "%s: %s", p->fstype, why);
		if (p->fs.size > p->size)
			return gi_fail(err, len, "the %s filesystem (%llu bytes) is larger than its %s (%llu bytes)",
				    p->fstype, (unsigned long long)p->fs.size,
				    p->partno ? "partition" : "image", (unsigned long long)p->size);
	} else {
		p->fs.kind = GI_RAW;
	}
	return 0;
}

int gi_image_read(struct gi_image *img, char *err, size_t len)
{
	struct fdisk_context *cxt;
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *itr = NULL;
	struct fdisk_partition *pa;
	struct fdisk_label *lb;
	char *id = NULL;
	uint64_t lastend = 0;
	int r = -1, i, lastidx = -1;

	if (pread(img->fd, img->bootcode, sizeof(img->bootcode), 0) != (ssize_t)sizeof(img->bootcode))
		return gi_fail(err, len, "cannot read %s: %s", img->path, strerror(errno));
	cxt = fdisk_new_context();
	if (!cxt)
		return gi_fail(err, len, "libfdisk: out of memory");
	if (fdisk_assign_device_by_fd(cxt, img->fd, img->path, 1) < 0) {
		gi_fail(err, len, "libfdisk cannot read %s", img->path);
		goto out;
	}
	if (!fdisk_has_label(cxt)) {
		/* a bare filesystem */
		img->label[0] = '\0';
		img->nparts = 1;
		memset(&img->parts[0], 0, sizeof(img->parts[0]));
		img->parts[0].start = 0;
		img->parts[0].size = img->size;
		img->parts[0].last = 1;
		if (classify(img, &img->parts[0], err, len) < 0)
			goto out;
		if (img->parts[0].fs.kind == GI_RAW) {
			gi_fail(err, len, "%s: no partition table and no ext2/3/4 or XFS filesystem%s%s%s",
			     img->path, img->parts[0].fstype[0] ? " (libblkid says " : "",
			     img->parts[0].fstype, img->parts[0].fstype[0] ? ")" : "");
			goto out;
		}
		r = 0;
		goto out;
	}
	lb = fdisk_get_label(cxt, NULL);
	snprintf(img->label, sizeof(img->label), "%s", fdisk_label_get_name(lb));
	if (strcmp(img->label, "gpt") && strcmp(img->label, "dos")) {
		gi_fail(err, len, "%s: a %s partition table is not supported (GPT and DOS/MBR are)",
		     img->path, img->label);
		goto out;
	}
	img->sector = (unsigned)fdisk_get_sector_size(cxt);
	if (fdisk_get_disklabel_id(cxt, &id) == 0 && id)
		snprintf(img->disk_id, sizeof(img->disk_id), "%s", id);
	free(id);
	img->gpt_entries = fdisk_get_npartitions(cxt);
	img->first_usable = (uint64_t)fdisk_get_first_lba(cxt) * img->sector;
	if (!strcmp(img->label, "gpt") && fdisk_gpt_is_hybrid(cxt))
		gi_warn("%s: a hybrid MBR is not carried: the target gets a protective MBR", img->path);
	if (fdisk_get_partitions(cxt, &tb) < 0 || !(itr = fdisk_new_iter(FDISK_ITER_FORWARD))) {
		gi_fail(err, len, "libfdisk cannot list the partitions of %s", img->path);
		goto out;
	}
	img->nparts = 0;
	while (fdisk_table_next_partition(tb, itr, &pa) == 0) {
		struct gi_part *p;
		struct fdisk_parttype *t;
		const char *s;

		if (!fdisk_partition_is_used(pa))
			continue;
		if (fdisk_partition_is_container(pa) || fdisk_partition_is_nested(pa)) {
			gi_fail(err, len, "%s: extended and logical partitions are not supported",
			     img->path);
			goto out;
		}
		if (img->nparts == GI_MAX_PARTS) {
			gi_fail(err, len, "%s: more than %d partitions", img->path, GI_MAX_PARTS);
			goto out;
		}
		p = &img->parts[img->nparts++];
		memset(p, 0, sizeof(*p));
		p->partno = (int)fdisk_partition_get_partno(pa) + 1;
		p->start = (uint64_t)fdisk_partition_get_start(pa) * img->sector;
		p->size = (uint64_t)fdisk_partition_get_size(pa) * img->sector;
		t = fdisk_partition_get_type(pa);
		if (t && !strcmp(img->label, "gpt"))
			snprintf(p->type, sizeof(p->type), "%s", fdisk_parttype_get_string(t));
		else if (t)
			snprintf(p->type, sizeof(p->type), "0x%02x", fdisk_parttype_get_code(t));
		if ((s = fdisk_partition_get_uuid(pa)))
			snprintf(p->uuid, sizeof(p->uuid), "%s", s);
		if ((s = fdisk_partition_get_name(pa)))
			snprintf(p->name, sizeof(p->name), "%s", s);
		if ((s = fdisk_partition_get_attrs(pa)))
			snprintf(p->attrs, sizeof(p->attrs), "%s", s);
		p->bootable = fdisk_partition_is_bootable(pa);
		if (p->start + p->size > img->size) {
			gi_fail(err, len, "%s: partition %d ends at %llu, past the image's end (%llu bytes): "
			     "a truncated image?", img->path, p->partno,
			     (unsigned long long)(p->start + p->size), (unsigned long long)img->size);
			goto out;
		}
		if (p->start + p->size > lastend) {
			lastend = p->start + p->size;
			lastidx = img->nparts - 1;
		}
	}
	if (!img->nparts) {
		gi_fail(err, len, "%s: the %s partition table has no partitions", img->path, img->label);
		goto out;
	}
	img->parts[lastidx].last = 1;
	for (i = 0; i < img->nparts; i++) {
		char why[512];

		if (classify(img, &img->parts[i], why, sizeof(why)) < 0) {
			gi_fail(err, len, "%s: partition %d: %s", img->path, img->parts[i].partno, why);
			goto out;
		}
	}
	r = 0;
out:
	fdisk_free_iter(itr);
	fdisk_unref_table(tb);
	fdisk_deassign_device(cxt, 1);
	fdisk_unref_context(cxt);
	return r;
}

uint64_t gi_table_tail(const struct gi_image *img, uint64_t target_size)
{
	uint64_t entries;

	if (strcmp(img->label, "gpt"))
		return 0;
	entries = (img->gpt_entries * 128 + img->sector - 1) / img->sector;
	(void)target_size;
	return (entries + 1) * img->sector;	/* backup entries and header */
}

/* ---- the target's table -------------------------------------------------------------- */

static const char *interim_uuid(char *buf)
{
	unsigned char u[16];
	int i;
	FILE *f = fopen("/dev/urandom", "re");

	if (!f || fread(u, 1, 16, f) != 16)
		for (i = 0; i < 16; i++)
			u[i] = (unsigned char)rand();
	if (f)
		fclose(f);
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(buf, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return buf;
}

#define GPT_LINUX_RESERVED "8DA63339-0007-60C0-C436-083AC8230908"

int gi_table_write(struct gi_image *img, int fd, const char *path, uint64_t size,
		   int final, char *err, size_t len)
{
	struct fdisk_context *cxt = fdisk_new_context();
	struct fdisk_label *lb;
	int gpt = !strcmp(img->label, "gpt");
	char buf[40];
	int r = -1, i;

	(void)size;
	if (!cxt)
		return gi_fail(err, len, "libfdisk: out of memory");
	fdisk_disable_dialogs(cxt, 1);
	if (fdisk_assign_device_by_fd(cxt, fd, path, 0) < 0) {
		gi_fail(err, len, "libfdisk cannot open %s", path);
		goto out;
	}
	if (fdisk_get_sector_size(cxt) != img->sector) {
		gi_fail(err, len, "%s has %lu-byte sectors, the image's table %u-byte ones", path,
		     fdisk_get_sector_size(cxt), img->sector);
		goto out;
	}
	if (gpt) {
		/* the source's first usable LBA (libfdisk takes it from a script's header) */
		struct fdisk_script *sc = fdisk_new_script(cxt);
		char first[32];

		snprintf(first, sizeof(first), "%llu", (unsigned long long)(img->first_usable / img->sector));
		if (!sc || fdisk_script_set_header(sc, "first-lba", first) < 0 ||
		    fdisk_set_script(cxt, sc) < 0) {
			fdisk_unref_script(sc);
			gi_fail(err, len, "libfdisk: cannot set the first usable LBA");
			goto out;
		}
		fdisk_unref_script(sc);
	}
	if (fdisk_create_disklabel(cxt, img->label) < 0) {
		gi_fail(err, len, "libfdisk cannot create a %s table on %s", img->label, path);
		goto out;
	}
	lb = fdisk_get_label(cxt, NULL);
	if (gpt && img->gpt_entries != fdisk_get_npartitions(cxt) &&
	    fdisk_gpt_set_npartitions(cxt, (uint32_t)img->gpt_entries) < 0) {
		gi_fail(err, len, "libfdisk cannot make a GPT of %zu entries on %s", img->gpt_entries, path);
		goto out;
	}
	if (final && img->disk_id[0] && fdisk_set_disklabel_id_from_string(cxt, img->disk_id) < 0) {
		gi_fail(err, len, "libfdisk cannot set the disk identifier %s", img->disk_id);
		goto out;
	}
	if (!final && gpt)
		fdisk_set_disklabel_id_from_string(cxt, interim_uuid(buf));
	for (i = 0; i < img->nparts; i++) {
		struct gi_part *p = &img->parts[i];
		struct fdisk_partition *pa = fdisk_new_partition();
		struct fdisk_parttype *t;
		size_t no;

		fdisk_partition_set_partno(pa, (size_t)p->partno - 1);
		fdisk_partition_set_start(pa, p->start / img->sector);
		if (p->last) {
			/* to the end of the disk as fdisk, sfdisk and growpart extend it: libfdisk's
			 * default end, aligned down to the disk's grain (1 MiB).  The last usable
			 * sector itself would leave an odd number of sectors, and with a minimum
			 * hint at the disk's size the series' mkfs.xfs then sees its device 512
			 * bytes below the partition rule's minimum and ignores the hints. */
			fdisk_partition_end_follow_default(pa, 1);
		} else {
			fdisk_partition_set_size(pa, p->size / img->sector);
			fdisk_partition_size_explicit(pa, 1);
		}
		if (gpt)
			t = fdisk_label_get_parttype_from_string(lb, final ? p->type : GPT_LINUX_RESERVED);
		else
			t = fdisk_label_get_parttype_from_code(lb,
				final ? (unsigned)strtoul(p->type, NULL, 16) : 0xda);
		fdisk_partition_set_type(pa, t);
		fdisk_unref_parttype(t);
		if (gpt) {
			fdisk_partition_set_uuid(pa, final && p->uuid[0] ? p->uuid : interim_uuid(buf));
			fdisk_partition_set_name(pa, final ? p->name : "growth-inflate incomplete");
			if (final && p->attrs[0])
				fdisk_partition_set_attrs(pa, p->attrs);
		}
		r = fdisk_add_partition(cxt, pa, &no);
		fdisk_unref_partition(pa);
		if (r < 0) {
			gi_fail(err, len, "libfdisk cannot add partition %d (start %llu) on %s: %s",
			     p->partno, (unsigned long long)p->start, path, strerror(-r));
			r = -1;
			goto out;
		}
		if (!gpt && final && p->bootable && fdisk_toggle_partition_flag(cxt, no, DOS_FLAG_ACTIVE) < 0) {
			gi_fail(err, len, "libfdisk cannot set the active flag of partition %d", p->partno);
			r = -1;
			goto out;
		}
		if (p->last) {
			struct fdisk_partition *got = NULL;

			if (fdisk_get_partition(cxt, no, &got) == 0)
				p->new_size =
					(uint64_t)fdisk_partition_get_size(got) * img->sector;
			fdisk_unref_partition(got);
		} else {
			p->new_size = p->size;
		}
	}
	if (fdisk_write_disklabel(cxt) < 0) {
		gi_fail(err, len, "libfdisk cannot write the table to %s", path);
		r = -1;
		goto out;
	}
	r = 0;
out:
	fdisk_deassign_device(cxt, 1);
	fdisk_unref_context(cxt);
	if (r == 0 && fsync(fd) < 0)
		return gi_fail(err, len, "cannot write %s: %s", path, strerror(errno));
	return r;
}

/* ---- partitions in the kernel -------------------------------------------------------- */

static int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

int gi_kernel_parts(struct gi_image *img, int fd, const char *disk, const char *dir,
		    char *err, size_t len)
{
	const char *sep = disk[strlen(disk) - 1] >= '0' && disk[strlen(disk) - 1] <= '9' ? "p" : "";
	char name[96], path[512], devno[32];
	uint64_t start;
	int i, tries;

	ioctl(fd, BLKRRPART);	/* fails on a kernel without the table's parser: BLKPG below */
	for (i = 0; i < img->nparts; i++) {
		struct gi_part *p = &img->parts[i];
		struct stat st;
		unsigned maj, mnr;
		FILE *f;

		snprintf(name, sizeof(name), "%s%s%d", disk, sep, p->partno);
		snprintf(path, sizeof(path), "/sys/class/block/%s/start", name);
		if (read_u64(path, &start) < 0 || start * 512 != p->start) {
			struct blkpg_partition bp;
			struct blkpg_ioctl_arg arg;

			memset(&bp, 0, sizeof(bp));
			bp.start = (long long)p->start;
			bp.length = (long long)p->new_size;
			bp.pno = p->partno;
			arg.op = BLKPG_DEL_PARTITION;
			arg.flags = 0;
			arg.datalen = sizeof(bp);
			arg.data = &bp;
			ioctl(fd, BLKPG, &arg);
			arg.op = BLKPG_ADD_PARTITION;
			if (ioctl(fd, BLKPG, &arg) < 0)
				return gi_fail(err, len, "cannot add partition %s to the kernel (BLKPG): %s",
					    name, strerror(errno));
		}
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
		f = fopen(path, "re");
		if (!f || !fgets(devno, sizeof(devno), f) || sscanf(devno, "%u:%u", &maj, &mnr) != 2) {
			if (f)
				fclose(f);
			return gi_fail(err, len, "the kernel has no partition %s", name);
		}
		fclose(f);
		snprintf(p->dst_dev, sizeof(p->dst_dev), "/dev/%s", name);
		for (tries = 0; tries < 50; tries++) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			if (stat(p->dst_dev, &st) == 0 && S_ISBLK(st.st_mode) &&
			    st.st_rdev == makedev(maj, mnr))
				break;
			nanosleep(&ts, NULL);
		}
		if (tries == 50) {
			/* no devtmpfs or udev made it: our own node */
			snprintf(p->dst_dev, sizeof(p->dst_dev), "%s/%s", dir, name);
			unlink(p->dst_dev);
			if (mknod(p->dst_dev, S_IFBLK | 0600, makedev(maj, mnr)) < 0)
				return gi_fail(err, len, "cannot make a node for %s: %s", name,
					    strerror(errno));
		}
	}
	return 0;
}

/*
 * The kernel's own device for the part of the block device FD that starts at OFF bytes: the
 * disk itself for 0, else its partition that starts there and holds SIZE bytes.  Opened
 * read-only (an initramfs may have no loop driver; nothing here writes to the source).
 */
int gi_blk_source(int fd, uint64_t off, uint64_t size, char *path, size_t plen, char *err,
		  size_t len)
{
	char link[PATH_MAX], sys[64], attr[512], name[256] = "";
	uint64_t start, sectors;
	const char *base;
	struct stat st, node;
	struct dirent *d;
	ssize_t n;
	DIR *dir;
	int pfd;

	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode))
		return gi_fail(err, len, "not a block device");
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n < 0)
		return gi_fail(err, len, "%s: %s", sys, strerror(errno));
	link[n] = '\0';
	if (off == 0) {
		base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (strlen(base) >= sizeof(name))
			return gi_fail(err, len, "%s: a name too long", sys);
		memcpy(name, base, strlen(base) + 1);
	} else {
		dir = opendir(sys);
		if (!dir)
			return gi_fail(err, len, "%s: %s", sys, strerror(errno));
		while ((d = readdir(dir))) {
			snprintf(attr, sizeof(attr), "%s/%s/start", sys, d->d_name);
			if (d->d_name[0] == '.' || read_u64(attr, &start) < 0 || start * 512 != off)
				continue;
			snprintf(attr, sizeof(attr), "%s/%s/size", sys, d->d_name);
			if (read_u64(attr, &sectors) == 0 && sectors * 512 >= size)
				snprintf(name, sizeof(name), "%s", d->d_name);
		}
		closedir(dir);
		if (!name[0])
			return gi_fail(err, len, "the kernel has no partition at byte %llu of the source "
				    "with its %llu bytes (partprobe it)", (unsigned long long)off,
				    (unsigned long long)size);
	}
	snprintf(path, plen, "/dev/%s", name);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	if (pfd < 0)
		return gi_fail(err, len, "cannot open %s: %s", path, strerror(errno));
	if (fstat(pfd, &node) < 0 || !S_ISBLK(node.st_mode)) {
		close(pfd);
		return gi_fail(err, len, "%s is not a block device", path);
	}
	return pfd;
}
