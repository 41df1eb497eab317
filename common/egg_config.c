/*
 * egg_config.c -- see egg_config.h.
 *
 * The settings' table is in egg_config_keys.c, what their values accept in
 * egg_config_value.c; this file reads the layers (system, user and project
 * files, the environment, options) and answers the getters.  A value is kept as
 * text (normalized: choices in lower case, bools as true/false, paths expanded)
 * together with where it came from; typed getters parse that text, which cannot
 * fail because it was checked on the way in.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/egg_config_int.h"
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

enum origin { FROM_DEFAULT, FROM_FILE, FROM_ENV, FROM_OPTION };

struct setting {
	char *value;        /* owned; NULL: unset */
	enum origin from;
	const char *file;   /* FROM_FILE: one of egg_config.files */
	unsigned line;
};

struct egg_config {
	struct setting *set; /* one per key of egg_config_keys */
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

static void
setting_reset(struct setting *s, const struct key *k)
{
	free(s->value);
	s->value = NULL;
	if (k->def)
		s->value = k->type == T_PATH ? config_default_path(k->def) : egg_xstrdup(k->def);
}

/* Checks v (already unquoted and trimmed) against key i's type and stores its normal
 * form with the reader's location.  An empty value restores the default. */
static void
reader_set(struct reader *r, size_t i, const char *v)
{
	const struct key *k = &egg_config_keys[i];
	struct setting *s = &r->cfg->set[i];
	if (*v == '\0') {
		setting_reset(s, k);
	} else {
		char *value = config_normalize(k, v, r->from == FROM_FILE ? r->file : NULL);
		if (!value) {
			struct strbuf what = STRBUF_INIT;
			config_describe_type(k, &what);
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
	int i = config_key_index(s);
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
	for (size_t i = 0; i < egg_config_n_keys; i++) {
		size_t n = strlen(egg_config_keys[i].name);
		assert(n + 5 < sizeof name);
		memcpy(name, "EGG_", 4);
		for (size_t j = 0; j <= n; j++)
			name[4 + j] = (char)toupper((unsigned char)egg_config_keys[i].name[j]);
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
		int i = config_key_index(key);
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
		} else if (egg_config_keys[i].type == T_BOOL) {
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
	const char *home = config_home_dir();
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
	cfg->set = egg_xcalloc(egg_config_n_keys, sizeof *cfg->set);
	for (size_t i = 0; i < egg_config_n_keys; i++)
		setting_reset(&cfg->set[i], &egg_config_keys[i]);
	return cfg;
}

void
egg_config_free(struct egg_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < egg_config_n_keys; i++)
		free(cfg->set[i].value);
	strvec_clear(&cfg->files);
	free(cfg->set);
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
egg_config_get(const struct egg_config *cfg, const char *key)
{
	return cfg->set[config_must_key(key)].value;
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
	size_t i = config_must_key(key);
	const char *v = cfg->set[i].value;
	if (v && egg_config_keys[i].type == T_SECRET)
		strbuf_addstr(out, "<set>");
	else if (v && strcmp(egg_config_keys[i].name, "remote_storage") == 0)
		add_redacted_remotes(v, out);
	else if (v)
		strbuf_addstr(out, v);
}

void
egg_config_origin(const struct egg_config *cfg, const char *key, struct strbuf *out)
{
	size_t i = config_must_key(key);
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
		for (const char *p = egg_config_keys[i].name; *p; p++)
			strbuf_addch(out, (char)toupper((unsigned char)*p));
		break;
	case FROM_OPTION:
		strbuf_addstr(out, "option --egg-");
		for (const char *p = egg_config_keys[i].name; *p; p++)
			strbuf_addch(out, *p == '_' ? '-' : *p);
		break;
	}
}

static const char *
typed_value(const struct egg_config *cfg, const char *key, enum type type)
{
	size_t i = config_must_key(key);
	assert(egg_config_keys[i].type == type);
	return cfg->set[i].value;
}

/* The index of a choice key's value in its list of choices. */
static int
choice_of(const struct egg_config *cfg, const char *key)
{
	int c = config_choice_index(egg_config_keys[config_must_key(key)].choices, typed_value(cfg, key, T_CHOICE));
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
	return v && config_parse_bool(v) == 1;
}

uint64_t
egg_config_size(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_SIZE);
	uint64_t n = 0;
	if (v)
		egg_config_parse_size(v, &n);
	return n;
}

uint64_t
egg_config_seconds(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_DURATION);
	uint64_t n = 0;
	if (v)
		config_parse_duration(v, &n);
	return n;
}

uint64_t
egg_config_count(const struct egg_config *cfg, const char *key)
{
	const char *v = typed_value(cfg, key, T_COUNT);
	uint64_t n = 0;
	if (v)
		config_parse_count(v, &n);
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
