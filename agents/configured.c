/*
 * configured.c -- the search as a build runs it: the backend, the prompts and
 * the budgets from egg's configuration (see agents_search_configured in
 * search.h).  The only file of the search that talks to the transport.
 */
#include "config.h"
#include "agents/prompts.h"
#include "agents/search.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

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
	int rc = agents_search(b, llm_chat_client(c), ev, &opt, out, err);
	llm_client_free(c);
	return rc;
}
