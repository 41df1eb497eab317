/*
 * report_page.c -- see report_page.h.
 *
 * A kernel's page tells what `egg report KEY` tells, for a reader with a
 * browser: where the kernel is (the pragma's file and line, from the build's
 * record), its clauses, each workload with the reference's and the winner's
 * times, then from the cache entry the candidates (verdict, speedup, registers
 * and spills of each candidate's own kernels), the winner's configuration,
 * validity domain and code, and the transcript of the search (the builtin
 * generator's decisions or a model search's prompts and responses, whole).
 *
 * Everything on the page comes from files anyone may have written (a report
 * is JSON, a cache entry holds what a model answered), so every string goes
 * through report_page_escape and the page has no script: a kernel named
 * "<script>..." is shown as those characters.  File names are built from the
 * kernel's index and its letters and digits only.
 */
#include "config.h"
#include "admin/report_page.h"
#include "admin/report_show.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char report_page_style[] =
	"body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
	"table{border-collapse:collapse;font-size:14px}\n"
	"th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"tr.best td{font-weight:600}\n"
	"pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:13px}\n"
	"ol.steps>li{margin-bottom:1em}\n"
	"svg text{font-size:13px;font-family:system-ui,sans-serif}\n"
	"svg .name{text-anchor:end}\n"
	"svg a .name{fill:#1a4f9c;text-decoration:underline}\n"
	"svg .tick{text-anchor:middle;fill:#666}\n"
	"svg .grid{stroke:#e4e4e4}\n"
	"svg .one{stroke:#444}\n"
	"svg .win{fill:#3a7d44}\n"
	"svg .loss{fill:#b04a3a}\n"
	"svg .ref{fill:#777}\n"
	"svg .num{font-weight:600}\n";

void
report_page_escape(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

char *
report_page_kernel_path(size_t i, const char *kernel)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "kernels/%zu-", i + 1);
	for (size_t n = 0; kernel && *kernel && n < 40; kernel++)
		if (isalnum((unsigned char)*kernel) || *kernel == '_') {
			strbuf_addch(&sb, *kernel);
			n++;
		}
	strbuf_addstr(&sb, ".html");
	return strbuf_detach(&sb);
}

static const char *
str(const cJSON *o, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* <tag>escaped text</tag> */
static void
add_element(struct strbuf *sb, const char *tag, const char *text)
{
	strbuf_addf(sb, "<%s>", tag);
	report_page_escape(sb, text);
	strbuf_addf(sb, "</%.*s>", (int)strcspn(tag, " "), tag);
}

static void
add_number_cell(struct strbuf *sb, const cJSON *n, const char *fmt)
{
	char buf[64] = "-";
	if (cJSON_IsNumber(n))
		snprintf(buf, sizeof buf, fmt, n->valuedouble);
	add_element(sb, "td class=\"n\"", buf);
}

/* A row of the summary: what, then the escaped value (skipped when NULL). */
static void
add_fact(struct strbuf *sb, const char *what, const char *value)
{
	if (!value)
		return;
	strbuf_addstr(sb, "<tr>");
	add_element(sb, "th", what);
	add_element(sb, "td", value);
	strbuf_addstr(sb, "</tr>\n");
}

static void
add_summary(struct strbuf *sb, const cJSON *rec)
{
	const cJSON *loc = cJSON_GetObjectItemCaseSensitive(rec, "location");
	const cJSON *line = cJSON_GetObjectItemCaseSensitive(loc, "line");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(rec, "speedup");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(rec, "generator");
	const cJSON *wall = cJSON_GetObjectItemCaseSensitive(rec, "wall_s");
	char *where = str(loc, "file") && cJSON_IsNumber(line)
	              ? egg_xasprintf("%s:%d", str(loc, "file"), line->valueint) : NULL;
	char *speedup = cJSON_IsNumber(sp) ? egg_xasprintf("%.2fx", sp->valuedouble) : NULL;
	char *gen = egg_xasprintf("%s%s%s%s%s", str(g, "backend") ? str(g, "backend") : "-",
	                          str(g, "model") ? " " : "", str(g, "model") ? str(g, "model") : "",
	                          str(g, "recipe") ? ", recipe " : "", str(g, "recipe") ? str(g, "recipe") : "");
	char *took = cJSON_IsNumber(wall) ? egg_xasprintf("%.3f s", wall->valuedouble) : NULL;
	strbuf_addstr(sb, "<table class=\"facts\">\n");
	add_fact(sb, "outcome", str(rec, "outcome"));
	add_fact(sb, "why", str(rec, "reason"));
	add_fact(sb, "speedup", speedup);
	add_fact(sb, "source", where ? where : str(rec, "source") ? str(rec, "source") : "not known (a record made from the cache)");
	add_fact(sb, "key", str(rec, "key"));
	add_fact(sb, "architecture", str(rec, "arch"));
	add_fact(sb, "mode", str(rec, "mode"));
	add_fact(sb, "GPU", str(rec, "gpu"));
	add_fact(sb, "generator", gen);
	add_fact(sb, "time", str(rec, "time"));
	add_fact(sb, "egg's time on it", took);
	strbuf_addstr(sb, "</table>\n");
	free(where);
	free(speedup);
	free(gen);
	free(took);
	if (str(rec, "clauses")) {
		strbuf_addstr(sb, "<h2>Clauses</h2>\n");
		add_element(sb, "pre", str(rec, "clauses"));
		strbuf_addch(sb, '\n');
	}
}

static void
add_workloads(struct strbuf *sb, const cJSON *rec)
{
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(rec, "workloads");
	if (cJSON_GetArraySize(ws) == 0)
		return;
	strbuf_addstr(sb, "<h2>Workloads</h2>\n<table>\n<tr><th>#</th><th>values</th><th>reference ms</th>"
	              "<th>winner ms</th><th>speedup</th></tr>\n");
	const cJSON *w;
	cJSON_ArrayForEach(w, ws) {
		strbuf_addstr(sb, "<tr>");
		add_number_cell(sb, cJSON_GetObjectItemCaseSensitive(w, "workload"), "%.0f");
		add_element(sb, "td", str(w, "values") ? str(w, "values") : "-");
		add_number_cell(sb, cJSON_GetObjectItemCaseSensitive(w, "reference_ms"), "%.3f");
		add_number_cell(sb, cJSON_GetObjectItemCaseSensitive(w, "winner_ms"), "%.3f");
		add_number_cell(sb, cJSON_GetObjectItemCaseSensitive(w, "speedup"), "%.2fx");
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p>Medians measured by egg's harness.</p>\n");
}

/* 1 when res (a resource of a candidate's unit) is one of the reference's own
 * kernels, compiled beside the candidate's: its numbers are not the candidate's. */
static int
is_reference_kernel(const cJSON *res, const cJSON *reference)
{
	const char *name = str(res, "name");
	const cJSON *r;
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(reference, "resources"))
		if (name && str(r, "name") && strcmp(name, str(r, "name")) == 0)
			return 1;
	return 0;
}

/* The cells registers (each kernel's, "27 / 40") and spilled bytes (stores + loads). */
static void
add_resource_cells(struct strbuf *sb, const cJSON *resources, const cJSON *reference)
{
	struct strbuf regs = STRBUF_INIT;
	double spills = 0;
	int any = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, resources) {
		if (reference && is_reference_kernel(r, reference))
			continue;
		strbuf_addf(&regs, "%s%.0f", any ? " / " : "",
		            cJSON_GetNumberValue(cJSON_GetObjectItem(r, "registers")));
		double st = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "spill_stores"));
		double ld = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "spill_loads"));
		spills += (st > 0 ? st : 0) + (ld > 0 ? ld : 0);
		any = 1;
	}
	add_element(sb, "td class=\"n\"", any ? regs.buf : "-");
	char buf[32] = "-";
	if (any)
		snprintf(buf, sizeof buf, "%.0f B", spills);
	add_element(sb, "td class=\"n\"", buf);
	strbuf_release(&regs);
}

static void
add_candidates(struct strbuf *sb, const cJSON *result)
{
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(result, "candidates");
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(result, "best");
	const cJSON *reference = cJSON_GetObjectItemCaseSensitive(result, "reference");
	strbuf_addstr(sb, "<h2>Candidates</h2>\n<table>\n<tr><th>#</th><th>configuration</th><th>verdict</th>"
	              "<th>speedup</th><th>registers</th><th>spills</th><th>note</th></tr>\n");
	if (reference) {
		strbuf_addstr(sb, "<tr><td></td><td>the reference</td><td></td><td></td>");
		add_resource_cells(sb, cJSON_GetObjectItemCaseSensitive(reference, "resources"), NULL);
		strbuf_addstr(sb, "<td></td></tr>\n");
	}
	int i = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, cands) {
		int is_best = cJSON_IsNumber(best) && best->valueint == i;
		const char *msg = str(c, "message");
		char num[32];
		snprintf(num, sizeof num, "%s%d", is_best ? "* " : "", i);
		strbuf_addstr(sb, is_best ? "<tr class=\"best\">" : "<tr>");
		add_element(sb, "td", num);
		add_element(sb, "td", str(c, "name") ? str(c, "name") : "?");
		add_element(sb, "td", str(c, "verdict") ? str(c, "verdict") : "?");
		add_number_cell(sb, cJSON_GetObjectItemCaseSensitive(c, "speedup"), "%.2fx");
		add_resource_cells(sb, cJSON_GetObjectItemCaseSensitive(c, "resources"), reference);
		char *first = msg ? egg_xstrndup(msg, strcspn(msg, "\n")) : NULL;
		add_element(sb, "td", first ? first : "");
		free(first);
		strbuf_addstr(sb, "</tr>\n");
		i++;
	}
	strbuf_addstr(sb, "</table>\n");
}

static void
add_winner(struct strbuf *sb, const struct cache_entry *e, const cJSON *result)
{
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(result, "best");
	const cJSON *w = cJSON_IsNumber(best)
	                 ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "candidates"), best->valueint)
	                 : NULL;
	if (!cache_entry_source(e)) {
		strbuf_addstr(sb, "<h2>Winner</h2>\n<p>None: egg links the reference.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<h2>Winner</h2>\n<table class=\"facts\">\n");
	add_fact(sb, "configuration", str(w, "name") ? str(w, "name") : "?");
	/* the calls it was verified for (harness/run.c: run_domain) */
	const cJSON *dom = cJSON_GetObjectItemCaseSensitive(w, "domain");
	add_fact(sb, "validity domain", str(dom, "summary") ? str(dom, "summary")
	         : "the named workloads only (verified before probe calls existed)");
	const cJSON *sk;
	cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(dom, "skipped")) {
		char *t = egg_xasprintf("%s: %s", str(sk, "call") ? str(sk, "call") : "?",
		                        str(sk, "why") ? str(sk, "why") : "?");
		add_fact(sb, "skipped", t);
		free(t);
	}
	add_fact(sb, "stopped", str(dom, "stopped"));
	strbuf_addstr(sb, "</table>\n<h3>Code</h3>\n<pre id=\"winner-code\">");
	report_page_escape(sb, cache_entry_source(e));
	strbuf_addstr(sb, "</pre>\n");
}

/* The fields of a step the heading and body do not show, as compact JSON. */
static void
add_step_rest(struct strbuf *sb, const cJSON *step)
{
	char *t = report_show_step_rest(step);
	if (t)
		add_element(sb, "pre", t);
	free(t);
}

static void
add_step(struct strbuf *sb, const cJSON *step)
{
	strbuf_addstr(sb, "<li>");
	if (!cJSON_IsObject(step)) {
		char *t = cJSON_PrintUnformatted(step);
		add_element(sb, "pre", t);
		cJSON_free(t);
		strbuf_addstr(sb, "</li>\n");
		return;
	}
	struct strbuf head = STRBUF_INIT;
	const char *kind = str(step, "kind"), *cand = str(step, "candidate"), *verdict = str(step, "verdict");
	strbuf_addf(&head, "[%s]", str(step, "stage") ? str(step, "stage") : "-");
	if (str(step, "role"))
		strbuf_addf(&head, " %s", str(step, "role"));
	strbuf_addf(&head, " %s", kind ? kind : str(step, "decision") ? "decision" : "step");
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(step, "tokens");
	const cJSON *tin = cJSON_GetObjectItemCaseSensitive(tokens, "in");
	const cJSON *tout = cJSON_GetObjectItemCaseSensitive(tokens, "out");
	if (cJSON_IsNumber(tin) || cJSON_IsNumber(tout))
		strbuf_addf(&head, " (tokens in %.0f, out %.0f)", cJSON_IsNumber(tin) ? tin->valuedouble : 0,
		            cJSON_IsNumber(tout) ? tout->valuedouble : 0);
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(step, "speedup");
	if (cand || verdict || cJSON_IsNumber(sp)) {
		strbuf_addf(&head, ": %s%s%s", cand ? cand : "", cand && verdict ? ", " : "", verdict ? verdict : "");
		if (cJSON_IsNumber(sp))
			strbuf_addf(&head, "%s%.2fx", cand || verdict ? ", " : "", sp->valuedouble);
	}
	add_element(sb, "strong", head.buf);
	strbuf_release(&head);
	if (str(step, "text"))
		add_element(sb, "pre", str(step, "text"));
	if (str(step, "decision"))
		add_element(sb, "pre", str(step, "decision"));
	add_step_rest(sb, step);
	strbuf_addstr(sb, "</li>\n");
}

static void
add_transcript(struct strbuf *sb, const struct cache_entry *e)
{
	struct strbuf json = STRBUF_INIT;
	cache_entry_transcript_json(e, 0, &json);
	cJSON *t = cJSON_Parse(json.buf);
	const cJSON *steps = cJSON_IsArray(t) ? t : cJSON_GetObjectItemCaseSensitive(t, "steps");
	strbuf_addstr(sb, "<h2>Transcript</h2>\n");
	if (cJSON_IsArray(steps)) {
		strbuf_addstr(sb, "<ol class=\"steps\">\n");
		const cJSON *step;
		cJSON_ArrayForEach(step, steps)
			add_step(sb, step);
		strbuf_addstr(sb, "</ol>\n");
		if (steps != t)
			add_step_rest(sb, t);
	} else {
		add_element(sb, "pre", json.buf);
	}
	cJSON_Delete(t);
	strbuf_release(&json);
}

char *
report_page_kernel(const char *title, const void *record, const struct cache_entry *e,
                   const char *no_entry)
{
	const cJSON *rec = record;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	report_page_escape(&sb, title);
	strbuf_addf(&sb, " - egg report</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	            "<p><a href=\"../index.html\">all kernels</a></p>\n", report_page_style);
	add_element(&sb, "h1", title);
	strbuf_addch(&sb, '\n');
	add_summary(&sb, rec);
	add_workloads(&sb, rec);
	if (e) {
		struct strbuf json = STRBUF_INIT;
		cache_entry_result_json(e, 0, &json);
		cJSON *result = cJSON_Parse(json.buf);
		strbuf_release(&json);
		add_candidates(&sb, result);
		add_winner(&sb, e, result);
		add_transcript(&sb, e);
		cJSON_Delete(result);
	} else if (no_entry) {
		strbuf_addstr(&sb, "<p>");
		report_page_escape(&sb, no_entry);
		strbuf_addstr(&sb, "</p>\n");
	}
	strbuf_addstr(&sb, "</body>\n</html>\n");
	return strbuf_detach(&sb);
}
