/*
 * generic_internal.h -- what the generic path (generic.c) shares with the
 * transformations built on its reading of the code (refill.c): the bundle's
 * text parsed once, the launcher's launches located in that text with their
 * kernels, literal blocks and ceil(X / block) grids, and the kernel copier.
 *
 * Ownership: generic_open fills a struct gen whose parse tree, launches and
 * kernels generic_close frees; text is the caller's and must outlive g.
 */
#ifndef EGG_BUILTIN_GENERIC_INTERNAL_H
#define EGG_BUILTIN_GENERIC_INTERNAL_H

#include <stddef.h>

#include "builtin/parse/parse.h"
#include "common/bundle.h"
#include "common/strbuf.h"

struct glaunch {
	const struct ast_stmt *s;
	const struct ast_function *k;
	size_t name_at, config_at, config_end; /* in the parsed text: kernel name, after "<<<", at ">>>" */
	long block;                            /* the literal block size, or 0 */
	char *grid_x;                          /* X of ceil(X / block) as C text, or NULL */
};

struct gkernel {
	const struct ast_function *k;
	int restrict_ok, geometry_ok, has_loop;
	long block0; /* the block every launch uses, or 0 */
	int *fastdiv;     /* per parameter: passed as egg_div<T> (fastdiv.h) */
	size_t n_fastdiv; /* how many are */
	/* a copy stands in the target's namespace: ns_open/ns_close reopen the ones
	 * below it that k lies in, ns_qual names the copy from the launcher */
	char *ns_open, *ns_close, *ns_qual;
};

struct gen {
	const struct egg_bundle *b;
	const char *text;  /* closure + '\n' + target, as parsed */
	size_t target_at;
	struct ast_unit *u;
	const struct ast_function *f; /* the target, NULL when the code cannot be edited */
	struct glaunch *l;
	size_t n_l;
	struct gkernel *k;
	size_t n_k;
	int geometry_safe; /* nothing in the closure depends on the block's shape */
};

/* Parses b's closure and target (written into text) and reads the launcher's
 * launches; 0, or -1 with a sentence in why and g->f NULL.  Call generic_close
 * either way. */
int generic_open(struct gen *g, const struct egg_bundle *b, struct strbuf *text, struct strbuf *why);
void generic_close(struct gen *g);

/* Kernel k's text under name (NULL: as named) with __launch_bounds__(bounds)
 * when bounds > 0, __restrict__ on its pointers when restrict_ok,
 * "#pragma unroll 4" before its for loops when unroll, and the parameters
 * flagged in fastdiv (NULL: none) passed as egg_div<T>. */
void generic_kernel_text(const struct gen *g, const struct ast_function *k, const char *name,
                         long bounds, int restrict_ok, int unroll, const int *fastdiv,
                         struct strbuf *out);
/* The launch's configuration after its block (", smem[, stream]" as written, up
 * to ">>>"), empty when there is none. */
void generic_config_tail(const struct gen *g, const struct glaunch *l, struct strbuf *out);
/* C text of an expression of numbers, names, calls, casts and operators; -1
 * (out partly written) for another form. */
int generic_print_expr(const struct ast_expr *e, struct strbuf *out);
/* A kernel's own name (a template's, for an instance) and, for an instance, the
 * arguments its launches pass ("<float, 4>"; else ""). */
const char *generic_kernel_name(const struct ast_function *k);
const char *generic_template_args(const struct ast_function *k);
/* Where the qualifier written before the name at NAME in TEXT starts
 * ("detail::k", ":: k"), NAME when there is none. */
const char *generic_qualifier_start(const char *text, const char *name);
/* Is name assigned (=, op=, ++, --) anywhere in s? */
int generic_assigned(const struct ast_stmt *s, const char *name);

#endif
