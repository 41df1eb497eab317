/*
 * refill.c -- lane refill (refill.h): persistent lanes for element-wise kernels
 * whose per-element work is a loop with a data-dependent trip count.
 *
 * A kernel of the shape
 *
 *     I i = blockIdx.x * blockDim.x + threadIdx.x;
 *     if (i >= LIMIT) return;          (or: if (i < LIMIT) { ... } as its last statement)
 *     PRE; while (COND) BODY; POST     (or: for (INIT; COND; STEP) BODY)
 *
 * runs as a one-wave grid (SM count x resident blocks, asked at run time) in
 * which each lane walks the elements gid, gid + stride, ... below
 * min(LIMIT, the original launch's thread count) in ONE loop: an iteration does
 * one step of the current element's loop or, when its condition is false,
 * finishes the element (POST) and loads the next (PRE).  A warp's lanes then
 * wait for each other only at the very end, instead of every warp waiting for
 * its slowest lane on every element.  PRE's declarations are hoisted (declared
 * once, assigned per element); BODY and POST keep their own scopes.
 *
 * Only what keeps each element's statements in their order and alone is taken:
 * no return, break or continue of the loop (a nested loop's own are fine), no
 * shared memory, barriers or warp intrinsics (a lane's neighbours change), no
 * use of the thread's position beyond the index, one loop at the top, and a
 * trip count that depends on the element (else every lane runs the same count
 * and nothing is gained).  Everything else is refused with the reason.
 */
#include "config.h"

#include "builtin/keep/generic.h"
#include "builtin/keep/generic_internal.h"
#include "builtin/keep/refill.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The points: threads per block, waves of resident blocks in the grid, and
 * steps of the element's loop a lane takes before it checks for a refill (more
 * steps: the refill's branch less often, a finished lane idle for at most
 * steps - 1 of them; on the H200, collatz: 1 step 2.44 ms, 4 steps 2.04, 8 steps
 * 1.87).  Loading each lane's next element one element ahead was tried and lost
 * (2.13 ms at 4 steps, 1.93 at 8). */
struct rpoint {
	int tpb, waves, steps;
};

static const struct rpoint points[] = {
	{ 128, 1, 1 }, { 128, 2, 1 }, { 256, 1, 1 }, { 256, 2, 1 }, { 128, 1, 4 }, { 256, 1, 4 },
	{ 128, 1, 8 }, { 256, 1, 8 }, { 256, 1, 16 },
};
#define N_POINTS (sizeof points / sizeof *points)

struct span {
	size_t a, b; /* [a, b) of the parsed text; a == b: none */
};

/* One kernel in the shape above. */
struct rshape {
	const struct ast_function *k;
	const struct ast_decl *index;
	char *limit;                      /* the guard's bound as C text */
	struct ast_stmt *const *items;    /* PRE, the loop, POST */
	size_t n_items, loop_at;
	const struct ast_stmt *loop;
	struct span cond, init, step;     /* init and step: for loops only */
	int ok;
};

/* ---- reading the text ---- */

/* The first '(' at or after from and its matching ')'; 0, or -1. */
static int
paren_span(const char *t, size_t from, size_t to, struct span *in)
{
	size_t p = from;
	while (p < to && t[p] != '(')
		p++;
	int depth = 0;
	for (size_t q = p; q < to; q++) {
		if (t[q] == '"' || t[q] == '\'') {
			char quote = t[q];
			for (q++; q < to && t[q] != quote; q++)
				q += t[q] == '\\';
			continue;
		}
		depth += t[q] == '(';
		if (t[q] == ')' && --depth == 0) {
			in->a = p + 1;
			in->b = q;
			return 0;
		}
	}
	return -1;
}

/* Offsets of the characters sep at bracket depth zero in [a, b); how many (at most max). */
static size_t
top_level(const char *t, size_t a, size_t b, char sep, size_t *at, size_t max)
{
	size_t n = 0;
	int depth = 0;
	for (size_t q = a; q < b; q++) {
		depth += t[q] == '(' || t[q] == '[' || t[q] == '{';
		depth -= t[q] == ')' || t[q] == ']' || t[q] == '}';
		if (t[q] == sep && depth == 0 && n < max)
			at[n++] = q;
	}
	return n;
}

static struct span
trimmed(const char *t, size_t a, size_t b)
{
	while (a < b && isspace((unsigned char)t[a]))
		a++;
	while (b > a && isspace((unsigned char)t[b - 1]))
		b--;
	return (struct span){ a, b };
}

/* The initializers of a declaration written in [a, b) (no ';'), one per
 * declarator (an empty span: none); 0, or -1 when the text and d disagree or a
 * declarator is a reference or a constructor call. */
static int
decl_inits(const char *t, size_t a, size_t b, const struct ast_stmt *d, struct span *inits)
{
	size_t cuts[64];
	if (d->n_decls > 64 || top_level(t, a, b, ',', cuts, 64) + 1 != d->n_decls)
		return -1;
	for (size_t j = 0; j < d->n_decls; j++) {
		size_t s = j ? cuts[j - 1] + 1 : a, e = j + 1 < d->n_decls ? cuts[j] : b, eq = e;
		for (size_t q = s; q < e && eq == e; q++)
			if (t[q] == '=' && t[q + 1] != '=' && !strchr("=!<>", t[q - 1]))
				eq = q;
		if (memchr(t + s, '&', eq - s) || (eq == e) != (d->decls[j].init == NULL))
			return -1;
		inits[j] = eq == e ? (struct span){ 0, 0 } : trimmed(t, eq + 1, e);
	}
	return 0;
}

/* ---- recognizing the shape ---- */

/* Numbers, names and operators over the kernel's unassigned scalar parameters. */
static int
invariant_bound(const struct ast_function *k, const struct ast_expr *e)
{
	if (e->kind == AST_NAME) {
		for (size_t i = 0; i < k->n_params; i++)
			if (strcmp(k->params[i].name, e->text) == 0)
				return !strchr(k->params[i].type, '*') && !generic_assigned(k->body, e->text);
		return 0;
	}
	if (e->kind != AST_NUM && e->kind != AST_BIN && e->kind != AST_CAST &&
	    !(e->kind == AST_UN && strcmp(e->text, "-") == 0))
		return 0;
	for (size_t i = 0; i < e->n_kids; i++)
		if (!invariant_bound(k, e->kids[i]))
			return 0;
	return 1;
}

/* What leaves the statement other than by its end: "return", or a break or
 * continue of the loop around it (those of loops inside it are theirs). */
static const char *
escape(const struct ast_stmt *s, int in_loop)
{
	if (!s)
		return NULL;
	if (s->kind == AST_RETURN)
		return "return";
	if (!in_loop && (s->kind == AST_BREAK || s->kind == AST_CONTINUE))
		return s->kind == AST_BREAK ? "break" : "continue";
	int inner = in_loop || s->kind == AST_FOR || s->kind == AST_WHILE;
	const char *w = escape(s->then, inner);
	if (!w)
		w = escape(s->otherwise, inner);
	for (size_t i = 0; !w && i < s->n_body; i++)
		w = escape(s->body[i], in_loop);
	return w;
}

/* Does the text [a, b) name word as a whole identifier? */
static int
names(const char *t, size_t a, size_t b, const char *word)
{
	size_t len = strlen(word);
	for (size_t q = a; q + len <= b; q++)
		if (strncmp(t + q, word, len) == 0 && (q == 0 || (!isalnum((unsigned char)t[q - 1]) && t[q - 1] != '_')) &&
		    !isalnum((unsigned char)t[q + len]) && t[q + len] != '_')
			return 1;
	return 0;
}

/* ---- does the trip count depend on the element? ---- */

/* Names whose values differ between elements: the index, what memory or such a
 * name gives them, and what is assigned under a condition on one. */
struct taint {
	struct strvec v;
	int changed;
};

static int
tainted(const struct taint *t, const struct ast_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == AST_INDEX || e->kind == AST_MEMBER || (e->kind == AST_UN && strcmp(e->text, "*") == 0))
		return 1; /* a load */
	if (e->kind == AST_NAME)
		for (size_t i = 0; i < t->v.n; i++)
			if (strcmp(t->v.v[i], e->text) == 0)
				return 1;
	for (size_t i = 0; i < e->n_kids; i++)
		if (tainted(t, e->kids[i]))
			return 1;
	return 0;
}

static void
taint_name(struct taint *t, const char *name)
{
	for (size_t i = 0; i < t->v.n; i++)
		if (strcmp(t->v.v[i], name) == 0)
			return;
	strvec_push(&t->v, name);
	t->changed = 1;
}

static void
taint_assignments(struct taint *t, const struct ast_expr *e, int ctl)
{
	if (!e)
		return;
	const struct ast_expr *to = e->n_kids ? e->kids[0] : NULL;
	if (to && to->kind == AST_NAME &&
	    ((e->kind == AST_ASSIGN && (ctl || tainted(t, e->kids[1]))) ||
	     (ctl && (e->kind == AST_POST || (e->kind == AST_UN && (strcmp(e->text, "++") == 0 ||
	                                                            strcmp(e->text, "--") == 0))))))
		taint_name(t, to->text);
	for (size_t i = 0; i < e->n_kids; i++)
		taint_assignments(t, e->kids[i], ctl);
}

static void
taint_stmt(struct taint *t, const struct ast_stmt *s, int ctl)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_decls; i++)
		if (s->decls[i].init && (ctl || tainted(t, s->decls[i].init)))
			taint_name(t, s->decls[i].name);
	int inner = ctl || ((s->kind == AST_IF || s->kind == AST_FOR || s->kind == AST_WHILE) && tainted(t, s->expr));
	if (s->kind == AST_EXPR || s->kind == AST_FOR || s->kind == AST_WHILE || s->kind == AST_IF)
		taint_assignments(t, s->expr, inner);
	taint_assignments(t, s->step, inner);
	taint_stmt(t, s->init, inner);
	taint_stmt(t, s->then, inner);
	taint_stmt(t, s->otherwise, inner);
	for (size_t i = 0; i < s->n_body; i++)
		taint_stmt(t, s->body[i], ctl);
}

static int
trip_count_varies(const struct rshape *r)
{
	struct taint t = { STRVEC_INIT, 1 };
	strvec_push(&t.v, r->index->name);
	for (int pass = 0; pass < 16 && t.changed; pass++) {
		t.changed = 0;
		for (size_t i = 0; i <= r->loop_at; i++)
			taint_stmt(&t, r->items[i], 0);
	}
	int varies = tainted(&t, r->loop->expr);
	strvec_clear(&t.v);
	return varies;
}

/* ---- the shape ---- */

/* Words that tie a lane to its neighbours or to its place in the grid. */
static const char *const lane_words[] = {
	"__shared__", "__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync",
	"__all_sync", "__activemask", "__match_", "__reduce_", "cooperative_groups", "warpSize",
	"__syncthreads_count", "__syncthreads_and", "__syncthreads_or", NULL,
};

static int
closure_check(const struct gen *g, const struct rshape *r, struct strbuf *why)
{
	const char *t = g->text;
	for (int i = 0; lane_words[i]; i++)
		if (strstr(t, lane_words[i]) && strstr(t, lane_words[i]) < t + g->target_at) {
			strbuf_addf(why, "the closure uses %s (lanes would no longer run their elements "
			            "beside the same neighbours)", lane_words[i]);
			return -1;
		}
	static const char *const place[] = { "threadIdx", "blockIdx", "blockDim", "gridDim", NULL };
	const struct ast_stmt *ix = r->k->body->body[0];
	for (size_t f = 0; f < g->u->n_functions; f++) {
		const struct ast_function *fn = &g->u->functions[f];
		if (fn->begin >= g->target_at || (fn != r->k && strcmp(fn->qualifiers, "__device__") != 0 &&
		                                  strcmp(fn->qualifiers, "__host__ __device__") != 0))
			continue;
		for (int i = 0; place[i]; i++)
			if (fn == r->k ? names(t, fn->body_begin, ix->begin, place[i]) ||
			                         names(t, ix->end, fn->end, place[i])
			               : names(t, fn->body_begin, fn->end, place[i])) {
				strbuf_addf(why, "the kernel uses %s beyond its element's index", place[i]);
				return -1;
			}
	}
	if (strstr(t + r->k->begin, "egg_") && strstr(t + r->k->begin, "egg_") < t + r->k->end) {
		strbuf_addstr(why, "the kernel names something egg_ (the transformation's own names)");
		return -1;
	}
	return 0;
}

/* The loop's condition, init and step in the text; 0, or -1 with why. */
static int
loop_text(const struct gen *g, struct rshape *r, struct strbuf *why)
{
	const char *t = g->text;
	const struct ast_stmt *l = r->loop;
	struct span head;
	if (strncmp(t + l->begin, "do", 2) == 0 && !isalnum((unsigned char)t[l->begin + 2])) {
		strbuf_addstr(why, "its loop is a do-while (the body runs before the first test)");
		return -1;
	}
	if (!l->expr) {
		strbuf_addstr(why, "its loop has no condition");
		return -1;
	}
	if (paren_span(t, l->begin, l->then->begin, &head) != 0) {
		strbuf_addstr(why, "its loop's header is not written out (a macro?)");
		return -1;
	}
	if (l->kind == AST_WHILE) {
		r->cond = trimmed(t, head.a, head.b);
		return 0;
	}
	size_t semi[2];
	if (top_level(t, head.a, head.b, ';', semi, 2) != 2) {
		strbuf_addstr(why, "its for loop's header is not written out (a macro?)");
		return -1;
	}
	r->init = trimmed(t, head.a, semi[0]);
	r->cond = trimmed(t, semi[0] + 1, semi[1]);
	r->step = trimmed(t, semi[1] + 1, head.b);
	return 0;
}

/* The statements' text must be whole statements (no macro at either end). */
static int
whole_statements(const struct gen *g, const struct rshape *r)
{
	for (size_t i = 0; i < r->n_items; i++) {
		const struct ast_stmt *s = r->items[i];
		if (i == r->loop_at)
			s = s->then;
		if (s->end <= s->begin || !strchr(";}", g->text[s->end - 1]))
			return 0;
	}
	return 1;
}

static int
read_shape(const struct gen *g, struct rshape *r, struct strbuf *why)
{
	const struct ast_function *k = r->k;
	const struct ast_stmt *body = k->body;
	const struct ast_stmt *s0 = body->n_body >= 2 ? body->body[0] : NULL;
	if (!s0 || s0->kind != AST_DECL || s0->n_decls != 1 || s0->decls[0].is_array ||
	    strchr(s0->decls[0].type, '*') || !ast_is_global_index(s0->decls[0].init, "x")) {
		strbuf_addstr(why, "it does not start with its element's index "
		              "(i = blockIdx.x * blockDim.x + threadIdx.x)");
		return -1;
	}
	r->index = &s0->decls[0];
	const struct ast_stmt *guard = body->body[1];
	const struct ast_expr *bound = NULL;
	if (guard->kind == AST_IF && !guard->otherwise && ast_is_bare_return(guard->then) &&
	    (bound = ast_guard_bound(guard->expr, r->index->name, ">=", "<="))) {
		r->items = body->body + 2;
		r->n_items = body->n_body - 2;
	} else if (guard->kind == AST_IF && !guard->otherwise && body->n_body == 2 &&
	           (bound = ast_guard_bound(guard->expr, r->index->name, "<", ">"))) {
		int block = guard->then->kind == AST_BLOCK;
		r->items = block ? guard->then->body : &((struct ast_stmt *)guard)->then;
		r->n_items = block ? guard->then->n_body : 1;
	} else {
		strbuf_addstr(why, "its guard is neither 'if (i >= n) return;' nor 'if (i < n) { ... }' "
		              "around the rest");
		return -1;
	}
	struct strbuf lim = STRBUF_INIT;
	if (!invariant_bound(k, bound) || generic_print_expr(bound, &lim) != 0) {
		strbuf_release(&lim);
		strbuf_addstr(why, "its guard's bound is not made of scalar parameters it never assigns");
		return -1;
	}
	r->limit = strbuf_detach(&lim);
	size_t loops = 0;
	for (size_t i = 0; i < r->n_items; i++) {
		const struct ast_stmt *s = r->items[i];
		if (s->kind == AST_FOR || s->kind == AST_WHILE) {
			r->loop_at = i;
			loops++;
		} else if (ast_has_loop(s)) {
			loops += 2; /* a loop inside an if or a block */
		}
	}
	if (loops != 1) {
		strbuf_addstr(why, loops ? "it has more than one loop at the top of its element's work "
		                           "(or one inside another statement)"
		                         : "its element's work has no loop");
		return -1;
	}
	r->loop = r->items[r->loop_at];
	for (size_t i = 0; i < r->n_items; i++) {
		const char *w = escape(i == r->loop_at ? r->loop->then : r->items[i], 0);
		if (w) {
			strbuf_addf(why, "its element's work leaves %s by %s", i == r->loop_at ? "the loop" :
			            i < r->loop_at ? "the statements before the loop" : "the statements after the loop", w);
			return -1;
		}
	}
	if (closure_check(g, r, why) != 0 || loop_text(g, r, why) != 0)
		return -1;
	if (!whole_statements(g, r)) {
		strbuf_addstr(why, "its statements are not all written out (a macro?)");
		return -1;
	}
	if (!trip_count_varies(r)) {
		strbuf_addstr(why, "the loop's trip count does not depend on the element");
		return -1;
	}
	return 0;
}

/* ---- writing the kernel ---- */

static void
hoisted_decl(const struct ast_decl *d, struct strbuf *out)
{
	const char *type = d->type;
	if (!strchr(type, '*') && egg_str_starts(type, "const "))
		type += 6; /* assigned per element */
	strbuf_addf(out, "\t%s %s;\n", type, d->name);
}

/* The declarations PRE (and a for loop's init) make, hoisted; 0, or -1 with why. */
static int
write_hoisted(const struct rshape *r, struct strbuf *out, struct strbuf *why)
{
	struct strvec seen = STRVEC_INIT;
	strvec_push(&seen, r->index->name);
	hoisted_decl(r->index, out);
	int rc = 0;
	for (size_t i = 0; i <= r->loop_at && rc == 0; i++) {
		const struct ast_stmt *s = i < r->loop_at ? r->items[i] : r->loop->init;
		for (size_t j = 0; s && s->kind == AST_DECL && j < s->n_decls && rc == 0; j++) {
			const struct ast_decl *d = &s->decls[j];
			for (size_t q = 0; q < seen.n; q++)
				rc |= strcmp(seen.v[q], d->name) == 0;
			for (size_t q = 0; q < r->k->n_params; q++)
				rc |= strcmp(r->k->params[q].name, d->name) == 0;
			if (rc || d->is_array || d->is_shared || strstr(d->type, "auto")) {
				strbuf_addf(why, "'%s' before the loop cannot be declared once for all elements "
				            "(an array, auto, static, a parameter's name or a name declared twice)",
				            d->name);
				rc = -1;
			}
			strvec_push(&seen, d->name);
			hoisted_decl(d, out);
		}
	}
	strvec_clear(&seen);
	return rc;
}

/* A declaration's initializers as assignments, or the statement as written. */
static int
write_as_assignment(const struct gen *g, const struct ast_stmt *s, size_t a, size_t b, const char *indent,
                    struct strbuf *out)
{
	const char *t = g->text;
	if (s->kind != AST_DECL) {
		strbuf_addf(out, "%s%.*s%s\n", indent, (int)(b - a), t + a, t[b - 1] == ';' || t[b - 1] == '}' ? "" : ";");
		return 0;
	}
	struct span inits[64];
	if (decl_inits(t, a, t[b - 1] == ';' ? b - 1 : b, s, inits) != 0)
		return -1;
	for (size_t j = 0; j < s->n_decls; j++)
		if (inits[j].b > inits[j].a)
			strbuf_addf(out, "%s%s = %.*s;\n", indent, s->decls[j].name, (int)(inits[j].b - inits[j].a),
			            t + inits[j].a);
	return 0;
}

/* Loading element egg_e: the index, then PRE and the loop's init as assignments. */
static int
write_load(const struct gen *g, const struct rshape *r, const char *indent, struct strbuf *out)
{
	const char *type = r->index->type;
	if (egg_str_starts(type, "const "))
		type += 6;
	strbuf_addf(out, "%s%s = (%s)egg_e;\n", indent, r->index->name, type);
	int rc = 0;
	for (size_t i = 0; i < r->loop_at && rc == 0; i++)
		rc = write_as_assignment(g, r->items[i], r->items[i]->begin, r->items[i]->end, indent, out);
	if (rc == 0 && r->init.b > r->init.a)
		rc = write_as_assignment(g, r->loop->init ? r->loop->init : r->loop, r->init.a, r->init.b,
		                         indent, out);
	return rc;
}

static int
write_kernel(const struct gen *g, const struct rshape *r, const struct gkernel *gk, const char *name,
             const struct rpoint *pt, struct strbuf *out, struct strbuf *why)
{
	const char *t = g->text;
	struct strbuf whole = STRBUF_INIT, load1 = STRBUF_INIT, load2 = STRBUF_INIT;
	generic_kernel_text(g, r->k, name, pt->tpb, gk->restrict_ok, 0, NULL, &whole);
	size_t head = whole.len - (r->k->end - r->k->body_begin) - 1, close = head;
	while (close > 0 && whole.buf[close - 1] != ')')
		close--;
	strbuf_add(out, whole.buf, close - 1);
	strbuf_addstr(out, ", long long egg_total)");
	strbuf_add(out, whole.buf + close, head - close);
	strbuf_release(&whole);
	strbuf_addf(out, "{\n\tconst long long egg_stride = (long long)gridDim.x * blockDim.x;\n"
	                 "\tlong long egg_e = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
	                 "\tconst long long egg_limit = (long long)(%s);\n"
	                 "\tconst long long egg_end = egg_limit < egg_total ? egg_limit : egg_total;\n",
	            r->limit);
	int rc = write_hoisted(r, out, why);
	if (rc == 0 && (write_load(g, r, "\t\t", &load1) != 0 || write_load(g, r, "\t\t\t\t", &load2) != 0)) {
		strbuf_addstr(why, "a declaration before the loop is not written out declarator by declarator");
		rc = -1;
	}
	const struct ast_stmt *body = r->loop->then;
	int cond_len = (int)(r->cond.b - r->cond.a);
	strbuf_addf(out, "\tint egg_live = egg_e < egg_end;\n\tif (egg_live) {\n%s\t}\n", load1.buf);
	if (pt->steps == 1)
		strbuf_addf(out, "\t/* one step of the element's loop, or finish it and load the next */\n"
		                 "\twhile (egg_live) {\n\t\tif (%.*s) {\n\t\t\t",
		            cond_len, t + r->cond.a);
	else /* each condition still decides once: false ends the steps and the element */
		strbuf_addf(out, "\t/* up to %d steps of the element's loop, or finish it and load the next */\n"
		                 "\twhile (egg_live) {\n\t\tint egg_s = 0;\n#pragma unroll\n"
		                 "\t\tfor (; egg_s < %d; egg_s++) {\n\t\t\tif (!(%.*s))\n\t\t\t\tbreak;\n\t\t\t",
		            pt->steps, pt->steps, cond_len, t + r->cond.a);
	strbuf_addf(out, "%.*s\n", (int)(body->end - body->begin), t + body->begin);
	if (r->step.b > r->step.a)
		strbuf_addf(out, "\t\t\t%.*s;\n", (int)(r->step.b - r->step.a), t + r->step.a);
	if (pt->steps == 1)
		strbuf_addstr(out, "\t\t} else {\n");
	else
		strbuf_addf(out, "\t\t}\n\t\tif (egg_s < %d) {\n", pt->steps);
	for (size_t i = r->loop_at + 1; i < r->n_items; i++)
		strbuf_addf(out, "\t\t\t%.*s\n", (int)(r->items[i]->end - r->items[i]->begin), t + r->items[i]->begin);
	strbuf_addf(out, "\t\t\tegg_e += egg_stride;\n\t\t\tegg_live = egg_e < egg_end;\n"
	                 "\t\t\tif (egg_live) {\n%s\t\t\t}\n\t\t}\n\t}\n}\n",
	            load2.buf);
	strbuf_release(&load1);
	strbuf_release(&load2);
	return rc;
}

/* ---- writing the launcher ---- */

static void
write_launch(const struct gen *g, const struct glaunch *l, const char *name, const struct rpoint *pt,
             struct strbuf *out)
{
	const char *t = g->text;
	int tpb = pt->tpb;
	strbuf_addf(out, "{\n\t\tstatic int egg_occ = 0, egg_sms = 0;\n\t\tif (egg_occ <= 0) {\n"
	                 "\t\t\tint egg_dev = 0;\n\t\t\tcudaGetDevice(&egg_dev);\n"
	                 "\t\t\tif (cudaDeviceGetAttribute(&egg_sms, cudaDevAttrMultiProcessorCount, egg_dev) != cudaSuccess || egg_sms <= 0)\n"
	                 "\t\t\t\tegg_sms = 1;\n"
	                 "\t\t\tif (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, %s, %d, 0) != cudaSuccess || egg_occ <= 0)\n"
	                 "\t\t\t\tegg_occ = %d;\n\t\t}\n",
	            name, tpb, 2048 / tpb);
	strbuf_addf(out, "\t\t/* the threads the launch as written had: its elements' bound */\n"
	                 "\t\tconst long long egg_total = ((long long)(%s) + %ld - 1) / %ld * %ld;\n"
	                 "\t\tlong long egg_g = (long long)egg_sms * egg_occ * %d;\n"
	                 "\t\tif (egg_g > (egg_total + %d - 1) / %d)\n\t\t\tegg_g = (egg_total + %d - 1) / %d;\n"
	                 "\t\tif (egg_g < 1)\n\t\t\tegg_g = 1;\n\t\t%s<<<(unsigned)egg_g, %d",
	            l->grid_x, l->block, l->block, l->block, pt->waves, tpb, tpb, tpb, tpb, name, tpb);
	generic_config_tail(g, l, out);
	/* the arguments as written, then the bound */
	size_t a = l->config_end + 3, b = l->s->end;
	while (b > a && t[b - 1] != ')')
		b--;
	strbuf_addf(out, ">>>%.*s, egg_total);\n\t}", (int)(b - 1 - a), t + a);
}

/* One candidate; 0, or -1 with why. */
static int
emit(const struct gen *g, const struct rshape *shapes, const char *prefix, const struct rpoint *pt,
     struct strbuf *src, struct strbuf *why)
{
	int rc = 0;
	for (size_t i = 0; i < g->n_k && rc == 0; i++) {
		const struct gkernel *gk = &g->k[i];
		char *name = egg_xasprintf("%s_%s", prefix, gk->k->name);
		strbuf_addstr(src, gk->ns_open);
		if (shapes[i].ok)
			rc = write_kernel(g, &shapes[i], gk, name, pt, src, why);
		else
			generic_kernel_text(g, gk->k, name, gk->block0 > 0 ? gk->block0 : 0, gk->restrict_ok, 0, NULL, src);
		strbuf_addstr(src, gk->ns_close);
		free(name);
	}
	size_t at = g->f->begin;
	for (size_t i = 0; i < g->n_l && rc == 0; i++) {
		const struct glaunch *l = &g->l[i];
		size_t ki = 0;
		while (g->k[ki].k != l->k)
			ki++;
		char *name = egg_xasprintf("%s%s_%s", g->k[ki].ns_qual, prefix, l->k->name);
		strbuf_add(src, g->text + at, l->name_at - at);
		if (shapes[ki].ok) {
			write_launch(g, l, name, pt, src);
			at = l->s->end;
		} else {
			strbuf_addf(src, "%s<<<", name);
			at = l->config_at;
		}
		free(name);
	}
	strbuf_add(src, g->text + at, g->f->end - at);
	strbuf_addch(src, '\n');
	return rc;
}

size_t
refill_generate(const struct egg_bundle *b, const char *prefix, struct builtin_candidate **cands,
                size_t *n_cands, struct strbuf *why)
{
	struct strbuf text = STRBUF_INIT, ignored = STRBUF_INIT;
	struct gen g;
	size_t added = 0, fit = 0;
	struct rshape *shapes = NULL;
	if (b->kind == BUNDLE_KERNEL)
		strbuf_addstr(why, "refill: a kernel target's launch is its caller's");
	else if (generic_open(&g, b, &text, &ignored) != 0)
		strbuf_addstr(why, "refill: the launcher's launches cannot be rewritten");
	if (b->kind == BUNDLE_KERNEL || !g.f)
		goto out;
	for (size_t i = 0; i < g.n_k; i++)
		if (g.k[i].k->is_instance) { /* its statements' text is the template's */
			strbuf_addf(why, "refill: '%s' is an instance of a template", g.k[i].k->name);
			goto out;
		}
	shapes = egg_xcalloc(g.n_k, sizeof *shapes);
	for (size_t i = 0; i < g.n_k; i++) {
		struct rshape *r = &shapes[i];
		struct strbuf no = STRBUF_INIT;
		r->k = g.k[i].k;
		if (read_shape(&g, r, &no) == 0 && !g.k[i].geometry_ok)
			strbuf_addstr(&no, "its launches' grids are not ceil(n / block) of a literal block "
			                   "(or the block's size is written into the kernel)");
		r->ok = no.len == 0;
		fit += r->ok;
		if (!r->ok)
			strbuf_addf(why, "%srefill '%s': %s", why->len ? "; " : "", r->k->name, no.buf);
		strbuf_release(&no);
	}
	for (size_t p = 0; fit && p < N_POINTS; p++) {
		const struct rpoint *pt = &points[p];
		struct strbuf src = STRBUF_INIT, label = STRBUF_INIT;
		char *kp = egg_xasprintf("%s_c%zu", prefix, *n_cands);
		int rc = emit(&g, shapes, kp, pt, &src, why);
		free(kp);
		if (rc != 0) {
			strbuf_release(&src);
			break;
		}
		strbuf_addf(&label, "refill tpb=%d grid=%s", pt->tpb, pt->waves == 1 ? "wave" : "2waves");
		if (pt->steps > 1)
			strbuf_addf(&label, " steps=%d", pt->steps);
		for (size_t i = 0; i < g.n_k; i++)
			if (g.k[i].restrict_ok) {
				strbuf_addstr(&label, " restrict");
				break;
			}
		*cands = egg_xrealloc(*cands, (*n_cands + 1) * sizeof **cands);
		(*cands)[*n_cands].label = strbuf_detach(&label);
		(*cands)[*n_cands].source = strbuf_detach(&src);
		(*n_cands)++;
		added++;
	}
	for (size_t i = 0; i < g.n_k; i++)
		free(shapes[i].limit);
	free(shapes);
out:
	if (b->kind != BUNDLE_KERNEL)
		generic_close(&g);
	strbuf_release(&text);
	strbuf_release(&ignored);
	return added;
}
