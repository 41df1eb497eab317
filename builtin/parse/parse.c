/*
 * parse.c -- tokenizer and recursive-descent parser for the C/CUDA subset of
 * naive kernels (see parse.h for the subset and why this is not libclang).
 *
 * Every node is allocated from one pool owned by the unit, so the parser can
 * bail out anywhere (longjmp-free: errors propagate as NULL returns with the
 * first message kept in p->err).
 */
#include "config.h"

#include "builtin/parse/parse_internal.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- token helpers ---- */

static const struct token *
peek(const struct parser *p, size_t ahead)
{
	size_t i = p->pos + ahead;
	return &p->toks[i < p->n ? i : p->n - 1];
}

static int
is(const struct parser *p, const char *text)
{
	const struct token *t = peek(p, 0);
	return t->kind != TK_END && t->kind != TK_STR && strcmp(t->text, text) == 0;
}

static int
accept(struct parser *p, const char *text)
{
	if (!is(p, text))
		return 0;
	p->pos++;
	return 1;
}

static int
expect(struct parser *p, const char *text)
{
	if (accept(p, text))
		return 1;
	parse_fail(p, "expected '%s' before '%s'", text, peek(p, 0)->text);
	return 0;
}

static const char *const type_words[] = {
	"void", "char", "short", "int", "long", "float", "double", "unsigned", "signed",
	"bool", "size_t", "ptrdiff_t", "const", "volatile", "__half", "half", "__nv_bfloat16",
	"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
	"uint64_t", "float2", "float4", "double2", "int2", "int4", "dim3", "auto",
	"__restrict__", "__restrict", "restrict", "struct", "uintptr_t", "intptr_t",
	"cudaStream_t", "cudaError_t", "cudaDeviceProp", "cudaFuncAttributes", NULL,
};

static int
is_type_word(const struct parser *p, const struct token *t)
{
	if (t->kind != TK_ID)
		return 0;
	for (int i = 0; type_words[i]; i++)
		if (strcmp(t->text, type_words[i]) == 0)
			return 1;
	for (size_t i = 0; i < p->n_typenames; i++)
		if (strcmp(t->text, p->typenames[i]) == 0)
			return 1;
	return 0;
}

static int
is_qualifier(const char *s)
{
	return strcmp(s, "__global__") == 0 || strcmp(s, "__device__") == 0 ||
	       strcmp(s, "__host__") == 0 || strcmp(s, "static") == 0 ||
	       strcmp(s, "inline") == 0 || strcmp(s, "__forceinline__") == 0 ||
	       strcmp(s, "__noinline__") == 0 || strcmp(s, "__shared__") == 0 ||
	       strcmp(s, "extern") == 0 || strcmp(s, "__inline__") == 0;
}

/* The words that combine with another type word ("unsigned int", "long long",
 * "const float"); any other type word (half, size_t, a typedef) names a whole
 * type, so after a type it is the declarator's name: "int half = n / 2;". */
static int
is_combining_type_word(const char *w)
{
	static const char *const words[] = {
		"char", "short", "int", "long", "float", "double", "unsigned", "signed",
		"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", NULL,
	};
	for (int i = 0; words[i]; i++)
		if (strcmp(w, words[i]) == 0)
			return 1;
	return 0;
}

/* Whether a word counts as a type already read, not a qualifier of one. */
static int
is_type_specifier(const char *w)
{
	return strcmp(w, "const") != 0 && strcmp(w, "volatile") != 0 &&
	       strcmp(w, "__restrict__") != 0 && strcmp(w, "__restrict") != 0 &&
	       strcmp(w, "restrict") != 0 && strcmp(w, "struct") != 0;
}

/* Reads a base type ("const unsigned int"); restrict qualifiers are dropped. */
static char *
parse_base_type(struct parser *p)
{
	struct strbuf sb = STRBUF_INIT;
	int have_type = 0;
	while (is_type_word(p, peek(p, 0))) {
		const char *w = peek(p, 0)->text;
		if (have_type && !is_combining_type_word(w))
			break;
		have_type |= is_type_specifier(w);
		p->pos++;
		if (strcmp(w, "__restrict__") == 0 || strcmp(w, "__restrict") == 0 ||
		    strcmp(w, "restrict") == 0 || strcmp(w, "struct") == 0)
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, w);
	}
	char *s = parse_strdup(p->pool, sb.buf, sb.len);
	strbuf_release(&sb);
	return s;
}

/* Pointer stars and their qualifiers after a base type: appends " *" per star. */
static char *
parse_pointers(struct parser *p, const char *base)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, base);
	for (;;) {
		if (accept(p, "*") || accept(p, "&"))
			strbuf_addstr(&sb, " *");
		else if (accept(p, "__restrict__") || accept(p, "__restrict") ||
		         accept(p, "restrict") || accept(p, "const"))
			continue;
		else
			break;
	}
	char *s = parse_strdup(p->pool, sb.buf, sb.len);
	strbuf_release(&sb);
	return s;
}

/* ---- expressions ---- */

static struct ast_expr *parse_expr(struct parser *p);
static struct ast_expr *parse_assign(struct parser *p);

static struct ast_expr *
node(struct parser *p, enum ast_expr_kind kind, const char *text)
{
	struct ast_expr *e = parse_alloc(p->pool, sizeof *e);
	e->kind = kind;
	e->text = text ? parse_strdup(p->pool, text, strlen(text)) : NULL;
	return e;
}

static void
kid(struct parser *p, struct ast_expr *e, struct ast_expr *k)
{
	e->kids = parse_grow(p->pool, e->kids, e->n_kids, sizeof *e->kids);
	e->kids[e->n_kids++] = k;
}

/* A name, qualified or not: text is its last part ("max" of std::max), qual
 * what came before it as written ("std::", "::", "detail::") or NULL. */
static struct ast_expr *
parse_name(struct parser *p)
{
	struct strbuf q = STRBUF_INIT;
	if (accept(p, "::"))
		strbuf_addstr(&q, "::");
	const struct token *t = peek(p, 0);
	if (t->kind != TK_ID) {
		strbuf_release(&q);
		parse_fail(p, "unexpected '%s' after '::'", t->text);
		return node(p, AST_NUM, "0");
	}
	p->pos++;
	while (is(p, "::") && peek(p, 1)->kind == TK_ID) {
		strbuf_addf(&q, "%s::", t->text);
		t = peek(p, 1);
		p->pos += 2;
	}
	struct ast_expr *e = node(p, AST_NAME, t->text);
	if (q.len)
		e->qual = parse_strdup(p->pool, q.buf, q.len);
	strbuf_release(&q);
	return e;
}

static struct ast_expr *
parse_primary(struct parser *p)
{
	const struct token *t = peek(p, 0);
	if (t->kind == TK_NUM) {
		p->pos++;
		return node(p, AST_NUM, t->text);
	}
	if (t->kind == TK_STR) {
		p->pos++;
		return node(p, AST_STR, t->text);
	}
	if (accept(p, "(")) {
		struct ast_expr *e = parse_expr(p);
		expect(p, ")");
		return e;
	}
	if (t->kind == TK_ID && strcmp(t->text, "sizeof") == 0) {
		p->pos++;
		size_t start = p->pos;
		int depth = 0;
		do {
			if (is(p, "("))
				depth++;
			else if (is(p, ")"))
				depth--;
			p->pos++;
		} while (depth > 0 && peek(p, 0)->kind != TK_END);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "sizeof");
		for (size_t i = start; i < p->pos; i++)
			strbuf_addf(&sb, "%s%s", i > start + 1 && p->toks[i].kind == TK_ID &&
			            p->toks[i - 1].kind == TK_ID ? " " : "", p->toks[i].text);
		struct ast_expr *e = node(p, AST_NUM, sb.buf);
		strbuf_release(&sb);
		return e;
	}
	if (t->kind == TK_ID && (strcmp(t->text, "static_cast") == 0 ||
	                         strcmp(t->text, "reinterpret_cast") == 0)) {
		int reinterpret = t->text[0] == 'r';
		p->pos++;
		expect(p, "<");
		char *type = parse_pointers(p, parse_base_type(p));
		expect(p, ">");
		expect(p, "(");
		struct ast_expr *e = node(p, AST_CAST, reinterpret ? "reinterpret" : type);
		kid(p, e, parse_expr(p));
		expect(p, ")");
		return e;
	}
	if (t->kind == TK_ID || is(p, "::"))
		return parse_name(p);
	parse_fail(p, "unexpected '%s' in an expression", t->text);
	p->pos++;
	return node(p, AST_NUM, "0");
}

static struct ast_expr *
parse_postfix(struct parser *p)
{
	struct ast_expr *e = parse_primary(p);
	while (!p->failed) {
		if (accept(p, "[")) {
			struct ast_expr *x = node(p, AST_INDEX, NULL);
			kid(p, x, e);
			kid(p, x, parse_expr(p));
			expect(p, "]");
			e = x;
		} else if (accept(p, "(")) {
			struct ast_expr *c = node(p, AST_CALL, e->kind == AST_NAME ? e->text : NULL);
			c->qual = e->kind == AST_NAME ? e->qual : NULL;
			if (!accept(p, ")")) {
				do
					kid(p, c, parse_assign(p));
				while (accept(p, ","));
				expect(p, ")");
			}
			e = c;
		} else if (is(p, ".") || is(p, "->")) {
			p->pos++;
			struct ast_expr *m = node(p, AST_MEMBER, peek(p, 0)->text);
			p->pos++;
			kid(p, m, e);
			e = m;
		} else if (is(p, "++") || is(p, "--")) {
			struct ast_expr *m = node(p, AST_POST, peek(p, 0)->text);
			p->pos++;
			kid(p, m, e);
			e = m;
		} else {
			break;
		}
	}
	return e;
}

/* Whether the "(" at the cursor opens a cast: type words, stars and
 * qualifiers up to ")" — "(half + 1)" reads a variable named half. */
static int
is_cast(const struct parser *p)
{
	size_t i = 1;
	while (is_type_word(p, peek(p, i)))
		i++;
	for (;; i++) {
		const char *t = peek(p, i)->text;
		if (strcmp(t, "*") != 0 && strcmp(t, "&") != 0 && strcmp(t, "__restrict__") != 0)
			break;
	}
	return strcmp(peek(p, i)->text, ")") == 0;
}

static struct ast_expr *
parse_unary(struct parser *p)
{
	static const char *const ops[] = { "-", "+", "!", "~", "++", "--", "*", "&", NULL };
	for (int i = 0; ops[i]; i++)
		if (is(p, ops[i])) {
			p->pos++;
			struct ast_expr *e = node(p, AST_UN, ops[i]);
			kid(p, e, parse_unary(p));
			return e;
		}
	if (is(p, "(") && is_type_word(p, peek(p, 1)) && is_cast(p)) {
		p->pos++;
		char *type = parse_pointers(p, parse_base_type(p));
		expect(p, ")");
		struct ast_expr *e = node(p, AST_CAST, type);
		kid(p, e, parse_unary(p));
		return e;
	}
	return parse_postfix(p);
}

static int
binary_prec(const char *op)
{
	static const struct { const char *op; int prec; } table[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
		{ "==", 6 }, { "!=", 6 }, { "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 },
		{ "<<", 8 }, { ">>", 8 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 },
		{ "%", 10 }, { NULL, 0 },
	};
	for (int i = 0; table[i].op; i++)
		if (strcmp(op, table[i].op) == 0)
			return table[i].prec;
	return 0;
}

static struct ast_expr *
parse_binary(struct parser *p, int min_prec)
{
	struct ast_expr *lhs = parse_unary(p);
	while (!p->failed) {
		const struct token *t = peek(p, 0);
		int prec = t->kind == TK_PUNCT ? binary_prec(t->text) : 0;
		if (prec < min_prec || prec == 0)
			break;
		p->pos++;
		struct ast_expr *e = node(p, AST_BIN, t->text);
		kid(p, e, lhs);
		kid(p, e, parse_binary(p, prec + 1));
		lhs = e;
	}
	return lhs;
}

static struct ast_expr *
parse_assign(struct parser *p)
{
	struct ast_expr *lhs = parse_binary(p, 1);
	if (accept(p, "?")) {
		struct ast_expr *e = node(p, AST_COND, NULL);
		kid(p, e, lhs);
		kid(p, e, parse_assign(p));
		expect(p, ":");
		kid(p, e, parse_assign(p));
		return e;
	}
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
		                               "&=", "|=", "^=", NULL };
	for (int i = 0; ops[i]; i++)
		if (is(p, ops[i])) {
			p->pos++;
			struct ast_expr *e = node(p, AST_ASSIGN, ops[i]);
			kid(p, e, lhs);
			kid(p, e, parse_assign(p));
			return e;
		}
	return lhs;
}

static struct ast_expr *
parse_expr(struct parser *p)
{
	struct ast_expr *e = parse_assign(p);
	if (is(p, ","))
		parse_fail(p, "the comma operator is outside the subset");
	return e;
}

/* ---- statements ---- */

static struct ast_stmt *parse_stmt(struct parser *p);

static struct ast_stmt *
stmt(struct parser *p, enum ast_stmt_kind kind)
{
	struct ast_stmt *s = parse_alloc(p->pool, sizeof *s);
	s->kind = kind;
	return s;
}

static int
starts_decl(struct parser *p)
{
	const struct token *t = peek(p, 0);
	if (t->kind == TK_ID && is_qualifier(t->text))
		return 1;
	if (!is_type_word(p, t))
		return 0;
	/* A variable named like a type ("half = n / 2;", "half < n") is an
	 * expression: after a type comes a name, a star, a reference or more type. */
	const struct token *n = peek(p, 1);
	return n->kind != TK_PUNCT || strcmp(n->text, "*") == 0 || strcmp(n->text, "&") == 0 ||
	       strcmp(n->text, "<") == 0 || strcmp(n->text, "::") == 0 || strcmp(n->text, "(") == 0;
}

static struct ast_stmt *
parse_decl(struct parser *p)
{
	struct ast_stmt *s = stmt(p, AST_DECL);
	int shared = 0;
	while (peek(p, 0)->kind == TK_ID && is_qualifier(peek(p, 0)->text)) {
		shared |= strcmp(peek(p, 0)->text, "__shared__") == 0;
		p->pos++;
	}
	char *base = parse_base_type(p);
	do {
		struct ast_decl d = { 0 };
		d.type = parse_pointers(p, base);
		d.is_shared = shared;
		if (peek(p, 0)->kind != TK_ID) {
			parse_fail(p, "expected a name in a declaration, found '%s'", peek(p, 0)->text);
			return s;
		}
		d.name = peek(p, 0)->text;
		p->pos++;
		while (accept(p, "[")) {
			d.is_array = 1;
			if (!is(p, "]"))
				parse_expr(p);
			expect(p, "]");
		}
		if (accept(p, "="))
			d.init = parse_assign(p);
		else if (accept(p, "(")) { /* dim3 g(x, y): a call named after the variable */
			struct ast_expr *c = node(p, AST_CALL, d.name);
			if (!accept(p, ")")) {
				do
					kid(p, c, parse_assign(p));
				while (!p->failed && accept(p, ","));
				expect(p, ")");
			}
			d.init = c;
		}
		s->decls = parse_grow(p->pool, s->decls, s->n_decls, sizeof *s->decls);
		s->decls[s->n_decls++] = d;
	} while (!p->failed && accept(p, ","));
	return s;
}

static struct ast_stmt *
parse_block(struct parser *p)
{
	struct ast_stmt *s = stmt(p, AST_BLOCK);
	expect(p, "{");
	while (!p->failed && !is(p, "}") && peek(p, 0)->kind != TK_END) {
		struct ast_stmt *c = parse_stmt(p);
		s->body = parse_grow(p->pool, s->body, s->n_body, sizeof *s->body);
		s->body[s->n_body++] = c;
	}
	expect(p, "}");
	return s;
}

/* The token after the template arguments that open at peek(p, at) ("<"), or 0
 * when they do not close before a ';' or the end. */
static size_t
skip_template_args(const struct parser *p, size_t at)
{
	int depth = 0;
	for (size_t i = at; peek(p, i)->kind != TK_END && !(peek(p, i)->kind == TK_PUNCT &&
	                                                   strcmp(peek(p, i)->text, ";") == 0); i++) {
		const char *t = peek(p, i)->text;
		if (peek(p, i)->kind != TK_PUNCT)
			continue;
		if (strcmp(t, "<") == 0 || strcmp(t, "(") == 0 || strcmp(t, "[") == 0)
			depth++;
		else if (strcmp(t, ">") == 0 || strcmp(t, ")") == 0 || strcmp(t, "]") == 0)
			depth--;
		else if (strcmp(t, ">>") == 0)
			depth -= 2;
		if (depth == 0)
			return i + 1;
		if (depth < 0)
			return 0;
	}
	return 0;
}

static int parse_function(struct parser *p, struct ast_unit *u);

static const struct tmpl *
find_template(const struct parser *p, const char *name)
{
	for (size_t i = p->n_tmpls; i-- > 0;)
		if (strcmp(p->tmpls[i].name, name) == 0)
			return &p->tmpls[i];
	return NULL;
}

static void
add_tokens(struct token **v, size_t *n, const struct token *from, size_t count)
{
	*v = egg_xrealloc(*v, (*n + count + 1) * sizeof **v);
	memcpy(*v + *n, from, count * sizeof *from);
	*n += count;
}

/* At the "<" after a launched kernel's name: reads the template arguments and
 * parses the template's definition with each parameter replaced by its argument
 * (a value in parentheses), once per distinct argument list; name->text becomes
 * the instance's name, "k<float, 4>". */
static void
instantiate(struct parser *p, struct ast_expr *name)
{
	const struct tmpl *t = find_template(p, name->text);
	if (!t) {
		parse_fail(p, "'%s' is launched with template arguments but is not a function template of "
		           "the code", name->text);
		return;
	}
	size_t end = skip_template_args(p, 0), args[16], args_end[16], n_args = 0;
	if (!end) {
		parse_fail(p, "the template arguments of '%s' do not close", name->text);
		return;
	}
	struct strbuf iname = STRBUF_INIT;
	strbuf_addf(&iname, "%s<", name->text);
	int depth = 0;
	args[0] = p->pos + 1;
	for (size_t i = p->pos + 1; i < p->pos + end - 1; i++) {
		const char *w = p->toks[i].text;
		depth += (strcmp(w, "<") == 0 || strcmp(w, "(") == 0) - (strcmp(w, ">") == 0 || strcmp(w, ")") == 0);
		if (depth == 0 && strcmp(w, ",") == 0) {
			if (n_args == 15) {
				parse_fail(p, "'%s' is launched with more than 16 template arguments", name->text);
				strbuf_release(&iname);
				return;
			}
			args_end[n_args++] = i;
			args[n_args] = i + 1;
			strbuf_addstr(&iname, ", ");
		} else {
			if (iname.buf[iname.len - 1] != '<' && iname.buf[iname.len - 1] != ' ' &&
			    p->toks[i].kind != TK_PUNCT && p->toks[i - 1].kind != TK_PUNCT)
				strbuf_addch(&iname, ' ');
			strbuf_addstr(&iname, w);
		}
	}
	args_end[n_args++] = p->pos + end - 1;
	strbuf_addch(&iname, '>');
	p->pos += end;
	if (n_args == 1 && args[0] == args_end[0])
		n_args = 0; /* k<> */
	if (n_args > t->n_params) {
		parse_fail(p, "'%s' has %zu template arguments for %zu parameters", name->text, n_args, t->n_params);
		strbuf_release(&iname);
		return;
	}
	name->text = parse_strdup(p->pool, iname.buf, iname.len);
	strbuf_release(&iname);
	for (size_t i = 0; i < p->n_funcs_seen; i++)
		if (strcmp(p->funcs_seen[i], name->text) == 0)
			return; /* instantiated already */
	/* the definition's tokens, each parameter replaced */
	struct token *v = NULL, open = { TK_PUNCT, (char *)"(", 0 }, close = { TK_PUNCT, (char *)")", 0 };
	size_t n = 0;
	for (size_t i = t->def; i < t->def_end; i++) {
		const struct token *k = &p->toks[i];
		size_t j = 0;
		while (j < t->n_params && (k->kind != TK_ID || strcmp(k->text, t->params[j]) != 0))
			j++;
		if (j == t->n_params) {
			add_tokens(&v, &n, k, 1);
			continue;
		}
		size_t a = j < n_args ? args[j] : t->dflt[j], b = j < n_args ? args_end[j] : t->dflt_end[j];
		if (a == b) {
			free(v);
			parse_fail(p, "the template parameter '%s' of '%s' has no argument", t->params[j], t->name);
			return;
		}
		if (!t->is_type[j])
			add_tokens(&v, &n, &open, 1);
		add_tokens(&v, &n, &p->toks[a], b - a);
		if (!t->is_type[j])
			add_tokens(&v, &n, &close, 1);
	}
	struct token endt = { TK_END, (char *)"", p->toks[t->def_end - 1].off };
	add_tokens(&v, &n, &endt, 1);
	struct token *saved = p->toks;
	size_t saved_n = p->n, saved_pos = p->pos;
	p->toks = v;
	p->n = n;
	p->pos = 0;
	struct ast_unit *u = p->unit;
	size_t before = u->n_functions;
	int ok = parse_function(p, u) && u->n_functions == before + 1;
	p->toks = saved;
	p->n = saved_n;
	p->pos = saved_pos;
	free(v);
	if (!ok) {
		parse_fail(p, "the template '%s' is not a kernel definition the parser reads", t->name);
		return;
	}
	struct ast_function *f = &u->functions[before];
	f->tname = f->name;
	f->name = name->text;
	f->is_instance = 1;
	f->template_at = t->off;
	f->ns = (char *)t->ns;
	p->funcs_seen = egg_xrealloc(p->funcs_seen, (p->n_funcs_seen + 1) * sizeof *p->funcs_seen);
	p->funcs_seen[p->n_funcs_seen++] = name->text;
}

/* k<<<, ns::k<<<, ::ns::k<<< or k<float, 4><<< */
static int
starts_launch(const struct parser *p)
{
	size_t i = is(p, "::");
	while (peek(p, i)->kind == TK_ID && strcmp(peek(p, i + 1)->text, "::") == 0)
		i += 2;
	if (peek(p, i)->kind != TK_ID)
		return 0;
	i++;
	if (strcmp(peek(p, i)->text, "<") == 0 && !(i = skip_template_args(p, i)))
		return 0;
	return strcmp(peek(p, i)->text, "<<<") == 0;
}

static struct ast_stmt *
parse_launch(struct parser *p)
{
	struct ast_stmt *s = stmt(p, AST_LAUNCH);
	s->expr = parse_name(p);
	if (is(p, "<"))
		instantiate(p, s->expr);
	else if (find_template(p, s->expr->text))
		parse_fail(p, "'%s' is a function template launched without template arguments (deduced "
		           "arguments are not read)", s->expr->text);
	expect(p, "<<<");
	do {
		s->launch = parse_grow(p->pool, s->launch, s->n_config, sizeof *s->launch);
		s->launch[s->n_config++] = parse_binary(p, 1);
	} while (!p->failed && accept(p, ","));
	expect(p, ">>>");
	expect(p, "(");
	if (!accept(p, ")")) {
		do {
			s->launch = parse_grow(p->pool, s->launch, s->n_config + s->n_args, sizeof *s->launch);
			s->launch[s->n_config + s->n_args++] = parse_assign(p);
		} while (!p->failed && accept(p, ","));
		expect(p, ")");
	}
	expect(p, ";");
	return s;
}

static struct ast_stmt *
parse_stmt_at(struct parser *p)
{
	if (is(p, "{"))
		return parse_block(p);
	if (accept(p, ";"))
		return stmt(p, AST_EMPTY);
	if (accept(p, "if")) {
		struct ast_stmt *s = stmt(p, AST_IF);
		expect(p, "(");
		s->expr = parse_expr(p);
		expect(p, ")");
		s->then = parse_stmt(p);
		if (accept(p, "else"))
			s->otherwise = parse_stmt(p);
		return s;
	}
	if (accept(p, "for")) {
		struct ast_stmt *s = stmt(p, AST_FOR);
		expect(p, "(");
		if (!accept(p, ";")) {
			if (starts_decl(p))
				s->init = parse_decl(p);
			else {
				s->init = stmt(p, AST_EXPR);
				s->init->expr = parse_expr(p);
			}
			expect(p, ";");
		}
		if (!is(p, ";"))
			s->expr = parse_expr(p);
		expect(p, ";");
		if (!is(p, ")"))
			s->step = parse_expr(p);
		expect(p, ")");
		s->then = parse_stmt(p);
		return s;
	}
	if (accept(p, "while")) {
		struct ast_stmt *s = stmt(p, AST_WHILE);
		expect(p, "(");
		s->expr = parse_expr(p);
		expect(p, ")");
		s->then = parse_stmt(p);
		return s;
	}
	if (accept(p, "do")) {
		struct ast_stmt *s = stmt(p, AST_WHILE);
		s->then = parse_stmt(p);
		expect(p, "while");
		expect(p, "(");
		s->expr = parse_expr(p);
		expect(p, ")");
		expect(p, ";");
		return s;
	}
	if (accept(p, "return")) {
		struct ast_stmt *s = stmt(p, AST_RETURN);
		if (!is(p, ";"))
			s->expr = parse_expr(p);
		expect(p, ";");
		return s;
	}
	if (accept(p, "break") || accept(p, "continue")) {
		struct ast_stmt *s = stmt(p, strcmp(p->toks[p->pos - 1].text, "break") == 0 ?
		                                 AST_BREAK : AST_CONTINUE);
		expect(p, ";");
		return s;
	}
	if (accept(p, "#pragma")) /* never reached: directives are dropped by the tokenizer */
		return stmt(p, AST_EMPTY);
	if (starts_launch(p))
		return parse_launch(p);
	if (starts_decl(p)) {
		struct ast_stmt *s = parse_decl(p);
		expect(p, ";");
		return s;
	}
	struct ast_stmt *s = stmt(p, AST_EXPR);
	s->expr = parse_expr(p);
	expect(p, ";");
	return s;
}

/* A statement with its place in the text (what the generic paths rewrite). */
static struct ast_stmt *
parse_stmt(struct parser *p)
{
	size_t begin = peek(p, 0)->off;
	struct ast_stmt *s = parse_stmt_at(p);
	const struct token *last = p->pos ? &p->toks[p->pos - 1] : NULL;
	s->begin = begin;
	s->end = last && last->off >= begin ? last->off + strlen(last->text) : begin;
	return s;
}

/* ---- top level ---- */

/* Skips a top-level item that is not a function definition: up to the ';' at
 * brace depth zero, or a balanced '{...}' not followed by ';'.  Records typedef
 * names and struct tags as type names. */
static void
skip_item(struct parser *p)
{
	int depth = 0, is_typedef = is(p, "typedef"), is_struct = is(p, "struct");
	if (is_struct && peek(p, 1)->kind == TK_ID) {
		p->typenames = egg_xrealloc(p->typenames, (p->n_typenames + 1) * sizeof *p->typenames);
		p->typenames[p->n_typenames++] = peek(p, 1)->text;
	}
	const char *last_id = NULL;
	while (peek(p, 0)->kind != TK_END) {
		const struct token *t = peek(p, 0);
		p->pos++;
		if (t->kind == TK_ID && depth == 0)
			last_id = t->text;
		if (strcmp(t->text, "{") == 0)
			depth++;
		else if (strcmp(t->text, "}") == 0 && --depth == 0 && !is(p, ";") &&
		         peek(p, 0)->kind != TK_ID)
			return;
		else if (strcmp(t->text, ";") == 0 && depth == 0)
			break;
	}
	if (is_typedef && last_id) {
		p->typenames = egg_xrealloc(p->typenames, (p->n_typenames + 1) * sizeof *p->typenames);
		p->typenames[p->n_typenames++] = (char *)last_id;
	}
}

static void
skip_launch_bounds(struct parser *p)
{
	if (!accept(p, "__launch_bounds__"))
		return;
	int depth = 0;
	do {
		depth += is(p, "(") - is(p, ")");
		p->pos++;
	} while (depth > 0 && peek(p, 0)->kind != TK_END);
}

/* Tries a function definition at the current token; returns 1 and appends it on
 * success, 0 (position restored) when the item is something else. */
static int
parse_function(struct parser *p, struct ast_unit *u)
{
	size_t start = p->pos;
	struct strbuf quals = STRBUF_INIT;
	while (peek(p, 0)->kind == TK_ID && is_qualifier(peek(p, 0)->text)) {
		if (strcmp(peek(p, 0)->text, "extern") == 0 && peek(p, 1)->kind == TK_STR)
			p->pos++;
		else if (strcmp(peek(p, 0)->text, "__global__") == 0 ||
		         strcmp(peek(p, 0)->text, "__device__") == 0 ||
		         strcmp(peek(p, 0)->text, "__host__") == 0)
			strbuf_addf(&quals, "%s%s", quals.len ? " " : "", peek(p, 0)->text);
		p->pos++;
	}
	skip_launch_bounds(p);
	struct ast_function f = { 0 };
	f.ret_type = parse_pointers(p, parse_base_type(p));
	skip_launch_bounds(p);
	if (!f.ret_type[0] || peek(p, 0)->kind != TK_ID || strcmp(peek(p, 1)->text, "(") != 0) {
		p->pos = start;
		strbuf_release(&quals);
		return 0;
	}
	f.begin = p->toks[start].off;
	f.qualifiers = parse_strdup(p->pool, quals.buf, quals.len);
	strbuf_release(&quals);
	f.name = peek(p, 0)->text;
	p->pos += 2;
	if (!accept(p, ")") && !(is(p, "void") && strcmp(peek(p, 1)->text, ")") == 0 && (p->pos += 2))) {
		do {
			struct ast_decl d = { 0 };
			d.type = parse_pointers(p, parse_base_type(p));
			if (peek(p, 0)->kind != TK_ID) {
				parse_fail(p, "unnamed or unsupported parameter in '%s'", f.name);
				return 1;
			}
			d.name = peek(p, 0)->text;
			p->pos++;
			if (accept(p, "[")) {
				expect(p, "]");
				d.type = parse_pointers(p, d.type);
				d.type = parse_strdup(p->pool, d.type, strlen(d.type)); /* T x[] == T *x */
			}
			f.params = parse_grow(p->pool, f.params, f.n_params, sizeof *f.params);
			f.params[f.n_params++] = d;
		} while (!p->failed && accept(p, ","));
		expect(p, ")");
	}
	if (accept(p, ";")) /* a prototype */
		return 1;
	f.body_begin = peek(p, 0)->off;
	f.body = parse_block(p);
	f.end = p->toks[p->pos - 1].off + 1;
	u->functions = parse_grow(p->pool, u->functions, u->n_functions, sizeof *u->functions);
	u->functions[u->n_functions++] = f;
	return 1;
}

/* The braces a top-level item may open without being one: a namespace
 * ("namespace a::b {", "inline namespace v1 {", "namespace {") or a linkage block
 * ("extern "C" {").  Their contents are items like any other; each function
 * records the named path it lies in.  Returns 1 with the scope pushed. */
static int
open_scope(struct parser *p, struct strvec *scopes)
{
	size_t at = p->pos;
	if (is(p, "extern") && peek(p, 1)->kind == TK_STR && strcmp(peek(p, 2)->text, "{") == 0) {
		p->pos += 3;
		strvec_push(scopes, ""); /* no name of its own */
		return 1;
	}
	accept(p, "inline");
	if (!accept(p, "namespace")) {
		p->pos = at;
		return 0;
	}
	size_t n = scopes->n;
	if (is(p, "{")) {
		strvec_push(scopes, "(anonymous namespace)");
	} else {
		while (peek(p, 0)->kind == TK_ID) {
			strvec_push(scopes, peek(p, 0)->text);
			p->pos++;
			if (!accept(p, "::"))
				break;
			accept(p, "inline"); /* namespace a::inline b (C++20) */
		}
	}
	if (scopes->n == n || !accept(p, "{")) { /* an alias, or something unknown */
		while (scopes->n > n)
			strvec_remove(scopes, scopes->n - 1);
		p->pos = at;
		return 0;
	}
	/* a::b { counts as two scopes closed by one brace: mark the inner ones */
	for (size_t i = n + 1; i < scopes->n; i++) {
		char *m = egg_xasprintf("+%s", scopes->v[i]);
		strvec_remove(scopes, i);
		strvec_insert(scopes, i, m);
		free(m);
	}
	return 1;
}

static void
close_scope(struct strvec *scopes)
{
	while (scopes->n && scopes->v[scopes->n - 1][0] == '+')
		strvec_remove(scopes, scopes->n - 1);
	if (scopes->n)
		strvec_remove(scopes, scopes->n - 1);
}

/* "a::b", "(anonymous namespace)::c" or "" for the global scope */
static char *
scope_path(struct parser *p, const struct strvec *scopes)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < scopes->n; i++) {
		const char *s = scopes->v[i] + (scopes->v[i][0] == '+');
		if (!*s)
			continue;
		if (sb.len)
			strbuf_addstr(&sb, "::");
		strbuf_addstr(&sb, s);
	}
	char *r = parse_strdup(p->pool, sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}

/* At "template": records a function template's parameters and definition for
 * the launches that instantiate it, and skips it (and anything else a template
 * declares: classes, specializations, explicit instantiations). */
static void
read_template(struct parser *p, const struct strvec *scopes)
{
	struct tmpl t = { .off = peek(p, 0)->off };
	p->pos++;
	int ok = accept(p, "<") && !is(p, ">");
	while (ok && !is(p, ">")) {
		if (t.n_params == 16) {
			ok = 0;
			break;
		}
		size_t k = t.n_params;
		t.is_type[k] = is(p, "typename") || is(p, "class");
		const char *last = NULL;
		int depth = 0;
		while (peek(p, 0)->kind != TK_END && (depth > 0 || (!is(p, ",") && !is(p, ">") && !is(p, "=")))) {
			depth += is(p, "<") || is(p, "(");
			depth -= is(p, ">") || is(p, ")");
			if (peek(p, 0)->kind == TK_ID)
				last = peek(p, 0)->text;
			p->pos++;
		}
		if (accept(p, "=")) {
			t.dflt[k] = p->pos;
			while (peek(p, 0)->kind != TK_END && (depth > 0 || (!is(p, ",") && !is(p, ">")))) {
				depth += is(p, "<") || is(p, "(");
				depth -= is(p, ">") || is(p, ")");
				p->pos++;
			}
			t.dflt_end[k] = p->pos;
		}
		if (!last || strcmp(last, "typename") == 0 || strcmp(last, "class") == 0) {
			ok = 0; /* an unnamed parameter: nothing can refer to it, but keep it simple */
			break;
		}
		t.params[t.n_params++] = last;
		if (!accept(p, ","))
			break;
	}
	ok = ok && accept(p, ">");
	t.def = p->pos;
	if (!ok || is(p, "struct") || is(p, "class") || is(p, "union") || is(p, "template")) {
		skip_item(p); /* a class template, "template <>" and the like */
		return;
	}
	/* a declaration up to its ';', or a definition up to its body's '}' */
	int paren = 0;
	while (peek(p, 0)->kind != TK_END) {
		const char *w = peek(p, 0)->text;
		p->pos++;
		paren += (strcmp(w, "(") == 0) - (strcmp(w, ")") == 0);
		if (paren == 0 && strcmp(w, ";") == 0)
			return;
		if (paren == 0 && strcmp(w, "{") == 0) {
			for (int depth = 1; depth > 0 && peek(p, 0)->kind != TK_END; p->pos++)
				depth += is(p, "{") - is(p, "}");
			break;
		}
	}
	t.def_end = p->pos;
	if (!ok || p->pos <= t.def || strcmp(p->toks[p->pos - 1].text, "}") != 0)
		return;
	for (size_t i = t.def; i + 1 < t.def_end && !t.name; i++) /* the name: the first ID( */
		if (p->toks[i].kind == TK_ID && strcmp(p->toks[i + 1].text, "(") == 0 &&
		    strcmp(p->toks[i].text, "__launch_bounds__") != 0 && strcmp(p->toks[i].text, "__attribute__") != 0)
			t.name = p->toks[i].text;
	if (!t.name)
		return;
	t.ns = scope_path(p, scopes);
	p->tmpls = egg_xrealloc(p->tmpls, (p->n_tmpls + 1) * sizeof *p->tmpls);
	p->tmpls[p->n_tmpls++] = t;
	/* for calls that deduce the arguments: device code? a pointer parameter? */
	struct ast_template a = { .name = (char *)t.name, .ns = (char *)t.ns };
	size_t i = t.def;
	for (; i < t.def_end && p->toks[i].text != t.name; i++)
		a.is_device |= strcmp(p->toks[i].text, "__device__") == 0;
	for (int depth = 0; ++i < t.def_end;) { /* the parameter list, up to its ')' */
		const char *w = p->toks[i].text;
		depth += (strcmp(w, "(") == 0) - (strcmp(w, ")") == 0);
		if (depth == 0)
			break;
		a.pointer_params |= strcmp(w, "*") == 0 || strcmp(w, "&") == 0 || strcmp(w, "[") == 0;
	}
	struct ast_unit *u = p->unit;
	u->templates = parse_grow(p->pool, u->templates, u->n_templates, sizeof *u->templates);
	u->templates[u->n_templates++] = a;
}

struct ast_unit *
parse_unit(const char *text, struct strbuf *err)
{
	struct ast_unit *u = egg_xcalloc(1, sizeof *u);
	struct pool *pool = egg_xcalloc(1, sizeof *pool);
	u->pool = pool;
	struct parser p = { .pool = pool, .err = err, .unit = u };
	struct strvec scopes = STRVEC_INIT;
	parse_tokenize(&p, text);
	while (!p.failed && peek(&p, 0)->kind != TK_END) {
		if (is(&p, "template")) {
			read_template(&p, &scopes);
			continue;
		}
		if (scopes.n && accept(&p, "}")) {
			close_scope(&scopes);
			continue;
		}
		if (open_scope(&p, &scopes))
			continue;
		size_t before = u->n_functions;
		if (!parse_function(&p, u))
			skip_item(&p);
		for (size_t i = before; i < u->n_functions; i++) /* (instances have the template's) */
			if (!u->functions[i].ns)
				u->functions[i].ns = scope_path(&p, &scopes);
	}
	strvec_clear(&scopes);
	free(p.tmpls);
	free(p.funcs_seen);
	for (size_t i = 0; i < p.n_macros; i++) {
		free(p.macros[i].name);
		free(p.macros[i].toks);
		for (size_t j = 0; j < p.macros[i].n_params; j++)
			free(p.macros[i].params[j]);
		free(p.macros[i].params);
	}
	free(p.macros);
	free(p.toks);
	free(p.typenames);
	if (p.failed) {
		ast_unit_free(u);
		return NULL;
	}
	return u;
}

void
ast_unit_free(struct ast_unit *u)
{
	if (!u)
		return;
	struct pool *pl = u->pool;
	for (size_t i = 0; i < pl->n; i++)
		free(pl->ptrs[i]);
	free(pl->ptrs);
	free(pl);
	free(u);
}

const struct ast_function *
ast_find_function(const struct ast_unit *u, const char *name)
{
	for (size_t i = u->n_functions; i-- > 0;)
		if (strcmp(u->functions[i].name, name) == 0)
			return &u->functions[i];
	return NULL;
}

char *
ast_ns_prefix(const char *ns)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = ns ? ns : "";
	while (*s) {
		const char *e = strstr(s, "::");
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (strncmp(s, "(anonymous namespace)", n) != 0)
			strbuf_addf(&sb, "::%.*s", (int)n, s);
		s += n + (e ? 2 : 0);
	}
	if (sb.len)
		strbuf_addstr(&sb, "::");
	return strbuf_detach(&sb);
}

const struct ast_template *
ast_find_template(const struct ast_unit *u, const char *name)
{
	for (size_t i = u->n_templates; i-- > 0;)
		if (strcmp(u->templates[i].name, name) == 0)
			return &u->templates[i];
	return NULL;
}

int
ast_ns_below(const char *outer, const char *inner, struct strbuf *open, struct strbuf *close,
             struct strbuf *qual)
{
	size_t n = strlen(outer);
	if (strncmp(inner, outer, n) != 0 || (n && inner[n] && strncmp(inner + n, "::", 2) != 0))
		return -1;
	const char *s = inner + n;
	if (n && *s)
		s += 2;
	while (*s) {
		const char *e = strstr(s, "::");
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (strncmp(s, "(anonymous namespace)", len) == 0) {
			strbuf_addstr(open, "namespace {\n");
		} else {
			strbuf_addf(open, "namespace %.*s {\n", (int)len, s);
			strbuf_addf(qual, "%.*s::", (int)len, s);
		}
		strbuf_addstr(close, "}\n");
		s += len + (e ? 2 : 0);
	}
	return 0;
}
