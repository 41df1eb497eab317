/*
 * util.c -- see util.h.
 */
#include "config.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "egg";

void
egg_set_progname(const char *name)
{
	progname = name;
}

const char *
egg_progname(void)
{
	return progname;
}

static void
vmessage(const char *kind, const char *fmt, va_list ap)
{
	/* One write, so that lines from parallel builds do not interleave. */
	char buf[4096];
	int n = snprintf(buf, sizeof buf, "%s: %s: ", progname, kind);
	if (n < 0)
		return;
	if ((size_t)n < sizeof buf)
		n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	if ((size_t)n >= sizeof buf - 1)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stderr);
	fflush(stderr);
}

void
egg_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning", fmt, ap);
	va_end(ap);
}

void
egg_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("error", fmt, ap);
	va_end(ap);
}

static void
oom(size_t n)
{
	fprintf(stderr, "%s: error: out of memory allocating %zu bytes\n", progname, n);
	exit(70);
}

void *
egg_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *
egg_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *
egg_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *
egg_xstrdup(const char *s)
{
	return egg_xstrndup(s, strlen(s));
}

char *
egg_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = egg_xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
egg_xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	char *p = egg_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
egg_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = egg_xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

int
egg_str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
egg_str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}
