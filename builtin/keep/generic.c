/*
 * generic.c -- the generic path (generic.h): for code no recipe lifts, candidates
 * that keep the reference's code and change only what is provably safe.
 *
 *   - __restrict__ on the pointer parameters of each launched kernel, when every
 *     launch passes it distinct buffers of the target (the clauses guarantee that
 *     the target's buffers do not alias), or on a kernel target's own pointers;
 *   - the launch geometry: a 1-D block given as a number (or a local or dim3 of
 *     one) whose grid is ceil(X / block) in one of its spellings is relaunched
 *     with other block sizes and the grid recomputed, when the kernels cannot
 *     depend on the block size beyond blockDim.x (no shared memory, barriers or
 *     warp shuffles in the closure, no literal of the old size in the kernel);
 *   - __launch_bounds__(block) when every launch of a kernel has that block;
 *   - "#pragma unroll 4" before the kernel's for loops (a hint: always safe);
 *   - a scalar parameter that the kernel divides by passed as egg_div<T>
 *     (fastdiv.h): each point once as written and once with it.
 *
 * Launched kernels are copied under new names (PREFIX_cK_NAME) and the target's
 * text is kept but for its launches; kernel targets keep their header's name.
 * The reference always competes in the harness, so a slower edit never wins.
 */
#include "config.h"

#include "builtin/keep/fastdiv.h"
#include "builtin/keep/generic.h"
#include "builtin/keep/generic_internal.h"
#include "builtin/parse/parse.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long blocks[] = { 128, 256, 512, 1024 };
#define N_BLOCKS (sizeof blocks / sizeof *blocks)

/* ---- reading the launcher ---- */

static void
collect_launches(struct gen *g, const struct ast_stmt *s)
{
	if (!s)
		return;
	if (s->kind == AST_LAUNCH) {
		g->l = egg_xrealloc(g->l, (g->n_l + 1) * sizeof *g->l);
		memset(&g->l[g->n_l], 0, sizeof *g->l);
		g->l[g->n_l++].s = s;
	}
	for (size_t i = 0; i < s->n_body; i++)
		collect_launches(g, s->body[i]);
	collect_launches(g, s->init);
	collect_launches(g, s->then);
	collect_launches(g, s->otherwise);
}

/* The launches' places in the text, matched in order with the parsed ones. */
const char *
generic_kernel_name(const struct ast_function *k)
{
	return k->is_instance ? k->tname : k->name;
}

const char *
generic_template_args(const struct ast_function *k)
{
	return k->is_instance ? k->name + strlen(k->tname) : "";
}

const char *
generic_qualifier_start(const char *text, const char *name)
{
	const char *s = name;
	for (;;) {
		const char *c = s;
		while (c > text && isspace((unsigned char)c[-1]))
			c--;
		if (c - text < 2 || c[-1] != ':' || c[-2] != ':')
			return s;
		c -= 2;
		s = c; /* "::" alone (a global qualifier), or after a name */
		while (c > text && isspace((unsigned char)c[-1]))
			c--;
		const char *w = c;
		while (w > text && (isalnum((unsigned char)w[-1]) || w[-1] == '_'))
			w--;
		if (w == c)
			return s;
		s = w;
	}
}

static int
locate_launches(struct gen *g, struct strbuf *why)
{
	size_t n = 0;
	const char *t = g->text;
	for (const char *p = strstr(t + g->f->body_begin, "<<<"); p && (size_t)(p - t) < g->f->end;
	     p = strstr(p + 3, "<<<")) {
		const char *e = p;
		while (e > t && isspace((unsigned char)e[-1]))
			e--;
		if (e > t && e[-1] == '>') /* k<float, 4><<<: back over the arguments */
			for (int depth = 0; e > t;) {
				char c = *--e;
				depth += (c == '>') - (c == '<');
				if (depth == 0) {
					while (e > t && isspace((unsigned char)e[-1]))
						e--;
					break;
				}
			}
		const char *s = e;
		while (s > t && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
			s--;
		const char *close = strstr(p + 3, ">>>");
		const char *want = n < g->n_l ? g->l[n].s->expr->text : "";
		size_t want_len = strcspn(want, "<"); /* an instance's name without its arguments */
		if (n >= g->n_l || !close || (size_t)(e - s) != want_len || strncmp(s, want, want_len) != 0)
			break;
		g->l[n].name_at = (size_t)(generic_qualifier_start(t, s) - t);
		g->l[n].config_at = (size_t)(p + 3 - t);
		g->l[n].config_end = (size_t)(close - t);
		n++;
	}
	if (n != g->n_l) {
		strbuf_addstr(why, "its launches are not all written out in the launcher (a macro?)");
		return -1;
	}
	return 0;
}

/* The last declaration of name in the launcher, if the name is never assigned. */
static const struct ast_decl *
find_decl(const struct ast_stmt *s, const char *name, const struct ast_decl **found, int *assigned);

static const struct ast_decl *
find_decl(const struct ast_stmt *s, const char *name, const struct ast_decl **found, int *assigned)
{
	if (!s)
		return *found;
	for (size_t i = 0; i < s->n_decls; i++) {
		if (strcmp(s->decls[i].name, name) == 0)
			*found = &s->decls[i];
		*assigned |= ast_assigns(s->decls[i].init, name);
	}
	*assigned |= ast_assigns(s->expr, name);
	*assigned |= ast_assigns(s->step, name);
	for (size_t i = 0; i < s->n_body; i++)
		find_decl(s->body[i], name, found, assigned);
	find_decl(s->init, name, found, assigned);
	find_decl(s->then, name, found, assigned);
	find_decl(s->otherwise, name, found, assigned);
	return *found;
}

/* A launch configuration with locals and one-argument dim3s seen through. */
static const struct ast_expr *
resolve(const struct gen *g, const struct ast_expr *e)
{
	for (int depth = 0; e && depth < 4; depth++) {
		while (e->kind == AST_CAST)
			e = e->kids[0];
		if (e->kind == AST_CALL && e->text && strcmp(e->text, "dim3") == 0)
			return e->n_kids == 1 ? resolve(g, e->kids[0]) : NULL;
		if (e->kind != AST_NAME)
			return e;
		const struct ast_decl *d = NULL;
		int assigned = 0;
		find_decl(g->f->body, e->text, &d, &assigned);
		if (!d || assigned || !d->init)
			return d ? NULL : e;
		e = d->init;
		if (e->kind == AST_CALL && e->text && strcmp(e->text, d->name) == 0) /* dim3 b(256) */
			return e->n_kids == 1 ? resolve(g, e->kids[0]) : NULL;
	}
	return e;
}

static long
literal(const struct gen *g, const struct ast_expr *e)
{
	e = resolve(g, e);
	if (!e || e->kind != AST_NUM)
		return 0;
	char *end;
	long v = strtol(e->text, &end, 0);
	return v > 0 && v <= 1024 && strspn(end, "uUlL") == strlen(end) ? v : 0;
}

/* C text of a host expression; -1 for a form the parser does not keep whole. */
static int
print_expr(const struct ast_expr *e, struct strbuf *out)
{
	int rc = 0;
	switch (e->kind) {
	case AST_NUM:
	case AST_NAME:
	case AST_STR:
		strbuf_addstr(out, e->text);
		return 0;
	case AST_CALL:
		if (!e->text)
			return -1;
		strbuf_addf(out, "%s(", e->text);
		for (size_t i = 0; i < e->n_kids && rc == 0; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			rc = print_expr(e->kids[i], out);
		}
		strbuf_addch(out, ')');
		return rc;
	case AST_UN:
		strbuf_addf(out, "(%s", e->text);
		rc = print_expr(e->kids[0], out);
		strbuf_addch(out, ')');
		return rc;
	case AST_CAST:
		strbuf_addf(out, "((%s)", e->text);
		rc = print_expr(e->kids[0], out);
		strbuf_addch(out, ')');
		return rc;
	case AST_BIN:
		strbuf_addch(out, '(');
		rc = print_expr(e->kids[0], out);
		strbuf_addf(out, " %s ", e->text);
		if (rc == 0)
			rc = print_expr(e->kids[1], out);
		strbuf_addch(out, ')');
		return rc;
	case AST_COND:
		strbuf_addch(out, '(');
		for (int i = 0; i < 3 && rc == 0; i++) {
			rc = print_expr(e->kids[i], out);
			strbuf_addstr(out, i == 0 ? " ? " : i == 1 ? " : " : "");
		}
		strbuf_addch(out, ')');
		return rc;
	default: /* members (. or ->), indexing, assignments: not in a grid we rewrite */
		return -1;
	}
}

static int
is_num(const struct ast_expr *e, long v)
{
	long x;
	return ast_int_value(e, &x) && x == v;
}

/* X in ceil(X / B) spelled (X + B - 1) / B, (X + (B-1)) / B or X / B + 1 */
static char *
ceil_div_x(const struct gen *g, const struct ast_expr *grid, long block)
{
	const struct ast_expr *e = resolve(g, grid), *x = NULL;
	if (!e || e->kind != AST_BIN)
		return NULL;
	if (strcmp(e->text, "/") == 0 && literal(g, e->kids[1]) == block) {
		const struct ast_expr *l = e->kids[0];
		if (l->kind == AST_BIN && strcmp(l->text, "+") == 0 && is_num(l->kids[1], block - 1))
			x = l->kids[0];
		else if (l->kind == AST_BIN && strcmp(l->text, "-") == 0 && is_num(l->kids[1], 1) &&
		         l->kids[0]->kind == AST_BIN && strcmp(l->kids[0]->text, "+") == 0 &&
		         literal(g, l->kids[0]->kids[1]) == block)
			x = l->kids[0]->kids[0];
	} else if (strcmp(e->text, "+") == 0 && is_num(e->kids[1], 1) && e->kids[0]->kind == AST_BIN &&
	           strcmp(e->kids[0]->text, "/") == 0 && literal(g, e->kids[0]->kids[1]) == block) {
		x = e->kids[0]->kids[0];
	}
	struct strbuf t = STRBUF_INIT;
	if (!x || print_expr(x, &t) != 0) {
		strbuf_release(&t);
		return NULL;
	}
	return strbuf_detach(&t);
}

/* Does the kernel's body spell the number v (a hard-wired block size)? */
static int
body_has_number(const struct gen *g, const struct ast_function *k, long v)
{
	char num[24];
	snprintf(num, sizeof num, "%ld", v);
	size_t len = strlen(num);
	for (const char *p = strstr(g->text + k->body_begin, num); p && (size_t)(p - g->text) < k->end;
	     p = strstr(p + 1, num))
		if (!isalnum((unsigned char)p[-1]) && p[-1] != '_' && p[-1] != '.' &&
		    !isalnum((unsigned char)p[len]) && p[len] != '.')
			return 1;
	return 0;
}

static struct gkernel *
kernel_of(struct gen *g, const struct ast_function *k)
{
	for (size_t i = 0; i < g->n_k; i++)
		if (g->k[i].k == k)
			return &g->k[i];
	g->k = egg_xrealloc(g->k, (g->n_k + 1) * sizeof *g->k);
	struct gkernel *gk = &g->k[g->n_k++];
	memset(gk, 0, sizeof *gk);
	gk->k = k;
	gk->restrict_ok = gk->geometry_ok = 1;
	gk->block0 = -1;
	gk->has_loop = ast_has_loop(k->body);
	gk->fastdiv = egg_xcalloc(k->n_params + 1, sizeof *gk->fastdiv);
	gk->n_fastdiv = fastdiv_params(g->text, k, gk->fastdiv);
	return gk;
}

/* every pointer argument is a distinct pointer parameter of the target */
static int
distinct_buffers(const struct gen *g, const struct glaunch *l)
{
	for (size_t i = 0; i < l->k->n_params; i++) {
		if (!strchr(l->k->params[i].type, '*'))
			continue;
		const struct ast_expr *a = l->s->launch[l->s->n_config + i];
		while (a->kind == AST_CAST)
			a = a->kids[0];
		const struct bundle_param *p = a->kind == AST_NAME ? bundle_find_param(g->b, a->text) : NULL;
		if (!p || !p->is_pointer)
			return 0;
		for (size_t j = 0; j < i; j++) {
			const struct ast_expr *o = l->s->launch[l->s->n_config + j];
			while (o->kind == AST_CAST)
				o = o->kids[0];
			if (strchr(l->k->params[j].type, '*') && o->kind == AST_NAME && strcmp(o->text, a->text) == 0)
				return 0;
		}
	}
	return 1;
}

size_t
generic_mentions(const char *text, size_t from, size_t to, const char *name)
{
	/* as a token of the code: not inside a string, a character or a comment
	 * (check(cudaGetLastError(), "box9") names no kernel) */
	size_t n = 0, len = strlen(name);
	for (size_t i = from; i < to && text[i];) {
		char ch = text[i];
		if (ch == '/' && text[i + 1] == '/') {
			while (i < to && text[i] && text[i] != '\n')
				i++;
		} else if (ch == '/' && text[i + 1] == '*') {
			const char *end = strstr(text + i + 2, "*/");
			i = end ? (size_t)(end - text) + 2 : to;
		} else if (ch == '"' || ch == '\'') {
			for (i++; i < to && text[i] && text[i] != ch; i++)
				if (text[i] == '\\' && text[i + 1])
					i++;
			i++;
		} else if (isalpha((unsigned char)ch) || ch == '_') {
			size_t at = i;
			while (i < to && (isalnum((unsigned char)text[i]) || text[i] == '_'))
				i++;
			n += i - at == len && strncmp(text + at, name, len) == 0;
		} else {
			i++;
		}
	}
	return n;
}

static size_t
launches_of(const struct gen *g, const struct ast_function *k)
{
	size_t n = 0, len = strlen(generic_kernel_name(k)); /* a template's: every instance's */
	for (size_t i = 0; i < g->n_l; i++) {
		const char *t = g->l[i].s->expr->text;
		n += strncmp(t, k->name, len) == 0 && (t[len] == '\0' || t[len] == '<');
	}
	return n;
}

static int
analyze_launcher(struct gen *g, struct strbuf *why)
{
	collect_launches(g, g->f->body);
	if (g->n_l == 0) {
		strbuf_addstr(why, "the launcher launches no kernel");
		return -1;
	}
	if (locate_launches(g, why) != 0)
		return -1;
	for (size_t i = 0; i < g->n_l; i++) {
		struct glaunch *l = &g->l[i];
		l->k = ast_find_function(g->u, l->s->expr->text);
		if (!l->k || !strstr(l->k->qualifiers, "__global__") || l->k->begin >= g->target_at ||
		    l->k->n_params != l->s->n_args) {
			strbuf_addf(why, "it launches '%s', which is not a kernel of the closure",
			            l->s->expr->text);
			return -1;
		}
		if (generic_mentions(g->text, g->f->body_begin, g->f->end, generic_kernel_name(l->k)) !=
		    launches_of(g, l->k)) {
			strbuf_addf(why, "the launcher names '%s' other than in its launches (an attribute or "
			            "occupancy call would apply to the original)", generic_kernel_name(l->k));
			return -1;
		}
		struct gkernel *gk = kernel_of(g, l->k);
		for (size_t j = 0; j < g->n_k && l->k->is_instance; j++)
			if (g->k[j].k != l->k && g->k[j].k->is_instance && strcmp(g->k[j].k->tname, l->k->tname) == 0) {
				strbuf_addf(why, "it launches two instances of the template '%s'", l->k->tname);
				return -1;
			}
		if (l->k->is_instance)
			gk->n_fastdiv = 0; /* its parameters' types are the template's */
		if (!gk->ns_open) {
			struct strbuf open = STRBUF_INIT, close = STRBUF_INIT, qual = STRBUF_INIT;
			int below = ast_ns_below(g->f->ns, l->k->ns, &open, &close, &qual);
			gk->ns_open = strbuf_detach(&open);
			gk->ns_close = strbuf_detach(&close);
			gk->ns_qual = strbuf_detach(&qual);
			if (below != 0) {
				strbuf_addf(why, "it launches '%s' of namespace '%s', outside the target's "
				            "namespace '%s'", l->k->name, l->k->ns, g->f->ns);
				return -1;
			}
		}
		gk->restrict_ok &= distinct_buffers(g, l);
		l->block = literal(g, l->s->launch[1]);
		if (l->block && g->geometry_safe && !body_has_number(g, l->k, l->block)) {
			/* the block's name passed as an argument would tell the kernel the old size */
			const struct ast_expr *bl = l->s->launch[1];
			for (size_t a = 0; a < l->s->n_args && bl->kind == AST_NAME; a++)
				if (l->s->launch[l->s->n_config + a]->kind == AST_NAME &&
				    strcmp(l->s->launch[l->s->n_config + a]->text, bl->text) == 0)
					l->block = -l->block;
			if (l->block > 0)
				l->grid_x = ceil_div_x(g, l->s->launch[0], l->block);
			if (l->block < 0)
				l->block = -l->block;
		}
		gk->geometry_ok &= l->grid_x != NULL;
		gk->block0 = gk->block0 == -1 || gk->block0 == l->block ? l->block : 0;
	}
	return 0;
}

/* ---- writing a candidate ---- */

static int
span_has(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++)
		if (strncmp(s + i, word, w) == 0)
			return 1;
	return 0;
}

static int
any_fastdiv(const struct gen *g)
{
	for (size_t i = 0; g->b->kind != BUNDLE_KERNEL && i < g->n_k; i++)
		if (g->k[i].n_fastdiv)
			return 1;
	return 0;
}

static int
any_restrict(const struct gen *g)
{
	for (size_t i = 0; i < g->n_k; i++)
		if (g->k[i].restrict_ok)
			return 1;
	return 0;
}

/* The kernel's text with its name, launch bounds and restrict qualifiers edited,
 * when unroll, a pragma before each for loop, and the parameters flagged in
 * fastdiv (NULL: none) passed as egg_div<T>. */
/* The end of the comment, string or character literal, or preprocessor line
 * (with its continuations) that starts at t[q]; q itself when none does. */
static size_t
past_non_code(const char *t, size_t q, size_t end)
{
	if (t[q] == '/' && q + 1 < end && t[q + 1] == '/') {
		while (q < end && t[q] != '\n')
			q++;
		return q;
	}
	if (t[q] == '/' && q + 1 < end && t[q + 1] == '*') {
		const char *e = strstr(t + q + 2, "*/");
		return e && (size_t)(e - t) + 2 <= end ? (size_t)(e - t) + 2 : end;
	}
	if (t[q] == '"' || t[q] == '\'') {
		char quote = t[q++];
		while (q < end && t[q] != quote && t[q] != '\n')
			q += t[q] == '\\' ? 2 : 1;
		return q < end ? q + 1 : end;
	}
	if (t[q] == '#') {
		size_t b = q;
		while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t'))
			b--;
		if (b > 0 && t[b - 1] != '\n')
			return q;
		while (q < end && (t[q] != '\n' || t[q - 1] == '\\'))
			q++;
		return q;
	}
	return q;
}

/* Whether the next token after t[q] (spaces, newlines and comments skipped) is '('. */
static int
followed_by_paren(const char *t, size_t q, size_t end)
{
	while (q < end) {
		if (isspace((unsigned char)t[q])) {
			q++;
		} else {
			size_t s = past_non_code(t, q, end);
			if (s == q || t[q] != '/')
				break;
			q = s;
		}
	}
	return q < end && t[q] == '(';
}

static void
kernel_text(const struct gen *g, const struct ast_function *k, const char *name, long bounds,
            int restrict_ok, int unroll, const int *fastdiv, struct strbuf *out)
{
	const char *t = g->text, *kname = generic_kernel_name(k);
	size_t open = k->begin;
	while (open < k->body_begin && t[open] != '(')
		open++;
	if (k->is_instance) /* the template itself: its launches pass the arguments */
		strbuf_add(out, t + k->template_at, k->begin - k->template_at);
	/* header up to the parameters: qualifiers, launch bounds, the name */
	struct strbuf head = STRBUF_INIT;
	strbuf_add(&head, t + k->begin, open - k->begin);
	char *at = strstr(head.buf, kname);
	while (at && (at[strlen(kname)] != '\0' && !isspace((unsigned char)at[strlen(kname)])))
		at = strstr(at + 1, kname);
	if (at) {
		strbuf_add(out, head.buf, (size_t)(at - head.buf));
		if (bounds > 0 && !strstr(head.buf, "__launch_bounds__"))
			strbuf_addf(out, "__launch_bounds__(%ld) ", bounds);
		strbuf_addstr(out, name ? name : kname);
		strbuf_addstr(out, at + strlen(kname));
	} else { /* cannot happen: the header holds the name */
		strbuf_addstr(out, head.buf);
	}
	strbuf_release(&head);
	/* parameters: __restrict__ after the last '*' of each pointer */
	size_t p = open, depth = 0, last_star = 0, seg = open, param = 0;
	for (; p < k->body_begin; p++) {
		char c = t[p];
		if (c == '(' || c == '[')
			depth++;
		else if (c == ')' || c == ']')
			depth--;
		if (c == '*' && depth == 1)
			last_star = p;
		if ((c == ',' && depth == 1) || (c == ')' && depth == 0)) {
			if (fastdiv && param < k->n_params && fastdiv[param]) {
				char *type = fastdiv_type(k->params[param].type);
				strbuf_addf(out, "%c %s %s", t[seg], type, k->params[param].name);
				free(type);
			} else if (restrict_ok && last_star > seg && !span_has(t + seg, p - seg, "restrict")) {
				strbuf_add(out, t + seg, last_star + 1 - seg);
				strbuf_addstr(out, "__restrict__ ");
				strbuf_add(out, t + last_star + 1, p - last_star - 1);
			} else {
				strbuf_add(out, t + seg, p - seg);
			}
			seg = p;
			param++;
			if (c == ')')
				break;
		}
	}
	strbuf_add(out, t + seg, k->body_begin - seg);
	/* the body: a hint before each for loop, never inside a comment, a literal
	 * or a preprocessor line ("OC is short for ..." in a comment is no loop) */
	for (size_t q = k->body_begin; q < k->end; q++) {
		size_t skip = unroll ? past_non_code(t, q, k->end) : q;
		if (skip > q) {
			strbuf_add(out, t + q, skip - q);
			q = skip - 1;
			continue;
		}
		if (unroll && strncmp(t + q, "for", 3) == 0 && !isalnum((unsigned char)t[q - 1]) &&
		    t[q - 1] != '_' && !isalnum((unsigned char)t[q + 3]) && t[q + 3] != '_' &&
		    t[q - 1] != '.' && t[q - 1] != '>' && followed_by_paren(t, q + 3, k->end)) {
			size_t ls = q; /* the pragma on a line of its own, indented like the loop */
			while (ls > k->body_begin && (t[ls - 1] == ' ' || t[ls - 1] == '\t'))
				ls--;
			size_t prev = ls > k->body_begin ? ls - 1 : ls; /* the line before: the user's own pragma? */
			while (prev > k->body_begin && t[prev - 1] != '\n')
				prev--;
			while (prev < ls && (t[prev] == ' ' || t[prev] == '\t'))
				prev++;
			if (t[ls - 1] == '\n' && strncmp(t + prev, "#pragma unroll", 14) == 0) {
				/* the loop keeps its own */
			} else if (t[ls - 1] == '\n') {
				strbuf_addstr(out, "#pragma unroll 4\n");
				strbuf_add(out, t + ls, q - ls);
			} else {
				strbuf_addstr(out, "\n#pragma unroll 4\n");
			}
		}
		strbuf_addch(out, t[q]);
	}
	strbuf_addch(out, '\n');
}

/* One candidate: block (0: as written), unroll, fastdiv; 0, or -1 when it edits
 * nothing. */
static int
emit(const struct gen *g, const char *prefix, long block, int unroll, int fastdiv,
     struct strbuf *label, struct strbuf *src)
{
	int edits = 0;
	strbuf_addstr(label, "generic");
	if (block)
		strbuf_addf(label, " block=%ld", block);
	if (g->b->kind == BUNDLE_KERNEL) {
		int r = g->k[0].restrict_ok;
		kernel_text(g, g->f, NULL, 0, r, unroll && g->k[0].has_loop, NULL, src);
		edits = r + (unroll && g->k[0].has_loop);
	} else {
		for (size_t i = 0; i < g->n_k; i++) {
			const struct gkernel *gk = &g->k[i];
			long bounds = block && gk->geometry_ok ? block : gk->block0 > 0 ? gk->block0 : 0;
			char *name = egg_xasprintf("%s_%s", prefix, generic_kernel_name(gk->k));
			const int fd = fastdiv && gk->n_fastdiv;
			strbuf_addstr(src, gk->ns_open);
			kernel_text(g, gk->k, name, bounds, gk->restrict_ok, unroll && gk->has_loop,
			            fd ? gk->fastdiv : NULL, src);
			strbuf_addstr(src, gk->ns_close);
			edits += gk->restrict_ok + (bounds > 0) + (unroll && gk->has_loop) +
			         (block && gk->geometry_ok) + fd;
			free(name);
		}
		size_t at = g->f->begin;
		for (size_t i = 0; i < g->n_l; i++) {
			const struct glaunch *l = &g->l[i];
			strbuf_add(src, g->text + at, l->name_at - at);
			const struct gkernel *gk = kernel_of((struct gen *)g, l->k);
			strbuf_addf(src, "%s%s_%s%s<<<", gk->ns_qual, prefix, generic_kernel_name(l->k),
			            generic_template_args(l->k));
			if (block && gk->geometry_ok) {
				/* the grid and block, then the shared memory and stream as written */
				strbuf_addf(src, "(unsigned)(((long long)(%s) + %ld - 1) / %ld), %ld", l->grid_x,
				            block, block, block);
				generic_config_tail(g, l, src);
			} else {
				strbuf_add(src, g->text + l->config_at, l->config_end - l->config_at);
			}
			at = l->config_end;
		}
		strbuf_add(src, g->text + at, g->f->end - at);
		strbuf_addch(src, '\n');
	}
	if (any_restrict(g))
		strbuf_addstr(label, " restrict");
	if (unroll)
		strbuf_addstr(label, " unroll=4");
	if (fastdiv)
		strbuf_addstr(label, " fastdiv");
	return edits ? 0 : -1;
}

/* Do the launches it would change already use this block? */
static int
as_written(const struct gen *g, long block)
{
	for (size_t i = 0; i < g->n_k; i++)
		if (g->k[i].geometry_ok && g->k[i].block0 != block)
			return 0;
	return 1;
}

int
generic_block_shape_free(const char *closure)
{
	static const char *const words[] = { "__shared__", "__syncthreads", "__shfl", "__ballot",
		                             "__any_sync", "__all_sync", "blockDim.y", "blockDim.z",
		                             "cooperative_groups", "warpSize", NULL };
	for (int i = 0; words[i]; i++)
		if (strstr(closure, words[i]))
			return 0;
	return 1;
}

size_t
generic_generate(const struct egg_bundle *b, const char *prefix, struct builtin_candidate **cands,
                 size_t *n_cands, struct strbuf *why)
{
	struct strbuf text = STRBUF_INIT;
	struct gen g;
	generic_open(&g, b, &text, why);
	size_t added = 0;
	int any_loop = 0, any_geometry = 0;
	for (size_t i = 0; i < g.n_k; i++)
		any_loop |= g.k[i].has_loop, any_geometry |= g.k[i].geometry_ok;
	/* divisions by a launch's scalar through egg_div (fastdiv.h): each point once
	 * as it is and once with them, when a kernel has such a divisor and the
	 * template is there (a multiply can lose to the division it replaces when
	 * dividends are negative or the compiler shared one division between / and %) */
	struct strbuf fderr = STRBUF_INIT;
	char *fd = g.f && any_fastdiv(&g) ? fastdiv_prelude(&fderr) : NULL;
	strbuf_release(&fderr);
	/* points: as written (restrict, bounds), each other block size, then unrolled */
	struct strvec seen = STRVEC_INIT;
	for (size_t pf = 0; g.f && pf < 2 * (N_BLOCKS + 2); pf++) {
		size_t pt = pf / 2;
		long block = pt >= 1 && pt <= N_BLOCKS ? blocks[pt - 1] : 0;
		int unroll = pt == N_BLOCKS + 1;
		int fastdiv = (int)(pf % 2);
		if ((block && !any_geometry) || (unroll && !any_loop) || (block && as_written(&g, block)) ||
		    (fastdiv && !fd))
			continue;
		if (unroll && any_geometry)
			block = 256;
		struct strbuf label = STRBUF_INIT, src = STRBUF_INIT, probe = STRBUF_INIT, pl = STRBUF_INIT;
		char *name = egg_xasprintf("%s_c%zu", prefix, *n_cands);
		int rc = emit(&g, "egg_probe", block, unroll, fastdiv, &pl, &probe);
		int dup = 0;
		for (size_t j = 0; rc == 0 && j < seen.n && !dup; j++)
			dup = strcmp(seen.v[j], probe.buf) == 0;
		if (fastdiv)
			strbuf_addstr(&src, fd);
		if (rc == 0 && !dup)
			rc = emit(&g, name, block, unroll, fastdiv, &label, &src);
		free(name);
		strbuf_release(&pl);
		if (rc != 0 || dup) {
			strbuf_release(&probe);
			strbuf_release(&label);
			strbuf_release(&src);
			continue;
		}
		strvec_push_owned(&seen, strbuf_detach(&probe));
		*cands = egg_xrealloc(*cands, (*n_cands + 1) * sizeof **cands);
		(*cands)[*n_cands].label = strbuf_detach(&label);
		(*cands)[*n_cands].source = strbuf_detach(&src);
		(*n_cands)++;
		added++;
	}
	if (g.f && added == 0)
		strbuf_addstr(why, "the generic path finds nothing it can change safely (no distinct "
		              "buffers for __restrict__, no block size and grid it can recompute, no loop)");
	strvec_clear(&seen);
	free(fd);
	generic_close(&g);
	strbuf_release(&text);
	return added;
}

int
generic_open(struct gen *g, const struct egg_bundle *b, struct strbuf *text, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT;
	memset(g, 0, sizeof *g);
	g->b = b;
	strbuf_addstr(text, b->closure ? b->closure : "");
	strbuf_addch(text, '\n');
	g->target_at = text->len;
	strbuf_addstr(text, b->target ? b->target : "");
	g->text = text->buf;
	g->geometry_safe = generic_block_shape_free(b->closure ? b->closure : "");
	g->u = parse_unit(text->buf, &err);
	g->f = g->u ? ast_find_function(g->u, b->name) : NULL;
	if (!g->u) {
		strbuf_addf(why, "the generic path cannot read the code: %s", err.buf);
	} else if (!g->f || g->f->begin < g->target_at) {
		strbuf_addf(why, "the generic path did not find the target '%s'", b->name);
		g->f = NULL;
	} else if (b->kind == BUNDLE_KERNEL) {
		struct gkernel *gk = kernel_of(g, g->f);
		gk->restrict_ok = 1; /* its pointers are the bundle's buffers */
		gk->geometry_ok = 0;
		gk->n_fastdiv = 0; /* its header is the user's: its types stay */
	} else if (analyze_launcher(g, why) != 0) {
		strbuf_addstr(why, " (the generic path leaves it as written)");
		g->f = NULL;
	}
	strbuf_release(&err);
	return g->f ? 0 : -1;
}

void
generic_close(struct gen *g)
{
	for (size_t i = 0; i < g->n_l; i++)
		free(g->l[i].grid_x);
	free(g->l);
	for (size_t i = 0; i < g->n_k; i++) {
		free(g->k[i].fastdiv);
		free(g->k[i].ns_open);
		free(g->k[i].ns_close);
		free(g->k[i].ns_qual);
	}
	free(g->k);
	if (g->u)
		ast_unit_free(g->u);
	memset(g, 0, sizeof *g);
}

void
generic_kernel_text(const struct gen *g, const struct ast_function *k, const char *name,
                    long bounds, int restrict_ok, int unroll, const int *fastdiv,
                    struct strbuf *out)
{
	kernel_text(g, k, name, bounds, restrict_ok, unroll, fastdiv, out);
}

void
generic_config_tail(const struct gen *g, const struct glaunch *l, struct strbuf *out)
{
	const char *c = g->text + l->config_at, *e = g->text + l->config_end;
	int depth = 0, commas = 0;
	for (; c < e && commas < 2; c++) {
		depth += *c == '(' || *c == '[' || *c == '{';
		depth -= *c == ')' || *c == ']' || *c == '}';
		commas += *c == ',' && depth == 0;
	}
	if (commas == 2)
		strbuf_add(out, c - 1, (size_t)(e - c + 1));
}

int
generic_print_expr(const struct ast_expr *e, struct strbuf *out)
{
	return print_expr(e, out);
}

int
generic_assigned(const struct ast_stmt *s, const char *name)
{
	const struct ast_decl *d = NULL;
	int assigned = 0;
	find_decl(s, name, &d, &assigned);
	return assigned;
}
