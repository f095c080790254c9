// SPDX-License-Identifier: GPL-2.0
/*
 * A test shim, LD_PRELOADed into mkfs.xfs by scripts/test-mkfs-native.sh:
 * sysconf(_SC_NPROCESSORS_ONLN) answers $GH_NCPUS, so that the concurrency
 * geometry of a machine with more CPUs than this one can be checked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long sysconf(int name)
{
	static long (*real_sysconf)(int);
	const char *ncpus = getenv("GH_NCPUS");

	if (name == _SC_NPROCESSORS_ONLN && ncpus)
		return atol(ncpus);
	if (!real_sysconf)
		real_sysconf = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	return real_sysconf(name);
}
