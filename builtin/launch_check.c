/*
 * launch_check.c -- the reference launcher's launch-error check, kept in every
 * candidate's launcher (see launch_check.h).
 *
 * A launcher that reads cudaGetLastError() (or cudaPeekAtLastError()) after its
 * launch, usually through a macro of the user's (cudaCheck(cudaGetLastError())
 * that prints and exits), reports a launch that failed.  The builtin's
 * candidates write launchers of their own, so without this the winner would
 * drop that report.  The statements that follow the reference's last launch and
 * read the error (directly, or through a function-like macro of the closure
 * whose definition does) are appended to each candidate's launcher, at its end:
 * cudaGetLastError returns the error of any launch before it, so one check after
 * all of the winner's launches reports what the reference's would.  Statements
 * that name a local of the reference's launcher are left out (the candidate does
 * not have it); its parameters are the candidate's too (the same signature).
 */
#include "config.h"
#include "builtin/launch_check.h"
#include "builtin/parse/parse.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int
is_error_read(const char *name)
{
	return strcmp(name, "cudaGetLastError") == 0 || strcmp(name, "cudaPeekAtLastError") == 0;
}

/* Whether the closure defines name as a function-like macro whose body reads
 * the launch error (its continuation lines included). */
static int
macro_reads_error(const char *closure, const char *name)
{
	size_t n = strlen(name);
	for (const char *d = closure ? strstr(closure, "#define") : NULL; d; d = strstr(d + 7, "#define")) {
		const char *s = d + 7;
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, name, n) != 0 || s[n] != '(')
			continue;
		const char *e = s;
		while (*e && !(*e == '\n' && e[-1] != '\\'))
			e++;
		for (const char *p = s + n; p < e; p++)
			if (strncmp(p, "cudaGetLastError", 16) == 0 || strncmp(p, "cudaPeekAtLastError", 19) == 0)
				return 1;
	}
	return 0;
}

struct scan {
	const char *closure;
	const struct ast_stmt *body; /* the launcher's, for its locals */
	int reads, local;
};

static int
is_local(const struct ast_stmt *body, const char *name)
{
	for (size_t i = 0; i < body->n_body; i++) {
		const struct ast_stmt *s = body->body[i];
		for (size_t d = 0; s->kind == AST_DECL && d < s->n_decls; d++)
			if (strcmp(s->decls[d].name, name) == 0)
				return 1;
	}
	return 0;
}

static int
look(const struct ast_expr *e, void *arg)
{
	struct scan *sc = arg;
	if (e->kind == AST_CALL && e->text && !e->qual &&
	    (is_error_read(e->text) || macro_reads_error(sc->closure, e->text)))
		sc->reads = 1;
	if (e->kind == AST_NAME && !e->qual && is_local(sc->body, e->text))
		sc->local = 1;
	for (size_t i = 0; i < e->n_kids; i++)
		look(e->kids[i], arg);
	return 0;
}


char *
launch_check_statements(const struct egg_bundle *b)
{
	if (b->kind == BUNDLE_KERNEL || !b->target || !strstr(b->target, "LastError"))
		return NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct ast_unit *u = parse_unit(b->target, &err);
	const struct ast_function *f = u ? ast_find_function(u, b->name) : NULL;
	const struct ast_stmt *body = f ? f->body : NULL;
	size_t last = 0;
	int launched = 0;
	for (size_t i = 0; body && i < body->n_body; i++)
		if (ast_has_launch(body->body[i])) {
			last = i;
			launched = 1;
		}
	for (size_t i = last + 1; launched && i < body->n_body; i++) {
		const struct ast_stmt *s = body->body[i];
		struct scan sc = { b->closure, body, 0, 0 };
		if (s->kind != AST_EXPR || s->end <= s->begin)
			continue;
		ast_walk_exprs(s, look, &sc);
		if (sc.reads && !sc.local)
			strbuf_addf(&out, "\t%.*s\n", (int)(s->end - s->begin), b->target + s->begin);
	}
	if (u)
		ast_unit_free(u);
	strbuf_release(&err);
	if (!out.len) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out);
}

/* The offset of the closing brace of the launcher in src: the last '}' of the
 * source, when it closes the body opened after the last "NAME(" (the launcher
 * is the candidate's last definition, as every path writes it); 0 when not. */
static size_t
launcher_end(const char *src, const char *name)
{
	const char *close = strrchr(src, '}');
	size_t n = strlen(name);
	const char *h = NULL;
	for (const char *p = strstr(src, name); p; p = strstr(p + 1, name)) {
		const char *q = p + n;
		while (*q == ' ')
			q++;
		if (*q == '(' && (p == src || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			h = p;
	}
	if (!close || !h || h > close)
		return 0;
	int depth = 0;
	const char *open = strchr(h, '{');
	for (const char *p = open; p && p <= close; p++) {
		depth += *p == '{';
		depth -= *p == '}';
		if (depth == 0)
			return p == close ? (size_t)(close - src) : 0;
	}
	return 0;
}

void
launch_check_keep(const struct egg_bundle *b, struct builtin_output *out)
{
	char *stmts = launch_check_statements(b);
	if (!stmts)
		return;
	for (size_t i = 0; i < out->n_candidates; i++) {
		char *src = out->candidates[i].source;
		size_t at = launcher_end(src, b->name);
		/* the generic path keeps the reference's statements */
		if (!at || strstr(src, stmts + 1))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, src, at);
		strbuf_addstr(&sb, stmts);
		strbuf_addstr(&sb, src + at);
		free(src);
		out->candidates[i].source = strbuf_detach(&sb);
	}
	free(stmts);
}
