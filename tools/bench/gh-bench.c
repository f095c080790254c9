// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gh-bench: the workloads of tools/bench/bench.sh, in C so that they cost the
 * same in every run and do not measure an interpreter.
 *
 *   gh-bench populate DIR SEED PART NPARTS NFILES NDIRS
 *       part PART (1..NPARTS) of a fixed tree of NFILES files with data in
 *       NDIRS directories (DIR/dNN/eNNN); SEED decides every size, the same
 *       tree on every machine (xorshift64*, not the C library's rand()).
 *       Prints "files bytes".
 *   gh-bench meta DIR THREADS NFILES
 *       THREADS threads, each in its own directory: create NFILES/THREADS
 *       files with 1 KiB of data, syncfs; stat them all; unlink them all,
 *       syncfs.  Prints the seconds.
 *   gh-bench stream FILE BYTES
 *       write BYTES in 1 MiB writes to a new FILE, fsync.  Prints the seconds.
 *   gh-bench writers DIR THREADS BYTES
 *       THREADS threads, each in its own new directory (so that XFS puts each
 *       in another AG where it has several), write BYTES/THREADS in 1 MiB
 *       writes to a new file, fsync.  Prints the seconds.
 *   gh-bench punch FILE STRIDE LEN
 *       punch a hole of LEN bytes in the middle of every STRIDE bytes of
 *       FILE (its size kept), fsync: free space in pieces of LEN bytes, the
 *       fragmentation that ageing deletes of whole files do not make.
 *       Prints the bytes punched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "gh-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * File sizes of a small-file tree (source trees, mail, package caches): 60%
 * under 512 bytes, 30% up to 4 KiB, 9% up to 16 KiB, 1% up to 64 KiB; about
 * 2 KiB on average.
 */
static size_t file_size(uint64_t *s)
{
	uint64_t r = next(s) % 100, v = next(s);

	if (r < 60)
		return v % 512;
	if (r < 90)
		return 512 + v % (4096 - 512);
	if (r < 99)
		return 4096 + v % (16384 - 4096);
	return 16384 + v % (65536 - 16384);
}

static char data[1 << 20];

static void mkdir_p(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die(path);
}

static int populate(const char *dir, uint64_t seed, long part, long nparts, long nfiles,
		    long ndirs)
{
	long from = nfiles * (part - 1) / nparts, to = nfiles * part / nparts, i, files = 0;
	uint64_t s = seed ? seed : 1, bytes = 0;
	char path[4096];

	if (part < 1 || part > nparts || ndirs < 1)
		return 2;
	mkdir_p(dir);
	for (i = 0; i < to; i++) {
		size_t n = file_size(&s);
		long d = i % ndirs;
		int fd;

		if (i < from)
			continue;
		snprintf(path, sizeof(path), "%s/d%02ld", dir, d % 100);
		mkdir_p(path);
		snprintf(path, sizeof(path), "%s/d%02ld/e%04ld", dir, d % 100, d / 100);
		mkdir_p(path);
		snprintf(path, sizeof(path), "%s/d%02ld/e%04ld/f%07ld", dir, d % 100, d / 100, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die(path);
		if (n && write(fd, data, n) != (ssize_t)n)
			die(path);
		close(fd);
		files++;
		bytes += n;
	}
	printf("%ld %" PRIu64 "\n", files, bytes);
	return 0;
}

struct meta_arg {
	const char *dir;
	long id, n;
	pthread_barrier_t *bar;
};

static void *meta_thread(void *p)
{
	struct meta_arg *a = p;
	char path[4096];
	struct stat st;
	long i;
	int fd;

	snprintf(path, sizeof(path), "%s/t%ld", a->dir, a->id);
	mkdir_p(path);
	for (i = 0; i < a->n; i++) {
		snprintf(path, sizeof(path), "%s/t%ld/m%07ld", a->dir, a->id, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, data, 1024) != 1024)
			die(path);
		close(fd);
	}
	pthread_barrier_wait(a->bar);
	if (a->id == 0) {
		fd = open(a->dir, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || syncfs(fd) < 0)
			die("syncfs");
		close(fd);
	}
	pthread_barrier_wait(a->bar);
	for (i = 0; i < a->n; i++) {
		snprintf(path, sizeof(path), "%s/t%ld/m%07ld", a->dir, a->id, i);
		if (stat(path, &st) < 0)
			die(path);
	}
	for (i = 0; i < a->n; i++) {
		snprintf(path, sizeof(path), "%s/t%ld/m%07ld", a->dir, a->id, i);
		if (unlink(path) < 0)
			die(path);
	}
	snprintf(path, sizeof(path), "%s/t%ld", a->dir, a->id);
	if (rmdir(path) < 0)
		die(path);
	return NULL;
}

static int meta(const char *dir, long threads, long nfiles)
{
	pthread_t tid[256];
	struct meta_arg a[256];
	pthread_barrier_t bar;
	double t0;
	long i;
	int fd;

	if (threads < 1 || threads > 256)
		return 2;
	mkdir_p(dir);
	pthread_barrier_init(&bar, NULL, (unsigned)threads);
	t0 = now();
	for (i = 0; i < threads; i++) {
		a[i].dir = dir;
		a[i].id = i;
		a[i].n = nfiles / threads;
		a[i].bar = &bar;
		if (pthread_create(&tid[i], NULL, meta_thread, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || syncfs(fd) < 0)
		die("syncfs");
	close(fd);
	printf("%.3f\n", now() - t0);
	return 0;
}

static int stream(const char *file, long long bytes)
{
	double t0 = now();
	long long done = 0;
	int fd;

	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		die(file);
	while (done < bytes) {
		size_t n = bytes - done < (long long)sizeof(data) ? (size_t)(bytes - done) : sizeof(data);

		if (write(fd, data, n) != (ssize_t)n)
			die(file);
		done += (long long)n;
	}
	if (fsync(fd) < 0)
		die(file);
	close(fd);
	printf("%.3f\n", now() - t0);
	return 0;
}

static int punch(const char *file, long long stride, long long len)
{
	long long off, size, done = 0;
	struct stat st;
	int fd;

	if (stride <= 0 || len <= 0 || len > stride) {
		fprintf(stderr, "gh-bench punch: need 0 < LEN <= STRIDE\n");
		return 2;
	}
	fd = open(file, O_WRONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		die(file);
	size = st.st_size;
	for (off = (stride - len) / 2; off + len <= size; off += stride) {
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) < 0)
			die(file);
		done += len;
	}
	if (fsync(fd) < 0)
		die(file);
	close(fd);
	printf("%lld\n", done);
	return 0;
}

struct writer_arg {
	const char *dir;
	long id;
	long long bytes;
};

static void *writer_thread(void *p)
{
	struct writer_arg *a = p;
	char path[4096];
	long long done = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/w%ld", a->dir, a->id);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/w%ld/data", a->dir, a->id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		die(path);
	while (done < a->bytes) {
		size_t n = a->bytes - done < (long long)sizeof(data) ?
			   (size_t)(a->bytes - done) : sizeof(data);

		if (write(fd, data, n) != (ssize_t)n)
			die(path);
		done += (long long)n;
	}
	if (fsync(fd) < 0)
		die(path);
	close(fd);
	return NULL;
}

static int writers(const char *dir, long threads, long long bytes)
{
	pthread_t tid[256];
	struct writer_arg a[256];
	double t0;
	long i;

	if (threads < 1 || threads > 256 || bytes < threads)
		return 2;
	mkdir_p(dir);
	t0 = now();
	for (i = 0; i < threads; i++) {
		a[i].dir = dir;
		a[i].id = i;
		a[i].bytes = bytes / threads;
		if (pthread_create(&tid[i], NULL, writer_thread, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("%.3f\n", now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 26);
	if (argc == 8 && !strcmp(argv[1], "populate"))
		return populate(argv[2], strtoull(argv[3], NULL, 10), atol(argv[4]), atol(argv[5]),
				atol(argv[6]), atol(argv[7]));
	if (argc == 5 && !strcmp(argv[1], "meta"))
		return meta(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "stream"))
		return stream(argv[2], atoll(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "writers"))
		return writers(argv[2], atol(argv[3]), atoll(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "punch"))
		return punch(argv[2], atoll(argv[3]), atoll(argv[4]));
	fprintf(stderr, "usage: gh-bench populate DIR SEED PART NPARTS NFILES NDIRS\n"
			"       gh-bench meta DIR THREADS NFILES\n"
			"       gh-bench stream FILE BYTES\n"
			"       gh-bench writers DIR THREADS BYTES\n"
			"       gh-bench punch FILE STRIDE LEN\n");
	return 2;
}
