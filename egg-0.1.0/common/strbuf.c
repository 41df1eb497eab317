/*
 * strbuf.c -- see strbuf.h.
 */
#include "config.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
strbuf_init(struct strbuf *sb)
{
	sb->buf = (char *)"";
	sb->len = 0;
	sb->cap = 0;
}

static void
grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	if (sb->cap == 0) {
		sb->buf = egg_xmalloc(cap);
		sb->buf[0] = '\0';
	} else {
		sb->buf = egg_xrealloc(sb->buf, cap);
	}
	sb->cap = cap;
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n <= 0)
		return;
	grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_reset(struct strbuf *sb)
{
	if (sb->cap) {
		sb->len = 0;
		sb->buf[0] = '\0';
	}
}

char *
strbuf_detach(struct strbuf *sb)
{
	char *p = sb->cap ? sb->buf : egg_xstrdup("");
	strbuf_init(sb);
	return p;
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	strbuf_init(sb);
}
