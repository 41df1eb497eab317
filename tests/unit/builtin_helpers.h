/*
 * builtin_helpers.h -- what the builtin generator's unit tests share: bundles
 * from a compact parameter list, the lifted description (or "not lifted: WHY"),
 * generation, and counting.  Included by one test program each (static; marked
 * unused, since not every program needs every helper).
 */
#ifndef EGG_TESTS_BUILTIN_HELPERS_H
#define EGG_TESTS_BUILTIN_HELPERS_H

#include "builtin/builtin.h"
#include "builtin/lift/lift.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* A bundle from a parameter list "const float *x:in, float *y:out, int n:scalar". */
static __attribute__((unused)) struct egg_bundle *
make_bundle(enum bundle_kind kind, const char *name, const char *params, const char *closure,
            const char *target)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = egg_xstrdup(name);
	b->qualified_name = egg_xstrdup(name);
	b->kind = kind;
	b->signature = egg_xstrdup("");
	b->closure = egg_xstrdup(closure);
	b->target = egg_xstrdup(target);
	b->params = egg_xcalloc(16, sizeof *b->params);
	char *list = egg_xstrdup(params), *save = NULL;
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		char *colon = strchr(tok, ':');
		*colon = '\0';
		char *sp = strrchr(tok, ' ');
		char *pname = sp + 1;
		if (*pname == '*')
			pname++;
		struct bundle_param *p = &b->params[b->n_params++];
		p->name = egg_xstrdup(pname);
		p->type = egg_xstrndup(tok, (size_t)(pname - tok));
		while (p->type[0] && p->type[strlen(p->type) - 1] == ' ')
			p->type[strlen(p->type) - 1] = '\0';
		p->is_pointer = strchr(p->type, '*') != NULL;
		p->is_const = p->is_pointer && egg_str_starts(tok, "const ");
		const char *base = egg_str_starts(tok, "const ") ? tok + 6 : tok;
		p->elem_type = egg_xstrndup(base, strcspn(base, " *"));
		bundle_role_parse(colon + 1, &p->role);
	}
	free(list);
	return b;
}

static __attribute__((unused)) char *
describe(struct egg_bundle *b)
{
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	struct ir_program *p = lift_bundle(b, &why);
	if (p)
		ir_program_describe(p, &out);
	else
		strbuf_addf(&out, "not lifted: %s\n", why.buf);
	ir_program_free(p);
	strbuf_release(&why);
	bundle_free(b);
	return strbuf_detach(&out);
}

#define EXPECT_DESCRIPTION(bundle, text) do { \
	char *d_ = describe(bundle); \
	assert_string_equal(d_, text); \
	free(d_); \
} while (0)

static __attribute__((unused)) struct builtin_output
generate(struct egg_bundle *b)
{
	struct builtin_output o;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(builtin_generate(b, NULL, &o, &err), 0);
	strbuf_release(&err);
	bundle_free(b);
	return o;
}

static __attribute__((unused)) int
count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static __attribute__((unused)) int
builtin_test_setup(void **state)
{
	(void)state;
	const char *src = getenv("EGG_SRCDIR");
	char *dir = egg_xasprintf("%s/builtin/templates", src ? src : ".");
	setenv("EGG_BUILTIN_TEMPLATES", dir, 1);
	free(dir);
	return 0;
}

#endif
