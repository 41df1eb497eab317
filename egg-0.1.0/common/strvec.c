/*
 * strvec.c -- see strvec.h.
 */
#include "config.h"
#include "common/strvec.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

static void
reserve(struct strvec *sv, size_t n)
{
	if (n + 1 <= sv->cap)
		return;
	size_t cap = sv->cap ? sv->cap * 2 : 8;
	while (cap < n + 1)
		cap *= 2;
	sv->v = egg_xrealloc(sv->v, cap * sizeof *sv->v);
	sv->cap = cap;
}

void
strvec_push_owned(struct strvec *sv, char *s)
{
	reserve(sv, sv->n + 1);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, egg_xstrdup(s));
}

void
strvec_pushv(struct strvec *sv, char *const *argv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strvec_push(sv, argv[i]);
}

void
strvec_insert(struct strvec *sv, size_t at, const char *s)
{
	if (at > sv->n)
		at = sv->n;
	reserve(sv, sv->n + 1);
	memmove(sv->v + at + 1, sv->v + at, (sv->n - at + 1) * sizeof *sv->v);
	sv->v[at] = egg_xstrdup(s);
	sv->n++;
}

void
strvec_remove(struct strvec *sv, size_t at)
{
	if (at >= sv->n)
		return;
	free(sv->v[at]);
	memmove(sv->v + at, sv->v + at + 1, (sv->n - at) * sizeof *sv->v);
	sv->n--;
}

char **
strvec_argv(struct strvec *sv)
{
	reserve(sv, sv->n);
	sv->v[sv->n] = NULL;
	return sv->v;
}

void
strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
