/*
 * entry.c -- an entry's JSON form, its checksum and its signature (entry.h).
 *
 * The checksum and the signature cover the stored bytes themselves: the
 * document is written as its canonical text (unformatted JSON without them)
 * with ,"checksum":"..." and ,"signature":"..." spliced in before the final
 * brace.  A reader therefore checks the bytes it received, before and without
 * re-printing anything, so entries written with another cJSON (which may print
 * numbers differently) verify just the same.
 */
#include "config.h"
#include "cache/entry.h"
#include "common/util.h"
#include "common/digest.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

struct cache_entry {
	char *key;
	char *name;
	char *source; /* NULL: negative */
	cJSON *result;
	cJSON *transcript;
	char *backend, *model, *recipe;
	cJSON *checked; /* array of generator objects; NULL: none */
	int is_signed;
};

static void
replace(char **slot, const char *s)
{
	free(*slot);
	*slot = s ? egg_xstrdup(s) : NULL;
}

struct cache_entry *
cache_entry_new(const char *key)
{
	struct cache_entry *e = egg_xcalloc(1, sizeof *e);
	e->key = egg_xstrdup(key);
	e->result = cJSON_CreateObject();
	e->transcript = cJSON_CreateArray();
	return e;
}

void
cache_entry_free(struct cache_entry *e)
{
	if (!e)
		return;
	free(e->key);
	free(e->name);
	free(e->source);
	cJSON_Delete(e->result);
	cJSON_Delete(e->transcript);
	free(e->backend);
	free(e->model);
	free(e->recipe);
	cJSON_Delete(e->checked);
	free(e);
}

struct cache_entry *
cache_entry_dup(const struct cache_entry *e)
{
	struct cache_entry *d = cache_entry_new(e->key);
	replace(&d->name, e->name);
	replace(&d->source, e->source);
	cJSON_Delete(d->result);
	cJSON_Delete(d->transcript);
	d->result = cJSON_Duplicate(e->result, 1);
	d->transcript = cJSON_Duplicate(e->transcript, 1);
	replace(&d->backend, e->backend);
	replace(&d->model, e->model);
	replace(&d->recipe, e->recipe);
	d->checked = e->checked ? cJSON_Duplicate(e->checked, 1) : NULL;
	return d;
}

void
cache_entry_set_name(struct cache_entry *e, const char *name)
{
	replace(&e->name, name);
}

void
cache_entry_set_source(struct cache_entry *e, const char *source)
{
	replace(&e->source, source);
}

void
cache_entry_set_negative(struct cache_entry *e)
{
	replace(&e->source, NULL);
}

void
cache_entry_set_generator(struct cache_entry *e, const struct cache_generator *g)
{
	replace(&e->backend, g->backend);
	replace(&e->model, g->model);
	replace(&e->recipe, g->recipe);
}

static int
set_json(cJSON **slot, const char *json, int allow_array, const char *what, struct strbuf *err)
{
	cJSON *v = cJSON_Parse(json ? json : "");
	if (!v || !(cJSON_IsObject(v) || (allow_array && cJSON_IsArray(v)))) {
		strbuf_addf(err, "the %s is not a JSON %s", what, allow_array ? "object or array" : "object");
		cJSON_Delete(v);
		return -1;
	}
	cJSON_Delete(*slot);
	*slot = v;
	return 0;
}

int
cache_entry_set_result(struct cache_entry *e, const char *json, struct strbuf *err)
{
	return set_json(&e->result, json, 0, "evaluation result", err);
}

int
cache_entry_set_transcript(struct cache_entry *e, const char *json, struct strbuf *err)
{
	return set_json(&e->transcript, json, 1, "search transcript", err);
}

const char *
cache_entry_key(const struct cache_entry *e)
{
	return e->key;
}

const char *
cache_entry_name(const struct cache_entry *e)
{
	return e->name;
}

int
cache_entry_is_negative(const struct cache_entry *e)
{
	return e->source == NULL;
}

const char *
cache_entry_source(const struct cache_entry *e)
{
	return e->source;
}

int
cache_entry_is_signed(const struct cache_entry *e)
{
	return e->is_signed;
}

const char *
cache_entry_generator_field(const struct cache_entry *e, const char *field)
{
	if (strcmp(field, "backend") == 0)
		return e->backend;
	if (strcmp(field, "model") == 0)
		return e->model;
	if (strcmp(field, "recipe") == 0)
		return e->recipe;
	return NULL;
}

static int
same_field(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int
cache_entry_is_from(const struct cache_entry *e, const struct cache_generator *g)
{
	return same_field(e->backend, g->backend) && same_field(e->model, g->model) &&
	       same_field(e->recipe, g->recipe);
}

static const char *
member(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
cache_entry_was_checked_by(const struct cache_entry *e, const struct cache_generator *g)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, e->checked) {
		if (same_field(member(c, "backend"), g->backend) && same_field(member(c, "model"), g->model) &&
		    same_field(member(c, "recipe"), g->recipe))
			return 1;
	}
	return 0;
}

static void
add_str_or_null(cJSON *o, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, name, s);
	else
		cJSON_AddNullToObject(o, name);
}

/* A generator as the entry writes it: {"backend", "model", "recipe"}. */
static cJSON *
generator_object(const char *backend, const char *model, const char *recipe)
{
	cJSON *g = cJSON_CreateObject();
	add_str_or_null(g, "backend", backend);
	add_str_or_null(g, "model", model);
	add_str_or_null(g, "recipe", recipe);
	return g;
}

void
cache_entry_add_checked(struct cache_entry *e, const struct cache_generator *g)
{
	if (cache_entry_was_checked_by(e, g))
		return;
	if (!e->checked)
		e->checked = cJSON_CreateArray();
	cJSON_AddItemToArray(e->checked, generator_object(g->backend, g->model, g->recipe));
}

static void
print_json(const cJSON *v, int pretty, struct strbuf *out)
{
	char *s = pretty ? cJSON_Print(v) : cJSON_PrintUnformatted(v);
	if (!s) {
		egg_error("out of memory printing JSON");
		exit(1);
	}
	strbuf_addstr(out, s);
	free(s);
}

void
cache_entry_result_json(const struct cache_entry *e, int pretty, struct strbuf *out)
{
	print_json(e->result, pretty, out);
}

void
cache_entry_transcript_json(const struct cache_entry *e, int pretty, struct strbuf *out)
{
	print_json(e->transcript, pretty, out);
}

/* The document without checksum and signature, members in the canonical order. */
static cJSON *
build_document(const struct cache_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", CACHE_ENTRY_SCHEMA);
	cJSON_AddNumberToObject(o, "version", CACHE_ENTRY_VERSION);
	cJSON_AddStringToObject(o, "key", e->key);
	add_str_or_null(o, "name", e->name);
	cJSON_AddStringToObject(o, "outcome", e->source ? "winner" : "negative");
	add_str_or_null(o, "source", e->source);
	cJSON_AddItemToObject(o, "result", cJSON_Duplicate(e->result, 1));
	cJSON_AddItemToObject(o, "transcript", cJSON_Duplicate(e->transcript, 1));
	cJSON_AddItemToObject(o, "generator", generator_object(e->backend, e->model, e->recipe));
	if (cJSON_GetArraySize(e->checked) > 0) /* absent when empty: older entries' bytes stay */
		cJSON_AddItemToObject(o, "checked", cJSON_Duplicate(e->checked, 1));
	return o;
}

void
cache_entry_serialize(const struct cache_entry *e, const char *secret, struct strbuf *out)
{
	cJSON *doc = build_document(e);
	struct strbuf canon = STRBUF_INIT;
	print_json(doc, 0, &canon);
	cJSON_Delete(doc);
	char hex[CACHE_KEY_HEX_LEN + 1];
	egg_sha256_hex(canon.buf, canon.len, hex);
	/* the canonical text without its closing brace, then the seals */
	strbuf_add(out, canon.buf, canon.len - 1);
	strbuf_addf(out, ",\"checksum\":\"%s\"", hex);
	if (secret && *secret) {
		egg_hmac_sha256_hex(secret, canon.buf, canon.len, hex);
		strbuf_addf(out, ",\"signature\":\"%s\"", hex);
	}
	strbuf_addstr(out, "}\n");
	strbuf_release(&canon);
}

void
cache_entry_to_json(const struct cache_entry *e, int pretty, struct strbuf *out)
{
	cJSON *doc = build_document(e);
	print_json(doc, pretty, out);
	cJSON_Delete(doc);
}

/* The member name if present with the wrong type, else NULL (cJSON's "is"
 * predicates take a NULL item and say no). */
static const char *
get_string(const cJSON *o, const char *name, int nullable, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	if (cJSON_IsString(v)) {
		*out = v->valuestring;
		return NULL;
	}
	if (nullable && cJSON_IsNull(v)) {
		*out = NULL;
		return NULL;
	}
	return name;
}

static struct cache_entry *
entry_from_document(const cJSON *doc, struct strbuf *err)
{
	const char *schema, *key, *name, *outcome, *source, *backend, *model, *recipe;
	const char *bad = NULL;
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *result = cJSON_GetObjectItemCaseSensitive(doc, "result");
	const cJSON *transcript = cJSON_GetObjectItemCaseSensitive(doc, "transcript");
	const cJSON *gen = cJSON_GetObjectItemCaseSensitive(doc, "generator");
	const cJSON *checked = cJSON_GetObjectItemCaseSensitive(doc, "checked");
	if ((bad = get_string(doc, "schema", 0, &schema)) || strcmp(schema, CACHE_ENTRY_SCHEMA) != 0) {
		strbuf_addstr(err, "it is not an egg cache entry (no \"schema\": \"" CACHE_ENTRY_SCHEMA "\")");
		return NULL;
	}
	if (!cJSON_IsNumber(version) || version->valueint != CACHE_ENTRY_VERSION) {
		strbuf_addf(err, "its format version is not %d", CACHE_ENTRY_VERSION);
		return NULL;
	}
	if ((bad = get_string(doc, "key", 0, &key)) || (bad = get_string(doc, "name", 1, &name)) ||
	    (bad = get_string(doc, "outcome", 0, &outcome)) ||
	    (bad = get_string(doc, "source", 1, &source))) {
		strbuf_addf(err, "its \"%s\" is missing or not a string", bad);
		return NULL;
	}
	if (!cJSON_IsObject(gen) || (bad = get_string(gen, "backend", 1, &backend)) ||
	    (bad = get_string(gen, "model", 1, &model)) || (bad = get_string(gen, "recipe", 1, &recipe))) {
		strbuf_addf(err, "its generator%s%s is missing or not a string", bad ? "'s " : "", bad ? bad : "");
		return NULL;
	}
	if (checked && !cJSON_IsArray(checked)) {
		strbuf_addstr(err, "its \"checked\" is not a list of generators");
		return NULL;
	}
	const cJSON *c;
	cJSON_ArrayForEach(c, checked) {
		const char *s;
		if (!cJSON_IsObject(c) || get_string(c, "backend", 1, &s) || get_string(c, "model", 1, &s) ||
		    get_string(c, "recipe", 1, &s)) {
			strbuf_addstr(err, "its \"checked\" is not a list of generators");
			return NULL;
		}
	}
	if (!cJSON_IsObject(result) || !(cJSON_IsObject(transcript) || cJSON_IsArray(transcript))) {
		strbuf_addstr(err, "its result or transcript is not a JSON object");
		return NULL;
	}
	if (!cache_key_is_valid(key) || (strcmp(outcome, "winner") == 0) != (source != NULL) ||
	    (strcmp(outcome, "winner") != 0 && strcmp(outcome, "negative") != 0)) {
		strbuf_addstr(err, "its key or outcome is malformed");
		return NULL;
	}
	struct cache_entry *e = cache_entry_new(key);
	cache_entry_set_name(e, name);
	cache_entry_set_source(e, source);
	cJSON_Delete(e->result);
	cJSON_Delete(e->transcript);
	e->result = cJSON_Duplicate(result, 1);
	e->transcript = cJSON_Duplicate(transcript, 1);
	struct cache_generator g = { backend, model, recipe };
	cache_entry_set_generator(e, &g);
	if (cJSON_GetArraySize(checked) > 0)
		e->checked = cJSON_Duplicate(checked, 1);
	return e;
}

/* Reads `"NAME":"<64 hex>"` at *p into hex and advances *p; 0 or -1. */
static int
read_seal(const char **p, const char *end, const char *name, char hex[CACHE_KEY_HEX_LEN + 1])
{
	size_t n = strlen(name);
	if ((size_t)(end - *p) < n + CACHE_KEY_HEX_LEN + 5 || (*p)[0] != '"' ||
	    memcmp(*p + 1, name, n) != 0 || memcmp(*p + 1 + n, "\":\"", 3) != 0)
		return -1;
	memcpy(hex, *p + n + 4, CACHE_KEY_HEX_LEN);
	hex[CACHE_KEY_HEX_LEN] = '\0';
	if (!cache_key_is_valid(hex) || (*p)[n + 4 + CACHE_KEY_HEX_LEN] != '"')
		return -1;
	*p += n + 5 + CACHE_KEY_HEX_LEN;
	return 0;
}

/* Splits the stored bytes into the canonical text (appended to canon) and the
 * seals; -1 with a sentence in err if they are not where a writer puts them. */
static int
split_seals(const char *data, size_t len, struct strbuf *canon, char checksum[CACHE_KEY_HEX_LEN + 1],
	    char signature[CACHE_KEY_HEX_LEN + 1], struct strbuf *err)
{
	static const char marker[] = ",\"checksum\":";
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	/* the last occurrence: a result may well have a "checksum" member */
	const char *at = NULL;
	for (size_t i = len; i-- > 0 && !at;)
		if (data[i] == ',' && len - i >= sizeof marker - 1 &&
		    memcmp(data + i, marker, sizeof marker - 1) == 0)
			at = data + i;
	if (!at || len == 0 || data[len - 1] != '}') {
		strbuf_addstr(err, len ? "it has no checksum (torn or damaged)" : "it is empty");
		return -1;
	}
	const char *p = at + 1, *end = data + len;
	signature[0] = '\0';
	if (read_seal(&p, end, "checksum", checksum) < 0 ||
	    (*p == ',' && (p++, read_seal(&p, end, "signature", signature) < 0)) || p != end - 1) {
		strbuf_addstr(err, "its checksum is damaged");
		return -1;
	}
	strbuf_add(canon, data, (size_t)(at - data));
	strbuf_addch(canon, '}');
	return 0;
}

struct cache_entry *
cache_entry_parse(const char *data, size_t len, const char *expect_key, const char *secret,
		  struct strbuf *err)
{
	struct strbuf canon = STRBUF_INIT;
	char checksum[CACHE_KEY_HEX_LEN + 1], signature[CACHE_KEY_HEX_LEN + 1], hex[CACHE_KEY_HEX_LEN + 1];
	struct cache_entry *e = NULL;
	cJSON *doc = NULL;
	if (split_seals(data, len, &canon, checksum, signature, err) < 0)
		goto out;
	egg_sha256_hex(canon.buf, canon.len, hex);
	if (strcmp(hex, checksum) != 0) {
		strbuf_addstr(err, "its checksum does not match its contents (damaged or altered)");
		goto out;
	}
	doc = cJSON_ParseWithLength(canon.buf, canon.len);
	if (!cJSON_IsObject(doc)) {
		strbuf_addstr(err, "it is not valid JSON despite a matching checksum");
		goto out;
	}
	e = entry_from_document(doc, err);
	if (!e)
		goto out;
	if (expect_key && strcmp(expect_key, e->key) != 0) {
		strbuf_addf(err, "it holds key %.12s..., not the key it is stored under", e->key);
		goto fail;
	}
	if (secret && *secret) {
		egg_hmac_sha256_hex(secret, canon.buf, canon.len, hex);
		if (!signature[0]) {
			strbuf_addstr(err, "it is not signed and EGG_CACHE_SECRET is set");
			goto fail;
		}
		if (strcmp(hex, signature) != 0) {
			strbuf_addstr(err, "its signature is wrong for EGG_CACHE_SECRET (altered, or signed with another secret)");
			goto fail;
		}
	}
	e->is_signed = signature[0] != '\0';
	goto out;
fail:
	cache_entry_free(e);
	e = NULL;
out:
	cJSON_Delete(doc);
	strbuf_release(&canon);
	return e;
}
