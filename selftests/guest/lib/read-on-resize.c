// SPDX-License-Identifier: GPL-2.0
/*
 * gh-read-on-resize DISK OFFSET COUNT [FILE...]: wait for the kernel's "change" uevent with RESIZE=1
 * for DISK (a name in /sys/block), then at once submit COUNT reads of 4 KiB from OFFSET (bytes,
 * past the old end) with O_DIRECT in one io_submit(); prints "ok" or what failed, and exits 0
 * or 1.  Each FILE (a sysfs attribute) is printed as it reads at the uevent, before the reads
 * ("before FILE: VALUE"), and again after them ("after FILE: VALUE").
 *
 * It runs as SCHED_FIFO on the guest's one CPU, so the uevent's wake-up preempts the kernel
 * thread that sent it, and all the reads reach the block layer before that thread runs again:
 * with whatever the driver has not done yet still undone.  A native NVMe multipath disk must
 * route a read past the old end only to paths that have the new capacity (with the round-robin
 * policy the reads go to every usable path); the paths' stat files tell where they went.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_READS 64

/* Whether the uevent in @buf (@len bytes, NUL-separated) is a resize of @disk. */
static int is_resize(const char *buf, ssize_t len, const char *disk)
{
	const char *p, *end = buf + len;
	int change = 0, name = 0, resize = 0;

	for (p = buf; p < end; p += strlen(p) + 1) {
		if (!strcmp(p, "ACTION=change"))
			change = 1;
		else if (!strncmp(p, "DEVNAME=", 8) && !strcmp(p + 8, disk))
			name = 1;
		else if (!strcmp(p, "RESIZE=1"))
			resize = 1;
	}
	return change && name && resize;
}

/* Print "WHEN FILE: first line" */
static void print_file(const char *when, const char *file)
{
	char line[256] = "";
	FILE *f = fopen(file, "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	printf("%s %s: %s\n", when, file, f ? line : strerror(errno));
}

int main(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sched_param sp = { .sched_priority = 50 };
	struct iocb cbs[MAX_READS], *cbp[MAX_READS];
	struct io_event ev[MAX_READS];
	char path[256], msg[8192];
	unsigned long long offset;
	aio_context_t ctx = 0;
	int sock, fd, count, i, done, failed = 0;
	char *buf;
	ssize_t n;

	if (argc < 4) {
		fprintf(stderr, "usage: %s DISK OFFSET COUNT [FILE...]\n",
			argv[0]);
		return 2;
	}
	offset = strtoull(argv[2], NULL, 0);
	count = atoi(argv[3]);
	if (count < 1 || count > MAX_READS) {
		fprintf(stderr, "COUNT is 1 to %d\n", MAX_READS);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	if (posix_memalign((void **)&buf, 4096, 4096UL * count))
		return 2;
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (syscall(SYS_io_setup, count, &ctx)) {
		printf("io_setup: %s\n", strerror(errno));
		return 1;
	}
	memset(cbs, 0, sizeof(cbs));
	for (i = 0; i < count; i++) {
		cbs[i].aio_fildes = fd;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_buf = (unsigned long)(buf + 4096UL * i);
		cbs[i].aio_nbytes = 4096;
		cbs[i].aio_offset = offset + 4096ULL * i;
		cbs[i].aio_data = i;
		cbp[i] = &cbs[i];
	}
	sock = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		printf("uevent socket: %s\n", strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		printf("SCHED_FIFO: %s\n", strerror(errno));
		return 1;
	}
	/* Ready: the caller may start the resize now. */
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		n = recv(sock, msg, sizeof(msg) - 1, 0);
		if (n < 0) {
			printf("recv: %s\n", strerror(errno));
			return 1;
		}
		msg[n] = '\0';
		if (is_resize(msg, n, argv[1]))
			break;
	}
	for (i = 4; i < argc; i++)
		print_file("before", argv[i]);
	n = syscall(SYS_io_submit, ctx, count, cbp);
	if (n != count) {
		printf("io_submit: %zd of %d: %s\n", n, count,
		       n < 0 ? strerror(errno) : "short");
		return 1;
	}
	for (done = 0; done < count; done += n) {
		n = syscall(SYS_io_getevents, ctx, 1, count - done, ev, NULL);
		if (n < 0) {
			printf("io_getevents: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			if ((long long)ev[i].res == 4096)
				continue;
			printf("read %llu at %llu: %s\n",
			       (unsigned long long)ev[i].data + 1,
			       offset + 4096ULL * ev[i].data,
			       (long long)ev[i].res < 0 ?
			       strerror(-(long long)ev[i].res) : "short read");
			failed = 1;
		}
	}
	for (i = 4; i < argc; i++)
		print_file("after", argv[i]);
	if (failed)
		return 1;
	printf("ok\n");
	return 0;
}
