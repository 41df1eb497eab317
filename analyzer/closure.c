/*
 * closure.c -- everything an annotated function needs, and nothing else.
 *
 * Starting from the target's declaration group, every cursor below it is asked
 * what it references (calls, <<<>>> launches, template instantiations, types,
 * enumerators, __constant__/__device__ variables, namespace aliases); a
 * reference into a user file selects the group that holds it (and the group of
 * its definition, when it was reached through a prototype), and the walk goes
 * on from there.  Declarations in system and CUDA headers are never copied:
 * their #include lines travel instead.
 *
 * Text: each group is copied as the user wrote it, from the file, not
 * re-printed from the AST.  The AST has already decided the #if branches
 * *between* declarations (only the live declaration is a cursor); macros are
 * kept as macros and every user macro the copied text names is copied too
 * (transitively, through macro bodies).  #if branches *inside* a function body
 * stay, on purpose: `#if __CUDA_ARCH__ >= 800` must be decided by nvcc's
 * device pass, which the host-side parse cannot stand in for.  For the same
 * reason a declaration or macro inside `#ifdef __CUDA_ARCH__ ... #else ...`
 * is copied with the whole conditional (parse.c); the names in the branch the
 * host never saw select their declarations by name.  Output order is the
 * translation unit's order, which is an order C++ already accepted.
 */
#include "config.h"
#include "analyzer/internal.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct closure_walk {
	struct az_tu *t;
	size_t *queue;
	size_t n_queue;
};

static void
select_group(struct closure_walk *w, size_t g)
{
	if (g == (size_t)-1 || w->t->groups[g].selected)
		return;
	w->t->groups[g].selected = 1;
	w->queue = egg_xrealloc(w->queue, (w->n_queue + 1) * sizeof *w->queue);
	w->queue[w->n_queue++] = g;
}

static void
select_decl(struct closure_walk *w, CXCursor d)
{
	if (clang_Cursor_isNull(d) || clang_isInvalid(clang_getCursorKind(d)))
		return;
	size_t file, off;
	if (az_locate(w->t, clang_getCursorLocation(d), &file, &off) != 0) /* a system header */
		return;
	select_group(w, az_group_at(w->t, file, off));
}

static enum CXChildVisitResult
reference_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct closure_walk *w = data;
	if (clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
		/* A dependent call inside a template: every candidate it names. */
		unsigned n = clang_getNumOverloadedDecls(c);
		for (unsigned i = 0; i < n; i++)
			select_decl(w, clang_getOverloadedDecl(c, i));
	}
	CXCursor ref = clang_getCursorReferenced(c);
	if (!clang_Cursor_isNull(ref) && !clang_equalCursors(ref, c)) {
		select_decl(w, ref);
		CXCursor tmpl = clang_getSpecializedCursorTemplate(ref);
		if (!clang_Cursor_isNull(tmpl))
			select_decl(w, tmpl);
		CXCursor def = clang_getCursorDefinition(ref);
		if (!clang_Cursor_isNull(def))
			select_decl(w, def);
	}
	/* A variable's or parameter's type: its declaration is referenced by a
	 * TypeRef child already; a typedef'd pointee is covered the same way. */
	return CXChildVisit_Recurse;
}

static int
ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The definition of macro `name` in force at (file, offset): the last one
 * before it in translation-unit order, else the first one. */
static size_t
find_macro(const struct az_tu *t, const char *name, size_t n, size_t file, size_t offset)
{
	size_t found = (size_t)-1;
	for (size_t i = 0; i < t->n_macros; i++) {
		const struct az_macro *m = &t->macros[i];
		if (strlen(m->name) != n || strncmp(m->name, name, n) != 0)
			continue;
		if (found == (size_t)-1 || az_order(t, m->file, m->start, file, offset) < 0)
			found = i;
	}
	return found;
}

/* Selects every user macro that the text [start, end) of s names, read as if
 * it stood in file at offset `at` (or, when at is (size_t)-1, at its own
 * offsets: s is that file's text). */
static void
select_macros_in(struct az_tu *t, const char *s, size_t file, size_t start, size_t end, size_t at)
{
	for (size_t i = start; i < end;) {
		if (s[i] == '"' || s[i] == '\'') { /* not inside literals */
			char q = s[i];
			for (i++; i < end && s[i] != q; i++)
				if (s[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (!ident_char(s[i]) || (i > start && ident_char(s[i - 1]))) {
			i++;
			continue;
		}
		size_t b = i;
		while (i < end && ident_char(s[i]))
			i++;
		if (isdigit((unsigned char)s[b]))
			continue;
		size_t m = find_macro(t, s + b, i - b, file, at == (size_t)-1 ? b : at);
		if (m == (size_t)-1 || t->macros[m].selected)
			continue;
		t->macros[m].selected = 1;
		/* The body may name more macros; skip the macro's own name. */
		size_t body = t->macros[m].start + strlen(t->macros[m].name);
		select_macros_in(t, t->files[t->macros[m].file].text, t->macros[m].file, body, t->macros[m].end,
				 (size_t)-1);
	}
}

void
az_group_text(const struct az_tu *t, size_t gi, struct strbuf *out)
{
	const struct az_group *g = &t->groups[gi];
	if (g->extern_c_block)
		strbuf_addstr(out, "extern \"C\" {\n");
	for (size_t i = 0; i < g->n_ns; i++)
		strbuf_addf(out, "namespace %s {\n", g->ns[i]);
	strbuf_add(out, t->files[g->file].text + g->text_start, g->text_end - g->text_start);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < g->n_ns; i++)
		strbuf_addstr(out, "}\n");
	if (g->extern_c_block)
		strbuf_addstr(out, "}\n");
}

static void
macro_text(const struct az_tu *t, const struct az_macro *m, struct strbuf *out)
{
	if (m->text_end) {
		strbuf_add(out, t->files[m->file].text + m->text_start, m->text_end - m->text_start);
	} else {
		strbuf_addstr(out, "#define ");
		strbuf_add(out, t->files[m->file].text + m->start, m->end - m->start);
	}
	strbuf_addch(out, '\n');
}

/* An item of the output: a group or a macro, at a position. */
struct item {
	int is_macro;
	size_t index, file, offset;
	const struct az_tu *t;
};

/* Adds an item unless one at the same place is there: the declarations and
 * macros of one __CUDA_ARCH__ conditional are copied once, with it. */
static void
add_item(struct item *items, size_t *n, struct item it)
{
	for (size_t k = 0; k < *n; k++)
		if (items[k].file == it.file && items[k].offset == it.offset)
			return;
	items[(*n)++] = it;
}

static int
item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	return az_order(a->t, a->file, a->offset, b->file, b->offset);
}

static void
add_include(char ***v, size_t *n, const char *spelling)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], spelling) == 0)
			return;
	*v = egg_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = egg_xstrdup(spelling);
}

struct named_builder {
	struct az_tu *t;
	size_t group, cap;
};

static void
add_named(struct named_builder *nb, CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	const char *cs = clang_getCString(s);
	if (cs && *cs) {
		struct az_tu *t = nb->t;
		if (t->n_named == nb->cap) {
			nb->cap = nb->cap ? 2 * nb->cap : 256;
			t->named = egg_xrealloc(t->named, nb->cap * sizeof *t->named);
		}
		t->named[t->n_named++] = (struct az_named){ egg_xstrdup(cs), nb->group };
	}
	clang_disposeString(s);
}

static enum CXChildVisitResult
enumerator_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl)
		add_named(data, c);
	return CXChildVisit_Continue;
}

static int
named_cmp(const void *a, const void *b)
{
	const struct az_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->group < y->group ? -1 : x->group > y->group;
}

/* The index of the names groups declare (internal.h), once per translation
 * unit: one spelling per group and per enumerator. */
static void
build_named(struct az_tu *t)
{
	if (t->named_built)
		return;
	t->named_built = 1;
	struct named_builder nb = { t, 0, 0 };
	for (nb.group = 0; nb.group < t->n_groups; nb.group++) {
		CXCursor c = t->groups[nb.group].cursors[0];
		add_named(&nb, c);
		if (clang_getCursorKind(c) == CXCursor_EnumDecl)
			clang_visitChildren(c, enumerator_visitor, &nb);
	}
	if (t->n_named > 1)
		qsort(t->named, t->n_named, sizeof *t->named, named_cmp);
}

/* The first entry of the index whose name is name[0, len), or n_named. */
static size_t
first_named(const struct az_tu *t, const char *name, size_t len)
{
	size_t lo = 0, hi = t->n_named;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = t->named[mid].name;
		int c = strncmp(m, name, len);
		if (c == 0 && m[len]) /* longer than name: after it */
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
named_is(const struct az_named *e, const char *name, size_t len)
{
	return strncmp(e->name, name, len) == 0 && e->name[len] == '\0';
}

/* Clause expressions may name the file's constants and enumerators
 * (range(idx, 0, VOCAB)), and the branch of an #ifdef __CUDA_ARCH__ that the
 * host parse skipped may name anything (functions too): the groups declaring
 * those names join the closure.  A name is matched as text, so this may copy
 * a little more than needed, never less. */
static void
select_named_in(struct closure_walk *w, const char *s, int functions)
{
	struct az_tu *t = w->t;
	for (size_t i = 0; s[i];) {
		if (!ident_char(s[i]) || isdigit((unsigned char)s[i])) {
			while (ident_char(s[i]))
				i++;
			if (s[i])
				i++;
			continue;
		}
		size_t b = i;
		while (ident_char(s[i]))
			i++;
		build_named(t);
		size_t prev = (size_t)-1;
		for (size_t k = first_named(t, s + b, i - b);
		     k < t->n_named && named_is(&t->named[k], s + b, i - b); k++) {
			size_t g = t->named[k].group;
			if (g == prev) /* the enum and one of its enumerators share a name */
				continue;
			prev = g;
			if (functions || clang_getCursorKind(t->groups[g].cursors[0]) != CXCursor_FunctionDecl)
				select_group(w, g);
		}
	}
}

struct using_probe {
	const struct az_tu *t;
	int wanted;
};

static enum CXChildVisitResult
using_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct using_probe *u = data;
	CXCursor ref = clang_getCursorReferenced(c);
	if (clang_Cursor_isNull(ref) || clang_equalCursors(ref, c))
		return CXChildVisit_Continue;
	size_t file, off;
	if (az_locate(u->t, clang_getCursorLocation(ref), &file, &off) != 0) {
		u->wanted = 1; /* names a system namespace or declaration */
		return CXChildVisit_Break;
	}
	size_t g = az_group_at(u->t, file, off);
	if (g != (size_t)-1 && u->t->groups[g].selected)
		u->wanted = 1; /* names a declaration the closure copies */
	CXString name = clang_getCursorSpelling(ref);
	for (size_t i = 0; !u->wanted && i < u->t->n_groups; i++) /* or its namespace */
		for (size_t k = 0; u->t->groups[i].selected && k < u->t->groups[i].n_ns; k++)
			if (strcmp(u->t->groups[i].ns[k], clang_getCString(name)) == 0)
				u->wanted = 1;
	clang_disposeString(name);
	return CXChildVisit_Break;
}

/* `using namespace X;` and `using X::f;` are referenced by nothing, yet the
 * copied code may need them: keep those that name a system header's
 * namespace or something the closure copies (never one whose target would
 * be missing from the bundle). */
static void
select_usings(struct az_tu *t)
{
	for (size_t i = 0; i < t->n_groups; i++) {
		struct az_group *g = &t->groups[i];
		enum CXCursorKind k = clang_getCursorKind(g->cursors[0]);
		if (g->selected || (k != CXCursor_UsingDirective && k != CXCursor_UsingDeclaration))
			continue;
		struct using_probe u = { t, 0 };
		clang_visitChildren(g->cursors[0], using_visitor, &u);
		g->selected = u.wanted;
	}
}

void
az_closure(struct az_tu *t, size_t target, const char *clauses, struct strbuf *out, char ***includes,
	   size_t *n_includes)
{
	for (size_t i = 0; i < t->n_groups; i++)
		t->groups[i].selected = 0;
	for (size_t i = 0; i < t->n_macros; i++)
		t->macros[i].selected = 0;
	struct closure_walk w = { t, NULL, 0 };
	select_group(&w, target);
	select_named_in(&w, clauses, 0);
	for (size_t q = 0; q < w.n_queue; q++) {
		const struct az_group *g = &t->groups[w.queue[q]];
		for (size_t c = 0; c < g->n_cursors; c++) {
			reference_visitor(g->cursors[c], clang_getNullCursor(), &w);
			clang_visitChildren(g->cursors[c], reference_visitor, &w);
		}
		if (g->text_start != g->start || g->text_end != g->end) {
			char *text = egg_xstrndup(t->files[g->file].text + g->text_start, g->text_end - g->text_start);
			select_named_in(&w, text, 1);
			free(text);
		}
	}
	free(w.queue);
	select_usings(t);
	for (size_t i = 0; i < t->n_groups; i++)
		if (t->groups[i].selected)
			select_macros_in(t, t->files[t->groups[i].file].text, t->groups[i].file, t->groups[i].text_start,
					 t->groups[i].text_end, (size_t)-1);
	/* Clause expressions (extents, launch geometry) may name macros too:
	 * the harness evaluates them with the closure in scope.  The offsets are
	 * the clause text's own, placed where the target starts. */
	select_macros_in(t, clauses, t->groups[target].file, 0, strlen(clauses), t->groups[target].start);

	struct item *items = egg_xcalloc(t->n_groups + t->n_macros + 1, sizeof *items);
	size_t n = 0;
	const struct az_group *tg = &t->groups[target];
	for (size_t i = 0; i < t->n_groups; i++) {
		const struct az_group *g = &t->groups[i];
		if (g->selected && i != target && !(g->file == tg->file && g->text_start == tg->text_start))
			add_item(items, &n, (struct item){ 0, i, g->file, g->text_start, t });
	}
	for (size_t i = 0; i < t->n_macros; i++) {
		const struct az_macro *m = &t->macros[i];
		if (m->selected && !(m->text_end && m->file == tg->file && m->text_start == tg->text_start))
			add_item(items, &n, (struct item){ 1, i, m->file, m->text_end ? m->text_start : m->start, t });
	}
	qsort(items, n, sizeof *items, item_cmp);
	for (size_t i = 0; i < n; i++) {
		if (items[i].is_macro)
			macro_text(t, &t->macros[items[i].index], out);
		else
			az_group_text(t, items[i].index, out);
	}
	free(items);

	for (size_t i = 0; i < t->n_includes; i++)
		if (t->includes[i].system)
			add_include(includes, n_includes, t->includes[i].spelling);
}
