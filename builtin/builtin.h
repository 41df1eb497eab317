/*
 * builtin.h -- the builtin generator: a bundle in, candidates out, no model.
 *
 * builtin_generate lifts the bundle (lift.h) into the tensor-level description
 * (ir.h), folds maps into the row programs that consume their temp buffers
 * (fuse.h), hands each run of stages to the recipe of its family
 * (recipes/FAMILY.c; a run of maps is fused there) and emits one candidate per
 * point of the recipes' pruned parameter spaces, dropping points whose code
 * repeats an earlier one.  Each candidate is a complete replacement of the target's
 * definition (same name and signature) preceded by the kernels it launches.
 * Code outside the families is "not lifted" (the reason in the description):
 * it gets the generic path's candidates (generic.h: the reference's code with
 * __restrict__, other launch geometries, launch bounds, unrolled loops), and
 * not_lifted is set only when there are none of those either.
 *
 * BUILTIN_VERSION goes into the cache key: change it whenever a recipe, a
 * template or the lifter changes what is generated.
 *
 * Ownership: a struct builtin_output owns its strings and program;
 * builtin_output_release frees them.
 */
#ifndef EGG_BUILTIN_H
#define EGG_BUILTIN_H

#include <stddef.h>

#include "builtin/lift/ir.h"
#include "common/bundle.h"
#include "common/strbuf.h"

#define BUILTIN_VERSION "builtin-35 (parse 2, lift 25, elementwise 7, rows 9, reduce 4, gemm 4, transpose 1, stencil 3, generic 5, scatter 3, scan 2, butterfly 3, refill 3, persist 1, narrow 1)"

struct builtin_candidate {
	char *label;  /* recipe and parameter values, e.g. "elementwise tpb=256 vec=4 inflight=2" */
	char *source; /* kernels + the target's new definition */
};

struct builtin_output {
	struct ir_program *program;  /* NULL when not lifted */
	char *description;           /* ir_program_describe text, or NULL */
	char *not_lifted;            /* the reason, or NULL */
	struct builtin_candidate *candidates;
	size_t n_candidates;
};

struct builtin_options {
	const char *prefix;   /* kernel name prefix; NULL: "egg_" + target name */
	int describe_only;
};

/* Returns 0 (lifted or not: see out->not_lifted), -1 when egg itself is broken
 * (a template cannot be read), with a sentence in err. */
int builtin_generate(const struct egg_bundle *b, const struct builtin_options *opt,
                     struct builtin_output *out, struct strbuf *err);
void builtin_output_release(struct builtin_output *o);

#endif
