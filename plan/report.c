/*
 * report.c -- see report.h.
 *
 * A record is built only from what egg itself decided (the outcome, the key,
 * the generator's identity) and from a few numbers of the evaluation result; the
 * result itself is not copied, so nothing a candidate printed and no secret can
 * reach a report.  Appending is the one piece that has to be careful: several
 * compilers of one `make -j` append to the same file at once, so each record is
 * written with a single write(2) on an O_APPEND descriptor while holding an
 * exclusive flock(2) on it (O_APPEND alone keeps local writes whole; the lock
 * also covers network file systems and short writes).
 */
#include "config.h"
#include "plan/report.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
add_string_or_null(cJSON *o, const char *name, const char *value)
{
	if (value)
		cJSON_AddStringToObject(o, name, value);
	else
		cJSON_AddNullToObject(o, name);
}

static void
add_number_or_null(cJSON *o, const char *name, const cJSON *value)
{
	if (cJSON_IsNumber(value))
		cJSON_AddNumberToObject(o, name, value->valuedouble);
	else
		cJSON_AddNullToObject(o, name);
}

int
report_outcome_is_winner(const char *outcome)
{
	static const char *const won[] = { "searched-winner", "cache-hit", "verified", "winner", NULL };
	for (const char *const *w = won; *w; w++)
		if (outcome && strcmp(outcome, *w) == 0)
			return 1;
	return 0;
}

/* The candidate whose numbers the record carries: the result's best, or the
 * single candidate of a verification that failed (its numbers say how). */
static const cJSON *
chosen_candidate(const cJSON *result, const char *outcome)
{
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(result, "candidates");
	const cJSON *best = cJSON_GetObjectItemCaseSensitive(result, "best");
	if (cJSON_IsNumber(best))
		return cJSON_GetArrayItem(cands, best->valueint);
	if (outcome && strcmp(outcome, "verify-failed") == 0 && cJSON_GetArraySize(cands) == 1)
		return cJSON_GetArrayItem(cands, 0);
	return NULL;
}

/* A candidate whose run has timings, for the reference's times when there is
 * no winner (each run times the reference beside the candidate). */
static const cJSON *
timed_candidate(const cJSON *result)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(result, "candidates")) {
		const cJSON *run = cJSON_GetObjectItemCaseSensitive(c, "run");
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run, "timings")) > 0)
			return c;
	}
	return NULL;
}

/* speedup, workloads and gpu from the result: the chosen candidate's numbers,
 * or only the reference's times when none was chosen. */
static void
add_measurements(cJSON *rec, const cJSON *result, const char *outcome)
{
	const cJSON *c = chosen_candidate(result, outcome);
	int ref_only = !c;
	if (ref_only)
		c = timed_candidate(result);
	add_number_or_null(rec, "speedup", ref_only ? NULL : cJSON_GetObjectItemCaseSensitive(c, "speedup"));
	cJSON *w = cJSON_AddArrayToObject(rec, "workloads");
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(c, "run");
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(run, "timings")) {
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(t, "reference");
		const cJSON *cand = cJSON_GetObjectItemCaseSensitive(t, "candidate");
		cJSON *o = cJSON_CreateObject();
		add_number_or_null(o, "workload", cJSON_GetObjectItemCaseSensitive(t, "workload"));
		add_number_or_null(o, "reference_ms", cJSON_GetObjectItemCaseSensitive(ref, "median_ms"));
		add_number_or_null(o, "winner_ms",
		                   ref_only ? NULL : cJSON_GetObjectItemCaseSensitive(cand, "median_ms"));
		add_number_or_null(o, "speedup", ref_only ? NULL : cJSON_GetObjectItemCaseSensitive(t, "speedup"));
		cJSON_AddItemToArray(w, o);
	}
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(result, "device");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");
	add_string_or_null(rec, "gpu", cJSON_IsString(name) ? name->valuestring : NULL);
}

/* Where the kernel's pragma is, its clauses, and each workload's bindings. */
static void
add_analysis(cJSON *rec, const struct egg_bundle *b)
{
	if (!b) {
		cJSON_AddNullToObject(rec, "location");
		cJSON_AddNullToObject(rec, "clauses");
		return;
	}
	cJSON *loc = cJSON_AddObjectToObject(rec, "location");
	add_string_or_null(loc, "file", b->file);
	cJSON_AddNumberToObject(loc, "line", b->line);
	add_string_or_null(rec, "clauses", b->pragma);
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rec, "workloads")) {
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(w, "workload");
		if (!cJSON_IsNumber(i) || i->valueint < 0 || (size_t)i->valueint >= b->n_workloads)
			continue;
		const struct bundle_workload *bw = &b->workloads[i->valueint];
		struct strbuf sb = STRBUF_INIT;
		for (size_t k = 0; k < bw->n_bindings; k++)
			strbuf_addf(&sb, "%s%s = %s", k ? ", " : "", bw->bindings[k].name, bw->bindings[k].value);
		cJSON_AddStringToObject((cJSON *)w, "values", sb.buf);
		strbuf_release(&sb);
	}
}

static void
format_utc(time_t when, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&when, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What the search behind the entry spent, from its transcript (report.h):
 * the usage note of a model search, else the model's responses and their
 * tokens (none for the builtin's); the wall time this build measured when it
 * searched and the transcript does not say. */
static void
add_search_cost(cJSON *rec, const struct report_kernel *k)
{
	cJSON *t = k->transcript_json ? cJSON_Parse(k->transcript_json) : NULL;
	if (!t) {
		cJSON_AddNullToObject(rec, "search");
		return;
	}
	double calls = 0, in = 0, out = 0, wall = -1;
	const cJSON *step, *u = NULL;
	cJSON_ArrayForEach(step, t) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(step, "usage");
		if (cJSON_IsObject(x))
			u = x;
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(step, "kind");
		const cJSON *tok = cJSON_GetObjectItemCaseSensitive(step, "tokens");
		if (cJSON_IsString(kind) && strcmp(kind->valuestring, "response") == 0)
			calls++;
		const cJSON *ti = cJSON_GetObjectItemCaseSensitive(tok, "in");
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(tok, "out");
		in += cJSON_IsNumber(ti) ? ti->valuedouble : 0;
		out += cJSON_IsNumber(to) ? to->valuedouble : 0;
	}
	if (u) {
		const cJSON *v;
		calls = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "model_calls")) ? v->valuedouble : calls;
		in = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "tokens_in")) ? v->valuedouble : in;
		out = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "tokens_out")) ? v->valuedouble : out;
		wall = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, "wall_s")) ? v->valuedouble : -1;
	}
	if (wall < 0 && k->outcome && strncmp(k->outcome, "searched-", 9) == 0 && k->wall_s >= 0)
		wall = round(k->wall_s * 1000) / 1000;
	cJSON *o = cJSON_AddObjectToObject(rec, "search");
	cJSON_AddNumberToObject(o, "model_calls", calls);
	cJSON_AddNumberToObject(o, "tokens_in", in);
	cJSON_AddNumberToObject(o, "tokens_out", out);
	if (wall >= 0)
		cJSON_AddNumberToObject(o, "wall_s", wall);
	else
		cJSON_AddNullToObject(o, "wall_s");
	cJSON_Delete(t);
}

static void *
record_new(const struct report_kernel *k, const cJSON *result)
{
	char when[32];
	format_utc(k->when, when, sizeof when);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "schema", REPORT_SCHEMA);
	cJSON_AddNumberToObject(r, "version", REPORT_VERSION);
	cJSON_AddStringToObject(r, "time", when);
	add_string_or_null(r, "source", k->source);
	add_string_or_null(r, "kernel", k->kernel);
	add_string_or_null(r, "key", k->key);
	add_string_or_null(r, "arch", k->arch);
	add_string_or_null(r, "mode", k->mode);
	add_string_or_null(r, "outcome", k->outcome);
	add_string_or_null(r, "reason", k->reason);
	add_measurements(r, result, k->outcome);
	cJSON *g = cJSON_AddObjectToObject(r, "generator");
	add_string_or_null(g, "backend", k->backend);
	add_string_or_null(g, "model", k->model);
	add_string_or_null(g, "recipe", k->recipe);
	if (k->wall_s >= 0) /* milliseconds are plenty */
		cJSON_AddNumberToObject(r, "wall_s", round(k->wall_s * 1000) / 1000);
	else
		cJSON_AddNullToObject(r, "wall_s");
	add_analysis(r, k->bundle);
	add_search_cost(r, k);
	return r;
}

void *
report_record_new(const struct report_kernel *k)
{
	cJSON *result = k->result_json ? cJSON_Parse(k->result_json) : NULL;
	void *r = record_new(k, result);
	cJSON_Delete(result);
	return r;
}

void
report_record_free(void *record)
{
	cJSON_Delete(record);
}

/* The result's "outcome" member ("not lifted", "verify failed"), or "". */
static const char *
result_outcome(const cJSON *result)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(result, "outcome");
	return cJSON_IsString(o) ? o->valuestring : "";
}

static const char *
outcome_of(const struct cache_entry *e, const cJSON *result)
{
	if (!cache_entry_is_negative(e))
		return "winner";
	if (strcmp(result_outcome(result), "not lifted") == 0)
		return "not-lifted";
	if (strcmp(result_outcome(result), "verify failed") == 0)
		return "verify-failed";
	return "negative";
}

static cJSON *
entry_result(const struct cache_entry *e)
{
	struct strbuf sb = STRBUF_INIT;
	cache_entry_result_json(e, 0, &sb);
	cJSON *result = cJSON_Parse(sb.buf);
	strbuf_release(&sb);
	return result;
}

const char *
report_entry_outcome(const struct cache_entry *e)
{
	cJSON *result = entry_result(e);
	const char *o = outcome_of(e, result);
	cJSON_Delete(result);
	return o;
}

char *
report_entry_reason(const struct cache_entry *e)
{
	if (!cache_entry_is_negative(e))
		return NULL;
	cJSON *result = entry_result(e);
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(result, "reason");
	char *r = cJSON_IsString(reason) ? egg_xstrdup(reason->valuestring) : NULL;
	cJSON_Delete(result);
	return r;
}

void *
report_record_from_entry(const struct cache_entry *e, time_t when)
{
	cJSON *result = entry_result(e);
	const cJSON *arch = cJSON_GetObjectItemCaseSensitive(result, "arch");
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(result, "reason");
	struct strbuf transcript = STRBUF_INIT;
	cache_entry_transcript_json(e, 0, &transcript);
	struct report_kernel k = {
		.transcript_json = transcript.buf,
		.kernel = cache_entry_name(e),
		.key = cache_entry_key(e),
		.arch = cJSON_IsString(arch) ? arch->valuestring : NULL,
		.outcome = outcome_of(e, result),
		.reason = cJSON_IsString(reason) ? reason->valuestring : NULL,
		.backend = cache_entry_generator_field(e, "backend"),
		.model = cache_entry_generator_field(e, "model"),
		.recipe = cache_entry_generator_field(e, "recipe"),
		.when = when,
		.wall_s = -1,
	};
	void *r = record_new(&k, result);
	cJSON_Delete(result);
	strbuf_release(&transcript);
	return r;
}

int
report_append(const char *path, const void *record, struct strbuf *err)
{
	char *text = cJSON_PrintUnformatted(record);
	if (!text) {
		strbuf_addstr(err, "out of memory");
		return -1;
	}
	char *line = egg_xasprintf("%s\n", text);
	cJSON_free(text);
	const char *step;
	int rc = fs_append_locked(path, line, strlen(line), &step);
	if (rc < 0)
		strbuf_addf(err, "cannot %s the report %s: %s", step, path, strerror(errno));
	free(line);
	return rc;
}
