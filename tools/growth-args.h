/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The user's mkfs options as the library reads them; not public API. */
#ifndef GROWTH_ARGS_H
#define GROWTH_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "growth-hints.h"
#include "growth-internal.h"

/* One user option: -<letter> [^]key[=val], or -<letter> val (key ""). */
struct gh__uopt {
	char letter;
	int neg;		/* -O ^feature */
	char key[32];
	const char *val;	/* the value (not NUL-terminated at vlen), or NULL */
	size_t vlen;
	int argi;		/* index of the user argument that holds the value */
	int attached;		/* offset of the value in that argument (0: all of it) */
};

/* Split the user's arguments; the number of options or -1 (missing value). */
GH_INTERNAL int gh__user_opts(enum gh_fstype fs, char *const *user, int nuser,
			      struct gh__uopt *uo, int max);

/* A size as mkfs reads it; 0 or -1. */
GH_INTERNAL int gh__user_size(const char *s, size_t len, uint64_t block, uint64_t *out);

#endif /* GROWTH_ARGS_H */
