/*
 * lift_launcher.c -- follows a launcher's host code in order: scalar locals
 * (geometry, sizes), kernel launches and zeroing memsets; and the entry point
 * lift_bundle for both kinds of target.
 *
 * Launch geometry is not kept: the recipes choose their own, and the kernel's
 * bounds guard says which domain the launch covers (a reference whose grid does
 * not cover its guard would be incomplete anyway).  Each kernel argument must be
 * a pointer parameter of the launcher (a buffer) or a scalar expression of its
 * scalars and locals, which is substituted as C text.
 */
#include "config.h"

#include "builtin/lift/lift.h"
#include "builtin/lift/lift_block.h"
#include "builtin/lift/lift_inline.h"
#include "builtin/lift/lift_tree.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

struct host_local {
	const char *name;
	char *text; /* NULL: computed by a call (geometry helpers); unusable as an argument */
	const struct ast_expr *dims; /* dim3 NAME(x, y, z): the call, for the grid's extents */
	const char *pointer;         /* T *NAME; waiting for its cudaMalloc: the type T * */
};

struct host {
	struct host_local *locals;
	size_t n;
};

static const struct host_local *
host_lookup_local(const struct host *h, const char *name)
{
	for (size_t i = h->n; i-- > 0;)
		if (strcmp(h->locals[i].name, name) == 0)
			return &h->locals[i];
	return NULL;
}

static const char *
host_lookup(const struct host *h, const char *name)
{
	const struct host_local *l = host_lookup_local(h, name);
	return l ? l->text : NULL;
}

/* Does e use a local the lifter could not express? */
static int
host_uses_unusable(const struct host *h, const struct ast_expr *e)
{
	if (e->kind == AST_NAME) {
		const struct host_local *l = host_lookup_local(h, e->text);
		return l && !l->text;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (host_uses_unusable(h, e->kids[i]))
			return 1;
	return 0;
}

/* 0, NULL, nullptr: the default stream */
static int
is_default_stream(const struct ast_expr *e)
{
	while (e->kind == AST_CAST)
		e = e->kids[0];
	return (e->kind == AST_NUM && strcmp(e->text, "0") == 0) ||
	       (e->kind == AST_NAME && (strcmp(e->text, "NULL") == 0 || strcmp(e->text, "nullptr") == 0 ||
	                                strcmp(e->text, "cudaStreamLegacy") == 0));
}

/* Calls the launcher may make that change no data: error checks, syncs, and
 * wrappers (CUDA_CHECK(...)) around them. */
static int
is_ignorable_call(const struct ast_expr *e)
{
	static const char *const calls[] = { "cudaDeviceSynchronize", "cudaGetLastError",
		                             "cudaPeekAtLastError", NULL };
	if (e->kind != AST_CALL || !e->text)
		return 0;
	for (int i = 0; calls[i]; i++)
		if (strcmp(e->text, calls[i]) == 0)
			return 1;
	if (e->n_kids == 0)
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!is_ignorable_call(e->kids[i]) && e->kids[i]->kind != AST_STR &&
		    e->kids[i]->kind != AST_NUM && e->kids[i]->kind != AST_NAME)
			return 0;
	return is_ignorable_call(e->kids[0]);
}

/* The CUDA call an error-checking wrapper checks: W(cudaMalloc(&p, n)) or
 * W(cudaFree(p), __FILE__, __LINE__), W a function or macro of the user's (not
 * CUDA's own); NULL otherwise. */
static const struct ast_expr *
checked_call(const struct ast_expr *e)
{
	if (e->kind != AST_CALL || !e->text || e->n_kids == 0)
		return NULL;
	const struct ast_expr *k = e->kids[0];
	if (k->kind != AST_CALL || !k->text)
		return NULL;
	for (size_t i = 1; i < e->n_kids; i++)
		if (e->kids[i]->kind != AST_STR && e->kids[i]->kind != AST_NUM && e->kids[i]->kind != AST_NAME)
			return NULL;
	/* (judged as if written bare: refused, if it must be, by its own name); the
	 * wrapper may be named like CUDA's (cudaCheck): CUDA's own that take an error
	 * are no wrappers */
	if (strncmp(k->text, "cuda", 4) == 0 && strcmp(e->text, "cudaGetErrorString") != 0 &&
	    strcmp(e->text, "cudaGetErrorName") != 0)
		return k;
	return checked_call(k);
}

/* cudaGetDevice(&dev), cudaDeviceGetAttribute(&sms, attr, dev),
 * cudaGetDeviceProperties(&prop, dev), cudaOccupancy...(&n, kernel, ...): a query
 * of the device whose only effect is the locals it writes (its first argument, &NAME
 * of a local the launcher declared).  Those become unusable (computed by a call):
 * fine for launch geometry, which the recipes choose themselves, and refused as a
 * kernel argument.  1 when s is one (the locals marked), 0 otherwise. */
static int
device_query(struct host *h, const struct ast_expr *call)
{
	static const char *const queries[] = { "cudaGetDevice", "cudaDeviceGetAttribute", "cudaGetDeviceProperties",
		                               "cudaGetDeviceCount", "cudaFuncGetAttributes",
		                               "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
		                               "cudaOccupancyMaxPotentialBlockSize", NULL };
	int known = 0;
	for (int i = 0; queries[i] && !known; i++)
		known = strcmp(call->text, queries[i]) == 0;
	if (!known || call->n_kids == 0)
		return 0;
	/* the results: the leading &NAME arguments (a block size and a grid size for
	 * cudaOccupancyMaxPotentialBlockSize) */
	size_t n_out = 0;
	for (size_t i = 0; i < call->n_kids; i++) {
		const struct ast_expr *a = call->kids[i];
		if (a->kind != AST_UN || strcmp(a->text, "&") != 0)
			break;
		if (a->kids[0]->kind != AST_NAME || !host_lookup_local(h, a->kids[0]->text))
			return 0;
		n_out++;
	}
	if (n_out == 0)
		return 0;
	for (size_t i = 0; i < n_out; i++) {
		struct host_local *l = (struct host_local *)host_lookup_local(h, call->kids[i]->kids[0]->text);
		free(l->text);
		l->text = NULL;
		l->dims = NULL;
	}
	return 1;
}

/* C text of a host expression, with the launcher's locals substituted. */
static void
host_print(const struct host *h, const struct ast_expr *e, struct strbuf *out)
{
	const char *sub;
	switch (e->kind) {
	case AST_NAME:
		sub = host_lookup(h, e->text);
		strbuf_addstr(out, sub ? sub : e->text);
		return;
	case AST_NUM:
	case AST_STR:
		strbuf_addstr(out, e->text);
		return;
	case AST_MEMBER:
		host_print(h, e->kids[0], out);
		strbuf_addf(out, ".%s", e->text);
		return;
	case AST_INDEX:
		host_print(h, e->kids[0], out);
		strbuf_addch(out, '[');
		host_print(h, e->kids[1], out);
		strbuf_addch(out, ']');
		return;
	case AST_CALL:
		strbuf_addf(out, "%s(", e->text ? e->text : "");
		for (size_t i = 0; i < e->n_kids; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			host_print(h, e->kids[i], out);
		}
		strbuf_addch(out, ')');
		return;
	case AST_UN:
		strbuf_addf(out, "(%s", e->text);
		host_print(h, e->kids[0], out);
		strbuf_addch(out, ')');
		return;
	case AST_CAST:
		strbuf_addf(out, "((%s)", e->text);
		host_print(h, e->kids[0], out);
		strbuf_addch(out, ')');
		return;
	case AST_COND:
		strbuf_addch(out, '(');
		host_print(h, e->kids[0], out);
		strbuf_addstr(out, " ? ");
		host_print(h, e->kids[1], out);
		strbuf_addstr(out, " : ");
		host_print(h, e->kids[2], out);
		strbuf_addch(out, ')');
		return;
	default: /* BIN, and the assignments the caller refuses before printing */
		strbuf_addch(out, '(');
		host_print(h, e->kids[0], out);
		strbuf_addf(out, " %s ", e->text);
		host_print(h, e->kids[e->n_kids - 1], out);
		strbuf_addch(out, ')');
		return;
	}
}

static int
host_is_pure(const struct ast_expr *e)
{
	if (e->kind == AST_ASSIGN || e->kind == AST_POST || e->kind == AST_STR ||
	    (e->kind == AST_UN && (strcmp(e->text, "++") == 0 || strcmp(e->text, "--") == 0)))
		return 0;
	/* min, max and the math functions whose results are exact or correctly rounded
	 * on host and device alike (1.0f / sqrtf(HS): a scale) */
	static const char *const pure[] = { "min", "max", "std::min", "std::max", "sqrtf", "sqrt", "fabsf",
		                            "fabs", "fminf", "fmaxf", "fmin", "fmax", "floorf", "floor", "ceilf",
		                            "ceil", NULL };
	int known = 0;
	for (int i = 0; e->kind == AST_CALL && e->text && pure[i] && !known; i++)
		known = strcmp(e->text, pure[i]) == 0;
	if (e->kind == AST_CALL && !known)
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!host_is_pure(e->kids[i]))
			return 0;
	return 1;
}

/* Extent D (1: y, 2: z) of a launch's grid (dim3 g(x, y, z) declared before,
 * or written in the launch) as C text in the target's names, or NULL. */
static char *
grid_dim_text(const struct host *h, const struct ast_expr *grid, size_t d)
{
	const struct host_local *l = grid->kind == AST_NAME ? host_lookup_local(h, grid->text) : NULL;
	const struct ast_expr *call = l ? l->dims : grid->kind == AST_CALL ? grid : NULL;
	if (!call || call->n_kids <= d || !host_is_pure(call->kids[d]) ||
	    host_uses_unusable(h, call->kids[d]))
		return NULL;
	struct strbuf t = STRBUF_INIT;
	strbuf_addch(&t, '(');
	host_print(h, call->kids[d], &t);
	strbuf_addch(&t, ')');
	return strbuf_detach(&t);
}

static int
launch(struct ir_program *p, const struct ast_unit *u, const struct host *h,
       const struct ast_stmt *s, struct strbuf *why)
{
	const char *name = s->expr->text;
	const struct ast_function *k = ast_find_function(u, name);
	if (!k || !strstr(k->qualifiers, "__global__")) {
		strbuf_addf(why, "launches '%s', which is not a kernel of the closure", name);
		return -1;
	}
	if (k->n_params != s->n_args) {
		strbuf_addf(why, "launches '%s' with %zu arguments for %zu parameters", name,
		            s->n_args, k->n_params);
		return -1;
	}
	if (s->n_config >= 4 && !is_default_stream(s->launch[3])) {
		strbuf_addf(why, "launches '%s' on a stream other than the default one", name);
		return -1;
	}
	struct lift_arg *args = egg_xcalloc(k->n_params + 1, sizeof *args);
	int rc = 0;
	for (size_t i = 0; i < k->n_params && rc == 0; i++) {
		const struct ast_expr *a = s->launch[s->n_config + i];
		while (a->kind == AST_CAST)
			a = a->kids[0];
		args[i].param = k->params[i].name;
		if (strchr(k->params[i].type, '*')) {
			const struct ir_param *bp = a->kind == AST_NAME ? ir_program_param(p, a->text) : NULL;
			if (!bp || !bp->is_pointer) {
				strbuf_addf(why, "argument %zu of '%s' is not a pointer parameter of the "
				            "launcher", i + 1, name);
				rc = -1;
			} else {
				args[i].buffer = bp->name;
			}
		} else if (!host_is_pure(a) || host_uses_unusable(h, a)) {
			strbuf_addf(why, "argument %zu of '%s' has side effects or uses a value computed "
			            "by a call", i + 1, name);
			rc = -1;
		} else {
			struct strbuf t = STRBUF_INIT;
			host_print(h, a, &t);
			if (t.buf[0] != '(' && a->kind != AST_NAME && a->kind != AST_NUM) {
				strbuf_reset(&t);
				strbuf_addch(&t, '(');
				host_print(h, a, &t);
				strbuf_addch(&t, ')');
			}
			args[i].scalar = strbuf_detach(&t);
		}
	}
	char *grid[3] = { NULL, NULL, NULL };
	for (size_t d = 1; d < 3 && rc == 0; d++)
		grid[d] = grid_dim_text(h, s->launch[0], d);
	struct lift_inline inl; /* its helpers' bodies written out where it calls them */
	const struct ast_function *k0 = k;
	if (rc == 0 && lift_inline_helpers(u, k, &inl))
		k = &inl.fn;
	if (rc == 0)
		rc = lift_contract(p, u, k, args, k->n_params, grid, why);
	/* a shared-memory tree reduction: the reduction it computes (over the
	 * grid; or a block per row: the row program) */
	struct lift_tree tree;
	struct lift_block blk;
	const struct ast_function *seen = NULL;
	int rows_from_grid = 0, brc = 0;
	if (rc == 1 && lift_tree_rewrite(k, s->launch[1], &tree))
		seen = &tree.fn;
	else if (rc == 1 && (brc = lift_block_rewrite(u, k, s->launch[1], &blk, why)) == 1)
		seen = &blk.fn, rows_from_grid = 1;
	if (brc < 0)
		rc = -1;
	if (seen) {
		size_t n = k->n_params;
		if (rows_from_grid) { /* one row per block: the grid's x extent */
			const struct ast_expr *g = s->launch[0], *bd = s->launch[1];
			const struct host_local *bl = bd->kind == AST_NAME ? host_lookup_local(h, bd->text) : NULL;
			if (g->kind == AST_CALL || !host_is_pure(g) || host_uses_unusable(h, g)) {
				strbuf_addf(why, "the grid of '%s' (one row per block) is not a scalar", name);
				rc = -1;
			} else if (bd->kind == AST_CALL || (bl && bl->dims)) {
				strbuf_addf(why, "the block of '%s' (one row per block) is not one-dimensional", name);
				rc = -1;
			} else {
				struct strbuf t = STRBUF_INIT; /* a name or number as it is, so that
				                                 * it compares with the other stages' */
				int bare = g->kind == AST_NAME || g->kind == AST_NUM;
				strbuf_addstr(&t, bare ? "" : "(");
				host_print(h, g, &t);
				strbuf_addstr(&t, bare ? "" : ")");
				args[n].param = LIFT_TREE_ROWS;
				args[n++].scalar = strbuf_detach(&t);
			}
		}
		if (rc == 1)
			rc = lift_kernel(p, u, seen, args, n, grid, why);
		free(args[k->n_params].scalar);
		args[k->n_params].scalar = NULL;
	} else if (rc == 1) {
		rc = lift_kernel(p, u, k, args, k->n_params, grid, why);
	}
	if (seen == &tree.fn)
		lift_tree_release(&tree);
	else if (seen)
		lift_block_release(&blk);
	free(grid[1]);
	free(grid[2]);
	for (size_t i = 0; i < k->n_params; i++)
		free(args[i].scalar);
	free(args);
	if (k != k0)
		lift_inline_release(&inl);
	return rc;
}

static int
memset_stage(struct ir_program *p, const struct host *h, const struct ast_expr *call,
             struct strbuf *why)
{
	const struct ast_expr *buf = call->kids[0];
	while (buf->kind == AST_CAST)
		buf = buf->kids[0];
	const struct ir_param *bp = buf->kind == AST_NAME ? ir_program_param(p, buf->text) : NULL;
	if (call->n_kids < 3 || !bp || !bp->is_pointer || call->kids[1]->kind != AST_NUM ||
	    strcmp(call->kids[1]->text, "0") != 0 || !host_is_pure(call->kids[2]) ||
	    host_uses_unusable(h, call->kids[2]) ||
	    (call->n_kids >= 4 && !is_default_stream(call->kids[3]))) {
		strbuf_addstr(why, "a memset that is not zeroing a parameter buffer");
		return -1;
	}
	struct ir_stage st = { .kind = IR_STAGE_MEMSET };
	st.buffer = egg_xstrdup(bp->name);
	struct strbuf t = STRBUF_INIT;
	host_print(h, call->kids[2], &t);
	st.n = ir_expr_new(IR_VAR, t.buf);
	strbuf_release(&t);
	p->stages = egg_xrealloc(p->stages, (p->n_stages + 1) * sizeof *p->stages);
	p->stages[p->n_stages++] = st;
	return 0;
}

/* The factors of a byte count (a product) other than one sizeof(elem) (or
 * sizeof(*dst), sizeof(dst[0])) into f (at most 8): 1 when it is such a product. */
static int
count_factors(const struct ast_expr *e, const char *elem, const char *dst, int *seen,
              const struct ast_expr **f, size_t *n)
{
	while (e->kind == AST_CAST)
		e = e->kids[0];
	if (e->kind == AST_BIN && strcmp(e->text, "*") == 0)
		return count_factors(e->kids[0], elem, dst, seen, f, n) &&
		       count_factors(e->kids[1], elem, dst, seen, f, n);
	if (!*seen && e->kind == AST_NUM) {
		char *a = egg_xasprintf("sizeof(%s)", elem), *b = egg_xasprintf("sizeof(*%s)", dst),
		     *c = egg_xasprintf("sizeof(%s[0])", dst);
		*seen = strcmp(e->text, a) == 0 || strcmp(e->text, b) == 0 || strcmp(e->text, c) == 0;
		free(a);
		free(b);
		free(c);
		if (*seen)
			return 1;
	}
	if (*n == 8)
		return 0;
	f[(*n)++] = e;
	return 1;
}

/* cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToDevice) between two
 * buffers of the target of one element type (a border copied before a kernel
 * that writes the interior): a copy stage (lift_copy.c). */
static int
copy_stage(struct ir_program *p, const struct host *h, const struct ast_expr *call, struct strbuf *why)
{
	const struct ast_expr *arg[2] = { NULL, NULL };
	for (int i = 0; i < 2 && call->n_kids >= 4; i++) {
		arg[i] = call->kids[i];
		while (arg[i]->kind == AST_CAST)
			arg[i] = arg[i]->kids[0];
	}
	const struct ir_param *d = arg[0] && arg[0]->kind == AST_NAME ? ir_program_param(p, arg[0]->text) : NULL;
	const struct ir_param *q = arg[1] && arg[1]->kind == AST_NAME ? ir_program_param(p, arg[1]->text) : NULL;
	const struct ast_expr *kind = call->n_kids >= 4 ? call->kids[3] : NULL;
	int async = strcmp(call->text, "cudaMemcpyAsync") == 0;
	if (!d || !q || !d->is_pointer || !q->is_pointer || d == q || strcmp(d->elem_type, q->elem_type) != 0 ||
	    kind->kind != AST_NAME ||
	    (strcmp(kind->text, "cudaMemcpyDeviceToDevice") != 0 && strcmp(kind->text, "cudaMemcpyDefault") != 0) ||
	    call->n_kids != (size_t)(async ? 5 : 4) || (async && !is_default_stream(call->kids[4]))) {
		strbuf_addstr(why, "the launcher calls cudaMemcpy other than device to device between two of its "
		                   "buffers of one type");
		return -1;
	}
	const struct ast_expr *f[8];
	char *text[8];
	size_t n = 0;
	int seen = 0, ok = count_factors(call->kids[2], d->elem_type, d->name, &seen, f, &n) && seen;
	for (size_t i = 0; ok && i < n; i++)
		ok = host_is_pure(f[i]) && !host_uses_unusable(h, f[i]);
	if (!ok) {
		strbuf_addf(why, "the launcher copies a byte count that is not a count of '%s' times sizeof(%s)",
		            d->name, d->elem_type);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf t = STRBUF_INIT;
		host_print(h, f[i], &t);
		text[i] = strbuf_detach(&t);
	}
	lift_copy_stage(p, call->text, d->name, q->name, text, n);
	for (size_t i = 0; i < n; i++)
		free(text[i]);
	return 0;
}

/* cudaMalloc(&NAME, BYTES) (a cast on the first argument allowed) of a pointer
 * the launcher declared: a buffer of the program, local to the launcher. */
static int
local_buffer(struct ir_program *p, struct host *h, const struct ast_expr *call, struct strbuf *why)
{
	const struct ast_expr *dst = call->n_kids == 2 ? call->kids[0] : NULL;
	while (dst && dst->kind == AST_CAST)
		dst = dst->kids[0];
	const struct host_local *l = NULL;
	if (dst && dst->kind == AST_UN && strcmp(dst->text, "&") == 0 && dst->kids[0]->kind == AST_NAME)
		l = host_lookup_local(h, dst->kids[0]->text);
	if (!l || !l->pointer || ir_program_param(p, l->name)) {
		strbuf_addstr(why, "the launcher calls cudaMalloc other than as 'cudaMalloc(&p, bytes)' of a "
		                   "pointer it declared");
		return -1;
	}
	if (!host_is_pure(call->kids[1]) || host_uses_unusable(h, call->kids[1])) {
		strbuf_addf(why, "the size the launcher allocates for '%s' is computed by a call", l->name);
		return -1;
	}
	char *elem = egg_xstrndup(l->pointer, (size_t)(strrchr(l->pointer, '*') - l->pointer));
	size_t n = strlen(elem);
	while (n > 0 && elem[n - 1] == ' ')
		elem[--n] = '\0';
	struct strbuf ext = STRBUF_INIT;
	strbuf_addstr(&ext, "((");
	host_print(h, call->kids[1], &ext);
	strbuf_addf(&ext, ") / sizeof(%s))", elem);
	p->params = egg_xrealloc(p->params, (p->n_params + 2) * sizeof *p->params);
	struct ir_param *q = &p->params[p->n_params++];
	memset(q + 1, 0, sizeof *q);
	*q = (struct ir_param){ .name = egg_xstrdup(l->name), .type = egg_xasprintf("%s *", elem), .elem_type = elem,
		                .is_pointer = 1, .is_temp = 1, .is_local = 1, .extent = strbuf_detach(&ext) };
	return 0;
}

static int
host_stmt(struct ir_program *p, const struct ast_unit *u, struct host *h,
          const struct ast_stmt *s, int last, struct strbuf *why)
{
	switch (s->kind) {
	case AST_EMPTY:
		return 0;
	case AST_LAUNCH:
		return launch(p, u, h, s, why);
	case AST_DECL:
		for (size_t i = 0; i < s->n_decls; i++) {
			const struct ast_decl *d = &s->decls[i];
			int geometry = d->init && d->init->kind == AST_CALL && d->init->text &&
			               (strcmp(d->init->text, d->name) == 0 || strcmp(d->init->text, "dim3") == 0);
			if (!geometry && d->init && !strchr(d->type, '*') && !host_is_pure(d->init)) {
				/* CEIL_DIV(n, 256) and the like: fine for geometry, never an argument */
				h->locals = egg_xrealloc(h->locals, (h->n + 1) * sizeof *h->locals);
				h->locals[h->n++] = (struct host_local){ d->name, NULL, NULL, NULL };
				continue;
			}
			if (strchr(d->type, '*') && (!d->init || ast_is_null_pointer(d->init)) && !strstr(d->type, "const") &&
			    strchr(d->type, '*') == strrchr(d->type, '*')) {
				/* float *p; for a cudaMalloc to come */
				h->locals = egg_xrealloc(h->locals, (h->n + 1) * sizeof *h->locals);
				h->locals[h->n++] = (struct host_local){ d->name, NULL, NULL, d->type };
				continue;
			}
			if (!strchr(d->type, '*') && !d->init) {
				/* int sms; cudaDeviceProp prop; for a device query to fill
				 * (device_query): unusable as an argument */
				h->locals = egg_xrealloc(h->locals, (h->n + 1) * sizeof *h->locals);
				h->locals[h->n++] = (struct host_local){ d->name, NULL, NULL, NULL };
				continue;
			}
			if (strchr(d->type, '*')) {
				strbuf_addf(why, "the launcher declares '%s', which is not a scalar "
				            "computed from the parameters", d->name);
				return -1;
			}
			struct strbuf t = STRBUF_INIT;
			if (geometry)
				strbuf_addstr(&t, "0"); /* dim3: geometry only, never a kernel argument */
			else if (d->init->kind == AST_NAME || d->init->kind == AST_NUM || d->init->kind == AST_BIN)
				host_print(h, d->init, &t);
			else {
				strbuf_addch(&t, '(');
				host_print(h, d->init, &t);
				strbuf_addch(&t, ')');
			}
			h->locals = egg_xrealloc(h->locals, (h->n + 1) * sizeof *h->locals);
			h->locals[h->n++] = (struct host_local){ d->name, strbuf_detach(&t),
			                                         geometry ? d->init : NULL, NULL };
		}
		return 0;
	case AST_EXPR:
		if (s->expr->kind == AST_CALL && s->expr->text) {
			if (is_ignorable_call(s->expr))
				return 0;
			const struct ast_expr *inner = checked_call(s->expr);
			if (inner) {
				/* CHECK(cudaMalloc(&p, n)): the call it checks */
				struct ast_stmt unwrapped = *s;
				unwrapped.expr = (struct ast_expr *)inner;
				return host_stmt(p, u, h, &unwrapped, last, why);
			}
			const char *f = s->expr->text;
			if (strcmp(f, "cudaMemset") == 0 || strcmp(f, "cudaMemsetAsync") == 0)
				return memset_stage(p, h, s->expr, why);
			if (strcmp(f, "cudaMalloc") == 0)
				return local_buffer(p, h, s->expr, why);
			if (strcmp(f, "cudaMemcpy") == 0 || strcmp(f, "cudaMemcpyAsync") == 0)
				return copy_stage(p, h, s->expr, why);
			if (device_query(h, s->expr))
				return 0; /* its locals serve the geometry only */
			if (strcmp(f, "cudaFree") == 0 && s->expr->n_kids == 1 && s->expr->kids[0]->kind == AST_NAME) {
				const struct ir_param *q = ir_program_param(p, s->expr->kids[0]->text);
				if (q && q->is_local)
					return 0; /* the candidate frees what it allocates */
			}
			strbuf_addf(why, "the launcher calls '%s'", f);
			return -1;
		}
		strbuf_addstr(why, "the launcher has a statement other than launches and memsets");
		return -1;
	case AST_RETURN:
		if (last && !s->expr)
			return 0;
		/* fall through */
	default:
		strbuf_addstr(why, "the launcher has control flow around its launches");
		return -1;
	}
}

int
lift_launcher(struct ir_program *p, const struct ast_unit *u, const struct ast_function *f,
              struct strbuf *why)
{
	struct host h = { 0 };
	int rc = 0;
	for (size_t i = 0; i < f->body->n_body && rc == 0; i++)
		rc = host_stmt(p, u, &h, f->body->body[i], i + 1 == f->body->n_body, why);
	for (size_t i = 0; i < h.n; i++)
		free(h.locals[i].text);
	free(h.locals);
	if (rc == 0 && p->n_stages == 0) {
		strbuf_addstr(why, "the launcher launches no kernel");
		rc = -1;
	}
	return rc;
}

static void
mark_written(struct ir_program *p, const struct ir_block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (s->kind == IR_STORE || (s->kind == IR_ACC && s->into_buffer))
			for (size_t j = 0; j < p->n_params; j++)
				if (strcmp(p->params[j].name, s->name) == 0)
					p->params[j].written = 1;
		if (s->kind == IR_LOOP)
			mark_written(p, &s->body);
	}
}

/* ---- optional buffers (lift_expr.c, "optional pointers") ----
 * A buffer the code tests against NULL is read only where the test holds: in
 * the arm of a select (or the right of && and ||) that its flag decides.  The
 * selects stay selects in every recipe, so no candidate reads it where the
 * reference does not; it is never written, and no contraction streams it. */

/* 1 if cond holds only where flag does (want 1), or only where it does not (0). */
static int
decides(const struct ir_expr *cond, const char *flag, int want)
{
	if (cond->kind == IR_VAR && want)
		return strcmp(cond->text, flag) == 0;
	if (cond->kind == IR_UN && strcmp(cond->text, "!") == 0)
		return !want && cond->kids[0]->kind == IR_VAR && strcmp(cond->kids[0]->text, flag) == 0;
	if (cond->kind == IR_BIN && strcmp(cond->text, "&&") == 0)
		return decides(cond->kids[0], flag, want) || decides(cond->kids[1], flag, want);
	return 0;
}

/* 1 if every load of buffer in e is where flag holds (everywhere, when held) */
static int
reads_guarded(const struct ir_expr *e, const char *buffer, const char *flag, int held)
{
	if (!e)
		return 1;
	if (e->kind == IR_LOAD && strcmp(e->text, buffer) == 0 && !held)
		return 0;
	int and = e->kind == IR_BIN && strcmp(e->text, "&&") == 0;
	int or = e->kind == IR_BIN && strcmp(e->text, "||") == 0;
	for (size_t i = 0; i < e->n_kids; i++) {
		int h = held;
		if (e->kind == IR_COND && i > 0)
			h |= decides(e->kids[0], flag, i == 1);
		if ((and || or) && i == 1)
			h |= decides(e->kids[0], flag, and);
		if (!reads_guarded(e->kids[i], buffer, flag, h))
			return 0;
	}
	return 1;
}

static int
block_reads_guarded(const struct ir_block *b, const char *buffer, const char *flag)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if (!reads_guarded(s->value, buffer, flag, 0) || !reads_guarded(s->index, buffer, flag, 0) ||
		    !reads_guarded(s->bound, buffer, flag, 0) ||
		    (s->kind == IR_LOOP && !block_reads_guarded(&s->body, buffer, flag)))
			return 0;
	}
	return 1;
}

static int
check_optional(const struct ir_program *p, struct strbuf *why)
{
	for (size_t i = 0; i < p->n_params; i++) {
		const struct ir_param *q = &p->params[i];
		if (!q->optional)
			continue;
		char *flag = egg_xasprintf("(%s != nullptr)", q->name);
		/* written: an optional output (lift_stmt.c), never read, stored by maps
		 * and row programs only, whose stores emit.c guards */
		int ok = 1;
		for (size_t k = 0; q->written && ok && k < p->n_stages; k++)
			ok = !ir_block_touches(&p->stages[k].body, q->name, 0) &&
			     (p->stages[k].kind == IR_STAGE_MAP || p->stages[k].kind == IR_STAGE_ROWS ||
			      !ir_block_touches(&p->stages[k].body, q->name, 1));
		for (size_t k = 0; ok && k < p->n_stages; k++) {
			const struct ir_stage *st = &p->stages[k];
			const struct ir_contract *ct = st->contract;
			ok = block_reads_guarded(&st->body, q->name, flag) &&
			     (!ct || (strcmp(ct->a.buffer, q->name) != 0 && strcmp(ct->b.buffer, q->name) != 0 &&
			              reads_guarded(ct->init, q->name, flag, 0)));
		}
		free(flag);
		if (!ok) {
			strbuf_addf(why, "'%s' is tested against NULL but %s", q->name,
			            q->written ? "both written and read, or written by a stage other than a map or "
			                         "a row program" : "also read where the test does not hold");
			return -1;
		}
	}
	return 0;
}

struct ir_program *
lift_bundle(const struct egg_bundle *b, struct strbuf *why)
{
	struct strbuf text = STRBUF_INIT;
	strbuf_addstr(&text, b->closure ? b->closure : "");
	strbuf_addch(&text, '\n');
	size_t target_at = text.len;
	strbuf_addstr(&text, b->target ? b->target : "");
	struct ast_unit *u = parse_unit(text.buf, why);
	if (!u) {
		strbuf_release(&text);
		return NULL;
	}
	const struct ast_function *f = ast_find_function(u, b->name);
	if (!f || f->begin < target_at) {
		strbuf_addf(why, "the target '%s' was not found as a function definition", b->name);
		ast_unit_free(u);
		strbuf_release(&text);
		return NULL;
	}
	struct ir_program *p = egg_xcalloc(1, sizeof *p);
	p->name = egg_xstrdup(b->name);
	p->is_kernel = b->kind == BUNDLE_KERNEL;
	/* from the definition's first token: the target's text may open its namespaces first */
	p->header = egg_xstrndup(text.buf + f->begin, f->body_begin - f->begin);
	p->params = egg_xcalloc(b->n_params + 1, sizeof *p->params);
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *bp = &b->params[i];
		p->params[i].name = egg_xstrdup(bp->name);
		p->params[i].type = egg_xstrdup(bp->type);
		p->params[i].elem_type = egg_xstrdup(bp->elem_type ? bp->elem_type : "float");
		p->params[i].is_pointer = bp->is_pointer;
		p->params[i].is_temp = bp->role == ROLE_TEMP;
		p->params[i].extent = bp->is_pointer && bp->extent ? egg_xstrdup(bp->extent) : NULL;
	}
	p->n_params = b->n_params;
	int rc;
	if (p->is_kernel) {
		struct lift_arg *args = egg_xcalloc(f->n_params + 1, sizeof *args);
		for (size_t i = 0; i < f->n_params; i++) {
			args[i].param = f->params[i].name;
			if (strchr(f->params[i].type, '*'))
				args[i].buffer = f->params[i].name;
			else
				args[i].scalar = egg_xstrdup(f->params[i].name);
		}
		struct lift_inline inl;
		int inlined = lift_inline_helpers(u, f, &inl);
		rc = lift_kernel(p, u, inlined ? &inl.fn : f, args, f->n_params, NULL, why);
		if (inlined)
			lift_inline_release(&inl);
		for (size_t i = 0; i < f->n_params; i++)
			free(args[i].scalar);
		free(args);
	} else {
		rc = lift_launcher(p, u, f, why);
	}
	for (size_t i = 0; i < p->n_stages; i++)
		mark_written(p, &p->stages[i].body);
	if (rc == 0)
		rc = lift_2d(p, why);
	if (rc == 0)
		lift_fold_copies(p);
	if (rc == 0)
		rc = check_optional(p, why);
	ast_unit_free(u);
	strbuf_release(&text);
	if (rc != 0) {
		ir_program_free(p);
		return NULL;
	}
	return p;
}
