/*
 * screen.c -- the allowlist screen of a candidate's host code, through libclang
 * (analyzer.h: analyzer_screen_unit).
 *
 * The harness's lexer screen (harness/screen.c) refuses spellings; this one
 * refuses meanings.  It parses the unit the harness is about to compile (the
 * bundle's includes and closure, then the candidate under `#line 1 "egg-code"`)
 * as parse.c parses users' files, and walks the candidate's part of it.  In
 * host code (everything but functions and lambdas that are only __device__ or
 * __global__, whose code nvcc keeps away from the host), every function that is
 * called, named or has its address taken must resolve to
 *   - a function the candidate defines itself (declaring one it does not
 *     define, e.g. `extern "C" int system(const char *);`, is refused);
 *   - the user's own code (the closure and the user's headers: they already
 *     run in the user's program), also through the user's macros;
 *   - the CUDA toolkit's headers (runtime and driver API, math, CUB, Thrust,
 *     libcu++), less the calls that load code from files, reach other
 *     processes' memory, hand out arbitrary driver entry points, change the
 *     harness's device or run work outside the caller's stream
 *     (cudaStreamCreate*: candidates run in the caller's stream);
 *   - clang's builtins (__builtin_*, the __sync_* and __atomic_* atomics; less
 *     the frame and jump ones), operator new/delete;
 *   - of the C and C++ libraries only the math functions, the memory
 *     functions (memcpy, malloc, ...), assert, and namespace std's algorithms,
 *     limits and utilities.
 * Names are resolved, not read: `(remove)(path)`, a macro that hides a call,
 * a using-declaration or a function pointer all come down to the declaration
 * they name.  Also refused in host code: inline assembly, casts that turn a
 * value into a function pointer, host globals initialized by a call (code that
 * runs before the harness's main) or of a type with a destructor.
 *
 * Known limits: a call that depends on a template parameter's type
 * (`t.open(...)` in a template) is resolved only at instantiation, which
 * libclang does not show; the candidate's includes are limited by the lexer
 * screen, so such a type can only come from the allowed headers.
 *
 * Cost: one host-side parse of the unit (cuda_runtime.h included), about 0.1 s.
 */
#include "config.h"
#include "analyzer/analyzer.h"
#include "analyzer/internal.h"
#include "common/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SCREEN_UNIT "/egg-screen/candidate.cu"

/* CUDA toolkit functions a candidate may not use, exact names or prefixes
 * (a trailing '*'). */
static const char *const cuda_denied[] = {
	"cudaDeviceReset", "cudaSetDevice", "cudaSetValidDevices", "cudaThreadExit",
	"cudaStreamCreate*", "cuStreamCreate*", "cudaGetDriverEntryPoint*", "cuGetProcAddress*",
	"cuModuleLoad*", "cuLibraryLoad*", "cudaLibraryLoad*", "cuLinkAddFile*", "cuLinkCreate*",
	"cudaIpc*", "cuIpc*", "cuMemImportFromShareableHandle", "cuMemExportToShareableHandle",
	"cudaProfilerStart", "cudaProfilerStop", "cuCtxCreate*", "cuCtxDestroy*",
	"cuDevicePrimaryCtxReset*", "cuCtxSetCurrent", "cuCtxPushCurrent*", NULL,
};

/* clang builtins that expose or change the frame, the stack or control flow. */
static const char *const builtin_denied[] = {
	"__builtin_frame_address", "__builtin_return_address", "__builtin_extract_return_addr",
	"__builtin_setjmp", "__builtin_longjmp", "__builtin_eh_return*", "__builtin_unwind_init",
	"__builtin_dwarf_*", "__builtin_call_with_static_chain", "__builtin_dump_struct", NULL,
};

/* C library functions allowed besides the math headers'. */
static const char *const libc_allowed[] = {
	"memcpy", "memset", "memmove", "memcmp", "strlen", "strcmp", "strncmp", "malloc",
	"calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "abs", "labs",
	"llabs", "div", "ldiv", "lldiv", "qsort", "bsearch", "__assert_fail",
	"__assert_perror_fail", "__assert", "__errno_location", NULL,
};

/* Headers (basenames) of the C and C++ libraries whose functions are math. */
static const char *const math_headers[] = {
	"math.h", "cmath", "mathcalls.h", "mathcalls-helper-functions.h", "mathcalls-narrow.h",
	"std_abs.h", "complex.h", NULL,
};

/* libstdc++ headers (basenames) whose namespace std functions are allowed:
 * algorithms, limits, utilities.  Streams, files, threads, time are not here. */
static const char *const std_headers[] = {
	"limits", "type_traits", "utility", "algorithm", "array", "tuple", "numeric",
	"cmath", "cstdlib", "std_abs.h", "move.h", "utility.h", "predefined_ops.h",
	"algorithmfwd.h", "invoke.h", "stl_algo.h", "stl_algobase.h", "stl_pair.h",
	"stl_function.h", "stl_heap.h", "stl_numeric.h", "stl_iterator.h",
	"stl_iterator_base_funcs.h", "stl_iterator_base_types.h", "stl_tempbuf.h",
	"stl_construct.h", "stl_uninitialized.h", "uniform_int_dist.h", "ptr_traits.h",
	"new", "new_allocator.h", "allocator.h", "alloc_traits.h", "stl_relops.h",
	"ranges_base.h", "ranges_algobase.h", "ranges_algo.h", "ranges_util.h",
	"ranges_cmp.h", "iterator_concepts.h", "concept_check.h", "stl_bvector.h", NULL,
};

static int
matches(const char *const *list, const char *name)
{
	for (; *list; list++) {
		size_t n = strlen(*list);
		if ((*list)[n - 1] == '*' ? strncmp(*list, name, n - 1) == 0 : strcmp(*list, name) == 0)
			return 1;
	}
	return 0;
}

struct screen {
	CXTranslationUnit tu;
	CXFile main;          /* the unit */
	char *cuda_include;   /* the toolkit's include directory, resolved */
	struct strbuf *why;
	int refused;
	int unresolved;       /* host code names something the parse could not find */
	unsigned (*device)[2]; /* main-file offsets of device-only code */
	size_t n_device;
	unsigned *user_macros; /* main-file offsets where user macros are expanded */
	size_t n_user_macros;
};

static char *
cursor_spelling(CXCursor c)
{
	CXString s = clang_getCursorSpelling(c);
	char *out = egg_xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
	clang_disposeString(s);
	return out;
}

/* The presumed file name of loc (after #line): "egg-code" is the candidate's
 * text, "egg-closure" the user's.  Caller frees. */
static char *
presumed_file(CXSourceLocation loc, unsigned *line, unsigned *col)
{
	CXString f;
	unsigned l = 0, c = 0;
	clang_getPresumedLocation(loc, &f, &l, &c);
	char *out = egg_xstrdup(clang_getCString(f) ? clang_getCString(f) : "");
	clang_disposeString(f);
	if (line)
		*line = l;
	if (col)
		*col = c;
	return out;
}

/* Whether loc is in the unit's own text, macro expansions included (libclang's
 * clang_Location_isFromMainFile says no for those). */
static int
from_main(const struct screen *s, CXSourceLocation loc)
{
	CXFile f = NULL;
	clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
	return f && clang_File_isEqual(f, s->main);
}

static int
in_candidate(const struct screen *s, CXCursor c)
{
	CXSourceLocation loc = clang_getCursorLocation(c);
	if (!from_main(s, loc))
		return 0;
	char *f = presumed_file(loc, NULL, NULL);
	int yes = strcmp(f, "egg-code") == 0;
	free(f);
	return yes;
}

/* The real path of the file loc is spelled in (NULL for none); caller frees. */
static char *
spelling_path(CXSourceLocation loc)
{
	CXFile file = NULL;
	clang_getSpellingLocation(loc, &file, NULL, NULL, NULL);
	if (!file)
		return NULL;
	CXString s = clang_File_tryGetRealPathName(file);
	const char *p = clang_getCString(s);
	char *out = NULL;
	if (p && *p) {
		out = egg_xstrdup(p);
	} else {
		clang_disposeString(s);
		s = clang_getFileName(file);
		p = clang_getCString(s);
		out = egg_xstrdup(p ? p : "");
	}
	clang_disposeString(s);
	return out;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void
refuse(struct screen *s, CXCursor use, const char *fmt, const char *a, const char *b)
{
	if (s->refused)
		return;
	unsigned line, col;
	char *f = presumed_file(clang_getCursorLocation(use), &line, &col);
	free(f);
	strbuf_addf(s->why, "line %u, column %u: ", line, col);
	strbuf_addf(s->why, fmt, a, b);
	s->refused = 1;
}

static int
is_function_kind(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
	       k == CXCursor_FunctionTemplate;
}

/* Whether c (inside the namespaces std) is declared in namespace std. */
static int
in_std(CXCursor c)
{
	for (CXCursor p = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(p) &&
	     clang_getCursorKind(p) != CXCursor_TranslationUnit; p = clang_getCursorSemanticParent(p)) {
		if (clang_getCursorKind(p) != CXCursor_Namespace)
			continue;
		char *n = cursor_spelling(p);
		int std = strcmp(n, "std") == 0;
		free(n);
		if (std)
			return 1;
	}
	return 0;
}

/* Whether a function, a template or a lambda holds device code only. */
static int
is_device_only(CXCursor c)
{
	unsigned a = az_cuda_attrs(c);
	return (a & (AZ_ATTR_GLOBAL | AZ_ATTR_DEVICE)) && !(a & AZ_ATTR_HOST);
}

/* A member the compiler declares (a class's implicit or defaulted
 * constructors, destructor, assignments): it stands where its class does. */
static int
implicit_member(CXCursor fn)
{
	if (clang_CXXMethod_isDefaulted(fn))
		return 1;
	CXCursor cls = clang_getCursorSemanticParent(fn);
	return !clang_Cursor_isNull(cls) &&
	       clang_equalLocations(clang_getCursorLocation(fn), clang_getCursorLocation(cls));
}

/* Is the function decl (referenced from the candidate's host code) allowed? */
static void
check_function(struct screen *s, CXCursor use, CXCursor fn)
{
	CXCursor t = clang_getSpecializedCursorTemplate(fn);
	if (!clang_Cursor_isNull(t))
		fn = t;
	char *name = cursor_spelling(fn);
	CXSourceLocation loc = clang_getCursorLocation(fn);
	CXFile file = NULL;
	clang_getSpellingLocation(loc, &file, NULL, NULL, NULL);
	int builtin = egg_str_starts(name, "__builtin_") || egg_str_starts(name, "__sync_") ||
	              egg_str_starts(name, "__atomic_");
	if (!file || builtin) {
		/* clang's own: builtins (declared where first used), the implicit
		 * operator new and delete */
		if (matches(builtin_denied, name))
			refuse(s, use, "uses %s%s, which changes or exposes the stack", name, "");
		goto out;
	}
	char *where = presumed_file(loc, NULL, NULL);
	int own = from_main(s, loc) && strcmp(where, "egg-code") == 0;
	int user = !clang_Location_isInSystemHeader(loc) && !own;
	free(where);
	if (own) {
		/* defined here, or a member the compiler defines (implicit, defaulted) */
		CXCursor def = clang_getCursorDefinition(fn);
		enum CXCursorKind k = clang_getCursorKind(fn);
		int member = k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
		             k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
		if ((clang_Cursor_isNull(def) || !in_candidate(s, def)) && !(member && implicit_member(fn)))
			refuse(s, use, "uses %s, which the candidate declares but does not define%s", name, "");
		goto out;
	}
	if (user)
		goto out; /* the user's own code (the closure, the user's headers) */
	char *path = spelling_path(loc);
	if (path && egg_str_starts(path, "/egg-analyzer-shim/")) {
		/* what nvcc's front end provides: the <<<>>> configuration call */
	} else if (path && s->cuda_include && egg_str_starts(path, s->cuda_include)) {
		if (matches(cuda_denied, name))
			refuse(s, use, "uses %s, which a candidate may not call (it loads code, reaches "
			       "other processes, changes the device or leaves the caller's stream)%s", name, "");
	} else {
		const char *base = path ? base_name(path) : "";
		int ok = matches(math_headers, base) || matches(libc_allowed, name) ||
		         (in_std(fn) && matches(std_headers, base)) ||
		         egg_str_starts(name, "operator new") || egg_str_starts(name, "operator delete");
		if (!ok)
			refuse(s, use, "uses %s (declared in %s), which a candidate's host code may not use: "
			       "only the CUDA runtime and driver API, the math library and the candidate's "
			       "own functions", name, path ? path : "?");
	}
	free(path);
out:
	free(name);
}

/* The type of c's last expression child (a cast's operand). */
struct last_expr {
	CXCursor c;
	int found;
};

static enum CXChildVisitResult
find_last_expr(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct last_expr *l = data;
	if (clang_isExpression(clang_getCursorKind(c))) {
		l->c = c;
		l->found = 1;
	}
	return CXChildVisit_Continue;
}

static int
is_function_pointer(CXType t)
{
	t = clang_getCanonicalType(t);
	if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference ||
	    t.kind == CXType_RValueReference) {
		CXType p = clang_getCanonicalType(clang_getPointeeType(t));
		return p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto;
	}
	return 0;
}

static void
check_cast(struct screen *s, CXCursor c)
{
	if (!is_function_pointer(clang_getCursorType(c)))
		return;
	struct last_expr l = { clang_getNullCursor(), 0 };
	clang_visitChildren(c, find_last_expr, &l);
	CXType from = l.found ? clang_getCursorType(l.c) : clang_getCursorType(c);
	CXType canon = clang_getCanonicalType(from);
	if (!l.found || (!is_function_pointer(from) && canon.kind != CXType_FunctionProto &&
	                 canon.kind != CXType_FunctionNoProto))
		refuse(s, c, "turns a value into a function pointer%s%s", "", "");
}

static enum CXChildVisitResult
find_call(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_CallExpr) {
		*(CXCursor *)data = c;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult
find_destructor(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_Destructor) {
		*(int *)data = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/* A host variable at namespace scope: initialized by a call (other than the
 * toolkit's constructors, e.g. dim3's), or of a class with a destructor,
 * it runs candidate code before or after the harness's main. */
static void
check_global(struct screen *s, CXCursor v)
{
	if (az_cuda_attrs(v) & (AZ_ATTR_DEVICE | AZ_ATTR_GPU_VAR))
		return; /* __device__, __constant__, __shared__: no host code */
	enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(v));
	if (pk != CXCursor_TranslationUnit && pk != CXCursor_Namespace)
		return;
	CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(v)));
	int dtor = 0;
	if (!clang_Cursor_isNull(decl))
		clang_visitChildren(decl, find_destructor, &dtor);
	if (dtor) {
		char *n = cursor_spelling(v);
		refuse(s, v, "defines the host global %s of a class with a destructor, which would "
		       "run after the harness%s", n, "");
		free(n);
		return;
	}
	CXCursor call = clang_getNullCursor();
	clang_visitChildren(v, find_call, &call);
	if (!clang_Cursor_isNull(call)) {
		CXCursor fn = clang_getCursorReferenced(call);
		char *path = clang_Cursor_isNull(fn) ? NULL : spelling_path(clang_getCursorLocation(fn));
		int toolkit = path && s->cuda_include && egg_str_starts(path, s->cuda_include) &&
		              clang_getCursorKind(fn) == CXCursor_Constructor;
		free(path);
		if (!toolkit) {
			char *n = cursor_spelling(v);
			refuse(s, v, "initializes the host global %s by a call, which would run before "
			       "the harness%s", n, "");
			free(n);
			return;
		}
	}
}

struct walk {
	struct screen *s;
	int device; /* inside code that is only __device__ or __global__ */
};

static void check_host(struct screen *s, CXCursor c, enum CXCursorKind k);

static void
note_device_code(struct screen *s, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	unsigned a, b;
	clang_getFileLocation(clang_getRangeStart(r), NULL, NULL, NULL, &a);
	clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &b);
	s->device = egg_xrealloc(s->device, (s->n_device + 1) * sizeof *s->device);
	s->device[s->n_device][0] = a;
	s->device[s->n_device][1] = b;
	s->n_device++;
}

static enum CXChildVisitResult
walk_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct walk *w = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (clang_getCursorKind(parent) == CXCursor_TranslationUnit &&
	    !from_main(w->s, clang_getCursorLocation(c)))
		return CXChildVisit_Continue; /* the headers' declarations */
	struct walk inner = *w;
	if (is_function_kind(k) || k == CXCursor_LambdaExpr) {
		inner.device = is_device_only(c) ? 1 : (k == CXCursor_LambdaExpr ? w->device : 0);
		if (inner.device && !w->device)
			note_device_code(w->s, c);
	}
	if (!inner.device && in_candidate(w->s, c))
		check_host(w->s, c, k);
	if (w->s->refused)
		return CXChildVisit_Break;
	clang_visitChildren(c, walk_visit, &inner);
	return w->s->refused ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* A reference's token that comes from the body of a macro of the user's (the
 * closure's, or a user header's: their cudaCheck and the like) is the user's
 * code.  clang_getFileLocation gives a macro body's tokens the place where the
 * macro is expanded, and an argument's tokens the place they are written, so
 * only the body's land on a noted expansion of a user macro. */
static int
spelled_by_user(const struct screen *s, CXCursor c)
{
	unsigned off;
	CXFile f = NULL;
	clang_getFileLocation(clang_getCursorLocation(c), &f, NULL, NULL, &off);
	if (!f || !clang_File_isEqual(f, s->main))
		return 0;
	for (size_t i = 0; i < s->n_user_macros; i++)
		if (s->user_macros[i] == off)
			return 1;
	return 0;
}

/* Notes where the candidate expands macros of the user's. */
static enum CXChildVisitResult
note_user_macro(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct screen *s = data;
	if (clang_getCursorKind(c) != CXCursor_MacroExpansion || !in_candidate(s, c))
		return CXChildVisit_Continue;
	CXCursor def = clang_getCursorReferenced(c);
	if (clang_Cursor_isNull(def))
		return CXChildVisit_Continue;
	CXSourceLocation loc = clang_getCursorLocation(def);
	char *where = presumed_file(loc, NULL, NULL);
	/* the shim's macros (__launch_bounds__, ...) are egg's, not the user's */
	int user = !clang_Location_isInSystemHeader(loc) && strcmp(where, "egg-code") != 0 &&
	           !egg_str_starts(where, "/egg-analyzer-shim/");
	free(where);
	if (user) {
		unsigned off;
		clang_getFileLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &off);
		s->user_macros = egg_xrealloc(s->user_macros, (s->n_user_macros + 1) * sizeof *s->user_macros);
		s->user_macros[s->n_user_macros++] = off;
	}
	return CXChildVisit_Continue;
}

static void
check_host(struct screen *s, CXCursor c, enum CXCursorKind k)
{
	switch (k) {
	case CXCursor_AsmStmt:
	case CXCursor_MSAsmStmt:
		refuse(s, c, "uses inline assembly in host code%s%s", "", "");
		return;
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXReinterpretCastExpr:
	case CXCursor_CXXFunctionalCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXConstCastExpr:
		check_cast(s, c);
		return;
	case CXCursor_VarDecl:
		check_global(s, c);
		return;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr:
	case CXCursor_CallExpr: {
		CXCursor r = clang_getCursorReferenced(c);
		if (!clang_Cursor_isNull(r) && is_function_kind(clang_getCursorKind(r)) &&
		    !spelled_by_user(s, c))
			check_function(s, c, r);
		return;
	}
	case CXCursor_OverloadedDeclRef:
		if (spelled_by_user(s, c))
			return;
		for (unsigned i = 0, n = clang_getNumOverloadedDecls(c); i < n && !s->refused; i++) {
			CXCursor r = clang_getOverloadedDecl(c, i);
			if (clang_getCursorKind(r) == CXCursor_UsingDeclaration)
				continue; /* its targets are listed too */
			if (is_function_kind(clang_getCursorKind(r)))
				check_function(s, c, r);
		}
		return;
	default:
		return;
	}
}

/* Whether the code at loc is host code: outside the device-only functions and
 * lambdas the walk noted. */
static int
host_code_at(const struct screen *s, CXSourceLocation loc)
{
	unsigned off;
	clang_getFileLocation(loc, NULL, NULL, NULL, &off);
	for (size_t i = 0; i < s->n_device; i++)
		if (off >= s->device[i][0] && off < s->device[i][1])
			return 0;
	return 1;
}

/* A name the candidate's host code uses that the parse could not resolve is
 * not let through unresolved: nvcc may see a declaration the screen does not.
 * Most such candidates simply do not compile; the caller decides after nvcc. */
static void
check_undeclared(struct screen *s)
{
	for (unsigned i = 0, n = clang_getNumDiagnostics(s->tu); i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(s->tu, i);
		CXSourceLocation loc = clang_getDiagnosticLocation(d);
		CXString msg = clang_getDiagnosticSpelling(d);
		const char *text = clang_getCString(msg);
		unsigned line, col;
		char *f = presumed_file(loc, &line, &col);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && text &&
		    strstr(text, "undeclared identifier") && strcmp(f, "egg-code") == 0 &&
		    from_main(s, loc) && host_code_at(s, loc)) {
			strbuf_addf(s->why, "line %u, column %u: host code uses a name the screen cannot "
			            "resolve (%s)", line, col, text);
			s->unresolved = 1;
			break;
		}
		free(f);
		clang_disposeString(msg);
		clang_disposeDiagnostic(d);
	}
}

static char *
cuda_include_dir(void)
{
	char *dir = egg_xasprintf("%s/", az_cuda_home());
	char real[PATH_MAX];
	if (realpath(dir, real)) {
		free(dir);
		/* the toolkit's headers live under include/ and targets/<arch>/include/ */
		dir = egg_xasprintf("%s/", real);
	}
	return dir;
}

int
analyzer_screen_unit(const char *text, size_t len, const char *const *clang_args, struct strbuf *why)
{
	struct screen s = { NULL, NULL, cuda_include_dir(), why, 0, 0, NULL, 0, NULL, 0 };
	CXIndex index = clang_createIndex(0, 0);
	enum CXErrorCode rc = az_parse_cuda(index, SCREEN_UNIT, text, len, clang_args,
	                                    CXTranslationUnit_KeepGoing |
	                                    CXTranslationUnit_DetailedPreprocessingRecord |
	                                    CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &s.tu);
	int ret = 0;
	if (rc != CXError_Success || !s.tu) {
		strbuf_addf(why, "libclang could not parse the candidate (error %d)", (int)rc);
		ret = -2;
	} else {
		s.main = clang_getFile(s.tu, SCREEN_UNIT);
		clang_visitChildren(clang_getTranslationUnitCursor(s.tu), note_user_macro, &s);
		struct walk w = { &s, 0 };
		clang_visitChildren(clang_getTranslationUnitCursor(s.tu), walk_visit, &w);
		if (!s.refused)
			check_undeclared(&s);
		ret = s.refused ? -1 : s.unresolved ? 1 : 0;
		clang_disposeTranslationUnit(s.tu);
	}
	clang_disposeIndex(index);
	free(s.cuda_include);
	free(s.device);
	free(s.user_macros);
	return ret;
}
