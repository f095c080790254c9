// SPDX-License-Identifier: GPL-2.0
/*
 * gh-uevent-log LOG READY: the test guest's uevent log.  Listens to the kernel's uevents on
 * the netlink socket, as udevd does, and appends one line per event to LOG:
 * "KEY=value KEY=value ... " with the keys sorted and a space after each pair.  Once it is
 * bound, it creates the file READY; the caller waits for it, so no event after that is missed.
 *
 * One process and one write per event: a storm of uevents on a slow (TCG, loaded) guest is
 * queued in the socket's buffer, where the kernel's uevent helper would start a shell per
 * event with nothing to hold them back.  If the buffer overflows all the same, the log gets the
 * line "GH_UEVENTS_LOST=1" and the console a message, so a test that looks for an event sees
 * why it is missing.  Opened with O_APPEND, so a test may empty the log at any time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MSG_MAX 8192		/* UEVENT_BUFFER_SIZE is 2048 */
#define KEYS_MAX 64		/* UEVENT_NUM_ENVP */
#define RCVBUF (16 << 20)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The line for the uevent in @msg (@len bytes: "ACTION@DEVPATH", then "KEY=value" strings,
 * each ending in NUL) in @line; returns its length, 0 for a message that is not a kernel uevent.
 */
static size_t format_event(char *msg, size_t len, char *line, size_t size)
{
	char *keys[KEYS_MAX], *p, *end = msg + len;
	size_t n = 0, out = 0, k;

	if (!memchr(msg, '@', strnlen(msg, len)))
		return 0;
	for (p = msg + strlen(msg) + 1; p < end && n < KEYS_MAX; p += strlen(p) + 1)
		if (strchr(p, '='))
			keys[n++] = p;
	qsort(keys, n, sizeof(keys[0]), cmp_str);
	for (k = 0; k < n; k++) {
		size_t l = strlen(keys[k]);

		if (out + l + 2 > size)
			break;
		memcpy(line + out, keys[k], l);
		out += l;
		line[out++] = ' ';
	}
	line[out++] = '\n';
	return out;
}

static void append(int fd, const char *line, size_t len)
{
	if (write(fd, line, len) != (ssize_t)len)
		fprintf(stderr, "gh-uevent-log: write: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	static const char lost[] = "GH_UEVENTS_LOST=1\n";
	static char msg[MSG_MAX + 1], line[MSG_MAX + 2];
	int sock, fd, size = RCVBUF;
	ssize_t n;
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: %s LOG READY\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "gh-uevent-log: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "gh-uevent-log: uevent socket: %s\n", strerror(errno));
		return 1;
	}
	/* As root, past net.core.rmem_max; the plain option is the fallback. */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	n = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (n < 0) {
		fprintf(stderr, "gh-uevent-log: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	close(n);
	for (;;) {
		n = recv(sock, msg, MSG_MAX, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ENOBUFS) {
				fprintf(stderr, "gh-uevent-log: recv: %s\n", strerror(errno));
				return 1;
			}
			fprintf(stderr, "gh-uevent-log: uevents lost (socket buffer full)\n");
			append(fd, lost, sizeof(lost) - 1);
			continue;
		}
		msg[n] = '\0';
		len = format_event(msg, n, line, sizeof(line));
		if (len)
			append(fd, line, len);
	}
}
