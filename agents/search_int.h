/*
 * search_int.h -- the state of one search, shared by search.c (the stages) and
 * search_step.c (one model call, one evaluation, one attempt with its repairs).
 * Internal to agents/.
 */
#ifndef EGG_AGENTS_SEARCH_INT_H
#define EGG_AGENTS_SEARCH_INT_H

#include <cjson/cJSON.h>

#include "agents/context.h"
#include "agents/prompts.h"
#include "agents/search.h"

struct search {
	const struct egg_bundle *b;
	struct llm_chat_fn chat;
	struct agents_evaluator ev;
	struct agents_options opt;  /* defaults filled in */
	struct prompts *pr;
	const char *family;
	struct strvec directions;
	cJSON *device, *ceilings;   /* owned copies; NULL until known */
	struct strbuf reference;    /* the reference's measurements, as text */
	struct strbuf baseline;     /* the builtin's best (stage 0), as text; empty: none */
	cJSON *transcript;
	cJSON *result;              /* every candidate evaluated; NULL before the first */
	long calls, tok_in, tok_out, evaluated;
	double t0;
	const char *stopped;        /* the budget that ran out, or NULL */
	char *failure;              /* backend or harness failure, or NULL */
	int best;                   /* index in result of the best passing candidate, or -1 */
	double best_speedup;
	char *best_source, *best_name;
	const char *stage;          /* "1/structure", "2/mapping", ...: progress and transcript */
	int system_sent;            /* the system prompt is in the transcript once */
	char *ncu_name, *ncu_text;  /* the last candidate profiled with ncu, and its table */
};

/* One candidate's fate: its best variant. */
struct outcome {
	int index;       /* in s->result, or -1 when it never reached the harness */
	char *name;
	char *source;    /* with the chosen variant's #define lines */
	char *verdict;   /* the harness's, or "unusable" (egg could not use the answer) */
	double speedup;
	char *why;       /* the agent's own one line about it */
};

void outcome_release(struct outcome *o);
void outcome_move(struct outcome *dst, struct outcome *src);

/* Appends a transcript step; candidate, verdict may be NULL, speedup < 0 and
 * tokens < 0 leave those members out. */
void search_step(struct search *s, const char *stage, const char *role, const char *kind,
                 const char *text, const char *candidate, const char *verdict, double speedup,
                 long tok_in, long tok_out);
void search_progress(struct search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 while the search may go on (no failure, no budget spent); records the
 * budget that stops it, once.  Before an evaluation (to_ask 0) the model-call
 * and token budgets do not count: an answer already paid for is evaluated. */
int search_may_go_on(struct search *s, int to_ask);

/* Stops the search for the budget key ("max_search_time"), what being its
 * name in words and when what it was doing (" waiting for the model", or ""):
 * the transcript's note and one progress line. */
void search_stop(struct search *s, const char *key, const char *what, const char *when);

/* One call to the model: the role's template (template_role) rendered with v
 * and h under the prompt budget, after the system prompt.  Returns the answer
 * (caller frees) or NULL when the search must stop. */
char *search_ask(struct search *s, const char *role, const char *template_role,
                 const struct prompt_vars *v, const struct history *h);

/* Evaluates cands in one harness call (their names are the transcript's):
 * records each verdict, keeps the search's best, fills o with the fastest
 * correct one.  Returns -1 when the search must stop. */
int search_judge(struct search *s, const struct run_candidate *cands, size_t n, const char *why,
                 struct outcome *o);

/* Writes a candidate from the code agent's prompt, evaluates it (with its
 * tunable variants) and repairs it through the debug agent when it fails;
 * every evaluated round goes into h.  Returns 0 with o filled (o->index -1 when
 * no round reached the harness), or -1 when the search must stop (o holds what
 * was reached). */
int search_attempt(struct search *s, const char *template_role, const struct prompt_vars *v,
                   struct history *h, const char *name, struct outcome *o);

#endif
