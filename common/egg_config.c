/*
 * egg_config.c -- see egg_config.h.
 *
 * The table below is the one place a key is declared: its type decides how a value is
 * checked when it is set (so that every getter can trust what it reads), its default
 * is what egg_config_new() holds, and its line of documentation is what `egg config`
 * and egg.conf(5) say about it.  A value is kept as text (normalized: choices in lower
 * case, bools as true/false, paths expanded) together with where it came from; typed
 * getters parse that text, which cannot fail because it was checked on the way in.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef EGG_SYSCONFDIR
#define EGG_SYSCONFDIR "/etc"
#endif

/* An egg.conf is a few lines; anything this large is some other file. */
#define MAX_FILE_SIZE (1024 * 1024)

enum type { T_STRING, T_PATH, T_SECRET, T_CHOICE, T_BOOL, T_SIZE, T_DURATION, T_LIST, T_COUNT };

struct key {
	const char *name;
	enum type type;
	const char *choices; /* T_CHOICE: "a|b|c" */
	const char *def;     /* NULL: none */
	const char *doc;
};

static const struct key keys[] = {
	{ "mode", T_CHOICE, "search|cache|verify|off", "search",
	  "search: use the cache, search on a miss when a GPU is present; cache: never search; "
	  "verify: re-check cached winners on this GPU; off: plain nvcc" },
	{ "regenerate", T_CHOICE, "never|faster", "never",
	  "a winner another generator found (an older egg, another model): never: use it; faster: "
	  "in search mode search again, the old winner among the candidates, and replace it only "
	  "by a faster one" },
	{ "nvcc", T_PATH, NULL, NULL,
	  "the real nvcc (default: the first nvcc on PATH that is not egg-cc)" },
	{ "cache_dir", T_PATH, NULL, "~/.cache/egg",
	  "directory of the local kernel cache (default: $XDG_CACHE_HOME/egg when XDG_CACHE_HOME "
	  "is set)" },
	{ "compiler_launcher", T_LIST, NULL, NULL,
	  "program (and arguments) that runs nvcc on the rewritten sources only, e.g. ccache, so "
	  "that a repeated hit reuses the compiled object; it stays behind egg-cc, never in front "
	  "of it (there it would keep a winner the cache dropped)" },
	{ "max_size", T_SIZE, NULL, "2GiB",
	  "size limit of the local cache; least recently used entries go first (0: no limit)" },
	{ "remote_storage", T_LIST, NULL, NULL,
	  "URLs of remote caches (HTTP GET/HEAD/PUT), separated by spaces, tried in order" },
	{ "remote_read_only", T_BOOL, NULL, "false",
	  "only read from remote caches, never upload to them (CI consumers)" },
	{ "cache_secret", T_SECRET, NULL, NULL,
	  "key for HMAC-SHA256 signatures of remote entries; when set, unsigned or badly signed "
	  "entries are refused" },
	{ "backend", T_CHOICE, "builtin|openai|anthropic", "builtin",
	  "generator: builtin (no network), openai (any OpenAI-compatible chat-completions API), "
	  "anthropic (Messages API)" },
	{ "api_base", T_STRING, NULL, NULL,
	  "base URL of the backend's API (default: the vendor's public endpoint)" },
	{ "model", T_STRING, NULL, NULL, "model name for the openai and anthropic backends" },
	{ "api_key", T_SECRET, NULL, NULL, "API key for the backend; never printed or logged" },
	{ "api_key_file", T_PATH, NULL, NULL, "file whose first line is the API key" },
	{ "api_headers", T_SECRET, NULL, NULL,
	  "extra HTTP headers for the backend, 'Name: value' items separated by ';' (e.g. "
	  "'OpenAI-Organization: org-1'); never printed, as they may hold credentials" },
	{ "price_in", T_STRING, NULL, NULL,
	  "the model's price in USD per million input tokens, for the cost in reports "
	  "(default: unknown, cost 0)" },
	{ "price_out", T_STRING, NULL, NULL,
	  "the model's price in USD per million output tokens, for the cost in reports" },
	{ "strict", T_BOOL, NULL, "false",
	  "an annotation that cannot be used fails the build instead of warning" },
	{ "report", T_PATH, NULL, NULL, "file to which a JSON record per optimized kernel is appended" },
	{ "eval_command", T_STRING, NULL, NULL,
	  "command that evaluates a job given on its stdin and prints the result, e.g. "
	  "'ssh gpu1 egg eval -' (default: evaluate on this machine)" },
	{ "gpu", T_STRING, NULL, NULL,
	  "GPU(s) to evaluate on, as CUDA_VISIBLE_DEVICES names them (default: every visible GPU)" },
	{ "sandbox", T_BOOL, NULL, "true",
	  "run candidates' programs confined by the kernel (Landlock, seccomp): no network, "
	  "writes only in their own directory, no other programs; false: unconfined" },
	{ "ncu", T_STRING, NULL, NULL,
	  "Nsight Compute's ncu, which profiles the current best candidate of a model search "
	  "for the profile agent (default: ncu beside nvcc, then on PATH; none: no profiling)" },
	{ "timeout", T_DURATION, NULL, "120s",
	  "time limit of one step egg waits for: a backend request, a remote transfer (unset: "
	  "10 s there), a candidate's run (0: none)" },
	{ "skip_after_timeout", T_DURATION, NULL, "60s",
	  "how long a build's later compiles skip a remote cache or model backend that timed "
	  "out (one warning in all; 0: never skip)" },
	{ "lock_timeout", T_DURATION, NULL, "300s",
	  "how long a build waits for another build's search of the same kernel before it "
	  "uses the reference" },
	{ "log_file", T_PATH, NULL, NULL,
	  "file to which egg-cc and egg plan append one line per step of an annotated compile: "
	  "keys, hits and misses and why, remotes asked, timings, fallbacks (no secrets)" },
	{ "debug", T_BOOL, NULL, "false",
	  "keep OUTPUT.egg-key.txt (the key texts) and OUTPUT.egg-rewritten.cu (the source "
	  "given to nvcc) beside each output, and the temporary directory" },
	{ "prompts_dir", T_PATH, NULL, NULL,
	  "directory of the agents' prompts and expert principles (default: the installed ones); "
	  "their version and contents are part of the cache key" },
	{ "max_model_calls", T_COUNT, NULL, "40",
	  "model requests one kernel's search may make (0: no limit); the best so far is kept" },
	{ "max_tokens", T_COUNT, NULL, "2M",
	  "input and output tokens one kernel's search may use (0: no limit)" },
	{ "max_search_time", T_DURATION, NULL, "30m",
	  "wall time of one kernel's search with a model backend (0: no limit)" },
	{ "max_candidates", T_COUNT, NULL, "64",
	  "candidates one kernel's search may evaluate, tunable variants included (0: no limit)" },
	{ "roofline_stop", T_STRING, NULL, "0.9",
	  "a model search asks the model nothing when the builtin's best candidate already "
	  "reaches this fraction of the roofline floor (measured ceilings); 0: always ask" },
	{ "max_prompt_chars", T_COUNT, NULL, "60000",
	  "size limit of one prompt to the model, in characters; older attempts are summarized "
	  "to stay under it" },
};

#define N_KEYS (sizeof keys / sizeof *keys)

enum origin { FROM_DEFAULT, FROM_FILE, FROM_ENV, FROM_OPTION };

struct setting {
	char *value;        /* owned; NULL: unset */
	enum origin from;
	const char *file;   /* FROM_FILE: one of egg_config.files */
	unsigned line;
};

struct egg_config {
	struct setting set[N_KEYS];
	struct strvec files; /* the files read, for the settings' origins */
};

/* Where the text being applied comes from, and the first error seen. */
struct reader {
	struct egg_config *cfg;
	struct strbuf *err;
	int failed;
	enum origin from;
	const char *file; /* FROM_FILE */
	unsigned line;    /* FROM_FILE; 0 for the file as a whole */
	const char *name; /* FROM_ENV: the variable; FROM_OPTION: the option's name */
};

static void reader_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records one error; only the first reaches err, with its location in front. */
static void
reader_fail(struct reader *r, const char *fmt, ...)
{
	if (r->failed++)
		return;
	switch (r->from) {
	case FROM_FILE:
		if (r->line)
			strbuf_addf(r->err, "%s:%u: ", r->file, r->line);
		else
			strbuf_addf(r->err, "%s: ", r->file);
		break;
	case FROM_ENV:
		strbuf_addf(r->err, "environment %s: ", r->name);
		break;
	case FROM_OPTION:
		strbuf_addf(r->err, "option %s: ", r->name);
		break;
	case FROM_DEFAULT:
		break;
	}
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(r->err, fmt, ap);
	va_end(ap);
}

static int
key_index(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

static size_t
must_key(const char *name)
{
	int i = key_index(name);
	assert(i >= 0 && "not a key of egg_config's table");
	return (size_t)i;
}

/* Optimal string alignment distance (edits and swaps of neighbours), case-blind; large
 * for long strings, which never get a suggestion. */
static size_t
edit_distance(const char *a, const char *b)
{
	enum { MAX = 40 };
	size_t n = strlen(a), m = strlen(b);
	if (n >= MAX || m >= MAX)
		return SIZE_MAX;
	size_t d[MAX + 1][MAX + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[n][m];
}

/* The known key closest to name, if it is close enough to be a typo. */
const char *
egg_config_key_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_d = 3; /* at most two edits */
	for (size_t i = 0; i < N_KEYS; i++) {
		size_t d = edit_distance(name, keys[i].name);
		if (d < best_d && d < strlen(keys[i].name)) {
			best_d = d;
			best = keys[i].name;
		}
	}
	return best;
}

/* --- values ---------------------------------------------------------------------- */

/* Index of v in "a|b|c" (case-blind), or -1. */
static int
choice_index(const char *choices, const char *v)
{
	size_t vn = strlen(v);
	int i = 0;
	for (const char *p = choices;; i++) {
		const char *end = strchr(p, '|');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == vn && strncasecmp(p, v, n) == 0)
			return i;
		if (!end)
			return -1;
		p = end + 1;
	}
}

static int
parse_bool(const char *v)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* A number followed by optional spaces and a unit from units[] (case-blind); each unit's
 * factor is in factors[].  Returns 0 with *out, or -1. */
static int
parse_scaled(const char *v, const char *const *units, const uint64_t *factors, size_t n_units,
             uint64_t *out)
{
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno == ERANGE)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	uint64_t factor = 1;
	if (*end) {
		size_t i;
		for (i = 0; i < n_units; i++)
			if (strcasecmp(end, units[i]) == 0)
				break;
		if (i == n_units)
			return -1;
		factor = factors[i];
	}
	if (x > UINT64_MAX / factor)
		return -1;
	*out = (uint64_t)x * factor;
	return 0;
}

/* Bytes, by ccache's rules: a number, optionally with a fraction, then optional spaces
 * and a unit: k, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti (powers of 1024), each
 * alone or followed by B, or B alone; in any case.  A bare number is whole bytes (where
 * ccache reads GiB), a fraction is rounded down to whole bytes. */
int
egg_config_parse_size(const char *v, uint64_t *out)
{
	static const char prefixes[] = "kmgt";
	const char *p = v;
	if (!isdigit((unsigned char)*p))
		return -1;
	unsigned __int128 whole = 0, frac = 0, frac_scale = 1;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (unsigned)(*p - '0');
		if (whole > UINT64_MAX)
			return -1;
	}
	int has_frac = *p == '.';
	if (has_frac) {
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (frac_scale < (unsigned __int128)1000000000000000000ull) {
				frac = frac * 10 + (unsigned)(*p - '0');
				frac_scale *= 10;
			}
		}
	}
	while (*p == ' ' || *p == '\t')
		p++;
	unsigned __int128 factor = 1;
	const char *prefix = *p ? strchr(prefixes, tolower((unsigned char)*p)) : NULL;
	if (prefix) {
		p++;
		unsigned base = 1000;
		if (*p == 'i' || *p == 'I') {
			base = 1024;
			p++;
		}
		for (const char *q = prefixes; q <= prefix; q++)
			factor *= base;
	} else if (has_frac) {
		return -1; /* a fraction of a byte */
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		return -1;
	unsigned __int128 bytes = whole * factor + frac * factor / frac_scale;
	if (bytes > UINT64_MAX)
		return -1;
	*out = (uint64_t)bytes;
	return 0;
}

static int
parse_size(const char *v, uint64_t *out)
{
	return egg_config_parse_size(v, out);
}

/* A count; k and M are thousands and millions. */
static int
parse_count(const char *v, uint64_t *out)
{
	static const char *const units[] = { "k", "m" };
	static const uint64_t f[] = { 1000, 1000000 };
	return parse_scaled(v, units, f, sizeof units / sizeof *units, out);
}

/* Seconds; a bare number is seconds. */
static int
parse_duration(const char *v, uint64_t *out)
{
	static const char *const units[] = { "s", "m", "h" };
	static const uint64_t f[] = { 1, 60, 3600 };
	return parse_scaled(v, units, f, sizeof units / sizeof *units, out);
}

static const char *
home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
}

/* "~" and "~/x" name the home directory; a relative path read from a file is relative
 * to that file's directory, so that a project's egg.conf means the same from any
 * subdirectory.  Returns an owned string. */
static char *
expand_path(const char *v, const char *file)
{
	if (v[0] == '~' && (v[1] == '\0' || v[1] == '/')) {
		const char *home = home_dir();
		if (home)
			return egg_xasprintf("%s%s", home, v + 1);
	}
	if (v[0] != '/' && file && strchr(file, '/')) {
		const char *slash = strrchr(file, '/');
		return egg_xasprintf("%.*s/%s", (int)(slash - file), file, v);
	}
	return egg_xstrdup(v);
}

/* A path default under ~/.cache/ follows the XDG base directory rules: it lies in
 * $XDG_CACHE_HOME instead when that is set to an absolute path. */
static char *
default_path(const char *def)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (egg_str_starts(def, "~/.cache/") && xdg && xdg[0] == '/')
		return egg_xasprintf("%s/%s", xdg, def + 9);
	return expand_path(def, NULL);
}

static void
setting_reset(struct setting *s, const struct key *k)
{
	free(s->value);
	s->value = NULL;
	if (k->def)
		s->value = k->type == T_PATH ? default_path(k->def) : egg_xstrdup(k->def);
}

/* The normal form of v for key k (owned), or NULL if v does not fit the key's type.
 * file: where a relative path is relative to (NULL: the working directory). */
static char *
normalize(const struct key *k, const char *v, const char *file)
{
	uint64_t n;
	int b;
	switch (k->type) {
	case T_CHOICE:
		if (choice_index(k->choices, v) < 0)
			return NULL;
		char *c = egg_xstrdup(v);
		for (char *p = c; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		return c;
	case T_BOOL:
		b = parse_bool(v);
		return b < 0 ? NULL : egg_xstrdup(b ? "true" : "false");
	case T_SIZE:
		return parse_size(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_DURATION:
		return parse_duration(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_COUNT:
		return parse_count(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_PATH:
		return expand_path(v, file);
	case T_STRING:
	case T_SECRET:
	case T_LIST:
		break;
	}
	return egg_xstrdup(v);
}

/* What a value of key k must look like: "search, cache, verify or off". */
static void
describe_type(const struct key *k, struct strbuf *out)
{
	if (k->type == T_BOOL)
		strbuf_addstr(out, "true or false (or yes/no, on/off, 1/0)");
	else if (k->type == T_SIZE)
		strbuf_addstr(out, "a size such as 500Mi, 1.5G or 2GiB");
	else if (k->type == T_DURATION)
		strbuf_addstr(out, "a duration such as 90, 90s, 5m or 1h");
	else if (k->type == T_COUNT)
		strbuf_addstr(out, "a count such as 40, 500k or 2M");
	for (const char *p = k->type == T_CHOICE ? k->choices : ""; *p;) {
		const char *end = strchr(p, '|');
		strbuf_add(out, p, end ? (size_t)(end - p) : strlen(p));
		if (!end)
			break;
		strbuf_addstr(out, strchr(end + 1, '|') ? ", " : " or ");
		p = end + 1;
	}
}

/* Checks v (already unquoted and trimmed) against key i's type and stores its normal
 * form with the reader's location.  An empty value restores the default. */
static void
reader_set(struct reader *r, size_t i, const char *v)
{
	const struct key *k = &keys[i];
	struct setting *s = &r->cfg->set[i];
	if (*v == '\0') {
		setting_reset(s, k);
	} else {
		char *value = normalize(k, v, r->from == FROM_FILE ? r->file : NULL);
		if (!value) {
			struct strbuf what = STRBUF_INIT;
			describe_type(k, &what);
			reader_fail(r, "%s must be %s, not '%s'", k->name, what.buf, v);
			strbuf_release(&what);
			return;
		}
		free(s->value);
		s->value = value;
	}
	s->from = r->from;
	s->file = r->file;
	s->line = r->line;
}

/* --- files ----------------------------------------------------------------------- */

static char *
skip_space(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void
trim_end(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* Unquotes or uncomments the value in place; returns it, or NULL after an error. */
static char *
parse_value(struct reader *r, char *v, const char *key)
{
	v = skip_space(v);
	if (*v == '"' || *v == '\'') {
		char *end = strchr(v + 1, *v);
		if (!end) {
			reader_fail(r, "the value of %s has no closing %c", key, *v);
			return NULL;
		}
		*end = '\0';
		char *rest = skip_space(end + 1);
		if (*rest && *rest != '#') {
			/* Not echoed: it may be part of a secret. */
			reader_fail(r, "unexpected text after the closing quote of %s's value", key);
			return NULL;
		}
		return v + 1;
	}
	/* A '#' that begins the value or follows whitespace begins a comment. */
	for (char *p = v; *p; p++) {
		if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	}
	trim_end(v);
	return v;
}

static void
parse_line(struct reader *r, char *line)
{
	char *s = skip_space(line);
	if (*s == '\0' || *s == '#')
		return;
	char *eq = strchr(s, '=');
	if (!eq) {
		/* Only the first word: the rest may be a secret written without its "=". */
		size_t w = strcspn(s, " \t");
		reader_fail(r, "expected 'key = value', not '%.*s%s'", (int)(w > 60 ? 60 : w), s,
		            s[w + strspn(s + w, " \t")] ? " ..." : "");
		return;
	}
	*eq = '\0';
	trim_end(s);
	if (*s == '\0') {
		reader_fail(r, "no key before '='");
		return;
	}
	int i = key_index(s);
	if (i < 0) {
		const char *near = egg_config_key_suggest(s);
		if (near)
			reader_fail(r, "unknown key '%s' (did you mean '%s'?)", s, near);
		else
			reader_fail(r, "unknown key '%s' ('egg config' lists the keys)", s);
		return;
	}
	char *v = parse_value(r, eq + 1, s);
	if (v)
		reader_set(r, (size_t)i, v);
}

static void
reader_file(struct reader *r, const char *path)
{
	char *data;
	size_t len;
	if (fs_read_file(path, MAX_FILE_SIZE, &data, &len) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return;
		r->from = FROM_FILE;
		r->file = path;
		r->line = 0;
		if (errno == EFBIG)
			reader_fail(r, "larger than %d bytes; not an egg.conf", MAX_FILE_SIZE);
		else
			reader_fail(r, "cannot read it: %s", strerror(errno));
		return;
	}
	strvec_push(&r->cfg->files, path);
	r->from = FROM_FILE;
	r->file = r->cfg->files.v[r->cfg->files.n - 1];
	r->line = 0;
	char *p = data, *end = data + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);
		r->line++;
		*eol = '\0';
		if (n && p[n - 1] == '\r')
			p[--n] = '\0';
		if (r->line == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
			p += 3; /* a UTF-8 byte order mark, as some editors write */
			n -= 3;
		}
		if (strlen(p) != n)
			reader_fail(r, "contains a NUL byte; egg.conf must be text");
		else
			parse_line(r, p);
		p = eol + 1;
	}
	free(data);
}

/* --- the layers ------------------------------------------------------------------ */

static void
reader_env(struct reader *r)
{
	char name[64];
	r->from = FROM_ENV;
	r->file = NULL;
	r->line = 0;
	for (size_t i = 0; i < N_KEYS; i++) {
		size_t n = strlen(keys[i].name);
		assert(n + 5 < sizeof name);
		memcpy(name, "EGG_", 4);
		for (size_t j = 0; j <= n; j++)
			name[4 + j] = (char)toupper((unsigned char)keys[i].name[j]);
		const char *v = getenv(name);
		if (!v)
			continue;
		r->name = name;
		reader_set(r, i, v);
	}
	r->name = NULL;
}

static void
reader_options(struct reader *r, const struct strvec *opts)
{
	r->from = FROM_OPTION;
	r->file = NULL;
	r->line = 0;
	for (size_t o = 0; opts && o < opts->n; o++) {
		const char *arg = opts->v[o];
		const char *eq = strchr(arg, '=');
		size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
		char *opt = egg_xstrndup(arg, n);
		r->name = opt;
		if (!egg_str_starts(opt, "--egg-")) {
			reader_fail(r, "not an egg option (they begin with --egg-)");
			free(opt);
			continue;
		}
		char *key = egg_xstrdup(opt + 6);
		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		int i = key_index(key);
		if (i < 0) {
			const char *near = egg_config_key_suggest(key);
			if (near) {
				char *dashed = egg_xstrdup(near);
				for (char *p = dashed; *p; p++)
					if (*p == '_')
						*p = '-';
				reader_fail(r, "unknown option (did you mean --egg-%s?)", dashed);
				free(dashed);
			} else {
				reader_fail(r, "unknown option ('egg config' lists the keys)");
			}
		} else if (eq) {
			reader_set(r, (size_t)i, eq + 1);
		} else if (keys[i].type == T_BOOL) {
			reader_set(r, (size_t)i, "true");
		} else {
			reader_fail(r, "needs a value: %s=VALUE", opt);
		}
		free(key);
		free(opt);
	}
	r->name = NULL;
}

/* The user's file: $XDG_CONFIG_HOME/egg/egg.conf, else ~/.config/egg/egg.conf. */
static char *
user_file(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return egg_xasprintf("%s/egg/egg.conf", xdg);
	const char *home = home_dir();
	return home ? egg_xasprintf("%s/.config/egg/egg.conf", home) : NULL;
}

/* The nearest egg.conf in dir (an absolute path) or a directory above it, or NULL.  With
 * stop_at_repo, the search ends at the first directory that holds .git (the root of a
 * repository), so that a source's search never leaves its repository. */
static char *
find_upward(const char *start, int stop_at_repo)
{
	char dir[PATH_MAX];
	size_t n = strlen(start);
	if (start[0] != '/' || n >= sizeof dir)
		return NULL;
	memcpy(dir, start, n + 1);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	char path[PATH_MAX + 16];
	for (;;) {
		struct stat st;
		snprintf(path, sizeof path, "%.*s/egg.conf", (int)(n == 1 ? 0 : n), dir);
		if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			return egg_xstrdup(path);
		snprintf(path, sizeof path, "%.*s/.git", (int)(n == 1 ? 0 : n), dir);
		if (n <= 1 || (stop_at_repo && lstat(path, &st) == 0))
			return NULL;
		while (n > 1 && dir[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* the slash, unless it is the root */
	}
}

/* The nearest egg.conf in the working directory or above it, or NULL. */
static char *
project_file(void)
{
	char dir[PATH_MAX];
	return getcwd(dir, sizeof dir) ? find_upward(dir, 0) : NULL;
}

/* The nearest egg.conf in the directory of source or above it, up to the root of its
 * repository, or NULL. */
static char *
source_project_file(const char *source)
{
	if (!source || !*source)
		return NULL;
	char *dir = fs_dirname(source);
	char *real = realpath(dir, NULL);
	char *found = real ? find_upward(real, 1) : NULL;
	free(real);
	free(dir);
	return found;
}

/* 1 when the file a lies in a directory above (or the same as) b's directory. */
static int
file_is_above(const char *a, const char *b)
{
	size_t n = strrchr(a, '/') - a;
	return strncmp(a, b, n) == 0 && (n == 0 || b[n] == '/');
}

/* --- public ---------------------------------------------------------------------- */

struct egg_config *
egg_config_new(void)
{
	struct egg_config *cfg = egg_xcalloc(1, sizeof *cfg);
	for (size_t i = 0; i < N_KEYS; i++)
		setting_reset(&cfg->set[i], &keys[i]);
	return cfg;
}

void
egg_config_free(struct egg_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < N_KEYS; i++)
		free(cfg->set[i].value);
	strvec_clear(&cfg->files);
	free(cfg);
}

int
egg_config_load(struct egg_config *cfg, const struct strvec *opts, struct strbuf *err)
{
	return egg_config_load_for(cfg, opts, NULL, err);
}

/* 1 when path is none of the files already in read (a NULL-terminated list). */
static int
not_read(const char *path, const char *const *read)
{
	for (; *read; read++)
		if (strcmp(path, *read) == 0)
			return 0;
	return 1;
}

int
egg_config_load_for(struct egg_config *cfg, const struct strvec *opts, const char *source,
                    struct strbuf *err)
{
	struct reader r = { .cfg = cfg, .err = err };
	const char *sys = getenv("EGG_SYSTEM_CONFIG");
	char *sys_default = NULL;
	if (!sys || !*sys)
		sys = sys_default = egg_xasprintf("%s/egg.conf", EGG_SYSCONFDIR);
	char *user = user_file();
	char *project = project_file();
	char *from_source = source_project_file(source);
	/* Of the two project files, the one deeper in a common tree is read last and wins;
	 * unrelated ones (a build directory outside the sources): the working directory's. */
	char *first = from_source, *second = project;
	if (project && from_source && file_is_above(project, from_source)) {
		first = project;
		second = from_source;
	}
	const char *read[5] = { sys };
	size_t n_read = 1;
	reader_file(&r, sys);
	char *layers[] = { user, first, second };
	for (size_t i = 0; i < sizeof layers / sizeof *layers; i++) {
		if (layers[i] && not_read(layers[i], read)) {
			reader_file(&r, layers[i]);
			read[n_read++] = layers[i];
		}
	}
	reader_env(&r);
	reader_options(&r, opts);
	free(sys_default);
	free(user);
	free(project);
	free(from_source);
	return r.failed ? -1 : 0;
}

int
egg_config_read_file(struct egg_config *cfg, const char *path, struct strbuf *err)
{
	struct reader r = { .cfg = cfg, .err = err };
	reader_file(&r, path);
	return r.failed ? -1 : 0;
}

int
egg_config_read_env(struct egg_config *cfg, struct strbuf *err)
{
	struct reader r = { .cfg = cfg, .err = err };
	reader_env(&r);
	return r.failed ? -1 : 0;
}

int
egg_config_read_options(struct egg_config *cfg, const struct strvec *opts, struct strbuf *err)
{
	struct reader r = { .cfg = cfg, .err = err };
	reader_options(&r, opts);
	return r.failed ? -1 : 0;
}

const char *
egg_config_key_name(size_t i)
{
	return i < N_KEYS ? keys[i].name : NULL;
}

const char *
egg_config_key_type(const char *key)
{
	static const char *const names[] = {
		[T_STRING] = "string", [T_PATH] = "path", [T_SECRET] = "secret", [T_CHOICE] = "choice",
		[T_BOOL] = "bool", [T_SIZE] = "size", [T_DURATION] = "duration", [T_LIST] = "list",
		[T_COUNT] = "count",
	};
	int i = key_index(key);
	if (i < 0)
		return NULL;
	return keys[i].type == T_CHOICE ? keys[i].choices : names[keys[i].type];
}

const char *
egg_config_key_default(const char *key)
{
	int i = key_index(key);
	return i < 0 ? NULL : keys[i].def ? keys[i].def : "";
}

const char *
egg_config_key_doc(const char *key)
{
	int i = key_index(key);
	return i < 0 ? NULL : keys[i].doc;
}

const char *
egg_config_get(const struct egg_config *cfg, const char *key)
{
	return cfg->set[must_key(key)].value;
}

/* A remote_storage value with its credentials replaced by <set>: the password
 * of a URL's user information (scheme://user:PASSWORD@host) and the value of a
 * bearer-token property (|bearer-token=TOKEN), for each URL of the list. */
static void
add_redacted_remotes(const char *v, struct strbuf *out)
{
	while (*v) {
		size_t n = strcspn(v, " \t\n");
		const char *end = v + n, *bar = memchr(v, '|', n);
		const char *url_end = bar ? bar : end;
		const char *scheme = strstr(v, "://");
		const char *host = scheme && scheme < url_end ? scheme + 3 : v;
		const char *at = NULL;
		for (const char *q = host; q < url_end && *q != '/'; q++)
			if (*q == '@')
				at = q;
		const char *colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
		if (colon) {
			strbuf_add(out, v, (size_t)(colon + 1 - v));
			strbuf_addstr(out, "<set>");
			strbuf_add(out, at, (size_t)(url_end - at));
		} else {
			strbuf_add(out, v, (size_t)(url_end - v));
		}
		for (const char *p = url_end; p < end;) { /* properties, each after '|' */
			const char *next = memchr(p + 1, '|', (size_t)(end - p - 1));
			const char *pe = next ? next : end;
			if ((size_t)(pe - p) > 14 && strncmp(p, "|bearer-token=", 14) == 0)
				strbuf_addstr(out, "|bearer-token=<set>");
			else
				strbuf_add(out, p, (size_t)(pe - p));
			p = pe;
		}
		v = end;
		while (*v == ' ' || *v == '\t' || *v == '\n')
			strbuf_addch(out, *v++);
	}
}

void
egg_config_show(const struct egg_config *cfg, const char *key, struct strbuf *out)
{
	size_t i = must_key(key);
	const char *v = cfg->set[i].value;
	if (v && keys[i].type == T_SECRET)
		strbuf_addstr(out, "<set>");
	else if (v && strcmp(keys[i].name, "remote_storage") == 0)
		add_redacted_remotes(v, out);
	else if (v)
		strbuf_addstr(out, v);
}

void
egg_config_origin(const struct egg_config *cfg, const char *key, struct strbuf *out)
{
	size_t i = must_key(key);
	const struct setting *s = &cfg->set[i];
	switch (s->from) {
	case FROM_DEFAULT:
		strbuf_addstr(out, "default");
		break;
	case FROM_FILE:
		strbuf_addf(out, "%s:%u", s->file, s->line);
		break;
	case FROM_ENV:
		strbuf_addstr(out, "environment EGG_");
		for (const char *p = keys[i].name; *p; p++)
			strbuf_addch(out, (char)toupper((unsigned char)*p));
		break;
	case FROM_OPTION:
		strbuf_addstr(out, "option --egg-");
		for (const char *p = keys[i].name; *p; p++)
			strbuf_addch(out, *p == '_' ? '-' : *p);
		break;
	}
}

static const char *
typed_value(const struct egg_config *cfg, const char *key, enum type type)
{
	size_t i = must_key(key);
	assert(keys[i].type == type);
	return cfg->set[i].value;
}

/* The index of a choice key's value in its list of choices. */
static int
choice_of(const struct egg_config *cfg, const char *key)
{
	int c = choice_index(keys[must_key(key)].choices, typed_value(cfg, key, T_CHOICE));
	assert(c >= 0);
	return c;
}

enum egg_mode
egg_config_mode(const struct egg_config *cfg)
{
	return (enum egg_mode)choice_of(cfg, "mode");
}

enum egg_backend
egg_config_backend(const struct egg_config *cfg)
{
	return (enum egg_backend)choice_of(cfg, "backend");
}

int
egg_config_bool(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_BOOL);
	return v && parse_bool(v) == 1;
}

uint64_t
egg_config_size(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_SIZE);
	uint64_t n = 0;
	if (v)
		parse_size(v, &n);
	return n;
}

uint64_t
egg_config_seconds(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_DURATION);
	uint64_t n = 0;
	if (v)
		parse_duration(v, &n);
	return n;
}

uint64_t
egg_config_count(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_COUNT);
	uint64_t n = 0;
	if (v)
		parse_count(v, &n);
	return n;
}

void
egg_config_list(const struct egg_config *cfg, const char *key, struct strvec *out)
{
	const char *v = typed_value(cfg, key, T_LIST);
	for (const char *p = v; p && *p;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		if (n)
			strvec_push_owned(out, egg_xstrndup(p, n));
		p += n;
	}
}

const char *
egg_mode_name(enum egg_mode mode)
{
	static const char *const names[] = { "search", "cache", "verify", "off" };
	assert((size_t)mode < sizeof names / sizeof *names);
	return names[mode];
}
