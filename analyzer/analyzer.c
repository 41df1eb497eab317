/*
 * analyzer.c -- from pragmas to bundles (see analyzer.h).
 *
 * For each pragma of the main file: find the function definition it stands
 * before, describe its signature from the AST, read its clauses against those
 * parameters (clauses.c), gather its closure (closure.c) and canonical form
 * (canon.c).  Problems become diagnostics in the compiler's own format, with
 * the source line and a caret, and that pragma gives no bundle; the others go
 * on.
 */
#include "config.h"
#include "analyzer/analyzer.h"
#include "analyzer/canon.h"
#include "analyzer/clauses.h"
#include "analyzer/internal.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "file:line:col: warning: egg: MESSAGE", the source line, and a caret. */
static void
report_in(const struct az_tu *t, size_t file, size_t offset, const char *msg, struct strbuf *out)
{
	const struct az_file *f = &t->files[file];
	if (offset > f->len)
		offset = f->len;
	unsigned line, col;
	az_line_col(f, offset, &line, &col);
	strbuf_addf(out, "%s:%u:%u: warning: egg: %s\n", f->name, line, col, msg);
	size_t bol = offset - (col - 1), eol = offset;
	while (eol < f->len && f->text[eol] != '\n')
		eol++;
	strbuf_add(out, f->text + bol, eol - bol);
	strbuf_addch(out, '\n');
	for (size_t i = bol; i < offset; i++)
		strbuf_addch(out, f->text[i] == '\t' ? '\t' : ' ');
	strbuf_addstr(out, "^\n");
}

static void
report(const struct az_tu *t, size_t offset, const char *msg, struct strbuf *out)
{
	report_in(t, 0, offset, msg, out);
}

/* The annotations of the user's headers: egg rewrites the file it compiles, not
 * the headers it includes (another file may include them too), so each is one
 * warning at the pragma, and counts as an annotation not used. */
static size_t
report_header_pragmas(const struct az_tu *t, struct strbuf *out)
{
	size_t count = 0;
	for (size_t file = 1; file < t->n_files; file++) {
		size_t n;
		struct az_pragma *p = az_find_pragmas_in(t, file, &n);
		for (size_t i = 0; i < n; i++) {
			char *msg = egg_xasprintf(
				"an annotation in a header ('%s', included by %s) is not used: egg optimizes "
				"the launchers of the file it compiles; the launcher is built as written "
				"(annotate it in the .cu file, or a launcher there that calls it)",
				t->files[file].name, t->files[0].name);
			report_in(t, file, p[i].offset, msg, out);
			free(msg);
		}
		count += n;
		az_pragmas_free(p, n);
	}
	return count;
}

void
analyzer_diags_as_errors(struct strbuf *diags)
{
	static const char from[] = ": warning: egg: ", to[] = ": error: egg: ";
	struct strbuf out = STRBUF_INIT;
	const char *p = diags->buf;
	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *hit = memmem(p, n, from, sizeof from - 1);
		if (hit && (hit == p || memchr(p, ':', (size_t)(hit - p)))) { /* a "file:line:col" line */
			strbuf_add(&out, p, (size_t)(hit - p));
			strbuf_addstr(&out, to);
			strbuf_add(&out, hit + sizeof from - 1, n - (size_t)(hit + sizeof from - 1 - p));
		} else {
			strbuf_add(&out, p, n);
		}
		p += n;
		if (*p == '\n')
			strbuf_addch(&out, *p++);
	}
	strbuf_release(diags);
	*diags = out;
}

static char *
cx_take(CXString s)
{
	const char *c = clang_getCString(s);
	char *r = egg_xstrdup(c ? c : "");
	clang_disposeString(s);
	return r;
}

struct kind_probe {
	enum CXCursorKind kind;
	int found;
};

static enum CXChildVisitResult
kind_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kind_probe *p = data;
	if (clang_getCursorKind(c) == p->kind) {
		p->found = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static int
has_child_kind(CXCursor c, enum CXCursorKind kind)
{
	struct kind_probe p = { kind, 0 };
	clang_visitChildren(c, kind_visitor, &p);
	return p.found;
}

/* Removes leading cv-qualifiers from a type's spelling. */
static char *
strip_cv(char *s)
{
	for (;;) {
		if (egg_str_starts(s, "const "))
			memmove(s, s + 6, strlen(s + 6) + 1);
		else if (egg_str_starts(s, "volatile "))
			memmove(s, s + 9, strlen(s + 9) + 1);
		else
			return s;
	}
}

/* The element type as the compiler sees it: through typedefs, using and
 * macros to a builtin type or a struct (`typedef __nv_bfloat16 floatX` gives
 * "__nv_bfloat16", `half` gives "__half"); other types as spelled. */
static char *
elem_type_name(CXType t)
{
	CXType canon = clang_getCanonicalType(t);
	if ((canon.kind >= CXType_FirstBuiltin && canon.kind <= CXType_LastBuiltin) ||
	    canon.kind == CXType_Record)
		return strip_cv(cx_take(clang_getTypeSpelling(canon)));
	return strip_cv(cx_take(clang_getTypeSpelling(t)));
}

struct params_walk {
	struct egg_bundle *b;
};

static enum CXChildVisitResult
param_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct egg_bundle *b = ((struct params_walk *)data)->b;
	if (clang_getCursorKind(c) != CXCursor_ParmDecl)
		return CXChildVisit_Continue;
	b->params = egg_xrealloc(b->params, (b->n_params + 1) * sizeof *b->params);
	struct bundle_param *p = &b->params[b->n_params++];
	memset(p, 0, sizeof *p);
	p->name = cx_take(clang_getCursorSpelling(c));
	if (!*p->name) {
		free(p->name);
		p->name = egg_xasprintf("arg%zu", b->n_params - 1);
	}
	CXType ty = clang_getCursorType(c);
	p->type = cx_take(clang_getTypeSpelling(ty));
	CXType canon = clang_getCanonicalType(ty);
	p->is_pointer = canon.kind == CXType_Pointer;
	if (p->is_pointer) {
		CXType pointee = clang_getPointeeType(ty);
		p->is_const = clang_isConstQualifiedType(pointee) != 0;
		p->elem_type = elem_type_name(pointee);
	} else {
		p->elem_type = elem_type_name(ty);
	}
	p->role = ROLE_SCALAR;
	return CXChildVisit_Continue;
}

static char *
qualified_name(CXCursor c)
{
	char *name = cx_take(clang_getCursorSpelling(c));
	for (CXCursor p = clang_getCursorSemanticParent(c);
	     !clang_Cursor_isNull(p) && clang_getCursorKind(p) != CXCursor_TranslationUnit;
	     p = clang_getCursorSemanticParent(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);
		if (k != CXCursor_Namespace && k != CXCursor_StructDecl && k != CXCursor_ClassDecl)
			continue;
		char *outer = cx_take(clang_getCursorSpelling(p));
		char *q = egg_xasprintf("%s::%s", *outer ? outer : "(anonymous namespace)", name);
		free(outer);
		free(name);
		name = q;
	}
	return name;
}

static char *
signature(CXCursor fn, const struct egg_bundle *b)
{
	struct strbuf s = STRBUF_INIT;
	char *ret = cx_take(clang_getTypeSpelling(clang_getResultType(clang_getCursorType(fn))));
	if (!*ret) { /* a function template: the type is dependent */
		free(ret);
		ret = egg_xstrdup("void");
	}
	strbuf_addf(&s, "%s %s(", ret, b->name);
	free(ret);
	for (size_t i = 0; i < b->n_params; i++) {
		const char *ty = b->params[i].type;
		size_t n = strlen(ty);
		strbuf_addf(&s, "%s%s%s%s", i ? ", " : "", ty, n && ty[n - 1] == '*' ? "" : " ",
			    b->params[i].name);
	}
	strbuf_addch(&s, ')');
	return strbuf_detach(&s);
}

static int
is_function_definition(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	return (k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) && clang_isCursorDefinition(c);
}

/* The group of the function definition a pragma at `offset` stands before. */
static size_t
target_group(const struct az_tu *t, size_t offset)
{
	for (size_t i = 0; i < t->n_groups; i++)
		if (t->groups[i].file == 0 && t->groups[i].end > offset)
			return t->groups[i].start >= offset ? i : (size_t)-1;
	return (size_t)-1;
}

static void
report_clauses(const struct az_tu *t, const struct az_pragma *p, size_t skip,
	       const struct clause_diags *d, struct strbuf *out)
{
	size_t n = strlen(p->clauses);
	for (size_t i = 0; i < d->n; i++) {
		size_t off = p->offset;
		if (d->v[i].offset != CLAUSE_AT_PRAGMA) {
			size_t k = skip + d->v[i].offset;
			off = k < n ? p->map[k] : (n ? p->map[n - 1] + 1 : p->clause_at);
		}
		report(t, off, d->v[i].message, out);
	}
}

/* The function a pragma names in group g: a macro expansion may define a
 * kernel and its launcher together; launch(...) asks for the kernel. */
static int
pick_function(const struct az_group *g, const char *clauses, CXCursor *out)
{
	int want_kernel = strstr(clauses, "launch") != NULL, found = 0;
	for (size_t i = 0; i < g->n_cursors; i++) {
		CXCursor c = g->cursors[i];
		if (!is_function_definition(c))
			continue;
		int kernel = has_child_kind(c, CXCursor_CUDAGlobalAttr);
		if (!found || kernel == want_kernel)
			*out = c;
		found = 1;
	}
	return found ? 0 : -1;
}

/* Offset of loc in the main file, or -1 when it is elsewhere or inside a macro
 * expansion (such text cannot be replaced in place). */
static long
main_offset(const struct az_tu *t, CXSourceLocation loc)
{
	CXFile ef, sf;
	unsigned eoff, soff;
	clang_getExpansionLocation(loc, &ef, NULL, NULL, &eoff);
	clang_getSpellingLocation(loc, &sf, NULL, NULL, &soff);
	if (!ef || !clang_File_isEqual(ef, t->files[0].file) || !sf || !clang_File_isEqual(sf, ef) ||
	    eoff != soff)
		return -1;
	return (long)eoff;
}

static enum CXChildVisitResult
find_body(CXCursor c, CXCursor parent, CXClientData data)
{
	if (clang_getCursorKind(c) == CXCursor_CompoundStmt) {
		*(CXCursor *)data = c;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/* Where the rewrite finds the pragma, the definition, its name and its body
 * (bundle.h's spans).  Left unset when the definition comes from a macro. */
static void
set_spans(const struct az_tu *t, const struct az_pragma *p, CXCursor fn, struct egg_bundle *b)
{
	const struct az_file *f = &t->files[0];
	CXCursor body = clang_getNullCursor();
	clang_visitChildren(fn, find_body, &body);
	if (clang_Cursor_isNull(body))
		return;
	CXSourceRange def = clang_getCursorExtent(fn), br = clang_getCursorExtent(body);
	long d0 = main_offset(t, clang_getRangeStart(def)), d1 = main_offset(t, clang_getRangeEnd(def));
	long b0 = main_offset(t, clang_getRangeStart(br)), b1 = main_offset(t, clang_getRangeEnd(br));
	long n0 = main_offset(t, clang_getCursorLocation(fn));
	if (d0 < 0 || d1 <= d0 || b0 < d0 || b1 != d1 || n0 < d0 || n0 > b0 || (size_t)d1 > f->len)
		return;
	/* A #pragma directive is blanked (with its continuation lines); a _Pragma
	 * stands inside a macro and is left alone. */
	size_t p0 = p->offset, p1 = p->offset;
	size_t k = p0;
	while (k < f->len && (f->text[k] == ' ' || f->text[k] == '\t'))
		k++;
	if (k < f->len && f->text[k] == '#') {
		p1 = k;
		while (p1 < f->len && !(f->text[p1] == '\n' && (p1 == 0 || f->text[p1 - 1] != '\\')))
			p1++;
		if (p1 > (size_t)d0)
			return;
	} else {
		p0 = p1 = (size_t)d0;
	}
	b->span_pragma = (struct bundle_span){ p0, p1 };
	b->span_definition = (struct bundle_span){ (unsigned long)d0, (unsigned long)d1 };
	b->span_name = (struct bundle_span){ (unsigned long)n0, (unsigned long)n0 + strlen(b->name) };
	b->span_body = (struct bundle_span){ (unsigned long)b0, (unsigned long)b1 };
	b->has_spans = 1;
}

static struct egg_bundle *
build_bundle(struct az_tu *t, const struct az_pragma *p, size_t g, CXCursor fn, struct strbuf *diags)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = cx_take(clang_getCursorSpelling(fn));
	b->qualified_name = qualified_name(fn);
	CXCursor decl = fn;
	b->kind = has_child_kind(decl, CXCursor_CUDAGlobalAttr) ? BUNDLE_KERNEL : BUNDLE_LAUNCHER;
	CXCursor lex = clang_getCursorLexicalParent(fn);
	b->extern_c = clang_getCursorKind(lex) == CXCursor_LinkageSpec ||
		      clang_getCursorKind(lex) == CXCursor_UnexposedDecl;
	b->is_static = clang_Cursor_getStorageClass(fn) == CX_SC_Static;
	struct params_walk pw = { b };
	clang_visitChildren(fn, param_visitor, &pw);
	b->signature = signature(fn, b);
	b->precision = PRECISION_DEFAULT;

	/* The clause text follows the directive name ("optimize"). */
	size_t skip = 0;
	while (isalnum((unsigned char)p->clauses[skip]) || p->clauses[skip] == '_')
		skip++;
	struct clause_diags d = { NULL, 0 };
	size_t problems = clauses_parse(p->clauses + skip, b, (const char *const *)t->names, &d);
	report_clauses(t, p, skip, &d, diags);
	clause_diags_free(&d);
	if (problems) {
		bundle_free(b);
		return NULL;
	}
	const char *text = p->clauses + skip;
	while (isspace((unsigned char)*text))
		text++;
	/* As written, with its continuation lines joined by one space. */
	struct strbuf pragma = STRBUF_INIT;
	for (const char *c = text; *c; c++) {
		if (!isspace((unsigned char)*c))
			strbuf_addch(&pragma, *c);
		else if (c[1] && !isspace((unsigned char)c[1]))
			strbuf_addch(&pragma, ' ');
	}
	b->pragma = strbuf_detach(&pragma);
	b->file = egg_xstrdup(t->files[0].name);
	az_line_col(&t->files[0], p->offset, &b->line, &b->column);
	set_spans(t, p, fn, b);

	struct strbuf closure = STRBUF_INIT, target = STRBUF_INIT;
	az_closure(t, g, b->pragma, &closure, &b->includes, &b->n_includes);
	az_group_text(t, g, &target);
	b->closure = strbuf_detach(&closure);
	b->target = strbuf_detach(&target);
	char *whole = egg_xasprintf("%s%s", b->closure, b->target);
	b->canonical = canon_text(whole);
	free(whole);
	return b;
}

static void
add_bundle(struct analyzer_result *res, struct egg_bundle *b)
{
	res->bundles = egg_xrealloc(res->bundles, (res->n_bundles + 1) * sizeof *res->bundles);
	res->bundles[res->n_bundles++] = b;
}

int
analyzer_analyze_file(const char *path, const char *const *clang_args, struct analyzer_result *res,
		      struct strbuf *err)
{
	memset(res, 0, sizeof *res);
	strbuf_init(&res->diags);
	FILE *probe = fopen(path, "r");
	if (!probe) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	fclose(probe);
	struct az_tu t;
	if (az_parse(&t, path, clang_args, err) != 0) {
		az_free(&t);
		return -1;
	}
	size_t n;
	struct az_pragma *pragmas = az_find_pragmas(&t, &n);
	res->n_pragmas = n;
	size_t last_target = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		const struct az_pragma *p = &pragmas[i];
		size_t wl = 0;
		while (isalnum((unsigned char)p->clauses[wl]) || p->clauses[wl] == '_')
			wl++;
		if (wl != 8 || strncmp(p->clauses, "optimize", 8) != 0) {
			char *word = egg_xstrndup(p->clauses, wl);
			char *msg = egg_xasprintf("unknown egg pragma '%s'; did you mean 'optimize'?", word);
			report(&t, p->clause_at, msg, &res->diags);
			free(msg);
			free(word);
			continue;
		}
		size_t g = target_group(&t, p->offset);
		CXCursor fn = clang_getNullCursor();
		if (g == (size_t)-1 || pick_function(&t.groups[g], p->clauses, &fn) != 0) {
			report(&t, p->offset,
			       "'#pragma egg optimize' must stand right before a function definition; this one is ignored",
			       &res->diags);
			continue;
		}
		if (g == last_target) {
			report(&t, p->offset, "a second '#pragma egg optimize' for the same function; only the first is used",
			       &res->diags);
			continue;
		}
		last_target = g;
		if (clang_getCursorKind(fn) == CXCursor_FunctionTemplate) {
			/* The judge checks one function with known types, and a cached
			 * replacement would serve every instantiation, checked or not. */
			char *name = cx_take(clang_getCursorSpelling(fn));
			char *msg = egg_xasprintf(
				"a function template cannot be optimized: egg checks a function with known "
				"types; put the pragma on a non-template function that calls the instantiation "
				"you use (e.g. one calling %s<float>)", name);
			report(&t, p->offset, msg, &res->diags);
			free(msg);
			free(name);
			continue;
		}
		struct egg_bundle *b = build_bundle(&t, p, g, fn, &res->diags);
		if (b)
			add_bundle(res, b);
	}
	az_pragmas_free(pragmas, n);
	res->n_pragmas += report_header_pragmas(&t, &res->diags);
	if (res->n_bundles > 0)
		az_collect_symbols(&t, &res->exports, &res->known);
	az_free(&t);
	return 0;
}

void
analyzer_result_free(struct analyzer_result *res)
{
	for (size_t i = 0; i < res->n_bundles; i++)
		bundle_free(res->bundles[i]);
	free(res->bundles);
	strbuf_release(&res->diags);
	strvec_clear(&res->exports);
	strvec_clear(&res->known);
	memset(res, 0, sizeof *res);
}
