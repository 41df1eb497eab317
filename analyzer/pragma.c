/*
 * pragma.c -- finding `#pragma egg optimize` and `_Pragma("egg optimize ...")`
 * in the main file.
 *
 * clang drops unknown pragmas before the AST, so they are found in the source
 * text: a small scan that skips comments and string literals, joins `\`
 * continuations, and drops whatever the preprocessor skipped (clang's skipped
 * ranges, so `#if 0` hides a pragma as it hides code).  A `_Pragma` inside a
 * `#define` stands wherever that macro is expanded in the main file (clang's
 * preprocessing record lists the expansions); its clause text and the
 * positions of the diagnostics about it stay in the #define, where the user
 * wrote them.
 */
#include "config.h"
#include "analyzer/internal.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct finder {
	const struct az_tu *t;
	const char *s;
	size_t len;
	struct az_pragma *v;
	size_t n;
	CXSourceRangeList *skipped;
};

static int
is_skipped(const struct finder *f, size_t offset)
{
	for (unsigned i = 0; f->skipped && i < f->skipped->count; i++) {
		unsigned a, b;
		clang_getExpansionLocation(clang_getRangeStart(f->skipped->ranges[i]), NULL, NULL, NULL, &a);
		clang_getExpansionLocation(clang_getRangeEnd(f->skipped->ranges[i]), NULL, NULL, NULL, &b);
		if (a <= offset && offset < b)
			return 1;
	}
	return 0;
}

static void
push(struct finder *f, size_t offset, struct strbuf *text, size_t *map, size_t clause_at)
{
	f->v = egg_xrealloc(f->v, (f->n + 1) * sizeof *f->v);
	f->v[f->n++] = (struct az_pragma){ offset, clause_at, strbuf_detach(text), map };
}

/* Matches word at s[i] (followed by a non-identifier character). */
static int
word_at(const char *s, size_t i, const char *word)
{
	size_t n = strlen(word);
	return strncmp(s + i, word, n) == 0 && !(isalnum((unsigned char)s[i + n]) || s[i + n] == '_');
}

/* The length of a line splice at s[i]: a backslash and the end of the line,
 * "\\\n" or, in a file with CRLF line ends, "\\\r\n"; 0 if none. */
static size_t
splice_at(const char *s, size_t i)
{
	if (s[i] != '\\')
		return 0;
	return s[i + 1] == '\n' ? 2 : s[i + 1] == '\r' && s[i + 2] == '\n' ? 3 : 0;
}

static size_t
skip_hspace(const char *s, size_t i)
{
	for (;;) {
		if (s[i] == ' ' || s[i] == '\t')
			i++;
		else if (splice_at(s, i))
			i += splice_at(s, i);
		else
			return i;
	}
}

/* `#pragma egg optimize CLAUSES` whose '#' is at s[hash]; the clause text runs
 * to the end of the logical line. */
static void
directive(struct finder *f, size_t hash)
{
	const char *s = f->s;
	size_t i = skip_hspace(s, hash + 1);
	if (!word_at(s, i, "pragma"))
		return;
	i = skip_hspace(s, i + 6);
	if (!word_at(s, i, "egg"))
		return;
	i = skip_hspace(s, i + 3);
	size_t word = i;
	while (isalnum((unsigned char)s[i]) || s[i] == '_')
		i++;
	struct strbuf text = STRBUF_INIT;
	size_t *map = NULL;
	size_t cap = 0;
	/* The directive name goes first; analyzer.c checks it is "optimize". */
	for (size_t k = word;; k++) {
		if (splice_at(s, k)) {
			k += splice_at(s, k) - 1;
			continue;
		}
		if (!s[k] || s[k] == '\n' || (s[k] == '\r' && s[k + 1] == '\n') ||
		    (s[k] == '/' && (s[k + 1] == '/' || s[k + 1] == '*')))
			break;
		if (text.len + 1 >= cap) {
			cap = cap ? 2 * cap : 128;
			map = egg_xrealloc(map, cap * sizeof *map);
		}
		map[text.len] = k;
		strbuf_addch(&text, s[k]);
	}
	if (!map)
		map = egg_xcalloc(1, sizeof *map);
	push(f, hash, &text, map, word);
}

/* `_Pragma("egg ...")` at s[at]; placed at `site` (itself, or where the
 * macro holding it is expanded). */
static void
operator_pragma(struct finder *f, size_t at, size_t site)
{
	const char *s = f->s;
	size_t i = skip_hspace(s, at + 7);
	if (s[i] != '(')
		return;
	i = skip_hspace(s, i + 1);
	if (s[i] != '"')
		return;
	i++;
	size_t k = skip_hspace(s, i);
	if (!word_at(s, k, "egg"))
		return;
	k = skip_hspace(s, k + 3);
	struct strbuf text = STRBUF_INIT;
	size_t cap = 64, word = k;
	size_t *map = egg_xcalloc(cap, sizeof *map);
	for (; s[k] && s[k] != '"' && s[k] != '\n'; k++) {
		if (s[k] == '\\' && (s[k + 1] == '"' || s[k + 1] == '\\'))
			k++;
		if (text.len + 1 >= cap) {
			cap *= 2;
			map = egg_xrealloc(map, cap * sizeof *map);
		}
		map[text.len] = k;
		strbuf_addch(&text, s[k]);
	}
	push(f, site, &text, map, word);
}

/* The name a `#define` on the line of offset `at` defines, or NULL. */
static char *
enclosing_define(const char *s, size_t at)
{
	size_t bol = at;
	for (;;) {
		while (bol > 0 && s[bol - 1] != '\n')
			bol--;
		if (bol >= 2 && s[bol - 2] == '\\')
			bol--;
		else if (bol >= 3 && s[bol - 2] == '\r' && s[bol - 3] == '\\')
			bol -= 2;
		else
			break;
	}
	size_t i = skip_hspace(s, bol);
	if (s[i] != '#')
		return NULL;
	i = skip_hspace(s, i + 1);
	if (!word_at(s, i, "define"))
		return NULL;
	i = skip_hspace(s, i + 6);
	size_t n = 0;
	while (isalnum((unsigned char)s[i + n]) || s[i + n] == '_')
		n++;
	return n ? egg_xstrndup(s + i, n) : NULL;
}

struct expansion_walk {
	struct finder *f;
	const char *macro;
	size_t pragma_at;
};

static enum CXChildVisitResult
expansion_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct expansion_walk *w = data;
	if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
		return CXChildVisit_Continue;
	size_t file, off;
	if (az_locate(w->f->t, clang_getCursorLocation(c), &file, &off) != 0 || file != 0)
		return CXChildVisit_Continue;
	CXString name = clang_getCursorSpelling(c);
	if (strcmp(clang_getCString(name), w->macro) == 0)
		operator_pragma(w->f, w->pragma_at, off);
	clang_disposeString(name);
	return CXChildVisit_Continue;
}

static int
pragma_cmp(const void *pa, const void *pb)
{
	const struct az_pragma *a = pa, *b = pb;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

struct az_pragma *
az_find_pragmas(const struct az_tu *t, size_t *n)
{
	return az_find_pragmas_in(t, 0, n);
}

struct az_pragma *
az_find_pragmas_in(const struct az_tu *t, size_t file, size_t *n)
{
	const struct az_file *mf = &t->files[file];
	struct finder f = { t, mf->text, mf->len, NULL, 0, clang_getSkippedRanges(t->tu, mf->file) };
	const char *s = mf->text;
	int line_start = 1;
	for (size_t i = 0; i < mf->len;) {
		char c = s[i];
		if (c == '/' && s[i + 1] == '/') {
			while (i < mf->len && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");
			i = e ? (size_t)(e - s) + 2 : mf->len;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < mf->len && s[i] != c && s[i] != '\n'; i++)
				if (s[i] == '\\')
					i++;
			i++;
			line_start = 0;
			continue;
		}
		if (c == '\n') {
			line_start = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#' && line_start && !is_skipped(&f, i)) {
			directive(&f, i);
		} else if (word_at(s, i, "_Pragma") && !is_skipped(&f, i) &&
			   (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
			char *macro = enclosing_define(s, i);
			if (!macro) {
				operator_pragma(&f, i, i);
			} else if (file != 0) {
				/* a header's macro: a tool for the files that expand
				 * it, not an annotation of the header's own code */
			} else {
				struct expansion_walk w = { &f, macro, i };
				clang_visitChildren(clang_getTranslationUnitCursor(t->tu), expansion_visitor, &w);
				free(macro);
			}
		}
		line_start = 0;
		i++;
	}
	if (f.skipped)
		clang_disposeSourceRangeList(f.skipped);
	qsort(f.v, f.n, sizeof *f.v, pragma_cmp);
	*n = f.n;
	return f.v;
}

void
az_pragmas_free(struct az_pragma *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].clauses);
		free(p[i].map);
	}
	free(p);
}
