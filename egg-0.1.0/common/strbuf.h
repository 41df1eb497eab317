/*
 * strbuf.h -- a growable, always NUL-terminated byte string.
 *
 * Used to build command lines, generated source and JSON-free text output.
 * A strbuf is a plain struct (not opaque) because it lives on the stack of its
 * user; only the strbuf_* verbs touch its fields.
 */
#ifndef EGG_STRBUF_H
#define EGG_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;   /* NUL-terminated; "" (static) until the first append */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT { (char *)"", 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_reset(struct strbuf *sb);
/* Gives the buffer to the caller (free()); the strbuf is empty afterwards. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

#endif
