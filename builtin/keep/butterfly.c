/*
 * butterfly.c -- the butterfly path (butterfly.h): runs of launches of a
 * compare-exchange style kernel fused into one shared-memory launch.
 *
 * The shape, found by structure (never by name):
 *   - the launcher launches one __global__ kernel K of the closure, every launch
 *     K<<<grid, block>>>(args) with the same buffer argument: a writable pointer
 *     parameter of the target whose extent the clauses give (its element count);
 *   - K's first statement declares i = blockIdx.x * blockDim.x + threadIdx.x, and
 *     K touches one pointer parameter (the buffer) only as buffer[i] or
 *     buffer[i ^ E] (directly or through a local partner = i ^ E), E one
 *     expression of K's scalar parameters and numbers (no load, no call), i and
 *     the partner never reassigned, the element's address never taken; K's other
 *     pointer parameters are not used; nothing in the closure uses shared memory,
 *     barriers or warp-level operations;
 *   - the launches sit in one stretch of the launcher's statements made only of
 *     launches and loops whose control is scalar arithmetic (no call, no load): the
 *     statements before it run before any launch is held back, and the queue is
 *     flushed right after it, so nothing else can see a launch's effect late.
 *
 * Why it is exact: a launch of K runs the body once for every i below
 * grid * block, each thread independently (the original is correct only if the
 * threads of one launch do not race); the body of element i touches only i and
 * i ^ E.  When 0 <= E < TILE (a power of two), i ^ E differs from i only in the
 * low bits, so it lies in i's aligned tile of TILE elements.  A run of launches
 * is therefore applied tile by tile: load the tile (its elements inside the
 * buffer's extent) into shared memory, run each launch's body for every element
 * it covers -- with the very blockIdx, threadIdx, blockDim and gridDim that
 * element had -- with a barrier between launches, store the tile.  The body is
 * the original text in a __device__ function whose buffer parameter is a tile
 * view (buffer[x] is the shared element x - base).  The host evaluates E for
 * each launch: a launch with E outside [0, TILE), a grid or block that is not
 * 1-D, or another buffer flushes the queue (one fused launch) and runs as
 * written through a copy of K.
 *
 * A scalar parameter the body divides by (i % seg) reaches the body as
 * egg_div<T> (fastdiv.h): each queued step carries its divisor prepared on the
 * host, a shift and mask for a power of two, a multiply for another value; the
 * first point comes once more with the division as written.
 *
 * The points: TILE in {1024, 2048, 4096} by threads per block in {256, 512,
 * 1024}.  The reference always competes in the harness.
 */
#include "config.h"

#include "builtin/keep/butterfly.h"
#include "builtin/emit.h"
#include "builtin/keep/fastdiv.h"
#include "builtin/keep/generic.h"
#include "builtin/parse/parse.h"
#include "common/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int tiles[] = { 1024, 2048, 4096 };
static const int threads[] = { 256, 512, 1024 };
#define N_TILES (sizeof tiles / sizeof *tiles)
#define N_TPB (sizeof threads / sizeof *threads)

struct bf {
	const struct egg_bundle *b;
	const char *text; /* closure + '\n' + target, as parsed */
	size_t target_at;
	const struct ast_unit *u;
	const struct ast_function *f; /* the launcher */
	const struct ast_function *k; /* the kernel it launches */
	size_t buf;                   /* the buffer's position among k's parameters */
	const char *index;            /* i */
	const char *partner;          /* the local holding i ^ E, or NULL */
	const struct ast_expr *offset; /* E */
	const struct ast_stmt **l;    /* the launches */
	size_t n_l;
	const char *extent;           /* the buffer's element count (the clause's text) */
	size_t first, last;           /* the launcher's statements holding the launches */
};

/* ---- expressions ---- */

/* builtin.x */
static const struct ast_decl *
param_of(const struct ast_function *k, const char *name)
{
	for (size_t i = 0; i < k->n_params; i++)
		if (strcmp(k->params[i].name, name) == 0)
			return &k->params[i];
	return NULL;
}

static int
assigns_fn(const struct ast_expr *e, void *name)
{
	return ast_assigns(e, name);
}

/* How many declarations of name s holds (itself and below). */
static size_t
count_decls(const struct ast_stmt *s, const char *name)
{
	if (!s)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < s->n_decls; i++)
		n += strcmp(s->decls[i].name, name) == 0;
	for (size_t i = 0; i < s->n_body; i++)
		n += count_decls(s->body[i], name);
	return n + count_decls(s->init, name) + count_decls(s->then, name) +
	       count_decls(s->otherwise, name);
}

/* ---- the kernel ---- */

/* E: numbers and k's scalar parameters the body never assigns, under operators */
static int
host_offset(const struct bf *g, const struct ast_expr *e, struct strbuf *why)
{
	switch (e->kind) {
	case AST_NUM:
		return 1;
	case AST_NAME: {
		const struct ast_decl *p = param_of(g->k, e->text);
		if (!p || strchr(p->type, '*') || count_decls(g->k->body, e->text) > 0 ||
		    ast_walk_exprs(g->k->body, assigns_fn, e->text)) {
			strbuf_addf(why, "the partner offset uses '%s', which is not an unchanged scalar "
			            "parameter of '%s'", e->text, g->k->name);
			return 0;
		}
		return 1;
	}
	case AST_UN:
		if (strcmp(e->text, "*") == 0 || strcmp(e->text, "&") == 0 || strcmp(e->text, "++") == 0 ||
		    strcmp(e->text, "--") == 0)
			break;
		/* fall through */
	case AST_BIN:
	case AST_COND:
	case AST_CAST:
		for (size_t i = 0; i < e->n_kids; i++)
			if (!host_offset(g, e->kids[i], why))
				return 0;
		return 1;
	default:
		break;
	}
	if (!why->len)
		strbuf_addf(why, "the partner offset of '%s' reads memory or calls a function, so the "
		            "host cannot know it", g->k->name);
	return 0;
}

/* i ^ E or E ^ i: E, else NULL */
static const struct ast_expr *
xor_offset(const struct bf *g, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	if (!e || e->kind != AST_BIN || strcmp(e->text, "^") != 0)
		return NULL;
	if (ast_is_name(e->kids[0], g->index) && !ast_is_name(e->kids[1], g->index))
		return e->kids[1];
	if (ast_is_name(e->kids[1], g->index) && !ast_is_name(e->kids[0], g->index))
		return e->kids[0];
	return NULL;
}

static int
same_expr(const struct ast_expr *a, const struct ast_expr *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	int same = generic_print_expr(a, &x) == 0 && generic_print_expr(b, &y) == 0 &&
	           strcmp(x.buf, y.buf) == 0;
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/* Records E (the first time) or checks that it is the recorded one. */
static int
take_offset(struct bf *g, const struct ast_expr *e, struct strbuf *why)
{
	if (!g->offset) {
		if (!host_offset(g, e, why))
			return 0;
		g->offset = e;
		return 1;
	}
	if (!same_expr(g->offset, e)) {
		strbuf_addf(why, "'%s' pairs elements with more than one partner offset", g->k->name);
		return 0;
	}
	return 1;
}

/* Is the index of an access of the buffer i, the partner, or i ^ E? */
static int
butterfly_index(struct bf *g, const struct ast_expr *x, struct strbuf *why)
{
	if (ast_is_name(x, g->index) || (g->partner && ast_is_name(x, g->partner)))
		return 1;
	const struct ast_expr *e = xor_offset(g, x);
	if (e)
		return take_offset(g, e, why);
	if (!why->len)
		strbuf_addf(why, "'%s' accesses '%s' at an index other than %s or %s ^ (offset)",
		            g->k->name, g->k->params[g->buf].name, g->index, g->index);
	return 0;
}

struct access_walk {
	struct bf *g;
	struct strbuf *why;
	int stores;
};

/* Every use of a pointer parameter: the buffer indexed as above, others none. */
static int
check_uses(const struct ast_expr *e, const struct ast_expr *parent, struct access_walk *w)
{
	struct bf *g = w->g;
	if (e->kind == AST_NAME) {
		const struct ast_decl *p = param_of(g->k, e->text);
		if (!p || !strchr(p->type, '*'))
			return 0;
		if (p != &g->k->params[g->buf]) {
			strbuf_addf(w->why, "'%s' uses a second pointer '%s'", g->k->name, e->text);
			return 1;
		}
		if (!parent || parent->kind != AST_INDEX || parent->kids[0] != e) {
			strbuf_addf(w->why, "'%s' uses the pointer '%s' other than by indexing it", g->k->name,
			            e->text);
			return 1;
		}
		return 0;
	}
	if (e->kind == AST_INDEX && ast_is_name(e->kids[0], g->k->params[g->buf].name)) {
		if (parent && parent->kind == AST_UN && strcmp(parent->text, "&") == 0) {
			strbuf_addf(w->why, "'%s' takes the address of an element", g->k->name);
			return 1;
		}
		if (!butterfly_index(g, e->kids[1], w->why))
			return 1;
		w->stores += parent && (parent->kind == AST_ASSIGN || parent->kind == AST_POST ||
		                        (parent->kind == AST_UN && (strcmp(parent->text, "++") == 0 ||
		                                                    strcmp(parent->text, "--") == 0))) &&
		             parent->kids[0] == e;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (check_uses(e->kids[i], e, w))
			return 1;
	return 0;
}

static int
check_uses_fn(const struct ast_expr *e, void *arg)
{
	return check_uses(e, NULL, arg);
}

static int
scalar_type(const char *t)
{
	static const char *const ok[] = { "float", "double", "int", "unsigned", "unsigned int",
		                          "long long", "unsigned long long", NULL };
	for (int i = 0; ok[i]; i++)
		if (strcmp(t, ok[i]) == 0)
			return 1;
	return 0;
}

/* The buffer's element type ("float" of "float *"), or NULL when it is not a
 * writable pointer to a plain number. */
static char *
elem_type(const char *type)
{
	size_t n = strlen(type);
	if (n < 2 || strcmp(type + n - 1, "*") != 0 || strncmp(type, "const ", 6) == 0)
		return NULL;
	char *t = egg_xstrndup(type, n - 1);
	for (size_t m = strlen(t); m && t[m - 1] == ' '; m--)
		t[m - 1] = '\0';
	if (!scalar_type(t)) {
		free(t);
		return NULL;
	}
	return t;
}

static int
analyze_kernel(struct bf *g, struct strbuf *why)
{
	const struct ast_function *k = g->k;
	const struct ast_stmt *first = k->body->n_body ? k->body->body[0] : NULL;
	if (!first || first->kind != AST_DECL || first->n_decls != 1 ||
	    !ast_is_global_index(first->decls[0].init, "x") || strchr(first->decls[0].type, '*')) {
		strbuf_addf(why, "'%s' does not start with i = blockIdx.x * blockDim.x + threadIdx.x", k->name);
		return -1;
	}
	g->index = first->decls[0].name;
	if (count_decls(k->body, g->index) != 1 || ast_walk_exprs(k->body, assigns_fn, (void *)g->index)) {
		strbuf_addf(why, "'%s' changes or redeclares its index '%s'", k->name, g->index);
		return -1;
	}
	/* the buffer: the one pointer parameter the body names */
	int found = 0;
	for (size_t i = 0; i < k->n_params; i++) {
		if (!strchr(k->params[i].type, '*'))
			continue;
		size_t len = strlen(k->params[i].name);
		const char *t = g->text;
		for (const char *p = strstr(t + k->body_begin, k->params[i].name); p && (size_t)(p - t) < k->end;
		     p = strstr(p + len, k->params[i].name))
			if (!isalnum((unsigned char)p[-1]) && p[-1] != '_' && !isalnum((unsigned char)p[len]) &&
			    p[len] != '_') {
				if (found) {
					strbuf_addf(why, "'%s' uses more than one pointer", k->name);
					return -1;
				}
				found = 1;
				g->buf = i;
				break;
			}
	}
	if (!found) {
		strbuf_addf(why, "'%s' touches no buffer", k->name);
		return -1;
	}
	/* a local partner = i ^ E, declared once and never changed */
	for (size_t s = 0; s < k->body->n_body; s++) {
		const struct ast_stmt *st = k->body->body[s];
		for (size_t d = 0; st->kind == AST_DECL && d < st->n_decls; d++)
			if (st->decls[d].init && xor_offset(g, st->decls[d].init) && !g->partner) {
				const char *name = st->decls[d].name;
				if (count_decls(k->body, name) != 1 || ast_walk_exprs(k->body, assigns_fn, (void *)name) ||
				    strchr(st->decls[d].type, '*'))
					continue;
				if (!take_offset(g, xor_offset(g, st->decls[d].init), why))
					return -1;
				g->partner = name;
			}
	}
	struct access_walk w = { .g = g, .why = why };
	if (ast_walk_exprs(k->body, check_uses_fn, &w))
		return -1;
	if (!g->offset) {
		strbuf_addf(why, "'%s' accesses no partner element i ^ (offset)", k->name);
		return -1;
	}
	if (w.stores == 0) {
		strbuf_addf(why, "'%s' does not write its buffer", k->name);
		return -1;
	}
	char *t = elem_type(k->params[g->buf].type);
	if (!t) {
		strbuf_addf(why, "the buffer of '%s' is not a writable pointer to a number", k->name);
		return -1;
	}
	free(t);
	return 0;
}

/* ---- elements that do nothing ---- */

/* the partner: the local holding i ^ E, or i ^ E written out */
static int
is_partner(const struct bf *g, const struct ast_expr *e)
{
	e = ast_strip_casts(e);
	if (g->partner && ast_is_name(e, g->partner))
		return 1;
	const struct ast_expr *x = xor_offset(g, e);
	return x && g->offset && same_expr(x, g->offset);
}

/* c is partner > i or i < partner, or a && with one of them: false for an
 * element whose partner lies below it, since (i ^ E) > i exactly when the
 * highest set bit of E is clear in i */
static int
upper_guard(const struct bf *g, const struct ast_expr *c)
{
	c = ast_strip_casts(c);
	if (!c || c->kind != AST_BIN)
		return 0;
	if (strcmp(c->text, "&&") == 0)
		return upper_guard(g, c->kids[0]) || upper_guard(g, c->kids[1]);
	if (strcmp(c->text, ">") == 0)
		return is_partner(g, c->kids[0]) && ast_is_name(c->kids[1], g->index);
	if (strcmp(c->text, "<") == 0)
		return ast_is_name(c->kids[0], g->index) && is_partner(g, c->kids[1]);
	return 0;
}

/* no assignment, increment or call anywhere in e */
static int
pure(const struct ast_expr *e)
{
	if (!e)
		return 1;
	if (e->kind == AST_ASSIGN || e->kind == AST_POST || e->kind == AST_CALL ||
	    (e->kind == AST_UN && (strcmp(e->text, "++") == 0 || strcmp(e->text, "--") == 0)))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!pure(e->kids[i]))
			return 0;
	return 1;
}

/* Does the body do nothing for an element whose partner lies below it?  After
 * i's declaration it holds only declarations and early returns free of side
 * effects, then, last, one if without else guarded by upper_guard.  The fused
 * kernel then runs the body only for the lower element of each pair. */
static int
lower_only(const struct bf *g)
{
	const struct ast_stmt *body = g->k->body;
	for (size_t s = 1; s < body->n_body; s++) {
		const struct ast_stmt *st = body->body[s];
		if (st->kind == AST_EMPTY || ast_is_bare_return(st))
			continue;
		if (st->kind == AST_DECL) {
			for (size_t d = 0; d < st->n_decls; d++)
				if (!pure(st->decls[d].init))
					return 0;
			continue;
		}
		if (st->kind != AST_IF || st->otherwise || !pure(st->expr))
			return 0;
		if (ast_is_bare_return(st->then))
			continue;
		return s == body->n_body - 1 && upper_guard(g, st->expr);
	}
	return 0;
}

/* ---- the launcher ---- */

static void
collect_launches(struct bf *g, const struct ast_stmt *s)
{
	if (!s)
		return;
	if (s->kind == AST_LAUNCH) {
		g->l = egg_xrealloc(g->l, (g->n_l + 1) * sizeof *g->l);
		g->l[g->n_l++] = s;
	}
	for (size_t i = 0; i < s->n_body; i++)
		collect_launches(g, s->body[i]);
	collect_launches(g, s->init);
	collect_launches(g, s->then);
	collect_launches(g, s->otherwise);
}


/* Host arithmetic on scalars: no load, no call but dim3 and sizeof, no address
 * taken (so it cannot see the buffer's contents). */
static int
scalar_control(const struct ast_expr *e)
{
	if (!e)
		return 1;
	switch (e->kind) {
	case AST_NUM:
	case AST_NAME:
		return 1;
	case AST_CALL:
		if (!e->text || (strcmp(e->text, "dim3") != 0 && strcmp(e->text, "sizeof") != 0))
			return 0;
		break;
	case AST_UN:
		if (strcmp(e->text, "*") == 0 || strcmp(e->text, "&") == 0)
			return 0;
		break;
	case AST_BIN:
	case AST_ASSIGN:
	case AST_POST:
	case AST_COND:
	case AST_CAST:
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < e->n_kids; i++)
		if (!scalar_control(e->kids[i]))
			return 0;
	return 1;
}

static int
scalar_control_fn(const struct ast_expr *e, void *arg)
{
	(void)arg;
	return !scalar_control(e);
}

/* A statement made only of launches (their configurations and arguments host
 * arithmetic) and of loops, branches, declarations and assignments of host
 * scalars. */
static int
launch_region(const struct ast_stmt *s)
{
	switch (s->kind) {
	case AST_LAUNCH:
		for (size_t i = 0; i < s->n_config + s->n_args; i++)
			if (!scalar_control(s->launch[i]))
				return 0;
		return 1;
	case AST_EMPTY:
	case AST_BREAK:
	case AST_CONTINUE:
		return 1;
	case AST_DECL:
		for (size_t i = 0; i < s->n_decls; i++)
			if (s->decls[i].is_array || strchr(s->decls[i].type, '*') ||
			    !scalar_control(s->decls[i].init))
				return 0;
		return 1;
	case AST_EXPR:
		return scalar_control(s->expr);
	case AST_IF:
		return scalar_control(s->expr) && launch_region(s->then) &&
		       (!s->otherwise || launch_region(s->otherwise));
	case AST_BLOCK:
		for (size_t i = 0; i < s->n_body; i++)
			if (!launch_region(s->body[i]))
				return 0;
		return 1;
	case AST_FOR:
		if (s->init && (s->init->kind != AST_DECL && s->init->kind != AST_EXPR))
			return 0;
		if (s->init && ast_walk_exprs(s->init, scalar_control_fn, NULL))
			return 0;
		/* fall through */
	case AST_WHILE:
		return scalar_control(s->expr) && scalar_control(s->step) && s->then && launch_region(s->then);
	default:
		return 0;
	}
}

/* Every identifier of the extent is a scalar parameter of the target that the
 * launcher neither declares nor changes (so the text means the same at a launch). */
static int
extent_stable(const struct bf *g, const char *extent)
{
	for (const char *p = extent; *p;) {
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *s = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			char *name = egg_xstrndup(s, (size_t)(p - s));
			const struct bundle_param *bp = bundle_find_param(g->b, name);
			int ok = bp && !bp->is_pointer && count_decls(g->f->body, name) == 0 &&
			         !ast_walk_exprs(g->f->body, assigns_fn, name);
			free(name);
			if (!ok)
				return 0;
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p))
				p++;
		} else {
			p++;
		}
	}
	return 1;
}

static int
analyze_launcher(struct bf *g, struct strbuf *why)
{
	collect_launches(g, g->f->body);
	if (g->n_l == 0) {
		strbuf_addstr(why, "the launcher launches no kernel");
		return -1;
	}
	const char *name = g->l[0]->expr->text;
	g->k = ast_find_function(g->u, name);
	if (!g->k || !strstr(g->k->qualifiers, "__global__") || g->k->begin >= g->target_at) {
		strbuf_addf(why, "it launches '%s', which is not a kernel of the closure", name);
		return -1;
	}
	if (g->k->is_instance) {
		strbuf_addf(why, "'%s' is an instance of a template", name);
		return -1;
	}
	if (strcmp(g->k->ns, g->f->ns) != 0) { /* its body is copied into the launcher's namespace */
		strbuf_addf(why, "it launches '%s' of namespace '%s', not the target's '%s'", name, g->k->ns,
		            g->f->ns);
		return -1;
	}
	for (size_t i = 0; i < g->n_l; i++) {
		const struct ast_stmt *l = g->l[i];
		if (strcmp(l->expr->text, name) != 0) {
			strbuf_addstr(why, "the launcher launches more than one kernel");
			return -1;
		}
		if (l->n_config != 2 || l->n_args != g->k->n_params) {
			strbuf_addf(why, "a launch of '%s' sets shared memory or a stream", name);
			return -1;
		}
	}
	if (generic_mentions(g->text, g->f->body_begin, g->f->end, name) != g->n_l) {
		strbuf_addf(why, "the launcher names '%s' other than in its launches", name);
		return -1;
	}
	if (analyze_kernel(g, why) != 0)
		return -1;
	for (size_t i = 0; i < g->n_l; i++) {
		const struct ast_stmt *l = g->l[i];
		const struct ast_expr *a = ast_strip_casts(l->launch[l->n_config + g->buf]);
		const struct bundle_param *p = a->kind == AST_NAME ? bundle_find_param(g->b, a->text) : NULL;
		if (!p || !p->is_pointer || p->is_const || !p->extent || count_decls(g->f->body, a->text) ||
		    ast_walk_exprs(g->f->body, assigns_fn, (void *)a->text)) {
			strbuf_addf(why, "a launch of '%s' passes a buffer that is not a writable buffer of the "
			            "target with a known extent (left in place by the launcher)", name);
			return -1;
		}
		if (g->extent && strcmp(g->extent, p->extent) != 0) {
			strbuf_addf(why, "the launches of '%s' pass buffers of different extents", name);
			return -1;
		}
		g->extent = p->extent;
	}
	if (!extent_stable(g, g->extent)) {
		strbuf_addf(why, "the buffer's extent '%s' is not made of the launcher's unchanged scalars",
		            g->extent);
		return -1;
	}
	/* the stretch of statements holding the launches: launches and scalar loops only */
	const struct ast_stmt *body = g->f->body;
	size_t first = body->n_body, last = 0;
	for (size_t i = 0; i < body->n_body; i++)
		if (ast_has_launch(body->body[i])) {
			first = first < i ? first : i;
			last = i;
		}
	for (size_t i = first; i <= last; i++)
		if (!launch_region(body->body[i])) {
			strbuf_addf(why, "the launcher does other work between the launches of '%s' (only "
			            "loops with scalar control may come between them)", name);
			return -1;
		}
	g->first = first;
	g->last = last;
	return 0;
}

/* ---- writing a candidate ---- */

/* s with whole-word occurrences of the CUDA index built-ins prefixed egg_ */
static void
add_rebased(const char *s, size_t n, struct strbuf *out)
{
	static const char *const words[] = { "blockIdx", "threadIdx", "blockDim", "gridDim", NULL };
	for (size_t i = 0; i < n;) {
		int hit = 0;
		for (int w = 0; words[w] && !hit; w++) {
			size_t len = strlen(words[w]);
			if (i + len <= n && strncmp(s + i, words[w], len) == 0 &&
			    (i == 0 || (!isalnum((unsigned char)s[i - 1]) && s[i - 1] != '_')) &&
			    (i + len == n || (!isalnum((unsigned char)s[i + len]) && s[i + len] != '_'))) {
				strbuf_addf(out, "egg_%s", words[w]);
				i += len;
				hit = 1;
			}
		}
		if (!hit)
			strbuf_addch(out, s[i++]);
	}
}

/* k's definition under a new name */
static void
kernel_copy(const struct bf *g, const char *name, struct strbuf *out)
{
	const char *t = g->text;
	size_t open = g->k->begin;
	while (open < g->k->body_begin && t[open] != '(')
		open++;
	size_t at = open, len = strlen(g->k->name);
	while (at > g->k->begin && isspace((unsigned char)t[at - 1]))
		at--;
	strbuf_add(out, t + g->k->begin, at - len - g->k->begin);
	strbuf_addstr(out, name);
	strbuf_add(out, t + at, g->k->end - at);
	strbuf_addch(out, '\n');
}

/* a parameter's type without a leading const (a field of a struct that is assigned) */
static const char *
field_type(const char *type)
{
	return strncmp(type, "const ", 6) == 0 && !strchr(type, '*') ? type + 6 : type;
}

static void
add_decl(const struct ast_decl *d, const char *type, struct strbuf *out)
{
	size_t n = strlen(type);
	strbuf_addf(out, "%s%s%s", type, n && type[n - 1] == '*' ? "" : " ", d->name);
}

static int
has_cast(const struct ast_expr *e)
{
	if (e->kind == AST_CAST)
		return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (has_cast(e->kids[i]))
			return 1;
	return 0;
}

/* The body for one element x of a launch, and how it gets its index (vals[0],
 * vals[1]: the INDEX_PARAMS and INDEX_ARGS).  When the built-ins appear only in
 * i's declaration, written without casts (unsigned 32-bit arithmetic), i is
 * declared from (unsigned)x, the same value; otherwise the body gets the
 * element's own blockIdx, threadIdx, blockDim and gridDim (a division each). */
static void
add_body(const struct bf *g, struct strbuf *body, char **vals)
{
	const struct ast_function *k = g->k;
	const struct ast_stmt *first = k->body->body[0];
	struct strbuf rest = STRBUF_INIT;
	add_rebased(g->text + first->end, k->end - first->end, &rest);
	int direct = !strstr(rest.buf, "egg_blockIdx") && !strstr(rest.buf, "egg_threadIdx") &&
	             !strstr(rest.buf, "egg_blockDim") && !strstr(rest.buf, "egg_gridDim") &&
	             !has_cast(first->decls[0].init);
	if (direct) {
		strbuf_add(body, g->text + k->body_begin, first->begin - k->body_begin);
		add_decl(&first->decls[0], first->decls[0].type, body);
		strbuf_addstr(body, " = (unsigned)egg_x;");
		strbuf_add(body, rest.buf, rest.len);
		vals[0] = egg_xstrdup("long long egg_x");
		vals[1] = egg_xstrdup("egg_x");
	} else {
		add_rebased(g->text + k->body_begin, k->end - k->body_begin, body);
		vals[0] = egg_xstrdup("uint3 egg_blockIdx, uint3 egg_threadIdx, dim3 egg_blockDim, dim3 egg_gridDim");
		vals[1] = egg_xstrdup("uint3{ (unsigned)(egg_x / egg_a.egg_block), 0u, 0u }, "
		                      "uint3{ (unsigned)(egg_x % egg_a.egg_block), 0u, 0u }, "
		                      "dim3(egg_a.egg_block), dim3(egg_a.egg_grid)");
	}
	strbuf_addch(body, '\n');
	strbuf_release(&rest);
}

/* The template's values for point (tile, tpb); the strings are the caller's.
 * The parameters flagged in fastdiv (NULL: none) reach the body as egg_div<T>
 * (fastdiv.h). */
static void
fill_values(const struct bf *g, const char *p, int tile, int tpb, const int *fastdiv, char **vals)
{
	const struct ast_function *k = g->k;
	struct strbuf copy = STRBUF_INIT, body = STRBUF_INIT, bparams = STRBUF_INIT, fields = STRBUF_INIT,
	              stores = STRBUF_INIT, bargs = STRBUF_INIT, sparams = STRBUF_INIT, largs = STRBUF_INIT,
	              off = STRBUF_INIT;
	char *kname = egg_xasprintf("%s_%s", p, k->name);
	kernel_copy(g, kname, &copy);
	free(kname);
	add_body(g, &body, vals + 16);
	char *t = elem_type(k->params[g->buf].type);
	for (size_t i = 0; i < k->n_params; i++) {
		const struct ast_decl *d = &k->params[i];
		const char *sep = i ? ", " : "";
		strbuf_addstr(&bparams, sep);
		strbuf_addstr(&sparams, sep);
		strbuf_addf(&largs, "%s%s", sep, d->name);
		strbuf_addstr(&bargs, sep);
		add_decl(d, d->type, &sparams);
		if (i == g->buf) {
			strbuf_addf(&bparams, "struct %s_tile %s", p, d->name);
			strbuf_addstr(&bargs, "egg_t");
			continue;
		}
		char *fd = fastdiv && fastdiv[i] ? fastdiv_type(d->type) : NULL;
		add_decl(d, fd ? fd : d->type, &bparams);
		strbuf_addch(&fields, '\t');
		add_decl(d, fd ? fd : field_type(d->type), &fields);
		free(fd);
		strbuf_addstr(&fields, ";\n");
		strbuf_addf(&stores, "\tegg_a->%s = %s;\n", d->name, d->name);
		strbuf_addf(&bargs, "egg_a.%s", d->name);
	}
	/* the template puts each list on lines of its own */
	if (fields.len)
		fields.buf[--fields.len] = '\0';
	if (stores.len)
		stores.buf[--stores.len] = '\0';
	generic_print_expr(g->offset, &off); /* host_offset admitted only printable forms */
	size_t n_fd = 0;
	for (size_t i = 0; i < k->n_params; i++)
		n_fd += fastdiv && fastdiv[i];
	const int lower = lower_only(g);
	char *label = egg_xasprintf("butterfly tile=%d tpb=%d%s%s", tile, tpb, lower ? " pairs" : "",
	                            n_fd ? " fastdiv" : "");
	vals[0] = label;
	vals[1] = egg_xstrdup(p);
	vals[2] = t;
	vals[3] = egg_xasprintf("%d", tile);
	vals[4] = egg_xasprintf("%d", tpb);
	vals[5] = egg_xstrdup(k->name);
	vals[6] = strbuf_detach(&copy);
	vals[7] = strbuf_detach(&bparams);
	vals[8] = strbuf_detach(&body);
	vals[9] = strbuf_detach(&fields);
	vals[10] = strbuf_detach(&bargs);
	vals[11] = strbuf_detach(&sparams);
	vals[12] = strbuf_detach(&off);
	vals[13] = strbuf_detach(&largs);
	vals[14] = egg_xstrdup(k->params[g->buf].name);
	vals[15] = strbuf_detach(&stores);
	vals[18] = egg_xstrdup(lower ? "1" : "0");
}

#define N_KEYS 19
static const char *const keys[N_KEYS] = { "LABEL", "P", "T", "TILE", "TPB", "KERNEL", "KERNEL_COPY",
	                                  "BODY_PARAMS", "BODY", "FIELDS", "BODY_ARGS", "STEP_PARAMS",
	                                  "OFFSET", "LAUNCH_ARGS", "BUF", "STORES", "INDEX_PARAMS",
	                                  "INDEX_ARGS", "LOWER" };

/* The launcher with its launches queued: the queue declared at its head, each
 * launch a call of the step function, a flush after the last statement holding
 * launches. */
static void
rewrite_launcher(const struct bf *g, const char *p, struct strbuf *out)
{
	const char *t = g->text;
	size_t open = g->f->body_begin + 1; /* past '{' */
	strbuf_add(out, t + g->f->begin, open - g->f->begin);
	strbuf_addf(out, "\n\tstruct %s_queue egg_bq;\n\tegg_bq.n = 0;\n\tegg_bq.cover = 0;", p);
	size_t at = open;
	for (size_t i = 0; i < g->n_l; i++) {
		const struct ast_stmt *l = g->l[i];
		strbuf_add(out, t + at, l->begin - at);
		const char *cfg = strstr(t + l->begin, "<<<") + 3, *cfg_end = strstr(cfg, ">>>");
		const char *args = strchr(cfg_end, '(') + 1, *args_end = t + l->end;
		while (args_end > args && *args_end != ')')
			args_end--;
		strbuf_addf(out, "%s_step(&egg_bq, (long long)(%s), ", p, g->extent);
		strbuf_add(out, cfg, (size_t)(cfg_end - cfg));
		strbuf_addstr(out, ", ");
		strbuf_add(out, args, (size_t)(args_end - args));
		strbuf_addstr(out, ");");
		at = l->end;
	}
	size_t flush_at = g->f->body->body[g->last]->end;
	strbuf_add(out, t + at, flush_at - at);
	strbuf_addf(out, "\n\t%s_flush(&egg_bq);", p);
	strbuf_add(out, t + flush_at, g->f->end - flush_at);
	strbuf_addch(out, '\n');
}

/* The launches must be where the parser saw them (not from a macro). */
static int
launches_written_out(const struct bf *g)
{
	for (size_t i = 0; i < g->n_l; i++) {
		const struct ast_stmt *l = g->l[i];
		const char *s = g->text + l->begin;
		size_t len = strlen(l->expr->text);
		if (l->end <= l->begin || strncmp(s, l->expr->text, len) != 0 || !strstr(s, "<<<") ||
		    (size_t)(strstr(s, "<<<") - g->text) >= l->end || g->text[l->end - 1] != ';')
			return 0;
	}
	return 1;
}

long
butterfly_generate(const struct egg_bundle *b, const char *prefix, struct builtin_candidate **cands,
                   size_t *n_cands, struct strbuf *why, struct strbuf *err)
{
	if (b->kind != BUNDLE_LAUNCHER) {
		strbuf_addstr(why, "the butterfly path needs a launcher");
		return 0;
	}
	struct strbuf text = STRBUF_INIT, perr = STRBUF_INIT;
	strbuf_addstr(&text, b->closure ? b->closure : "");
	strbuf_addch(&text, '\n');
	struct bf g = { .b = b, .target_at = text.len };
	strbuf_addstr(&text, b->target ? b->target : "");
	g.text = text.buf;
	struct ast_unit *u = parse_unit(text.buf, &perr);
	g.u = u;
	g.f = u ? ast_find_function(u, b->name) : NULL;
	long added = 0;
	char *tmpl = NULL;
	if (!u)
		strbuf_addf(why, "the butterfly path cannot read the code: %s", perr.buf);
	else if (!g.f || g.f->begin < g.target_at)
		strbuf_addf(why, "the butterfly path did not find the target '%s'", b->name);
	else if (!generic_block_shape_free(b->closure ? b->closure : ""))
		strbuf_addstr(why, "the closure uses shared memory, barriers or warp operations");
	else if (analyze_launcher(&g, why) != 0)
		;
	else if (!launches_written_out(&g))
		strbuf_addstr(why, "the launches are not all written out in the launcher (a macro?)");
	else if (!(tmpl = emit_template_load("butterfly.cu", err)))
		added = -1;
	/* divisions by a launch's scalar in the body through egg_div, in every point */
	int *fastdiv = tmpl ? egg_xcalloc(g.k->n_params + 1, sizeof *fastdiv) : NULL;
	char *fd = NULL;
	if (tmpl && fastdiv_params(g.text, g.k, fastdiv) && !(fd = fastdiv_prelude(err))) {
		free(tmpl);
		tmpl = NULL;
		added = -1;
	}
	/* the first point also without egg_div, the control a multiply may lose to */
	for (size_t pi = fd ? 0 : 1; tmpl && pi <= N_TILES * N_TPB; pi++) {
		const size_t ti = pi ? (pi - 1) / N_TPB : 0, bi = pi ? (pi - 1) % N_TPB : 0;
		char *p = egg_xasprintf("%s_c%zu", prefix, *n_cands);
		char *vals[N_KEYS];
		fill_values(&g, p, tiles[ti], threads[bi], pi ? fastdiv : NULL, vals);
		struct strbuf src = STRBUF_INIT;
		if (fd && pi)
			strbuf_addstr(&src, fd);
		emit_template_fill(tmpl, keys, (const char *const *)vals, N_KEYS, &src);
		rewrite_launcher(&g, p, &src);
		*cands = egg_xrealloc(*cands, (*n_cands + 1) * sizeof **cands);
		(*cands)[*n_cands].label = egg_xstrdup(vals[0]);
		(*cands)[*n_cands].source = strbuf_detach(&src);
		(*n_cands)++;
		added++;
		for (int i = 0; i < N_KEYS; i++)
			free(vals[i]);
		free(p);
	}
	free(tmpl);
	free(fd);
	free(fastdiv);
	free(g.l);
	if (u)
		ast_unit_free(u);
	strbuf_release(&text);
	strbuf_release(&perr);
	return added;
}
