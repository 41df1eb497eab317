/*
 * cmd_generate.c -- `egg generate [--describe | --check-program] JOB.json`: runs
 * the builtin generator on a bundle (a bundle object, or an object whose
 * "bundle" member is one) and prints what it produced:
 *   default          JSON: {"generator", "version", "lifted", "not_lifted",
 *                    "description", "candidates": [{"label", "source"}]}
 *   --describe       the lifted description as text ("not lifted: REASON")
 *   --check-program  a self-contained CUDA program that runs the reference and
 *                    every candidate on random data and prints a table
 *                    (builtin/tests/gpu-check.sh compiles and runs it)
 */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/check/check.h"
#include "common/bundle.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_generate(int argc, char **argv);

static struct egg_bundle *
read_job(const char *path)
{
	char *text = NULL;
	size_t len;
	if (fs_read_file(path, 64 << 20, &text, &len) != 0) {
		egg_error("cannot read %s", path);
		return NULL;
	}
	cJSON *json = cJSON_Parse(text);
	free(text);
	if (!json) {
		egg_error("%s is not JSON", path);
		return NULL;
	}
	cJSON *inner = cJSON_GetObjectItemCaseSensitive(json, "bundle");
	struct strbuf err = STRBUF_INIT;
	struct egg_bundle *b = bundle_from_cjson(cJSON_IsObject(inner) ? inner : json, &err);
	if (!b)
		egg_error("%s: %s", path, err.buf);
	strbuf_release(&err);
	cJSON_Delete(json);
	return b;
}

int
cmd_generate(int argc, char **argv)
{
	int describe = 0, check = 0;
	const char *path = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--describe") == 0)
			describe = 1;
		else if (strcmp(argv[i], "--check-program") == 0)
			check = 1;
		else if (argv[i][0] == '-' || path) {
			egg_error("usage: egg generate [--describe | --check-program] JOB.json");
			return 2;
		} else
			path = argv[i];
	}
	if (!path) {
		egg_error("usage: egg generate [--describe | --check-program] JOB.json");
		return 2;
	}
	struct egg_bundle *b = read_job(path);
	if (!b)
		return 1;
	struct builtin_output out;
	struct strbuf err = STRBUF_INIT;
	struct builtin_options opt = { NULL, describe };
	int rc = builtin_generate(b, &opt, &out, &err);
	if (rc != 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		bundle_free(b);
		return 1;
	}
	if (describe) {
		if (out.description)
			fputs(out.description, stdout);
		if (out.not_lifted)
			printf("not lifted: %s\n", out.not_lifted);
	} else if (check) {
		struct strbuf prog = STRBUF_INIT;
		check_program(b, &out, &prog);
		fputs(prog.buf, stdout);
		strbuf_release(&prog);
	} else {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "generator", "builtin");
		cJSON_AddStringToObject(o, "version", BUILTIN_VERSION);
		cJSON_AddBoolToObject(o, "lifted", out.program != NULL);
		if (out.not_lifted)
			cJSON_AddStringToObject(o, "not_lifted", out.not_lifted);
		else
			cJSON_AddNullToObject(o, "not_lifted");
		if (out.description)
			cJSON_AddStringToObject(o, "description", out.description);
		else
			cJSON_AddNullToObject(o, "description");
		cJSON *cands = cJSON_AddArrayToObject(o, "candidates");
		for (size_t i = 0; i < out.n_candidates; i++) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "label", out.candidates[i].label);
			cJSON_AddStringToObject(c, "source", out.candidates[i].source);
			cJSON_AddItemToArray(cands, c);
		}
		char *s = cJSON_Print(o);
		puts(s);
		free(s);
		cJSON_Delete(o);
	}
	builtin_output_release(&out);
	strbuf_release(&err);
	bundle_free(b);
	return 0;
}
