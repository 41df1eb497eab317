/*
 * symbols.c -- the external symbols a translation unit's host object defines,
 * as libclang mangles them (analyzer.h: analyzer_result's exports and known).
 *
 * exports: every host function and host variable of the user's files (the main
 * file and its non-system headers) that is defined here with external linkage
 * and is emitted as a strong symbol: not inline, not a template, not __global__
 * (nvcc's stub linkage for kernels depends on its release and flags), not
 * device-only, not a CUDA variable.  The rewritten object must define each of
 * them: that is the interface the user's other objects, a C caller or a dlsym()
 * lookup rely on.
 *
 * known: every function, variable, method, constructor and destructor those
 * files declare, whatever its kind and linkage: a strong global symbol of the
 * rewritten object outside this list (and outside egg's own and nvcc's own
 * names) came from a winner, and could collide with a symbol of the user's.
 */
#include "config.h"
#include "analyzer/internal.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct sym_walk {
	const struct az_tu *t;
	struct strvec *exports, *known;
};

static int
in_user_file(const struct az_tu *t, CXCursor c)
{
	CXFile f;
	clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
	return f && az_file_index(t, f) != (size_t)-1;
}

static enum CXChildVisitResult
attr_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	unsigned *mask = data;
	switch (clang_getCursorKind(c)) {
	case CXCursor_CUDAGlobalAttr: *mask |= AZ_ATTR_GLOBAL; break;
	case CXCursor_CUDADeviceAttr: *mask |= AZ_ATTR_DEVICE; break;
	case CXCursor_CUDAHostAttr: *mask |= AZ_ATTR_HOST; break;
	case CXCursor_CUDAConstantAttr:
	case CXCursor_CUDASharedAttr: *mask |= AZ_ATTR_GPU_VAR; break;
	case CXCursor_UnexposedAttr: *mask |= AZ_ATTR_OTHER; break; /* __managed__, among others */
	default: break;
	}
	return CXChildVisit_Continue;
}

unsigned
az_cuda_attrs(CXCursor c)
{
	unsigned mask = 0;
	clang_visitChildren(c, attr_visitor, &mask);
	return mask;
}

/* Pushes libclang's mangled name.  For a kernel, clang names the host-side stub
 * (`_Z23__device_stub__add_biasPKf...`); nvcc's host object defines the kernel's
 * own name (`_Z8add_biasPKf...`) and its stub (`_Z35__device_stub__Z8add_bias...`),
 * so the kernel's name is pushed as well, the stub prefix taken out of the
 * identifier and its length. */
static void
push_mangled(struct strvec *v, CXString s)
{
	const char *m = clang_getCString(s);
	if (m && *m) {
		strvec_push(v, m);
		const char *stub = strstr(m, "__device_stub__");
		size_t digits = 0;
		while (stub && stub - digits > m && isdigit((unsigned char)stub[-(long)digits - 1]))
			digits++;
		if (stub && digits > 0) {
			const char *num = stub - digits;
			unsigned long len = strtoul(num, NULL, 10);
			if (len > 15) {
				struct strbuf b = STRBUF_INIT;
				strbuf_add(&b, m, (size_t)(num - m));
				strbuf_addf(&b, "%lu", len - 15);
				strbuf_addstr(&b, stub + 15);
				strvec_push_owned(v, strbuf_detach(&b));
			}
		}
	}
	clang_disposeString(s);
}

/* 1 when c is a definition the host object holds as a strong external symbol. */
static int
is_export(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	if (!clang_isCursorDefinition(c) || clang_getCursorLinkage(c) != CXLinkage_External)
		return 0;
	enum CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(c));
	if (parent == CXCursor_ClassDecl || parent == CXCursor_StructDecl)
		return 0; /* members: left to `known` */
	unsigned a = az_cuda_attrs(c);
	if (k == CXCursor_FunctionDecl) {
		if (a & AZ_ATTR_GLOBAL)
			return 0; /* __global__ */
		if ((a & AZ_ATTR_DEVICE) && !(a & AZ_ATTR_HOST))
			return 0; /* __device__ only */
		if (clang_Cursor_isFunctionInlined(c))
			return 0;
		/* an instantiation or a specialization of a template is weak */
		return clang_Cursor_isNull(clang_getSpecializedCursorTemplate(c));
	}
	if (k == CXCursor_VarDecl)
		return a == 0 && clang_Cursor_getStorageClass(c) != CX_SC_Extern;
	return 0;
}

static enum CXChildVisitResult
sym_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct sym_walk *w = data;
	switch (clang_getCursorKind(c)) {
	case CXCursor_Namespace:
	case CXCursor_LinkageSpec:
	case CXCursor_UnexposedDecl:
	case CXCursor_ClassDecl:
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
		clang_visitChildren(c, sym_visitor, w);
		return CXChildVisit_Continue;
	case CXCursor_FunctionDecl:
	case CXCursor_VarDecl:
	case CXCursor_CXXMethod:
		if (!in_user_file(w->t, c))
			return CXChildVisit_Continue;
		push_mangled(w->known, clang_Cursor_getMangling(c));
		if (is_export(c))
			push_mangled(w->exports, clang_Cursor_getMangling(c));
		return CXChildVisit_Continue;
	case CXCursor_Constructor:
	case CXCursor_Destructor: {
		if (!in_user_file(w->t, c))
			return CXChildVisit_Continue;
		CXStringSet *set = clang_Cursor_getCXXManglings(c);
		for (unsigned i = 0; set && i < set->Count; i++) {
			const char *m = clang_getCString(set->Strings[i]);
			if (m && *m)
				strvec_push(w->known, m);
		}
		if (set)
			clang_disposeStringSet(set);
		return CXChildVisit_Continue;
	}
	default:
		return CXChildVisit_Continue;
	}
}

void
az_collect_symbols(const struct az_tu *t, struct strvec *exports, struct strvec *known)
{
	struct sym_walk w = { t, exports, known };
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu), sym_visitor, &w);
}
