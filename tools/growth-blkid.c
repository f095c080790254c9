// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * growth-mkfs built against a libblkid with the growth getters (the util-linux
 * series, blkid_topology_get_growth_max_bytes() and friends): the device hints
 * come from libblkid, which also knows what a partition may grow to (the last
 * one on its disk follows the disk, every other one may grow up to the next;
 * one whose place libblkid does not know has none, as in our own probe).
 *
 * The Makefile links this file only when its configure-style check finds the
 * getters, with -Wl,--wrap=gh_probe: growth-mkfs's calls to gh_probe() land
 * here and __real_gh_probe() is the library's own probe, which runs first and
 * stays the fallback: for --sysfs-root (libblkid reads the real /sys), a bare
 * kernel name, a device libblkid cannot open, or a disk without device hints
 * (the table may still have some).  Its errors stand.
 */
#include <stdio.h>
#include <string.h>

#include <blkid.h>

#include "growth-hints.h"

int __real_gh_probe(const struct gh_config *cfg, const char *device,
		    struct gh_hints *h, char *err, size_t errlen);
int __wrap_gh_probe(const struct gh_config *cfg, const char *device,
		    struct gh_hints *h, char *err, size_t errlen);

int __wrap_gh_probe(const struct gh_config *cfg, const char *device,
		    struct gh_hints *h, char *err, size_t errlen)
{
	const char *root = cfg ? cfg->sysfs_root : NULL;
	uint64_t min, max, inc;
	blkid_topology tp;
	blkid_probe pr;
	int r;

	r = __real_gh_probe(cfg, device, h, err, errlen);
	if (r < 0 || !strchr(device, '/') || (root && *root && strcmp(root, "/sys")))
		return r;

	pr = blkid_new_probe_from_filename(device);
	if (!pr)
		return r;
	tp = blkid_probe_get_topology(pr);
	if (tp && (max = blkid_topology_get_growth_max_bytes(tp))) {
		min = blkid_topology_get_growth_min_bytes(tp);
		inc = blkid_topology_get_growth_increment_bytes(tp);
		h->min = min;
		h->max = max;
		h->increment = inc;
		h->source = GH_SOURCE_SYSFS;
		snprintf(h->origin, sizeof(h->origin),
			 "libblkid topology of %s (the device's hints%s)", device,
			 h->partition ? "; libblkid's partition rule" : "");
	}
	blkid_free_probe(pr);
	return r;
}
