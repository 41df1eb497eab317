/*
 * test_agents_search.c -- whole staged searches without a server or a GPU: a
 * chat function answers by the role and stage its prompt names, an evaluator
 * gives the verdict written in each candidate ("// fixture: wrong"), and the
 * tests check the stages, the repairs, the tuning sweep, what the stage 2
 * prompts carry of stage 1, the transcript, the budgets and the failures.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "agents/search.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct script {
	int stage1;               /* stage 1 prompts seen */
	int bad_first;            /* the first seed answers 1: a changed signature, 2: no code */
	int fail_at;              /* the call that fails with fail_status (1-based); 0: none */
	enum llm_status fail_status;
	int calls;
	struct strvec prompts;    /* every user message */
	struct strvec systems;
};

struct judge {
	int calls;
	size_t sizes[64];         /* candidates per call */
	int fail;                 /* answer every call with status "error" */
};

/* A candidate for softmax_forward with a tag and a fixture verdict. */
static char *
code(const char *tag, const char *fixture, const char *extra)
{
	return egg_xasprintf("Change: %s.\n```cuda\n%s// tag: %s\n// fixture: %s\n"
	                     "__global__ void egg_softmax_forward_k(const float *x, float *y, int r, int c) {}\n"
	                     "void softmax_forward(const float *x, float *y, int rows, int cols)\n"
	                     "{\n\tegg_softmax_forward_k<<<rows, 256>>>(x, y, rows, cols);\n}\n```\n",
	                     tag, extra ? extra : "", tag, fixture);
}

static char *
answer_for(struct script *sc, const char *user)
{
	if (strstr(user, "# Profile agent"))
		return egg_xstrdup("The kernel reads each row twice. {\"bottleneck\": \"memory traffic\", "
		                   "\"modification_plan\": \"keep the row in registers\"}");
	if (strstr(user, "# Debug agent") && strstr(user, "egg could not use the answer"))
		return code("unusable fixed", "pass 1.7", NULL);
	if (strstr(user, "# Stage 1") && sc->bad_first && sc->stage1 == 0) {
		sc->stage1++;
		if (sc->bad_first == 2)
			return egg_xstrdup("I would use one warp per row. {\"plan\": \"no code, sorry\"}");
		char *c = code("bad signature", "pass 9.0", NULL);
		char *p = strstr(c, "int rows, int cols)\n{");
		memcpy(p, "int rows, int colz", 18);
		return c;
	}
	if (strstr(user, "# Debug agent")) {
		if (strstr(user, "tag: seed-a"))
			return code("seed-a fixed", "pass 1.5", NULL);
		if (strstr(user, "tag: seed-b"))
			return code("seed-b fixed", "pass 2.0", NULL);
		if (strstr(user, "tag: tile"))
			return code("tile fixed", "pass 3.5", NULL);
		return egg_xstrdup("I do not know.");
	}
	if (strstr(user, "# Stage 1")) {
		switch (++sc->stage1) {
		case 1: return code("seed-a", "compile_error", NULL);
		case 2: return code("seed-b", "wrong", NULL);
		default: return code("seed-c", "slower 0.9", NULL);
		}
	}
	if (strstr(user, "# Stage 2/mapping"))
		return code("map", "pass 2.5", "// egg-tune: BLOCK = 128, 256\n");
	if (strstr(user, "# Stage 2/tiling"))
		return code("tile", "wrong", NULL);
	if (strstr(user, "# Stage 2/memory"))
		return code("mem", "slower 0.8", NULL);
	return egg_xstrdup("?");
}

static enum llm_status
scripted_chat(void *ctx, const struct llm_message *msgs, size_t n, struct llm_reply *out,
              struct strbuf *err)
{
	struct script *sc = ctx;
	assert_int_equal(n, 2);
	assert_int_equal(msgs[0].role, LLM_SYSTEM);
	assert_int_equal(msgs[1].role, LLM_USER);
	memset(out, 0, sizeof *out);
	if (++sc->calls == sc->fail_at) {
		strbuf_addstr(err, "the openai backend at 127.0.0.1 refused the key (401)");
		return sc->fail_status;
	}
	strvec_push(&sc->systems, msgs[0].content);
	strvec_push(&sc->prompts, msgs[1].content);
	out->text = answer_for(sc, msgs[1].content);
	out->input_tokens = 1000;
	out->output_tokens = 100;
	return LLM_OK;
}

static cJSON *
judged(const struct run_candidate *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", c->name);
	const char *f = strstr(c->source, "// fixture: ");
	char verdict[32] = "error";
	double sp = 0;
	if (f)
		sscanf(f + 12, "%31s %lf", verdict, &sp);
	if (strcmp(verdict, "pass") == 0 && strstr(c->source, "#define BLOCK 256"))
		sp += 0.5;
	cJSON_AddStringToObject(o, "verdict", verdict);
	if (strcmp(verdict, "wrong") == 0)
		cJSON_AddStringToObject(o, "message", "y: 7 of 100 elements wrong, the first at index 3");
	else
		cJSON_AddNullToObject(o, "message");
	cJSON_AddStringToObject(o, "compile_log", strcmp(verdict, "compile_error") == 0 ?
	                        "cand0.cu(3): error: identifier \"rowz\" is undefined\n" : "");
	cJSON_AddItemToObject(o, "resources", cJSON_CreateArray());
	if (sp > 0)
		cJSON_AddNumberToObject(o, "speedup", sp);
	else
		cJSON_AddNullToObject(o, "speedup");
	return o;
}

static void *
scripted_eval(void *ctx, const struct run_candidate *cands, size_t n, enum run_status *status)
{
	struct judge *j = ctx;
	j->sizes[j->calls++ % 64] = n;
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "schema", "egg-result");
	cJSON_AddNumberToObject(r, "version", 1);
	cJSON_AddStringToObject(r, "status", j->fail ? "error" : "ok");
	if (j->fail)
		cJSON_AddStringToObject(r, "message", "the evaluation command failed");
	else
		cJSON_AddNullToObject(r, "message");
	cJSON *dev = cJSON_AddObjectToObject(r, "device");
	cJSON_AddStringToObject(dev, "name", "Scripted GPU");
	cJSON *ceil = cJSON_AddObjectToObject(r, "ceilings");
	cJSON_AddNumberToObject(ceil, "copy_gbs", 3000);
	cJSON *list = cJSON_AddArrayToObject(r, "candidates");
	for (size_t i = 0; i < n && !j->fail; i++)
		cJSON_AddItemToArray(list, judged(&cands[i]));
	cJSON_AddNullToObject(r, "best");
	*status = j->fail ? RUN_ERROR : RUN_OK;
	return r;
}

struct fixture {
	struct egg_bundle *b;
	char *prompts;
	struct script sc;
	struct judge j;
	struct agents_options opt;
	struct agents_result r;
};

static int
setup(void **state)
{
	struct fixture *f = egg_xcalloc(1, sizeof *f);
	const char *src = getenv("EGG_SRCDIR");
	char *path = egg_xasprintf("%s/tests/data/builtin/softmax.json", src ? src : ".");
	char *text;
	size_t len;
	assert_int_equal(fs_read_file(path, 0, &text, &len), 0);
	struct strbuf err = STRBUF_INIT;
	f->b = bundle_from_json(text, &err);
	assert_non_null(f->b);
	free(text);
	free(path);
	strbuf_release(&err);
	f->prompts = egg_xasprintf("%s/prompts", src ? src : ".");
	f->opt.prompts_dir = f->prompts;
	f->opt.repair_rounds = -1;
	f->opt.quiet = 1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	bundle_free(f->b);
	free(f->prompts);
	strvec_clear(&f->sc.prompts);
	strvec_clear(&f->sc.systems);
	agents_result_release(&f->r);
	free(f);
	return 0;
}

static void
run(struct fixture *f)
{
	struct llm_chat_fn chat = { scripted_chat, &f->sc };
	struct agents_evaluator ev = { scripted_eval, &f->j, NULL };
	struct strbuf err = STRBUF_INIT;
	f->opt.quiet = !getenv("EGG_TEST_VERBOSE");
	assert_int_equal(agents_search(f->b, chat, ev, &f->opt, &f->r, &err), 0);
	if (getenv("EGG_TEST_VERBOSE"))
		fprintf(stderr, "%s\n", f->r.transcript);
	strbuf_release(&err);
}

static int
transcript_has(const struct agents_result *r, const char *stage, const char *role, const char *kind,
               const char *text)
{
	cJSON *t = cJSON_Parse(r->transcript), *st;
	assert_true(cJSON_IsArray(t));
	int found = 0;
	cJSON_ArrayForEach(st, t) {
		const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(st, "stage"));
		const char *ro = cJSON_GetStringValue(cJSON_GetObjectItem(st, "role"));
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(st, "kind"));
		const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(st, "text"));
		assert_non_null(s);
		assert_non_null(ro);
		assert_non_null(k);
		assert_non_null(x);
		found |= (!stage || strcmp(s, stage) == 0) && (!role || strcmp(ro, role) == 0) &&
		         (!kind || strcmp(k, kind) == 0) && (!text || strstr(x, text));
	}
	cJSON_Delete(t);
	return found;
}

static void
test_two_stage_search_repairs_tunes_and_finds_the_winner(void **state)
{
	struct fixture *f = *state;
	cJSON *ref = cJSON_Parse("{\"name\": \"reference (self-check)\", \"verdict\": \"pass\", \"run\": "
	                         "{\"timings\": [{\"workload\": 0, \"bytes\": 6e7, \"candidate\": "
	                         "{\"median_ms\": 0.04}, \"reference\": {\"median_ms\": 0.04}}]}}");
	f->opt.reference = ref;
	run(f);
	cJSON_Delete(ref);
	/* the reference's numbers against the ceiling in the structure prompts */
	assert_non_null(strstr(f->sc.prompts.v[0], "workload 0: 0.04 ms (reference 0.04 ms), 60 MB moved, "
	                                           "1500 GB/s"));
	assert_int_equal(f->r.verdict, 1);
	assert_null(f->r.failure);
	assert_null(f->r.stopped_by);
	assert_non_null(f->r.source);
	assert_non_null(strstr(f->r.source, "tag: tile fixed"));
	assert_true(f->r.speedup > 3.4 && f->r.speedup < 3.6);
	assert_string_equal(f->r.gpu, "Scripted GPU");
	/* 3 seeds + 2 repairs; per kept structure: 3 x (profile + code) + 1 repair */
	assert_int_equal(f->r.model_calls, 5 + 2 * 7);
	/* the mapping candidate's two tunable variants went in one call */
	int saw_pair = 0;
	for (int i = 0; i < f->j.calls; i++)
		saw_pair |= f->j.sizes[i] == 2;
	assert_true(saw_pair);
	cJSON *res = cJSON_Parse(f->r.result_json);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(res, "candidates")), f->r.candidates);
	cJSON *best = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "candidates"),
	                                 (int)cJSON_GetNumberValue(cJSON_GetObjectItem(res, "best")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(best, "name")), f->r.name);
	cJSON_Delete(res);
	assert_true(transcript_has(&f->r, "1/structure", "code", "prompt", "Direction for this attempt"));
	assert_true(transcript_has(&f->r, "debug", "debug", "prompt", "identifier \"rowz\" is undefined"));
	assert_true(transcript_has(&f->r, "debug", "debug", "prompt", "first at index 3"));
	assert_true(transcript_has(&f->r, "2/mapping", "profile", "decision", "memory traffic"));
	assert_true(transcript_has(&f->r, "2/tiling", "code", "response", NULL));
	assert_true(transcript_has(&f->r, "2/memory", "search", "evaluation", NULL));
	assert_true(transcript_has(&f->r, "tune", "search", "note", "2 tunable variants"));
	assert_true(transcript_has(&f->r, NULL, "search", "decision", "winner: s2."));
}

static void
test_stage_two_prompts_carry_the_decision_not_the_history(void **state)
{
	struct fixture *f = *state;
	run(f);
	int stage2 = 0;
	for (size_t i = 0; i < f->sc.prompts.n; i++) {
		const char *p = f->sc.prompts.v[i];
		if (strstr(p, "# Stage 1") || strstr(p, "# Debug agent"))
			continue;
		stage2++;
		assert_non_null(strstr(p, "Stage 1 chose the structure s1."));
		assert_null(strstr(p, "seed-c"));      /* another seed's code or line */
		assert_null(strstr(p, "- s1.1: "));   /* stage 1's history lines */
		assert_null(strstr(p, "- s1.2: "));
		assert_null(strstr(p, "compile_error"));
	}
	assert_int_equal(stage2, 12);
	/* and stage 1's later seeds did see the earlier ones */
	int seen = 0;
	for (size_t i = 0; i < f->sc.prompts.n; i++)
		seen |= strstr(f->sc.prompts.v[i], "# Stage 1") && strstr(f->sc.prompts.v[i], "- s1.1: compile_error");
	assert_true(seen);
	for (size_t i = 0; i < f->sc.systems.n; i++)
		assert_non_null(strstr(f->sc.systems.v[i], "egg-tune:"));
}

static void
test_model_call_budget_stops_the_search_and_keeps_the_best(void **state)
{
	struct fixture *f = *state;
	f->opt.budget.max_model_calls = 3; /* seed 1, its repair, seed 2 */
	run(f);
	assert_int_equal(f->r.verdict, 1);
	assert_string_equal(f->r.stopped_by, "max_model_calls");
	assert_int_equal(f->r.model_calls, 3);
	assert_int_equal(f->r.candidates, 3);
	assert_non_null(f->r.source);
	assert_non_null(strstr(f->r.source, "tag: seed-a fixed"));
	assert_true(transcript_has(&f->r, NULL, "search", "note", "the model-call budget ran out"));
}

static void
test_candidate_budget_caps_the_variants_and_stops(void **state)
{
	struct fixture *f = *state;
	f->opt.budget.max_candidates = 2;
	run(f);
	assert_string_equal(f->r.stopped_by, "max_candidates");
	assert_int_equal(f->r.candidates, 2);
	assert_true(f->r.speedup > 1.4 && f->r.speedup < 1.6);
}

static void
test_token_and_time_budgets_stop_the_search(void **state)
{
	struct fixture *f = *state;
	f->opt.budget.max_tokens = 1;
	run(f);
	assert_string_equal(f->r.stopped_by, "max_tokens");
	assert_int_equal(f->r.model_calls, 1);
	assert_int_equal(f->r.candidates, 1); /* the answer paid for is evaluated */
	assert_int_equal(f->r.verdict, 1);    /* a verdict: nothing correct */
	assert_null(f->r.source);
	agents_result_release(&f->r);
	f->opt.budget.max_tokens = 0;
	f->opt.budget.max_seconds = 1e-9;
	run(f);
	assert_string_equal(f->r.stopped_by, "max_search_time");
	assert_int_equal(f->r.model_calls, 0);
}

static void
test_refused_key_gives_no_verdict(void **state)
{
	struct fixture *f = *state;
	f->sc.fail_at = 1;
	f->sc.fail_status = LLM_E_AUTH;
	run(f);
	assert_int_equal(f->r.verdict, 0);
	assert_non_null(strstr(f->r.failure, "refused the key"));
	assert_null(f->r.source);
	assert_null(f->r.result_json);
	assert_int_equal(f->j.calls, 0);
}

static void
test_backend_failure_after_a_winner_keeps_it(void **state)
{
	struct fixture *f = *state;
	f->sc.fail_at = 3;
	f->sc.fail_status = LLM_E_SERVER;
	run(f);
	assert_int_equal(f->r.verdict, 1);
	assert_non_null(f->r.failure);
	assert_non_null(strstr(f->r.source, "seed-a fixed"));
}

static void
test_harness_failure_gives_no_verdict(void **state)
{
	struct fixture *f = *state;
	f->j.fail = 1;
	run(f);
	assert_int_equal(f->r.verdict, 0);
	assert_string_equal(f->r.failure, "the evaluation command failed");
}

static void
test_unusable_answers_go_back_to_the_debug_agent_with_the_reason(void **state)
{
	struct fixture *f = *state;
	for (int mode = 1; mode <= 2; mode++) {
		memset(&f->sc, 0, sizeof f->sc);
		memset(&f->j, 0, sizeof f->j);
		agents_result_release(&f->r);
		f->sc.bad_first = mode;
		f->opt.budget.max_model_calls = 2;
		run(f);
		/* the bad answer never reached the harness; the repaired one did */
		assert_int_equal(f->j.calls, 1);
		assert_non_null(f->r.source);
		assert_non_null(strstr(f->r.source, "unusable fixed"));
		const char *reason = mode == 1 ? "it must keep `void softmax_forward ( const float * x"
		                               : "has no code that defines softmax_forward";
		assert_non_null(strstr(f->sc.prompts.v[1], reason));
		assert_true(transcript_has(&f->r, "1/structure", "search", "note", reason));
		strvec_clear(&f->sc.prompts);
		strvec_clear(&f->sc.systems);
	}
}

static void
test_family_comes_from_the_lifter_then_from_words(void **state)
{
	struct fixture *f = *state;
	assert_string_equal(agents_family(f->b), "rows");
	free(f->b->target);
	f->b->target = egg_xstrdup("void my_sgemm(const float *a) { }");
	free(f->b->closure);
	f->b->closure = egg_xstrdup("");
	assert_string_equal(agents_family(f->b), "gemm");
	free(f->b->target);
	f->b->target = egg_xstrdup("void f(const float *a) { }");
	assert_string_equal(agents_family(f->b), "generic");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_stage_search_repairs_tunes_and_finds_the_winner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stage_two_prompts_carry_the_decision_not_the_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_call_budget_stops_the_search_and_keeps_the_best, setup, teardown),
		cmocka_unit_test_setup_teardown(test_candidate_budget_caps_the_variants_and_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_and_time_budgets_stop_the_search, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_key_gives_no_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_failure_after_a_winner_keeps_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_harness_failure_gives_no_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unusable_answers_go_back_to_the_debug_agent_with_the_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_family_comes_from_the_lifter_then_from_words, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
