// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * growth-mkfs: show the growth hints of a block device and make a
 * filesystem that stays sensible for every size the device may grow to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "growth-hints.h"

#define PROG "growth-mkfs"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] show DEVICE\n"
		"       " PROG " [options] mkfs-args -t ext4|xfs DEVICE\n"
		"       " PROG " [options] mkfs -t ext4|xfs DEVICE [-- mkfs options]\n"
		"options:\n"
		"  --json             machine-readable output\n"
		"  --final SIZE       plan for this final size (K/M/G/T/P/E suffixes)\n"
		"  --min SIZE         override the minimum\n"
		"  --max SIZE         override the maximum\n"
		"  --increment SIZE   override the increment\n"
		"  --sysfs-root DIR   read sysfs from DIR (default /sys); a bare DEVICE name\n"
		"                     is then DIR/../dev/NAME\n"
		"  -t, --type TYPE    ext4 or xfs\n"
		"  --version          print the version\n"
		"environment:\n"
		"  GROWTH_HINTS_DB    ':'-separated table files/directories searched first\n"
		"  GROWTH_MKFS_EXT4, GROWTH_MKFS_XFS   mkfs programs (default mkfs.ext4, mkfs.xfs)\n"
		"see growth-mkfs(8)\n");
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_strv(char *const *v, int n)
{
	int i;

	putchar('[');
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		json_str(v[i]);
	}
	putchar(']');
}

static void json_hints(const char *device, const struct gh_hints *h)
{
	printf("\"device\":");
	json_str(device);
	printf(",\"name\":");
	json_str(h->name);
	printf(",\"disk\":");
	json_str(h->disk);
	printf(",\"partition\":%s,\"size\":%llu,\"disk_size\":%llu,\"start\":%llu,\"tail\":%llu,"
	       "\"pttype\":",
	       h->partition ? "true" : "false", (unsigned long long)h->size,
	       (unsigned long long)h->disk_size, (unsigned long long)h->start,
	       (unsigned long long)h->tail);
	json_str(h->pttype);
	printf(",\"min\":%llu,\"max\":%llu,\"increment\":%llu,\"source\":",
	       (unsigned long long)h->min, (unsigned long long)h->max,
	       (unsigned long long)h->increment);
	json_str(gh_source_name(h->source));
	printf(",\"origin\":");
	json_str(h->origin);
	printf(",\"match\":");
	json_str(h->match);
}

static void json_plan(const struct gh_plan *p, const struct gh_argv *args)
{
	printf(",\"type\":\"%s\",\"final\":%llu,\"grows\":%s,\"guess\":%s,\"target\":%s,\"args\":",
	       p->fs == GH_FS_XFS ? "xfs" : "ext4", (unsigned long long)p->final,
	       p->grows ? "true" : "false", p->guess ? "true" : "false",
	       p->target ? "true" : "false");
	json_strv(args->argv, args->argc);
	printf(",\"reason\":");
	json_str(p->reason);
	if (p->fs == GH_FS_XFS)
		printf(",\"xfs\":{\"blocksize\":%u,\"agsize\":%llu,\"agsize_blocks\":%llu,"
		       "\"agcount\":%llu,\"agcount_at_max\":%llu,\"logsize\":%llu,"
		       "\"log_blocks\":%llu,\"log_agnum\":%d,\"stripe_unit\":%llu}",
		       p->blocksize, (unsigned long long)(p->agsize_blocks * p->blocksize),
		       (unsigned long long)p->agsize_blocks, (unsigned long long)p->agcount,
		       (unsigned long long)p->agcount_final,
		       (unsigned long long)(p->log_blocks * p->blocksize),
		       (unsigned long long)p->log_blocks, p->log_agnum,
		       (unsigned long long)p->stripe_unit);
	else
		printf(",\"ext4\":{\"blocksize\":%u,\"usage_type\":\"%s\",\"inode_ratio\":%u,"
		       "\"journal_size\":%llu,\"journal_blocks\":%llu,\"resize_blocks\":%llu,"
		       "\"reserved_gdt_blocks\":%u,\"resize_inode\":%s,\"meta_bg\":%s,"
		       "\"64bit\":%s}",
		       p->blocksize, p->usage_type, p->inode_ratio,
		       (unsigned long long)(p->journal_blocks * p->blocksize),
		       (unsigned long long)p->journal_blocks, (unsigned long long)p->resize_blocks,
		       p->reserved_gdt_blocks, p->resize_inode ? "true" : "false",
		       p->meta_bg ? "true" : "false", p->bit64 ? "true" : "false");
}

static void text_hints(const char *device, const struct gh_hints *h)
{
	char s[32], a[32], b[32], c[32];

	gh_format_size(h->size, s, sizeof(s));
	if (h->source == GH_SOURCE_NONE) {
		printf("%s: %s, no growth hint (%s)\n", device, s, h->origin);
		return;
	}
	gh_format_size(h->min, a, sizeof(a));
	gh_format_size(h->max, b, sizeof(b));
	gh_format_size(h->increment, c, sizeof(c));
	printf("%s: %s, may grow to %s in steps of %s, min %s (%s: %s)\n", device, s, b, c, a,
	       gh_source_name(h->source), h->origin);
	printf("min_growth_bytes %llu\nmax_growth_bytes %llu\ngrowth_increment_bytes %llu\n",
	       (unsigned long long)h->min, (unsigned long long)h->max,
	       (unsigned long long)h->increment);
}

static void print_args(const struct gh_argv *args)
{
	int i;

	for (i = 0; i < args->argc; i++)
		printf("%s%s", i ? " " : "", args->argv[i]);
	putchar('\n');
}

/*
 * Run ARGV; its stdout goes to our stderr when QUIET_STDOUT (our stdout is
 * JSON then).  Its exit status, 128 + the signal that killed it (as a shell
 * says), 126 / 127 when it cannot be run.
 */
static int run(char *const *argv, int quiet_stdout)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": cannot fork: %s\n", strerror(errno));
		return 126;
	}
	if (pid == 0) {
		if (quiet_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, PROG ": waiting for %s: %s\n", argv[0], strerror(errno));
			return 126;
		}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, PROG ": %s was killed by signal %d (%s)\n", argv[0],
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 126;
}

static int size_opt(const char *name, const char *val, uint64_t *out)
{
	if (!val) {
		fprintf(stderr, PROG ": %s needs a size\n", name);
		return -1;
	}
	if (gh_parse_size(val, out) < 0) {
		fprintf(stderr, PROG ": %s: bad size \"%s\" (a number with K/M/G/T/P/E suffix)\n",
			name, val);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = NULL, *device = NULL, *type = NULL, *sysfs_root = NULL;
	char dbpath[8192], err[GH_ERR_MAX], devpath[4096];
	struct gh_overrides ov = { 0, 0, 0, 0, 0, 0 };
	struct gh_plan_req req;
	struct gh_config cfg;
	struct gh_hints h;
	struct gh_plan plan;
	struct gh_argv args, cmdv;
	char **extra = NULL;
	const char *env, *prog;
	uint64_t final = 0;
	int json = 0, nextra = 0, i, rc, fallback = 0;
	enum gh_fstype fs = GH_FS_EXT4;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			extra = argv + i + 1;
			nextra = argc - i - 1;
			break;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf(PROG " %s\n", gh_version());
			return 0;
		} else if (!strcmp(a, "--min") || !strcmp(a, "--max") || !strcmp(a, "--increment") ||
			   !strcmp(a, "--final")) {
			uint64_t val;

			if (size_opt(a, v, &val) < 0)
				return 2;
			i++;
			if (!strcmp(a, "--min")) {
				ov.has_min = 1;
				ov.min = val;
			} else if (!strcmp(a, "--max")) {
				ov.has_max = 1;
				ov.max = val;
			} else if (!strcmp(a, "--increment")) {
				ov.has_increment = 1;
				ov.increment = val;
			} else {
				if (!val) {
					fprintf(stderr, PROG ": --final must be larger than 0\n");
					return 2;
				}
				final = val;
			}
		} else if (!strcmp(a, "--sysfs-root")) {
			if (!v) {
				fprintf(stderr, PROG ": --sysfs-root needs a directory\n");
				return 2;
			}
			sysfs_root = v;
			i++;
		} else if (!strcmp(a, "-t") || !strcmp(a, "--type")) {
			if (!v) {
				fprintf(stderr, PROG ": %s needs ext4 or xfs\n", a);
				return 2;
			}
			type = v;
			i++;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, PROG ": unknown option %s (see --help)\n", a);
			return 2;
		} else if (!cmd) {
			cmd = a;
		} else if (!device) {
			device = a;
		} else {
			fprintf(stderr, PROG ": unexpected argument %s (mkfs options go after --)\n", a);
			return 2;
		}
	}
	if (!cmd || !device) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "show") && strcmp(cmd, "mkfs-args") && strcmp(cmd, "mkfs")) {
		fprintf(stderr, PROG ": unknown command %s (show, mkfs-args, mkfs)\n", cmd);
		return 2;
	}
	if (strcmp(cmd, "show")) {
		if (!type) {
			fprintf(stderr, PROG ": %s: %s needs -t ext4 or -t xfs\n", device, cmd);
			return 2;
		}
		if (!strcmp(type, "xfs")) {
			fs = GH_FS_XFS;
		} else if (strcmp(type, "ext4")) {
			fprintf(stderr, PROG ": %s: unsupported filesystem type %s (ext4 or xfs)\n",
				device, type);
			return 2;
		}
	}
	if (nextra && strcmp(cmd, "mkfs")) {
		fprintf(stderr, PROG ": options after -- are for the mkfs command only\n");
		return 2;
	}

	env = getenv("GROWTH_HINTS_DB");
	snprintf(dbpath, sizeof(dbpath), "%s%s%s", env && *env ? env : "", env && *env ? ":" : "",
		 GH_DB_SYSTEM_PATH);
	memset(&cfg, 0, sizeof(cfg));
	cfg.sysfs_root = sysfs_root;
	cfg.db_path = dbpath;
	cfg.builtin_db = gh_builtin_db;

	/* The node mkfs gets: a path as given; a name in the /dev beside sysfs. */
	if (!strcmp(cmd, "mkfs")) {
		struct stat st;

		if (gh_device_path(&cfg, device, devpath, sizeof(devpath)) < 0 ||
		    (!strchr(device, '/') && stat(devpath, &st) < 0)) {
			fprintf(stderr, PROG ": %s: no device node %s%s\n", device, devpath,
				sysfs_root ? " (give a path with --sysfs-root)" : "");
			return 2;
		}
	}

	if (gh_probe(&cfg, device, &h, err, sizeof(err)) < 0 ||
	    gh_apply_overrides(&h, &ov, err, sizeof(err)) < 0) {
		if (strcmp(cmd, "mkfs")) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		/* Provisioning must not break: mkfs with its defaults. */
		fprintf(stderr, PROG ": warning: %s; making the filesystem with mkfs's defaults\n",
			err);
		fallback = 1;
		memset(&h, 0, sizeof(h));
		snprintf(h.origin, sizeof(h.origin), "fallback: %.480s", err);
	}
	if (!strcmp(cmd, "show")) {
		if (json) {
			putchar('{');
			json_hints(device, &h);
			printf("}\n");
		} else {
			text_hints(device, &h);
		}
		return 0;
	}

	memset(&req, 0, sizeof(req));
	req.fs = fs;
	req.size = h.size;
	req.max = h.source == GH_SOURCE_NONE ? 0 : h.max;
	req.final = fallback ? 0 : final;
	req.source = h.source;
	req.io_min = h.io_min;
	req.io_opt = h.io_opt;
	req.physical_block = h.physical_block;
	req.user = extra;
	req.nuser = nextra;
	if (fallback || gh_plan_mkfs(&req, &plan, err, sizeof(err)) < 0) {
		if (!fallback && strcmp(cmd, "mkfs")) {
			fprintf(stderr, PROG ": %s: %s\n", device, err);
			return 1;
		}
		if (!fallback)
			fprintf(stderr, PROG ": warning: %s: %s; making the filesystem with mkfs's defaults\n",
				device, err);
		/* a plan of nothing: the user's options alone */
		memset(&req, 0, sizeof(req));
		req.fs = fs;
		req.size = h.size ? h.size : 1;
		if (gh_plan_mkfs(&req, &plan, err, sizeof(err)) < 0) {
			memset(&plan, 0, sizeof(plan));
			plan.fs = fs;
			plan.usage_type = "";
		}
		snprintf(plan.reason, sizeof(plan.reason), "fallback to mkfs's defaults");
		fallback = 1;
	}
	if (gh_plan_args(&plan, extra, nextra, &args) < 0) {
		fprintf(stderr, PROG ": %s: cannot combine the mkfs options (one is missing its value?)\n",
			device);
		return 2;
	}
	if (!strcmp(cmd, "mkfs-args")) {
		if (json) {
			putchar('{');
			json_hints(device, &h);
			json_plan(&plan, &args);
			printf("}\n");
		} else {
			print_args(&args);
		}
		gh_argv_free(&args);
		return 0;
	}

	/* mkfs: ours (less what the user overrides, -E merged), the user's, the device. */
	env = getenv(fs == GH_FS_XFS ? "GROWTH_MKFS_XFS" : "GROWTH_MKFS_EXT4");
	prog = env && *env ? env : fs == GH_FS_XFS ? "mkfs.xfs" : "mkfs.ext4";
	if (gh_mkfs_argv(&plan, prog, extra, nextra, devpath, &cmdv) < 0) {
		fprintf(stderr, PROG ": %s: cannot combine the mkfs options\n", device);
		gh_argv_free(&args);
		return 2;
	}
	if (!json && fallback) {
		printf(PROG ": %s: mkfs's defaults", device);
	} else if (!json) {
		char a[32], b[32];

		gh_format_size(h.size, a, sizeof(a));
		gh_format_size(plan.final, b, sizeof(b));
		printf(PROG ": %s: %s, %s %s (%s): %s%s%s", device, a,
		       plan.target ? "target" : "max", b, gh_source_name(h.source), plan.reason,
		       args.dropped ? "; your options replace some of ours" : "",
		       cmdv.merged ? "; ours merged into your -E" : "");
	}
	if (!json) {
		printf(": %s", cmdv.argv[0]);
		for (i = 1; i < cmdv.argc; i++)
			printf(" %s", cmdv.argv[i]);
		putchar('\n');
	}
	rc = run(cmdv.argv, json);
	if (json) {
		putchar('{');
		json_hints(device, &h);
		json_plan(&plan, &args);
		printf(",\"fallback\":%s,\"command\":", fallback ? "true" : "false");
		json_strv(cmdv.argv, cmdv.argc);
		printf(",\"status\":%d}\n", rc);
	}
	gh_argv_free(&args);
	gh_argv_free(&cmdv);
	return rc;
}
