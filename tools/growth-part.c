// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Partition tables and whole disks through libblkid: which partitions a
 * disk has (to tell whether one is the last), and for GPT how much the
 * backup area at the disk's end takes.
 */
#define _GNU_SOURCE
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "growth-hints.h"
#include "growth-internal.h"

#define fail gh__fail

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The GPT backup area: the backup header (one sector) and the entry array
 * before it, as the primary header describes them (libblkid has checked
 * that header's checksums).  The usual 128 entries of 128 bytes take
 * 33 sectors of 512 bytes.
 */
static uint64_t gpt_backup_bytes(int fd, unsigned sector)
{
	unsigned char hdr[512];
	uint64_t entries;

	if (sector < 512 || pread(fd, hdr, sizeof(hdr), sector) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "EFI PART", 8))
		return 33 * 512ULL;
	entries = (uint64_t)get_le32(hdr + 80) * get_le32(hdr + 84);
	return sector + (entries + sector - 1) / sector * sector;
}

int gh__read_ptable(const char *path, struct gh__ptable *pt, char *err, size_t errlen)
{
	blkid_partlist ls;
	blkid_parttable tab;
	blkid_probe pr;
	const char *type;
	unsigned sector;
	int fd, i, n;

	memset(pt, 0, sizeof(*pt));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "cannot read %s: %s", path, strerror(errno)) + 2;
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		if (pr)
			blkid_free_probe(pr);
		close(fd);
		return fail(err, errlen, "libblkid cannot probe %s", path) + 2;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	ls = blkid_do_fullprobe(pr) < 0 ? NULL : blkid_probe_get_partitions(pr);
	tab = ls ? blkid_partlist_get_table(ls) : NULL;
	type = tab ? blkid_parttable_get_type(tab) : NULL;
	if (!type) {
		blkid_free_probe(pr);
		close(fd);
		return fail(err, errlen, "no partition table libblkid knows on %s", path) + 2;
	}
	snprintf(pt->type, sizeof(pt->type), "%s", type);
	sector = blkid_probe_get_sectorsize(pr);
	n = blkid_partlist_numof_partitions(ls);
	for (i = 0; i < n && pt->n < (int)(sizeof(pt->start) / sizeof(pt->start[0])); i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		blkid_loff_t s, z;

		if (!par)
			continue;
		/* libblkid counts partitions in 512-byte sectors */
		s = blkid_partition_get_start(par);
		z = blkid_partition_get_size(par);
		if (s < 0 || z < 0)
			continue;
		pt->start[pt->n] = (uint64_t)s * 512;
		pt->size[pt->n] = (uint64_t)z * 512;
		pt->primary[pt->n] = blkid_partition_is_primary(par);
		pt->n++;
	}
	if (!strcmp(pt->type, "gpt"))
		pt->backup_bytes = gpt_backup_bytes(fd, sector ? sector : 512);
	if (!strcmp(pt->type, "dos"))
		pt->max_size = 0xffffffffULL * (sector ? sector : 512);
	blkid_free_probe(pr);
	close(fd);
	return 0;
}

int gh__wholedisk(unsigned maj, unsigned min, char *disk, size_t len)
{
	dev_t whole = 0;

	if (len > (size_t)0x7fffffff ||
	    blkid_devno_to_wholedisk(makedev(maj, min), disk, len, &whole) < 0 || !disk[0])
		return -1;
	return 0;
}
