/*
 * report_show.c -- `egg report KEY`: an entry's transcript and result, readable.
 *
 * Transcripts come in two shapes and must both read well: the builtin
 * generator's steps {"stage", "decision"}, and the model search's steps
 * {"stage", "role", "kind": prompt | response | evaluation | decision | note,
 * "text", "candidate"?, "verdict"?, "speedup"?, "tokens"?: {"in", "out"}}.
 * Each step is one block headed by its stage, role and kind; prompts and
 * responses are indented and cut to a few lines (--full shows them whole);
 * an evaluation is one line.  Fields this egg does not know are printed as
 * compact JSON rather than dropped, so a newer egg's entries still read.
 * The evaluation result (harness/run.h) follows, summarized: the device, each
 * candidate's verdict and speedup, the winner's resources.
 */
#include "config.h"
#include "admin/report_show.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "plan/report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *
str(const cJSON *o, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* text, each line indented, at most o->max_lines of them unless o->full. */
static void
put_block(FILE *out, const char *text, const struct report_show_options *o)
{
	size_t shown = 0, total = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		if (o->full || shown < o->max_lines) {
			fprintf(out, "      %.*s\n", (int)n, p);
			shown++;
		}
		total++;
		p += n + (p[n] == '\n');
	}
	if (total > shown)
		fprintf(out, "      ... (%zu more line%s; --full shows them)\n", total - shown,
		        total - shown == 1 ? "" : "s");
}

static int
is_known(const char *name)
{
	static const char *const known[] = { "stage", "role", "kind", "text", "decision", "candidate",
		                             "verdict", "speedup", "tokens", NULL };
	for (const char *const *k = known; *k; k++)
		if (strcmp(name, *k) == 0)
			return 1;
	return 0;
}

char *
report_show_step_rest(const void *step)
{
	cJSON *rest = cJSON_CreateObject();
	const cJSON *f;
	cJSON_ArrayForEach(f, (const cJSON *)step)
		if (!f->string || !is_known(f->string))
			cJSON_AddItemToObject(rest, f->string ? f->string : "?", cJSON_Duplicate(f, 1));
	char *t = NULL;
	if (cJSON_GetArraySize(rest) > 0) {
		char *p = cJSON_PrintUnformatted(rest);
		t = egg_xstrdup(p);
		cJSON_free(p);
	}
	cJSON_Delete(rest);
	return t;
}

/* The other fields of a step, as compact JSON. */
static void
put_unknown(FILE *out, const cJSON *step)
{
	char *t = report_show_step_rest(step);
	if (t)
		fprintf(out, "      other: %s\n", t);
	free(t);
}

static void
put_step(FILE *out, size_t i, const cJSON *step, const struct report_show_options *o)
{
	if (!cJSON_IsObject(step)) {
		char *t = cJSON_PrintUnformatted(step);
		fprintf(out, "  %2zu. %s\n", i, t);
		cJSON_free(t);
		return;
	}
	const char *stage = str(step, "stage"), *role = str(step, "role"), *kind = str(step, "kind");
	const char *text = str(step, "text"), *decision = str(step, "decision");
	struct strbuf head = STRBUF_INIT;
	strbuf_addf(&head, "[%s]", stage ? stage : "-");
	if (role)
		strbuf_addf(&head, " %s", role);
	strbuf_addf(&head, " %s", kind ? kind : decision ? "decision" : "step");
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(step, "tokens");
	const cJSON *tin = cJSON_GetObjectItemCaseSensitive(tokens, "in");
	const cJSON *tout = cJSON_GetObjectItemCaseSensitive(tokens, "out");
	if (cJSON_IsNumber(tin) || cJSON_IsNumber(tout))
		strbuf_addf(&head, " (tokens in %.0f, out %.0f)", cJSON_GetNumberValue(tin) > 0 ? tin->valuedouble : 0,
		            cJSON_GetNumberValue(tout) > 0 ? tout->valuedouble : 0);
	const char *cand = str(step, "candidate"), *verdict = str(step, "verdict");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(step, "speedup");
	if (cand || verdict || cJSON_IsNumber(sp)) {
		strbuf_addf(&head, ": %s%s%s", cand ? cand : "", cand && verdict ? ", " : "",
		            verdict ? verdict : "");
		if (cJSON_IsNumber(sp))
			strbuf_addf(&head, "%s%.2fx", cand || verdict ? ", " : "", sp->valuedouble);
	}
	const char *body = text ? text : decision;
	/* One line when it fits: evaluations, and decisions of one short line. */
	int inline_body = body && !strchr(body, '\n') && strlen(body) + head.len < 160 &&
	                  !(kind && (strcmp(kind, "prompt") == 0 || strcmp(kind, "response") == 0));
	if (inline_body)
		fprintf(out, "  %2zu. %s%s %s\n", i, head.buf, cand || verdict ? " --" : ":", body);
	else
		fprintf(out, "  %2zu. %s\n", i, head.buf);
	if (body && !inline_body)
		put_block(out, body, o);
	if (text && decision) /* both: the decision is not lost */
		fprintf(out, "      decision: %s\n", decision);
	put_unknown(out, step);
	strbuf_release(&head);
}

static void
put_transcript(FILE *out, const struct cache_entry *e, const struct report_show_options *o)
{
	struct strbuf sb = STRBUF_INIT;
	cache_entry_transcript_json(e, 0, &sb);
	cJSON *t = cJSON_Parse(sb.buf);
	const cJSON *steps = cJSON_IsArray(t) ? t : cJSON_GetObjectItemCaseSensitive(t, "steps");
	if (cJSON_IsArray(steps)) {
		fprintf(out, "\ntranscript (%d step%s)\n", cJSON_GetArraySize(steps),
		        cJSON_GetArraySize(steps) == 1 ? "" : "s");
		size_t i = 1;
		const cJSON *step;
		cJSON_ArrayForEach(step, steps)
			put_step(out, i++, step, o);
		if (steps != t)
			put_unknown(out, t);
	} else {
		fprintf(out, "\ntranscript\n  %s\n", sb.buf);
	}
	cJSON_Delete(t);
	strbuf_release(&sb);
}

static void
put_resources(FILE *out, const cJSON *res)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, res) {
		const char *name = str(r, "name") ? str(r, "name") : str(r, "function");
		fprintf(out, "    %s: %.0f registers, %.0f B shared, %.0f B stack, %.0f B spilled\n",
		        name ? name : "?", cJSON_GetNumberValue(cJSON_GetObjectItem(r, "registers")),
		        cJSON_GetNumberValue(cJSON_GetObjectItem(r, "smem_bytes")),
		        cJSON_GetNumberValue(cJSON_GetObjectItem(r, "stack_bytes")),
		        cJSON_GetNumberValue(cJSON_GetObjectItem(r, "spill_stores")));
	}
}

static void
put_result(FILE *out, const struct cache_entry *e)
{
	struct strbuf sb = STRBUF_INIT;
	cache_entry_result_json(e, 0, &sb);
	cJSON *r = cJSON_Parse(sb.buf);
	strbuf_release(&sb);
	fprintf(out, "\nresult\n");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(r, "device");
	if (str(dev, "name"))
		fprintf(out, "  device:     %s%s%s%s\n", str(dev, "name"), str(dev, "cc") ? " (cc " : "",
		        str(dev, "cc") ? str(dev, "cc") : "", str(dev, "cc") ? ")" : "");
	if (str(r, "status"))
		fprintf(out, "  status:     %s%s%s\n", str(r, "status"), str(r, "message") ? ": " : "",
		        str(r, "message") ? str(r, "message") : "");
	if (str(r, "outcome"))
		fprintf(out, "  outcome:    %s%s%s\n", str(r, "outcome"), str(r, "reason") ? ": " : "",
		        str(r, "reason") ? str(r, "reason") : "");
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(r, "best");
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(r, "candidates");
	if (cJSON_GetArraySize(cands) > 0)
		fprintf(out, "  candidates:\n");
	int i = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, cands) {
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
		const char *msg = str(c, "message");
		char speed[32] = "-";
		if (cJSON_IsNumber(sp))
			snprintf(speed, sizeof speed, "%.2fx", sp->valuedouble);
		fprintf(out, "  %s %2d  %-13s %7s  %s", cJSON_IsNumber(best) && best->valueint == i ? "*" : " ",
		        i, str(c, "verdict") ? str(c, "verdict") : "?", speed,
		        str(c, "name") ? str(c, "name") : "?");
		if (msg)
			fprintf(out, " (%.*s)", (int)strcspn(msg, "\n"), msg);
		fputc('\n', out);
		i++;
	}
	if (cJSON_IsNumber(best)) {
		const cJSON *w = cJSON_GetArrayItem(cands, best->valueint);
		fprintf(out, "  winner:     %s (candidate %d)\n", str(w, "name") ? str(w, "name") : "?",
		        best->valueint);
		/* the calls it was verified for (harness/run.c: run_domain); entries of
		 * an egg before probe calls have none */
		const cJSON *dom = cJSON_GetObjectItemCaseSensitive(w, "domain");
		fprintf(out, "  domain:     %s\n", str(dom, "summary") ? str(dom, "summary")
		        : "the named workloads only (verified before probe calls existed)");
		const cJSON *sk;
		cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(dom, "skipped"))
			fprintf(out, "    skipped %s: %s\n", str(sk, "call") ? str(sk, "call") : "?",
			        str(sk, "why") ? str(sk, "why") : "?");
		if (str(dom, "stopped"))
			fprintf(out, "    %s\n", str(dom, "stopped"));
		put_resources(out, cJSON_GetObjectItemCaseSensitive(w, "resources"));
	}
	cJSON_Delete(r);
}

void
report_show_entry(const struct cache_entry *e, const struct report_show_options *o, FILE *out)
{
	const char *backend = cache_entry_generator_field(e, "backend");
	const char *model = cache_entry_generator_field(e, "model");
	const char *recipe = cache_entry_generator_field(e, "recipe");
	fprintf(out, "key:        %s\n", cache_entry_key(e));
	fprintf(out, "kernel:     %s\n", cache_entry_name(e) ? cache_entry_name(e) : "-");
	fprintf(out, "outcome:    %s\n", report_entry_outcome(e));
	fprintf(out, "generator:  %s%s%s (recipe %s)\n", backend ? backend : "-", model ? " " : "",
	        model ? model : "", recipe ? recipe : "-");
	put_transcript(out, e, o);
	put_result(out, e);
}
