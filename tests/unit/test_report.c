/*
 * test_report.c -- report records (plan/report.h): the numbers taken from an
 * evaluation result for each kind of outcome, records made from cache entries,
 * and appending (whole lines, a clear error for a path that cannot be opened).
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/util.h"
#include "plan/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* A result with two candidates: a slower one and, when best, a winner at 4x. */
static const char result_won[] =
	"{\"schema\":\"egg-result\",\"version\":1,\"status\":\"ok\",\"arch\":\"sm_90\","
	"\"device\":{\"name\":\"NVIDIA H200\"},\"best\":1,\"candidates\":["
	"{\"name\":\"a\",\"verdict\":\"slower\",\"speedup\":0.5,\"run\":{\"timings\":["
	"{\"workload\":0,\"speedup\":0.5,\"reference\":{\"median_ms\":2},\"candidate\":{\"median_ms\":4}}]}},"
	"{\"name\":\"b\",\"verdict\":\"pass\",\"speedup\":4,\"run\":{\"timings\":["
	"{\"workload\":0,\"speedup\":4,\"reference\":{\"median_ms\":2},\"candidate\":{\"median_ms\":0.5}},"
	"{\"workload\":1,\"speedup\":4,\"reference\":{\"median_ms\":8},\"candidate\":{\"median_ms\":2}}]}}]}";

static double
number_at(const cJSON *r, const char *path)
{
	char *copy = egg_xstrdup(path), *save = NULL;
	const cJSON *v = r;
	for (char *p = strtok_r(copy, ".", &save); p; p = strtok_r(NULL, ".", &save))
		v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, atoi(p)) : cJSON_GetObjectItem(v, p);
	free(copy);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *
string_at(const cJSON *r, const char *name)
{
	const cJSON *v = cJSON_GetObjectItem(r, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static struct report_kernel
kernel(const char *outcome, const char *result)
{
	struct report_kernel k = { .source = "k.cu", .kernel = "softmax", .key = KEY, .arch = "sm_90",
		                   .mode = "search", .outcome = outcome, .result_json = result,
		                   .backend = "builtin", .recipe = "1", .when = 0, .wall_s = 1.23456 };
	return k;
}

static void
winner_record_carries_the_best_candidates_numbers(void **state)
{
	(void)state;
	struct report_kernel k = kernel("searched-winner", result_won);
	cJSON *r = report_record_new(&k);
	assert_string_equal(string_at(r, "schema"), "egg-report");
	assert_string_equal(string_at(r, "time"), "1970-01-01T00:00:00Z");
	assert_string_equal(string_at(r, "gpu"), "NVIDIA H200");
	assert_true(number_at(r, "speedup") == 4);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "workloads")), 2);
	assert_true(number_at(r, "workloads.1.reference_ms") == 8);
	assert_true(number_at(r, "workloads.1.winner_ms") == 2);
	assert_true(number_at(r, "wall_s") == 1.235);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "reason")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "generator"), "model")));
	report_record_free(r);
}

static void
record_without_a_winner_keeps_only_the_references_times(void **state)
{
	(void)state;
	char *none = egg_xstrdup(result_won);
	memcpy(strstr(none, "\"best\":1"), "\"bust\":1", 8); /* no best at all */
	struct report_kernel k = kernel("searched-none", none);
	cJSON *r = report_record_new(&k);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "speedup")));
	assert_true(number_at(r, "workloads.0.reference_ms") == 2);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "workloads"), 0),
	                                             "winner_ms")));
	report_record_free(r);
	free(none);
}

static void
failed_verification_reports_what_it_measured(void **state)
{
	(void)state;
	const char *one = "{\"device\":{\"name\":\"H100\"},\"best\":null,\"candidates\":["
	                  "{\"name\":\"cached\",\"verdict\":\"slower\",\"speedup\":0.8}]}";
	struct report_kernel k = kernel("verify-failed", one);
	k.reason = "slower: 0.80x";
	cJSON *r = report_record_new(&k);
	assert_true(number_at(r, "speedup") == 0.8);
	assert_string_equal(string_at(r, "reason"), "slower: 0.80x");
	assert_string_equal(string_at(r, "gpu"), "H100");
	report_record_free(r);
}

static void
record_without_a_result_has_nulls(void **state)
{
	(void)state;
	struct report_kernel k = kernel("cache-miss", NULL);
	k.key = NULL;
	k.wall_s = -1;
	cJSON *r = report_record_new(&k);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "key")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "speedup")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "gpu")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "wall_s")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "workloads")), 0);
	report_record_free(r);
}

static struct cache_entry *
entry(const char *source, const char *result)
{
	struct cache_entry *e = cache_entry_new(KEY);
	struct cache_generator g = { "builtin", NULL, "1" };
	struct strbuf err = STRBUF_INIT;
	cache_entry_set_name(e, "softmax");
	cache_entry_set_generator(e, &g);
	if (source)
		cache_entry_set_source(e, source);
	assert_int_equal(cache_entry_set_result(e, result, &err), 0);
	strbuf_release(&err);
	return e;
}

static void
entries_give_their_outcome_and_reason(void **state)
{
	(void)state;
	struct cache_entry *won = entry("void softmax() {}", result_won);
	struct cache_entry *neg = entry(NULL, "{\"best\":null,\"candidates\":[]}");
	struct cache_entry *nl = entry(NULL, "{\"outcome\":\"not lifted\",\"reason\":\"not lifted: a loop\"}");
	struct cache_entry *vf = entry(NULL, "{\"outcome\":\"verify failed\",\"reason\":\"wrong: 3 of 9\"}");
	assert_string_equal(report_entry_outcome(won), "winner");
	assert_string_equal(report_entry_outcome(neg), "negative");
	assert_string_equal(report_entry_outcome(nl), "not-lifted");
	assert_string_equal(report_entry_outcome(vf), "verify-failed");
	assert_null(report_entry_reason(won));
	assert_null(report_entry_reason(neg));
	char *why = report_entry_reason(vf);
	assert_string_equal(why, "wrong: 3 of 9");
	free(why);
	cJSON *r = report_record_from_entry(won, 86400);
	assert_string_equal(string_at(r, "outcome"), "winner");
	assert_string_equal(string_at(r, "arch"), "sm_90");
	assert_string_equal(string_at(r, "key"), KEY);
	assert_string_equal(string_at(r, "time"), "1970-01-02T00:00:00Z");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "source")));
	assert_true(number_at(r, "speedup") == 4);
	report_record_free(r);
	assert_true(report_outcome_is_winner("verified"));
	assert_true(report_outcome_is_winner("winner"));
	assert_false(report_outcome_is_winner("verify-failed"));
	assert_false(report_outcome_is_winner(NULL));
	cache_entry_free(won);
	cache_entry_free(neg);
	cache_entry_free(nl);
	cache_entry_free(vf);
}

static void
append_writes_one_line_per_record_and_names_a_bad_path(void **state)
{
	(void)state;
	char dir[] = "/tmp/egg-report.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = fs_join(dir, "r.jsonl");
	struct report_kernel k = kernel("cache-hit", result_won);
	cJSON *r = report_record_new(&k);
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(report_append(path, r, &err), 0);
	assert_int_equal(report_append(path, r, &err), 0);
	char *data;
	size_t len;
	assert_int_equal(fs_read_file(path, 0, &data, &len), 0);
	char *nl = strchr(data, '\n');
	assert_non_null(nl);
	assert_int_equal((size_t)(nl - data + 1) * 2, len);
	assert_memory_equal(data, nl + 1, (size_t)(nl - data + 1));
	free(data);
	assert_int_equal(report_append(dir, r, &err), -1); /* a directory */
	assert_non_null(strstr(err.buf, "cannot open the report"));
	strbuf_release(&err);
	report_record_free(r);
	unlink(path);
	rmdir(dir);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(winner_record_carries_the_best_candidates_numbers),
		cmocka_unit_test(record_without_a_winner_keeps_only_the_references_times),
		cmocka_unit_test(failed_verification_reports_what_it_measured),
		cmocka_unit_test(record_without_a_result_has_nulls),
		cmocka_unit_test(entries_give_their_outcome_and_reason),
		cmocka_unit_test(append_writes_one_line_per_record_and_names_a_bad_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
