/*
 * test_bundle.c -- the bundle's JSON form: round trips and strict reading.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/bundle.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

static struct egg_bundle *
sample(void)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = egg_xstrdup("softmax_forward");
	b->qualified_name = egg_xstrdup("nn::softmax_forward");
	b->kind = BUNDLE_LAUNCHER;
	b->extern_c = 1;
	b->signature = egg_xstrdup("void softmax_forward(const float *x, float *y, int rows, int cols)");
	b->n_params = 3;
	b->params = egg_xcalloc(3, sizeof *b->params);
	b->params[0] = (struct bundle_param){ egg_xstrdup("x"), egg_xstrdup("const float *"),
		egg_xstrdup("float"), 1, 1, ROLE_IN, egg_xstrdup("rows * cols"), NULL, NULL };
	b->params[1] = (struct bundle_param){ egg_xstrdup("idx"), egg_xstrdup("int *"),
		egg_xstrdup("int"), 1, 0, ROLE_INOUT, egg_xstrdup("rows"), egg_xstrdup("0"), egg_xstrdup("cols") };
	b->params[2] = (struct bundle_param){ egg_xstrdup("rows"), egg_xstrdup("int"),
		egg_xstrdup("int"), 0, 0, ROLE_SCALAR, NULL, NULL, NULL };
	b->n_workloads = 2;
	b->workloads = egg_xcalloc(2, sizeof *b->workloads);
	for (int i = 0; i < 2; i++) {
		b->workloads[i].n_bindings = 1;
		b->workloads[i].bindings = egg_xcalloc(1, sizeof(struct bundle_binding));
		b->workloads[i].bindings[0].name = egg_xstrdup("rows");
		b->workloads[i].bindings[0].value = egg_xstrdup(i ? "8192" : "1000 + 1");
	}
	b->rtol = egg_xstrdup("1e-5");
	b->precision = PRECISION_TF32;
	b->pragma = egg_xstrdup("in(x[rows * cols])");
	b->file = egg_xstrdup("s.cu");
	b->line = 12;
	b->column = 1;
	b->n_includes = 1;
	b->includes = egg_xcalloc(1, sizeof(char *));
	b->includes[0] = egg_xstrdup("<cuda_runtime.h>");
	b->closure = egg_xstrdup("__global__ void k(const float *x) {}\n");
	b->target = egg_xstrdup("void softmax_forward(...) { k<<<1, 1>>>(x); }\n");
	b->canonical = egg_xstrdup("canon \"quoted\"\n\ttab");
	b->has_spans = 1;
	b->span_pragma = (struct bundle_span){ 10, 40 };
	b->span_definition = (struct bundle_span){ 41, 90 };
	b->span_name = (struct bundle_span){ 46, 61 };
	b->span_body = (struct bundle_span){ 70, 90 };
	return b;
}

static void
bundle_json_round_trip_is_lossless(void **state)
{
	struct egg_bundle *b = sample();
	struct strbuf a = STRBUF_INIT, c = STRBUF_INIT, err = STRBUF_INIT;
	bundle_to_json(b, 1, &a);
	struct egg_bundle *back = bundle_from_json(a.buf, &err);
	assert_non_null(back);
	assert_string_equal(err.buf, "");
	bundle_to_json(back, 1, &c);
	assert_string_equal(a.buf, c.buf);
	assert_string_equal(back->params[1].range_hi, "cols");
	assert_int_equal(back->params[1].role, ROLE_INOUT);
	assert_null(back->params[2].extent);
	assert_null(back->atol);
	assert_string_equal(back->rtol, "1e-5");
	assert_int_equal(back->precision, PRECISION_TF32);
	assert_null(back->launch_grid);
	assert_string_equal(back->workloads[0].bindings[0].value, "1000 + 1");
	assert_string_equal(back->canonical, "canon \"quoted\"\n\ttab");
	assert_ptr_equal(bundle_find_param(back, "rows"), &back->params[2]);
	assert_true(back->has_spans);
	assert_int_equal(back->span_name.begin, 46);
	assert_int_equal(back->span_body.end, 90);
	assert_null(bundle_find_param(back, "nope"));
	bundle_free(b);
	bundle_free(back);
	strbuf_release(&a);
	strbuf_release(&c);
	strbuf_release(&err);
}

/* Replace the first occurrence of from with to in the sample's JSON and read it. */
static char *
read_mutated(const char *from, const char *to)
{
	struct egg_bundle *b = sample();
	struct strbuf j = STRBUF_INIT, err = STRBUF_INIT, m = STRBUF_INIT;
	bundle_to_json(b, 0, &j);
	bundle_free(b);
	char *at = strstr(j.buf, from);
	assert_non_null(at);
	strbuf_add(&m, j.buf, (size_t)(at - j.buf));
	strbuf_addstr(&m, to);
	strbuf_addstr(&m, at + strlen(from));
	struct egg_bundle *back = bundle_from_json(m.buf, &err);
	assert_null(back);
	strbuf_release(&j);
	strbuf_release(&m);
	return strbuf_detach(&err);
}

static void
bundle_reader_names_the_bad_key(void **state)
{
	char *e;
	e = read_mutated("\"role\":\"inout\"", "\"role\":\"sideways\"");
	assert_non_null(strstr(e, "params[1]: 'role'"));
	free(e);
	e = read_mutated("\"kind\":\"launcher\"", "\"kind\":7");
	assert_non_null(strstr(e, "'kind' must be a string"));
	free(e);
	e = read_mutated("\"schema\":\"egg-bundle\"", "\"schema\":\"other\"");
	assert_non_null(strstr(e, "'schema'"));
	free(e);
	e = read_mutated("\"version\":1", "\"version\":99");
	assert_non_null(strstr(e, "'version'"));
	free(e);
	e = read_mutated("\"canonical\":", "\"canonicalX\":");
	assert_non_null(strstr(e, "'canonical' is missing"));
	free(e);
	e = read_mutated("\"name\":[46,61]", "\"name\":[61,46]");
	assert_non_null(strstr(e, "spans: 'name'"));
	free(e);
	e = read_mutated("\"line\":12", "\"line\":-3");
	assert_non_null(strstr(e, "'line'"));
	free(e);
	/* a workload binds a pointer parameter only to leave it NULL */
	e = read_mutated("{\"name\":\"rows\",\"value\":\"8192\"}", "{\"name\":\"x\",\"value\":\"rows\"}");
	assert_non_null(strstr(e, "workloads[1]: 'x' is a pointer parameter"));
	free(e);
}

/* A workload that leaves a pointer NULL reads back as one (NULL, nullptr, 0). */
static void
bundle_workload_leaving_a_pointer_null_reads_back(void **state)
{
	static const char *const spellings[] = { "NULL", "nullptr", "0", " ( NULL ) " };
	for (size_t k = 0; k < 4; k++) {
		struct egg_bundle *b = sample();
		struct bundle_workload *w = &b->workloads[1];
		w->bindings = egg_xrealloc(w->bindings, 2 * sizeof *w->bindings);
		w->bindings[1] = (struct bundle_binding){ egg_xstrdup("x"), egg_xstrdup(spellings[k]) };
		w->n_bindings = 2;
		struct strbuf j = STRBUF_INIT, err = STRBUF_INIT;
		bundle_to_json(b, 0, &j);
		struct egg_bundle *back = bundle_from_json(j.buf, &err);
		assert_non_null(back);
		assert_true(bundle_workload_leaves_null(back, &back->workloads[1], "x"));
		assert_false(bundle_workload_leaves_null(back, &back->workloads[0], "x"));
		assert_true(bundle_param_is_optional(back, "x"));
		assert_false(bundle_param_is_optional(back, "idx"));
		bundle_free(b);
		bundle_free(back);
		strbuf_release(&j);
		strbuf_release(&err);
	}
	assert_false(bundle_is_null_spelling("(NULL"));
	assert_false(bundle_is_null_spelling("NULL)"));
	assert_false(bundle_is_null_spelling("00"));
	assert_false(bundle_is_null_spelling("NULLx"));
}

static void
bundle_without_spans_is_accepted(void **state)
{
	struct egg_bundle *b = sample();
	b->has_spans = 0;
	struct strbuf j = STRBUF_INIT, err = STRBUF_INIT;
	bundle_to_json(b, 0, &j);
	assert_non_null(strstr(j.buf, "\"spans\":null"));
	/* and with the key left out altogether */
	char *at = strstr(j.buf, ",\"spans\":null");
	memmove(at, at + strlen(",\"spans\":null"), strlen(at + strlen(",\"spans\":null")) + 1);
	struct egg_bundle *back = bundle_from_json(j.buf, &err);
	assert_non_null(back);
	assert_false(back->has_spans);
	bundle_free(b);
	bundle_free(back);
	strbuf_release(&j);
	strbuf_release(&err);
}

static void
bundle_reader_rejects_truncated_json(void **state)
{
	struct strbuf err = STRBUF_INIT;
	assert_null(bundle_from_json("{\"schema\":\"egg-bundle\",\"vers", &err));
	assert_non_null(strstr(err.buf, "not valid JSON"));
	strbuf_reset(&err);
	assert_null(bundle_from_json("[1,2]", &err));
	assert_non_null(strstr(err.buf, "expected a JSON object"));
	strbuf_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bundle_json_round_trip_is_lossless),
		cmocka_unit_test(bundle_reader_names_the_bad_key),
		cmocka_unit_test(bundle_workload_leaving_a_pointer_null_reads_back),
		cmocka_unit_test(bundle_without_spans_is_accepted),
		cmocka_unit_test(bundle_reader_rejects_truncated_json),
	};
	return cmocka_run_group_tests_name("bundle", tests, NULL, NULL);
}
