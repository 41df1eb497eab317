/*
 * emit.h -- CUDA text from the description: expressions, statement blocks with
 * streamed (vectorized) accesses, group reductions, kernel parameter lists and
 * templates.  Shared by every recipe; a recipe decides the loop structure and
 * fills a template (builtin/templates/NAME.cu, data installed with egg).
 *
 * Ownership: functions append to caller's strbufs; emit_template_load returns a
 * string the caller frees.
 */
#ifndef EGG_BUILTIN_EMIT_H
#define EGG_BUILTIN_EMIT_H

#include "builtin/lift/ir.h"
#include "common/strbuf.h"

/* One streamed access: buffer[inv + VAR] (inv NULL: buffer[VAR]), read or written
 * V consecutive elements at a time through one vector register. */
struct emit_stream {
	const char *buffer;
	const struct ir_expr *inv; /* borrowed */
	int is_store;
	const char *elem_type;
};

struct emit_ctx {
	const struct ir_program *prog;
	enum ir_index var;         /* the index the streams run along (IR_I or IR_COL) */
	const char *index_text[3]; /* C text for IR_I, IR_ROW, IR_COL */
	struct emit_stream *streams;
	size_t n_streams;
	int vec;                   /* V: 1 = scalar registers */
	int component;             /* -1: no stream replacement (scalar code); else k */
	const char *reg_suffix;    /* "[egg_u]" when streams are per-u arrays, else "" */
	const char *component_tail; /* code appended to each component's block, or NULL */
	size_t n_held;             /* streams [0, n_held) already sit in registers: not loaded */
	int lane_index;            /* declare egg_lane = k at the head of component k's block */
	int streaming_stores;      /* vector stores of streams as __stcs (evict-first): output
	                              nobody reads again here leaves the L2 to the inputs */
	int keep_loads;            /* > 0: read-only vector loads with an L2 evict-last policy
	                              for this percentage of lines (egg_ldg_keep): a gather's
	                              rows stay for their next reader */
	int atomics;               /* an IR_ACC into a buffer is its atomic (a scatter), not a partial */
	const char *atomic_copy;   /* with atomics: the shared copy (C text) that takes the indices
	                              in [0, egg_ext); the others go to the buffer, as written */
	const char *atomic_slot;   /* the copy's element for index egg_x (C text); NULL: egg_x */
	const char *load_name;     /* the load registers' name before the stream's number
	                              (NULL: "egg_l") */
	const char *subst_buffer;  /* a load of subst_buffer[subst_index] is the C text subst_text
	                              (a value this kernel computed, not memory), or NULL */
	const struct ir_expr *subst_index;
	const char *subst_text;
	int approx_tanh;           /* tanhf(x) is egg_tanhf_approx(x) (templates/narrow.cu: the
	                              hardware's tanh, relative error 2^-11, a quarter of a bf16
	                              output's rounding): for maps whose every output is narrow */
};

/* Collects the streamed accesses of a block (loads and stores indexed by VAR or
 * inv + VAR with inv free of VAR, of buffers whose element type vectorizes). */
void emit_collect_streams(struct emit_ctx *c, const struct ir_block *b);
void emit_ctx_release(struct emit_ctx *c);

/* Vector type for V elements of type t ("float4"), or NULL when it has none.
 * The narrow float types (__nv_bfloat16, __half: emit_narrow) have packs of 2,
 * 4 or 8 ("egg_pack<__nv_bfloat16, 8>", templates/narrow.cu: elements .e[k]),
 * which move through memory as one word of their size (uint4 for 8). */
const char *emit_vector_type(const char *t, int v);
/* The widest vector of t by its fixed types (4 floats, 2 doubles); 1 for the rest,
 * the narrow types included (their packs are for emit_stream_width's callers). */
int emit_max_vector(const char *t);
int emit_narrow(const char *t);
/* The elements of t per access where a point asks for want 4-byte lanes (vec=4:
 * 16 bytes): want for float and int, up to 2 doubles, twice want (up to 8) for
 * the narrow types. */
int emit_stream_width(const char *t, int want);
/* ".x" or ".e[3]": component k of a vector of v elements of t (nothing for v 1). */
void emit_component(const char *t, int v, int k, struct strbuf *out);
/* The load of a vector of v elements of t at addr (C text of a pointer to t):
 * through __ldg when ldg, with the L2 evict-last policy of egg_ldg_keep for keep
 * percent of the lines when keep > 0, else a plain load; a pack through its word. */
void emit_vector_load(const char *t, int v, int ldg, int keep, const char *addr, struct strbuf *out);
/* The store of value (a vector register) at addr; __stcs when streaming. */
void emit_vector_store(const char *t, int v, int streaming, const char *addr, const char *value,
                       struct strbuf *out);

void emit_expr(const struct emit_ctx *c, const struct ir_expr *e, struct strbuf *out);
/* Statements (LET, ASSIGN, STORE, ACC as egg_p_NAME = combine(...), or as the atomic
 * under c->atomics); LOOP is refused. */
void emit_block(const struct emit_ctx *c, const struct ir_block *b, const char *indent,
                struct strbuf *out);

/* The alignment test of every stream at element offset base_text (C text). */
void emit_aligned_test(const struct emit_ctx *c, const char *base_text, struct strbuf *out);
/* Declarations and vector loads of the streams at element base_text. */
void emit_stream_loads(const struct emit_ctx *c, const char *base_text, const char *indent,
                       struct strbuf *out);
void emit_stream_stores(const struct emit_ctx *c, const char *base_text, const char *indent,
                        struct strbuf *out);
/* The body once per component k of V, with the streams replaced (index = base + k). */
void emit_components(struct emit_ctx *c, const struct ir_block *b, const char *base_text,
                     const char *indent, struct strbuf *out);

/* Combine text and identity for an accumulator. */
void emit_combine(const struct ir_stmt *acc, const char *a, const char *b, struct strbuf *out);
const char *emit_identity(enum ir_combine op, const char *type);
/* "atomicAdd", "atomicMax" or "atomicMin" for acc's combine. */
const char *emit_atomic_name(const struct ir_stmt *acc);
/* v = reduction of v over a group of g threads (g a power of two <= 1024, lane =
 * threadIdx.x % g, groups of g > 32 span the whole block). */
void emit_group_reduce(const struct ir_stmt *acc, const char *v, int g, const char *indent,
                       unsigned uniq, struct strbuf *out);

/* "const float *__restrict__ x, float *__restrict__ y, int n" from the params. */
void emit_kernel_params(const struct ir_program *p, struct strbuf *out);
void emit_kernel_args(const struct ir_program *p, struct strbuf *out);

/* Templates: EGG_BUILTIN_TEMPLATES or $(pkgdatadir)/templates; NULL with err set. */
char *emit_template_load(const char *name, struct strbuf *err);
/* Appends tmpl with each @KEY@ replaced by its value (keys[i], vals[i]); an unknown
 * @KEY@ is an invariant violation (templates ship with the code). */
void emit_template_fill(const char *tmpl, const char *const *keys, const char *const *vals,
                        size_t n, struct strbuf *out);

#endif
