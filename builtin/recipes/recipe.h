/*
 * recipe.h -- the contract between the builtin generator (builtin.c) and its
 * families.  A recipe schedules the stages of one kind; it exposes a small pruned
 * parameter space (points) and emits, for one point, kernels (device text placed
 * before the target) and host statements (the new launcher body), or, for a
 * kernel target, the replacement body.  One family per file; adding a family is
 * a new file and one line in builtin.c's table.
 */
#ifndef EGG_BUILTIN_RECIPE_H
#define EGG_BUILTIN_RECIPE_H

#include "builtin/emit.h"
#include "builtin/lift/ir.h"
#include "common/strbuf.h"

struct recipe_job {
	const struct ir_program *prog;
	const char *prefix;   /* kernel names: PREFIX_kN, unique per candidate */
	unsigned n_kernels;
	unsigned uniq;        /* counter for shared arrays and temporaries */
	struct strbuf *device;
	struct strbuf *host;  /* launcher targets: statements of the new body */
	struct strbuf *body;  /* kernel targets: the replacement definition, header included */
};

struct recipe {
	const char *family;
	enum ir_stage_kind kind;
	size_t n_points;
	void (*label)(size_t point, struct strbuf *out);
	/* Schedules prog->stages[first .. first+n) (a run of stages of this kind). */
	int (*emit)(struct recipe_job *job, size_t first, size_t n, size_t point, struct strbuf *why);
	/* Optional: whether stage k at point overwrites what the memset at stage k - 1
	 * cleared (then that memset is not emitted; the recipe's emit must agree). */
	int (*absorbs)(const struct ir_program *p, size_t k, size_t point);
};

/* A spanning recipe (builtin.c's second table): its points schedule a run of
 * stages of several kinds as one.  spans gives how many stages from first (a
 * stage of base.kind) point takes (0: it does not apply there); base.emit then
 * takes that run.  Its candidates come after the ordinary ones, one per point,
 * with point 0 of the families of the stages it leaves. */
struct span_recipe {
	struct recipe base;
	size_t (*spans)(const struct ir_program *p, size_t first, size_t point);
};

extern const struct recipe recipe_elementwise;
extern const struct recipe recipe_rows;
extern const struct recipe recipe_reduce;
extern const struct recipe recipe_gemm;
extern const struct recipe recipe_transpose;
extern const struct recipe recipe_stencil;
extern const struct recipe recipe_scatter;
extern const struct recipe recipe_scan;
extern const struct span_recipe recipe_persist; /* a reduction and its map */

/* Helpers shared by the recipes (builtin.c). */
char *recipe_kernel_name(struct recipe_job *job);
/* "__global__ void __launch_bounds__(TPB) NAME(params)" */
void recipe_kernel_signature(const struct recipe_job *job, const char *name, int tpb,
                             struct strbuf *out);
/* Host statement launching name over `units` work items, per_block per block,
 * capped at waves * (SMs * 2048 / tpb) blocks (0: no cap). */
void recipe_host_launch(struct recipe_job *job, const char *name, const char *units,
                        long per_block, int tpb, int waves);
/* Opens a host block computing egg_g, the blocks for `units` work items at
 * per_block each, capped at one wave of resident blocks of tpb threads and at
 * max; the caller adds its launches and closes the block with "\t}\n". */
void recipe_host_grid(struct recipe_job *job, const char *units, long per_block, int tpb, long max);
/* -1 with a reason for kernel targets (whose geometry is the caller's), else 0. */
int recipe_needs_launcher(const struct recipe_job *job, const char *family, struct strbuf *why);
/* The fill of a template by name; -1 with why when it cannot be read. */
int recipe_fill(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
                struct strbuf *out, struct strbuf *why);

#endif
