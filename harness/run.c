/*
 * run.c -- compiles, runs and judges evaluation programs (see run.h).
 *
 * The order of work keeps the expensive and the dangerous parts last: the probe
 * (cached binary, a fraction of a second) says whether there is a GPU at all
 * before anything is compiled; the reference and main are compiled once; each
 * candidate is screened before it is compiled and compiled before it holds the
 * GPU lock, so the lock is held only while a program runs.
 */
#include "config.h"
#include "harness/run.h"
#include "harness/gen.h"
#include "harness/proc.h"
#include "harness/screen.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <time.h>
#include <unistd.h>

#define RUN_COMPILE_TIMEOUT 600.0
#define RUN_LOG_MAX 16384

struct run_ctx {
	const struct egg_bundle *b;
	const struct run_options *opt;
	char *nvcc, *dir, *arch, *cache;
	struct strvec flags;      /* the build's flags less arch and output options */
	unsigned long long seed;
	const char *gpu_key;      /* the device's UUID, for the lock */
	cJSON *result, *ceilings;
};

static char *
run_find_nvcc(const struct run_options *opt)
{
	if (opt->nvcc)
		return egg_xstrdup(opt->nvcc);
	const char *env = getenv("EGG_NVCC");
	if (env && *env)
		return egg_xstrdup(env);
	char *conf = egg_xasprintf("%s/bin/nvcc", EGG_CUDA_HOME);
	if (fs_is_executable(conf))
		return conf;
	free(conf);
	const char *path = getenv("PATH");
	return path ? fs_find_in_path("nvcc", path, NULL) : NULL;
}

static char *
run_cache_dir(void)
{
	const char *c = getenv("EGG_CACHE_DIR");
	if (c && *c)
		return fs_join(c, "gpu");
	const char *home = getenv("HOME");
	return egg_xasprintf("%s/.cache/egg/gpu", home && *home ? home : "/tmp");
}

/* Keeps the build's flags except those that pick the architecture or name the
 * output: the harness compiles for the GPU it runs on, into its own files. */
static void
run_filter_flags(char *const *flags, size_t n, struct strvec *out)
{
	static const char *const with_arg[] = { "-arch", "--gpu-architecture", "-gencode",
		                                "--generate-code", "-code", "--gpu-code", "-o",
		                                "--output-file", "-MF", "-MT", "-MQ", NULL };
	static const char *const alone[] = { "-c", "--compile", "-dc", "-rdc=true", "-M", "-MD",
		                             "-MMD", "-MP", "-E", "-ptx", "-cubin", NULL };
	for (size_t i = 0; i < n; i++) {
		const char *f = flags[i];
		int skip = 0, skip_next = 0;
		for (int k = 0; with_arg[k]; k++) {
			size_t l = strlen(with_arg[k]);
			if (strcmp(f, with_arg[k]) == 0)
				skip = skip_next = 1;
			else if (strncmp(f, with_arg[k], l) == 0 && f[l] == '=')
				skip = 1;
		}
		for (int k = 0; alone[k]; k++)
			skip |= strcmp(f, alone[k]) == 0;
		skip |= egg_str_starts(f, "-arch=") || egg_str_starts(f, "-gencode=");
		if (!skip)
			strvec_push(out, f);
		if (skip_next)
			i++;
	}
}

static char *
run_read_tail(const char *path, size_t max)
{
	char *data = NULL;
	size_t len = 0;
	if (fs_read_file(path, 0, &data, &len) < 0)
		return egg_xstrdup("");
	if (len > max) {
		char *t = egg_xasprintf("[... %zu bytes cut ...]\n%s", len - max, data + len - max);
		free(data);
		return t;
	}
	return data;
}

static int
run_write(const char *path, const char *text, struct strbuf *err)
{
	if (fs_write_atomic(path, text, strlen(text)) < 0) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* nvcc ARGS...: returns 0 if it succeeded; the log (stdout and stderr) in *log. */
static int
run_nvcc(struct run_ctx *c, struct strvec *args, const char *log_path, char **log)
{
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, c->nvcc);
	strvec_pushv(&argv, args->v, args->n);
	struct proc_status st;
	struct strbuf err = STRBUF_INIT;
	int rc = proc_run(strvec_argv(&argv), NULL, NULL, log_path, log_path, RUN_COMPILE_TIMEOUT, &st,
	                  &err);
	strvec_clear(&argv);
	if (rc < 0) {
		*log = strbuf_detach(&err);
		return -1;
	}
	strbuf_release(&err);
	*log = run_read_tail(log_path, RUN_LOG_MAX);
	if (st.exited && st.exit_code == 0)
		return 0;
	if (!st.exited) {
		struct strbuf why = STRBUF_INIT;
		strbuf_addf(&why, "%s\nnvcc ", *log);
		proc_describe(&st, &why);
		free(*log);
		*log = strbuf_detach(&why);
	}
	return -1;
}

/* Compiles SRC.cu in the work directory to SRC.o with -Xptxas -v. */
static int
run_compile(struct run_ctx *c, const char *stem, const char *arch_flag, char **log)
{
	struct strvec a = STRVEC_INIT;
	strvec_pushv(&a, c->flags.v, c->flags.n);
	strvec_push(&a, arch_flag);
	strvec_push(&a, "-Xptxas");
	strvec_push(&a, "-v");
	strvec_push(&a, "-c");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.cu", c->dir, stem));
	strvec_push(&a, "-o");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.o", c->dir, stem));
	char *logp = egg_xasprintf("%s/%s.log", c->dir, stem);
	int rc = run_nvcc(c, &a, logp, log);
	free(logp);
	strvec_clear(&a);
	return rc;
}

/* Adds "name" (demangled, without the anonymous namespace every contender lives
 * in) to each resource entry, through cu++filt beside nvcc or c++filt on PATH;
 * without either the mangled names stay alone. */
static void
run_demangle(struct run_ctx *c, cJSON *resources)
{
	int n = cJSON_GetArraySize(resources);
	if (n == 0)
		return;
	char *bindir = fs_dirname(c->nvcc);
	char *filt = fs_join(bindir, "cu++filt");
	if (!fs_is_executable(filt)) {
		free(filt);
		const char *path = getenv("PATH");
		filt = path ? fs_find_in_path("c++filt", path, NULL) : NULL;
	}
	free(bindir);
	if (!filt)
		return;
	struct strbuf names = STRBUF_INIT;
	cJSON *r;
	cJSON_ArrayForEach(r, resources)
		strbuf_addf(&names, "%s\n", cJSON_GetObjectItem(r, "function")->valuestring);
	char *in = egg_xasprintf("%s/names.txt", c->dir), *out = egg_xasprintf("%s/names.out", c->dir);
	char *argv[] = { filt, NULL };
	struct proc_status st;
	struct strbuf err = STRBUF_INIT;
	char *text = NULL;
	size_t len;
	if (fs_write_atomic(in, names.buf, names.len) == 0 &&
	    proc_run(argv, NULL, in, out, NULL, 30, &st, &err) == 0 && st.exited &&
	    st.exit_code == 0 && fs_read_file(out, 1 << 20, &text, &len) == 0) {
		char *line = text;
		cJSON_ArrayForEach(r, resources) {
			char *eol = line ? strchr(line, '\n') : NULL;
			if (!eol)
				break;
			*eol = 0;
			const char *name = line;
			if (egg_str_starts(name, "(anonymous namespace)::"))
				name += strlen("(anonymous namespace)::");
			cJSON_AddStringToObject(r, "name", name);
			line = eol + 1;
		}
	}
	free(text);
	free(in);
	free(out);
	free(filt);
	strbuf_release(&names);
	strbuf_release(&err);
}

/* Runs PROGRAM ARGS... --out FILE and parses FILE; NULL if there is no JSON. */
static cJSON *
run_program(struct run_ctx *c, const char *exe, struct strvec *args, const char *stem,
            double timeout_s, struct proc_status *st, char **output, struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, exe);
	strvec_pushv(&argv, args->v, args->n);
	char *json_path = egg_xasprintf("%s/%s.json", c->dir, stem);
	char *out_path = egg_xasprintf("%s/%s.out", c->dir, stem);
	unlink(json_path);
	strvec_push(&argv, "--out");
	strvec_push(&argv, json_path);
	struct strvec env = STRVEC_INIT;
	const char *gpu = getenv("EGG_GPU");
	if (gpu && *gpu)
		strvec_push_owned(&env, egg_xasprintf("CUDA_VISIBLE_DEVICES=%s", gpu));
	cJSON *j = NULL;
	if (proc_run(strvec_argv(&argv), env.n ? strvec_argv(&env) : NULL, NULL, out_path, out_path,
	             timeout_s, st, err) == 0) {
		char *data = NULL;
		size_t len;
		if (fs_read_file(json_path, 1 << 26, &data, &len) == 0) {
			j = cJSON_Parse(data);
			free(data);
		}
		*output = run_read_tail(out_path, 4096);
	}
	strvec_clear(&env);
	strvec_clear(&argv);
	free(json_path);
	free(out_path);
	return j;
}

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

static void
run_set_status(struct run_ctx *c, const char *status, const char *message)
{
	cJSON_ReplaceItemInObject(c->result, "status", cJSON_CreateString(status));
	cJSON_ReplaceItemInObject(c->result, "message",
	                          message ? cJSON_CreateString(message) : cJSON_CreateNull());
}

/* Probes the GPU; fills device, arch and ceilings.  0, or -1 with the result's
 * status set (no_gpu or error). */
static int
run_probe(struct run_ctx *c)
{
	const char *gpu = getenv("EGG_GPU");
	if (gpu && strcmp(gpu, "none") == 0) {
		run_set_status(c, "no_gpu", "no GPU: EGG_GPU is \"none\"");
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
	struct proc_status st;
	char *output = NULL;
	cJSON *j = run_program(c, exe, &args, "probe", 60, &st, &output, &err);
	const cJSON *status = cJSON_GetObjectItem(j, "status");
	int rc = -1;
	if (cJSON_IsString(status) && strcmp(status->valuestring, "no_gpu") == 0) {
		const cJSON *m = cJSON_GetObjectItem(j, "message");
		run_set_status(c, "no_gpu", cJSON_IsString(m) ? m->valuestring : "no GPU");
	} else if (!cJSON_IsString(status) || strcmp(status->valuestring, "ok") != 0) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addstr(&m, "the GPU probe ");
		proc_describe(&st, &m);
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
			rc = 0;
		} else {
			cJSON_Delete(dev);
			run_set_status(c, "error", "the GPU probe printed no compute capability");
		}
	}
	cJSON_Delete(j);
	strvec_clear(&args);
	free(output);
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
			j = run_program(c, exe, &args, "ceilings", 120, &st, &output, &err);
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


/* ---- one candidate ---- */

static cJSON *
run_new_candidate(const char *name)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNullToObject(o, "verdict");
	cJSON_AddNullToObject(o, "message");
	cJSON_AddNullToObject(o, "compile_log");
	cJSON_AddArrayToObject(o, "resources");
	cJSON_AddNullToObject(o, "speedup");
	cJSON_AddNullToObject(o, "run");
	cJSON_AddNumberToObject(o, "wall_s", 0);
	return o;
}

static void
run_verdict(cJSON *cand, const char *verdict, const char *message)
{
	cJSON_ReplaceItemInObject(cand, "verdict", cJSON_CreateString(verdict));
	cJSON_ReplaceItemInObject(cand, "message",
	                          message ? cJSON_CreateString(message) : cJSON_CreateNull());
}

/* Adds achieved bandwidth to each timing, and its fraction of the copy ceiling;
 * returns the geometric mean of the speedups (0 if there are none). */
static double
run_annotate_timings(struct run_ctx *c, cJSON *run)
{
	const cJSON *ceil = cJSON_GetObjectItem(c->ceilings, "copy_gbs");
	double log_sum = 0;
	int n = 0;
	cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(run, "timings")) {
		double bytes = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "bytes"));
		static const char *const who[] = { "candidate", "reference" };
		for (int k = 0; k < 2; k++) {
			cJSON *s = cJSON_GetObjectItem(t, who[k]);
			double ms = cJSON_GetNumberValue(cJSON_GetObjectItem(s, "median_ms"));
			if (!(ms > 0))
				continue;
			double gbs = bytes / (ms * 1e-3) / 1e9;
			cJSON_AddNumberToObject(s, "gbs", gbs);
			if (cJSON_IsNumber(ceil) && ceil->valuedouble > 0)
				cJSON_AddNumberToObject(s, "copy_fraction", gbs / ceil->valuedouble);
		}
		double sp = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "speedup"));
		if (sp > 0) {
			log_sum += log(sp);
			n++;
		}
	}
	return n ? exp(log_sum / n) : 0;
}

static int
run_link(struct run_ctx *c, const char *stem, char **log)
{
	struct strvec a = STRVEC_INIT;
	strvec_pushv(&a, c->flags.v, c->flags.n);
	strvec_push_owned(&a, egg_xasprintf("-arch=%s", c->arch));
	strvec_push_owned(&a, egg_xasprintf("%s/main.o", c->dir));
	strvec_push_owned(&a, egg_xasprintf("%s/ref.o", c->dir));
	strvec_push_owned(&a, egg_xasprintf("%s/%s.o", c->dir, stem));
	strvec_push(&a, "-o");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.exe", c->dir, stem));
	char *logp = egg_xasprintf("%s/%s.link.log", c->dir, stem);
	int rc = run_nvcc(c, &a, logp, log);
	free(logp);
	strvec_clear(&a);
	return rc;
}

/* Judges the program's JSON (or its absence) into the candidate's verdict. */
static void
run_judge(struct run_ctx *c, cJSON *cand, cJSON *j, const struct proc_status *st,
          const char *output, int self)
{
	struct strbuf m = STRBUF_INIT;
	const cJSON *status = cJSON_GetObjectItem(j, "status");
	const cJSON *msg = cJSON_GetObjectItem(j, "message");
	const char *s = cJSON_IsString(status) ? status->valuestring : NULL;
	if (st->timed_out) {
		strbuf_addstr(&m, "the program ");
		proc_describe(st, &m);
		run_verdict(cand, "timeout", m.buf);
	} else if (!s) {
		strbuf_addstr(&m, "the program ");
		proc_describe(st, &m);
		strbuf_addstr(&m, " without a result");
		if (output && *output)
			strbuf_addf(&m, "; its output ends: %s", output);
		run_verdict(cand, "crash", m.buf);
	} else if (strcmp(s, "ok") == 0) {
		double sp = run_annotate_timings(c, j);
		double min = c->opt->min_speedup > 0 ? c->opt->min_speedup : 1.03;
		if (sp > 0)
			cJSON_ReplaceItemInObject(cand, "speedup", cJSON_CreateNumber(sp));
		if (self || c->opt->no_timing || sp >= min) {
			run_verdict(cand, "pass", NULL);
		} else {
			strbuf_addf(&m, "correct, but %.3gx the reference's speed (needs %.3gx)", sp, min);
			run_verdict(cand, "slower", m.buf);
		}
	} else if (strcmp(s, "wrong") == 0 || strcmp(s, "cuda_error") == 0) {
		run_verdict(cand, s, cJSON_IsString(msg) ? msg->valuestring : NULL);
	} else if (strcmp(s, "no_gpu") == 0) {
		run_verdict(cand, "error", "the GPU went away");
		run_set_status(c, "no_gpu", cJSON_IsString(msg) ? msg->valuestring : "no GPU");
	} else {
		strbuf_addf(&m, "%s: %s", s, cJSON_IsString(msg) ? msg->valuestring : "(no message)");
		run_verdict(cand, "error", m.buf);
	}
	if (output && *output && s)
		cJSON_AddStringToObject(cand, "output", output);
	strbuf_release(&m);
}

/* compute-sanitizer's memcheck (with exact allocations, so that a read one
 * element past a buffer is outside it) and racecheck on a passing candidate. */
static void
run_sanitize(struct run_ctx *c, const char *stem, cJSON *cand)
{
	char *bindir = fs_dirname(c->nvcc);
	char *san = fs_join(bindir, "compute-sanitizer");
	char *exe = egg_xasprintf("%s/%s.exe", c->dir, stem);
	cJSON *o = cJSON_AddObjectToObject(cand, "sanitizer");
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT, unsafe = STRBUF_INIT;
	static const char *const tools[] = { "memcheck", "racecheck" };
	for (int t = 0; t < 2; t++) {
		if (!fs_is_executable(san)) {
			cJSON_AddStringToObject(o, tools[t], "unavailable");
			continue;
		}
		struct strvec args = STRVEC_INIT;
		strvec_push(&args, "--tool");
		strvec_push(&args, tools[t]);
		strvec_push(&args, "--error-exitcode");
		strvec_push(&args, "99");
		strvec_push(&args, "--print-limit");
		strvec_push(&args, "20");
		strvec_push(&args, exe);
		strvec_push(&args, "--no-timing");
		strvec_push(&args, "--no-guards");
		strvec_push(&args, "--trials");
		strvec_push(&args, "2");
		strvec_push(&args, "--seed");
		strvec_push_owned(&args, egg_xasprintf("%llu", c->seed));
		char *tstem = egg_xasprintf("%s.%s", stem, tools[t]);
		struct proc_status st;
		char *output = NULL;
		int fd = proc_gpu_lock(c->gpu_key, &err);
		double limit = (c->opt->timeout_s > 0 ? c->opt->timeout_s : 120) * 20;
		cJSON *j = run_program(c, san, &args, tstem, limit > 600 ? 600 : limit, &st, &output, &err);
		proc_gpu_unlock(fd);
		const cJSON *status = cJSON_GetObjectItem(j, "status");
		const char *state = "unavailable";
		if (st.exited && st.exit_code == 99) {
			state = "errors";
			strbuf_addf(&unsafe, "%s%s", unsafe.len ? " and " : "", tools[t]);
		} else if (st.exited && st.exit_code == 0 && cJSON_IsString(status)) {
			state = "clean";
		}
		cJSON_AddStringToObject(o, tools[t], state);
		strbuf_addf(&log, "== %s ==\n%s\n", tools[t], output ? output : err.buf);
		strbuf_reset(&err);
		cJSON_Delete(j);
		free(output);
		free(tstem);
		strvec_clear(&args);
	}
	cJSON_AddStringToObject(o, "log", log.buf);
	if (unsafe.len) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "correct and fast, but compute-sanitizer's %s found errors (see "
		            "sanitizer.log)", unsafe.buf);
		run_verdict(cand, "unsafe", m.buf);
		strbuf_release(&m);
	}
	strbuf_release(&log);
	strbuf_release(&err);
	strbuf_release(&unsafe);
	free(exe);
	free(san);
	free(bindir);
}

static void
run_one(struct run_ctx *c, size_t k, const struct run_candidate *rc, int self, cJSON *cand)
{
	struct strbuf err = STRBUF_INIT, src = STRBUF_INIT;
	char stem[32];
	snprintf(stem, sizeof stem, "cand%zu", k);
	char *log = NULL;
	if (!self && screen_candidate(rc->source, c->b->includes, c->b->n_includes, &err) < 0) {
		run_verdict(cand, "rejected", err.buf);
		goto out;
	}
	char *path = egg_xasprintf("%s/%s.cu", c->dir, stem);
	int ok = gen_unit(c->b, rc->source, GEN_CAND_ENTRY, &src, &err) == 0 &&
	         run_write(path, src.buf, &err) == 0;
	free(path);
	if (!ok) {
		run_verdict(cand, "error", err.buf);
		goto out;
	}
	char *arch_flag = egg_xasprintf("-arch=%s", c->arch);
	ok = run_compile(c, stem, arch_flag, &log) == 0;
	free(arch_flag);
	cJSON_ReplaceItemInObject(cand, "compile_log", cJSON_CreateString(log));
	cJSON *res = run_parse_ptxas(log);
	run_demangle(c, res);
	cJSON_ReplaceItemInObject(cand, "resources", res);
	if (!ok) {
		run_verdict(cand, "compile_error", "the candidate does not compile");
		goto out;
	}
	free(log);
	log = NULL;
	if (run_link(c, stem, &log) < 0) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "the candidate does not link: %s", log);
		run_verdict(cand, "compile_error", m.buf);
		strbuf_release(&m);
		goto out;
	}
	if (c->opt->compile_only) {
		run_verdict(cand, "compiled", NULL);
		goto out;
	}
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "--seed");
	strvec_push_owned(&args, egg_xasprintf("%llu", c->seed));
	strvec_push(&args, "--trials");
	strvec_push_owned(&args, egg_xasprintf("%d", c->opt->trials > 0 ? c->opt->trials : 3));
	if (c->opt->no_timing)
		strvec_push(&args, "--no-timing");
	if (self)
		strvec_push(&args, "--self-check");
	char *exe = egg_xasprintf("%s/%s.exe", c->dir, stem);
	struct proc_status st;
	char *output = NULL;
	int fd = proc_gpu_lock(c->gpu_key, &err);
	cJSON *j = NULL;
	if (fd >= 0)
		j = run_program(c, exe, &args, stem, c->opt->timeout_s > 0 ? c->opt->timeout_s : 120,
		                &st, &output, &err);
	proc_gpu_unlock(fd);
	if (err.len) {
		run_verdict(cand, "error", err.buf);
	} else {
		run_judge(c, cand, j, &st, output, self);
		cJSON_ReplaceItemInObject(cand, "wall_s", cJSON_CreateNumber(st.wall_s));
		if (j)
			cJSON_ReplaceItemInObject(cand, "run", j);
		const cJSON *v = cJSON_GetObjectItem(cand, "verdict");
		if (c->opt->sanitize && cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0)
			run_sanitize(c, stem, cand);
	}
	free(output);
	free(exe);
	strvec_clear(&args);
out:
	free(log);
	strbuf_release(&err);
	strbuf_release(&src);
}

/* ---- the whole evaluation ---- */

static char *
run_nonce(void)
{
	unsigned char r[8] = { 0 };
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(r, 1, sizeof r, f) != sizeof r) {
		unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
		memcpy(r, &x, sizeof r);
	}
	if (f)
		fclose(f);
	return egg_xasprintf("%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5],
	                     r[6], r[7]);
}

static int
run_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Generates and compiles ref.cu and main.cu.  0, or -1 with the status set. */
static int
run_prepare_reference(struct run_ctx *c)
{
	struct strbuf err = STRBUF_INIT, ref = STRBUF_INIT, mainsrc = STRBUF_INIT;
	char *nonce = run_nonce();
	char *entry = egg_xasprintf("egg_entry_ref_%s", nonce);
	char *refp = egg_xasprintf("%s/ref.cu", c->dir), *mainp = egg_xasprintf("%s/main.cu", c->dir);
	char *arch_flag = egg_xasprintf("-arch=%s", c->arch);
	char *log = NULL;
	int rc = -1;
	if (gen_unit(c->b, c->b->target, entry, &ref, &err) < 0 ||
	    gen_main(c->b, entry, &mainsrc, &err) < 0 || run_write(refp, ref.buf, &err) < 0 ||
	    run_write(mainp, mainsrc.buf, &err) < 0) {
		run_set_status(c, "error", err.buf);
		goto out;
	}
	cJSON *r = cJSON_CreateObject();
	cJSON_ReplaceItemInObject(c->result, "reference", r);
	if (run_compile(c, "ref", arch_flag, &log) < 0) {
		cJSON_AddStringToObject(r, "compile_log", log);
		run_set_status(c, "error", "the reference does not compile in the harness "
		               "(see reference.compile_log)");
		goto out;
	}
	cJSON_AddStringToObject(r, "compile_log", log);
	cJSON *res = run_parse_ptxas(log);
	run_demangle(c, res);
	cJSON_AddItemToObject(r, "resources", res);
	free(log);
	log = NULL;
	if (run_compile(c, "main", arch_flag, &log) < 0) {
		cJSON_AddStringToObject(r, "main_compile_log", log);
		run_set_status(c, "error", "the bundle's clause expressions do not compile in the "
		               "harness (see reference.main_compile_log)");
		goto out;
	}
	rc = 0;
out:
	free(log);
	free(arch_flag);
	free(refp);
	free(mainp);
	free(entry);
	free(nonce);
	strbuf_release(&err);
	strbuf_release(&ref);
	strbuf_release(&mainsrc);
	return rc;
}

void *
run_evaluate(const struct egg_bundle *b, const struct run_candidate *cands, size_t n,
             const struct run_options *opt, enum run_status *status)
{
	struct run_ctx c;
	memset(&c, 0, sizeof c);
	c.b = b;
	c.opt = opt;
	c.result = run_new_result(b ? b->name : NULL);
	struct strbuf err = STRBUF_INIT;
	int fresh_dir = 0;
	if (gen_check_bundle(b, &err) < 0) {
		run_set_status(&c, "error", err.buf);
		goto done;
	}
	c.nvcc = run_find_nvcc(opt);
	if (!c.nvcc) {
		run_set_status(&c, "error", "cannot find nvcc: set EGG_NVCC or put it on PATH");
		goto done;
	}
	cJSON_ReplaceItemInObject(c.result, "nvcc", cJSON_CreateString(c.nvcc));
	run_filter_flags(opt->flags, opt->n_flags, &c.flags);
	cJSON *fl = cJSON_GetObjectItem(c.result, "flags");
	for (size_t i = 0; i < c.flags.n; i++)
		cJSON_AddItemToArray(fl, cJSON_CreateString(c.flags.v[i]));
	if (b->file && *b->file) {
		/* the bundle's own "header.h" includes resolve as they did for the user */
		char *d = fs_dirname(b->file);
		strvec_push_owned(&c.flags, egg_xasprintf("-I%s", d));
		free(d);
	}
	c.seed = opt->seed;
	if (!c.seed) {
		char *nz = run_nonce();
		c.seed = strtoull(nz, NULL, 16) >> 1;
		free(nz);
	}
	cJSON_ReplaceItemInObject(c.result, "seed", cJSON_CreateNumber((double)(c.seed & ((1ull << 52) - 1))));
	c.seed &= (1ull << 52) - 1; /* exact in a JSON number */
	c.cache = run_cache_dir();
	if (opt->workdir) {
		c.dir = egg_xstrdup(opt->workdir);
		if (fs_mkdir_p(c.dir, 0755) < 0) {
			strbuf_addf(&err, "cannot create %s: %s", c.dir, strerror(errno));
			run_set_status(&c, "error", err.buf);
			goto done;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		c.dir = egg_xasprintf("%s/egg-eval.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(c.dir)) {
			strbuf_addf(&err, "cannot create a directory for the evaluation: %s", strerror(errno));
			run_set_status(&c, "error", err.buf);
			goto done;
		}
		fresh_dir = 1;
	}
	if (opt->compile_only) {
		if (!opt->arch) {
			run_set_status(&c, "error", "compiling without running needs an architecture (--arch)");
			goto done;
		}
		c.arch = egg_xstrdup(opt->arch);
		cJSON_ReplaceItemInObject(c.result, "arch", cJSON_CreateString(c.arch));
	} else if (run_probe(&c) < 0) {
		goto done;
	}
	if (run_prepare_reference(&c) < 0)
		goto done;
	cJSON *list = cJSON_GetObjectItem(c.result, "candidates");
	struct run_candidate self = { "reference (self-check)", b->target };
	double best = 0;
	for (size_t k = 0; k < (n ? n : 1); k++) {
		const struct run_candidate *rc = n ? &cands[k] : &self;
		cJSON *cand = run_new_candidate(rc->name);
		cJSON_AddItemToArray(list, cand);
		run_one(&c, k, rc, n == 0, cand);
		const cJSON *v = cJSON_GetObjectItem(cand, "verdict");
		double sp = cJSON_GetNumberValue(cJSON_GetObjectItem(cand, "speedup"));
		if (n && cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0 && sp > best) {
			best = sp;
			cJSON_ReplaceItemInObject(c.result, "best", cJSON_CreateNumber((double)k));
		}
		const cJSON *st = cJSON_GetObjectItem(c.result, "status");
		if (strcmp(st->valuestring, "ok") != 0)
			break;
	}
done:;
	const cJSON *st = cJSON_GetObjectItem(c.result, "status");
	*status = strcmp(st->valuestring, "ok") == 0 ? RUN_OK
	          : strcmp(st->valuestring, "no_gpu") == 0 ? RUN_NO_GPU : RUN_ERROR;
	if (fresh_dir && !opt->keep)
		nftw(c.dir, run_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	else if (fresh_dir)
		egg_warn("the evaluation's files are kept in %s", c.dir);
	cJSON_Delete(c.ceilings);
	strvec_clear(&c.flags);
	free(c.nvcc);
	free(c.dir);
	free(c.arch);
	free(c.cache);
	strbuf_release(&err);
	return c.result;
}
