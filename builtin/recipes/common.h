/*
 * common.h -- helpers shared by the recipes (recipes/common.c), beyond recipe.h.
 */
#ifndef EGG_BUILTIN_RECIPES_COMMON_H
#define EGG_BUILTIN_RECIPES_COMMON_H

#include "builtin/recipes/recipe.h"

struct stream_spec {
	const char *label;
	const char *sig;            /* the kernel's signature line (or a kernel target's header) */
	const struct ir_expr *n;    /* element count */
	const struct ir_block *body;/* per element, index IR_I */
	int vec, inflight;
	const char *prologue, *epilogue; /* extra code (reductions); NULL: none */
	enum ir_index var;          /* the index the body runs along (IR_I, or IR_COL for a
	                               one-row program's column loop) */
	int atomics;                /* emit_ctx's: accumulations into buffers are atomics */
	const char *atomic_copy;    /* emit_ctx's: the shared copy for a scatter, or NULL */
	int reverse;                /* the vector pass walks the elements from the last one
	                               down (what an earlier pass read last is in the L2) */
	const char *atomic_slot;    /* emit_ctx's: the copy's element for index egg_x, or NULL */
	int approx_tanh;            /* emit_ctx's: tanhf as the hardware's approximation */
};

/* Host block launching name over `units` work items, per_block per block, on at
 * most one wave of resident blocks: the SM count times the blocks of tpb threads
 * the kernel fits per SM (its registers and shared memory, asked once at run
 * time), so a grid-stride kernel has no second, partial wave. */
void recipe_host_launch_wave(struct recipe_job *job, const char *name, const char *units,
                             long per_block, int tpb);

/* Inside a host block that has egg_g (the grid), egg_smem (dynamic shared
 * memory bytes) and int egg_done: the cooperative launch of name on tpb threads
 * with the program's arguments and then extra_args (", egg_hold", or ""), setting
 * egg_done when the launch was taken (its error cleared otherwise). */
void recipe_host_cooperative(struct recipe_job *job, const char *name, int tpb, const char *extra_args);

/* Do two extents count the same elements?  A launch argument computed by the
 * launcher (int n = tokens * hidden) arrives as host text, a kernel's own guard
 * (i < tokens * hidden) as a tree; both are C over the launcher's scalars, so
 * the same text is the same value. */
int recipe_same_extent(const struct ir_expr *a, const struct ir_expr *b);

/* Whether type t (a leading const set aside) is one of the integer types the
 * lifted code spells: int, long long, size_t, int64_t, uint32_t... */
int recipe_integral_type(const char *t);

/* An integer the same in every thread: integer literals and scalar parameters
 * of an integral type under integer arithmetic (i / 2.0f is a float division,
 * and a host expression's type is not known here: both stay as written). */
int recipe_int_invariant(const struct ir_program *p, const struct ir_expr *e);

/* The elements per access of every stream of c where a point asks for want
 * 4-byte lanes (emit_stream_width: vec=4 is a 16-byte access of floats and of
 * eight bf16 alike): the narrowest stream's; want when there are none. */
int recipe_stream_vector(struct emit_ctx *c, int want);
/* The widest V <= want elements that every stream of c has a fixed vector type
 * for (no narrow packs): for code that spells its components itself. */
int recipe_stream_vector_exact(struct emit_ctx *c, int want);
/* The elements one access of a streamed pass over body takes, for its host
 * launch's units: the narrow types' wider vectors (8 bf16 where vec=4 asks 4
 * floats), else want as the point says (a narrower vector, as of doubles, only
 * makes the grid-stride loop go round more often on the one-wave grid). */
int recipe_units_vector(const struct ir_program *p, enum ir_index var, const struct ir_block *body,
                        int want);
/* Appends a kernel from templates/stream.cu. */
int recipe_stream_kernel(struct recipe_job *job, const struct stream_spec *sp, struct strbuf *out,
                         struct strbuf *why);

#endif
