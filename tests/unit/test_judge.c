/*
 * test_judge.c -- a candidate's worth from its program's timings
 * (harness/judge.c): total time over the workloads, not the mean of ratios;
 * rates against the ceilings; the best candidate.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness/run_int.h"

#include <math.h>
#include <string.h>

/* A program's JSON with two workloads: the candidate wins 3x on a 0.01 ms one
 * and loses 20% on a 10 ms one (flops given for the second only). */
static const char softmax_like[] =
	"{\"status\":\"ok\",\"timings\":["
	"{\"workload\":0,\"bytes\":1e6,\"candidate\":{\"median_ms\":0.01},\"reference\":{\"median_ms\":0.03}},"
	"{\"workload\":1,\"bytes\":4e9,\"flops\":2e12,\"candidate\":{\"median_ms\":12},\"reference\":{\"median_ms\":10}}]}";

static const char ceilings[] = "{\"copy_gbs\":4000,\"fma_gflops\":50000}";

static void
speedup_is_total_reference_time_over_total_candidate_time(void **state)
{
	cJSON *run = cJSON_Parse(softmax_like), *ceil = cJSON_Parse(ceilings);
	struct run_summary s;
	assert_int_equal(run_summarize(run, ceil, &s), 0);
	assert_true(fabs(s.candidate_ms - 12.01) < 1e-9);
	assert_true(fabs(s.reference_ms - 10.03) < 1e-9);
	assert_true(fabs(s.speedup - 10.03 / 12.01) < 1e-9);
	assert_true(s.speedup < 1);
	/* the geometric mean of 3 and 10/12 would have called it a winner */
	assert_true(fabs(s.speedup_geomean - sqrt(3.0 * 10 / 12)) < 1e-9);
	assert_true(s.speedup_geomean > 1.5);
	cJSON *cand = cJSON_CreateObject();
	run_store_summary(cand, &s);
	assert_null(s.workloads);
	assert_true(fabs(cJSON_GetObjectItem(cand, "speedup")->valuedouble - s.speedup) < 1e-12);
	assert_non_null(cJSON_GetObjectItem(cand, "speedup_geomean"));
	assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(cand, "total_ms"), "candidate")->valuedouble - 12.01) < 1e-9);
	cJSON *w = cJSON_GetObjectItem(cand, "workloads");
	assert_int_equal(cJSON_GetArraySize(w), 2);
	assert_true(fabs(cJSON_GetObjectItem(cJSON_GetArrayItem(w, 0), "speedup")->valuedouble - 3) < 1e-9);
	cJSON_Delete(cand);
	cJSON_Delete(run);
	cJSON_Delete(ceil);
}

static void
rates_are_reported_against_the_measured_ceilings_where_counts_are_known(void **state)
{
	cJSON *run = cJSON_Parse(softmax_like), *ceil = cJSON_Parse(ceilings);
	struct run_summary s;
	assert_int_equal(run_summarize(run, ceil, &s), 0);
	cJSON *t1 = cJSON_GetArrayItem(cJSON_GetObjectItem(run, "timings"), 1);
	cJSON *ref = cJSON_GetObjectItem(t1, "reference");
	/* 4e9 bytes in 10 ms: 400 GB/s, a tenth of the copy ceiling */
	assert_true(fabs(cJSON_GetObjectItem(ref, "gbs")->valuedouble - 400) < 1e-6);
	assert_true(fabs(cJSON_GetObjectItem(ref, "copy_fraction")->valuedouble - 0.1) < 1e-9);
	/* 2e12 FLOPs in 10 ms: 200 TFLOP/s... of a 50 TFLOP/s ceiling is 4x: reported as is */
	assert_true(fabs(cJSON_GetObjectItem(ref, "gflops")->valuedouble - 200000) < 1e-3);
	assert_true(fabs(cJSON_GetObjectItem(ref, "fma_fraction")->valuedouble - 4) < 1e-9);
	/* no count, no FLOP rate */
	cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(run, "timings"), 0);
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(t0, "candidate"), "gflops"));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(t0, "candidate"), "gbs"));
	cJSON *w1 = cJSON_GetArrayItem(s.workloads, 1);
	assert_non_null(cJSON_GetObjectItem(w1, "fma_fraction"));
	assert_non_null(cJSON_GetObjectItem(w1, "copy_fraction"));
	cJSON_Delete(s.workloads);
	/* without ceilings, rates but no fractions */
	cJSON_Delete(run);
	run = cJSON_Parse(softmax_like);
	assert_int_equal(run_summarize(run, NULL, &s), 0);
	ref = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(run, "timings"), 1), "reference");
	assert_non_null(cJSON_GetObjectItem(ref, "gflops"));
	assert_null(cJSON_GetObjectItem(ref, "fma_fraction"));
	cJSON_Delete(s.workloads);
	cJSON_Delete(run);
	cJSON_Delete(ceil);
}

static void
a_workload_without_a_time_gives_no_speedup(void **state)
{
	cJSON *run = cJSON_Parse("{\"timings\":[{\"workload\":0,\"bytes\":8,\"candidate\":{\"median_ms\":1},"
	                         "\"reference\":{\"median_ms\":2}},{\"workload\":1,\"candidate\":{},"
	                         "\"reference\":{\"median_ms\":2}}]}");
	struct run_summary s;
	assert_int_equal(run_summarize(run, NULL, &s), -1);
	assert_true(s.speedup == 0);
	cJSON *cand = cJSON_CreateObject();
	cJSON_AddNullToObject(cand, "speedup");
	run_store_summary(cand, &s);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cand, "speedup")));
	cJSON_Delete(cand);
	cJSON_Delete(run);
}

static void
best_is_the_passing_candidate_with_the_smallest_total_time(void **state)
{
	cJSON *r = cJSON_Parse(
		"{\"candidates\":["
		"{\"verdict\":\"pass\",\"speedup\":1.5,\"speedup_geomean\":2.9,\"total_ms\":{\"candidate\":8}},"
		"{\"verdict\":\"pass\",\"speedup\":1.9,\"speedup_geomean\":1.2,\"total_ms\":{\"candidate\":6}},"
		"{\"verdict\":\"wrong\",\"speedup\":9,\"total_ms\":{\"candidate\":1}},"
		"{\"verdict\":\"slower\",\"speedup\":1.01,\"total_ms\":{\"candidate\":2}},"
		"{\"verdict\":\"pass\",\"speedup\":null,\"total_ms\":null}],\"best\":0}");
	run_pick_best(r);
	assert_int_equal(cJSON_GetObjectItem(r, "best")->valueint, 1);
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "candidates"), 1);
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "candidates"), 0);
	run_pick_best(r);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "best")));
	cJSON_Delete(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(speedup_is_total_reference_time_over_total_candidate_time),
		cmocka_unit_test(rates_are_reported_against_the_measured_ceilings_where_counts_are_known),
		cmocka_unit_test(a_workload_without_a_time_gives_no_speedup),
		cmocka_unit_test(best_is_the_passing_candidate_with_the_smallest_total_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
