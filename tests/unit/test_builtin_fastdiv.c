/*
 * test_builtin_fastdiv.c -- division by a launch's scalar (builtin/keep/fastdiv.c):
 * which kernel parameters may be passed as egg_div<T>, and that the generic and
 * butterfly paths pass exactly those, with the template in front.  A parameter
 * qualifies only when it is an integer scalar that some / or % divides by and
 * every use of it sees a T; each refusal below is a use that a class type
 * would change or break.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "builtin/keep/fastdiv.h"
#include "builtin/keep/generic.h"
#include "builtin/parse/parse.h"
#include "common/util.h"
#include "tests/unit/builtin_helpers.h"

/* The flags of kernel k's parameters (k declared as
 * __global__ void k(int *out, int n, int d, float f) with this body), as a
 * string of 0 and 1. */
static char *
flags_of(const char *body)
{
	char *text = egg_xasprintf("__global__ void k(int *out, int n, int d, float f)\n{\n%s}\n", body);
	struct strbuf err = STRBUF_INIT;
	struct ast_unit *u = parse_unit(text, &err);
	assert_non_null(u);
	const struct ast_function *k = ast_find_function(u, "k");
	assert_non_null(k);
	int flags[4];
	size_t n = fastdiv_params(text, k, flags);
	char *s = egg_xasprintf("%d%d%d%d", flags[0], flags[1], flags[2], flags[3]);
	assert_int_equal(n, (size_t)(flags[0] + flags[1] + flags[2] + flags[3]));
	ast_unit_free(u);
	strbuf_release(&err);
	free(text);
	return s;
}

static void
expect_flags(const char *body, const char *want)
{
	char *got = flags_of(body);
	if (strcmp(got, want) != 0)
		fail_msg("body:\n%s\nflags %s, want %s", body, got, want);
	free(got);
}

static void
divisors_used_as_values_elsewhere_qualify(void **state)
{
	(void)state;
	/* d divides and is compared, multiplied, indexed and cast; n divides too */
	expect_flags("int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	             "if (i >= n * d) return;\n"
	             "int r = i / d, c = i % d;\n"
	             "out[r * d + c] = out[d - 1] + (int)(float)d + c % n;\n",
	             "0110");
	/* a compound division and a declared copy */
	expect_flags("int i = threadIdx.x; int e = d; i /= d; out[i % e] = e;\n", "0010");
	/* the left side of a division is no divisor */
	expect_flags("int i = threadIdx.x; out[i] = d / (i + 1) + n;\n", "0000");
}

static void
uses_a_class_type_would_change_are_refused(void **state)
{
	(void)state;
	/* a call argument: overloads such as min would be ambiguous */
	expect_flags("int i = threadIdx.x; out[i] = min(i % d, d);\n", "0000");
	/* a branch of ?: */
	expect_flags("int i = threadIdx.x; out[i] = i % d + (i ? d : 0);\n", "0000");
	/* auto would copy the wrapper */
	expect_flags("int i = threadIdx.x; auto e = d; out[i] = i % d + e;\n", "0000");
	/* assigned, incremented, its address taken, redeclared */
	expect_flags("int i = threadIdx.x; d += 1; out[i] = i % d;\n", "0000");
	expect_flags("int i = threadIdx.x; out[i] = i % d; d++;\n", "0000");
	expect_flags("int i = threadIdx.x; int *p = &d; out[i] = i % d + *p;\n", "0000");
	expect_flags("int i = threadIdx.x; out[i] = i % d; { int d = 3; out[0] = d; }\n", "0000");
	/* a float is no integer divisor */
	expect_flags("int i = threadIdx.x; out[i] = (int)(i / f);\n", "0000");
}

static const char div_kernel[] =
	"__global__ void fold_rows(const float *in, float *out, int n, int cols)\n{\n"
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"    if (i >= n)\n        return;\n"
	"    for (int k = 0; k < 4; k++)\n        if (in[i] > 0.5f)\n            break;\n"
	"    out[i] = in[(i / cols) * cols + (cols - 1 - i % cols)];\n}\n";
static const char div_launcher[] =
	"void fold(const float *in, float *out, int n, int cols)\n{\n"
	"    fold_rows<<<(n + 255) / 256, 256>>>(in, out, n, cols);\n}\n";

static void
generic_points_come_as_written_and_with_divisors_as_egg_div(void **state)
{
	(void)state;
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "fold",
	                                   "const float *in:in, float *out:out, int n:scalar, int cols:scalar",
	                                   div_kernel, div_launcher);
	struct builtin_candidate *c = NULL;
	size_t n = 0;
	struct strbuf why = STRBUF_INIT;
	assert_true(generic_generate(b, "egg_t", &c, &n, &why) >= 4);
	assert_int_equal(n % 2, 0);
	assert_string_equal(c[0].label, "generic restrict");
	assert_string_equal(c[1].label, "generic restrict fastdiv");
	for (size_t i = 0; i < n; i += 2) {
		/* each point twice: as it is, then with egg_div */
		assert_null(strstr(c[i].label, "fastdiv"));
		assert_null(strstr(c[i].source, "egg_div"));
		char *twin = egg_xasprintf("%s fastdiv", c[i].label);
		assert_string_equal(c[i + 1].label, twin);
		free(twin);
		assert_non_null(strstr(c[i + 1].source, "#ifndef EGG_BUILTIN_FASTDIV"));
		assert_non_null(strstr(c[i + 1].source, "int n, egg_div<int> cols)"));
	}
	for (size_t i = 0; i < n; i++) {
		free(c[i].label);
		free(c[i].source);
	}
	free(c);
	bundle_free(b);
	strbuf_release(&why);
}

static void
kernel_targets_keep_their_header(void **state)
{
	(void)state;
	struct egg_bundle *b = make_bundle(BUNDLE_KERNEL, "fold_rows",
	                                   "const float *in:in, float *out:out, int n:scalar, int cols:scalar",
	                                   "", div_kernel);
	struct builtin_candidate *c = NULL;
	size_t n = 0;
	struct strbuf why = STRBUF_INIT;
	assert_true(generic_generate(b, "egg_t", &c, &n, &why) > 0);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(c[i].source, "egg_div"));
		assert_null(strstr(c[i].label, "fastdiv"));
		free(c[i].label);
		free(c[i].source);
	}
	free(c);
	bundle_free(b);
	strbuf_release(&why);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(divisors_used_as_values_elsewhere_qualify),
		cmocka_unit_test(uses_a_class_type_would_change_are_refused),
		cmocka_unit_test(generic_points_come_as_written_and_with_divisors_as_egg_div),
		cmocka_unit_test(kernel_targets_keep_their_header),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
