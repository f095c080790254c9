/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the library's files (and its tests); not public API. */
#ifndef GROWTH_INTERNAL_H
#define GROWTH_INTERNAL_H

#include <stddef.h>

/* Format one line into err (if any); returns -1. */
int gh__fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf through a function (no truncation warnings for paths): 0, or
 * -1 if the result was cut. */
int gh__fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* GROWTH_INTERNAL_H */
