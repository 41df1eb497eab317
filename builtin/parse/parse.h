/*
 * parse.h -- a small C/CUDA parser for the subset naive kernels are written in.
 *
 * Why not libclang here: the builtin generator works on a bundle's closure and
 * target *text*, which compiles on its own, and only needs statement structure
 * and expression trees -- which libclang 14's C API gives only partially (no
 * binary operator kinds).  A recursive-descent parser over a tokenizer keeps the
 * lifter testable on plain strings, and anything outside the subset is a parse
 * failure with a reason, which the lifter reports as "not lifted".
 *
 * Subset: function definitions (qualifiers __global__, __device__, static,
 * inline, extern "C"), also inside namespaces and extern "C" blocks; object-like
 * #defines (substituted), structs/typedefs and function-like macros skipped; statements: declarations, expression statements,
 * if/else, for, while/do (parsed so the lifter can refuse them), return, break,
 * continue, blocks, kernel launches k<<<g, b[, s[, st]]>>>(args) (k qualified or not).
 *
 * The predicates over the tree (loops, assignments, names, the thread index)
 * are ast.h's, included here.
 *
 * Ownership: parse_unit returns a struct ast_unit the caller frees with
 * ast_unit_free; every node is owned by the unit.
 */
#ifndef EGG_BUILTIN_PARSE_H
#define EGG_BUILTIN_PARSE_H

#include <stddef.h>

#include "builtin/parse/ast.h" /* the questions asked of the tree */
#include "common/strbuf.h"

enum ast_expr_kind {
	AST_NUM, AST_NAME, AST_STR, AST_MEMBER, AST_INDEX, AST_CALL, AST_UN, AST_POST,
	AST_BIN, AST_ASSIGN, AST_COND, AST_CAST,
};

struct ast_expr {
	enum ast_expr_kind kind;
	char *text;              /* NUM/NAME/STR: spelling; MEMBER: field; UN/POST/BIN/ASSIGN: operator;
	                            CALL: callee name (NULL if not a plain name); CAST: type */
	struct ast_expr **kids;  /* INDEX: base, index; CALL: args; others: operands */
	size_t n_kids;
	char *qual;              /* NAME, CALL: the qualifier written before the name ("std::", "::",
	                            "detail::"), or NULL */
};

enum ast_stmt_kind {
	AST_DECL, AST_EXPR, AST_IF, AST_FOR, AST_WHILE, AST_RETURN, AST_BREAK,
	AST_CONTINUE, AST_BLOCK, AST_LAUNCH, AST_EMPTY,
};

struct ast_decl {
	char *type;           /* base type with qualifiers, e.g. "const float"; pointer: "const float *" */
	char *name;
	struct ast_expr *init;
	int is_array;         /* T name[N] (shared arrays and the like) */
	int is_shared;
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct ast_decl *decls; /* DECL */
	size_t n_decls;
	struct ast_expr *expr;  /* EXPR, RETURN, IF/WHILE/FOR condition; LAUNCH: kernel name as NAME */
	struct ast_stmt *init;  /* FOR */
	struct ast_expr *step;  /* FOR */
	struct ast_stmt *then, *otherwise; /* IF; FOR/WHILE body in then */
	struct ast_stmt **body; /* BLOCK */
	size_t n_body;
	struct ast_expr **launch; /* LAUNCH: grid, block[, smem[, stream]] then args */
	size_t n_config, n_args;
	size_t begin, end;        /* byte offsets in the parsed text: the first token, past the last
	                             (a statement from a macro's expansion: the macro's use) */
};

struct ast_function {
	char *name;
	char *qualifiers;     /* "__global__", "__device__", "__host__ __device__", "" */
	char *ret_type;
	struct ast_decl *params;
	size_t n_params;
	struct ast_stmt *body;
	size_t begin, body_begin, end; /* byte offsets in the parsed text */
	char *ns; /* the namespaces it lies in, as clang names them: "nn::detail",
	             "(anonymous namespace)::x"; "" at file scope */
	/* An instance of a function template, made where a launch names it with
	 * arguments (k<float, 4><<<...>>>): name is "k<float, 4>", the AST has the
	 * arguments in place of the parameters, and the offsets are the template's;
	 * template_at is the offset of its "template", tname its own name. */
	int is_instance;
	size_t template_at;
	char *tname;
};

/* A function template of the unit, as far as a call that deduces its arguments
 * needs it: where it is, whether it is device code, whether a parameter is a
 * pointer. */
struct ast_template {
	char *name, *ns;
	int is_device, pointer_params;
};

struct ast_unit {
	struct ast_function *functions;
	size_t n_functions;
	struct ast_template *templates;
	size_t n_templates;
	void *pool; /* internal */
};

/* Parses text; returns NULL with a sentence in err on a construct outside the subset. */
struct ast_unit *parse_unit(const char *text, struct strbuf *err);
void ast_unit_free(struct ast_unit *u);
const struct ast_function *ast_find_function(const struct ast_unit *u, const char *name);
/* "::nn::detail::" for a function in NS nn::detail (anonymous namespaces left out:
 * their members are found through their parent), "" at file scope or when only
 * anonymous namespaces hold it; owned by the caller. */
char *ast_ns_prefix(const char *ns);
const struct ast_template *ast_find_template(const struct ast_unit *u, const char *name);
/* How text written for namespace path INNER stands inside OUTER (both as in
 * ast_function.ns): appends to open the namespaces to reopen ("namespace detail {\n",
 * "namespace {\n"), to close their braces and to qual the qualifier that names
 * a member from OUTER ("detail::"); 0, or -1 when INNER is not OUTER or inside it. */
int ast_ns_below(const char *outer, const char *inner, struct strbuf *open, struct strbuf *close,
                 struct strbuf *qual);
#endif
