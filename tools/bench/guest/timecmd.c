// SPDX-License-Identifier: GPL-2.0
/*
 * gh-timecmd [-s] [-t SECONDS] [-o FILE] COMMAND [ARG...]: run COMMAND (its output to FILE
 * with -o) and print, on one line,
 * "ELAPSED_S STATUS MAXRSS_KIB THREADS MEMDROP_KIB": its wall time, its exit status
 * (128 + the signal if a signal ended it, -1 if it was killed after SECONDS), its peak
 * resident size (getrusage), and with -s, sampled every 100 ms: its largest number of threads
 * and how far MemFree of the whole guest fell below its value at the start (kernel memory
 * that a mount or growfs takes shows there, not in the process).  Without -s: "- -".
 * The guest's stand-in for /usr/bin/time -v, which busybox lacks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the number after "KEY:" in FILE, or -1 */
static long field(const char *file, const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	double timeout = 0, start;
	long threads = 0, free0 = 0, freemin = 0, v;
	int opt, sample = 0, status, killed = 0, rc, tick = 0;
	char proc[64];
	const char *output = NULL;
	struct rusage ru;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+st:o:")) != -1) {
		switch (opt) {
		case 's': sample = 1; break;
		case 'o': output = optarg; break;
		case 't': timeout = atof(optarg); break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	if (sample)
		free0 = freemin = field("/proc/meminfo", "MemFree");
	start = now();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (output) {
			int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
				perror(output);
				_exit(127);
			}
			close(fd);
		}
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	snprintf(proc, sizeof(proc), "/proc/%d/status", (int)pid);
	for (;;) {
		rc = wait4(pid, &status, sample || timeout > 0 ? WNOHANG : 0, &ru);
		if (rc == pid)
			break;
		if (rc < 0) {
			perror("wait4");
			return 1;
		}
		if (sample && tick++ % 20 == 0) {
			v = field(proc, "Threads");
			if (v > threads)
				threads = v;
			v = field("/proc/meminfo", "MemFree");
			if (v >= 0 && v < freemin)
				freemin = v;
		}
		if (timeout > 0 && !killed && now() - start > timeout) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		usleep(5000);	/* the wall time to 5 ms; samples every 100 ms */
	}
	printf("%.3f %d %ld", now() - start,
	       killed ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       ru.ru_maxrss);
	if (sample)
		printf(" %ld %ld\n", threads, free0 - freemin);
	else
		printf(" - -\n");
	return 0;
usage:
	fprintf(stderr, "usage: %s [-s] [-t SECONDS] [-o FILE] COMMAND [ARG...]\n", argv[0]);
	return 2;
}
