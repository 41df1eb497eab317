/*
 * util.h -- memory helpers and user-facing messages shared by every egg program.
 *
 * Allocation failure is not an input error: the x* helpers print one line and exit,
 * as ccache's x_malloc does.  Everything an input can cause is reported through
 * egg_warn()/egg_error() by the module that found it and returned as a status.
 */
#ifndef EGG_UTIL_H
#define EGG_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Program name used as the prefix of every message ("egg-cc", "egg"). */
void egg_set_progname(const char *name);
const char *egg_progname(void);

/* "PROG: warning: MESSAGE" / "PROG: error: MESSAGE" on stderr, one line. */
void egg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void egg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Returned pointers are owned by the caller (free()). Never NULL. */
void *egg_xmalloc(size_t n);
void *egg_xcalloc(size_t n, size_t size);
void *egg_xrealloc(void *p, size_t n);
char *egg_xstrdup(const char *s);
char *egg_xstrndup(const char *s, size_t n);
char *egg_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *egg_xvasprintf(const char *fmt, va_list ap);

/* String predicates. */
int egg_str_starts(const char *s, const char *prefix);
int egg_str_ends(const char *s, const char *suffix);

#endif
