/*
 * pipeline_regenerate.c -- regenerate = faster (egg.conf(5)): after an upgrade
 * of egg (or with another model or prompts), a search-mode build may search a
 * key again whose winner an older generator found, and replace that winner
 * only with something faster.
 *
 * "Faster" is decided inside one evaluation, on this GPU: the old winner is a
 * candidate of the new search (the builtin's batch), or, for a model backend,
 * whose search spans many evaluations, it meets the search's winner in a
 * run-off of the two.  Times from two evaluations (another day, another GPU of
 * the same architecture, another clock) are never compared.
 *
 * The outcomes:
 *   - a new candidate is faster: it becomes the entry (the new generator's,
 *     stored locally and in the remotes), its transcript saying what it replaced;
 *   - nothing new is faster (or the new generator found nothing at all): the
 *     old entry stays and records that this generator checked it ("checked",
 *     cache/entry.h), so the next build does not search again; the mark travels
 *     to the remotes with the entry, so other machines with this egg do not
 *     repeat the search either;
 *   - the old winner itself failed here (wrong, or no faster than the
 *     reference) and nothing new beat the reference: as in verify mode, this
 *     machine's verdict is kept locally only (the new generator's negative
 *     entry), never pushed over the machine that found the winner;
 *   - no verdict (no GPU, the harness failed): nothing is learnt; the old
 *     winner is used as it was.
 */
#include "config.h"
#include "plan/pipeline_regenerate.h"
#include "plan/pipeline_verify.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
pipeline_generator_label(const char *backend, const char *model, const char *recipe, char *buf,
                         size_t size)
{
	if (backend && strcmp(backend, "builtin") == 0 && recipe)
		snprintf(buf, size, "%.*s", (int)strcspn(recipe, " "), recipe);
	else
		snprintf(buf, size, "%s%s%s", backend ? backend : "an unknown generator", model ? " " : "",
		         model ? model : "");
}

/* Appends a step {stage: "regenerate", kind: "decision", text} to e's transcript
 * (a transcript that is not an array becomes the first element of one). */
static void
add_decision(struct cache_entry *e, const char *text)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_transcript_json(e, 0, &sb);
	cJSON *t = cJSON_Parse(sb.buf);
	if (!cJSON_IsArray(t)) {
		cJSON *a = cJSON_CreateArray();
		cJSON_AddItemToArray(a, t ? t : cJSON_CreateObject());
		t = a;
	}
	cJSON *step = cJSON_CreateObject();
	cJSON_AddStringToObject(step, "stage", "regenerate");
	cJSON_AddStringToObject(step, "kind", "decision");
	cJSON_AddStringToObject(step, "text", text);
	cJSON_AddItemToArray(t, step);
	char *json = cJSON_PrintUnformatted(t);
	cache_entry_set_transcript(e, json, &err); /* an array: cannot fail */
	cJSON_free(json);
	cJSON_Delete(t);
	strbuf_release(&sb);
	strbuf_release(&err);
}

/* A model search's winner e against the old winner, both in one evaluation:
 * fills out's incumbent_* fields and sets won / incumbent_best / speedup as a
 * batch with both in it would.  -1 when the run-off reached no verdict. */
static int
run_off(const struct pipeline_search_request *req, const struct cache_entry *e,
        struct pipeline_outcome *out)
{
	struct run_candidate two[2] = { { out->name[0] ? out->name : "new winner", cache_entry_source(e) },
		                        { req->incumbent_name, req->incumbent } };
	fprintf(stderr, "egg: %s: run-off: the new winner against the cached winner\n", req->bundle->name);
	enum run_status status;
	out->candidates += 2;
	cJSON *result = pipeline_evaluate(req, two, 2, &status);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(result, "status");
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(result, "best");
	int rc = -1;
	if (status == RUN_OK && cJSON_IsString(st) && strcmp(st->valuestring, "ok") == 0) {
		pipeline_note_incumbent(result, 1, out);
		out->incumbent_best = cJSON_IsNumber(best) && best->valueint == 1;
		out->won = cJSON_IsNumber(best);
		const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "candidates"),
		                                    cJSON_IsNumber(best) ? best->valueint : 0);
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
		out->speedup = out->won && cJSON_IsNumber(sp) ? sp->valuedouble : 0;
		rc = 0;
	}
	cJSON_Delete(result);
	return rc;
}

void
pipeline_regenerate(const struct pipeline_search_request *req, const struct cache_entry *old,
                    struct pipeline_regeneration *r)
{
	memset(r, 0, sizeof *r);
	pipeline_generator_label(cache_entry_generator_field(old, "backend"),
	                         cache_entry_generator_field(old, "model"),
	                         cache_entry_generator_field(old, "recipe"), r->old_generator,
	                         sizeof r->old_generator);
	char *name = egg_xasprintf("cached winner (%s)", r->old_generator);
	struct pipeline_search_request sr = *req;
	int builtin = strcmp(req->generator->backend, "builtin") == 0;
	sr.incumbent = cache_entry_source(old);
	sr.incumbent_name = name;
	struct pipeline_search_request batch = sr;
	if (!builtin)
		batch.incumbent = NULL; /* a model search meets it in the run-off */
	struct cache_entry *e = pipeline_search(&batch, &r->out);
	if (e && !builtin && r->out.won && run_off(&sr, e, &r->out) < 0) {
		egg_warn("egg: %s: the run-off against the cached winner reached no verdict; keeping it",
		         req->bundle->name);
		cache_entry_free(e);
		e = NULL;
	}
	char label[96];
	pipeline_generator_label(req->generator->backend, req->generator->model, req->generator->recipe,
	                         label, sizeof label);
	if (!e) {
		r->verdict = PIPELINE_REGEN_NO_VERDICT;
	} else if (r->out.won && !r->out.incumbent_best) {
		r->verdict = PIPELINE_REGEN_REPLACED;
		char *d = r->out.incumbent_evaluated
		                  ? egg_xasprintf("replaces the winner %s found (%s, %.2fx, in the same evaluation)",
		                                  r->old_generator, r->out.incumbent_verdict, r->out.incumbent_speedup)
		                  : egg_xasprintf("replaces the winner %s found", r->old_generator);
		add_decision(e, d);
		free(d);
		r->entry = e;
		e = NULL;
	} else if (r->out.incumbent_evaluated && !r->out.won) {
		r->verdict = PIPELINE_REGEN_OLD_FAILED;
		char *d = egg_xasprintf("the winner %s found failed here (%s) and nothing beat the reference",
		                        r->old_generator, r->out.incumbent_verdict);
		add_decision(e, d);
		free(d);
		r->entry = e;
		e = NULL;
	} else {
		r->verdict = PIPELINE_REGEN_KEPT;
		r->entry = cache_entry_dup(old);
		cache_entry_add_checked(r->entry, req->generator);
		char *d = r->out.incumbent_evaluated
		                  ? egg_xasprintf("%s searched again: this winner stayed the fastest (%.2fx in "
		                                  "the same evaluation as its candidates)", label,
		                                  r->out.incumbent_speedup)
		                  : egg_xasprintf("%s searched again and found nothing faster", label);
		add_decision(r->entry, d);
		free(d);
	}
	cache_entry_free(e);
	free(name);
}

void
pipeline_regeneration_release(struct pipeline_regeneration *r)
{
	cache_entry_free(r->entry);
	r->entry = NULL;
}
