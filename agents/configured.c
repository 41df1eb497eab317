/*
 * configured.c -- the search as a build runs it: the backend, the prompts and
 * the budgets from egg's configuration (see agents_search_configured in
 * search.h).  The only file of the search that talks to the transport.
 */
#include "config.h"
#include "agents/prompts.h"
#include "agents/search.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

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
		rc = agents_search(b, llm_chat_client(c), ev, &opt, out, err);
		if (rc == 0)
			add_usage(out, llm_client_usage(c), llm_backend_name(set.backend));
	}
	cJSON_Delete(self);
	llm_client_free(c);
	return rc;
}
