/*
 * probe.c -- what GPUs there are: the probe program (compiled once per nvcc into
 * the cache, PTX for compute_75 so that it runs on any GPU the toolkit
 * supports), the GPUs of one architecture the programs may use, and their
 * measured ceilings (copy bandwidth, FMA rate), kept per GPU in the cache.
 */
#include "config.h"
#include "harness/run_int.h"
#include "harness/gen.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long
run_fnv(const char *s, unsigned long long h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
	return h;
}

/* The probe program, compiled once per nvcc into the cache (PTX for compute_75,
 * so it runs on any GPU the toolkit supports). */
static char *
run_probe_exe(struct run_ctx *c, struct strbuf *err)
{
	struct strbuf src = STRBUF_INIT;
	gen_probe(&src);
	unsigned long long h = run_fnv(c->nvcc, run_fnv(src.buf, 0xcbf29ce484222325ull));
	char *exe = egg_xasprintf("%s/probe-%016llx", c->cache, h);
	if (fs_is_executable(exe)) {
		strbuf_release(&src);
		return exe;
	}
	char *cu = egg_xasprintf("%s/probe.cu", c->dir);
	char *tmp = egg_xasprintf("%s/probe.exe", c->dir);
	char *log = NULL;
	int ok = run_write(cu, src.buf, err) == 0 && fs_mkdir_p(c->cache, 0755) == 0;
	if (ok) {
		struct strvec a = STRVEC_INIT;
		strvec_push(&a, "-arch=compute_75");
		strvec_push(&a, cu);
		strvec_push(&a, "-o");
		strvec_push(&a, tmp);
		char *logp = egg_xasprintf("%s/probe.log", c->dir);
		ok = run_nvcc(c, &a, logp, &log) == 0;
		free(logp);
		strvec_clear(&a);
		if (!ok)
			strbuf_addf(err, "the GPU probe does not compile: %s", log);
		else if (rename(tmp, exe) < 0)
			ok = 0, strbuf_addf(err, "cannot store the GPU probe in %s: %s", c->cache,
			                    strerror(errno));
	} else if (!err->len) {
		strbuf_addf(err, "cannot create %s: %s", c->cache, strerror(errno));
	}
	free(log);
	free(cu);
	free(tmp);
	strbuf_release(&src);
	if (!ok) {
		free(exe);
		return NULL;
	}
	return exe;
}

void
run_set_status(struct run_ctx *c, const char *status, const char *message)
{
	cJSON_ReplaceItemInObject(c->result, "status", cJSON_CreateString(status));
	cJSON_ReplaceItemInObject(c->result, "message",
	                          message ? cJSON_CreateString(message) : cJSON_CreateNull());
}

/* The GPUs the programs may run on, one program per GPU at a time: the visible
 * ones (the gpu setting, else CUDA_VISIBLE_DEVICES, else all) that have the first one's
 * architecture, each named so that CUDA_VISIBLE_DEVICES selects it alone. */
static void
run_discover_gpus(struct run_ctx *c, const char *exe, int count)
{
	const char *v = c->opt->gpu;
	if (!v || !*v)
		v = getenv("CUDA_VISIBLE_DEVICES");
	struct strvec names = STRVEC_INIT;
	if (v && *v) {
		char *copy = egg_xstrdup(v), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			strvec_push(&names, t);
		free(copy);
	}
	for (int i = (int)names.n; i < count; i++)
		strvec_push_owned(&names, egg_xasprintf("%d", i));
	if (names.n == 0)
		strvec_push(&names, "0");
	c->gpus[0].visible = egg_xstrdup(names.v[0]);
	c->gpus[0].uuid = egg_xstrdup(c->gpu_key);
	c->n_gpus = 1;
	const cJSON *dev = cJSON_GetObjectItem(c->result, "device");
	const char *cc0 = cJSON_GetObjectItem(dev, "cc")->valuestring;
	for (int i = 1; i < count && i < (int)names.n && c->n_gpus < RUN_MAX_GPUS; i++) {
		struct strvec args = STRVEC_INIT;
		strvec_push(&args, "--probe");
		struct child_status st;
		struct strbuf err = STRBUF_INIT;
		char *output = NULL;
		cJSON *j = run_program(c, exe, &args, "probe-more", names.v[i], 60, NULL, &st, &output, &err);
		const cJSON *d = cJSON_GetObjectItem(j, "device");
		const cJSON *cc = cJSON_GetObjectItem(d, "cc"), *uuid = cJSON_GetObjectItem(d, "uuid");
		if (cJSON_IsString(cc) && cJSON_IsString(uuid) && strcmp(cc->valuestring, cc0) == 0 &&
		    strcmp(uuid->valuestring, c->gpu_key) != 0) {
			c->gpus[c->n_gpus].visible = egg_xstrdup(names.v[i]);
			c->gpus[c->n_gpus].uuid = egg_xstrdup(uuid->valuestring);
			c->n_gpus++;
		}
		cJSON_Delete(j);
		free(output);
		strbuf_release(&err);
		strvec_clear(&args);
	}
	cJSON *list = cJSON_CreateArray();
	for (int i = 0; i < c->n_gpus; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(c->gpus[i].uuid));
	cJSON_AddItemToObject(c->result, "gpus", list);
	strvec_clear(&names);
}

/* Probes the GPU; fills device, arch and ceilings.  0, or -1 with the result's
 * status set (no_gpu or error). */
int
run_probe(struct run_ctx *c)
{
	const char *gpu = c->opt->gpu;
	if (gpu && strcmp(gpu, "none") == 0) {
		run_set_status(c, "no_gpu", "no GPU: the gpu setting is \"none\"");
		return -1;
	}
	struct strbuf err = STRBUF_INIT;
	char *exe = run_probe_exe(c, &err);
	if (!exe) {
		run_set_status(c, "error", err.buf);
		strbuf_release(&err);
		return -1;
	}
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "--probe");
	struct child_status st;
	char *output = NULL;
	cJSON *j = run_program(c, exe, &args, "probe", NULL, 60, NULL, &st, &output, &err);
	const cJSON *status = cJSON_GetObjectItem(j, "status");
	int rc = -1, count = 0;
	if (cJSON_IsString(status) && strcmp(status->valuestring, "no_gpu") == 0) {
		const cJSON *m = cJSON_GetObjectItem(j, "message");
		run_set_status(c, "no_gpu", cJSON_IsString(m) ? m->valuestring : "no GPU");
	} else if (!cJSON_IsString(status) || strcmp(status->valuestring, "ok") != 0) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addstr(&m, "the GPU probe ");
		child_describe(&st, &m);
		strbuf_addf(&m, ": %s%s", err.buf, output ? output : "");
		run_set_status(c, "error", m.buf);
		strbuf_release(&m);
	} else {
		cJSON *dev = cJSON_DetachItemFromObject(j, "device");
		const cJSON *cc = cJSON_GetObjectItem(dev, "cc");
		const cJSON *uuid = cJSON_GetObjectItem(dev, "uuid");
		int major = 0, minor = 0;
		if (cJSON_IsString(cc) && sscanf(cc->valuestring, "%d.%d", &major, &minor) == 2 &&
		    cJSON_IsString(uuid)) {
			c->arch = egg_xasprintf("sm_%d%d", major, minor);
			cJSON_ReplaceItemInObject(c->result, "device", dev);
			cJSON_ReplaceItemInObject(c->result, "arch", cJSON_CreateString(c->arch));
			c->gpu_key = cJSON_GetObjectItem(dev, "uuid")->valuestring;
			count = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "device_count"));
			rc = 0;
		} else {
			cJSON_Delete(dev);
			run_set_status(c, "error", "the GPU probe printed no compute capability");
		}
	}
	cJSON_Delete(j);
	strvec_clear(&args);
	free(output);
	if (rc == 0)
		run_discover_gpus(c, exe, count);
	if (rc == 0) {
		/* Ceilings: measured once per GPU, then read from the cache. */
		char *path = egg_xasprintf("%s/%s.json", c->cache, c->gpu_key);
		char *data = NULL;
		size_t len;
		if (fs_read_file(path, 1 << 20, &data, &len) == 0)
			c->ceilings = cJSON_Parse(data);
		free(data);
		if (!c->ceilings) {
			strvec_push(&args, "--ceilings");
			int fd = proc_gpu_lock(c->gpu_key, &err);
			j = run_program(c, exe, &args, "ceilings", c->gpus[0].visible, 120, NULL, &st, &output,
			                &err);
			proc_gpu_unlock(fd);
			c->ceilings = cJSON_DetachItemFromObject(j, "ceilings");
			if (c->ceilings) {
				char *s = cJSON_Print(c->ceilings);
				fs_write_atomic(path, s, strlen(s));
				cJSON_free(s);
			}
			cJSON_Delete(j);
			strvec_clear(&args);
			free(output);
		}
		if (c->ceilings)
			cJSON_ReplaceItemInObject(c->result, "ceilings", cJSON_Duplicate(c->ceilings, 1));
		free(path);
	}
	free(exe);
	strbuf_release(&err);
	return rc;
}
