// SPDX-License-Identifier: GPL-2.0
/*
 * gh-randread DEVICE SECONDS [SPAN_MIB]: 4 KiB random reads with O_DIRECT, queue depth 1,
 * from the first SPAN_MIB MiB of DEVICE (default 256) for SECONDS; prints "IOPS".
 * A fio-style random read load for the guest, which has no fio.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long blocks, n = 0, x = 88172645463325252ULL;
	double seconds, start, end;
	void *buf;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE SECONDS [SPAN_MIB]\n", argv[0]);
		return 2;
	}
	seconds = atof(argv[2]);
	blocks = (argc > 3 ? strtoull(argv[3], NULL, 10) : 256) * 256;
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(argv[1]);
		return 1;
	}
	start = now();
	end = start + seconds;
	do {
		/* xorshift64: the same offsets in every run */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, 4096, (off_t)(x % blocks) * 4096) != 4096) {
			perror("pread");
			return 1;
		}
		n++;
	} while ((n & 63) || now() < end);
	printf("%.0f\n", n / (now() - start));
	return 0;
}
