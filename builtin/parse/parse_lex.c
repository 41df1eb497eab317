/*
 * parse_lex.c -- the parser's pool, error and tokenizer: C tokens with offsets,
 * comments dropped, preprocessor lines skipped except object-like #defines,
 * which are recorded and expanded (nested, bounded) as tokens are pushed.
 */
#include "config.h"

#include "builtin/parse/parse_internal.h"
#include "common/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void *
parse_alloc(struct pool *pl, size_t size)
{
	void *p = egg_xcalloc(1, size);
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 64;
		pl->ptrs = egg_xrealloc(pl->ptrs, pl->cap * sizeof *pl->ptrs);
	}
	pl->ptrs[pl->n++] = p;
	return p;
}

char *
parse_strdup(struct pool *pl, const char *s, size_t n)
{
	char *d = parse_alloc(pl, n + 1);
	memcpy(d, s, n);
	return d;
}

void *
parse_grow(struct pool *pl, void *arr, size_t n, size_t size)
{
	/* arrays grow by copying into a fresh pool block: parse trees are small */
	void *d = parse_alloc(pl, (n + 1) * size);
	if (n)
		memcpy(d, arr, n * size);
	return d;
}

void
parse_fail(struct parser *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(p->err, fmt, ap);
	va_end(ap);
}

/* ---- tokenizer ---- */

static const char *const puncts[] = {
	"<<<", ">>>", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
	"&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", NULL,
};

static void
push_tok(struct parser *p, enum tok_kind kind, const char *s, size_t n, size_t off)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->toks = egg_xrealloc(p->toks, p->cap * sizeof *p->toks);
	}
	p->toks[p->n].kind = kind;
	p->toks[p->n].text = parse_strdup(p->pool, s, n);
	p->toks[p->n].off = off;
	p->n++;
}

static const struct macro *
find_macro(const struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->n_macros; i++)
		if (strcmp(p->macros[i].name, name) == 0)
			return &p->macros[i];
	return NULL;
}

static void
push_expanded(struct parser *p, enum tok_kind kind, const char *s, size_t n, size_t off, int depth)
{
	if (kind == TK_ID && depth < 8) {
		char *name = egg_xstrndup(s, n);
		const struct macro *m = find_macro(p, name);
		free(name);
		if (m && !m->function) {
			for (size_t i = 0; i < m->n; i++)
				push_expanded(p, m->toks[i].kind, m->toks[i].text,
				              strlen(m->toks[i].text), off, depth + 1);
			return;
		}
	}
	push_tok(p, kind, s, n, off);
}

/* Scans one token at s; returns its length and kind (0 at the end). */
static size_t
scan_token(const char *s, enum tok_kind *kind)
{
	if (isalpha((unsigned char)*s) || *s == '_') {
		size_t n = 1;
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
		*kind = TK_ID;
		return n;
	}
	if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
		size_t n = 1;
		while (isalnum((unsigned char)s[n]) || s[n] == '.' ||
		       ((s[n] == '+' || s[n] == '-') && (s[n - 1] == 'e' || s[n - 1] == 'E') &&
		        !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))))
			n++;
		*kind = TK_NUM;
		return n;
	}
	if (*s == '"' || *s == '\'') {
		size_t n = 1;
		while (s[n] && s[n] != *s)
			n += s[n] == '\\' && s[n + 1] ? 2 : 1;
		*kind = TK_STR;
		return s[n] ? n + 1 : n;
	}
	for (int i = 0; puncts[i]; i++)
		if (strncmp(s, puncts[i], strlen(puncts[i])) == 0) {
			*kind = TK_PUNCT;
			return strlen(puncts[i]);
		}
	*kind = TK_PUNCT;
	return 1;
}

static void
free_macro(struct macro *m)
{
	free(m->name);
	free(m->toks);
	for (size_t i = 0; i < m->n_params; i++)
		free(m->params[i]);
	free(m->params);
}

/* The parameter list of a function-like macro at *c ("(r, c)"), past it on
 * return; 0 for a form not taken (variadic, a malformed list). */
static int
macro_params(struct macro *m, const char **c)
{
	const char *s = *c + 1; /* past '(' */
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ')' && m->n_params == 0)
			break;
		enum tok_kind k;
		size_t len = scan_token(s, &k);
		if (k != TK_ID)
			return 0;
		m->params = egg_xrealloc(m->params, (m->n_params + 1) * sizeof *m->params);
		m->params[m->n_params++] = egg_xstrndup(s, len);
		s += len;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ')')
			break;
		if (*s != ',')
			return 0;
		s++;
	}
	*c = s + 1;
	return 1;
}

/* Whether a function-like macro's body is an expression the expansion can
 * take as written: no statement tokens, no # or ##, no call of anything (a
 * checking macro such as CUDA_CHECK(x) stays a call, as the lifter knows it)
 * but of a function-like macro defined before it, no __FILE__ or __LINE__. */
static int
expression_body(const struct parser *p, const struct macro *m)
{
	static const char *const refused[] = { ";", "{", "}", "#", "##", "do", "while", "for", "if",
		                               "return", "__FILE__", "__LINE__", NULL };
	if (m->n == 0)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		for (int r = 0; refused[r]; r++)
			if (strcmp(m->toks[i].text, refused[r]) == 0)
				return 0;
		if (m->toks[i].kind == TK_ID && i + 1 < m->n && strcmp(m->toks[i + 1].text, "(") == 0) {
			const struct macro *f = find_macro(p, m->toks[i].text);
			if (!f || !f->function)
				return 0;
		}
	}
	return 1;
}

/* Appends to out the tokens of in[0..n) with the function-like macros used
 * there expanded (their arguments substituted as tokens, the result scanned
 * again, up to a depth of 8), each expanded token at its use's offset. */
static void
expand_calls(const struct parser *p, const struct token *in, size_t n, int depth, struct token **out,
             size_t *n_out, size_t *cap)
{
	for (size_t i = 0; i < n; i++) {
		const struct macro *m = in[i].kind == TK_ID && depth < 8 ? find_macro(p, in[i].text) : NULL;
		if (m && m->function && i + 1 < n && strcmp(in[i + 1].text, "(") == 0) {
			/* the arguments: [start, end) of each, split at commas outside parentheses */
			size_t start[64], end[64], n_args = 0, j = i + 2;
			int depth_p = 0, ok = 1;
			start[0] = j;
			for (; j < n; j++) {
				const char *t = in[j].text;
				if (in[j].kind == TK_PUNCT && strcmp(t, "(") == 0) {
					depth_p++;
				} else if (in[j].kind == TK_PUNCT && strcmp(t, ")") == 0) {
					if (depth_p-- == 0)
						break;
				} else if (in[j].kind == TK_PUNCT && strcmp(t, ",") == 0 && depth_p == 0) {
					if (n_args == 63) {
						ok = 0;
						break;
					}
					end[n_args++] = j;
					start[n_args] = j + 1;
				}
			}
			if (ok && j < n) {
				end[n_args] = j;
				if (!(m->n_params == 0 && start[0] == j))
					n_args++;
			}
			if (ok && j < n && n_args == m->n_params) {
				size_t n_sub = 0, cap_sub = 0;
				struct token *sub = NULL;
				for (size_t b = 0; b < m->n; b++) {
					size_t a = 0;
					while (a < m->n_params && !(m->toks[b].kind == TK_ID && strcmp(m->toks[b].text, m->params[a]) == 0))
						a++;
					size_t from = a < m->n_params ? start[a] : 0, to = a < m->n_params ? end[a] : 1;
					for (size_t t = from; t < to; t++) {
						if (n_sub == cap_sub) {
							cap_sub = cap_sub ? 2 * cap_sub : 32;
							sub = egg_xrealloc(sub, cap_sub * sizeof *sub);
						}
						sub[n_sub] = a < m->n_params ? in[t] : m->toks[b];
						sub[n_sub++].off = in[i].off;
					}
				}
				expand_calls(p, sub, n_sub, depth + 1, out, n_out, cap);
				free(sub);
				i = j; /* past the ')' */
				continue;
			}
		}
		if (*n_out == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*out = egg_xrealloc(*out, *cap * sizeof **out);
		}
		(*out)[(*n_out)++] = in[i];
	}
}

/* Handles one preprocessor line starting at s ('#'); returns the offset after it. */
static size_t
directive(struct parser *p, const char *s)
{
	size_t n = 0;
	while (s[n] && !(s[n] == '\n' && (n == 0 || s[n - 1] != '\\')))
		n++;
	char *line = egg_xstrndup(s, n);
	for (char *c = line; *c; c++)
		if (*c == '\\' && c[1] == '\n')
			c[0] = c[1] = ' ';
	const char *c = line + 1;
	while (*c == ' ' || *c == '\t')
		c++;
	if (strncmp(c, "define", 6) == 0 && (c[6] == ' ' || c[6] == '\t')) {
		c += 6;
		while (*c == ' ' || *c == '\t')
			c++;
		enum tok_kind k;
		size_t len = scan_token(c, &k);
		if (k == TK_ID) {
			struct macro m = { egg_xstrndup(c, len), NULL, 0, c[len] == '(', NULL, 0 };
			c += len;
			if (m.function && !macro_params(&m, &c)) {
				free_macro(&m);
				free(line);
				return n;
			}
			for (;;) {
				while (*c && isspace((unsigned char)*c))
					c++;
				if (!*c || (c[0] == '/' && (c[1] == '/' || c[1] == '*')))
					break;
				len = scan_token(c, &k);
				m.toks = egg_xrealloc(m.toks, (m.n + 1) * sizeof *m.toks);
				m.toks[m.n].kind = k;
				m.toks[m.n].text = parse_strdup(p->pool, c, len);
				m.toks[m.n].off = 0;
				m.n++;
				c += len;
			}
			if (m.function && !expression_body(p, &m)) {
				free_macro(&m);
			} else {
				p->macros = egg_xrealloc(p->macros, (p->n_macros + 1) * sizeof *p->macros);
				p->macros[p->n_macros++] = m;
			}
		}
	}
	free(line);
	return n;
}

void
parse_tokenize(struct parser *p, const char *text)
{
	const char *s = text;
	int line_start = 1;
	while (*s) {
		if (*s == '\n') {
			line_start = 1;
			s++;
			continue;
		}
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
			continue;
		}
		if (*s == '#' && line_start) {
			s += directive(p, s);
			continue;
		}
		line_start = 0;
		enum tok_kind k;
		size_t len = scan_token(s, &k);
		push_expanded(p, k, s, len, (size_t)(s - text), 0);
		s += len;
	}
	int functions = 0;
	for (size_t i = 0; i < p->n_macros; i++)
		functions |= p->macros[i].function;
	if (functions) {
		struct token *out = NULL;
		size_t n_out = 0, cap = 0;
		expand_calls(p, p->toks, p->n, 0, &out, &n_out, &cap);
		free(p->toks);
		p->toks = out;
		p->n = n_out;
		p->cap = cap;
	}
	push_tok(p, TK_END, "", 0, (size_t)(s - text));
}

