/*
 * egg_config_value.c -- the values of egg's settings (egg_config_int.h): what
 * each type accepts (choices, bools, sizes by ccache's rules, counts,
 * durations, paths with ~ and relative to their file) and its normal form.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/egg_config_int.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Index of v in "a|b|c" (case-blind), or -1. */
int
config_choice_index(const char *choices, const char *v)
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

int
config_parse_bool(const char *v)
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

/* A count; k and M are thousands and millions. */
int
config_parse_count(const char *v, uint64_t *out)
{
	static const char *const units[] = { "k", "m" };
	static const uint64_t f[] = { 1000, 1000000 };
	return parse_scaled(v, units, f, sizeof units / sizeof *units, out);
}

/* Seconds; a bare number is seconds. */
int
config_parse_duration(const char *v, uint64_t *out)
{
	static const char *const units[] = { "s", "m", "h" };
	static const uint64_t f[] = { 1, 60, 3600 };
	return parse_scaled(v, units, f, sizeof units / sizeof *units, out);
}

const char *
config_home_dir(void)
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
char *
config_expand_path(const char *v, const char *file)
{
	if (v[0] == '~' && (v[1] == '\0' || v[1] == '/')) {
		const char *home = config_home_dir();
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
char *
config_default_path(const char *def)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (egg_str_starts(def, "~/.cache/") && xdg && xdg[0] == '/')
		return egg_xasprintf("%s/%s", xdg, def + 9);
	return config_expand_path(def, NULL);
}

/* The normal form of v for key k (owned), or NULL if v does not fit the key's type.
 * file: where a relative path is relative to (NULL: the working directory). */
char *
config_normalize(const struct key *k, const char *v, const char *file)
{
	uint64_t n;
	int b;
	switch (k->type) {
	case T_CHOICE:
		if (config_choice_index(k->choices, v) < 0)
			return NULL;
		char *c = egg_xstrdup(v);
		for (char *p = c; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		return c;
	case T_BOOL:
		b = config_parse_bool(v);
		return b < 0 ? NULL : egg_xstrdup(b ? "true" : "false");
	case T_SIZE:
		return egg_config_parse_size(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_DURATION:
		return config_parse_duration(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_COUNT:
		return config_parse_count(v, &n) < 0 ? NULL : egg_xstrdup(v);
	case T_PATH:
		return config_expand_path(v, file);
	case T_STRING:
	case T_SECRET:
	case T_LIST:
		break;
	}
	return egg_xstrdup(v);
}

/* What a value of key k must look like: "search, cache, verify or off". */
void
config_describe_type(const struct key *k, struct strbuf *out)
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
