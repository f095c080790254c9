// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The user's mkfs options: read the ones the plan depends on, drop plan
 * options the user overrides, merge where mkfs keeps only one (mke2fs -E).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "growth-hints.h"
#include "growth-internal.h"
#include "growth-args.h"

/* Options that take an argument. */
static int takes_arg(enum gh_fstype fs, char c)
{
	const char *with = fs == GH_FS_XFS ? "bcdilLmnprs" : "bCdeEgGiIJlLmMNoOrtTUz";

	return c && strchr(with, c) != NULL;
}

/* Options whose argument is one value, not key[=value],... sub-options. */
static int whole_value(enum gh_fstype fs, char c)
{
	return fs == GH_FS_EXT4 && strchr("bCdeEgGiIlLmMNorTUzJ", c) && c != 'E' && c != 'O' &&
	       c != 'J';
}

int gh__user_opts(enum gh_fstype fs, char *const *user, int nuser, struct gh__uopt *uo, int max)
{
	int n = 0, i;

	for (i = 0; i < nuser; i++) {
		const char *a = user[i], *val = NULL, *s;
		int argi, attached = 0;
		char letter = 0;

		if (!a || a[0] != '-' || !a[1] || a[1] == '-')
			continue;	/* a device, a size or a long option: nothing of ours */
		for (s = a + 1; *s; s++) {
			if (takes_arg(fs, *s)) {
				letter = *s;
				break;
			}
			if (n < max) {
				memset(&uo[n], 0, sizeof(uo[n]));
				uo[n].letter = *s;
				uo[n].argi = i;
				n++;
			}
		}
		if (!letter)
			continue;
		if (s[1]) {
			val = s + 1;
			argi = i;
			attached = (int)(val - a);
		} else if (i + 1 < nuser) {
			val = user[++i];
			argi = i;
		} else {
			return -1;
		}
		if (whole_value(fs, letter)) {
			if (n < max) {
				memset(&uo[n], 0, sizeof(uo[n]));
				uo[n].letter = letter;
				uo[n].val = val;
				uo[n].vlen = strlen(val);
				uo[n].argi = argi;
				uo[n].attached = attached;
				n++;
			}
			continue;
		}
		while (*val) {
			size_t k = strcspn(val, ",="), v;
			int neg = 0;

			if (*val == '^') {
				neg = 1;
				val++;
				k = k ? k - 1 : 0;
			}
			if (n < max) {
				memset(&uo[n], 0, sizeof(uo[n]));
				uo[n].letter = letter;
				uo[n].neg = neg;
				snprintf(uo[n].key, sizeof(uo[n].key), "%.*s", (int)k, val);
				uo[n].argi = argi;
				uo[n].attached = attached;
				if (val[k] == '=') {
					v = strcspn(val + k + 1, ",");
					uo[n].val = val + k + 1;
					uo[n].vlen = v;
				}
				n++;
			}
			val += k;
			val += strcspn(val, ",");
			if (*val == ',')
				val++;
		}
	}
	return n;
}

/* A number with an optional unit: k m g t p e (powers of 1024, either
 * case), and for mkfs.xfs s (512-byte sectors) and b (BLOCK bytes). */
int gh__user_size(const char *s, size_t len, uint64_t block, uint64_t *out)
{
	char buf[64], *end;
	unsigned long long v;
	unsigned shift = 0;
	uint64_t mul = 1;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtoull(buf, &end, 10);
	if (*end) {
		const char *u = strchr("kmgtpe", tolower((unsigned char)*end));

		if (u && *u)
			shift = 10 * (unsigned)(u - "kmgtpe" + 1);
		else if (*end == 's')
			mul = 512;
		else if (*end == 'b' && block)
			mul = block;
		else
			return -1;
		if (end[1])
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	v <<= shift;
	if (mul > 1 && v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int in_reserve_group(char letter, const char *key)
{
	return (letter == 'O' && (!strcmp(key, "meta_bg") || !strcmp(key, "resize_inode"))) ||
	       (letter == 'E' && !strcmp(key, "resize"));
}

/* Does the user's option U make the plan's option O moot? */
static int conflicts(enum gh_fstype fs, const struct gh_opt *o, const struct gh__uopt *u)
{
	const char *key = o->key[0] == '^' ? o->key + 1 : o->key;

	if (o->letter == u->letter && (!strcmp(key, u->key) || !key[0] || !u->key[0]))
		return 1;
	if (fs == GH_FS_XFS) {
		/* the AG geometry: any of these decides it */
		if (o->letter == 'd' && u->letter == 'd' &&
		    (!strcmp(u->key, "agcount") || !strcmp(u->key, "agsize") ||
		     !strcmp(u->key, "concurrency")))
			return 1;
		if (o->letter == 'l' && u->letter == 'l' &&
		    (!strcmp(u->key, "logdev") || !strcmp(u->key, "internal") ||
		     !strcmp(u->key, "concurrency")))
			return 1;
		return 0;
	}
	/* ext4: the inode geometry (-T, -i, -I, -N, -b) comes as one */
	if (strchr("TbIi", o->letter) && strchr("TbIiN", u->letter))
		return 1;
	if (o->letter == 'J' && (u->letter == 'J' ||
				 (u->letter == 'O' && !strcmp(u->key, "has_journal"))))
		return 1;
	if (in_reserve_group(o->letter, key) && in_reserve_group(u->letter, u->key))
		return 1;
	return 0;
}

void gh_argv_free(struct gh_argv *a)
{
	int i;

	if (!a || !a->argv)
		return;
	for (i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}

static int push(struct gh_argv *a, int *cap, const char *s)
{
	char **nv, *d;

	if (a->argc + 2 > *cap) {
		*cap = *cap ? *cap * 2 : 16;
		nv = realloc(a->argv, (size_t)*cap * sizeof(*nv));
		if (!nv)
			return -1;
		a->argv = nv;
	}
	d = strdup(s);
	if (!d)
		return -1;
	a->argv[a->argc++] = d;
	a->argv[a->argc] = NULL;
	return 0;
}

/* The plan's options the user leaves to us: keep[i]. */
static int kept(const struct gh_plan *p, char *const *user, int nuser, int *keep, int *dropped)
{
	struct gh__uopt uo[128];
	int nu, i, j;

	nu = gh__user_opts(p->fs, user, nuser, uo, 128);
	if (nu < 0)
		return -1;
	*dropped = 0;
	for (i = 0; i < p->nopts; i++) {
		keep[i] = 1;
		for (j = 0; j < nu && keep[i]; j++)
			if (conflicts(p->fs, &p->opts[i], &uo[j]))
				keep[i] = 0;
		*dropped += !keep[i];
	}
	return 0;
}

/* One argument per letter, in the plan's order: "-d" "agsize=..,..". */
static int emit_ours(const struct gh_plan *p, const int *keep, char skip, struct gh_argv *out,
		     int *cap)
{
	char arg[512], flag[3] = "-?";
	int i, j;

	for (i = 0; i < p->nopts; i++) {
		size_t len;

		if (!keep[i] || p->opts[i].letter == skip)
			continue;
		for (j = 0; j < i; j++)
			if (keep[j] && p->opts[j].letter == p->opts[i].letter)
				break;
		if (j < i)
			continue;	/* already emitted with an earlier one */
		flag[1] = p->opts[i].letter;
		arg[0] = '\0';
		for (j = i; j < p->nopts; j++) {
			const struct gh_opt *o = &p->opts[j];

			if (!keep[j] || o->letter != p->opts[i].letter)
				continue;
			len = strlen(arg);
			snprintf(arg + len, sizeof(arg) - len, "%s%s%s%s", len ? "," : "", o->key,
				 o->key[0] && o->value[0] ? "=" : "", o->value);
		}
		if (push(out, cap, flag) < 0 || push(out, cap, arg) < 0)
			return -1;
	}
	return 0;
}

int gh_plan_args(const struct gh_plan *p, char *const *user, int nuser, struct gh_argv *out)
{
	int keep[GH_MAX_OPTS], cap = 0;

	memset(out, 0, sizeof(*out));
	if (kept(p, user, nuser, keep, &out->dropped) < 0 ||
	    emit_ours(p, keep, 0, out, &cap) < 0 || (!out->argv && push(out, &cap, "") < 0)) {
		gh_argv_free(out);
		return -1;
	}
	if (out->argc == 1 && !out->argv[0][0]) {
		free(out->argv[0]);
		out->argc = 0;
		out->argv[0] = NULL;
	}
	return 0;
}

/* The plan's -E keys as "k=v,k=v", or "" */
static void our_E(const struct gh_plan *p, const int *keep, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < p->nopts; i++) {
		if (!keep[i] || p->opts[i].letter != 'E')
			continue;
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s%s%s", n ? "," : "", p->opts[i].key,
			 p->opts[i].value[0] ? "=" : "", p->opts[i].value);
	}
}

int gh_mkfs_argv(const struct gh_plan *p, const char *prog, char *const *user, int nuser,
		 const char *device, struct gh_argv *out)
{
	struct gh__uopt uo[128];
	int keep[GH_MAX_OPTS], cap = 0, nu, i, last_E = -1, last_E_at = 0;
	char ours[256], skip = 0;

	memset(out, 0, sizeof(*out));
	nu = gh__user_opts(p->fs, user, nuser, uo, 128);
	if (nu < 0 || kept(p, user, nuser, keep, &out->dropped) < 0)
		return -1;
	/* mke2fs reads only its last -E: ours go into the user's. */
	for (i = 0; i < nu; i++)
		if (uo[i].letter == 'E') {
			last_E = uo[i].argi;
			last_E_at = uo[i].attached;
		}
	our_E(p, keep, ours, sizeof(ours));
	if (p->fs == GH_FS_EXT4 && last_E >= 0 && ours[0]) {
		skip = 'E';
		for (i = 0; i < p->nopts; i++)
			out->merged += keep[i] && p->opts[i].letter == 'E';
	}
	if (push(out, &cap, prog) < 0 || emit_ours(p, keep, skip, out, &cap) < 0)
		goto oom;
	for (i = 0; i < nuser; i++) {
		if (skip && i == last_E) {
			char *m;
			int r;

			r = asprintf(&m, "%.*s%s,%s", last_E_at, user[i], ours, user[i] + last_E_at);
			if (r < 0)
				goto oom;
			r = push(out, &cap, m);
			free(m);
			if (r < 0)
				goto oom;
			continue;
		}
		if (push(out, &cap, user[i]) < 0)
			goto oom;
	}
	if (push(out, &cap, device) < 0)
		goto oom;
	return 0;
oom:
	gh_argv_free(out);
	return -1;
}
