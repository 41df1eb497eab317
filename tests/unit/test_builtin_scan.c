/*
 * test_builtin_scan.c -- row-wise prefix scans: a column loop that reads the
 * accumulator it updates lifts as a SCAN stage (inclusive, exclusive, running
 * max, element-wise work before and after the update), the scan recipe emits
 * every point, and the near misses are not lifted: a recurrence through the
 * output buffer, a running value feeding its own update, a scan beside other
 * accumulators; a scan row program of another shape is left to the generic path.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/builtin_helpers.h"

#define PARAMS "const float *x:in, float *y:out, int rows:scalar, int cols:scalar"
#define LAUNCH "void f(const float *x, float *y, int rows, int cols) {\n" \
	"  k<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);\n}\n"

/* A thread per row around LOOP. */
static struct egg_bundle *
row_kernel(const char *loop)
{
	char *k = egg_xasprintf("__global__ void k(const float *x, float *y, int rows, int cols) {\n"
	                        "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                        "  if (r >= rows) return;\n%s}\n", loop);
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "f", PARAMS, k, LAUNCH);
	free(k);
	return b;
}

static void
running_sum_stored_after_the_update_is_an_inclusive_scan(void **state)
{
	EXPECT_DESCRIPTION(row_kernel("  float running = 0.0f;\n"
	                              "  for (int c = 0; c < cols; c++) {\n"
	                              "    running += x[r * cols + c];\n"
	                              "    y[r * cols + c] = running;\n  }\n"),
	                   "launcher f\n"
	                   "stage 0 scan kernel=k n=rows\n"
	                   "  let float running_0 = 0.0f\n"
	                   "  loop col < cols scan\n"
	                   "    acc sum running_0 <- x[((row * cols) + col)]\n"
	                   "    let float st0_0 = running_0\n"
	                   "    store y[((row * cols) + col)] = st0_0\n");
}

static void
running_sum_stored_before_the_update_is_an_exclusive_scan(void **state)
{
	EXPECT_DESCRIPTION(row_kernel("  const float *xr = x + r * cols;\n  float s = 1.0f;\n"
	                              "  for (int c = 0; c < cols; c++) {\n"
	                              "    float v = xr[c] * 2.0f;\n"
	                              "    y[r * cols + c] = s * 0.5f;\n"
	                              "    s = s + v;\n  }\n"),
	                   "launcher f\n"
	                   "stage 0 scan kernel=k n=rows\n"
	                   "  let float s_0 = 1.0f\n"
	                   "  loop col < cols scan\n"
	                   "    let float v_0 = (x[((row * cols) + col)] * 2.0f)\n"
	                   "    let float st0_0 = (s_0 * 0.5f)\n"
	                   "    store y[((row * cols) + col)] = st0_0\n"
	                   "    acc sum s_0 <- v_0\n");
}

static void
running_max_is_a_scan_in_both_spellings(void **state)
{
	EXPECT_DESCRIPTION(row_kernel("  float m = -INFINITY;\n"
	                              "  for (int c = 0; c < cols; c++) {\n"
	                              "    m = fmaxf(m, x[r * cols + c]);\n"
	                              "    y[r * cols + c] = x[r * cols + c] - m;\n  }\n"),
	                   "launcher f\n"
	                   "stage 0 scan kernel=k n=rows\n"
	                   "  let float m_0 = (-INFINITY)\n"
	                   "  loop col < cols scan\n"
	                   "    acc max m_0 <- x[((row * cols) + col)]\n"
	                   "    let float st0_0 = (x[((row * cols) + col)] - m_0)\n"
	                   "    store y[((row * cols) + col)] = st0_0\n");
	EXPECT_DESCRIPTION(row_kernel("  float m = x[r * cols];\n"
	                              "  for (int c = 0; c < cols; c++) {\n"
	                              "    float v = x[r * cols + c];\n"
	                              "    if (v < m) m = v;\n"
	                              "    y[r * cols + c] = m;\n  }\n"),
	                   "launcher f\n"
	                   "stage 0 scan kernel=k n=rows\n"
	                   "  let float m_0 = x[(row * cols)]\n"
	                   "  loop col < cols scan\n"
	                   "    let float v_0 = x[((row * cols) + col)]\n"
	                   "    acc min m_0 <- v_0\n"
	                   "    let float st0_0 = m_0\n"
	                   "    store y[((row * cols) + col)] = st0_0\n");
}

static void
loop_carried_values_that_are_not_scans_are_not_lifted(void **state)
{
	static const struct {
		const char *loop, *reason;
	} cases[] = {
		/* a recurrence through the output: each column needs the previous one's store */
		{ "  for (int c = 0; c < cols; c++)\n"
		  "    y[r * cols + c] = (c > 0 ? y[r * cols + c - 1] : 0.0f) * 0.5f + x[r * cols + c];\n",
		  "'y' is read in its loop at an element another column writes (a recurrence)" },
		/* the running value feeds its own update through a let */
		{ "  float s = 0.0f;\n  for (int c = 0; c < cols; c++) {\n"
		  "    float t = s * 0.5f + x[r * cols + c];\n    s += t;\n    y[r * cols + c] = s;\n  }\n",
		  "a running value that feeds its own update" },
		/* a linear recurrence written on the local */
		{ "  float s = 0.0f;\n  for (int c = 0; c < cols; c++) {\n"
		  "    s = s * 0.9f + x[r * cols + c];\n    y[r * cols + c] = s;\n  }\n",
		  "not a sum, product, max or min" },
		/* a scan beside a reduction in the same loop */
		{ "  float s = 0.0f, m = -INFINITY;\n  for (int c = 0; c < cols; c++) {\n"
		  "    s += x[r * cols + c];\n    m = fmaxf(m, x[r * cols + c]);\n    y[r * cols + c] = s;\n  }\n",
		  "next to other accumulators" },
		/* the running value chooses where to store */
		{ "  int s = 0;\n  for (int c = 0; c < cols; c++) {\n"
		  "    s += (int)x[r * cols + c];\n    y[r * cols + (s & 7)] = x[r * cols + c];\n  }\n",
		  "a store's address" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *d = describe(row_kernel(cases[i].loop));
		if (!egg_str_starts(d, "not lifted: ") || !strstr(d, cases[i].reason))
			fail_msg("case %zu: expected 'not lifted: ...%s...', got: %s", i, cases[i].reason, d);
		free(d);
	}
}

static void
scan_recipe_emits_a_candidate_per_point(void **state)
{
	struct builtin_output o = generate(row_kernel("  float running = 0.0f;\n"
	                                              "  for (int c = 0; c < cols; c++) {\n"
	                                              "    y[r * cols + c] = running;\n"
	                                              "    running += x[r * cols + c];\n  }\n"));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 12);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		if (!egg_str_starts(o.candidates[i].label, "scan threads_per_row="))
			fail_msg("candidate %zu is %s", i, o.candidates[i].label);
		assert_true(count(s, "__shfl_up_sync") >= 2);
		/* a block per row scans across its warps through shared memory */
		assert_int_equal(strstr(o.candidates[i].label, "threads_per_row=32 ") == NULL,
		                 strstr(s, "__syncthreads();") != NULL);
		/* exclusive: each column stores the running value before adding itself */
		const char *st = strstr(s, "float st0_0 = running_0;"), *up = strstr(s, "running_0 = (running_0 + ");
		assert_non_null(st);
		assert_non_null(up);
		assert_true(st < up);
	}
	/* aligned rows take 16-byte accesses, and the first point's tile is a warp's 4 x 4 */
	assert_non_null(strstr(o.candidates[0].source, "reinterpret_cast<const float4 *>(&x["));
	assert_non_null(strstr(o.candidates[0].source, "*reinterpret_cast<float4 *>(&y["));
	assert_non_null(strstr(o.candidates[0].source, "egg_t0 += 512)"));
	builtin_output_release(&o);
}

static void
scan_beside_another_loop_is_left_to_the_generic_path(void **state)
{
	struct builtin_output o = generate(row_kernel("  float s = 0.0f, t = 0.0f;\n"
	                                              "  for (int c = 0; c < cols; c++) {\n"
	                                              "    s += x[r * cols + c];\n    y[r * cols + c] = s;\n  }\n"
	                                              "  for (int c = 0; c < cols; c++)\n"
	                                              "    t += x[r * cols + c];\n"
	                                              "  y[r * cols] = t;\n"));
	assert_non_null(strstr(o.description, "stage 0 scan"));
	assert_non_null(strstr(o.description, "not lifted: the scan recipe takes a row program with "
	                                      "one column loop"));
	assert_true(o.n_candidates > 0);
	assert_true(egg_str_starts(o.candidates[0].label, "generic"));
	builtin_output_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(running_sum_stored_after_the_update_is_an_inclusive_scan),
		cmocka_unit_test(running_sum_stored_before_the_update_is_an_exclusive_scan),
		cmocka_unit_test(running_max_is_a_scan_in_both_spellings),
		cmocka_unit_test(loop_carried_values_that_are_not_scans_are_not_lifted),
		cmocka_unit_test(scan_recipe_emits_a_candidate_per_point),
		cmocka_unit_test(scan_beside_another_loop_is_left_to_the_generic_path),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
