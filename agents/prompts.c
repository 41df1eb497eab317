/*
 * prompts.c -- see prompts.h.
 *
 * The set is a fixed list of files so that the identity does not depend on
 * what else lies in the directory (an editor's backup file changes no key).
 */
#include "config.h"
#include "agents/prompts.h"
#include "cache/key.h"
#include "common/fsutil.h"
#include "common/util.h"
#include "common/digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EGG_PKGDATADIR
#define EGG_PKGDATADIR "/usr/local/share/egg"
#endif

/* The largest prompt file egg reads; anything larger is not a prompt. */
#define MAX_PROMPT_FILE (256 * 1024)

static const char *const role_names[] = { "system", "structure", "mapping", "tiling",
	                                   "memory", "profile", "debug" };
static const char *const family_names[] = { "elementwise", "rows", "reduce", "transpose",
	                                     "gather", "stencil", "gemm", "generic" };
#define N_ROLES (sizeof role_names / sizeof *role_names)
#define N_FAMILIES (sizeof family_names / sizeof *family_names)

struct prompts {
	char *version;
	char *roles[N_ROLES];
	char *principles[N_FAMILIES];
	char identity[96];
};

const char *
prompts_dir_from_config(const struct egg_config *cfg)
{
	const char *d = cfg ? egg_config_get(cfg, "prompts_dir") : NULL;
	return d && *d ? d : EGG_PKGDATADIR "/prompts";
}

static char *
read_one(const char *dir, const char *rel, struct strbuf *hashed, struct strbuf *err)
{
	char *path = fs_join(dir, rel), *data = NULL;
	size_t len;
	if (fs_read_file(path, MAX_PROMPT_FILE, &data, &len) < 0) {
		strbuf_addf(err, "cannot read the prompt file %s: %s", path,
		            errno ? strerror(errno) : "too large");
		data = NULL;
	} else {
		strbuf_addf(hashed, "%s", rel);
		strbuf_addch(hashed, '\0');
		strbuf_add(hashed, data, len);
		strbuf_addch(hashed, '\0');
	}
	free(path);
	return data;
}

struct prompts *
prompts_load(const char *dir, struct strbuf *err)
{
	struct prompts *p = egg_xcalloc(1, sizeof *p);
	struct strbuf hashed = STRBUF_INIT;
	int ok = (p->version = read_one(dir, "VERSION", &hashed, err)) != NULL;
	for (size_t i = 0; ok && i < N_ROLES; i++) {
		char *rel = egg_xasprintf("roles/%s.md", role_names[i]);
		ok = (p->roles[i] = read_one(dir, rel, &hashed, err)) != NULL;
		free(rel);
	}
	for (size_t i = 0; ok && i < N_FAMILIES; i++) {
		char *rel = egg_xasprintf("principles/%s.md", family_names[i]);
		ok = (p->principles[i] = read_one(dir, rel, &hashed, err)) != NULL;
		free(rel);
	}
	if (ok) {
		char hex[CACHE_KEY_HEX_LEN + 1];
		egg_sha256_hex(hashed.buf, hashed.len, hex);
		size_t vl = strcspn(p->version, " \t\r\n");
		snprintf(p->identity, sizeof p->identity, "prompts-%.*s+%.12s", (int)(vl < 40 ? vl : 40),
		         p->version, hex);
	}
	strbuf_release(&hashed);
	if (!ok) {
		prompts_free(p);
		return NULL;
	}
	return p;
}

void
prompts_free(struct prompts *p)
{
	if (!p)
		return;
	free(p->version);
	for (size_t i = 0; i < N_ROLES; i++)
		free(p->roles[i]);
	for (size_t i = 0; i < N_FAMILIES; i++)
		free(p->principles[i]);
	free(p);
}

const char *
prompts_role(const struct prompts *p, const char *role)
{
	for (size_t i = 0; i < N_ROLES; i++)
		if (strcmp(role_names[i], role) == 0)
			return p->roles[i];
	return NULL;
}

const char *
prompts_principles(const struct prompts *p, const char *family)
{
	for (size_t i = 0; i < N_FAMILIES; i++)
		if (family && strcmp(family_names[i], family) == 0)
			return p->principles[i];
	return p->principles[N_FAMILIES - 1];
}

void
prompts_directions(const struct prompts *p, const char *family, struct strvec *out)
{
	const char *text = prompts_principles(p, family);
	const char *sec = strstr(text, "## Directions");
	if (!sec)
		return;
	const char *line = strchr(sec, '\n');
	while (line && *++line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len >= 2 && line[0] == '#')
			break; /* the next section */
		if (len > 2 && (line[0] == '-' || line[0] == '*') && line[1] == ' ')
			strvec_push_owned(out, egg_xstrndup(line + 2, len - 2));
		line = eol;
	}
}

const char *
prompts_identity(const struct prompts *p)
{
	return p->identity;
}

const char *
prompts_identity_of(const char *dir)
{
	static char *cached_dir;
	static char identity[96];
	if (cached_dir && strcmp(cached_dir, dir) == 0)
		return identity;
	struct strbuf err = STRBUF_INIT;
	struct prompts *p = prompts_load(dir, &err);
	snprintf(identity, sizeof identity, "%s", p ? p->identity : "prompts-unreadable");
	prompts_free(p);
	strbuf_release(&err);
	free(cached_dir);
	cached_dir = egg_xstrdup(dir);
	return identity;
}

char *
prompts_render(const char *tmpl, const char *const *names, const char *const *values, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = tmpl;
	for (const char *open; (open = strstr(p, "{{")) != NULL;) {
		const char *close = strstr(open + 2, "}}");
		if (!close)
			break;
		size_t len = (size_t)(close - open - 2);
		if (len == 0 || len > 32 || strspn(open + 2, "abcdefghijklmnopqrstuvwxyz_") != len) {
			strbuf_add(&sb, p, (size_t)(open - p) + 2); /* not a placeholder */
			p = open + 2;
			continue;
		}
		strbuf_add(&sb, p, (size_t)(open - p));
		for (size_t i = 0; i < n; i++)
			if (strlen(names[i]) == len && memcmp(names[i], open + 2, len) == 0) {
				strbuf_addstr(&sb, values[i] ? values[i] : "");
				break;
			}
		p = close + 2;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}
