/*
 * search.c -- the stages of the agent search (see search.h): stage 1 seeds
 * different structures, stage 2 tunes the best ones through mapping, tiling
 * and memory, the profile agent choosing what to change each time.
 *
 * What travels between stages is a decision text built here from numbers
 * (which structure, why in the agent's own line, its speedup and fraction of
 * the copy ceiling), never a stage's history: stage 2's prompts see stage 1
 * only through it.  Within a stage the history of attempts (search_step.c adds
 * to it) is what the agents see of their own earlier tries.
 */
#include "config.h"
#include "agents/extract.h"
#include "agents/measure.h"
#include "agents/search_int.h"
#include "builtin/builtin.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const substages[] = { "mapping", "tiling", "memory" };

/* A structure that goes on to stage 2. */
struct structure {
	struct outcome o;
	char *direction;
};

/* The variables every prompt may use. */
static void
base_vars(struct search *s, struct prompt_vars *v, struct strbuf *bundle, struct strbuf *device)
{
	const struct egg_bundle *b = s->b;
	strbuf_reset(bundle);
	if (b->closure && *b->closure)
		strbuf_addf(bundle, "%s\n", b->closure);
	strbuf_addstr(bundle, b->target ? b->target : "");
	strbuf_reset(device);
	measure_device(s->device, s->ceilings, device);
	prompt_vars_set(v, "name", b->name);
	prompt_vars_set(v, "kind", b->kind == BUNDLE_KERNEL ? "__global__ kernel" : "host launcher");
	prompt_vars_set(v, "signature", b->signature);
	prompt_vars_set(v, "bundle", bundle->buf);
	prompt_vars_set(v, "clauses", b->pragma ? b->pragma : "");
	prompt_vars_set(v, "family", s->family);
	prompt_vars_set(v, "principles", prompts_principles(s->pr, s->family));
	prompt_vars_set(v, "device", device->buf);
	prompt_vars_set(v, "reference", s->reference.len ? s->reference.buf : "not measured yet");
	prompt_vars_set(v, "baseline", s->baseline.len ? s->baseline.buf
	                : "none: the builtin generator has no correct candidate faster than the reference");
}

/* The measurements of result candidate i, and its fraction of the copy ceiling. */
static double
measurements(struct search *s, int i, struct strbuf *out)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->result, "candidates"), i);
	return measure_candidate(c, s->ceilings, out);
}

/* Stage 0: the builtin generator's candidates, in one harness call and with no
 * model call.  Their best correct one (in base) is the baseline: the structure
 * stage 1's prompts show, and the kernel stage 2 tunes when no model structure
 * beats it.  *frac: its fraction of the roofline floor (0 when none). */
static void
stage_builtin(struct search *s, struct outcome *base, double *frac)
{
	s->stage = "0/builtin";
	*frac = 0;
	struct builtin_options bo = { NULL, 0 };
	struct builtin_output g;
	struct strbuf err = STRBUF_INIT;
	memset(&g, 0, sizeof g);
	if (builtin_generate(s->b, &bo, &g, &err) < 0 || g.n_candidates == 0) {
		char *t = egg_xasprintf("the builtin generator offers no candidate: %s",
		                        err.len ? err.buf : g.not_lifted ? g.not_lifted : "nothing to offer");
		search_step(s, s->stage, "search", "note", t, NULL, NULL, -1, -1, 0);
		free(t);
		builtin_output_release(&g);
		strbuf_release(&err);
		return;
	}
	size_t n = g.n_candidates;
	/* they count toward the candidate budget; half of it at most, so that the
	 * model's attempts keep room */
	if (s->opt.budget.max_candidates > 0 && n > (size_t)(s->opt.budget.max_candidates / 2))
		n = (size_t)(s->opt.budget.max_candidates / 2);
	struct run_candidate *cands = egg_xcalloc(n ? n : 1, sizeof *cands);
	char **names = egg_xcalloc(n ? n : 1, sizeof *names);
	for (size_t i = 0; i < n; i++) {
		names[i] = egg_xasprintf("builtin: %s", g.candidates[i].label);
		cands[i] = (struct run_candidate){ names[i], g.candidates[i].source };
	}
	char *t = egg_xasprintf("%zu candidates of the builtin generator (%s), one harness call, no "
	                        "model call", n, BUILTIN_VERSION);
	search_step(s, s->stage, "search", "note", t, NULL, NULL, -1, -1, 0);
	free(t);
	if (n && search_judge(s, cands, n, "the builtin generator's", base) == 0 && base->index >= 0 &&
	    base->verdict && strcmp(base->verdict, "pass") == 0) {
		const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->result, "candidates"),
		                                    base->index);
		*frac = measure_floor_fraction(c, s->ceilings);
		strbuf_reset(&s->baseline);
		strbuf_addf(&s->baseline, "%s: %.2fx the reference", base->name, base->speedup);
		if (*frac > 0)
			strbuf_addf(&s->baseline, ", %.0f%% of the roofline floor", 100 * *frac);
		strbuf_addstr(&s->baseline, ". Its measurements:\n");
		measure_candidate(c, s->ceilings, &s->baseline);
		strbuf_addf(&s->baseline, "Its code:\n```cuda\n%s\n```\nA replacement must be faster than "
		            "this one to be kept.", base->source);
		char share[64] = " (its share of the roofline floor is unknown)";
		if (*frac > 0)
			snprintf(share, sizeof share, ", %.0f%% of the roofline floor", 100 * *frac);
		char *d = egg_xasprintf("builtin baseline: %s, %.2fx%s", base->name, base->speedup, share);
		search_step(s, s->stage, "search", "decision", d, base->name, base->verdict, base->speedup, -1, 0);
		free(d);
	} else {
		search_step(s, s->stage, "search", "decision", "no builtin candidate was correct and faster: "
		            "the model starts from the reference", NULL, NULL, -1, -1, 0);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(cands);
	builtin_output_release(&g);
	strbuf_release(&err);
}

/* Stage 1: seeds, each with its own direction; the best correct ones go on. */
static size_t
stage_structure(struct search *s, struct structure *keep)
{
	s->stage = "1/structure";
	size_t n_dirs = s->directions.n;
	struct history h = { 0 };
	struct structure *tried = egg_xcalloc((size_t)s->opt.seeds, sizeof *tried);
	size_t n_tried = 0;
	struct strbuf bundle = STRBUF_INIT, device = STRBUF_INIT;
	for (int i = 0; i < s->opt.seeds; i++) {
		const char *dir = n_dirs ? s->directions.v[(size_t)i % n_dirs] : "your own choice";
		struct strbuf others = STRBUF_INIT;
		for (int j = 0; j < s->opt.seeds && n_dirs; j++)
			if (j != i && strcmp(s->directions.v[(size_t)j % n_dirs], dir) != 0)
				strbuf_addf(&others, "- %s\n", s->directions.v[(size_t)j % n_dirs]);
		struct prompt_vars v = { 0 };
		base_vars(s, &v, &bundle, &device);
		prompt_vars_set(&v, "direction", dir);
		prompt_vars_set(&v, "others", others.len ? others.buf : "(none)");
		char *name = egg_xasprintf("s1.%d", i + 1);
		struct outcome o = { .index = -1 };
		int rc = search_attempt(s, "structure", &v, &h, name, &o);
		if (o.verdict && measure_is_correct(o.verdict) && o.index >= 0) {
			outcome_move(&tried[n_tried].o, &o);
			tried[n_tried++].direction = egg_xstrdup(dir);
		}
		outcome_release(&o);
		free(name);
		strbuf_release(&others);
		if (rc < 0)
			break;
	}
	/* the fastest correct structures, best first */
	size_t n_keep = 0;
	for (size_t k = 0; k < (size_t)s->opt.keep && k < n_tried; k++) {
		size_t best = n_tried;
		for (size_t i = 0; i < n_tried; i++)
			if (tried[i].direction && (best == n_tried || tried[i].o.speedup > tried[best].o.speedup))
				best = i;
		if (best == n_tried)
			break;
		keep[n_keep++] = tried[best];
		memset(&tried[best], 0, sizeof tried[best]);
	}
	for (size_t i = 0; i < n_tried; i++) {
		outcome_release(&tried[i].o);
		free(tried[i].direction);
	}
	free(tried);
	for (size_t k = 0; k < n_keep; k++) {
		char *d = egg_xasprintf("structure %s (%s) goes on to stage 2: %.2fx", keep[k].o.name,
		                        keep[k].direction, keep[k].o.speedup);
		search_step(s, "1/structure", "search", "decision", d, keep[k].o.name, keep[k].o.verdict,
		            keep[k].o.speedup, -1, 0);
		free(d);
	}
	if (!n_keep)
		search_step(s, "1/structure", "search", "decision", "no structure was correct; stage 2 has "
		            "nothing to tune", NULL, NULL, -1, -1, 0);
	history_release(&h);
	strbuf_release(&bundle);
	strbuf_release(&device);
	return n_keep;
}

/* Nsight Compute's metrics of the current best, as a table for the profile
 * agent: profiled once per candidate (the evaluator runs it again under ncu at
 * its largest workload), "no ncu metrics (WHY)" when there are none.  An ncu
 * that is there and fails is warned about once per process; no ncu at all is
 * only noted. */
static const char *
ncu_table(struct search *s, const struct outcome *cur)
{
	static int warned;
	if (s->ncu_name && strcmp(s->ncu_name, cur->name) == 0)
		return s->ncu_text;
	free(s->ncu_name);
	free(s->ncu_text);
	s->ncu_name = egg_xstrdup(cur->name);
	struct strbuf t = STRBUF_INIT;
	enum run_status st = RUN_ERROR;
	struct run_candidate cand = { cur->name, cur->source };
	cJSON *res = s->ev.profile ? s->ev.profile(s->ev.ctx, &cand, &st) : NULL;
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "candidates"), 0);
	const cJSON *ncu = cJSON_GetObjectItemCaseSensitive(c, "ncu");
	if (!s->ev.profile)
		strbuf_addstr(&t, "no ncu metrics (the evaluator does not profile)");
	else if (!res)
		strbuf_addstr(&t, "no ncu metrics (no ncu where the candidates run)");
	else if (!ncu)
		strbuf_addf(&t, "no ncu metrics (%s)", measure_str(c, "message", measure_str(res, "message",
		            "the evaluator's result has none")));
	else
		measure_ncu(ncu, &t);
	search_step(s, s->stage, "profile", "note", t.buf, cur->name, NULL, -1, -1, 0);
	if (!warned && cJSON_IsObject(ncu) && strcmp(measure_str(ncu, "status", ""), "failed") == 0) {
		egg_warn("egg: %s: %s; the search goes on without ncu metrics", s->b->name,
		         measure_str(ncu, "message", "ncu failed"));
		warned = 1;
	}
	cJSON_Delete(res);
	s->ncu_text = strbuf_detach(&t);
	return s->ncu_text;
}

/* The profile agent on the current best: its bottleneck and plan as text. */
static char *
profile(struct search *s, const struct outcome *cur, const char *sub, const char *decision,
        struct prompt_vars *v, double *bw)
{
	struct strbuf m = STRBUF_INIT;
	*bw = measurements(s, cur->index, &m);
	prompt_vars_set(v, "measurements", m.buf);
	prompt_vars_set(v, "ncu", ncu_table(s, cur));
	prompt_vars_set(v, "decision", decision);
	prompt_vars_set(v, "substage", sub);
	char *answer = search_ask(s, "profile", "profile", v, NULL);
	strbuf_release(&m);
	if (!answer)
		return NULL;
	char *bottleneck, *plan;
	struct strbuf why = STRBUF_INIT;
	if (extract_feedback(answer, &bottleneck, &plan, &why) < 0)
		search_step(s, s->stage, "search", "note", why.buf, NULL, NULL, -1, -1, 0);
	char *text = egg_xasprintf("bottleneck: %s\nmodification_plan: %s", bottleneck,
	                           *plan ? plan : "(none given: apply the sub-stage's principles)");
	search_step(s, s->stage, "profile", "decision", text, cur->name, NULL, -1, -1, 0);
	free(bottleneck);
	free(plan);
	free(answer);
	strbuf_release(&why);
	return text;
}

/* Stage 2 for one structure: mapping, tiling, memory, each from the best so far. */
static void
stage_tune(struct search *s, struct structure *st, int which)
{
	struct outcome cur = { .index = -1 };
	outcome_move(&cur, &st->o);
	struct strbuf decision = STRBUF_INIT, m = STRBUF_INIT, bundle = STRBUF_INIT, device = STRBUF_INIT;
	double bw = measurements(s, cur.index, &m);
	strbuf_addf(&decision, "Stage 1 chose the structure %s (%s): %s. It measured %.2fx the "
	            "reference", cur.name, st->direction, cur.why && *cur.why ? cur.why : "no reason given",
	            cur.speedup);
	if (bw > 0)
		strbuf_addf(&decision, ", %.0f%% of the copy ceiling", 100 * bw);
	strbuf_addstr(&decision, ".\n");
	for (size_t k = 0; k < sizeof substages / sizeof *substages && search_may_go_on(s, 1); k++) {
		const char *sub = substages[k];
		s->stage = k == 0 ? "2/mapping" : k == 1 ? "2/tiling" : "2/memory";
		struct prompt_vars v = { 0 };
		base_vars(s, &v, &bundle, &device);
		prompt_vars_set(&v, "current", cur.source);
		char *plan = profile(s, &cur, sub, decision.buf, &v, &bw);
		if (!plan)
			break;
		prompt_vars_set(&v, "profile", plan);
		struct history h = { 0 };
		struct outcome o = { .index = -1 };
		char *name = egg_xasprintf("s2.%d-%s", which, sub);
		int rc = search_attempt(s, sub, &v, &h, name, &o);
		if (o.verdict && measure_is_correct(o.verdict) && o.index >= 0 && o.speedup > cur.speedup) {
			strbuf_addf(&decision, "Stage %s kept %s: %.2fx (%s).\n", s->stage, o.name, o.speedup,
			            o.why && *o.why ? o.why : "no reason given");
			search_step(s, s->stage, "search", "decision", "kept: faster than the best so far", o.name,
			            o.verdict, o.speedup, -1, 0);
			outcome_move(&cur, &o);
		} else {
			strbuf_addf(&decision, "Stage %s changed nothing: %s was %s%s; kept %s.\n", s->stage, name,
			            o.verdict ? o.verdict : "not evaluated", o.speedup > 0 ? " and not faster" : "",
			            cur.name);
			search_step(s, s->stage, "search", "decision", "not kept: the best so far stays", o.name,
			            o.verdict, o.speedup > 0 ? o.speedup : -1, -1, 0);
		}
		outcome_release(&o);
		history_release(&h);
		free(name);
		free(plan);
		if (rc < 0)
			break;
	}
	outcome_release(&cur);
	strbuf_release(&decision);
	strbuf_release(&m);
	strbuf_release(&bundle);
	strbuf_release(&device);
}

static void
options_defaults(struct agents_options *o)
{
	if (o->seeds <= 0)
		o->seeds = 3;
	if (o->keep <= 0)
		o->keep = 2;
	if (o->repair_rounds < 0)
		o->repair_rounds = 2;
	if (o->max_variants <= 0)
		o->max_variants = 8;
	if (o->prompt_chars == 0)
		o->prompt_chars = 60000;
}

static void
finish(struct search *s, struct agents_result *out)
{
	out->verdict = s->result != NULL && (!s->failure || s->best >= 0);
	out->model_calls = s->calls;
	out->tokens_in = s->tok_in;
	out->tokens_out = s->tok_out;
	out->candidates = s->evaluated;
	if (s->stopped)
		out->stopped_by = egg_xstrdup(s->stopped);
	if (s->failure)
		out->failure = egg_xstrdup(s->failure);
	char *d;
	if (s->best >= 0) {
		out->source = egg_xstrdup(s->best_source);
		out->name = egg_xstrdup(s->best_name);
		out->speedup = s->best_speedup;
		cJSON_ReplaceItemInObject(s->result, "best", cJSON_CreateNumber(s->best));
		d = egg_xasprintf("winner: %s, %.2fx over the reference (origin: %s)", s->best_name,
		                  s->best_speedup, strncmp(s->best_name, "builtin: ", 9) == 0 ? "builtin" : "model");
	} else {
		d = egg_xstrdup(out->verdict ? "no candidate was correct and faster than the reference"
		                             : "no verdict");
	}
	search_step(s, s->stage, "search", "decision", d, s->best >= 0 ? s->best_name : NULL, NULL,
	            s->best >= 0 ? s->best_speedup : -1, -1, 0);
	free(d);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double wall = (double)now.tv_sec + (double)now.tv_nsec * 1e-9 - s->t0;
	char *usage = egg_xasprintf("%ld model calls, %ld input and %ld output tokens, %ld candidates "
	                            "evaluated, %.1f s%s%s", s->calls, s->tok_in, s->tok_out, s->evaluated,
	                            wall, s->stopped ? "; stopped by " : "", s->stopped ? s->stopped : "");
	search_step(s, s->stage, "search", "note", usage, NULL, NULL, -1, -1, 0);
	free(usage);
	/* the same numbers for readers (egg report's cost columns) */
	cJSON *u = cJSON_AddObjectToObject(cJSON_GetArrayItem(s->transcript,
	                                                      cJSON_GetArraySize(s->transcript) - 1), "usage");
	cJSON_AddNumberToObject(u, "model_calls", (double)s->calls);
	cJSON_AddNumberToObject(u, "tokens_in", (double)s->tok_in);
	cJSON_AddNumberToObject(u, "tokens_out", (double)s->tok_out);
	cJSON_AddNumberToObject(u, "candidates", (double)s->evaluated);
	cJSON_AddNumberToObject(u, "wall_s", round(wall * 10) / 10);
	if (s->result) {
		char *r = cJSON_PrintUnformatted(s->result);
		out->result_json = egg_xstrdup(r);
		cJSON_free(r);
	}
	const char *gpu = measure_str(s->device, "name", NULL);
	snprintf(out->gpu, sizeof out->gpu, "%s", gpu ? gpu : "the GPU");
	char *t = cJSON_PrintUnformatted(s->transcript);
	out->transcript = egg_xstrdup(t);
	cJSON_free(t);
}

int
agents_search(const struct egg_bundle *b, struct llm_chat_fn chat, struct agents_evaluator ev,
              const struct agents_options *opt, struct agents_result *out, struct strbuf *err)
{
	memset(out, 0, sizeof *out);
	struct search s = { 0 };
	s.b = b;
	s.chat = chat;
	s.ev = ev;
	s.opt = *opt;
	options_defaults(&s.opt);
	s.pr = prompts_load(s.opt.prompts_dir, err);
	if (!s.pr)
		return -1;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s.t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	s.best = -1;
	s.stage = "1/structure";
	s.family = agents_family(b);
	prompts_directions(s.pr, s.family, &s.directions);
	if (cJSON_IsObject((const cJSON *)opt->device))
		s.device = cJSON_Duplicate(opt->device, 1);
	if (cJSON_IsObject((const cJSON *)opt->ceilings))
		s.ceilings = cJSON_Duplicate(opt->ceilings, 1);
	strbuf_init(&s.reference);
	strbuf_init(&s.baseline);
	if (cJSON_IsObject((const cJSON *)opt->reference))
		measure_candidate(opt->reference, s.ceilings, &s.reference);
	s.transcript = cJSON_CreateArray();
	char *note = egg_xasprintf("family %s; prompts %s; %d seeds, %d structures kept, %d repair rounds",
	                           s.family, prompts_identity(s.pr), s.opt.seeds, s.opt.keep,
	                           s.opt.repair_rounds);
	search_step(&s, s.stage, "search", "note", note, NULL, NULL, -1, -1, 0);
	free(note);

	struct outcome base = { .index = -1 };
	double frac = 0;
	if (!s.opt.no_builtin)
		stage_builtin(&s, &base, &frac);
	int have_base = base.index >= 0 && base.verdict && strcmp(base.verdict, "pass") == 0;
	if (have_base && s.opt.stop_fraction > 0 && frac >= s.opt.stop_fraction) {
		char *t = egg_xasprintf("the builtin's best is at %.0f%% of the roofline floor (the search "
		                        "stops at %.0f%%): nothing left for a model to win, no model call",
		                        100 * frac, 100 * s.opt.stop_fraction);
		search_step(&s, s.stage, "search", "decision", t, base.name, base.verdict, base.speedup, -1, 0);
		search_progress(&s, "%s", t);
		free(t);
		outcome_release(&base);
		finish(&s, out);
		goto done;
	}
	struct structure *keep = egg_xcalloc((size_t)s.opt.keep + 1, sizeof *keep);
	size_t n_keep = s.failure ? 0 : stage_structure(&s, keep);
	/* the builtin's best goes on to stage 2 too when no model structure beats it:
	 * the model's edits start from the best known kernel */
	if (have_base && (n_keep == 0 || keep[0].o.speedup < base.speedup)) {
		if (n_keep == (size_t)s.opt.keep) {
			char *t = egg_xasprintf("structure %s does not go on after all: the builtin's "
			                        "takes its place", keep[n_keep - 1].o.name);
			search_step(&s, "1/structure", "search", "decision", t, keep[n_keep - 1].o.name, NULL,
			            -1, -1, 0);
			free(t);
			outcome_release(&keep[n_keep - 1].o);
			free(keep[n_keep - 1].direction);
			n_keep--;
		}
		memmove(&keep[1], &keep[0], n_keep * sizeof *keep);
		memset(&keep[0], 0, sizeof keep[0]);
		outcome_move(&keep[0].o, &base);
		keep[0].direction = egg_xstrdup("the builtin generator's structure");
		n_keep++;
		char *d = egg_xasprintf("structure %s (the builtin's) goes on to stage 2: %.2fx, faster than "
		                        "every model structure", keep[0].o.name, keep[0].o.speedup);
		search_step(&s, "1/structure", "search", "decision", d, keep[0].o.name, keep[0].o.verdict,
		            keep[0].o.speedup, -1, 0);
		free(d);
	}
	outcome_release(&base);
	for (size_t k = 0; k < n_keep; k++) {
		if (search_may_go_on(&s, 1))
			stage_tune(&s, &keep[k], (int)k + 1);
		outcome_release(&keep[k].o);
		free(keep[k].direction);
	}
	free(keep);
	finish(&s, out);
done:
	prompts_free(s.pr);
	strvec_clear(&s.directions);
	cJSON_Delete(s.device);
	cJSON_Delete(s.ceilings);
	cJSON_Delete(s.transcript);
	cJSON_Delete(s.result);
	free(s.failure);
	free(s.best_source);
	free(s.best_name);
	free(s.ncu_name);
	free(s.ncu_text);
	strbuf_release(&s.reference);
	strbuf_release(&s.baseline);
	return 0;
}

void
agents_result_release(struct agents_result *r)
{
	free(r->source);
	free(r->name);
	free(r->result_json);
	free(r->transcript);
	free(r->stopped_by);
	free(r->failure);
	memset(r, 0, sizeof *r);
}
