/*
 * parse.c -- parsing a .cu file with libclang 14 and building the analyzer's
 * model of it (internal.h): its files, top-level declaration groups, macros
 * and include directives.
 *
 * How CUDA 13 is parsed.  clang 14's own CUDA wrapper headers
 * (__clang_cuda_runtime_wrapper.h) include texture headers CUDA 13 removed, so
 * they fail outright.  We parse with -nocudainc (no wrapper) for the host side
 * only, against the real CUDA headers, with __CUDACC__ left undefined while
 * those headers are read: in that mode cuda_runtime.h is a plain host header
 * that still spells __global__/__device__/__shared__/__constant__ as clang's
 * CUDA attributes.  A shim, force-included first, then supplies what nvcc's
 * front end would: threadIdx and friends, the <<<>>> configuration call
 * clang lowers launches to, __launch_bounds__, and finally __CUDACC__ and
 * __NVCC__ for the user's own code (`#ifdef __CUDACC__` in user headers must
 * see what nvcc sees).  Errors inside system headers (device-only intrinsics
 * that are undeclared on the host side) are expected and ignored: the AST of
 * the user's code is what we read, and KeepGoing keeps it whole.  The result
 * is fast (cuda_runtime.h parses in well under 100 ms) and needs nothing
 * installed beyond libclang and the toolkit.
 *
 * EGG_ANALYZER_DEBUG=1 prints the parse time and the declaration groups on
 * stderr, for whoever has to find out why a closure is what it is.
 */
#include "config.h"
#include "analyzer/internal.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SHIM_DIR "/egg-analyzer-shim"
#define SHIM_NAME "egg_analyzer_shim.h"

static const char shim_text[] =
	"#include <cuda_runtime.h>\n"
	"struct __egg_dim3_t { unsigned x, y, z; };\n"
	"extern const __attribute__((device)) uint3 threadIdx;\n"
	"extern const __attribute__((device)) uint3 blockIdx;\n"
	"extern const __attribute__((device)) dim3 blockDim;\n"
	"extern const __attribute__((device)) dim3 gridDim;\n"
	"extern const __attribute__((device)) int warpSize;\n"
	"extern \"C\" unsigned __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize,"
	" size_t sharedSize = 0, void *stream = 0);\n"
	/* Without __CUDACC__, host_defines.h spells __global__ and friends as
	 * nothing; give them back their attributes for the user's code. */
	"#undef __annotate__\n"
	"#define __annotate__(a) __attribute__((a))\n"
	"#ifndef __launch_bounds__\n"
	"#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
	"#endif\n"
	"#define __CUDACC__ 1\n"
	"#define __NVCC__ 1\n";

static int
has_std(const char *const *args)
{
	for (size_t i = 0; args && args[i]; i++)
		if (egg_str_starts(args[i], "-std=") || strcmp(args[i], "-std") == 0)
			return 1;
	return 0;
}

static int
is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The CUDA toolkit whose headers the build uses: EGG_CUDA_HOME (egg plan sets it
 * from the build's own nvcc), else the one configure found.  Static storage. */
const char *
az_cuda_home(void)
{
	const char *env = getenv("EGG_CUDA_HOME");
	return env && *env && is_dir(env) ? env : EGG_CUDA_HOME;
}

/* clang's builtin headers (stddef.h, limits.h, ...): EGG_CLANG_RESOURCE_DIR, else
 * configure's, else clang/VERSION beside the libclang actually loaded (where
 * egg's device bundle puts them when egg is moved to another machine).  NULL
 * when none exists; caller frees. */
static char *
resource_dir(void)
{
	const char *env = getenv("EGG_CLANG_RESOURCE_DIR");
	if (env && *env && is_dir(env))
		return egg_xstrdup(env);
	if (is_dir(EGG_CLANG_RESOURCE_DIR))
		return egg_xstrdup(EGG_CLANG_RESOURCE_DIR);
	Dl_info info;
	if (!dladdr((void *)clang_createIndex, &info) || !info.dli_fname)
		return NULL;
	const char *ver = strrchr(EGG_CLANG_RESOURCE_DIR, '/');
	char *lib = egg_xstrdup(info.dli_fname);
	char *slash = strrchr(lib, '/');
	if (slash)
		*slash = '\0';
	char *dir = egg_xasprintf("%s/clang%s", slash ? lib : ".", ver ? ver : "");
	free(lib);
	if (is_dir(dir))
		return dir;
	free(dir);
	return NULL;
}

static void
build_args(const char *const *user, struct strvec *argv)
{
	static const char *const fixed[] = {
		"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
		"-Wno-unknown-cuda-version", "-w", "-ferror-limit=0", "-fno-spell-checking",
		"-isystem", SHIM_DIR, "-include", SHIM_NAME,
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		strvec_push(argv, fixed[i]);
	const char *cuda = az_cuda_home();
	strvec_push_owned(argv, egg_xasprintf("--cuda-path=%s", cuda));
	/* clang's builtin headers: EGG_CLANG_RESOURCE_DIR, else configure's, and when
	 * neither exists (egg moved to another machine) libclang's own default, which
	 * it finds beside the library. */
	char *res = resource_dir();
	if (res) {
		strvec_push(argv, "-resource-dir");
		strvec_push_owned(argv, res);
	}
	if (!has_std(user))
		strvec_push(argv, "-std=c++17"); /* nvcc 13's default dialect */
	for (size_t i = 0; user && user[i]; i++)
		strvec_push(argv, user[i]);
	/* After the user's -I/-isystem, as nvcc's implicit include paths are. */
	strvec_push(argv, "-isystem");
	strvec_push_owned(argv, egg_xasprintf("%s/include/cccl", cuda));
	strvec_push(argv, "-isystem");
	strvec_push_owned(argv, egg_xasprintf("%s/include", cuda));
}

size_t
az_file_index(const struct az_tu *t, CXFile f)
{
	for (size_t i = 0; f && i < t->n_files; i++)
		if (clang_File_isEqual(t->files[i].file, f))
			return i;
	return (size_t)-1;
}

int
az_locate(const struct az_tu *t, CXSourceLocation loc, size_t *file, size_t *offset)
{
	CXFile f;
	unsigned off;
	clang_getExpansionLocation(loc, &f, NULL, NULL, &off);
	size_t i = az_file_index(t, f);
	if (i == (size_t)-1)
		return -1;
	*file = i;
	*offset = off;
	return 0;
}

/* A binary search of the line starts: the analyzer asks for every pragma,
 * and a scan from the file's start each time made analysis quadratic. */
void
az_line_col(const struct az_file *f, size_t offset, unsigned *line, unsigned *col)
{
	size_t lo = 0, hi = f->n_bols; /* the last line start <= offset */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->bols[mid] <= offset)
			lo = mid;
		else
			hi = mid;
	}
	size_t bol = f->n_bols ? f->bols[lo] : 0;
	*line = (unsigned)lo + 1;
	*col = (unsigned)(offset - bol) + 1;
}

int
az_order(const struct az_tu *t, size_t fa, size_t oa, size_t fb, size_t ob)
{
	const struct az_file *a = &t->files[fa], *b = &t->files[fb];
	size_t ka = a->is_main ? oa : a->anchor, kb = b->is_main ? ob : b->anchor;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->depth != b->depth) /* deeper headers hold what shallower ones use */
		return a->depth > b->depth ? -1 : 1;
	if (fa != fb)
		return fa < fb ? -1 : 1;
	return oa < ob ? -1 : oa > ob;
}

static void
inclusion_visitor(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	struct az_tu *t = data;
	/* Only the user's files are kept: a CUB build reads over a thousand
	 * system headers, and every lookup scans this table. */
	if (depth > 0 && (clang_Location_isInSystemHeader(clang_getLocationForOffset(t->tu, included, 0)) ||
			  !clang_Location_isFromMainFile(stack[depth - 1])))
		return; /* a system header, or reached only through the shim or -include */
	if (az_file_index(t, included) != (size_t)-1)
		return;
	CXString name = clang_getFileName(included);
	const char *cname = clang_getCString(name);
	if (cname && strcmp(cname, SHIM_DIR "/" SHIM_NAME) == 0) {
		clang_disposeString(name);
		return;
	}
	t->files = egg_xrealloc(t->files, (t->n_files + 1) * sizeof *t->files);
	struct az_file *f = &t->files[t->n_files++];
	memset(f, 0, sizeof *f);
	f->file = included;
	f->name = egg_xstrdup(cname ? cname : "");
	clang_disposeString(name);
	f->is_main = depth == 0;
	f->depth = (int)depth;
	if (depth > 0) {
		unsigned off;
		clang_getExpansionLocation(stack[depth - 1], NULL, NULL, NULL, &off);
		f->anchor = off;
	}
	size_t len = 0;
	f->text = clang_getFileContents(t->tu, included, &len);
	f->len = len;
	if (!f->text) {
		f->text = "";
		f->len = 0;
	}
	size_t cap = 64;
	f->bols = egg_xcalloc(cap, sizeof *f->bols);
	f->n_bols = 1;
	for (size_t i = 0; i < f->len; i++) {
		if (f->text[i] != '\n')
			continue;
		if (f->n_bols == cap)
			f->bols = egg_xrealloc(f->bols, (cap *= 2) * sizeof *f->bols);
		f->bols[f->n_bols++] = i + 1;
	}
}

static int
is_user(const struct az_tu *t, size_t file)
{
	return file != (size_t)-1; /* only user files are in the table */
}

/* The group-building visitor's state. */
struct walk {
	struct az_tu *t;
	char **ns;
	size_t n_ns;
	int extern_c_block;
};

static void
add_group(struct walk *w, CXCursor c, size_t file, size_t start, size_t end)
{
	struct az_tu *t = w->t;
	t->groups = egg_xrealloc(t->groups, (t->n_groups + 1) * sizeof *t->groups);
	struct az_group *g = &t->groups[t->n_groups++];
	memset(g, 0, sizeof *g);
	g->file = file;
	g->start = start;
	g->end = end;
	g->cursors = egg_xmalloc(sizeof *g->cursors);
	g->cursors[0] = c;
	g->n_cursors = 1;
	g->n_ns = w->n_ns;
	g->ns = egg_xcalloc(w->n_ns + 1, sizeof *g->ns);
	for (size_t i = 0; i < w->n_ns; i++)
		g->ns[i] = egg_xstrdup(w->ns[i]);
	g->extern_c_block = w->extern_c_block;
}

static void
add_macro(struct az_tu *t, CXCursor c, size_t file, size_t start, size_t end)
{
	CXString s = clang_getCursorSpelling(c);
	t->macros = egg_xrealloc(t->macros, (t->n_macros + 1) * sizeof *t->macros);
	t->macros[t->n_macros++] = (struct az_macro){ egg_xstrdup(clang_getCString(s)), file, start, end, 0, 0, 0 };
	clang_disposeString(s);
}

static void
add_include(struct az_tu *t, CXCursor c, size_t file, size_t start, size_t end)
{
	const char *text = t->files[file].text;
	size_t i = start;
	while (i < end && text[i] != '<' && text[i] != '"')
		i++;
	size_t j = i + 1;
	char close = text[i] == '<' ? '>' : '"';
	while (j < end && text[j] != close)
		j++;
	if (i >= end || j >= end)
		return; /* #include MACRO: clang resolved it; the text cannot be reused */
	CXFile inc = clang_getIncludedFile(c);
	size_t fi = az_file_index(t, inc);
	t->includes = egg_xrealloc(t->includes, (t->n_includes + 1) * sizeof *t->includes);
	t->includes[t->n_includes++] = (struct az_include){
		egg_xstrndup(text + i, j - i + 1), file, start,
		fi == (size_t)-1, /* not a user file */
	};
}

static void
add_name(struct az_tu *t, CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	const char *name = clang_getCString(s);
	if (name && *name) {
		t->names = egg_xrealloc(t->names, (t->n_names + 2) * sizeof *t->names);
		t->names[t->n_names++] = egg_xstrdup(name);
		t->names[t->n_names] = NULL;
	}
	clang_disposeString(s);
}

static enum CXChildVisitResult
enumerator_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl)
		add_name(data, c);
	return CXChildVisit_Continue;
}

/* extern "C" { ... } rather than extern "C" DECL: the braces are the block. */
static int
linkage_has_braces(const struct az_tu *t, size_t file, size_t start, size_t end)
{
	const char *s = t->files[file].text;
	for (size_t i = start; i < end; i++)
		if (s[i] == '"') {
			for (i++; i < end && s[i] != '"'; i++)
				;
			for (i++; i < end && isspace((unsigned char)s[i]); i++)
				;
			return i < end && s[i] == '{';
		}
	return 0;
}

static enum CXChildVisitResult
group_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	struct walk *w = data;
	struct az_tu *t = w->t;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == CXCursor_MacroDefinition)
		add_name(t, c);
	if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
		return CXChildVisit_Continue; /* most cursors; the cheap test first */
	CXSourceRange r = clang_getCursorExtent(c);
	size_t fs, start, fe, end;
	if (az_locate(t, clang_getRangeStart(r), &fs, &start) != 0 || !is_user(t, fs))
		return CXChildVisit_Continue;
	if (az_locate(t, clang_getRangeEnd(r), &fe, &end) != 0 || fe != fs || end < start)
		end = start;
	if (k == CXCursor_MacroDefinition) {
		add_macro(t, c, fs, start, end);
	} else if (k == CXCursor_InclusionDirective) {
		add_include(t, c, fs, start, end);
	} else if (k == CXCursor_MacroExpansion) {
		/* read by pragma.c through the cursor walk; not a declaration */
	} else if (k == CXCursor_Namespace) {
		CXString s = clang_getCursorSpelling(c);
		w->ns = egg_xrealloc(w->ns, (w->n_ns + 1) * sizeof *w->ns);
		w->ns[w->n_ns++] = egg_xstrdup(clang_getCString(s));
		clang_disposeString(s);
		clang_visitChildren(c, group_visitor, w);
		free(w->ns[--w->n_ns]);
	} else if (k == CXCursor_LinkageSpec ||
		   (k == CXCursor_UnexposedDecl && egg_str_starts(t->files[fs].text + start, "extern"))) {
		/* libclang 14 exposes extern "C" as an UnexposedDecl. */
		int saved = w->extern_c_block;
		if (linkage_has_braces(t, fs, start, end))
			w->extern_c_block = 1;
		clang_visitChildren(c, group_visitor, w);
		w->extern_c_block = saved;
	} else if (clang_isDeclaration(k)) {
		add_group(w, c, fs, start, end);
		add_name(t, c);
		if (k == CXCursor_EnumDecl)
			clang_visitChildren(c, enumerator_visitor, t);
	}
	return CXChildVisit_Continue;
}

static int
group_cmp(const void *pa, const void *pb)
{
	const struct az_group *a = pa, *b = pb;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Is the line holding offset i part of a preprocessor directive? */
static int
in_directive(const char *s, size_t i)
{
	size_t bol = i;
	while (bol > 0 && s[bol - 1] != '\n')
		bol--;
	if (bol >= 2 && s[bol - 2] == '\\')
		return 1;
	while (s[bol] == ' ' || s[bol] == '\t')
		bol++;
	return s[bol] == '#';
}

static int
is_attribute_word(const struct az_tu *t, const char *w, size_t n)
{
	static const char *const words[] = {
		"__global__", "__device__", "__host__", "__constant__", "__shared__",
		"__managed__", "__forceinline__", "__noinline__", "__inline__", "inline",
		"static", "extern", "__launch_bounds__", "__attribute__", "__align__",
		"__maxnreg__", "__cluster_dims__", "__grid_constant__", "alignas",
		"__declspec", "constexpr", "__restrict__",
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == n && strncmp(words[i], w, n) == 0)
			return 1;
	for (size_t i = 0; i < t->n_macros; i++) /* HD, DEVICE_INLINE, ... */
		if (strlen(t->macros[i].name) == n && strncmp(t->macros[i].name, w, n) == 0)
			return 1;
	return 0;
}

/* Moves start back over the attributes clang leaves out of a declaration's
 * extent (`__global__`, `__launch_bounds__(256)`, `extern "C"`, a user's HD
 * macro), never into the previous group or a directive line. */
static size_t
extend_start(const struct az_tu *t, const char *s, size_t start, size_t floor)
{
	for (;;) {
		size_t i = start;
		while (i > floor && isspace((unsigned char)s[i - 1])) {
			if (s[i - 1] == '\n' && in_directive(s, i - 1))
				return start; /* the line above is a directive */
			if (s[i - 1] == '\n') { /* skip a // comment ending the line above */
				size_t bol = i - 1;
				while (bol > floor && s[bol - 1] != '\n')
					bol--;
				for (size_t c = bol; c + 1 < i - 1; c++)
					if (s[c] == '/' && s[c + 1] == '/') {
						i = c + 1;
						break;
					}
			}
			i--;
		}
		if (i <= floor)
			return start;
		if (s[i - 1] == '"') { /* extern "C" */
			size_t q = i - 1;
			while (q > floor && s[q - 1] != '"')
				q--;
			if (q == floor || q < 1)
				return start;
			size_t e = q - 1;
			while (e > floor && isspace((unsigned char)s[e - 1]))
				e--;
			if (e >= floor + 6 && strncmp(s + e - 6, "extern", 6) == 0) {
				start = e - 6;
				continue;
			}
			return start;
		}
		size_t end_word = i;
		if (s[i - 1] == ')') { /* __launch_bounds__(...), __attribute__((...)) */
			int depth = 0;
			size_t j = i;
			while (j > floor) {
				j--;
				if (s[j] == ')')
					depth++;
				else if (s[j] == '(' && --depth == 0)
					break;
			}
			if (depth != 0)
				return start;
			end_word = j;
			while (end_word > floor && isspace((unsigned char)s[end_word - 1]))
				end_word--;
		}
		size_t b = end_word;
		while (b > floor && (isalnum((unsigned char)s[b - 1]) || s[b - 1] == '_'))
			b--;
		if (b == end_word || !is_attribute_word(t, s + b, end_word - b) || in_directive(s, b))
			return start;
		start = b;
	}
}

/* Sorts the groups, merges overlapping ones, and widens each to its
 * attributes and its closing ';'. */
static void
finish_groups(struct az_tu *t)
{
	qsort(t->groups, t->n_groups, sizeof *t->groups, group_cmp);
	size_t out = 0;
	for (size_t i = 0; i < t->n_groups; i++) {
		struct az_group *g = &t->groups[i];
		if (out > 0 && t->groups[out - 1].file == g->file && g->start < t->groups[out - 1].end) {
			struct az_group *into = &t->groups[out - 1];
			if (g->end > into->end)
				into->end = g->end;
			into->cursors = egg_xrealloc(into->cursors, (into->n_cursors + g->n_cursors) * sizeof *into->cursors);
			memcpy(into->cursors + into->n_cursors, g->cursors, g->n_cursors * sizeof *g->cursors);
			into->n_cursors += g->n_cursors;
			free(g->cursors);
			for (size_t k = 0; k < g->n_ns; k++)
				free(g->ns[k]);
			free(g->ns);
			continue;
		}
		t->groups[out++] = *g;
	}
	t->n_groups = out;
	for (size_t i = 0; i < t->n_groups; i++) {
		struct az_group *g = &t->groups[i];
		const struct az_file *f = &t->files[g->file];
		size_t floor = i > 0 && t->groups[i - 1].file == g->file ? t->groups[i - 1].end : 0;
		g->start = extend_start(t, f->text, g->start, floor);
		size_t j = g->end;
		size_t limit = i + 1 < t->n_groups && t->groups[i + 1].file == g->file ? t->groups[i + 1].start : f->len;
		while (j < limit && (f->text[j] == ' ' || f->text[j] == '\t'))
			j++;
		if (j < limit && f->text[j] == ';')
			g->end = j + 1;
	}
}

/* One #if ... #endif of a user file, as the text scan meets it. */
struct cond {
	size_t start;     /* of the #if line */
	int arch;         /* a condition mentions __CUDA_ARCH__ */
	int alternatives; /* it has #elif or #else */
};

static int
mentions_arch(const char *s, size_t from, size_t to)
{
	for (size_t i = from; i + 13 <= to; i++)
		if (strncmp(s + i, "__CUDA_ARCH__", 13) == 0)
			return 1;
	return 0;
}

/* The host-side parse sees one branch of `#ifdef __CUDA_ARCH__ ... #else ...
 * #endif`; nvcc's device pass sees the other.  A declaration inside such a
 * conditional is copied with the whole conditional, so that each pass of the
 * bundle's compilation decides it as it did for the user's file.  The
 * innermost such conditional is used. */
static void
widen_to_arch_conditionals(struct az_tu *t, size_t file)
{
	const struct az_file *f = &t->files[file];
	const char *s = f->text;
	struct cond stack[64];
	size_t depth = 0;
	for (size_t bol = 0; bol < f->len;) {
		size_t eol = bol; /* the logical line's end, continuations joined */
		while (eol < f->len && !(s[eol] == '\n' && (eol == 0 || s[eol - 1] != '\\')))
			eol++;
		size_t i = bol;
		while (i < eol && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < eol && s[i] == '#') {
			i++;
			while (i < eol && (s[i] == ' ' || s[i] == '\t'))
				i++;
			const char *w = s + i;
			if (strncmp(w, "if", 2) == 0 && depth < 64) {
				stack[depth++] = (struct cond){ bol, mentions_arch(s, i, eol), 0 };
			} else if (depth && (strncmp(w, "elif", 4) == 0 || strncmp(w, "else", 4) == 0)) {
				stack[depth - 1].alternatives = 1;
				stack[depth - 1].arch |= mentions_arch(s, i, eol);
			} else if (depth && strncmp(w, "endif", 5) == 0) {
				struct cond c = stack[--depth];
				for (size_t g = 0; c.arch && c.alternatives && g < t->n_groups; g++) {
					struct az_group *gr = &t->groups[g];
					if (gr->file == file && gr->start >= c.start && gr->end <= eol &&
					    gr->text_start == gr->start && gr->text_end == gr->end) {
						gr->text_start = c.start;
						gr->text_end = eol;
					}
				}
				for (size_t m = 0; c.arch && c.alternatives && m < t->n_macros; m++) {
					struct az_macro *mc = &t->macros[m];
					if (mc->file == file && mc->start >= c.start && mc->end <= eol && mc->text_end == 0) {
						mc->text_start = c.start;
						mc->text_end = eol;
					}
				}
			}
		}
		bol = eol + 1;
	}
}

enum CXErrorCode
az_parse_cuda(CXIndex index, const char *path, const char *text, size_t len,
	      const char *const *clang_args, unsigned opts, CXTranslationUnit *tu)
{
	struct strvec argv = STRVEC_INIT;
	build_args(clang_args, &argv);
	struct CXUnsavedFile files[2] = {
		{ SHIM_DIR "/" SHIM_NAME, shim_text, sizeof shim_text - 1 },
		{ path, text, (unsigned long)len },
	};
	enum CXErrorCode rc = clang_parseTranslationUnit2(index, path, (const char *const *)strvec_argv(&argv),
							  (int)argv.n, files, text ? 2 : 1, opts, tu);
	strvec_clear(&argv);
	return rc;
}

int
az_parse(struct az_tu *t, const char *path, const char *const *clang_args, struct strbuf *err)
{
	memset(t, 0, sizeof *t);
	t->index = clang_createIndex(0, 0);
	unsigned opts = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing |
			CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
	enum CXErrorCode rc = az_parse_cuda(t->index, path, NULL, 0, clang_args, opts, &t->tu);
	if (rc != CXError_Success || !t->tu) {
		strbuf_addf(err, "libclang could not parse %s (error %d)", path, (int)rc);
		return -1;
	}
	if (getenv("EGG_ANALYZER_DEBUG"))
		fprintf(stderr, "parsed: %ld ms\n", (long)(clock() / (CLOCKS_PER_SEC / 1000)));
	/* A fatal error (a header not found, in the user's code or the toolkit's)
	 * leaves an AST with holes: kernels that look undeclared would make the
	 * generators give up and that verdict would be cached.  Refuse instead. */
	for (unsigned i = 0, n = clang_getNumDiagnostics(t->tu); i < n; i++) {
		/* (With KeepGoing, clang reports a missing header as an error.) */
		CXDiagnostic d = clang_getDiagnostic(t->tu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		CXString msg = clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation);
		const char *text = clang_getCString(msg);
		int fatal = sev == CXDiagnostic_Fatal ||
		            (sev == CXDiagnostic_Error && text && egg_str_ends(text, "file not found"));
		if (fatal)
			strbuf_addf(err, "cannot analyze %s: %s", path, text);
		clang_disposeString(msg);
		clang_disposeDiagnostic(d);
		if (fatal)
			return -1;
	}
	clang_getInclusions(t->tu, inclusion_visitor, t);
	if (t->n_files == 0 || !t->files[0].is_main) {
		strbuf_addf(err, "libclang did not read %s", path);
		return -1;
	}
	struct walk w = { t, NULL, 0, 0 };
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu), group_visitor, &w);
	free(w.ns);
	finish_groups(t);
	for (size_t i = 0; i < t->n_groups; i++) {
		t->groups[i].text_start = t->groups[i].start;
		t->groups[i].text_end = t->groups[i].end;
	}
	for (size_t f = 0; f < t->n_files; f++)
		widen_to_arch_conditionals(t, f);
	if (getenv("EGG_ANALYZER_DEBUG"))
		fprintf(stderr, "walked: %ld ms, %zu files\n", (long)(clock() / (CLOCKS_PER_SEC / 1000)), t->n_files);
	if (getenv("EGG_ANALYZER_DEBUG"))
		for (size_t i = 0; i < t->n_groups; i++)
			fprintf(stderr, "group %zu: file %zu [%zu, %zu) kind %d\n", i, t->groups[i].file,
				t->groups[i].start, t->groups[i].end, (int)clang_getCursorKind(t->groups[i].cursors[0]));
	return 0;
}

size_t
az_group_at(const struct az_tu *t, size_t file, size_t offset)
{
	size_t lo = 0, hi = t->n_groups;
	while (lo < hi) { /* first group not before (file, offset) */
		size_t mid = (lo + hi) / 2;
		const struct az_group *g = &t->groups[mid];
		if (g->file < file || (g->file == file && g->end <= offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n_groups && t->groups[lo].file == file && t->groups[lo].start <= offset &&
	    offset < t->groups[lo].end)
		return lo;
	return (size_t)-1;
}

void
az_free(struct az_tu *t)
{
	for (size_t i = 0; i < t->n_files; i++) {
		free(t->files[i].name);
		free(t->files[i].bols);
	}
	free(t->files);
	for (size_t i = 0; i < t->n_groups; i++) {
		for (size_t k = 0; k < t->groups[i].n_ns; k++)
			free(t->groups[i].ns[k]);
		free(t->groups[i].ns);
		free(t->groups[i].cursors);
	}
	free(t->groups);
	for (size_t i = 0; i < t->n_macros; i++)
		free(t->macros[i].name);
	free(t->macros);
	for (size_t i = 0; i < t->n_includes; i++)
		free(t->includes[i].spelling);
	free(t->includes);
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	for (size_t i = 0; i < t->n_named; i++)
		free(t->named[i].name);
	free(t->named);
	if (t->tu)
		clang_disposeTranslationUnit(t->tu);
	if (t->index)
		clang_disposeIndex(t->index);
	memset(t, 0, sizeof *t);
}
