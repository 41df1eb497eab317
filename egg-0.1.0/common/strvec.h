/*
 * strvec.h -- a NULL-terminated vector of owned strings (argv lists).
 */
#ifndef EGG_STRVEC_H
#define EGG_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;    /* v[n] == NULL once anything was pushed; NULL before */
	size_t n;
	size_t cap;
};

#define STRVEC_INIT { NULL, 0, 0 }

/* Copies s. */
void strvec_push(struct strvec *sv, const char *s);
/* Takes ownership of s. */
void strvec_push_owned(struct strvec *sv, char *s);
void strvec_pushv(struct strvec *sv, char *const *argv, size_t n);
void strvec_insert(struct strvec *sv, size_t at, const char *s);
void strvec_remove(struct strvec *sv, size_t at);
/* A NULL-terminated array valid until the next change; never NULL. */
char **strvec_argv(struct strvec *sv);
void strvec_clear(struct strvec *sv);

#endif
