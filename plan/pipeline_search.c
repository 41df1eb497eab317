/*
 * pipeline_search.c -- a cache miss in search mode: generate, evaluate, decide.
 *
 * The builtin generator plays both stages of the method at once: lifting picks
 * the structure (stage 1: the family's recipe -- fused pass, warp or block per
 * row, two-pass or atomic reduction) and each recipe's parameter points are the
 * hardware tuning of stage 2 (threads per block, vector width, accesses in
 * flight).  The harness evaluates every candidate against the reference on this
 * GPU; the fastest correct one that beats the reference wins, and "nothing beat
 * the reference" (or "not lifted") is stored as a negative entry so that the next
 * build does not search again.  No entry is stored when no verdict could be
 * reached (no GPU, the harness itself failed): a later build may try again.
 *
 * The whole evaluation result and a transcript of the decisions go into the
 * entry, so `egg cache show` explains every winner.
 */
#include "config.h"
#include "plan/pipeline_search.h"
#include "plan/pipeline_verify.h"
#include "agents/search.h"
#include "builtin/builtin.h"
#include "common/egg_config.h"
#include "common/util.h"
#include "harness/run.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One progress line, as the spec shows them: "egg: NAME: ...". */
static void
progress(const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = egg_xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "egg: %s: %s\n", name, msg);
	fflush(stderr);
	free(msg);
}

/* The recipe names of the candidates ("rows, elementwise"), for the stage line. */
static char *
families(const struct builtin_output *o)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < o->n_candidates; i++) {
		const char *label = o->candidates[i].label;
		size_t n = strcspn(label, " ");
		char *fam = egg_xstrndup(label, n);
		if (!strstr(sb.buf, fam))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", fam);
		free(fam);
	}
	return strbuf_detach(&sb);
}

static void
add_transcript(cJSON *t, const char *stage, const char *decision)
{
	cJSON *step = cJSON_CreateObject();
	cJSON_AddStringToObject(step, "stage", stage);
	cJSON_AddStringToObject(step, "decision", decision);
	cJSON_AddItemToArray(t, step);
}

static struct cache_entry *
finish_entry(const char *key, const struct egg_bundle *b, const struct cache_generator *gen,
             const char *source, const char *result_json, cJSON *transcript)
{
	struct cache_entry *e = cache_entry_new(key);
	struct strbuf err = STRBUF_INIT;
	cache_entry_set_name(e, b->name);
	cache_entry_set_generator(e, gen);
	if (source)
		cache_entry_set_source(e, source);
	else
		cache_entry_set_negative(e);
	char *t = cJSON_PrintUnformatted(transcript);
	if (cache_entry_set_result(e, result_json, &err) < 0 ||
	    cache_entry_set_transcript(e, t, &err) < 0) {
		egg_warn("egg: %s: %s", b->name, err.buf);
		cache_entry_free(e);
		e = NULL;
	}
	cJSON_free(t);
	strbuf_release(&err);
	return e;
}

void
pipeline_note_incumbent(const void *result, size_t index, struct pipeline_outcome *out)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "candidates"), (int)index);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "verdict");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
	if (!cJSON_IsString(v))
		return;
	out->incumbent_evaluated = 1;
	snprintf(out->incumbent_verdict, sizeof out->incumbent_verdict, "%s", v->valuestring);
	out->incumbent_speedup = cJSON_IsNumber(sp) ? sp->valuedouble : 0;
}

/* pipeline_evaluate in the shape of struct agents_evaluator. */
static void *
evaluate(void *ctx, const struct run_candidate *cands, size_t n, enum run_status *status)
{
	return pipeline_evaluate(ctx, cands, n, status);
}

/* The agents' ncu profile of one candidate (agents/search.h): NULL where this
 * machine evaluates and has no ncu, so that nothing is compiled for nothing; a
 * remote evaluator is asked (its own ncu setting decides). */
static void *
profile(void *ctx, const struct run_candidate *cand, enum run_status *status)
{
	const struct pipeline_search_request *req = ctx;
	if (!req->eval_command) {
		struct run_options ro = { 0 };
		ro.nvcc = req->nvcc;
		ro.ncu = req->cfg ? egg_config_get(req->cfg, "ncu") : NULL;
		char *ncu = run_find_ncu(&ro);
		if (!ncu)
			return NULL;
		free(ncu);
	}
	return pipeline_evaluate_with(req, cand, 1, 1, status);
}

/* A model backend's staged search (agents/search.h): the entry is made as for
 * the builtin, a winner or a negative one; no verdict (the backend refused or
 * could not be reached, the harness failed) gives one warning and no entry. */
static struct cache_entry *
search_with_model(const struct pipeline_search_request *req, struct pipeline_outcome *out)
{
	const struct egg_bundle *b = req->bundle;
	struct agents_evaluator ev = { evaluate, (void *)req, profile };
	struct agents_result r;
	struct strbuf err = STRBUF_INIT;
	struct cache_entry *e = NULL;
	if (agents_search_configured(req->cfg, b, ev, &r, &err) < 0) {
		egg_warn("egg: %s: %s; compiling the reference", b->name, err.buf);
	} else if (!r.verdict) {
		if (!r.failure_warned) /* else the backend's outage was the build's one warning */
			egg_warn("egg: %s: no verdict (%s); compiling the reference", b->name,
			         r.failure ? r.failure : r.stopped_by ? "a budget ran out before any "
			                                                "evaluation"
			                                              : "nothing was evaluated");
	} else {
		out->candidates = (size_t)r.candidates;
		cJSON *transcript = cJSON_Parse(r.transcript);
		snprintf(out->gpu, sizeof out->gpu, "%s", r.gpu);
		out->won = r.source != NULL;
		out->speedup = r.speedup;
		snprintf(out->name, sizeof out->name, "%s", r.name ? r.name : "");
		e = finish_entry(req->key, b, req->generator, r.source, r.result_json, transcript);
		cJSON_Delete(transcript);
	}
	agents_result_release(&r);
	strbuf_release(&err);
	return e;
}

struct cache_entry *
pipeline_search(const struct pipeline_search_request *req, struct pipeline_outcome *out)
{
	const struct egg_bundle *b = req->bundle;
	memset(out, 0, sizeof *out);
	if (strcmp(req->generator->backend, "builtin") != 0)
		return search_with_model(req, out);
	cJSON *transcript = cJSON_CreateArray();
	struct builtin_output gen;
	struct builtin_options opt = { NULL, 0 };
	struct strbuf err = STRBUF_INIT;
	struct cache_entry *e = NULL;
	if (builtin_generate(b, &opt, &gen, &err) < 0) {
		egg_warn("egg: %s: the builtin generator failed: %s; compiling the reference", b->name, err.buf);
		goto done;
	}
	if (gen.not_lifted || gen.n_candidates == 0) {
		char *why = egg_xasprintf("not lifted: %s", gen.not_lifted ? gen.not_lifted : "no candidate");
		progress(b->name, "stage 1/structure: %s; keeping the reference", why);
		add_transcript(transcript, "1/structure", why);
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "outcome", "not lifted");
		cJSON_AddStringToObject(r, "reason", why);
		char *rj = cJSON_PrintUnformatted(r);
		e = finish_entry(req->key, b, req->generator, NULL, rj, transcript);
		cJSON_free(rj);
		cJSON_Delete(r);
		free(why);
		goto done;
	}
	char *fams = families(&gen);
	progress(b->name, "stage 1/structure: lifted (%s)", fams);
	char *s1 = egg_xasprintf("lifted; structures: %s", fams);
	add_transcript(transcript, "1/structure", s1);
	free(s1);
	if (gen.description)
		add_transcript(transcript, "1/description", gen.description);
	free(fams);

	size_t n = gen.n_candidates + (req->incumbent ? 1 : 0);
	struct run_candidate *cands = egg_xcalloc(n, sizeof *cands);
	for (size_t i = 0; i < gen.n_candidates; i++) {
		cands[i].name = gen.candidates[i].label;
		cands[i].source = gen.candidates[i].source;
	}
	if (req->incumbent)
		cands[n - 1] = (struct run_candidate){ req->incumbent_name, req->incumbent };
	progress(b->name, "stage 2/tuning: evaluating %zu candidates against the reference%s", n,
	         req->incumbent ? ", the cached winner among them" : "");
	enum run_status status;
	out->candidates = n;
	cJSON *result = pipeline_evaluate(req, cands, n, &status);
	free(cands);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(result, "status");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(result, "message");
	if (status != RUN_OK || !cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0) {
		egg_warn("egg: %s: no verdict (%s); compiling the reference", b->name,
		         cJSON_IsString(msg) ? msg->valuestring : status == RUN_NO_GPU ? "no GPU" : "harness error");
		cJSON_Delete(result);
		goto done;
	}
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(result, "best");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(result, "device");
	const cJSON *devname = cJSON_GetObjectItemCaseSensitive(dev, "name");
	snprintf(out->gpu, sizeof out->gpu, "%s", cJSON_IsString(devname) ? devname->valuestring : "the GPU");
	char *rj = cJSON_PrintUnformatted(result);
	if (req->incumbent)
		pipeline_note_incumbent(result, n - 1, out);
	if (cJSON_IsNumber(best) && best->valueint >= 0 && (size_t)best->valueint < n) {
		size_t k = (size_t)best->valueint;
		const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "candidates"), (int)k);
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
		const char *label = k < gen.n_candidates ? gen.candidates[k].label : req->incumbent_name;
		out->speedup = cJSON_IsNumber(sp) ? sp->valuedouble : 0;
		out->won = 1;
		out->incumbent_best = k == gen.n_candidates;
		snprintf(out->name, sizeof out->name, "%s", label);
		char *d = egg_xasprintf("winner: %s, %.2fx over the reference on %s", label, out->speedup, out->gpu);
		add_transcript(transcript, "2/tuning", d);
		free(d);
		progress(b->name, "stage 2/tuning: %zu/%zu candidates, best %.1fx (%s)", n, n, out->speedup, label);
		e = finish_entry(req->key, b, req->generator,
		                 k < gen.n_candidates ? gen.candidates[k].source : req->incumbent, rj, transcript);
	} else {
		add_transcript(transcript, "2/tuning", "no candidate was correct and faster than the reference");
		progress(b->name, "stage 2/tuning: %zu/%zu candidates, none beat the reference", n, n);
		e = finish_entry(req->key, b, req->generator, NULL, rj, transcript);
	}
	cJSON_free(rj);
	cJSON_Delete(result);
done:
	builtin_output_release(&gen);
	cJSON_Delete(transcript);
	strbuf_release(&err);
	return e;
}
