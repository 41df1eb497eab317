/*
 * cmd_config.c -- `egg config [--json] [--source FILE] [--egg-KEY=VALUE...] [KEY]`: the
 * effective configuration and where each value came from.
 *
 * It reads exactly what egg-cc reads (egg_config_load_for, from the working directory
 * and, with --source, from that source's directory as egg-cc compiling it would), so
 * running it next to a build answers "why did egg do that?".  The text form is itself
 * a valid egg.conf: values that the parser would cut or trim are quoted, and each
 * origin is a trailing comment.  Secrets show as "<set>".  A configuration with an
 * error prints only that error and exits 1, where egg-cc would warn and go plain nvcc.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_config(int argc, char **argv);

static void
usage(FILE *f)
{
	fprintf(f, "usage: egg config [--json] [--source FILE] [--egg-KEY=VALUE...] [KEY]\n"
	           "Prints the effective configuration (every key, or KEY's value), with where\n"
	           "each value came from: default, FILE:LINE, environment EGG_KEY or option.\n"
	           "--source FILE: as egg-cc compiling FILE reads it (the project's egg.conf is\n"
	           "also looked for from FILE's directory).\n"
	           "Keys and files: man 5 egg.conf.\n");
}

/* Quotes v when the parser would otherwise trim it or read part of it as a comment. */
static void
add_conf_value(struct strbuf *out, const char *v)
{
	size_t n = strlen(v);
	int needs = n && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t' ||
	                  v[0] == '"' || v[0] == '\'' || v[0] == '#' || strstr(v, " #") ||
	                  strstr(v, "\t#"));
	if (!needs)
		strbuf_addstr(out, v);
	else if (!strchr(v, '"'))
		strbuf_addf(out, "\"%s\"", v);
	else
		strbuf_addf(out, "'%s'", v);
}

static void
print_text(const struct egg_config *cfg, const char *only)
{
	struct strvec lines = STRVEC_INIT, origins = STRVEC_INIT;
	size_t width = 0;
	for (size_t i = 0; egg_config_key_name(i); i++) {
		const char *key = egg_config_key_name(i);
		struct strbuf v = STRBUF_INIT, line = STRBUF_INIT, origin = STRBUF_INIT;
		egg_config_show(cfg, key, &v);
		if (only) {
			if (strcmp(key, only) == 0)
				printf("%s\n", v.buf);
			strbuf_release(&v);
			continue;
		}
		strbuf_addf(&line, "%s = ", key);
		add_conf_value(&line, v.buf);
		egg_config_origin(cfg, key, &origin);
		if (line.len > width)
			width = line.len;
		strvec_push_owned(&lines, strbuf_detach(&line));
		strvec_push_owned(&origins, strbuf_detach(&origin));
		strbuf_release(&v);
	}
	if (width > 40)
		width = 40;
	for (size_t i = 0; i < lines.n; i++)
		printf("%-*s  # %s\n", (int)width, lines.v[i], origins.v[i]);
	strvec_clear(&lines);
	strvec_clear(&origins);
}

static void
print_json(const struct egg_config *cfg, const char *only)
{
	cJSON *root = cJSON_CreateObject();
	for (size_t i = 0; egg_config_key_name(i); i++) {
		const char *key = egg_config_key_name(i);
		if (only && strcmp(key, only) != 0)
			continue;
		struct strbuf v = STRBUF_INIT, origin = STRBUF_INIT;
		egg_config_show(cfg, key, &v);
		egg_config_origin(cfg, key, &origin);
		cJSON *o = cJSON_AddObjectToObject(root, key);
		if (egg_config_get(cfg, key))
			cJSON_AddStringToObject(o, "value", v.buf);
		else
			cJSON_AddNullToObject(o, "value");
		cJSON_AddStringToObject(o, "origin", origin.buf);
		strbuf_release(&v);
		strbuf_release(&origin);
	}
	char *text = cJSON_Print(root);
	printf("%s\n", text);
	cJSON_free(text);
	cJSON_Delete(root);
}

int
cmd_config(int argc, char **argv)
{
	int json = 0;
	const char *only = NULL, *source = NULL;
	struct strvec opts = STRVEC_INIT;
	int status = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--source") == 0 && i + 1 < argc) {
			source = argv[++i];
		} else if (egg_str_starts(a, "--source=")) {
			source = a + 9;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			goto out;
		} else if (egg_str_starts(a, "--egg-")) {
			strvec_push(&opts, a);
		} else if (a[0] == '-' || only) {
			egg_error("config: unexpected argument '%s'", a);
			usage(stderr);
			status = 2;
			goto out;
		} else {
			only = a;
		}
	}
	if (only && !egg_config_key_doc(only)) {
		const char *near = egg_config_key_suggest(only);
		if (near)
			egg_error("unknown key '%s' (did you mean '%s'?)", only, near);
		else
			egg_error("unknown key '%s'; 'egg config' lists the keys", only);
		status = 2;
		goto out;
	}
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	if (egg_config_load_for(cfg, &opts, source, &err) < 0) {
		egg_error("%s", err.buf);
		status = 1;
	} else if (json) {
		print_json(cfg, only);
	} else {
		print_text(cfg, only);
	}
	strbuf_release(&err);
	egg_config_free(cfg);
out:
	strvec_clear(&opts);
	return status;
}
