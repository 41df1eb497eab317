/*
 * lift_block_internal.h -- what lift_block.c (the walk over a block-per-row
 * kernel and its rewrite) and lift_block_forms.c (the forms it recognises: tree
 * loops, updates, strided loops, warp folds) share.  Not a contract for other
 * files: lift_block.h is.
 */
#ifndef EGG_BUILTIN_LIFT_BLOCK_INTERNAL_H
#define EGG_BUILTIN_LIFT_BLOCK_INTERNAL_H

#include "builtin/lift/ir.h"
#include "builtin/lift/lift_block.h"

/* What sh holds. */
enum sh_state {
	SH_EMPTY,     /* nothing yet, or its result read and a barrier since */
	SH_FILLED,    /* sh[tid] = acc (or lane 0's sh[warp]); no barrier yet */
	SH_SYNCED,    /* ... and a barrier: the tree may start */
	SH_COMBINED,  /* thread 0 combined the warps' slots; no barrier yet */
	SH_READY,     /* sh[0] is the row's reduction of acc */
	SH_READ,      /* ... read since (a barrier must come before the next fill) */
};

enum local_state { L_FULL, L_PARTIAL, L_WARPED };

struct local {
	const char *name;
	const char *type;
	enum local_state state;
	enum ir_combine op; /* L_PARTIAL, L_WARPED */
	int zero;           /* L_FULL: its value is the literal zero */
};

struct blk {
	const struct ast_unit *u;
	long block;               /* the launch's literal block, or 0 */
	const char *sh, *sh_type;
	const char *row;          /* the name blockIdx.x is read as */
	const char **tids, **bdims, **warps, **lanes, **nwarps;
	size_t n_tids, n_bdims, n_warps, n_lanes, n_nwarps;
	struct local *locals;
	size_t n_locals;
	enum sh_state sh_state;
	const char *holder; /* the local whose reduction sh holds */
	enum ir_combine op;
	int warp;           /* sh holds one slot per warp (the warp fold's form) */
	int holder_dirty;   /* the holder was assigned since sh took its value */
	int trees;
	struct lift_block *t;
	struct strbuf *why;
	int failed;
};

struct slot {
	struct blk *b;
	const char *s; /* the partner's offset from the thread: sh[tid + s] */
	int partner;
};

/* lift_block.c */
void lift_block_refuse(struct blk *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* e (casts aside) is one of the n names in v */
int lift_block_in(const char *const *v, size_t n, const struct ast_expr *e);
/* threadIdx.x or a name for it; blockDim.x, a name for it or the launch's literal block */
int lift_block_is_tid(struct blk *b, const struct ast_expr *e);
int lift_block_is_bdim(struct blk *b, const struct ast_expr *e);

/* lift_block_forms.c */
/* s through blocks of one statement */
const struct ast_stmt *lift_block_only(const struct ast_stmt *s);
/* s is the call fn(...); as a statement */
int lift_block_is_call_stmt(const struct ast_stmt *s, const char *fn);
/* a = a + X, a += X, a = fmaxf(a, X), a = fminf(X, a) ... with is_a(a, arg): 1,
 * the operator and X */
int lift_block_update_of(const struct ast_expr *e, int (*is_a)(const struct ast_expr *, const void *),
                         const void *arg, enum ir_combine *op, const struct ast_expr **x);
/* for lift_block_update_of: e is the name arg; e is the slot struct slot arg */
int lift_block_is_named(const struct ast_expr *e, const void *name);
int lift_block_is_slot(const struct ast_expr *e, const void *arg);
/* X / 2 or X >> 1: X, else NULL */
const struct ast_expr *lift_block_halved(const struct ast_expr *e);
/* the tree loop over sh in one of its forms: its operator, or -1 (refused with
 * a reason when it is the halving form over a block not known to be a power of two) */
int lift_block_tree_loop(struct blk *b, const struct ast_stmt *f);
/* for (int j = tid; j < C; j += blockDim.x) */
int lift_block_is_strided(struct blk *b, const struct ast_stmt *f);
/* the number of warps in the block: blockDim.x / 32, a name for it, the literal */
int lift_block_is_nwarps(struct blk *b, const struct ast_expr *e);
/* thread 0's combine of the warps' slots into sh[0] with b->op */
int lift_block_warp_combine(struct blk *b, const struct ast_stmt *s);
/* name is a __device__ helper folding a warp's lanes with __shfl_xor_sync: its operator */
int lift_block_warp_helper(struct blk *b, const char *name, enum ir_combine *op);

#endif
