/*
 * search_step.c -- the search's moves: one model call (search_ask), one
 * evaluation of a candidate and its tunable variants, one attempt with its
 * debug rounds (search_attempt).  See search.h for the method and search.c for
 * the stages that use them.
 *
 * Every move first asks search_may_go_on, so a spent budget stops the search
 * between two moves and never in the middle of one; every move writes its
 * transcript steps itself so that the transcript is complete whatever stops it.
 */
#include "config.h"
#include "agents/extract.h"
#include "agents/measure.h"
#include "agents/search_int.h"
#include "agents/tune.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
outcome_release(struct outcome *o)
{
	free(o->name);
	free(o->source);
	free(o->verdict);
	free(o->why);
	memset(o, 0, sizeof *o);
	o->index = -1;
}

void
outcome_move(struct outcome *dst, struct outcome *src)
{
	outcome_release(dst);
	*dst = *src;
	memset(src, 0, sizeof *src);
	src->index = -1;
}

void
search_step(struct search *s, const char *stage, const char *role, const char *kind,
            const char *text, const char *candidate, const char *verdict, double speedup,
            long tok_in, long tok_out)
{
	cJSON *st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", stage);
	cJSON_AddStringToObject(st, "role", role);
	cJSON_AddStringToObject(st, "kind", kind);
	cJSON_AddStringToObject(st, "text", text ? text : "");
	if (candidate)
		cJSON_AddStringToObject(st, "candidate", candidate);
	if (verdict)
		cJSON_AddStringToObject(st, "verdict", verdict);
	if (speedup >= 0)
		cJSON_AddNumberToObject(st, "speedup", speedup);
	if (tok_in >= 0) {
		cJSON *t = cJSON_AddObjectToObject(st, "tokens");
		cJSON_AddNumberToObject(t, "in", (double)tok_in);
		cJSON_AddNumberToObject(t, "out", (double)tok_out);
	}
	cJSON_AddItemToArray(s->transcript, st);
}

void
search_progress(struct search *s, const char *fmt, ...)
{
	if (s->opt.quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = egg_xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "egg: %s: %s\n", s->b->name, msg);
	fflush(stderr);
	free(msg);
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
search_may_go_on(struct search *s, int to_ask)
{
	if (s->failure)
		return 0;
	if (s->stopped)
		return 0;
	const struct agents_budget *bu = &s->opt.budget;
	const char *key = NULL, *what = NULL;
	if (to_ask && bu->max_model_calls > 0 && s->calls >= bu->max_model_calls)
		key = "max_model_calls", what = "the model-call budget";
	else if (to_ask && bu->max_tokens > 0 && s->tok_in + s->tok_out >= bu->max_tokens)
		key = "max_tokens", what = "the token budget";
	else if (bu->max_seconds > 0 && now() - s->t0 >= bu->max_seconds)
		key = "max_search_time", what = "the time budget";
	else if (bu->max_candidates > 0 && s->evaluated >= bu->max_candidates)
		key = "max_candidates", what = "the candidate budget";
	if (!key)
		return 1;
	search_stop(s, key, what, "");
	return 0;
}

void
search_stop(struct search *s, const char *key, const char *what, const char *when)
{
	s->stopped = key;
	char *text = egg_xasprintf("stopped: %s ran out%s (%s); keeping the best so far", what, when,
	                           key);
	search_step(s, s->stage, "search", "note", text, NULL, NULL, -1, -1, 0);
	search_progress(s, "%s", text);
	free(text);
}

char *
search_ask(struct search *s, const char *role, const char *template_role,
           const struct prompt_vars *v, const struct history *h)
{
	if (!search_may_go_on(s, 1))
		return NULL;
	const char *tmpl = prompts_role(s->pr, template_role);
	char *sys = prompts_render(prompts_role(s->pr, "system"), v->names, v->values, v->n);
	size_t room = s->opt.prompt_chars > strlen(sys) + 1000 ? s->opt.prompt_chars - strlen(sys) : 1000;
	char *user = context_fit(tmpl, v, h, room);
	if (!s->system_sent++)
		search_step(s, s->stage, "search", "prompt", sys, NULL, NULL, -1, -1, 0);
	search_step(s, s->stage, role, "prompt", user, NULL, NULL, -1, -1, 0);
	struct llm_message msgs[2] = { { LLM_SYSTEM, sys }, { LLM_USER, user } };
	struct llm_reply reply = { 0 };
	struct strbuf err = STRBUF_INIT;
	s->calls++;
	enum llm_status st = s->chat.chat(s->chat.ctx, msgs, 2, &reply, &err);
	char *answer = NULL;
	if (st == LLM_E_DEADLINE) {
		/* the model's time is the kernel's budget: a stop, not a failure */
		search_stop(s, "max_search_time", "the time budget", " waiting for the model");
	} else if (st != LLM_OK) {
		s->failure = egg_xasprintf("%s", err.len ? err.buf : llm_status_name(st));
		search_step(s, s->stage, "search", "note", s->failure, NULL, NULL, -1, -1, 0);
	} else {
		/* servers that report no usage: about four characters a token */
		long in = reply.input_tokens > 0 ? reply.input_tokens : (long)((strlen(sys) + strlen(user)) / 4);
		long out = reply.output_tokens > 0 ? reply.output_tokens : (long)(strlen(reply.text) / 4);
		s->tok_in += in;
		s->tok_out += out;
		search_step(s, s->stage, role, "response", reply.text, NULL, NULL, -1, in, out);
		answer = egg_xstrdup(reply.text);
		llm_reply_release(&reply);
	}
	strbuf_release(&err);
	free(sys);
	free(user);
	return answer;
}

/* Adds a result's candidates to the search's result; returns the index of the
 * first.  The first result also gives the header and the device profile. */
static int
merge_result(struct search *s, cJSON *res)
{
	cJSON *list = cJSON_DetachItemFromObject(res, "candidates");
	if (!s->result) {
		s->result = cJSON_Duplicate(res, 1);
		cJSON_AddItemToObject(s->result, "candidates", cJSON_CreateArray());
		cJSON_ReplaceItemInObject(s->result, "best", cJSON_CreateNull());
	}
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(res, "device");
	const cJSON *ceil = cJSON_GetObjectItemCaseSensitive(res, "ceilings");
	if (!s->device && cJSON_IsObject(dev))
		s->device = cJSON_Duplicate(dev, 1);
	if (!s->ceilings && cJSON_IsObject(ceil))
		s->ceilings = cJSON_Duplicate(ceil, 1);
	cJSON *all = cJSON_GetObjectItemCaseSensitive(s->result, "candidates");
	int first = cJSON_GetArraySize(all);
	cJSON *c;
	while (list && (c = cJSON_DetachItemFromArray(list, 0)) != NULL)
		cJSON_AddItemToArray(all, c);
	cJSON_Delete(list);
	return first;
}

/* Evaluates cands in one harness call: merges the result, records each verdict,
 * keeps the search's best, fills o with the fastest correct one.  Returns -1
 * when the search must stop. */
int
search_judge(struct search *s, const struct run_candidate *cands, size_t n, const char *why,
             struct outcome *o)
{
	enum run_status status = RUN_ERROR;
	cJSON *res = s->ev.evaluate(s->ev.ctx, cands, n, &status);
	const char *st = measure_str(res, "status", "error");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(res, "candidates");
	int rc = 0;
	if (status != RUN_OK || strcmp(st, "ok") != 0 || cJSON_GetArraySize(list) != (int)n) {
		s->failure = egg_xasprintf("%s", measure_str(res, "message", status == RUN_NO_GPU ? "no GPU" :
		                                             "the evaluation gave no verdict"));
		search_step(s, s->stage, "search", "note", s->failure, n ? cands[0].name : NULL, NULL, -1, -1, 0);
		rc = -1;
		goto done;
	}
	int first = merge_result(s, res);
	s->evaluated += (long)n;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(s->result, "candidates");
	size_t pick = 0;
	double pick_sp = -1;
	for (size_t i = 0; i < n; i++) {
		const cJSON *c = cJSON_GetArrayItem(all, first + (int)i);
		const char *v = measure_str(c, "verdict", "error");
		double sp = measure_num(c, "speedup", 0);
		const char *msg = measure_str(c, "message", NULL);
		char *text = msg ? egg_xstrdup(msg) : sp > 0 ? egg_xasprintf("%s, %.2fx", v, sp) : egg_xstrdup(v);
		search_step(s, s->stage, "search", "evaluation", text, cands[i].name, v, sp, -1, 0);
		free(text);
		if (measure_is_correct(v) && sp > pick_sp) {
			pick = i;
			pick_sp = sp;
		}
		if (strcmp(v, "pass") == 0 && sp > s->best_speedup) {
			s->best = first + (int)i;
			s->best_speedup = sp;
			free(s->best_source);
			free(s->best_name);
			s->best_source = egg_xstrdup(cands[i].source);
			s->best_name = egg_xstrdup(cands[i].name);
		}
	}
	if (n) {
		const cJSON *c = cJSON_GetArrayItem(all, first + (int)pick);
		outcome_release(o);
		o->index = first + (int)pick;
		o->name = egg_xstrdup(cands[pick].name);
		o->source = egg_xstrdup(cands[pick].source);
		o->verdict = egg_xstrdup(measure_str(c, "verdict", "error"));
		o->speedup = measure_num(c, "speedup", 0);
		o->why = egg_xstrdup(why ? why : "");
	}
	char of[32] = "";
	if (s->opt.budget.max_candidates > 0)
		snprintf(of, sizeof of, "/%ld", s->opt.budget.max_candidates);
	if (s->best >= 0)
		search_progress(s, "stage %s: %ld%s candidates, best %.1fx", s->stage, s->evaluated, of,
		                s->best_speedup);
	else
		search_progress(s, "stage %s: %ld%s candidates, none faster yet", s->stage, s->evaluated, of);
done:
	cJSON_Delete(res);
	return rc;
}

/* Evaluates code (and its tunable variants) as candidate name; fills o with
 * the best variant.  Returns -1 when the search must stop. */
static int
evaluate(struct search *s, const char *name, const char *code, const char *why, struct outcome *o)
{
	if (!search_may_go_on(s, 0)) /* an answer already paid for is still evaluated */
		return -1;
	size_t cap = (size_t)s->opt.max_variants;
	if (s->opt.budget.max_candidates > 0 && (size_t)(s->opt.budget.max_candidates - s->evaluated) < cap)
		cap = (size_t)(s->opt.budget.max_candidates - s->evaluated);
	struct strvec notes = STRVEC_INIT;
	struct tune_variant *vars;
	size_t n;
	if (s->b->kind == BUNDLE_KERNEL) {
		/* only a kernel's body replaces the reference's: no room for #defines */
		n = 1;
		vars = egg_xcalloc(1, sizeof *vars);
		vars[0].label = egg_xstrdup("");
		vars[0].source = egg_xstrdup(code);
	} else {
		n = tune_expand(code, cap, &vars, &notes);
	}
	for (size_t i = 0; i < notes.n; i++)
		search_step(s, "tune", "search", "note", notes.v[i], name, NULL, -1, -1, 0);
	strvec_clear(&notes);
	struct run_candidate *cands = egg_xcalloc(n, sizeof *cands);
	char **names = egg_xcalloc(n, sizeof *names);
	for (size_t i = 0; i < n; i++) {
		names[i] = vars[i].label[0] ? egg_xasprintf("%s [%s]", name, vars[i].label) : egg_xstrdup(name);
		cands[i] = (struct run_candidate){ names[i], vars[i].source };
	}
	if (n > 1) {
		char *t = egg_xasprintf("%zu tunable variants of %s, one harness call", n, name);
		search_step(s, "tune", "search", "note", t, name, NULL, -1, -1, 0);
		free(t);
	}
	int rc = search_judge(s, cands, n, why, o);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(cands);
	tune_variants_free(vars, n);
	return rc;
}

/* The agent's one line about its answer: the first non-blank line outside
 * code fences. */
static char *
summary_line(const char *answer)
{
	int in_fence = 0;
	for (const char *p = answer; *p;) {
		size_t n = strcspn(p, "\n");
		const char *q = p;
		while (*q == ' ' && q < p + n)
			q++;
		if (strncmp(q, "```", 3) == 0)
			in_fence = !in_fence;
		else if (!in_fence && q < p + n) {
			char *line = context_one_line(q, 200);
			size_t len = strlen(line);
			while (len && (line[len - 1] == '.' || line[len - 1] == ':'))
				line[--len] = '\0'; /* it goes inside sentences */
			return line;
		}
		p += n + (p[n] == '\n');
	}
	return egg_xstrdup("");
}

/* The code in an answer, checked: NULL with the reason in why. */
static char *
usable_code(struct search *s, const char *answer, struct strbuf *why)
{
	char *code = extract_code(answer, s->b->name, why);
	if (code && extract_check_signature(code, s->b, why) < 0) {
		free(code);
		code = NULL;
	}
	return code;
}

int
search_attempt(struct search *s, const char *template_role, const struct prompt_vars *v,
               struct history *h, const char *name, struct outcome *o)
{
	const char *stage = s->stage;
	char *answer = search_ask(s, "code", template_role, v, h);
	char *cur_name = egg_xstrdup(name);
	int rc = 0;
	for (int round = 0; answer; round++) {
		struct strbuf why = STRBUF_INIT, evidence = STRBUF_INIT;
		char *code = usable_code(s, answer, &why);
		char *line = summary_line(answer);
		struct outcome got = { .index = -1 };
		if (!code) {
			search_step(s, s->stage, "search", "note", why.buf, cur_name, "unusable", -1, -1, 0);
			history_add(h, cur_name, "unusable", 0, why.buf);
			strbuf_addf(&evidence, "egg could not use the answer: %s\n", why.buf);
			got.name = egg_xstrdup(cur_name);
			got.verdict = egg_xstrdup("unusable");
			got.why = egg_xstrdup(line);
		} else if (evaluate(s, cur_name, code, line, &got) < 0) {
			rc = -1;
		} else {
			const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->result, "candidates"),
			                                    got.index);
			history_add(h, got.name, got.verdict, got.speedup, line);
			measure_evidence(c, &evidence);
		}
		if (got.verdict && (o->index < 0 || got.index >= 0))
			outcome_move(o, &got);
		outcome_release(&got);
		free(line);
		free(answer);
		answer = NULL;
		int repair = rc == 0 && o->verdict && (strcmp(o->verdict, "unusable") == 0 ||
		                                       measure_needs_repair(o->verdict));
		if (repair && round < s->opt.repair_rounds) {
			struct prompt_vars dv = *v;
			char *failed = code ? code : egg_xstrdup("(no usable code)");
			prompt_vars_set(&dv, "candidate", failed);
			prompt_vars_set(&dv, "evidence", evidence.buf);
			s->stage = "debug";
			answer = search_ask(s, "debug", "debug", &dv, h);
			s->stage = stage;
			if (failed != code)
				free(failed);
			free(cur_name);
			cur_name = egg_xasprintf("%s-fix%d", name, round + 1);
		}
		free(code);
		strbuf_release(&why);
		strbuf_release(&evidence);
	}
	free(cur_name);
	return rc < 0 || s->failure || s->stopped ? -1 : 0;
}
