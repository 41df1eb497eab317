/*
 * ir.h -- the builtin generator's tensor-level description of a bundle.
 *
 * The lifter (lift.c, lift_launcher.c) turns the closure + target of a bundle into
 * an ir_program: an ordered list of stages, one per kernel launch (or host step),
 * whose expressions are written in the *launcher's* names (kernel parameters are
 * replaced by the launch arguments), so that the recipes can fuse and re-launch
 * stages freely.  The recipes (recipes/FAMILY.c) read it; nothing in it names a
 * kernel's purpose: a softmax is a ROWS stage whose column loops hold a max and a
 * sum accumulator, never "softmax".
 *
 * Stages:
 *   IR_STAGE_MAP     for every i in [0, n): body (lets, stores).  Index variable I.
 *   IR_STAGE_ROWS    for every row in [0, n): body at row level (lets, assigns,
 *                    stores, accumulator inits) with IR_LOOP statements over
 *                    col in [0, loop->bound) whose bodies hold lets, stores and
 *                    accumulator updates (IR_ACC of an outer local).  Index
 *                    variables ROW and COL.  A loop written from S runs col in
 *                    [0, B - S) with its index S + col; a single-thread kernel
 *                    is a row program with n = 1.
 *   IR_STAGE_REDUCE  for every i in [0, n): body (lets) and one IR_ACC into a
 *                    buffer element whose index does not depend on i (the
 *                    naive atomicAdd(out, f(x[i])) full reduction).
 *   IR_STAGE_SCATTER for every i in [0, n): body (lets) and exactly one IR_ACC into
 *                    a buffer element whose index depends on loaded data and on i
 *                    only through loads (the histogram atomicAdd(&bins[keys[i]], 1));
 *                    the destination's extent (its ir_param's extent) bounds the
 *                    index.  An index that is a function of i alone is refused
 *                    (a map's work), and so are stores next to the atomic.
 *   IR_STAGE_MEMSET  host memset of a buffer (name) to zero bytes, count in n.
 *   IR_STAGE_SCAN    a ROWS stage (same body) with one column loop marked scan:
 *                    its body reads the accumulator it updates (its one IR_ACC),
 *                    so every statement sees the running value at its column:
 *                    statements after the ACC the inclusive prefix, before it
 *                    the exclusive one.  The ACC's value never depends on the
 *                    accumulator (that would be a recurrence, not lifted), so
 *                    the loop is an associative scan the recipe may reorder.
 *
 *   IR_STAGE_TRANSPOSE, IR_STAGE_STENCIL
 *                    2-D maps: for every (row, col) of dims[0] x dims[1]: body
 *                    (lets, stores) with index variables ROW and COL; what
 *                    makes them one or the other is the shape of their indices
 *                    (affine.h classifies them).
 *
 * Branches do not appear: if/else around single assignments is lifted as IR_COND
 * (a select); anything else is not lifted.  2-D maps are MAPs over rows * cols
 * with r * cols + c folded back to i.
 *
 * Adding a family (transpose, gather, stencil, GEMM) means a new stage kind or a
 * new shape of ROWS body plus a new recipes/FAMILY.c; existing recipes ignore
 * stages they do not know (they decline the program).
 *
 * Ownership: an ir_program owns everything it points to; ir_program_free().
 */
#ifndef EGG_BUILTIN_IR_H
#define EGG_BUILTIN_IR_H

#include <stddef.h>

#include "common/strbuf.h"

enum ir_expr_kind {
	IR_NUM,   /* text: the literal as written */
	IR_VAR,   /* text: a scalar (launcher parameter or host expression, parenthesized) */
	IR_LOCAL, /* text: a local of the lifted code (renamed unique per stage) */
	IR_IDX,   /* idx: IR_I, IR_ROW or IR_COL */
	IR_LOAD,  /* text: buffer; kids[0]: element index */
	IR_UN,    /* text: operator ("-", "!", "~"); kids[0] */
	IR_BIN,   /* text: operator; kids[0], kids[1] */
	IR_CALL,  /* text: function; kids: arguments (a math function, a pure device function
	           * of the closure, or a conversion intrinsic: ir_conversion_type) */
	IR_COND,  /* kids[0] ? kids[1] : kids[2] */
	IR_CAST,  /* text: type; kids[0] */
};

enum ir_index { IR_I, IR_ROW, IR_COL };

struct ir_expr {
	enum ir_expr_kind kind;
	char *text;
	enum ir_index idx;
	struct ir_expr **kids;
	size_t n_kids;
};

enum ir_stmt_kind {
	IR_LET,    /* type name = value (a new local) */
	IR_ASSIGN, /* name = value (an existing local) */
	IR_STORE,  /* name[index] = value (a buffer) */
	IR_ACC,    /* name = combine(name, value): an outer local (in a loop) or a buffer element */
	IR_LOOP,   /* for col in [0, bound): body (ROWS stages only) */
};

enum ir_combine { IR_SUM, IR_MAX, IR_MIN, IR_PROD };

struct ir_block {
	struct ir_stmt **stmts;
	size_t n;
};

struct ir_stmt {
	enum ir_stmt_kind kind;
	char *name;
	char *type;            /* LET: declared type; ACC: the accumulator's type */
	struct ir_expr *index; /* STORE, ACC into a buffer */
	struct ir_expr *value; /* LET, ASSIGN, STORE, ACC */
	enum ir_combine combine;
	char *combine_fn;      /* ACC: "+" or the function spelled in the source ("fmaxf") */
	int into_buffer;       /* ACC: name is a buffer (atomics), else a local */
	struct ir_expr *bound; /* LOOP */
	struct ir_block body;  /* LOOP */
	int scan;              /* LOOP: its statements read its accumulator's running value */
};

enum ir_stage_kind { IR_STAGE_MAP, IR_STAGE_ROWS, IR_STAGE_REDUCE, IR_STAGE_MEMSET,
	IR_STAGE_CONTRACT,  /* a dense contraction (below) */
	/* 2-D stages (lift_2d.c): for every (row, col) in [0, dims[0]) x [0, dims[1]) */
	IR_STAGE_TRANSPOSE, /* some access is at col * rows + row (the other layout) */
	IR_STAGE_STENCIL,   /* a buffer read at constant (row, col) offsets around the element */
	IR_STAGE_SCATTER,   /* atomics to data-dependent elements (a histogram): above */
	IR_STAGE_SCAN,      /* a ROWS stage whose column loop is a prefix scan (below) */
};

/* IR_STAGE_CONTRACT (lift_contract.c, recipes/gemm.c): a dense contraction.  For
 * every batch I in [0, batch), ROW in [0, m), COL in [0, n):
 *     acc = init;  for k in [0, k): acc += a[elem(a)] * b[elem(b)];  then body
 * with elem(a) = off + I * batch_stride + ROW * outer + k * inner (b: COL for ROW).
 * The stage's body is the epilogue, run once per output with the accumulator as
 * the local named acc (stores, scaling, bias, activation, residual).  A stride
 * or offset that is NULL is zero; a stride that is the number 1 is contiguous.
 *
 * Two nested loops (for ko in [0, K / kin): for ki in [0, kin)) are one k in
 * [0, K) with ko = k / kin, ki = k % kin.  An operand whose offset is ko * kin * s
 * + ki * s has the stride s in k like any other; one with other strides (a
 * convolution's input, ko * L + ki) is split: its offset in k is
 * (k / kin) * kouter + (k % kin) * inner. */
struct ir_operand {
	char *buffer;
	struct ir_expr *off, *batch_stride, *outer, *inner;
	int split;              /* k's offset is (k / kin) * kouter + (k % kin) * inner */
	struct ir_expr *kouter; /* split: NULL is zero */
};

struct ir_contract {
	struct ir_expr *batch, *m, *n, *k; /* batch NULL: one */
	struct ir_expr *kin;               /* the inner loop's trip count; NULL: one loop */
	struct ir_operand a, b;
	char *acc, *acc_type;
	struct ir_expr *init;
};

struct ir_stage {
	enum ir_stage_kind kind;
	char *kernel;      /* the launched kernel's name (for messages only) */
	struct ir_expr *n; /* domain size (MAP, REDUCE: elements; ROWS: rows); MEMSET: bytes */
	char *buffer;      /* MEMSET: the buffer */
	struct ir_block body;
	struct ir_contract *contract; /* CONTRACT: the contraction (body: its epilogue) */
	struct ir_expr *dims[2]; /* 2-D stages: rows, cols (n = rows * cols); else NULL */
};

/* A buffer or scalar the program touches: a parameter of the target. */
struct ir_param {
	char *name;
	char *type;      /* as declared */
	char *elem_type; /* pointee or scalar type */
	int is_pointer;
	int is_temp;     /* role temp: its contents after the call do not matter */
	int written;     /* some stage stores into it */
	int is_local;    /* not the target's: a buffer its launcher allocates (cudaMalloc)
	                  * and frees; a temp whose extent is the allocation's */
	char *extent;    /* pointers: the bundle's element count in the target's names, or NULL */
	int optional;    /* read only where it is not NULL: the code tests it (IR_VAR
	                  * "(NAME != nullptr)", the same for every thread) and reads
	                  * it only in a select's arm under that test; never streamed.
	                  * Or, written, an optional output ("if (mean) mean[i] = m;"):
	                  * never read, stored by maps and row programs only, each
	                  * store emitted under "if (NAME != nullptr)" */
};

struct ir_program {
	int is_kernel;   /* the target is a __global__ kernel (body replacement only) */
	int precision;   /* the bundle's precision clause (enum bundle_precision): 0 is the types' own */
	int weak;        /* lifted through a shape the recipes seldom make faster (an unrolled or
	                  * collapsed loop nest, a 2-D thread index around loops): the generic
	                  * path's candidates compete too */
	char *header;    /* the target's text up to its body's '{' */
	char *name;
	struct ir_param *params;
	size_t n_params;
	struct ir_stage *stages;
	size_t n_stages;
};

/* Constructors (never fail: allocation failure aborts in egg_x*). */
struct ir_expr *ir_expr_new(enum ir_expr_kind kind, const char *text);
void ir_expr_add(struct ir_expr *e, struct ir_expr *kid);
struct ir_expr *ir_expr_copy(const struct ir_expr *e);
void ir_expr_free(struct ir_expr *e);
struct ir_stmt *ir_stmt_new(enum ir_stmt_kind kind);
void ir_block_add(struct ir_block *b, struct ir_stmt *s);
void ir_block_free(struct ir_block *b);
void ir_program_free(struct ir_program *p);

/* Structural equality; does expression e mention index idx / buffer-load of name? */
int ir_expr_equal(const struct ir_expr *a, const struct ir_expr *b);
/* The same integer value with the casts to integer types at any level set aside
 * (((long long)row) * hw and row * hw): index expressions written by two kernels
 * of one launcher, which differ only where the reference would overflow. */
int ir_expr_equal_index(const struct ir_expr *a, const struct ir_expr *b);
int ir_expr_uses_index(const struct ir_expr *e, enum ir_index idx);
int ir_expr_loads(const struct ir_expr *e, const char *buffer);
int ir_expr_has_load(const struct ir_expr *e);
int ir_expr_reads_local(const struct ir_expr *e, const char *name);
int ir_expr_has_local(const struct ir_expr *e);
/* e with the locals LET among b's first upto statements replaced by their values
 * (an owned copy; a let's value by the lets before it); a local assigned after
 * its let stays a local */
struct ir_expr *ir_expr_inline_lets(const struct ir_expr *e, const struct ir_block *b, size_t upto);
/* Whether a statement of b or of its loops stores into buffer (stores) or loads
 * it (!stores). */
int ir_block_touches(const struct ir_block *b, const char *buffer, int stores);
/* e seen through its casts to integer types ((int), (size_t), (long long)...). */
const struct ir_expr *ir_expr_int_uncast(const struct ir_expr *e);
/* Every load of buffer in e is at element ix (or e does not load buffer). */
int ir_expr_loads_only_at(const struct ir_expr *e, const char *buffer, const struct ir_expr *ix);

/* The factors of a product e (integer casts seen through) appended to f, at most
 * cap in all; 0 when more.  Whether the factors a (na) and b (nb) are the same
 * multiset (at most 16). */
int ir_expr_factors(const struct ir_expr *e, const struct ir_expr **f, size_t *n, size_t cap);
int ir_expr_same_factors(const struct ir_expr *const *a, size_t na, const struct ir_expr *const *b, size_t nb);

/* C text of e with indices spelled I/ROW/COL as "i", "row", "col" (the description). */
void ir_expr_print(const struct ir_expr *e, struct strbuf *out);

/* The same printer for code generation: index spellings, and a leaf hook that may
 * print a node itself (returns 1) or leave it to the printer (returns 0). */
struct ir_print_hooks {
	const char *index_text[3];
	int (*leaf)(void *ctx, const struct ir_expr *e, struct strbuf *out);
	void *ctx;
};
void ir_expr_print_with(const struct ir_expr *e, const struct ir_print_hooks *h, struct strbuf *out);

/* The human-readable description (one line per stage and statement); the lifting
 * tests compare it verbatim. */
void ir_program_describe(const struct ir_program *p, struct strbuf *out);

/* ir_contract.c */
void ir_contract_free(struct ir_contract *c);
void ir_contract_describe(const struct ir_contract *c, struct strbuf *out);

/* The type a CUDA conversion intrinsic returns (__float2bfloat16 and _rn/_rz/...:
 * "__nv_bfloat16"; __half2float: "float"; __float2int_rz: "int"; the bit casts
 * __float_as_int...), or NULL when fn is none.  A conversion is an IR_CALL kept as
 * spelled (its rounding mode, and a build that disables the types' implicit
 * conversions), typed by this table: one value in, one value out, no memory. */
const char *ir_conversion_type(const char *fn);

const struct ir_param *ir_program_param(const struct ir_program *p, const char *name);
/* The stage's one accumulation into a buffer element, or NULL (none, or several). */
const struct ir_stmt *ir_stage_buffer_acc(const struct ir_stage *st);

#endif
