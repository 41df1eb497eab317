/*
 * lift_internal.h -- what the lifter's files share (lift.c: the environment and
 * the kernel's frame; lift_expr.c: expressions; lift_stmt.c: statements).  Not
 * a contract for other modules: lift.h is.
 */
#ifndef EGG_BUILTIN_LIFT_INTERNAL_H
#define EGG_BUILTIN_LIFT_INTERNAL_H

#include "builtin/lift/lift.h"

enum level { LV_ELEMENT, LV_ROW, LV_COL };

enum bind_kind { B_INDEX, B_LOCAL, B_BUFFER, B_ALIAS, B_SCALAR };

struct binding {
	const char *name;
	enum bind_kind kind;
	enum ir_index idx;     /* B_INDEX */
	char *renamed;         /* B_LOCAL (owned) */
	char *type;            /* B_LOCAL (owned) */
	enum level level;      /* B_LOCAL: where declared */
	const char *buffer;    /* B_BUFFER, B_ALIAS */
	struct ir_expr *expr;  /* B_ALIAS: element offset; B_SCALAR: value (owned) */
};

struct store_rec {
	const char *buffer;
	struct ir_expr *index; /* borrowed from the IR */
	char *local;           /* borrowed */
};

struct ctx {
	struct ir_program *prog;
	const struct ast_unit *unit;
	size_t stage;
	struct binding *env;
	size_t n_env, cap_env;
	struct store_rec *stores;
	size_t n_stores;
	int has_atomic, has_loop; /* has_atomic: how many */
	int has_scatter;          /* an atomic's address depends on the data */
	int has_scan;
	unsigned tmp_counter;
	unsigned copy;            /* an unrolled loop's iteration being lifted (1, 2, ...): locals get
	                           * it in their names; 0 elsewhere */
	unsigned n_copies;
	/* an argmax (argmin) in the column loop being lifted (lift_stmt.c): the loop
	 * is lifted again (pass 1) for the index of the extreme */
	struct {
		int pending, pass, is_max, strict;
		char *value, *index, *itype; /* the locals' lifted names and the index's type (owned) */
		char *found;                 /* pass 1: the local of the matching index (owned) */
	} am;
	struct strbuf *why;
	int failed;
};

void lift_refuse(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct binding *lift_bind(struct ctx *c, const char *name, enum bind_kind kind);
void lift_unbind_to(struct ctx *c, size_t mark);
struct binding *lift_lookup(struct ctx *c, const char *name);

/* lift_expr.c: NULL (and c->failed) when the expression is outside the subset */
struct ir_expr *lift_bin(const char *op, struct ir_expr *a, struct ir_expr *b);
struct ir_expr *lift_expr(struct ctx *c, const struct ast_expr *e);
/* e where C reads it as a truth value (a condition, an operand of !, && or ||):
 * a buffer there is the test that it is not NULL (an optional pointer) */
struct ir_expr *lift_truth(struct ctx *c, const struct ast_expr *e);
/* base[index] as (buffer, element index) with aliases resolved */
struct ir_expr *lift_element(struct ctx *c, const struct ast_expr *base,
                             const struct ast_expr *index, const char **buffer);
/* whether e is a pointer into a buffer: a buffer or alias name, &b[i], or such
 * a pointer plus or minus an offset; lift_pointer gives its buffer and element */
int lift_is_pointer(struct ctx *c, const struct ast_expr *e);
struct ir_expr *lift_pointer(struct ctx *c, const struct ast_expr *e, const char **buffer);
/* a load, or the value stored earlier at the same element */
struct ir_expr *lift_load(struct ctx *c, const struct ast_expr *base, const struct ast_expr *index);

/* lift_stmt.c */
void lift_stmt(struct ctx *c, const struct ast_stmt *s, enum level lv, struct ir_block *out);
/* for (int v = 0; v < B; v++) (or ++v, v += 1): v, with B in *bound; else NULL */
const char *lift_counting_loop(const struct ast_stmt *s, const struct ast_expr **bound);
/* whether s holds only loops of a small fixed window (constant bounds, a few
 * dozen copies of the body in all), unrolled where they stand (lift_stmt.c) */
int lift_window_only(const struct ast_stmt *s);
/* lift_2d.c: a statement list, with stores under conditions on indices as selects;
 * lift_tail for the kernel's last statements (outside loops), where an early
 * return is also read as the else it means */
void lift_stmts(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
                struct ir_block *out);
void lift_tail(struct ctx *c, struct ast_stmt *const *stmts, size_t n, enum level lv,
               struct ir_block *out);

#endif
