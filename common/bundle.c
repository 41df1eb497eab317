/*
 * bundle.c -- the bundle's names, JSON writer and JSON reader (see bundle.h).
 *
 * The reader is strict about types and names (a bundle that comes back from a
 * cache or another machine must be exactly what a writer produced) and every
 * failure says which key was wrong, so that a corrupt job file is a clear error.
 */
#include "config.h"
#include "common/bundle.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = { "launcher", "kernel" };
static const char *const role_names[] = { "scalar", "in", "out", "inout", "temp" };
static const char *const precision_names[] = { "default", "tf32", "bf16", "fp16" };

static int
lookup(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

const char *
bundle_kind_name(enum bundle_kind k)
{
	return (size_t)k < COUNT(kind_names) ? kind_names[k] : "?";
}

int
bundle_kind_parse(const char *s, enum bundle_kind *out)
{
	int i = lookup(kind_names, COUNT(kind_names), s);
	if (i >= 0)
		*out = (enum bundle_kind)i;
	return i < 0 ? -1 : 0;
}

const char *
bundle_role_name(enum bundle_role r)
{
	return (size_t)r < COUNT(role_names) ? role_names[r] : "?";
}

int
bundle_role_parse(const char *s, enum bundle_role *out)
{
	int i = lookup(role_names, COUNT(role_names), s);
	if (i >= 0)
		*out = (enum bundle_role)i;
	return i < 0 ? -1 : 0;
}

const char *
bundle_precision_name(enum bundle_precision p)
{
	return (size_t)p < COUNT(precision_names) ? precision_names[p] : "?";
}

int
bundle_precision_parse(const char *s, enum bundle_precision *out)
{
	int i = lookup(precision_names, COUNT(precision_names), s);
	if (i >= 0)
		*out = (enum bundle_precision)i;
	return i < 0 ? -1 : 0;
}

const struct bundle_param *
bundle_find_param(const struct egg_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->n_params; i++)
		if (strcmp(b->params[i].name, name) == 0)
			return &b->params[i];
	return NULL;
}

int
bundle_is_null_spelling(const char *s)
{
	size_t open = 0;
	while (*s == '(' || isspace((unsigned char)*s))
		open += *s++ == '(';
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	int word = (n == 4 && strncmp(s, "NULL", 4) == 0) || (n == 7 && strncmp(s, "nullptr", 7) == 0) ||
	           (n == 1 && s[0] == '0');
	for (s += n; *s == ')' || isspace((unsigned char)*s); s++)
		if (*s == ')' && open-- == 0)
			return 0;
	return word && !*s && open == 0;
}

int
bundle_workload_leaves_null(const struct egg_bundle *b, const struct bundle_workload *w,
                            const char *name)
{
	const struct bundle_param *p = bundle_find_param(b, name);
	if (!p || !p->is_pointer)
		return 0;
	for (size_t i = 0; i < w->n_bindings; i++)
		if (strcmp(w->bindings[i].name, name) == 0)
			return 1;
	return 0;
}

int
bundle_param_is_optional(const struct egg_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->n_workloads; i++)
		if (bundle_workload_leaves_null(b, &b->workloads[i], name))
			return 1;
	return 0;
}

char *
bundle_namespace(const struct egg_bundle *b)
{
	const char *q = b->qualified_name ? b->qualified_name : b->name, *last = q;
	for (const char *s = strstr(q, "::"); s; s = strstr(s + 2, "::"))
		last = s + 2;
	return egg_xstrndup(q, last > q ? (size_t)(last - q) - 2 : 0);
}

/* ---- writer ---- */

static void
add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

void *
bundle_to_cjson(const struct egg_bundle *b)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", EGG_BUNDLE_SCHEMA);
	cJSON_AddNumberToObject(o, "version", EGG_BUNDLE_VERSION);
	add_str(o, "name", b->name);
	add_str(o, "qualified_name", b->qualified_name);
	cJSON_AddStringToObject(o, "kind", bundle_kind_name(b->kind));
	cJSON_AddBoolToObject(o, "extern_c", b->extern_c);
	cJSON_AddBoolToObject(o, "is_static", b->is_static);
	add_str(o, "signature", b->signature);

	cJSON *params = cJSON_AddArrayToObject(o, "params");
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		cJSON *jp = cJSON_CreateObject();
		add_str(jp, "name", p->name);
		add_str(jp, "type", p->type);
		add_str(jp, "elem_type", p->elem_type);
		cJSON_AddBoolToObject(jp, "is_pointer", p->is_pointer);
		cJSON_AddBoolToObject(jp, "is_const", p->is_const);
		cJSON_AddStringToObject(jp, "role", bundle_role_name(p->role));
		add_str(jp, "extent", p->extent);
		if (p->range_lo || p->range_hi) {
			cJSON *r = cJSON_AddObjectToObject(jp, "range");
			add_str(r, "lo", p->range_lo);
			add_str(r, "hi", p->range_hi);
		} else {
			cJSON_AddNullToObject(jp, "range");
		}
		cJSON_AddNumberToObject(jp, "align", p->align);
		cJSON_AddItemToArray(params, jp);
	}

	cJSON *wls = cJSON_AddArrayToObject(o, "workloads");
	for (size_t i = 0; i < b->n_workloads; i++) {
		cJSON *wl = cJSON_CreateArray();
		for (size_t j = 0; j < b->workloads[i].n_bindings; j++) {
			const struct bundle_binding *bd = &b->workloads[i].bindings[j];
			cJSON *jb = cJSON_CreateObject();
			add_str(jb, "name", bd->name);
			add_str(jb, "value", bd->value);
			cJSON_AddItemToArray(wl, jb);
		}
		cJSON_AddItemToArray(wls, wl);
	}

	if (b->rtol || b->atol) {
		cJSON *t = cJSON_AddObjectToObject(o, "tolerance");
		add_str(t, "rtol", b->rtol);
		add_str(t, "atol", b->atol);
	} else {
		cJSON_AddNullToObject(o, "tolerance");
	}
	cJSON_AddStringToObject(o, "precision", bundle_precision_name(b->precision));
	if (b->launch_grid) {
		cJSON *l = cJSON_AddObjectToObject(o, "launch");
		add_str(l, "grid", b->launch_grid);
		add_str(l, "block", b->launch_block);
		add_str(l, "smem", b->launch_smem);
	} else {
		cJSON_AddNullToObject(o, "launch");
	}
	add_str(o, "pragma", b->pragma);
	cJSON *loc = cJSON_AddObjectToObject(o, "location");
	add_str(loc, "file", b->file);
	cJSON_AddNumberToObject(loc, "line", b->line);
	cJSON_AddNumberToObject(loc, "column", b->column);
	cJSON *inc = cJSON_AddArrayToObject(o, "includes");
	for (size_t i = 0; i < b->n_includes; i++)
		cJSON_AddItemToArray(inc, cJSON_CreateString(b->includes[i]));
	add_str(o, "closure", b->closure);
	add_str(o, "target", b->target);
	add_str(o, "canonical", b->canonical);
	if (b->has_spans) {
		cJSON *sp = cJSON_AddObjectToObject(o, "spans");
		const struct { const char *k; const struct bundle_span *s; } spans[] = {
			{ "pragma", &b->span_pragma }, { "definition", &b->span_definition },
			{ "name", &b->span_name }, { "body", &b->span_body },
		};
		for (size_t i = 0; i < COUNT(spans); i++) {
			cJSON *pair = cJSON_CreateArray();
			cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)spans[i].s->begin));
			cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)spans[i].s->end));
			cJSON_AddItemToObject(sp, spans[i].k, pair);
		}
	} else {
		cJSON_AddNullToObject(o, "spans");
	}
	return o;
}

void
bundle_to_json(const struct egg_bundle *b, int pretty, struct strbuf *out)
{
	cJSON *o = bundle_to_cjson(b);
	char *s = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	strbuf_addstr(out, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

/* ---- reader ---- */

struct reader {
	struct strbuf *err;
	int failed;
};

static void
bad(struct reader *r, const char *ctx, const char *key, const char *what)
{
	if (r->failed++)
		return;
	strbuf_addf(r->err, "bundle: %s%s'%s' %s", ctx ? ctx : "", ctx ? ": " : "", key, what);
}

/* A string member, copied; NULL when null (allowed only if !required). */
static char *
get_str(struct reader *r, const cJSON *o, const char *key, int required, const char *ctx)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v)) {
		if (required || !v)
			bad(r, ctx, key, v ? "must not be null" : "is missing");
		return NULL;
	}
	if (!cJSON_IsString(v)) {
		bad(r, ctx, key, "must be a string");
		return NULL;
	}
	return egg_xstrdup(v->valuestring);
}

static int
get_bool(struct reader *r, const cJSON *o, const char *key, const char *ctx)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsBool(v)) {
		bad(r, ctx, key, v ? "must be true or false" : "is missing");
		return 0;
	}
	return cJSON_IsTrue(v);
}

static unsigned
get_uint(struct reader *r, const cJSON *o, const char *key, const char *ctx)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4294967295.0) {
		bad(r, ctx, key, v ? "must be a non-negative integer" : "is missing");
		return 0;
	}
	return (unsigned)v->valuedouble;
}

static const cJSON *
get_member(struct reader *r, const cJSON *o, const char *key, int (*is)(const cJSON *),
           int nullable, const char *what, const char *ctx)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v) {
		bad(r, ctx, key, "is missing");
		return NULL;
	}
	if (nullable && cJSON_IsNull(v))
		return NULL;
	if (!is(v)) {
		bad(r, ctx, key, what);
		return NULL;
	}
	return v;
}

static int
is_object(const cJSON *v)
{
	return cJSON_IsObject(v);
}

static int
is_array(const cJSON *v)
{
	return cJSON_IsArray(v);
}

static void
read_param(struct reader *r, const cJSON *jp, struct bundle_param *p, size_t idx)
{
	char ctx[48];
	snprintf(ctx, sizeof ctx, "params[%zu]", idx);
	if (!cJSON_IsObject(jp)) {
		bad(r, "params", ctx, "must be an object");
		return;
	}
	p->name = get_str(r, jp, "name", 1, ctx);
	p->type = get_str(r, jp, "type", 1, ctx);
	p->elem_type = get_str(r, jp, "elem_type", 1, ctx);
	p->is_pointer = get_bool(r, jp, "is_pointer", ctx);
	p->is_const = get_bool(r, jp, "is_const", ctx);
	char *role = get_str(r, jp, "role", 1, ctx);
	if (role && bundle_role_parse(role, &p->role) < 0)
		bad(r, ctx, "role", "must be scalar, in, out, inout or temp");
	free(role);
	p->extent = get_str(r, jp, "extent", 0, ctx);
	const cJSON *range = get_member(r, jp, "range", is_object, 1, "must be an object or null", ctx);
	if (range) {
		p->range_lo = get_str(r, range, "lo", 1, ctx);
		p->range_hi = get_str(r, range, "hi", 1, ctx);
	}
	/* optional: bundles written before aligned(...) have none */
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(jp, "align");
	if (al && !cJSON_IsNull(al)) {
		if (!cJSON_IsNumber(al) || al->valuedouble < 0 || al->valuedouble > 65536 ||
		    al->valuedouble != (double)(unsigned)al->valuedouble)
			bad(r, ctx, "align", "must be a number of bytes (0 to 65536)");
		else
			p->align = (unsigned)al->valuedouble;
	}
}

static void
read_workloads(struct reader *r, const cJSON *arr, struct egg_bundle *b)
{
	b->n_workloads = (size_t)cJSON_GetArraySize(arr);
	b->workloads = egg_xcalloc(b->n_workloads, sizeof *b->workloads);
	size_t i = 0;
	const cJSON *wl;
	cJSON_ArrayForEach(wl, arr) {
		char ctx[48];
		snprintf(ctx, sizeof ctx, "workloads[%zu]", i);
		struct bundle_workload *w = &b->workloads[i++];
		if (!cJSON_IsArray(wl)) {
			bad(r, "workloads", ctx, "must be an array");
			continue;
		}
		w->n_bindings = (size_t)cJSON_GetArraySize(wl);
		w->bindings = egg_xcalloc(w->n_bindings, sizeof *w->bindings);
		size_t j = 0;
		const cJSON *jb;
		cJSON_ArrayForEach(jb, wl) {
			if (!cJSON_IsObject(jb)) {
				bad(r, ctx, "binding", "must be an object");
				j++;
				continue;
			}
			w->bindings[j].name = get_str(r, jb, "name", 1, ctx);
			w->bindings[j].value = get_str(r, jb, "value", 1, ctx);
			const struct bundle_param *p =
				w->bindings[j].name ? bundle_find_param(b, w->bindings[j].name) : NULL;
			if (p && p->is_pointer && w->bindings[j].value &&
			    !bundle_is_null_spelling(w->bindings[j].value))
				bad(r, ctx, w->bindings[j].name,
				    "is a pointer parameter: a workload may only leave it NULL");
			j++;
		}
	}
}

static void
read_span(struct reader *r, const cJSON *sp, const char *key, struct bundle_span *out)
{
	const cJSON *pair = cJSON_GetObjectItemCaseSensitive(sp, key);
	const cJSON *b = cJSON_GetArrayItem(pair, 0), *e = cJSON_GetArrayItem(pair, 1);
	if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(b) ||
	    !cJSON_IsNumber(e) || b->valuedouble < 0 || e->valuedouble < b->valuedouble) {
		bad(r, "spans", key, "must be [begin, end] with 0 <= begin <= end");
		return;
	}
	out->begin = (unsigned long)b->valuedouble;
	out->end = (unsigned long)e->valuedouble;
}

/* "spans" is optional: hand-written evaluation jobs are not tied to a file. */
static void
read_spans(struct reader *r, const cJSON *sp, struct egg_bundle *b)
{
	if (!sp || cJSON_IsNull(sp))
		return;
	if (!cJSON_IsObject(sp)) {
		bad(r, NULL, "spans", "must be an object or null");
		return;
	}
	read_span(r, sp, "pragma", &b->span_pragma);
	read_span(r, sp, "definition", &b->span_definition);
	read_span(r, sp, "name", &b->span_name);
	read_span(r, sp, "body", &b->span_body);
	b->has_spans = 1;
}

struct egg_bundle *
bundle_from_cjson(const void *json, struct strbuf *err)
{
	const cJSON *o = json;
	struct reader r = { err, 0 };
	if (!cJSON_IsObject(o)) {
		strbuf_addstr(err, "bundle: expected a JSON object");
		return NULL;
	}
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	char *schema = get_str(&r, o, "schema", 1, NULL);
	if (schema && strcmp(schema, EGG_BUNDLE_SCHEMA) != 0)
		bad(&r, NULL, "schema", "is not \"" EGG_BUNDLE_SCHEMA "\"");
	free(schema);
	if (!r.failed && get_uint(&r, o, "version", NULL) != EGG_BUNDLE_VERSION)
		bad(&r, NULL, "version", "is not a version this egg reads");

	b->name = get_str(&r, o, "name", 1, NULL);
	b->qualified_name = get_str(&r, o, "qualified_name", 1, NULL);
	char *kind = get_str(&r, o, "kind", 1, NULL);
	if (kind && bundle_kind_parse(kind, &b->kind) < 0)
		bad(&r, NULL, "kind", "must be \"launcher\" or \"kernel\"");
	free(kind);
	b->extern_c = get_bool(&r, o, "extern_c", NULL);
	b->is_static = get_bool(&r, o, "is_static", NULL);
	b->signature = get_str(&r, o, "signature", 1, NULL);

	const cJSON *params = get_member(&r, o, "params", is_array, 0, "must be an array", NULL);
	if (params) {
		b->n_params = (size_t)cJSON_GetArraySize(params);
		b->params = egg_xcalloc(b->n_params, sizeof *b->params);
		size_t i = 0;
		const cJSON *jp;
		cJSON_ArrayForEach(jp, params) {
			read_param(&r, jp, &b->params[i], i);
			i++;
		}
	}
	const cJSON *wls = get_member(&r, o, "workloads", is_array, 0, "must be an array", NULL);
	if (wls)
		read_workloads(&r, wls, b);

	const cJSON *tol = get_member(&r, o, "tolerance", is_object, 1, "must be an object or null", NULL);
	if (tol) {
		b->rtol = get_str(&r, tol, "rtol", 0, "tolerance");
		b->atol = get_str(&r, tol, "atol", 0, "tolerance");
	}
	char *prec = get_str(&r, o, "precision", 1, NULL);
	if (prec && bundle_precision_parse(prec, &b->precision) < 0)
		bad(&r, NULL, "precision", "must be default, tf32, bf16 or fp16");
	free(prec);
	const cJSON *launch = get_member(&r, o, "launch", is_object, 1, "must be an object or null", NULL);
	if (launch) {
		b->launch_grid = get_str(&r, launch, "grid", 1, "launch");
		b->launch_block = get_str(&r, launch, "block", 1, "launch");
		b->launch_smem = get_str(&r, launch, "smem", 0, "launch");
	}
	b->pragma = get_str(&r, o, "pragma", 1, NULL);
	const cJSON *loc = get_member(&r, o, "location", is_object, 0, "must be an object", NULL);
	if (loc) {
		b->file = get_str(&r, loc, "file", 1, "location");
		b->line = get_uint(&r, loc, "line", "location");
		b->column = get_uint(&r, loc, "column", "location");
	}
	const cJSON *inc = get_member(&r, o, "includes", is_array, 0, "must be an array", NULL);
	if (inc) {
		b->n_includes = (size_t)cJSON_GetArraySize(inc);
		b->includes = egg_xcalloc(b->n_includes, sizeof *b->includes);
		size_t i = 0;
		const cJSON *s;
		cJSON_ArrayForEach(s, inc) {
			if (!cJSON_IsString(s))
				bad(&r, NULL, "includes", "must hold only strings");
			else
				b->includes[i] = egg_xstrdup(s->valuestring);
			i++;
		}
	}
	b->closure = get_str(&r, o, "closure", 1, NULL);
	b->target = get_str(&r, o, "target", 1, NULL);
	b->canonical = get_str(&r, o, "canonical", 1, NULL);
	read_spans(&r, cJSON_GetObjectItemCaseSensitive(o, "spans"), b);

	if (r.failed) {
		bundle_free(b);
		return NULL;
	}
	return b;
}

struct egg_bundle *
bundle_from_json(const char *text, struct strbuf *err)
{
	cJSON *o = cJSON_Parse(text);
	if (!o) {
		const char *at = cJSON_GetErrorPtr();
		strbuf_addf(err, "bundle: not valid JSON (near byte %ld)",
		            at && at >= text ? (long)(at - text) : 0L);
		return NULL;
	}
	struct egg_bundle *b = bundle_from_cjson(o, err);
	cJSON_Delete(o);
	return b;
}

void
bundle_free(struct egg_bundle *b)
{
	if (!b)
		return;
	free(b->name);
	free(b->qualified_name);
	free(b->signature);
	for (size_t i = 0; i < b->n_params; i++) {
		struct bundle_param *p = &b->params[i];
		free(p->name);
		free(p->type);
		free(p->elem_type);
		free(p->extent);
		free(p->range_lo);
		free(p->range_hi);
	}
	free(b->params);
	for (size_t i = 0; i < b->n_workloads; i++) {
		for (size_t j = 0; j < b->workloads[i].n_bindings; j++) {
			free(b->workloads[i].bindings[j].name);
			free(b->workloads[i].bindings[j].value);
		}
		free(b->workloads[i].bindings);
	}
	free(b->workloads);
	free(b->rtol);
	free(b->atol);
	free(b->launch_grid);
	free(b->launch_block);
	free(b->launch_smem);
	free(b->pragma);
	free(b->file);
	for (size_t i = 0; i < b->n_includes; i++)
		free(b->includes[i]);
	free(b->includes);
	free(b->closure);
	free(b->target);
	free(b->canonical);
	free(b);
}
