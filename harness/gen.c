/*
 * gen.c -- the evaluation program's source, from a bundle (see gen.h).
 *
 * Everything the bundle says as C expression text (workload values, extents,
 * ranges, tolerances, launch geometry) is pasted into main.cu under a #line that
 * names the pragma's location, so a clause that does not compile is reported
 * where the user wrote it.  Types are mapped through one table; a type the table
 * does not know is refused here with its name rather than guessed at.
 */
#include "config.h"
#include "harness/gen.h"

#include "common/hoist.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct gen_type {
	const char *name;
	const char *code; /* EGG_T_* in runtime.cuh */
	int lanes;
};

static const struct gen_type gen_types[] = {
	{ "float", "EGG_T_F32", 1 }, { "double", "EGG_T_F64", 1 },
	{ "__half", "EGG_T_F16", 1 }, { "half", "EGG_T_F16", 1 },
	{ "__nv_bfloat16", "EGG_T_BF16", 1 }, { "nv_bfloat16", "EGG_T_BF16", 1 },
	{ "char", "EGG_T_I8", 1 }, { "signed char", "EGG_T_I8", 1 }, { "int8_t", "EGG_T_I8", 1 },
	{ "unsigned char", "EGG_T_U8", 1 }, { "uint8_t", "EGG_T_U8", 1 }, { "void", "EGG_T_U8", 1 },
	{ "short", "EGG_T_I16", 1 }, { "short int", "EGG_T_I16", 1 }, { "int16_t", "EGG_T_I16", 1 },
	{ "unsigned short", "EGG_T_U16", 1 }, { "uint16_t", "EGG_T_U16", 1 },
	{ "int", "EGG_T_I32", 1 }, { "signed", "EGG_T_I32", 1 }, { "signed int", "EGG_T_I32", 1 },
	{ "int32_t", "EGG_T_I32", 1 },
	{ "unsigned", "EGG_T_U32", 1 }, { "unsigned int", "EGG_T_U32", 1 },
	{ "uint32_t", "EGG_T_U32", 1 },
	{ "long", "EGG_T_I64", 1 }, { "long int", "EGG_T_I64", 1 }, { "long long", "EGG_T_I64", 1 },
	{ "long long int", "EGG_T_I64", 1 }, { "int64_t", "EGG_T_I64", 1 },
	{ "ptrdiff_t", "EGG_T_I64", 1 }, { "ssize_t", "EGG_T_I64", 1 },
	{ "unsigned long", "EGG_T_U64", 1 }, { "unsigned long long", "EGG_T_U64", 1 },
	{ "uint64_t", "EGG_T_U64", 1 }, { "size_t", "EGG_T_U64", 1 },
	{ "bool", "EGG_T_BOOL", 1 },
	{ "float2", "EGG_T_F32", 2 }, { "float4", "EGG_T_F32", 4 }, { "double2", "EGG_T_F64", 2 },
	{ "int2", "EGG_T_I32", 2 }, { "int4", "EGG_T_I32", 4 }, { "uint2", "EGG_T_U32", 2 },
	{ "uint4", "EGG_T_U32", 4 }, { "__half2", "EGG_T_F16", 2 }, { "half2", "EGG_T_F16", 2 },
	{ "__nv_bfloat162", "EGG_T_BF16", 2 }, { "char4", "EGG_T_I8", 4 },
	{ "uchar4", "EGG_T_U8", 4 },
};

/* "const float *__restrict__" -> "float": drops qualifiers, pointers and extra
 * blanks.  The result is written to buf. */
static void
gen_base_type(const char *type, char *buf, size_t size)
{
	static const char *const drop[] = { "const", "volatile", "__restrict__", "__restrict",
		                            "restrict", "struct", NULL };
	size_t n = 0;
	const char *s = type;
	while (*s && n + 1 < size) {
		if (isalpha((unsigned char)*s) || *s == '_') {
			const char *w = s;
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			size_t len = (size_t)(s - w);
			int dropped = 0;
			for (int i = 0; drop[i]; i++)
				if (strlen(drop[i]) == len && strncmp(w, drop[i], len) == 0)
					dropped = 1;
			if (dropped)
				continue;
			if (n && n + 1 < size)
				buf[n++] = ' ';
			for (; w < s && n + 1 < size; w++)
				buf[n++] = *w;
		} else {
			s++; /* '*', '&', blanks */
		}
	}
	buf[n] = 0;
}

static const struct gen_type *
gen_lookup_type(const char *type)
{
	char base[128];
	gen_base_type(type, base, sizeof base);
	if (strncmp(base, "std ", 4) == 0)
		memmove(base, base + 4, strlen(base + 4) + 1);
	for (size_t i = 0; i < sizeof gen_types / sizeof *gen_types; i++)
		if (strcmp(gen_types[i].name, base) == 0)
			return &gen_types[i];
	return NULL;
}

/* The type the harness holds a parameter's values in: a pointer's element
 * type, a scalar's declared type, or (a typedef the table does not know, as
 * `idx_t`) the type the compiler sees behind it. */
static const char *
gen_value_type(const struct bundle_param *p)
{
	if (p->is_pointer)
		return p->elem_type ? p->elem_type : "";
	if (p->type && gen_lookup_type(p->type))
		return p->type;
	return p->elem_type ? p->elem_type : p->type ? p->type : "";
}

static const struct bundle_binding *
gen_find_binding(const struct bundle_workload *w, const char *name)
{
	for (size_t i = 0; i < w->n_bindings; i++)
		if (strcmp(w->bindings[i].name, name) == 0)
			return &w->bindings[i];
	return NULL;
}

int
gen_check_bundle(const struct egg_bundle *b, struct strbuf *err)
{
	if (!b->name || !b->target) {
		strbuf_addstr(err, "the bundle has no target function");
		return -1;
	}
	if (b->kind == BUNDLE_KERNEL && (!b->launch_grid || !b->launch_block)) {
		strbuf_addf(err, "kernel %s has no launch(GRID, BLOCK) clause", b->name);
		return -1;
	}
	if (b->n_params > GEN_MAX_PARAMS) {
		strbuf_addf(err, "%s has %zu parameters; the harness takes at most %d", b->name,
		            b->n_params, GEN_MAX_PARAMS);
		return -1;
	}
	int outputs = 0;
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		const char *t = gen_value_type(p);
		if (!gen_lookup_type(t)) {
			strbuf_addf(err, "parameter '%s' of %s has type '%s', which the harness cannot "
			            "%s", p->name, b->name, t ? t : "?",
			            p->is_pointer ? "fill and compare" : "hold a workload value of");
			return -1;
		}
		if (p->is_pointer && p->role == ROLE_SCALAR) {
			strbuf_addf(err, "pointer parameter '%s' of %s has no in/out/inout/temp clause",
			            p->name, b->name);
			return -1;
		}
		if (p->is_pointer && !p->extent) {
			strbuf_addf(err, "pointer parameter '%s' of %s has no extent", p->name, b->name);
			return -1;
		}
		outputs += p->role == ROLE_OUT || p->role == ROLE_INOUT;
		if (!p->is_pointer && b->n_workloads == 0) {
			strbuf_addf(err, "%s has no workload(...) clause to give its scalar parameter "
			            "'%s' a value", b->name, p->name);
			return -1;
		}
		for (size_t w = 0; !p->is_pointer && w < b->n_workloads; w++)
			if (!gen_find_binding(&b->workloads[w], p->name)) {
				strbuf_addf(err, "workload %zu of %s gives no value to the scalar parameter "
				            "'%s'", w + 1, b->name, p->name);
				return -1;
			}
	}
	if (!outputs) {
		strbuf_addf(err, "%s has no out or inout buffer: there is nothing to compare", b->name);
		return -1;
	}
	return 0;
}

/* The types and structs every TU of the program shares. */
static const char gen_abi[] =
	"#include <cuda_runtime.h>\n"
	"#ifndef EGG_ABI_DEFINED\n"
	"#define EGG_ABI_DEFINED\n"
	"struct egg_launch { dim3 grid, block; size_t smem; };\n"
	"#endif\n";

static void
gen_includes(const struct egg_bundle *b, struct strbuf *out)
{
	for (size_t i = 0; i < b->n_includes; i++)
		strbuf_addf(out, "#include %s\n", b->includes[i]);
}

/* The named namespaces around the target, from its qualified name
 * ("nn::detail::f" -> "nn::detail"; anonymous ones dropped), or "" at file scope. */
static void
gen_namespace(const struct egg_bundle *b, struct strbuf *out)
{
	char *ns = bundle_namespace(b);
	for (const char *s = ns; *s;) {
		const char *e = strstr(s, "::");
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n != 21 || strncmp(s, "(anonymous namespace)", n) != 0) {
			if (out->len)
				strbuf_addstr(out, "::");
			strbuf_add(out, s, n);
		}
		s += n + (e ? 2 : 0);
	}
	free(ns);
}

/* The closure and the code in their namespaces, then the entry calling the
 * target; prelude (may be NULL) first.  outer (may be NULL) is a named
 * namespace around the closure and the code: the float64 twin appended to the
 * reference's own unit, whose entry then names the target through it (the
 * reference's, unqualified, would be ambiguous). */
static void
gen_unit_body(const struct egg_bundle *b, const char *code, const char *body, const char *entry,
              const char *prelude, const char *outer, struct strbuf *out)
{
	struct strbuf ns = STRBUF_INIT;
	gen_namespace(b, &ns);
	if (prelude)
		strbuf_addstr(out, prelude);
	if (outer)
		strbuf_addf(out, "namespace %s {\n", outer);
	strbuf_addstr(out, "namespace {\n");
	if (b->closure && *b->closure) {
		strbuf_addstr(out, "#line 1 \"egg-closure\"\n");
		gen_add_code(out, b->closure);
		strbuf_addch(out, '\n');
	}
	/* The reference's text carries its namespaces; a candidate replaces the
	 * definition where it stands, inside them. */
	int wrap = ns.len && code != b->target;
	if (wrap)
		strbuf_addf(out, "namespace %s {\n", ns.buf);
	strbuf_addstr(out, "#line 1 \"egg-code\"\n");
	gen_add_code(out, body);
	strbuf_addf(out, "\n%s} /* namespace */\n", wrap ? "}\n" : "");
	if (outer)
		strbuf_addf(out, "} /* namespace %s */\n", outer);
	strbuf_addstr(out, "#line 1 \"egg-entry\"\n");
	strbuf_addf(out, "extern \"C\" void %s(void *const *egg_a, const egg_launch *egg_l)\n{\n"
	            "\t(void)egg_l;\n", entry);
	if (outer)
		strbuf_addf(out, "\t%s::%s%s%s", outer, ns.buf, ns.len ? "::" : "", b->name);
	else {
		if (ns.len)
			strbuf_addf(out, "\tusing namespace %s;\n", ns.buf);
		strbuf_addf(out, "\t%s", b->name);
	}
	strbuf_release(&ns);
	if (b->kind == BUNDLE_KERNEL)
		strbuf_addstr(out, "<<<egg_l->grid, egg_l->block, egg_l->smem>>>");
	strbuf_addch(out, '(');
	for (size_t i = 0; i < b->n_params; i++)
		strbuf_addf(out, "%s*(%s *)egg_a[%zu]", i ? ", " : "", b->params[i].type, i);
	strbuf_addstr(out, ");\n}\n");
}

/* One contender's TU; prelude (may be NULL) goes between the includes and the
 * closure. */
static int
gen_unit_with(const struct egg_bundle *b, const char *code, const char *entry,
              const char *prelude, struct strbuf *out, struct strbuf *err)
{
	if (gen_check_bundle(b, err) < 0)
		return -1;
	strbuf_addf(out, "/* generated by egg: %s for %s (entry %s) */\n",
	            prelude ? "the reference evaluated in float64" : "one contender", b->name, entry);
	strbuf_addstr(out, gen_abi);
	gen_includes(b, out);
	/* a candidate's own headers at file scope, not inside the namespaces it
	 * stands in (common/hoist.h); egg-cc does the same */
	struct strbuf hoisted = STRBUF_INIT, body = STRBUF_INIT;
	if (code != b->target)
		egg_hoist_includes(code, &hoisted, &body);
	else
		strbuf_addstr(&body, code);
	strbuf_add(out, hoisted.buf, hoisted.len);
	gen_unit_body(b, code, body.buf, entry, prelude, NULL, out);
	strbuf_release(&hoisted);
	strbuf_release(&body);
	return 0;
}

int
gen_unit(const struct egg_bundle *b, const char *code, const char *entry,
         struct strbuf *out, struct strbuf *err)
{
	if (gen_unit_with(b, code, entry, NULL, out, err) < 0)
		return -1;
	/* The reference's unit also answers for the candidate, weakly: a
	 * self-check links main.o and ref.o alone (no second compile of the same
	 * code); any candidate's own strong entry takes its place. */
	if (strcmp(entry, GEN_CAND_ENTRY) != 0)
		strbuf_addf(out, "extern \"C\" __attribute__((weak)) void " GEN_CAND_ENTRY
		            "(void *const *egg_a, const egg_launch *egg_l)\n{\n\t%s(egg_a, egg_l);\n}\n",
		            entry);
	return 0;
}

/* What turns the reference into its float64 twin: float is spelled double, and
 * every float math function and intrinsic becomes its double form (a float one
 * called with a double would round the argument back to float).  Those of two
 * or three arguments go through functions of doubles: a float literal stays
 * float in the twin, and fmax(double, float) would be <cmath>'s promoting
 * template, a host function the kernel cannot call ("fmaxf(x, 0.0f)"). */
#define GEN_F64_2(name, fn) \
	"static __host__ __device__ inline double " name "(double a, double b) { return " fn "(a, b); }\n"
static const char gen_f64_prelude[] =
	"#line 1 \"egg-float64\"\n"
	"static __host__ __device__ inline double egg_saturate64(double x)\n"
	"{ return x >= 1 ? 1 : x > 0 ? x : 0; }\n"
	GEN_F64_2("egg_fmax64", "fmax") GEN_F64_2("egg_fmin64", "fmin") GEN_F64_2("egg_fmod64", "fmod")
	GEN_F64_2("egg_pow64", "pow") GEN_F64_2("egg_atan264", "atan2")
	GEN_F64_2("egg_remainder64", "remainder") GEN_F64_2("egg_hypot64", "hypot")
	GEN_F64_2("egg_copysign64", "copysign") GEN_F64_2("egg_fdim64", "fdim")
	"static __host__ __device__ inline double egg_fma64(double a, double b, double c)"
	" { return fma(a, b, c); }\n"
	"#define float double\n"
	"#define expf exp\n#define exp2f exp2\n#define exp10f exp10\n#define expm1f expm1\n"
	"#define logf log\n#define log2f log2\n#define log10f log10\n#define log1pf log1p\n"
	"#define sqrtf sqrt\n#define rsqrtf rsqrt\n#define cbrtf cbrt\n#define rcbrtf rcbrt\n"
	"#define powf egg_pow64\n#define sinf sin\n#define cosf cos\n#define tanf tan\n"
	"#define sincosf sincos\n#define sinpif sinpi\n#define cospif cospi\n"
	"#define sinhf sinh\n#define coshf cosh\n#define tanhf tanh\n#define asinf asin\n"
	"#define acosf acos\n#define atanf atan\n#define atan2f egg_atan264\n#define asinhf asinh\n"
	"#define acoshf acosh\n#define atanhf atanh\n#define erff erf\n#define erfcf erfc\n"
	"#define erfinvf erfinv\n#define erfcinvf erfcinv\n#define normcdff normcdf\n"
	"#define normcdfinvf normcdfinv\n#define lgammaf lgamma\n#define tgammaf tgamma\n"
	"#define fabsf fabs\n#define fmaxf egg_fmax64\n#define fminf egg_fmin64\n#define fmodf egg_fmod64\n"
	"#define remainderf egg_remainder64\n#define floorf floor\n#define ceilf ceil\n"
	"#define roundf round\n#define truncf trunc\n#define rintf rint\n"
	"#define nearbyintf nearbyint\n#define lrintf lrint\n#define llrintf llrint\n"
	"#define lroundf lround\n#define llroundf llround\n#define fmaf egg_fma64\n"
	"#define hypotf egg_hypot64\n#define copysignf egg_copysign64\n#define ldexpf ldexp\n"
	"#define frexpf frexp\n#define scalbnf scalbn\n#define fdimf egg_fdim64\n"
	"#define __expf exp\n#define __exp10f exp10\n#define __logf log\n#define __log2f log2\n"
	"#define __log10f log10\n#define __sinf sin\n#define __cosf cos\n#define __tanf tan\n"
	"#define __powf egg_pow64\n#define __sincosf sincos\n"
	"#define __fdividef(a, b) ((a) / (b))\n#define __fdiv_rn(a, b) ((a) / (b))\n"
	"#define __fmul_rn(a, b) ((a) * (b))\n#define __fadd_rn(a, b) ((a) + (b))\n"
	"#define __fsub_rn(a, b) ((a) - (b))\n#define __fmaf_rn(a, b, c) egg_fma64(a, b, c)\n"
	"#define __frcp_rn(a) (1.0 / (a))\n#define __fsqrt_rn(a) sqrt(a)\n"
	"#define __frsqrt_rn(a) rsqrt(a)\n#define __saturatef(a) egg_saturate64(a)\n";

/* 0 if the bundle has a float64 twin, else -1 with why. */
static int
gen_f64_applies(const struct egg_bundle *b, struct strbuf *why)
{
	static const char *const vectors[] = { "float1", "float2", "float3", "float4",
		                               "make_float1", "make_float2", "make_float3",
		                               "make_float4", NULL };
	int float_out = 0;
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		const struct gen_type *t = gen_lookup_type(gen_value_type(p));
		if (t && !strcmp(t->code, "EGG_T_F32") && t->lanes == 1 && p->is_pointer &&
		    (p->role == ROLE_OUT || p->role == ROLE_INOUT))
			float_out = 1;
	}
	if (!float_out) {
		strbuf_addstr(why, "no float output");
		return -1;
	}
	for (int i = 0; vectors[i]; i++)
		if ((b->closure && gen_has_word(b->closure, 0, strlen(b->closure), vectors[i])) ||
		    gen_has_word(b->target, 0, strlen(b->target), vectors[i])) {
			strbuf_addf(why, "the reference uses %s, whose layout a float64 version cannot keep",
			            vectors[i]);
			return -1;
		}
	return gen_check_bundle(b, why);
}

int
gen_unit_f64(const struct egg_bundle *b, const char *entry, struct strbuf *out,
             struct strbuf *why)
{
	if (gen_f64_applies(b, why) < 0)
		return -1;
	return gen_unit_with(b, b->target, entry, gen_f64_prelude, out, why);
}

int
gen_unit_f64_appended(const struct egg_bundle *b, const char *entry, struct strbuf *out,
                      struct strbuf *why)
{
	if (gen_f64_applies(b, why) < 0)
		return -1;
	strbuf_addf(out, "/* the reference evaluated in float64 (entry %s), in namespace "
	            GEN_F64_NAMESPACE " */\n", entry);
	gen_unit_body(b, b->target, b->target, entry, gen_f64_prelude, GEN_F64_NAMESPACE, out);
	return 0;
}

static const char *const gen_role_codes[] = { "EGG_ROLE_SCALAR", "EGG_ROLE_IN", "EGG_ROLE_OUT",
	                                      "EGG_ROLE_INOUT", "EGG_ROLE_TEMP" };

static void
gen_add_cstring(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(out, '\\');
		if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

/* ---- probes (the validity domain) ----
 * A size binding is one of the first workload's bindings whose name the extents
 * or the launch geometry use (directly or through other bindings' values) and
 * whose own value uses no other binding: the scalars a replacement may have
 * specialized to.  Probe k of n = |S| size bindings (2 + 2n in all), the
 * other bindings kept, derived ones evaluated again:
 *   0: every size binding 1;  1: each a small odd prime (3, 5, 7, ...);
 *   2 + 2i: binding i at the next prime above its value, the others small primes;
 *   3 + 2i: binding i at its value less one, the others small primes.
 * Only integer values change (egg_probe_pick, in main.cu).  The probes leave
 * NULL the pointers the first workload leaves NULL; where another workload leaves
 * another set NULL (an optional pointer checked with and without), every probe
 * runs once more with that set (2 (2 + 2n) in all).  The runtime skips a
 * probe outside the reference's own domain (runtime.cuh, "probes"). */

static int
gen_is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* 1 if expr uses the identifier name (not as a member after . or ->). */
static int
gen_mentions(const char *expr, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = expr ? strstr(expr, name) : NULL; s; s = strstr(s + 1, name)) {
		if (s > expr && (gen_is_ident((unsigned char)s[-1]) || s[-1] == '.' ||
		                 (s[-1] == '>' && s - expr >= 2 && s[-2] == '-')))
			continue;
		if (gen_is_ident((unsigned char)s[n]))
			continue;
		return 1;
	}
	return 0;
}

size_t
gen_size_bindings(const struct egg_bundle *b, int *size)
{
	if (b->n_workloads == 0)
		return 0;
	const struct bundle_workload *wl = &b->workloads[0];
	int *used = egg_xcalloc(wl->n_bindings ? wl->n_bindings : 1, sizeof *used);
	for (size_t i = 0; i < wl->n_bindings; i++) {
		const char *name = wl->bindings[i].name;
		for (size_t k = 0; !used[i] && k < b->n_params; k++)
			used[i] = b->params[k].is_pointer && gen_mentions(b->params[k].extent, name);
		if (b->kind == BUNDLE_KERNEL)
			used[i] |= gen_mentions(b->launch_grid, name) || gen_mentions(b->launch_block, name) ||
			           gen_mentions(b->launch_smem, name);
	}
	for (int changed = 1; changed;) { /* what size bindings' values use is size too */
		changed = 0;
		for (size_t i = 0; i < wl->n_bindings; i++)
			for (size_t j = 0; used[i] && j < wl->n_bindings; j++)
				if (!used[j] && j != i && gen_mentions(wl->bindings[i].value, wl->bindings[j].name))
					used[j] = changed = 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < wl->n_bindings; i++) {
		int free_value = 1;
		for (size_t j = 0; free_value && j < wl->n_bindings; j++)
			free_value = j == i || !gen_mentions(wl->bindings[i].value, wl->bindings[j].name);
		const struct bundle_param *p = bundle_find_param(b, wl->bindings[i].name);
		size[i] = used[i] && free_value && !(p && p->is_pointer) ? (int)n++ : -1;
	}
	free(used);
	return n;
}

/* The first workload that leaves another set of pointers NULL than the first
 * one does, or 0 when they all agree: the probes run with both sets. */
static size_t
gen_other_nulls(const struct egg_bundle *b)
{
	for (size_t w = 1; w < b->n_workloads; w++)
		for (size_t i = 0; i < b->n_params; i++)
			if (bundle_workload_leaves_null(b, &b->workloads[w], b->params[i].name) !=
			    bundle_workload_leaves_null(b, &b->workloads[0], b->params[i].name))
				return w;
	return 0;
}

size_t
gen_n_probes(const struct egg_bundle *b)
{
	if (b->n_workloads == 0)
		return 0;
	int *size = egg_xcalloc(b->workloads[0].n_bindings + 1, sizeof *size);
	size_t n = gen_size_bindings(b, size);
	free(size);
	return n ? (2 + 2 * n) * (gen_other_nulls(b) ? 2 : 1) : 0;
}

static const char gen_probe_pick[] =
	"/* the value of size binding j at probe k (harness/gen.c, \"probes\") */\n"
	"static long long\negg_probe_ll(long long v, int k, int j)\n{\n"
	"\tstatic const int small[] = { 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47 };\n"
	"\tconst long long sm = small[j % 14];\n"
	"\tif (k == 0)\n\t\treturn 1;\n"
	"\tif (k == 1 || (k - 2) / 2 != j)\n\t\treturn sm;\n"
	"\tif ((k - 2) % 2 == 1)\n\t\treturn v > 2 ? v - 1 : v + 2;\n"
	"\tfor (long long c = v < 2 ? 2 : v + 1;; c++) {\n"
	"\t\tint prime = 1;\n"
	"\t\tfor (long long d = 2; prime && d * d <= c; d++)\n\t\t\tprime = c % d != 0;\n"
	"\t\tif (prime)\n\t\t\treturn c;\n\t}\n}\n"
	"template <class T> static T egg_probe_pick(T v, int k, int j) { return (T)egg_probe_ll((long long)v, k, j); }\n"
	"static inline float egg_probe_pick(float v, int, int) { return v; }\n"
	"static inline double egg_probe_pick(double v, int, int) { return v; }\n";

static void
gen_line(const struct egg_bundle *b, struct strbuf *out)
{
	strbuf_addf(out, "#line %u ", b->line ? b->line : 1);
	gen_add_cstring(out, b->file ? b->file : "egg-pragma");
	strbuf_addch(out, '\n');
}

/* The body of one case of egg_setup_workload: the workload's bindings in the
 * order written, then every value the runtime needs from them. */
static void gen_workload_case(const struct egg_bundle *b, size_t c, size_t w, size_t nulls,
                              int probe, const int *size, const char *flops, struct strbuf *out);

static void
gen_workload(const struct egg_bundle *b, size_t w, const char *flops, struct strbuf *out)
{
	gen_workload_case(b, w, w, w, -1, NULL, flops, out);
}

/* Case number `c` of egg_setup_workload: workload w's bindings, or with probe >= 0
 * the first workload's with its size bindings (size[i] >= 0) at that probe; the
 * pointers workload `nulls` leaves NULL are absent (no buffer, a NULL argument). */
static void
gen_workload_case(const struct egg_bundle *b, size_t c, size_t w, size_t nulls, int probe,
                  const int *size, const char *flops, struct strbuf *out)
{
	static const struct bundle_workload none = { NULL, 0 };
	const struct bundle_workload *wl = w < b->n_workloads ? &b->workloads[w] : &none;
	const struct bundle_workload *nl = nulls < b->n_workloads ? &b->workloads[nulls] : &none;
	char base[128];
	strbuf_addf(out, "\tcase %zu: {\n", c);
	/* Every statement carries the pragma's location, so an error in any clause
	 * expression is reported on the pragma's line. */
	for (size_t i = 0; i < wl->n_bindings; i++) {
		const struct bundle_binding *bd = &wl->bindings[i];
		const struct bundle_param *p = bundle_find_param(b, bd->name);
		if (p && p->is_pointer)
			continue; /* left NULL: below */
		struct strbuf v = STRBUF_INIT;
		if (probe >= 0 && size[i] >= 0)
			strbuf_addf(&v, "egg_probe_pick((%s), %d, %d)", bd->value, probe, size[i]);
		else
			strbuf_addstr(&v, bd->value);
		gen_line(b, out);
		if (p && !p->is_pointer) {
			gen_base_type(gen_value_type(p), base, sizeof base);
			if (probe >= 0 && size[i] >= 0)
				strbuf_addf(out, "\tconst %s %s = (%s)(egg_probe_pick((%s)(%s), %d, %d)); "
				            "(void)%s;\n", base, bd->name, base, base, bd->value, probe,
				            size[i], bd->name);
			else
				strbuf_addf(out, "\tconst %s %s = (%s)(%s); (void)%s;\n", base, bd->name,
				            base, bd->value, bd->name);
		} else {
			strbuf_addf(out, "\tconst auto %s = (%s); (void)%s;\n", bd->name, v.buf,
			            bd->name);
		}
		strbuf_release(&v);
	}
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		gen_line(b, out);
		if (!p->is_pointer) {
			gen_base_type(gen_value_type(p), base, sizeof base);
			strbuf_addf(out, "\t*(%s *)egg_x->scalar[%zu] = %s;\n", base, i, p->name);
			continue;
		}
		if (bundle_workload_leaves_null(b, nl, p->name)) {
			strbuf_addf(out, "\tegg_x->absent[%zu] = 1;\n", i);
			continue;
		}
		strbuf_addf(out, "\tegg_x->count[%zu] = (long long)(%s);\n", i, p->extent);
		if (p->range_lo && p->range_hi) {
			gen_line(b, out);
			strbuf_addf(out, "\tegg_x->has_range[%zu] = 1; egg_x->lo[%zu] = (double)(%s); "
			            "egg_x->hi[%zu] = (double)(%s);\n", i, i, p->range_lo, i, p->range_hi);
		}
	}
	gen_line(b, out);
	if (b->kind == BUNDLE_KERNEL)
		strbuf_addf(out, "\tegg_x->launch.grid = dim3(%s); egg_x->launch.block = dim3(%s); "
		            "egg_x->launch.smem = (size_t)(%s);\n", b->launch_grid, b->launch_block,
		            b->launch_smem ? b->launch_smem : "0");
	if (b->rtol)
		strbuf_addf(out, "\tegg_x->rtol = (double)(%s);\n", b->rtol);
	if (b->atol)
		strbuf_addf(out, "\tegg_x->atol = (double)(%s);\n", b->atol);
	if (flops && *flops)
		strbuf_addf(out, "\tegg_x->flops = (double)(%s);\n", flops);
	strbuf_addstr(out, "\tbreak;\n\t}\n");
}

/* What main.cu and runtime.cu share: the ABI, the type and role codes, the
 * layouts of the parameter table and of a workload, and the program's
 * description that main hands the runtime (runtime.cuh). */
static void
gen_shared_types(struct strbuf *out)
{
	strbuf_addstr(out, gen_abi);
	strbuf_addstr(out, "#include <stddef.h>\n#include <stdint.h>\n");
	strbuf_addf(out, "#define EGG_MAX_PARAMS %d\n", GEN_MAX_PARAMS);
	strbuf_addstr(out,
		"enum { EGG_T_F32 = 1, EGG_T_F64, EGG_T_F16, EGG_T_BF16, EGG_T_I8, EGG_T_U8, EGG_T_I16,\n"
		"       EGG_T_U16, EGG_T_I32, EGG_T_U32, EGG_T_I64, EGG_T_U64, EGG_T_BOOL };\n"
		"enum { EGG_ROLE_SCALAR, EGG_ROLE_IN, EGG_ROLE_OUT, EGG_ROLE_INOUT, EGG_ROLE_TEMP };\n"
		"struct egg_param_info { const char *name; int type, lanes, role, is_pointer, align; };\n"
		"struct egg_wl {\n"
		"\tlong long count[EGG_MAX_PARAMS];\n"
		"\tdouble lo[EGG_MAX_PARAMS], hi[EGG_MAX_PARAMS];\n"
		"\tint has_range[EGG_MAX_PARAMS];\n"
		"\tunsigned char absent[EGG_MAX_PARAMS]; /* 1: the call passes NULL (no buffer) */\n"
		"\talignas(16) unsigned char scalar[EGG_MAX_PARAMS][16];\n"
		"\tegg_launch launch;\n"
		"\tdouble rtol, atol; /* < 0: per-type defaults */\n"
		"\tdouble flops; /* of one call; 0: unknown */\n"
		"};\n"
		"typedef void (*egg_entry_fn)(void *const *, const egg_launch *);\n"
		"struct egg_program {\n"
		"\tconst char *name;\n"
		"\tint n_params, n_workloads, n_probes, precision;\n"
		"\tconst egg_param_info *params;\n"
		"\tvoid (*setup)(int, egg_wl *);\n"
		"\tegg_entry_fn ref, cand, ref64; /* ref64: NULL where the twin is not linked */\n"
		"};\n"
		"int egg_runtime_main(int argc, char **argv, const egg_program *prog);\n");
}

static void
gen_prologue(const char *name, size_t n_params, size_t n_workloads, size_t n_probes,
             int precision, struct strbuf *out)
{
	gen_shared_types(out);
	strbuf_addstr(out, "#define EGG_TARGET_NAME ");
	gen_add_cstring(out, name);
	strbuf_addf(out, "\n#define EGG_N_PARAMS %zu\n#define EGG_NP %zu\n#define EGG_N_WORKLOADS %zu\n"
	            "#define EGG_PRECISION %d\n#define EGG_N_PROBES %zu\n", n_params,
	            n_params ? n_params : 1, n_workloads, precision, n_probes);
}

/* The program's main: the bundle's half, handed to the runtime. */
static void
gen_program_main(const char *ref, const char *cand, const char *ref64, struct strbuf *out)
{
	strbuf_addf(out, "int\nmain(int argc, char **argv)\n{\n"
	            "\tstatic const egg_program prog = { EGG_TARGET_NAME, EGG_N_PARAMS, "
	            "EGG_N_WORKLOADS, EGG_N_PROBES,\n\t\tEGG_PRECISION, egg_params, "
	            "egg_setup_workload, %s, %s, %s };\n"
	            "\treturn egg_runtime_main(argc, argv, &prog);\n}\n", ref, cand, ref64);
}

void
gen_runtime(struct strbuf *out)
{
	strbuf_addstr(out, "/* generated by egg: the evaluation program's runtime "
	              "(harness/runtime.cuh) */\n");
	gen_shared_types(out);
	strbuf_addstr(out, "#line 1 \"egg-runtime\"\n");
	strbuf_addstr(out, harness_runtime_text);
}

static int
gen_main_text(const struct egg_bundle *b, const char *ref_entry, const char *const *flops,
              size_t n_flops, int includes, struct strbuf *out, struct strbuf *err)
{
	if (gen_check_bundle(b, err) < 0)
		return -1;
	size_t n_wl = b->n_workloads ? b->n_workloads : 1;
	if (n_flops > 1 && n_flops != n_wl) {
		strbuf_addf(err, "%zu FLOP counts for the %zu workloads of %s: give one for all or one "
		            "per workload", n_flops, n_wl, b->name);
		return -1;
	}
	strbuf_addf(out, "/* generated by egg: the evaluation program's main for %s */\n", b->name);
	size_t n_workloads = b->n_workloads ? b->n_workloads : 1;
	int *size = egg_xcalloc(b->n_workloads ? b->workloads[0].n_bindings + 1 : 1, sizeof *size);
	gen_size_bindings(b, size);
	size_t n_probes = gen_n_probes(b);
	gen_prologue(b->name, b->n_params, n_workloads, n_probes, (int)b->precision, out);
	if (includes)
		gen_includes(b, out);
	/* The closure's macros and constants, for the clause expressions. */
	strbuf_addstr(out, "namespace {\n#line 1 \"egg-closure\"\n");
	gen_closure_decls(b->closure, out);
	strbuf_addstr(out, "} /* namespace */\n");
	strbuf_addstr(out, gen_probe_pick);
	strbuf_addstr(out, "static const egg_param_info egg_params[EGG_NP] = {\n");
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		const struct gen_type *t = gen_lookup_type(gen_value_type(p));
		strbuf_addstr(out, "\t{ ");
		gen_add_cstring(out, p->name);
		strbuf_addf(out, ", %s, %d, %s, %d, %u },\n", t->code, t->lanes, gen_role_codes[p->role],
		            p->is_pointer, p->align);
	}
	strbuf_addstr(out, "};\n\nstatic void\negg_setup_workload(int egg_w, egg_wl *egg_x)\n{\n"
	              "\tswitch (egg_w) {\n");
	for (size_t w = 0; w < n_workloads; w++)
		gen_workload(b, w, n_flops ? flops[n_flops > 1 ? w : 0] : NULL, out);
	/* each probe with the first workload's NULL pointers, then (where another
	 * workload leaves other ones NULL) again with that workload's */
	size_t other = gen_other_nulls(b), per_set = other ? n_probes / 2 : n_probes;
	for (size_t k = 0; k < n_probes; k++)
		gen_workload_case(b, n_workloads + k, 0, k < per_set ? 0 : other, (int)(k % per_set),
		                  size, NULL, out);
	free(size);
	strbuf_addstr(out, "\t}\n}\n#line 1 \"egg-main\"\n");
	strbuf_addf(out, "extern \"C\" void %s(void *const *, const egg_launch *);\n"
	            "extern \"C\" void %s(void *const *, const egg_launch *);\n",
	            ref_entry, GEN_CAND_ENTRY);
	/* The float64 twin is linked only where it compiles: a weak reference. */
	strbuf_addf(out, "extern \"C\" void %s" GEN_F64_SUFFIX "(void *const *, const egg_launch *) "
	            "__attribute__((weak));\n", ref_entry);
	char *ref64 = egg_xasprintf("%s" GEN_F64_SUFFIX, ref_entry);
	gen_program_main(ref_entry, GEN_CAND_ENTRY, ref64, out);
	free(ref64);
	return 0;
}

int
gen_main(const struct egg_bundle *b, const char *ref_entry, const char *const *flops,
         size_t n_flops, struct strbuf *out, struct strbuf *err)
{
	return gen_main_text(b, ref_entry, flops, n_flops, 1, out, err);
}

int
gen_main_without_includes(const struct egg_bundle *b, const char *ref_entry,
                          const char *const *flops, size_t n_flops, struct strbuf *out,
                          struct strbuf *err)
{
	return gen_main_text(b, ref_entry, flops, n_flops, 0, out, err);
}

void
gen_probe(struct strbuf *out)
{
	strbuf_addstr(out, "/* generated by egg: the GPU probe (device, ceilings) */\n");
	gen_prologue("probe", 0, 0, 0, 0, out);
	strbuf_addstr(out,
		"static const egg_param_info egg_params[EGG_NP] = { { \"\", 0, 0, 0, 0, 0 } };\n"
		"static void egg_setup_workload(int, egg_wl *) {}\n"
		"static void egg_probe_stub(void *const *, const egg_launch *) {}\n");
	gen_program_main("egg_probe_stub", "egg_probe_stub", "NULL", out);
	strbuf_addstr(out, "#line 1 \"egg-probe\"\n");
	strbuf_addstr(out, harness_runtime_text);
}
