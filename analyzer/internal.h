/*
 * internal.h -- the analyzer's model of one translation unit, shared by its
 * files (parse.c builds it, pragma.c and closure.c read it, analyzer.c drives).
 * Not a public header: only the analyzer's own sources include it.
 *
 * Only user files (the main file and the headers it includes that are not
 * system headers) are in the file table.  Positions are byte offsets into a file's text as libclang holds it.  Every
 * top-level declaration of a user file (not a system or CUDA header) becomes a
 * *group*: declarations whose extents overlap (`typedef struct {..} S;`,
 * `int a, b;`) share one, so copying a group copies whole declarations.
 */
#ifndef EGG_ANALYZER_INTERNAL_H
#define EGG_ANALYZER_INTERNAL_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "common/strvec.h"

struct az_file {
	CXFile file;
	char *name;         /* as clang names it; owned */
	const char *text;   /* clang's buffer; not owned */
	size_t len;
	int is_main;
	size_t anchor;      /* offset in the main file of the #include that brought it in */
	int depth;          /* include depth (main file: 0) */
	size_t *bols;       /* offsets where its lines begin (bols[0] = 0), for
			       az_line_col in log time; owned */
	size_t n_bols;
};

struct az_group {
	size_t file;        /* index into files */
	size_t start, end;  /* [start, end) text, attributes and ';' included */
	size_t text_start, text_end; /* what is copied: [start, end), or the whole
				       #if __CUDA_ARCH__ ... #else ... #endif holding it */
	CXCursor *cursors;  /* its declarations, in source order; owned */
	size_t n_cursors;
	char **ns;          /* enclosing namespaces, outermost first; owned */
	size_t n_ns;
	int extern_c_block; /* lexically inside extern "C" { } */
	int selected;       /* part of the closure being built */
};

struct az_macro {
	char *name;         /* owned */
	size_t file;
	size_t start, end;  /* of "NAME... body", without "#define" */
	size_t text_start, text_end; /* the #if __CUDA_ARCH__ conditional holding it
				       (copied whole), or both 0 */
	int selected;
};

struct az_include {
	char *spelling;     /* "<cuda_runtime.h>" or "\"lib.h\""; owned */
	size_t includer;    /* file index of the file holding the directive */
	size_t offset;      /* of the directive in that file */
	int system;         /* the included file is a system header */
};

/* A name a group declares (its first declaration's, or an enumerator of its
 * enum), for finding groups by name (closure.c). */
struct az_named {
	char *name;         /* owned */
	size_t group;
};

struct az_tu {
	CXIndex index;
	CXTranslationUnit tu;
	struct az_file *files;
	size_t n_files;
	struct az_group *groups; /* sorted by (file order, start) */
	size_t n_groups;
	struct az_macro *macros;
	size_t n_macros;
	struct az_include *includes;
	size_t n_includes;
	char **names;            /* every macro (system ones too) and every user
				    file-scope name: what a clause expression may use;
				    NULL-terminated, owned */
	size_t n_names;
	struct az_named *named;  /* sorted by (name, group); built by closure.c on its
				    first use, once per translation unit: looking a
				    name up must not cost a pass over every group
				    (that made analysis quadratic in the functions) */
	size_t n_named;
	int named_built;
};

/* symbols.c: the CUDA attributes of a declaration, as a mask. */
enum {
	AZ_ATTR_GLOBAL = 1, AZ_ATTR_DEVICE = 2, AZ_ATTR_HOST = 4,
	AZ_ATTR_GPU_VAR = 8,  /* __constant__, __shared__ */
	AZ_ATTR_OTHER = 16,   /* an attribute libclang does not name (__managed__, ...) */
};
unsigned az_cuda_attrs(CXCursor c);

/* symbols.c: appends the mangled names of the strong external definitions of the
 * user's files (host functions and variables) to exports, and of everything they
 * declare to known (analyzer.h). */
void az_collect_symbols(const struct az_tu *t, struct strvec *exports, struct strvec *known);

/* parse.c */
/* parse.c: parses path as CUDA for the host side with the build's flags and the
 * shim (see parse.c); text (len bytes), when not NULL, is path's contents. */
enum CXErrorCode az_parse_cuda(CXIndex index, const char *path, const char *text, size_t len,
			       const char *const *clang_args, unsigned opts, CXTranslationUnit *tu);
/* The CUDA toolkit whose headers are parsed (static storage). */
const char *az_cuda_home(void);
int az_parse(struct az_tu *t, const char *path, const char *const *clang_args, struct strbuf *err);
void az_free(struct az_tu *t);
/* Index of the file f in t->files, or (size_t)-1 when not a known file. */
size_t az_file_index(const struct az_tu *t, CXFile f);
/* The file index and offset of a location's expansion point. */
int az_locate(const struct az_tu *t, CXSourceLocation loc, size_t *file, size_t *offset);
/* The group that holds (file, offset), or (size_t)-1. */
size_t az_group_at(const struct az_tu *t, size_t file, size_t offset);
/* Compares positions across files in translation-unit order. */
int az_order(const struct az_tu *t, size_t fa, size_t oa, size_t fb, size_t ob);
/* 1-based line and column of an offset. */
void az_line_col(const struct az_file *f, size_t offset, unsigned *line, unsigned *col);

/* pragma.c */
struct az_pragma {
	size_t offset;      /* where it stands in the main file (directive or macro use) */
	size_t clause_at;   /* offset of the clause text in the main file */
	char *clauses;      /* the clause text, continuations joined; owned */
	size_t *map;        /* clause text index -> main-file offset; owned */
};
/* Finds the pragmas of the main file (t->files[0]) that the preprocessor did
 * not skip, in file order; *n receives their count.  Caller frees with
 * az_pragmas_free. */
struct az_pragma *az_find_pragmas(const struct az_tu *t, size_t *n);
/* The same for another of the user's files (t->files[file], a header): offsets
 * are in that file; a `_Pragma` in one of its #defines is not counted. */
struct az_pragma *az_find_pragmas_in(const struct az_tu *t, size_t file, size_t *n);
void az_pragmas_free(struct az_pragma *p, size_t n);

/* closure.c */
/* Selects the groups and macros the group `target` needs (not the target
 * itself) and the macros its clause text names, and writes them in
 * dependency order to out; appends the system includes to includes (owned
 * strings). */
void az_closure(struct az_tu *t, size_t target, const char *clauses, struct strbuf *out, char ***includes,
		size_t *n_includes);
/* The text of a group, wrapped in its namespaces and extern "C" block. */
void az_group_text(const struct az_tu *t, size_t g, struct strbuf *out);

#endif
