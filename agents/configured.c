/*
 * configured.c -- the search as a build runs it: the backend, the prompts and
 * the budgets from egg's configuration (see agents_search_configured in
 * search.h).  The only file of the search that talks to the transport.
 *
 * The chat function the search gets is the client's behind a guard that keeps
 * the backend's outage record (common/outage.h): a backend recorded as not
 * answering is not asked (the search keeps what the builtin found), a backend
 * that stops answering is recorded with one warning for the build, and one that
 * answers again clears the record.
 */
#include "config.h"
#include "agents/prompts.h"
#include "agents/search.h"
#include "common/fsutil.h"
#include "common/outage.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct guard {
	struct llm_client *c;
	const char *backend, *name; /* the kernel's, for the warning */
	char *dir;                  /* the outage records */
	int64_t skip_ms;
	int checked, recorded;
	int warned;                 /* the build has its warning: the caller adds none */
};

/* A failure that says the server is not answering at all. */
static int
is_stall(enum llm_status st)
{
	return st == LLM_E_TIMEOUT || st == LLM_E_NETWORK || st == LLM_E_DEADLINE;
}

static enum llm_status
guarded_chat(void *ctx, const struct llm_message *msgs, size_t n, struct llm_reply *out,
             struct strbuf *err)
{
	struct guard *g = ctx;
	const char *url = llm_client_endpoint(g->c);
	int64_t left;
	if (!g->checked++ && outage_skipping(g->dir, url, g->skip_ms, &left, &g->recorded)) {
		memset(out, 0, sizeof *out);
		strbuf_addf(err, "the %s backend did not answer an earlier compile of this build; "
		                 "not asked for %lld s more (skip_after_timeout)", g->backend,
		            (long long)(left + 999) / 1000);
		g->warned = 1;
		return LLM_E_TIMEOUT;
	}
	long stalls = llm_client_usage(g->c)->stalls;
	int64_t started = outage_now_ms();
	enum llm_status st = llm_chat(g->c, msgs, n, out, err);
	if (is_stall(st) && llm_client_usage(g->c)->stalls > stalls) {
		if (outage_record(g->dir, url, g->skip_ms, started))
			egg_warn("egg: %s: the model backend is not answering (%s); the build's later "
			         "kernels skip it for %lld s", g->name, err->buf,
			         (long long)g->skip_ms / 1000);
		g->warned = 1;
		/* a server that stopped answering: a failure (no negative entry), even
		 * when the budget ran out meanwhile */
		st = LLM_E_TIMEOUT;
	} else if (!is_stall(st) && g->recorded) {
		outage_clear(g->dir, url); /* it answers again */
		g->recorded = 0;
	}
	return st;
}

/* The transport's own accounting (HTTP requests, retries, time, cost) as the
 * transcript's last note: the search counts model calls, the client every
 * request it sent. */
static void
add_usage(struct agents_result *out, const struct llm_usage *u, const char *backend)
{
	cJSON *t = cJSON_Parse(out->transcript);
	if (!cJSON_IsArray(t)) {
		cJSON_Delete(t);
		return;
	}
	char *text = egg_xasprintf("%s backend: %ld requests (%ld retries), %ld input and %ld output "
	                           "tokens, %.1f s, cost %s%.4f USD", backend, u->requests, u->retries,
	                           u->input_tokens, u->output_tokens, u->seconds,
	                           u->cost_usd > 0 ? "" : "unknown, ", u->cost_usd);
	const cJSON *last = cJSON_GetArrayItem(t, cJSON_GetArraySize(t) - 1);
	const char *stage = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(last, "stage"));
	cJSON *st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", stage ? stage : "1/structure");
	cJSON_AddStringToObject(st, "role", "search");
	cJSON_AddStringToObject(st, "kind", "note");
	cJSON_AddStringToObject(st, "text", text);
	cJSON_AddItemToArray(t, st);
	char *json = cJSON_PrintUnformatted(t);
	free(out->transcript);
	out->transcript = egg_xstrdup(json);
	cJSON_free(json);
	cJSON_Delete(t);
	free(text);
}

int
agents_search_configured(const struct egg_config *cfg, const struct egg_bundle *b,
                         struct agents_evaluator ev, struct agents_result *out, struct strbuf *err)
{
	struct llm_settings set;
	char *key_buf = NULL;
	memset(out, 0, sizeof *out);
	if (llm_settings_from_config(cfg, &set, &key_buf, err) < 0)
		return -1;
	struct llm_client *c = llm_client_new(&set, err);
	if (key_buf) { /* the client keeps its own copy */
		memset(key_buf, 0, strlen(key_buf));
		free(key_buf);
	}
	if (!c)
		return -1;
	struct guard g = { c, llm_backend_name(set.backend), b->name, NULL, 0, 0, 0, 0 };
	const char *cache_dir = egg_config_get(cfg, "cache_dir");
	g.dir = fs_join(cache_dir && *cache_dir ? cache_dir : ".", "outages");
	g.skip_ms = (int64_t)egg_config_seconds(cfg, "skip_after_timeout") * 1000;
	struct agents_options opt = { 0 };
	opt.prompts_dir = prompts_dir_from_config(cfg);
	opt.repair_rounds = -1;
	opt.budget.max_model_calls = (long)egg_config_count(cfg, "max_model_calls");
	opt.budget.max_tokens = (long)egg_config_count(cfg, "max_tokens");
	opt.budget.max_seconds = (double)egg_config_seconds(cfg, "max_search_time");
	opt.budget.max_candidates = (long)egg_config_count(cfg, "max_candidates");
	opt.prompt_chars = (size_t)egg_config_count(cfg, "max_prompt_chars");
	const char *stop = egg_config_get(cfg, "roofline_stop");
	char *end = NULL;
	opt.stop_fraction = stop ? strtod(stop, &end) : 0.9;
	if (stop && (end == stop || *end || !(opt.stop_fraction >= 0 && opt.stop_fraction <= 1))) {
		egg_warn("roofline_stop = %s is not a fraction from 0 to 1; using 0.9", stop);
		opt.stop_fraction = 0.9;
	}
	enum run_status st = RUN_ERROR;
	cJSON *self = ev.evaluate(ev.ctx, NULL, 0, &st);
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(self, "status"));
	int rc = 0;
	if (st != RUN_OK || !status || strcmp(status, "ok") != 0) {
		const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(self, "message"));
		out->failure = egg_xasprintf("the reference's self-check failed: %s",
		                             msg ? msg : st == RUN_NO_GPU ? "no GPU" : "no result");
	} else {
		opt.device = cJSON_GetObjectItemCaseSensitive(self, "device");
		opt.ceilings = cJSON_GetObjectItemCaseSensitive(self, "ceilings");
		opt.reference = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(self, "candidates"), 0);
		if (opt.budget.max_seconds > 0) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			llm_client_set_deadline(c, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 +
			                           opt.budget.max_seconds);
		}
		struct llm_chat_fn chat = { guarded_chat, &g };
		rc = agents_search(b, chat, ev, &opt, out, err);
		if (rc == 0) {
			add_usage(out, llm_client_usage(c), llm_backend_name(set.backend));
			out->failure_warned = g.warned && out->failure != NULL;
		}
	}
	cJSON_Delete(self);
	llm_client_free(c);
	free(g.dir);
	return rc;
}
