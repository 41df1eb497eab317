/*
 * test_builtin_scatter.c -- the builtin generator's scatter family: atomics into
 * elements picked by the data (histograms, weighted scatters) lift as SCATTER
 * stages with the destination's extent, atomics whose address is the thread's
 * alone, stores beside the atomic or a destination of unknown extent are refused
 * with a reason, and the recipe emits privatized shared-memory copies with the
 * out-of-extent indices left on the global atomic.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "builtin/lift/lift.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/builtin_helpers.h"
#include "tests/unit/builtin_data.h"

/* A launcher f(keys, x, w, h, n, nbins) around kernel k with the bins' extent nbins
 * (or none). */
static struct egg_bundle *
scatter_bundle(const char *kernel, const char *launch, const char *bins_extent)
{
	char *target = egg_xasprintf("void f(const int *keys, const float *x, float *w, int *h, int n, int nbins) {\n%s\n}\n",
	                             launch);
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "f",
	                                   "const int *keys:in, const float *x:in, float *w:inout, "
	                                   "int *h:inout, int n:scalar, int nbins:scalar",
	                                   kernel, target);
	free(target);
	for (size_t i = 0; i < b->n_params; i++) {
		const char *e = b->params[i].is_const ? "n" : bins_extent;
		if (b->params[i].is_pointer && e)
			b->params[i].extent = egg_xstrdup(e);
	}
	return b;
}

static void
a_histogram_lifts_as_a_scatter_with_the_extent_of_its_bins(void **state)
{
	(void)state;
	EXPECT_DESCRIPTION(load("histogram", NULL),
	                   "launcher histogram\n"
	                   "stage 0 scatter kernel=hist_kernel n=n extent=256\n"
	                   "  acc sum hist[(x[i] & 255)] <- 1\n");
}

static void
a_weighted_scatter_through_a_local_index_lifts_after_its_memset(void **state)
{
	(void)state;
	EXPECT_DESCRIPTION(scatter_bundle("__global__ void k(const int *keys, const float *x, float *w, int n) {\n"
	                                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                                  "  if (i < n) { int b = keys[i] % 1000; float v = x[i] * 2.0f;\n"
	                                  "    atomicAdd(&w[b], v); }\n}\n",
	                                  "  cudaMemset(w, 0, nbins * sizeof(float));\n"
	                                  "  k<<<(n + 255) / 256, 256>>>(keys, x, w, n);",
	                                  "nbins"),
	                   "launcher f\n"
	                   "stage 0 memset buffer=w n=(nbins * sizeof(float))\n"
	                   "stage 1 scatter kernel=k n=n extent=nbins\n"
	                   "  let int b_1 = (keys[i] % 1000)\n"
	                   "  let float v_1 = (x[i] * 2.0f)\n"
	                   "  acc sum w[b_1] <- v_1\n");
	/* a max into bins picked by a key read at another element of the thread's */
	EXPECT_DESCRIPTION(scatter_bundle("__global__ void k(const int *keys, int *h, int n) {\n"
	                                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                                  "  if (i < n) atomicMax(&h[keys[i + 1]], i);\n}\n",
	                                  "  k<<<(n + 255) / 256, 256>>>(keys, h, n - 1);", "nbins"),
	                   "launcher f\n"
	                   "stage 0 scatter kernel=k n=(n - 1) extent=nbins\n"
	                   "  acc max h[keys[(i + 1)]] <- i\n");
}

static void
expect_refused(const char *body, const char *bins_extent, const char *reason)
{
	char *kernel = egg_xasprintf("__global__ void k(const int *keys, const float *x, float *w, int *h, int n) {\n"
	                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {\n%s\n  }\n}\n",
	                             body);
	char *d = describe(scatter_bundle(kernel, "  k<<<(n + 255) / 256, 256>>>(keys, x, w, h, n);",
	                                  bins_extent));
	if (!egg_str_starts(d, "not lifted: ") || !strstr(d, reason))
		fail_msg("expected 'not lifted: ...%s...', got: %s", reason, d);
	free(d);
	free(kernel);
}

static void
scatters_outside_the_family_are_not_lifted_with_a_reason(void **state)
{
	(void)state;
	/* the address is the thread's own: a map's work, not a scatter */
	expect_refused("    atomicAdd(&h[i / 2], 1);", "nbins", "computed from the thread index");
	expect_refused("    int b = 2 * i;\n    atomicAdd(&h[b], 1);", "nbins", "computed from the thread index");
	/* the thread index outside the loads, next to the data */
	expect_refused("    atomicAdd(&h[keys[i] + i], 1);", "nbins", "computed from both loaded data and the thread index");
	/* stores next to the atomic */
	expect_refused("    atomicAdd(&h[keys[i]], 1);\n    w[i] = x[i];", "nbins",
	               "stores next to an atomic histogram or scatter");
	/* the destination read while it is accumulated (the copies would hide the
	 * block's own atomics) */
	expect_refused("    atomicAdd(&h[keys[i]], h[0]);", "nbins", "reads its own destination 'h'");
	expect_refused("    atomicAdd(&h[h[keys[i]] & 7], 1);", "nbins", "reads its own destination 'h'");
	/* two atomics */
	expect_refused("    atomicAdd(&h[keys[i]], 1);\n    atomicAdd(&w[keys[i]], x[i]);", "nbins",
	               "more than one atomic");
	/* bins of unknown extent: no copy can be sized */
	expect_refused("    atomicAdd(&h[keys[i]], 1);", NULL,
	               "a histogram or scatter into 'h', whose extent the bundle does not give");
}

/* Each of the n texts is in candidate i's source. */
static void
expect_in_candidate(const struct builtin_output *o, size_t i, const char *const *expected, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (!strstr(o->candidates[i].source, expected[j]))
			fail_msg("'%s' not in candidate %zu", expected[j], i);
}

static void
the_recipe_privatizes_the_bins_per_warp_and_keeps_strays_global(void **state)
{
	(void)state;
	struct builtin_output o = generate(load("histogram", NULL));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 11);
	assert_string_equal(o.candidates[0].label, "scatter tpb=512 copies=warp vec=4");
	assert_string_equal(o.candidates[3].label, "scatter tpb=512 copies=1 vec=4");
	assert_string_equal(o.candidates[7].label, "scatter tpb=256 copies=warp vec=1");
	assert_string_equal(o.candidates[8].label, "scatter tpb=1024 copies=lanes16 vec=4");
	assert_string_equal(o.candidates[10].label, "scatter tpb=1024 copies=lanes32 vec=4");
	static const char *const expected[] = {
		/* copies in dynamic shared memory, cleared, one per warp */
		"extern __shared__ __align__(16) unsigned char egg_smem0[];",
		"egg_h[egg_j] = 0;",
		"egg_h + (long long)((threadIdx.x >> 5) % egg_copies) * egg_ext;",
		/* the keys come four at a time; an index in the extent goes to the copy,
		 * a stray one to the bins as the reference does */
		"__ldg(reinterpret_cast<const int4 *>(&x[egg_w * 4]))",
		"const long long egg_x = (long long)((egg_l0[egg_u].w & 255));",
		"if ((unsigned long long)egg_x < (unsigned long long)egg_ext)\n"
		"\t\t\t\t\t\t\t\tatomicAdd(&egg_mine[egg_x], (int)(1));\n"
		"\t\t\t\t\t\t\telse\n"
		"\t\t\t\t\t\t\t\tatomicAdd(&hist[egg_x], (int)(1));",
		/* the fold: one global atomic per bin that moved */
		"egg_v = (egg_v + egg_h[egg_c * egg_ext + egg_j]);",
		"if (egg_v != 0)\n\t\t\tatomicAdd(&hist[egg_j], egg_v);",
		/* host: the extent in the target's names, 16 copies for 512 threads,
		 * fewer when they do not fit, none (global atomics) when one does not */
		"const long long egg_e = (long long)(256);",
		"int egg_copies = 16;",
		"egg_copies >>= 1;",
		"egg_ext = 0;",
		"cudaFuncAttributeMaxDynamicSharedMemorySize",
		"egg_histogram_c0_k0<<<(unsigned)egg_g, 512, egg_bytes>>>(x, hist, n, egg_ext, egg_copies);",
	};
	expect_in_candidate(&o, 0, expected, sizeof expected / sizeof *expected);
	assert_non_null(strstr(o.candidates[3].source, "int egg_copies = 1;"));
	builtin_output_release(&o);
}

static void
lane_copies_keep_each_lane_group_in_its_own_banks(void **state)
{
	(void)state;
	struct builtin_output o = generate(load("histogram", NULL));
	assert_null(o.not_lifted);
	static const char *const expected[] = {
		/* copy g of egg_copies takes lanes and banks [g*k, g*k + k) */
		"const int egg_k = 32 / egg_copies;",
		"egg_j < (((egg_ext + egg_k - 1) >> egg_ks) << 5); egg_j += 1024)",
		"egg_h + (long long)(((threadIdx.x & 31) >> egg_ks) * egg_k);",
		/* element x of a copy: word (x / k) * 32 + x % k past the copy's first bank */
		"atomicAdd(&egg_mine[((egg_x >> egg_ks) << 5) + (egg_x & (egg_k - 1))], (int)(1));",
		"atomicAdd(&hist[egg_x], (int)(1));",
		/* the fold starts each element at a different copy: a warp reads 32 banks */
		"const int egg_r = (int)((egg_j >> egg_ks) % egg_copies);",
		"const int egg_g = (egg_r + egg_c) % egg_copies;",
		"egg_v = (egg_v + egg_h[egg_b + egg_g * egg_k]);",
		/* host: 32 copies when they fit, halved until they do; one copy with
		 * k = 32 is the bins in order */
		"int egg_copies = 32;",
		"while (egg_copies > 1 && ((egg_ext + 32 / egg_copies - 1) / (32 / egg_copies)) * 32 * egg_sz > egg_smax)",
		"egg_ext = 0;",
		"<<<(unsigned)egg_g, 1024, egg_bytes>>>(x, hist, n, egg_ext, egg_copies);",
	};
	expect_in_candidate(&o, 10, expected, sizeof expected / sizeof *expected);
	/* the per-warp points keep their plain index */
	assert_null(strstr(o.candidates[0].source, "egg_ks"));
	builtin_output_release(&o);
}

static void
combines_without_a_shared_atomic_and_kernel_targets_keep_the_generic_path(void **state)
{
	(void)state;
	/* a max of unsigned long long has no identity here: the reason, and the
	 * reference's code edited */
	struct egg_bundle *b = make_bundle(BUNDLE_LAUNCHER, "f",
	                                   "const int *keys:in, unsigned long long *h:inout, int n:scalar",
	                                   "__global__ void k(const int *keys, unsigned long long *h, int n) {\n"
	                                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                                   "  if (i < n) atomicMax(&h[keys[i]], (unsigned long long)i);\n}\n",
	                                   "void f(const int *keys, unsigned long long *h, int n) {\n"
	                                   "  k<<<(n + 255) / 256, 256>>>(keys, h, n);\n}\n");
	b->params[0].extent = egg_xstrdup("n");
	b->params[1].extent = egg_xstrdup("64");
	free(b->params[1].elem_type); /* make_bundle keeps the type's first word */
	b->params[1].elem_type = egg_xstrdup("unsigned long long");
	struct builtin_output o = generate(b);
	assert_non_null(strstr(o.description, "not lifted: a scatter whose max of unsigned long long has no "
	                                      "shared-memory atomic\ngeneric:"));
	assert_true(o.n_candidates > 0);
	assert_string_equal(o.candidates[0].label, "generic restrict");
	builtin_output_release(&o);
	/* a kernel target: its geometry is its caller's */
	b = load("histogram", NULL);
	b->kind = BUNDLE_KERNEL;
	free(b->name);
	b->name = egg_xstrdup("hist_kernel");
	free(b->target);
	b->target = b->closure;
	b->closure = egg_xstrdup("");
	o = generate(b);
	assert_non_null(strstr(o.description, "the scatter recipe needs a launcher target"));
	assert_int_equal(count(o.candidates[0].source, "egg_mine"), 0);
	builtin_output_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_histogram_lifts_as_a_scatter_with_the_extent_of_its_bins),
		cmocka_unit_test(a_weighted_scatter_through_a_local_index_lifts_after_its_memset),
		cmocka_unit_test(scatters_outside_the_family_are_not_lifted_with_a_reason),
		cmocka_unit_test(the_recipe_privatizes_the_bins_per_warp_and_keeps_strays_global),
		cmocka_unit_test(lane_copies_keep_each_lane_group_in_its_own_banks),
		cmocka_unit_test(combines_without_a_shared_atomic_and_kernel_targets_keep_the_generic_path),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
