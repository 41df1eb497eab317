/*
 * test_builtin_refill.c -- lane refill on the builtin generator's generic path
 * (builtin/keep/refill.c): an element-wise kernel whose per-element work is a loop
 * with a data-dependent trip count gets persistent-lane candidates with ONE
 * loop per lane (the collatz bundle and its variants: the return guard, a for
 * loop, several declarators), and every kernel outside the shape is refused
 * with its reason.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/keep/refill.h"
#include "common/fsutil.h"
#include "tests/unit/builtin_helpers.h"
#include "tests/unit/builtin_data.h"

static const char launcher[] =
	"void collatz_steps(const int *x, int *steps, int n)\n{\n"
	"    collatz_kernel<<<(n + 255) / 256, 256>>>(x, steps, n);\n}\n";

/* The collatz bundle's launcher around a kernel with this body. */
static struct egg_bundle *
variant(const char *kernel_body)
{
	char *closure = egg_xasprintf("__global__ void collatz_kernel(const int *x, int *steps, int n)\n{\n%s}\n",
	                              kernel_body);
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "collatz_steps",
	                                   "const int *x:in, int *steps:out, int n:scalar", closure, launcher);
	free(closure);
	return b;
}

/* refill_generate on b: the candidates' count, the reason in why. */
static size_t
refill(struct egg_bundle *b, struct builtin_candidate **c, struct strbuf *why)
{
	size_t n = 0;
	*c = NULL;
	size_t added = refill_generate(b, "egg_t", c, &n, why);
	assert_int_equal(added, n);
	bundle_free(b);
	return n;
}

static void
free_candidates(struct builtin_candidate *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].label);
		free(c[i].source);
	}
	free(c);
}

static void
the_collatz_bundle_gets_refill_candidates_with_one_loop_per_lane(void **state)
{
	(void)state;
	/* no recipe takes a data-dependent loop: the generic path does */
	char *d = describe(load("collatz", NULL));
	assert_non_null(strstr(d, "not lifted: a data-dependent loop (while)"));
	free(d);
	struct builtin_output o = generate(load("collatz", NULL));
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "refill: lanes walk their elements"));
	static const char *const labels[] = { "refill tpb=128 grid=wave restrict", "refill tpb=128 grid=2waves restrict",
		                              "refill tpb=256 grid=wave restrict", "refill tpb=256 grid=2waves restrict" };
	assert_int_equal(count(o.description, "refill:"), 1);
	size_t first = o.n_candidates - 9;
	for (size_t i = 0; i < 4; i++) {
		const char *s = o.candidates[first + i].source;
		assert_string_equal(o.candidates[first + i].label, labels[i]);
		/* one loop: a step of the element's loop, or its end and the next element */
		assert_int_equal(count(s, "while ("), 1);
		assert_non_null(strstr(s, "while (egg_live) {\n\t\tif (v > 1) {\n"));
		assert_non_null(strstr(s, "\t\t} else {\n\t\t\tsteps[i] = k;\n\t\t\tegg_e += egg_stride;\n"));
		/* int v = x[i], k = 0: declared once, assigned per element (twice: first and next) */
		assert_non_null(strstr(s, "\tint i;\n\tint v;\n\tint k;\n"));
		assert_int_equal(count(s, "v = x[i];\n"), 2);
		assert_int_equal(count(s, "k = 0;\n"), 2);
		/* the grid of the original launch bounds the elements; the new grid is waves of resident blocks */
		assert_non_null(strstr(s, "egg_total = ((long long)(n) + 256 - 1) / 256 * 256;"));
		assert_non_null(strstr(s, "const long long egg_end = egg_limit < egg_total ? egg_limit : egg_total;"));
		assert_non_null(strstr(s, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, egg_collatz_steps_c"));
		assert_non_null(strstr(s, i < 2 ? ", 128>>>(x, steps, n, egg_total);" : ", 256>>>(x, steps, n, egg_total);"));
		assert_non_null(strstr(s, i % 2 ? "egg_sms * egg_occ * 2;" : "egg_sms * egg_occ * 1;"));
		assert_non_null(strstr(s, "int n, long long egg_total)"));
	}
	/* and points that take up to 4 steps before a lane looks for its next element */
	assert_string_equal(o.candidates[first + 4].label, "refill tpb=128 grid=wave steps=4 restrict");
	assert_string_equal(o.candidates[first + 5].label, "refill tpb=256 grid=wave steps=4 restrict");
	/* and 8 or 16 */
	assert_string_equal(o.candidates[first + 6].label, "refill tpb=128 grid=wave steps=8 restrict");
	assert_string_equal(o.candidates[first + 7].label, "refill tpb=256 grid=wave steps=8 restrict");
	assert_string_equal(o.candidates[first + 8].label, "refill tpb=256 grid=wave steps=16 restrict");
	assert_non_null(strstr(o.candidates[first + 8].source, "\t\tfor (; egg_s < 16; egg_s++) {\n"));
	assert_non_null(strstr(o.candidates[first + 8].source, "\t\tif (egg_s < 16) {\n\t\t\tsteps[i] = k;\n"));
	const char *s4 = o.candidates[first + 4].source;
	assert_int_equal(count(s4, "while ("), 1);
	assert_non_null(strstr(s4, "\t\tfor (; egg_s < 4; egg_s++) {\n\t\t\tif (!(v > 1))\n\t\t\t\tbreak;\n"));
	assert_non_null(strstr(s4, "\t\tif (egg_s < 4) {\n\t\t\tsteps[i] = k;\n"));
	builtin_output_release(&o);
}

static void
the_return_guard_and_a_for_loop_take_the_shape(void **state)
{
	(void)state;
	struct builtin_candidate *c;
	struct strbuf why = STRBUF_INIT;
	size_t n = refill(variant("    int i = threadIdx.x + blockDim.x * blockIdx.x;\n"
	                          "    if (i >= n)\n        return;\n"
	                          "    const long long start = x[i];\n    int count = 0;\n"
	                          "    for (long long v = start; v != 1; count++)\n"
	                          "        v = (v & 1) ? 3 * v + 1 : v >> 1;\n"
	                          "    steps[i] = count;\n"),
	                  &c, &why);
	assert_int_equal(n, 9);
	const char *s = c[0].source;
	assert_non_null(strstr(s, "\tint i;\n\tlong long start;\n\tint count;\n\tlong long v;\n"));
	assert_non_null(strstr(s, "start = x[i];\n\t\tcount = 0;\n\t\tv = start;\n"));
	/* the step after the body, the condition from the header */
	assert_non_null(strstr(s, "if (v != 1) {\n\t\t\tv = (v & 1) ? 3 * v + 1 : v >> 1;\n\t\t\tcount++;\n"));
	assert_int_equal(count(s, "for ("), 0);
	free_candidates(c, n);
	strbuf_release(&why);
}

/* The reason refill gives for a kernel body (no candidates). */
static char *
refused(const char *kernel_body)
{
	struct builtin_candidate *c;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(refill(variant(kernel_body), &c, &why), 0);
	free_candidates(c, 0);
	return strbuf_detach(&why);
}

#define EXPECT_REFUSED(body, reason) do { \
	char *w_ = refused(body); \
	if (!strstr(w_, reason)) \
		fail_msg("'%s' does not say '%s'", w_, reason); \
	free(w_); \
} while (0)

static const char idx[] = "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n";

static void
kernels_outside_the_shape_are_refused_with_a_reason(void **state)
{
	(void)state;
	char *body;
	/* a break of the loop: the element would end elsewhere than at its condition */
	body = egg_xasprintf("%s    if (i < n) {\n        int v = x[i], k = 0;\n        while (v > 1) {\n"
	                     "            if (k > 100) break;\n            v = v / 2;\n            k++;\n"
	                     "        }\n        steps[i] = k;\n    }\n", idx);
	EXPECT_REFUSED(body, "leaves the loop by break");
	free(body);
	/* a break of a loop inside the body is that loop's own: accepted */
	struct builtin_candidate *c;
	struct strbuf why = STRBUF_INIT;
	body = egg_xasprintf("%s    if (i < n) {\n        int v = x[i], k = 0;\n        while (v > 1) {\n"
	                     "            for (int j = 0; j < 4; j++)\n                if (j == v) break;\n"
	                     "            v = v / 2;\n            k++;\n        }\n        steps[i] = k;\n    }\n", idx);
	size_t n = refill(variant(body), &c, &why);
	assert_int_equal(n, 9);
	free_candidates(c, n);
	strbuf_release(&why);
	free(body);
	/* a barrier: lanes would meet other elements' lanes */
	body = egg_xasprintf("%s    if (i < n) {\n        int v = x[i], k = 0;\n        while (v > 1) {\n"
	                     "            v = v / 2;\n            k++;\n        }\n        __syncthreads();\n"
	                     "        steps[i] = k;\n    }\n", idx);
	EXPECT_REFUSED(body, "the closure uses __syncthreads");
	free(body);
	/* a trip count from a scalar only: every lane runs the same count */
	body = egg_xasprintf("%s    if (i >= n) return;\n    int k = x[i];\n"
	                     "    for (int j = 0; j < n; j++)\n        k = k * 3 + 1;\n    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "the loop's trip count does not depend on the element");
	free(body);
	/* two loops */
	body = egg_xasprintf("%s    if (i >= n) return;\n    int v = x[i], k = 0;\n"
	                     "    while (v > 1) { v = v / 2; k++; }\n    while (v < 8) { v++; k++; }\n"
	                     "    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "more than one loop");
	free(body);
	/* a return after the loop, a do-while, a guard it does not know */
	body = egg_xasprintf("%s    if (i >= n) return;\n    int v = x[i], k = 0;\n"
	                     "    while (v > 1) { v = v / 2; k++; }\n    if (k > 3) return;\n    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "leaves the statements after the loop by return");
	free(body);
	body = egg_xasprintf("%s    if (i >= n) return;\n    int v = x[i], k = 0;\n"
	                     "    do { v = v / 2; k++; } while (v > 1);\n    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "do-while");
	free(body);
	body = egg_xasprintf("%s    if (i > n) return;\n    int v = x[i], k = 0;\n"
	                     "    while (v > 1) { v = v / 2; k++; }\n    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "its guard is neither");
	free(body);
	/* the thread's place used beyond the index */
	body = egg_xasprintf("%s    if (i >= n) return;\n    int v = x[i] + threadIdx.x, k = 0;\n"
	                     "    while (v > 1) { v = v / 2; k++; }\n    steps[i] = k;\n", idx);
	EXPECT_REFUSED(body, "uses threadIdx beyond its element's index");
	free(body);
	/* a declaration before the loop that shadows a parameter */
	body = egg_xasprintf("%s    if (i < n) {\n        int v = x[i], k = 0;\n        int *x = steps + i;\n"
	                     "        while (v > 1) { v = v / 2; k++; }\n        *x = k;\n    }\n", idx);
	EXPECT_REFUSED(body, "'x' before the loop cannot be declared once");
	free(body);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_collatz_bundle_gets_refill_candidates_with_one_loop_per_lane),
		cmocka_unit_test(the_return_guard_and_a_for_loop_take_the_shape),
		cmocka_unit_test(kernels_outside_the_shape_are_refused_with_a_reason),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
