// SPDX-License-Identifier: GPL-2.0
/*
 * Test shims, LD_PRELOADed into the xfsprogs programs by
 * scripts/test-mkfs-native.sh and tools/bench/repair-memory.sh:
 *  - with $GH_NCPUS set, sysconf(_SC_NPROCESSORS_ONLN) answers it, so that
 *    the concurrency geometry of a machine with more CPUs than this one can
 *    be checked;
 *  - with $GH_THREADS_OUT set, the number of threads the program created
 *    (successful pthread_create() calls) is written to that file at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long threads_created;

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

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
		   void *(*start)(void *), void *arg)
{
	static int (*real_create)(pthread_t *, const pthread_attr_t *,
				  void *(*)(void *), void *);
	int ret;

	if (!real_create)
		real_create = (int (*)(pthread_t *, const pthread_attr_t *,
				       void *(*)(void *), void *))
			dlsym(RTLD_NEXT, "pthread_create");
	ret = real_create(thread, attr, start, arg);
	if (ret == 0)
		__atomic_add_fetch(&threads_created, 1, __ATOMIC_RELAXED);
	return ret;
}

static void __attribute__((destructor)) report_threads(void)
{
	const char *path = getenv("GH_THREADS_OUT");
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%lu\n", __atomic_load_n(&threads_created, __ATOMIC_RELAXED));
	fclose(f);
}
