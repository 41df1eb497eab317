/*
 * result.c -- the evaluation result's JSON: an empty one, the resources ptxas
 * reports, and the check applied to a result read back from a file or another
 * machine (see run.h for the schema).
 */
#include "config.h"
#include "harness/run.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *
run_new_result(const char *target)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", "egg-result");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "status", "ok");
	cJSON_AddNullToObject(o, "message");
	cJSON_AddStringToObject(o, "target", target ? target : "");
	cJSON_AddNullToObject(o, "arch");
	cJSON_AddNullToObject(o, "nvcc");
	cJSON_AddArrayToObject(o, "flags");
	cJSON_AddNumberToObject(o, "seed", 0);
	cJSON_AddNullToObject(o, "device");
	cJSON_AddNullToObject(o, "ceilings");
	cJSON_AddNullToObject(o, "reference");
	cJSON_AddArrayToObject(o, "candidates");
	cJSON_AddNullToObject(o, "best");
	cJSON_AddNullToObject(o, "sandbox");
	return o;
}

void *
run_parse_ptxas(const char *log)
{
	cJSON *arr = cJSON_CreateArray(), *cur = NULL;
	const char *p = log;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = egg_xstrndup(p, len);
		const char *s;
		long a, b2, c3;
		if ((s = strstr(line, "Function properties for ")) != NULL) {
			cur = cJSON_CreateObject();
			cJSON_AddStringToObject(cur, "function", s + strlen("Function properties for "));
			cJSON_AddItemToArray(arr, cur);
		} else if (cur && sscanf(line, " %ld bytes stack frame, %ld bytes spill stores, %ld "
		                               "bytes spill loads", &a, &b2, &c3) == 3) {
			cJSON_AddNumberToObject(cur, "stack_bytes", (double)a);
			cJSON_AddNumberToObject(cur, "spill_stores", (double)b2);
			cJSON_AddNumberToObject(cur, "spill_loads", (double)c3);
		} else if (cur && (s = strstr(line, "Used ")) != NULL && sscanf(s, "Used %ld registers", &a) == 1) {
			cJSON_AddNumberToObject(cur, "registers", (double)a);
			const char *sm = strstr(line, " bytes smem");
			long smem = 0;
			if (sm) {
				while (sm > line && sm[-1] >= '0' && sm[-1] <= '9')
					sm--;
				smem = strtol(sm, NULL, 10);
			}
			cJSON_AddNumberToObject(cur, "smem_bytes", (double)smem);
			cur = NULL;
		}
		free(line);
		p = eol ? eol + 1 : NULL;
	}
	/* Keep kernels only: device functions have no "Used" line. */
	for (int i = cJSON_GetArraySize(arr) - 1; i >= 0; i--)
		if (!cJSON_GetObjectItem(cJSON_GetArrayItem(arr, i), "registers"))
			cJSON_DeleteItemFromArray(arr, i);
	return arr;
}

int
run_check_result(const void *json, struct strbuf *err)
{
	const cJSON *o = json;
	static const char *const keys[] = { "status", "message", "target", "arch", "seed",
		                            "device", "ceilings", "reference", "candidates",
		                            "best", NULL };
	const cJSON *schema = cJSON_GetObjectItem(o, "schema");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "egg-result") != 0) {
		strbuf_addstr(err, "result: 'schema' is not \"egg-result\"");
		return -1;
	}
	if (cJSON_GetNumberValue(cJSON_GetObjectItem(o, "version")) != 1) {
		strbuf_addstr(err, "result: 'version' is not a version this egg reads");
		return -1;
	}
	for (int i = 0; keys[i]; i++)
		if (!cJSON_GetObjectItem(o, keys[i])) {
			strbuf_addf(err, "result: '%s' is missing", keys[i]);
			return -1;
		}
	const cJSON *cand;
	cJSON_ArrayForEach(cand, cJSON_GetObjectItem(o, "candidates")) {
		if (!cJSON_IsString(cJSON_GetObjectItem(cand, "name")) ||
		    !cJSON_GetObjectItem(cand, "verdict")) {
			strbuf_addstr(err, "result: a candidate lacks 'name' or 'verdict'");
			return -1;
		}
	}
	return 0;
}
