/*
 * pipeline_verify.c -- the verify mode: a cached winner is used only after it
 * has been checked and timed again, against the reference, on this GPU.
 *
 * A winner was verified where it was found; a shared remote cache hands it to
 * machines with other GPUs of the same architecture (an H100 where an H200
 * found it), other drivers, other clocks.  Verify mode re-runs the harness on
 * the winner alone, exactly as the search evaluates candidates (here, or
 * through eval_command), and uses it only when it passes: correct on fresh
 * inputs and still faster than the reference.
 *
 * A winner that fails (wrong, slower, does not compile or crashes here) is
 * replaced in the LOCAL store by a negative entry that carries the
 * verification's result and the rejected source in its transcript, rather than
 * evicted: evicting would let the next lookup fetch the same winner from the
 * remote again and use it unchecked in cache mode, while the negative entry
 * answers every later build on this machine at once (the reference) and
 * `egg report KEY` still explains why.  It is not pushed to the remotes: one
 * machine's verdict does not overrule the machine that found the winner.
 * `egg cache clear` (or evict) lets a later search try again.
 *
 * When the evaluation itself does not happen (the harness or the evaluator
 * failed) nothing is learnt about the winner: it is not used for this build,
 * and the entry is left as it is.
 */
#include "config.h"
#include "plan/pipeline_verify.h"
#include "common/egg_config.h"
#include "plan/progress.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *
pipeline_evaluate(const struct pipeline_search_request *req, const struct run_candidate *cands,
                  size_t n, enum run_status *status)
{
	return pipeline_evaluate_with(req, cands, n, 0, status);
}

void *
pipeline_evaluate_with(const struct pipeline_search_request *req, const struct run_candidate *cands,
                       size_t n, int profile, enum run_status *status)
{
	struct run_options ro = { 0 };
	ro.profile = profile;
	ro.ncu = req->cfg ? egg_config_get(req->cfg, "ncu") : NULL;
	ro.nvcc = req->nvcc;
	ro.flags = req->flags;
	ro.n_flags = req->n_flags;
	ro.timeout_s = req->timeout_s;
	ro.gpu = req->gpu;
	ro.no_sandbox = req->cfg && !egg_config_bool(req->cfg, "sandbox");
	if (!req->eval_command) {
		struct progress p;
		progress_begin(&p, req->bundle->name);
		if (n > 0) /* not the self-check */
			ro.progress = (struct run_progress){ progress_event, &p };
		void *result = run_evaluate(req->bundle, cands, n, &ro, status);
		progress_end(&p);
		return result;
	}
	char *job = run_job_to_json(req->bundle, cands, n, req->flags, req->n_flags, &ro);
	double per = req->timeout_s > 0 ? req->timeout_s : 120;
	void *result = run_remote(req->eval_command, job, req->bundle->name, 600 + per * (double)(n + 1),
	                          status);
	free(job);
	return result;
}

static const char *
string_of(const cJSON *o, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

void
pipeline_verify(const struct pipeline_search_request *req, const struct cache_entry *e,
                struct pipeline_verification *v)
{
	memset(v, 0, sizeof *v);
	char *name = egg_xasprintf("cached winner %.12s", cache_entry_key(e));
	struct run_candidate cand = { name, cache_entry_source(e) };
	enum run_status status;
	cJSON *result = pipeline_evaluate(req, &cand, 1, &status);
	free(name);
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(result, "device");
	const char *gpu = string_of(dev, "name");
	snprintf(v->gpu, sizeof v->gpu, "%s", gpu ? gpu : "the GPU");
	const char *st = string_of(result, "status");
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "candidates"), 0);
	const char *verdict = string_of(c, "verdict");
	if (status != RUN_OK || !st || strcmp(st, "ok") != 0 || !verdict) {
		const char *msg = string_of(result, "message");
		v->verdict = PIPELINE_VERIFY_NO_VERDICT;
		snprintf(v->reason, sizeof v->reason, "%s",
		         msg ? msg : status == RUN_NO_GPU ? "no GPU" : "harness error");
		cJSON_Delete(result);
		return;
	}
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
	v->speedup = cJSON_IsNumber(sp) ? sp->valuedouble : 0;
	char *text = cJSON_PrintUnformatted(result);
	v->result_json = egg_xstrdup(text);
	cJSON_free(text);
	if (strcmp(verdict, "pass") == 0) {
		v->verdict = PIPELINE_VERIFIED;
	} else {
		const char *msg = string_of(c, "message");
		v->verdict = PIPELINE_VERIFY_FAILED;
		if (msg)
			snprintf(v->reason, sizeof v->reason, "%s: %s", verdict, msg);
		else if (v->speedup > 0)
			snprintf(v->reason, sizeof v->reason, "%s: %.2fx", verdict, v->speedup);
		else
			snprintf(v->reason, sizeof v->reason, "%s", verdict);
	}
	cJSON_Delete(result);
}

void
pipeline_verification_release(struct pipeline_verification *v)
{
	free(v->result_json);
	v->result_json = NULL;
}

static void
add_step(cJSON *t, const char *kind, const char *text)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "stage", "verify");
	cJSON_AddStringToObject(s, "kind", kind);
	cJSON_AddStringToObject(s, "text", text);
	cJSON_AddItemToArray(t, s);
}

/* e's transcript (an array; anything else kept as one note) with the steps of
 * the failed verification appended. */
static cJSON *
failed_transcript(const struct cache_entry *e, const struct pipeline_verification *v)
{
	struct strbuf sb = STRBUF_INIT;
	cache_entry_transcript_json(e, 0, &sb);
	cJSON *t = cJSON_Parse(sb.buf);
	if (!cJSON_IsArray(t)) {
		cJSON_Delete(t);
		t = cJSON_CreateArray();
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "stage", "search");
		cJSON_AddStringToObject(s, "kind", "note");
		cJSON_AddStringToObject(s, "text", sb.buf);
		cJSON_AddItemToArray(t, s);
	}
	strbuf_release(&sb);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "stage", "verify");
	cJSON_AddStringToObject(ev, "kind", "evaluation");
	cJSON_AddStringToObject(ev, "candidate", "cached winner");
	cJSON_AddStringToObject(ev, "verdict", v->reason);
	if (v->speedup > 0)
		cJSON_AddNumberToObject(ev, "speedup", v->speedup);
	cJSON_AddItemToArray(t, ev);
	char *d = egg_xasprintf("the cached winner failed verification on %s (%s); this machine "
	                        "compiles the reference until the entry is removed", v->gpu, v->reason);
	add_step(t, "decision", d);
	free(d);
	char *src = egg_xasprintf("the rejected winner:\n%s", cache_entry_source(e));
	add_step(t, "note", src);
	free(src);
	return t;
}

struct cache_entry *
pipeline_verify_failed_entry(const struct cache_entry *e, const struct pipeline_verification *v)
{
	cJSON *result = v->result_json ? cJSON_Parse(v->result_json) : cJSON_CreateObject();
	cJSON_AddStringToObject(result, "outcome", "verify failed");
	cJSON_AddStringToObject(result, "reason", v->reason);
	cJSON *t = failed_transcript(e, v);
	char *rj = cJSON_PrintUnformatted(result), *tj = cJSON_PrintUnformatted(t);
	struct cache_entry *n = cache_entry_new(cache_entry_key(e));
	struct cache_generator g = { cache_entry_generator_field(e, "backend"),
		                     cache_entry_generator_field(e, "model"),
		                     cache_entry_generator_field(e, "recipe") };
	struct strbuf err = STRBUF_INIT;
	if (cache_entry_name(e))
		cache_entry_set_name(n, cache_entry_name(e));
	cache_entry_set_generator(n, &g);
	cache_entry_set_negative(n);
	if (cache_entry_set_result(n, rj, &err) < 0 || cache_entry_set_transcript(n, tj, &err) < 0) {
		egg_warn("egg: %s: %s", cache_entry_name(e) ? cache_entry_name(e) : "?", err.buf);
		cache_entry_free(n);
		n = NULL;
	}
	strbuf_release(&err);
	cJSON_free(rj);
	cJSON_free(tj);
	cJSON_Delete(result);
	cJSON_Delete(t);
	return n;
}
