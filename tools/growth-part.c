// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Partition tables and whole disks through libblkid: which partitions a
 * disk has (to tell which one follows a partition), and for GPT how much
 * it keeps at the disk's end.
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

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * What a GPT keeps at the end of the disk: everything after its last usable
 * LBA, as the primary header says (libblkid has checked that header's
 * checksums), the backup entries and header; usually 33 sectors of 512
 * bytes.  Like libblkid, this counts space added since the disk grew and the
 * table was not moved to its new end.  0 if the header cannot be read.
 */
static uint64_t gpt_end_bytes(int fd, unsigned sector, uint64_t disk_bytes)
{
	unsigned char hdr[512];
	uint64_t last_usable;

	if (sector < 512 || pread(fd, hdr, sizeof(hdr), sector) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "EFI PART", 8))
		return 0;
	last_usable = get_le64(hdr + 48);
	if (last_usable >= disk_bytes / sector)
		return 0;
	return disk_bytes - (last_usable + 1) * sector;
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
		pt->end_bytes = gpt_end_bytes(fd, sector ? sector : 512,
					      (uint64_t)blkid_probe_get_size(pr));
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
