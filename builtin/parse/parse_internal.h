/*
 * parse_internal.h -- what the parser's two files share (parse_lex.c: the
 * allocation pool, errors and the tokenizer with its macros; parse.c:
 * the recursive descent).
 */
#ifndef EGG_BUILTIN_PARSE_INTERNAL_H
#define EGG_BUILTIN_PARSE_INTERNAL_H

#include "builtin/parse/parse.h"
#include "common/strvec.h"

enum tok_kind { TK_ID, TK_NUM, TK_STR, TK_PUNCT, TK_END };

struct token {
	enum tok_kind kind;
	char *text;
	size_t off;
};

struct pool {
	void **ptrs;
	size_t n, cap;
};

struct macro {
	char *name;
	struct token *toks;
	size_t n;
	/* a function-like macro (#define IDX(r, c) ((r) * cols + (c))): its
	 * parameters' names; only one whose body is an expression without calls,
	 * # or ## is kept (see parse_lex.c) */
	int function;
	char **params;
	size_t n_params;
};

/* A function template of the unit: its parameters and the tokens of its
 * definition, instantiated where a launch names it with arguments. */
struct tmpl {
	const char *name, *ns;
	size_t off;         /* the text offset of "template" */
	size_t def, def_end; /* the definition's tokens: [def, def_end) */
	size_t n_params;
	const char *params[16];
	int is_type[16];
	size_t dflt[16], dflt_end[16]; /* a default's tokens, or dflt == dflt_end */
};

struct parser {
	struct pool *pool;
	struct token *toks;
	size_t n, cap, pos;
	struct macro *macros;
	size_t n_macros;
	char **typenames;
	size_t n_typenames;
	struct strbuf *err;
	int failed;
	struct tmpl *tmpls;
	size_t n_tmpls;
	struct ast_unit *unit;     /* where instances go */
	const char **funcs_seen;   /* the instances made so far */
	size_t n_funcs_seen;
};

/* Pool allocation: zeroed memory owned by the unit's pool. */
void *parse_alloc(struct pool *pl, size_t size);
char *parse_strdup(struct pool *pl, const char *s, size_t n);
/* A copy of arr (n elements of size) with room for one more. */
void *parse_grow(struct pool *pl, void *arr, size_t n, size_t size);
/* Keeps the first error. */
void parse_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fills p->toks from text (comments dropped, directives handled, macros expanded). */
void parse_tokenize(struct parser *p, const char *text);

#endif
