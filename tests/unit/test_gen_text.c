/*
 * test_gen_text.c -- the text surgery of the generated program (harness/gen_text.c):
 * what main.cu may see of a closure, extern "C" inside a contender's namespace,
 * and namespaced targets and candidates.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/bundle.h"
#include "common/util.h"
#include "harness/gen.h"

#include <stdlib.h>
#include <string.h>

static const char closure[] =
	"#define BIG_N (1 << 22)\n"
	"#define TWO_LINES(a) \\\n  ((a) + 1)\n"
	"enum { VOCAB = 32000 };\n"
	"typedef enum { RED, GREEN } colour;\n"
	"constexpr int TILE = 32;\n"
	"static const int ROWS = sizeof(float) * 4; // a comment with { and ;\n"
	"const int CALLED = pick(3);\n"
	"__constant__ float c_table[4] = { 1, 2, 3, 4 };\n"
	"struct Affine { float s; __device__ float apply(float v) const { return helper(v); } };\n"
	"__device__ float helper(float v) { return v > 0.f ? v : 0.f; }\n"
	"template <class T> __global__ void k(T *x) { const char *s = \"}\"; x[0] = T(1); }\n"
	"#if USE_X\n"
	"__global__ void kx(float *x) { x[0] = 1; }\n"
	"#endif\n"
	"namespace nn { enum { DIM = 64 }; __device__ int f(int v) { return v; } }\n"
	"extern \"C\" { constexpr int IN_C = 5; __global__ void kc(int *v) { v[0]--; } }\n";

static void
closure_decls_keep_macros_enums_and_constants_for_the_clauses(void **state)
{
	struct strbuf out = STRBUF_INIT;
	gen_closure_decls(closure, &out);
	assert_non_null(strstr(out.buf, "#define BIG_N (1 << 22)\n"));
	assert_non_null(strstr(out.buf, "#define TWO_LINES(a) \\\n  ((a) + 1)\n"));
	assert_non_null(strstr(out.buf, "enum { VOCAB = 32000 };"));
	assert_non_null(strstr(out.buf, "typedef enum { RED, GREEN } colour;"));
	assert_non_null(strstr(out.buf, "constexpr int TILE = 32;"));
	assert_non_null(strstr(out.buf, "static const int ROWS = sizeof(float) * 4;"));
	assert_non_null(strstr(out.buf, "#if USE_X\n#endif\n"));
	assert_non_null(strstr(out.buf, "namespace nn {"));
	assert_non_null(strstr(out.buf, "enum { DIM = 64 };"));
	assert_non_null(strstr(out.buf, "constexpr int IN_C = 5;"));
	strbuf_release(&out);
}

static void
closure_decls_never_show_main_the_references_code(void **state)
{
	struct strbuf out = STRBUF_INIT;
	gen_closure_decls(closure, &out);
	static const char *const absent[] = { "pick(3)", "c_table", "Affine", "helper", "__global__",
		                              "__device__", "extern", "x[0]", "v[0]", NULL };
	for (int i = 0; absent[i]; i++)
		if (strstr(out.buf, absent[i]))
			fail_msg("main would see '%s':\n%s", absent[i], out.buf);
	strbuf_release(&out);
	gen_closure_decls(NULL, &out);
	assert_int_equal(out.len, 0);
}

static void
extern_c_blocks_lose_their_linkage_and_braces_inside_a_contender(void **state)
{
	struct strbuf out = STRBUF_INIT;
	gen_add_code(&out, "extern \"C\" {\nvoid dec(int *v) { /* extern \"C\" { */ v[0]--; }\n}\n"
	             "extern \"C\" void inc(int *v) { v[0]++; }\n"
	             "extern \"C\" { int one(void) { return 1; } }\n");
	assert_string_equal(out.buf, "\nvoid dec(int *v) { /* extern \"C\" { */ v[0]--; }\n\n"
	                    "void inc(int *v) { v[0]++; }\n int one(void) { return 1; } \n");
	strbuf_release(&out);
}

static struct egg_bundle *
namespaced_bundle(void)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = egg_xstrdup("leaky");
	b->qualified_name = egg_xstrdup("(anonymous namespace)::nn::detail::leaky");
	b->kind = BUNDLE_LAUNCHER;
	b->n_params = 2;
	b->params = egg_xcalloc(2, sizeof *b->params);
	b->params[0] = (struct bundle_param){ egg_xstrdup("y"), egg_xstrdup("float *"),
		                              egg_xstrdup("float"), 1, 0, ROLE_OUT,
		                              egg_xstrdup("n"), NULL, NULL };
	b->params[1] = (struct bundle_param){ egg_xstrdup("n"), egg_xstrdup("int"),
		                              egg_xstrdup("int"), 0, 0, ROLE_SCALAR, NULL, NULL, NULL };
	b->n_workloads = 1;
	b->workloads = egg_xcalloc(1, sizeof *b->workloads);
	b->workloads[0].n_bindings = 1;
	b->workloads[0].bindings = egg_xcalloc(1, sizeof *b->workloads[0].bindings);
	b->workloads[0].bindings[0] = (struct bundle_binding){ egg_xstrdup("n"), egg_xstrdup("64") };
	b->target = egg_xstrdup("namespace nn {\nnamespace detail {\nvoid leaky(float *y, int n) {}\n}\n}\n");
	b->closure = egg_xstrdup("");
	return b;
}

static void
namespaced_targets_are_called_through_their_namespaces_and_candidates_stand_inside_them(void **state)
{
	struct egg_bundle *b = namespaced_bundle();
	struct strbuf ref = STRBUF_INIT, cand = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_unit(b, b->target, "egg_entry_ref", &ref, &err), 0);
	assert_non_null(strstr(ref.buf, "\tusing namespace nn::detail;\n\tleaky(*(float * *)egg_a[0], *(int *)egg_a[1]);"));
	assert_null(strstr(ref.buf, "namespace nn::detail {"));
	assert_int_equal(gen_unit(b, "void leaky(float *y, int n) { /* new */ }", GEN_CAND_ENTRY, &cand, &err), 0);
	const char *open = strstr(cand.buf, "namespace nn::detail {\n");
	const char *code = strstr(cand.buf, "/* new */");
	assert_non_null(open);
	assert_non_null(code);
	assert_true(open < code);
	assert_non_null(strstr(code, "}\n} /* namespace */"));
	strbuf_release(&ref);
	strbuf_release(&cand);
	strbuf_release(&err);
	bundle_free(b);
}

static void
a_function_without_scalars_needs_no_workload_clause(void **state)
{
	struct egg_bundle *b = namespaced_bundle();
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	b->n_workloads = 0; /* the binding stays allocated for bundle_free */
	assert_int_equal(gen_main(b, "r", NULL, 0, &out, &err), -1);
	assert_non_null(strstr(err.buf, "no workload(...) clause to give its scalar parameter 'n'"));
	b->n_workloads = 1;
	free(b->params[0].extent);
	b->params[0].extent = egg_xstrdup("1024");
	b->n_params = 1; /* no scalar left */
	struct bundle_workload keep = b->workloads[0];
	b->n_workloads = 0;
	strbuf_reset(&err);
	assert_int_equal(gen_main(b, "r", NULL, 0, &out, &err), 0);
	assert_non_null(strstr(out.buf, "#define EGG_N_WORKLOADS 1\n"));
	assert_non_null(strstr(out.buf, "egg_x->count[0] = (long long)(1024);"));
	b->n_workloads = 1;
	b->workloads[0] = keep;
	b->n_params = 2;
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(closure_decls_keep_macros_enums_and_constants_for_the_clauses),
		cmocka_unit_test(closure_decls_never_show_main_the_references_code),
		cmocka_unit_test(extern_c_blocks_lose_their_linkage_and_braces_inside_a_contender),
		cmocka_unit_test(namespaced_targets_are_called_through_their_namespaces_and_candidates_stand_inside_them),
		cmocka_unit_test(a_function_without_scalars_needs_no_workload_clause),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
