/*
 * test_builtin_butterfly.c -- the builtin generator's butterfly path: the
 * bitonic bundle (tests/data/builtin/bitonic.json, the bench's sort of segments)
 * is found by its structure and gets one candidate per tile and block size whose
 * launcher queues the launches and flushes after its loops; kernels and
 * launchers outside the shape (other indices, data-dependent partners, other
 * work between the launches) get none, with the reason.  A body whose effect is
 * guarded by its partner lying above it visits the lower element of each pair
 * only.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/keep/butterfly.h"
#include "tests/unit/builtin_data.h"
#include "tests/unit/builtin_helpers.h"

static const char bitonic_head[] =
	"__global__ void bitonic_step(float *v, int n, int seg, int j, int k)\n"
	"{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i >= n)\n\t\treturn;\n";
static const char bitonic_loops[] =
	"void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
	"\tcudaMemcpy(sorted, keys, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice);\n"
	"\tfor (int k = 2; k <= seg; k <<= 1)\n\t\tfor (int j = k >> 1; j > 0; j >>= 1)\n"
	"\t\t\tbitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, j, k);\n}\n";

/* The butterfly path's answer for the bitonic bundle with its kernel's body after
 * the index and guard (NULL: as written) and its launcher (NULL: as written):
 * the number of candidates, the reason in why. */
static long
butterfly_variant(const char *body, const char *target, struct builtin_output *o, struct strbuf *why)
{
	struct egg_bundle *b = load("bitonic", NULL);
	if (body) {
		free(b->closure);
		b->closure = egg_xasprintf("%s%s}\n", bitonic_head, body);
	}
	if (target) {
		free(b->target);
		b->target = egg_xstrdup(target);
	}
	memset(o, 0, sizeof *o);
	struct strbuf err = STRBUF_INIT;
	long n = butterfly_generate(b, "egg_t", &o->candidates, &o->n_candidates, why, &err);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
	bundle_free(b);
	return n;
}

/* The variant gets no candidate and the reason (reason NULL: it gets the 9
 * points, and when its body divides by seg, as the bitonic one does, the first
 * of them once more without egg_div). */
static void
expect_refusal(const char *body, const char *target, const char *reason, const char *source_part)
{
	struct builtin_output o;
	struct strbuf why = STRBUF_INIT;
	long n = butterfly_variant(body, target, &o, &why);
	if (reason && (n != 0 || !strstr(why.buf, reason)))
		fail_msg("%ld candidates, '%s' is not '%s'", n, why.buf, reason);
	if (!reason)
		assert_int_equal(n, !body || strstr(body, "% seg") ? 10 : 9);
	if (source_part)
		assert_non_null(strstr(o.candidates[0].source, source_part));
	builtin_output_release(&o);
	strbuf_release(&why);
}

static void
the_bitonic_launcher_is_fused_per_tile(void **state)
{
	(void)state;
	struct builtin_output o = generate(load("bitonic", NULL));
	assert_null(o.not_lifted);
	assert_non_null(strstr(o.description, "butterfly: runs of launches fused through shared memory"));
	size_t first = 0;
	while (first < o.n_candidates && strncmp(o.candidates[first].label, "butterfly", 9) != 0)
		first++;
	/* 3 tiles by 3 block sizes with seg passed as egg_div, the first also as written */
	assert_int_equal(o.n_candidates - first, 10);
	assert_string_equal(o.candidates[first].label, "butterfly tile=1024 tpb=256 pairs");
	assert_null(strstr(o.candidates[first].source, "egg_div"));
	assert_string_equal(o.candidates[first + 1].label, "butterfly tile=1024 tpb=256 pairs fastdiv");
	assert_string_equal(o.candidates[o.n_candidates - 1].label, "butterfly tile=4096 tpb=1024 pairs fastdiv");
	/* the step's field and the body's parameter are egg_div; the fallback kernel keeps int */
	const char *f = o.candidates[first + 1].source;
	assert_non_null(strstr(f, "\tegg_div<int> seg;\n"));
	assert_non_null(strstr(f, "int n, egg_div<int> seg, int j, int k, long long egg_x)"));
	assert_non_null(strstr(f, "_bitonic_step(float *v, int n, int seg, int j, int k)"));
	char *p = egg_xasprintf("egg_sort_segments_c%zu", first);
	const char *s = o.candidates[first].source;
	/* each launch queued with the buffer's extent, the queue flushed after the loops */
	char *step = egg_xasprintf("\t\t\t%s_step(&egg_bq, (long long)(n), (n + 255) / 256, 256, sorted, n, seg, j, k);\n"
	                           "\t%s_flush(&egg_bq);\n}", p, p);
	assert_non_null(strstr(s, step));
	assert_non_null(strstr(s, "\tcudaMemcpy(sorted, keys, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice);\n"
	                          "\tfor (int k = 2;"));
	/* the host evaluates the partner offset j; the body reads its index from the element */
	assert_non_null(strstr(s, "const long long egg_off = (long long)(j);"));
	assert_non_null(strstr(s, "\tint i = (unsigned)egg_x;\n\tif (i >= n)"));
	assert_non_null(strstr(s, "__shared__ float egg_s[1024];"));
	/* the original kernel, renamed, for launches the tile cannot hold */
	char *orig = egg_xasprintf("__global__ void %s_bitonic_step(float *v, int n, int seg, int j, int k)", p);
	assert_non_null(strstr(s, orig));
	free(orig);
	free(step);
	free(p);
	builtin_output_release(&o);
}

static void
other_indices_and_data_dependent_partners_are_refused(void **state)
{
	(void)state;
	static const struct {
		const char *body, *reason;
	} cases[] = {
		{ "\tif (v[i] > v[i + 1])\n\t\tv[i] = v[i + 1];\n",
		  "'bitonic_step' accesses 'v' at an index other than i or i ^ (offset)" },
		{ "\tint partner = i ^ (int)v[i];\n\tif (partner > i)\n\t\tv[partner] = v[i];\n",
		  "the partner offset of 'bitonic_step' reads memory or calls a function" },
		{ "\tint s = j * 2;\n\tif ((i ^ s) > i)\n\t\tv[i ^ s] = v[i];\n",
		  "the partner offset uses 's', which is not an unchanged scalar parameter" },
		{ "\tif ((i ^ j) > i)\n\t\tv[i ^ j] = v[i ^ k];\n",
		  "'bitonic_step' pairs elements with more than one partner offset" },
		{ "\tfloat *w = v;\n\tw[i ^ j] = 0;\n",
		  "'bitonic_step' uses the pointer 'v' other than by indexing it" },
		{ "\tv[i ^ j] = v[i] + (float)(i & k);\n", NULL }, /* the shape: accepted */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		expect_refusal(cases[c].body, NULL, cases[c].reason, NULL);
}

static void
launchers_with_other_work_between_launches_are_refused(void **state)
{
	(void)state;
	static const struct {
		const char *target, *reason;
	} cases[] = {
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1) {\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, 1, k);\n"
		  "\t\tcudaMemcpy(sorted, keys, 4, cudaMemcpyDeviceToDevice);\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, 2, k);\n\t}\n}\n",
		  "the launcher does other work between the launches of 'bitonic_step'" },
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1)\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256, 0, 0>>>(sorted, n, seg, 1, k);\n}\n",
		  "sets shared memory or a stream" },
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1)\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256>>>((float *)keys, n, seg, 1, k);\n}\n",
		  "passes a buffer that is not a writable buffer of the target" },
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1)\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, 1, egg_peek(sorted));\n}\n",
		  "the launcher does other work between the launches" }, /* a call in an argument */
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1) {\n\t\tsorted = sorted + 1;\n"
		  "\t\tbitonic_step<<<(n + 255) / 256, 256>>>(sorted, n, seg, 1, k);\n\t}\n}\n",
		  "not a writable buffer of the target with a known extent" }, /* the buffer moved */
		{ "void sort_segments(const float *keys, float *sorted, int n, int seg)\n{\n"
		  "\tfor (int k = 2; k <= seg; k <<= 1) {\n\t\tint step = k >> 1;\n"
		  "\t\tif (step > 0)\n\t\t\tbitonic_step<<<dim3((n + 255) / 256), 256>>>(sorted, n, seg, step, k);\n"
		  "\t\telse\n\t\t\tbreak;\n\t}\n"
		  "\tcudaMemcpy(sorted, keys, 4, cudaMemcpyDeviceToDevice);\n}\n",
		  NULL }, /* scalar work between launches; work after them: flushed before it */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		expect_refusal(NULL, cases[c].target, cases[c].reason,
		               cases[c].reason ? NULL : "egg_t_c0_flush(&egg_bq);\n\tcudaMemcpy(sorted, keys, 4,");
	/* and the loops as in the bench are accepted */
	expect_refusal(NULL, bitonic_loops, NULL, NULL);
}

/* The label of the variant's first candidate says whether only the lower
 * element of each pair is visited. */
static void
expect_pairs(const char *body, int pairs)
{
	struct builtin_output o;
	struct strbuf why = STRBUF_INIT;
	long n = butterfly_variant(body, NULL, &o, &why);
	if (n <= 0)
		fail_msg("no candidate: %s", why.buf);
	if ((strstr(o.candidates[0].label, " pairs") != NULL) != pairs)
		fail_msg("body:\n%s\nlabel '%s', pairs %d expected", body, o.candidates[0].label, pairs);
	builtin_output_release(&o);
	strbuf_release(&why);
}

static void
bodies_guarded_by_the_upper_partner_visit_lower_elements_only(void **state)
{
	(void)state;
	/* the guard as the last statement: partner > i, i < partner, i ^ j written
	 * out, a conjunction; pure declarations and early returns before it */
	expect_pairs("\tint partner = i ^ j;\n\tif (i < partner) {\n\t\tfloat a = v[i];\n"
	             "\t\tv[i] = v[partner];\n\t\tv[partner] = a;\n\t}\n", 1);
	expect_pairs("\tfloat a = v[i];\n\tif (i >= n - 1)\n\t\treturn;\n\tif ((i ^ j) > i && a > v[i ^ j]) {\n"
	             "\t\tv[i] = v[i ^ j];\n\t\tv[i ^ j] = a;\n\t}\n", 1);
	/* other guards, work outside the guard, an else, a call: every element visited */
	expect_pairs("\tint partner = i ^ j;\n\tif ((i & j) == 0) {\n\t\tfloat a = v[i];\n"
	             "\t\tv[i] = v[partner];\n\t\tv[partner] = a;\n\t}\n", 0);
	expect_pairs("\tint partner = i ^ j;\n\tif (partner > i)\n\t\tv[partner] = v[i];\n\tv[i] += 1.0f;\n", 0);
	expect_pairs("\tint partner = i ^ j;\n\tif (partner > i)\n\t\tv[partner] = v[i];\n"
	             "\telse\n\t\tv[i] = 0.0f;\n", 0);
	expect_pairs("\tint partner = i ^ j;\n\tfloat a = egg_touch(v[i]);\n\tif (partner > i)\n\t\tv[partner] = a;\n", 0);
	expect_pairs("\tint partner = i ^ j;\n\tif (partner > i || k > 0)\n\t\tv[partner] = v[i];\n", 0);
}

static void
shared_memory_in_the_closure_is_refused(void **state)
{
	(void)state;
	expect_refusal("\t__syncthreads();\n\tv[i ^ j] = v[i];\n", NULL,
	               "shared memory, barriers or warp operations", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bitonic_launcher_is_fused_per_tile),
		cmocka_unit_test(other_indices_and_data_dependent_partners_are_refused),
		cmocka_unit_test(launchers_with_other_work_between_launches_are_refused),
		cmocka_unit_test(shared_memory_in_the_closure_is_refused),
		cmocka_unit_test(bodies_guarded_by_the_upper_partner_visit_lower_elements_only),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
