/*
 * bundle.h -- the kernel bundle: an annotated function and its closure.
 *
 * The bundle is the contract between the analyzer (which produces it), the cache
 * (which hashes its canonical form into a key), the generators (which read its
 * code and clauses) and the evaluation harness (which builds a test program from
 * it).  Every module uses this struct inside a process and the JSON below across
 * process and storage boundaries (`egg analyze` prints it, `egg eval` reads it).
 *
 * JSON form (schema "egg-bundle", version EGG_BUNDLE_VERSION); every key is always
 * present, absent values are null:
 *
 *   {
 *     "schema": "egg-bundle", "version": 1,
 *     "name": "softmax_forward",             target's unqualified name
 *     "qualified_name": "ns::softmax_forward",
 *     "kind": "launcher" | "kernel",
 *     "extern_c": false, "is_static": false,
 *     "signature": "void softmax_forward(const float *x, float *y, int rows, int cols)",
 *     "params": [ { "name": "x", "type": "const float *", "elem_type": "float",
 *                   "is_pointer": true, "is_const": true,
 *                   "role": "in" | "out" | "inout" | "temp" | "scalar",
 *                   "extent": "rows * cols" | null,
 *                   "range": { "lo": "0", "hi": "vocab" } | null,
 *                   "align": 16 | 0 }, ... ],     aligned(...): bytes; 0 unsaid (a
 *                                              reader takes a missing key as 0)
 *     "workloads": [ [ { "name": "rows", "value": "8192" }, ... ], ... ],
 *                              a binding that names a pointer parameter leaves it
 *                              NULL in that workload (an optional pointer: the
 *                              function is called without it); its value is
 *                              "NULL" (a reader accepts NULL, nullptr and 0 and
 *                              refuses anything else)
 *     "tolerance": { "rtol": "1e-5", "atol": "1e-6" } | null,
 *     "precision": "default" | "tf32" | "bf16" | "fp16",
 *     "launch": { "grid": "rows", "block": "256", "smem": "0" } | null,
 *     "pragma": "in(x[rows * cols]) out(...) ...",   the clause text as written
 *     "location": { "file": "softmax.cu", "line": 12, "column": 1 },  of the pragma
 *     "includes": [ "<cuda_runtime.h>", "<cuda_fp16.h>" ],
 *     "closure": "...",        kernels, device functions, types, macros the target
 *                              needs, in dependency order, as the preprocessor sees them
 *     "target": "...",         the annotated function's definition
 *     "canonical": "...",      closure + target with comments and layout normalized;
 *                              the cache key hashes this (and never paths)
 *     "spans": { "pragma": [B, E], "definition": [B, E], "name": [B, E], "body": [B, E] } | null
 *                              byte offsets [B, E) in the main file as read from disk, for
 *                              the rewrite (plan/rewrite.h); not hashed.  A reader accepts
 *                              a bundle without this key (hand-written evaluation jobs).
 *   }
 *
 * Expressions (extents, workload values, ranges, tolerances, launch geometry) are
 * kept as C expression text: they are evaluated by the generated harness, where the
 * function's scalar parameters and the other clause values are in scope.
 *
 * Ownership: a struct egg_bundle owns every string and array it points to;
 * bundle_free() releases all of it.
 */
#ifndef EGG_BUNDLE_H
#define EGG_BUNDLE_H

#include <stddef.h>

#include "common/strbuf.h"

#define EGG_BUNDLE_SCHEMA "egg-bundle"
#define EGG_BUNDLE_VERSION 1

enum bundle_kind {
	BUNDLE_LAUNCHER, /* host function launching kernels; replaced whole */
	BUNDLE_KERNEL,   /* __global__ function; only its body is replaced */
};

enum bundle_role {
	ROLE_SCALAR, /* a non-pointer parameter (workload values bind these) */
	ROLE_IN,
	ROLE_OUT,
	ROLE_INOUT,
	ROLE_TEMP,
};

enum bundle_precision {
	PRECISION_DEFAULT, /* the parameters' own types */
	PRECISION_TF32,
	PRECISION_BF16,
	PRECISION_FP16,
};

struct bundle_param {
	char *name;
	char *type;      /* spelling as declared, e.g. "const float *" */
	char *elem_type; /* pointee (or scalar) base type: "float", "__half", "int", ... */
	int is_pointer;
	int is_const;    /* the pointee is const */
	enum bundle_role role;
	char *extent;    /* element count expression; NULL for scalars */
	char *range_lo;  /* range(a, LO, HI) or NULL */
	char *range_hi;
	unsigned align;  /* aligned(a : N): the base is N-byte aligned at every call; 0 unsaid */
};

struct bundle_binding {
	char *name;  /* a scalar parameter, a clause-local name, or a pointer parameter
	              * the workload leaves NULL (bundle_binding_is_null) */
	char *value; /* C expression; "NULL" for a pointer parameter */
};

struct bundle_workload {
	struct bundle_binding *bindings;
	size_t n_bindings;
};

/* Byte offsets [begin, end) in the main file; all zero when unknown. */
struct bundle_span {
	unsigned long begin, end;
};

struct egg_bundle {
	char *name;
	char *qualified_name;
	enum bundle_kind kind;
	int extern_c;
	int is_static;
	char *signature;

	struct bundle_param *params;
	size_t n_params;
	struct bundle_workload *workloads;
	size_t n_workloads;

	char *rtol, *atol;        /* NULL: per-type defaults */
	enum bundle_precision precision;
	char *launch_grid, *launch_block, *launch_smem; /* kernels only; else NULL */

	char *pragma;             /* clause text as written */
	char *file;               /* location of the pragma */
	unsigned line, column;

	char **includes;          /* "<cuda_runtime.h>" spellings, in order */
	size_t n_includes;
	char *closure;
	char *target;
	char *canonical;

	int has_spans;
	struct bundle_span span_pragma;     /* the #pragma line(s); empty for _Pragma in a macro */
	struct bundle_span span_definition; /* first token of the definition to its closing brace */
	struct bundle_span span_name;       /* the function's name in the definition */
	struct bundle_span span_body;       /* '{' ... '}' */
};

/* Names for enums, as used in the JSON; *_parse returns -1 for an unknown name. */
const char *bundle_kind_name(enum bundle_kind k);
int bundle_kind_parse(const char *s, enum bundle_kind *out);
const char *bundle_role_name(enum bundle_role r);
int bundle_role_parse(const char *s, enum bundle_role *out);
const char *bundle_precision_name(enum bundle_precision p);
int bundle_precision_parse(const char *s, enum bundle_precision *out);

/* The parameter called name, or NULL. */
/* The namespaces around the target, from its qualified name, as clang spells
 * them ("nn::(anonymous namespace)::detail"); "" at file scope.  Free it. */
char *bundle_namespace(const struct egg_bundle *b);

const struct bundle_param *bundle_find_param(const struct egg_bundle *b, const char *name);

/* 1 if s spells a null pointer constant: NULL, nullptr or 0 (blanks around it
 * and parentheses ignored). */
int bundle_is_null_spelling(const char *s);

/* 1 if workload w leaves the pointer parameter name NULL (binds it). */
int bundle_workload_leaves_null(const struct egg_bundle *b, const struct bundle_workload *w,
                                const char *name);

/* 1 if some workload leaves the pointer parameter name NULL: an optional pointer,
 * which the harness checks with and without. */
int bundle_param_is_optional(const struct egg_bundle *b, const char *name);

/* Appends the JSON form of b to out (pretty-printed when pretty). */
void bundle_to_json(const struct egg_bundle *b, int pretty, struct strbuf *out);

/* Parses one bundle from JSON text.  On success returns a new bundle (caller
 * frees with bundle_free); on failure returns NULL and appends a sentence naming
 * the offending key to err. */
struct egg_bundle *bundle_from_json(const char *text, struct strbuf *err);

/* The same, for a cJSON object (declared as void * so that users of bundle.h
 * need not include cJSON.h); a JSON array of bundles is read element by element. */
struct egg_bundle *bundle_from_cjson(const void *json, struct strbuf *err);
void *bundle_to_cjson(const struct egg_bundle *b);

void bundle_free(struct egg_bundle *b);

#endif
