/*
 * cmd_eval.c -- `egg eval JOB.json [--candidate FILE]...`: check and time
 * candidates against a bundle's reference on this machine's GPU, print the
 * result as JSON (harness/run.h describes it).
 *
 * A job is either a bundle as `egg analyze` prints it (schema "egg-bundle";
 * alone, the reference is checked against itself and timed) or an object
 *   { "schema": "egg-job", "version": 1, "bundle": {...},
 *     "candidates": [ { "name": "...", "source": "..." }, ... ],
 *     "nvcc_flags": [ "-O3", "--use_fast_math", ... ],
 *     "timeout_s": 120, "seed": 0, "trials": 3, "min_speedup": 1.03,
 *     "no_timing": false, "compile_only": false, "arch": null, "sanitize": false,
 *     "profile": false,
 *     "flops": "2.0 * rows * cols" | [ EXPR per workload ] }
 * where every key but "bundle" may be left out ("flops": the FLOPs of one call,
 * C expressions over the scalar parameters, for FLOP rates in the result).  JOB
 * may be "-" (stdin), so that `ssh gpu1 egg eval -` can serve as a remote
 * evaluator: with --remote CMD, or the eval_command setting (and no --local),
 * egg eval writes the job to CMD's stdin and prints the result CMD prints, so a
 * build machine without a GPU can use a GPU machine.
 *
 * Settings come as for every egg program (egg.conf files, EGG_* variables,
 * --egg-KEY=VALUE): gpu, timeout, eval_command, nvcc and debug (keep the
 * evaluation's files).  A job's own keys override them, and egg eval's options
 * override both.
 *
 * Exit status: 0 the evaluation ran (each candidate's verdict is in the result),
 * 1 it could not (the result's message says why), 2 usage, 3 no GPU here (the
 * result's status is "no_gpu").
 */
#include "config.h"
#include "common/bundle.h"
#include "common/egg_config.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/util.h"
#include "plan/progress.h"
#include "harness/gen.h"
#include "harness/run.h"
#include "harness/screen.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_eval(int argc, char **argv);

static const char eval_usage[] =
	"usage: egg eval JOB.json|- [--candidate FILE]... [--timeout SECONDS] [--seed N]\n"
	"                [--trials N] [--min-speedup X] [--no-timing] [--nvcc PATH]\n"
	"                [--flag NVCC_FLAG]... [--workdir DIR] [--keep]\n"
	"                [--compile-only --arch sm_XY] [--generate DIR]\n"
	"                [--remote COMMAND | --local] [--sanitize] [--profile] [--gpu LIST]\n"
	"                [--flops EXPR]... [--progress] [--egg-KEY=VALUE]...\n"
	"       egg eval JOB.json|- --screen [--candidate FILE]... [--flag NVCC_FLAG]...\n";

struct eval_job {
	struct egg_bundle *bundle;
	struct run_candidate *cands;
	size_t n_cands;
	struct strvec owned;  /* strings the candidates point at */
	struct strvec flags;
	struct strvec flops;  /* "flops" expressions */
	struct run_options opt;
};

/* A FLOP count, as an expression string or a number. */
static void
eval_add_flops(struct eval_job *job, const cJSON *v)
{
	if (cJSON_IsString(v))
		strvec_push(&job->flops, v->valuestring);
	else if (cJSON_IsNumber(v))
		strvec_push_owned(&job->flops, egg_xasprintf("%.17g", v->valuedouble));
}

static int
eval_read_text(const char *path, char **text, struct strbuf *err)
{
	size_t len;
	if (strcmp(path, "-") == 0) {
		struct strbuf sb = STRBUF_INIT;
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			strbuf_add(&sb, buf, n);
		*text = strbuf_detach(&sb);
		return 0;
	}
	if (fs_read_file(path, (size_t)1 << 28, text, &len) < 0) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
eval_add_candidate(struct eval_job *job, const char *name, char *source)
{
	job->cands = egg_xrealloc(job->cands, (job->n_cands + 1) * sizeof *job->cands);
	strvec_push(&job->owned, name);
	const char *n = job->owned.v[job->owned.n - 1];
	strvec_push_owned(&job->owned, source);
	job->cands[job->n_cands].name = n;
	job->cands[job->n_cands].source = job->owned.v[job->owned.n - 1];
	job->n_cands++;
}

/* Reads the job's JSON: a bundle, or an egg-job around one. */
static int
eval_parse_job(const char *text, struct eval_job *job, struct strbuf *err)
{
	cJSON *o = cJSON_Parse(text);
	if (!o) {
		strbuf_addstr(err, "the job is not valid JSON");
		return -1;
	}
	int rc = -1;
	const cJSON *schema = cJSON_GetObjectItem(o, "schema");
	if (cJSON_IsString(schema) && strcmp(schema->valuestring, "egg-job") == 0) {
		job->bundle = bundle_from_cjson(cJSON_GetObjectItem(o, "bundle"), err);
		if (!job->bundle)
			goto out;
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "candidates")) {
			const cJSON *name = cJSON_GetObjectItem(c, "name");
			const cJSON *src = cJSON_GetObjectItem(c, "source");
			if (!cJSON_IsString(src)) {
				strbuf_addstr(err, "job: every candidate needs a \"source\" string");
				goto out;
			}
			eval_add_candidate(job, cJSON_IsString(name) ? name->valuestring : "candidate",
			                   egg_xstrdup(src->valuestring));
		}
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "nvcc_flags"))
			if (cJSON_IsString(c))
				strvec_push(&job->flags, c->valuestring);
		const cJSON *v;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(o, "timeout_s")))
			job->opt.timeout_s = v->valuedouble;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(o, "seed")))
			job->opt.seed = (unsigned long long)v->valuedouble;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(o, "trials")))
			job->opt.trials = v->valueint;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(o, "min_speedup")))
			job->opt.min_speedup = v->valuedouble;
		if (cJSON_IsTrue(cJSON_GetObjectItem(o, "no_timing")))
			job->opt.no_timing = 1;
		if (cJSON_IsTrue(cJSON_GetObjectItem(o, "compile_only")))
			job->opt.compile_only = 1;
		if (cJSON_IsTrue(cJSON_GetObjectItem(o, "sanitize")))
			job->opt.sanitize = 1;
		if (cJSON_IsTrue(cJSON_GetObjectItem(o, "profile")))
			job->opt.profile = 1;
		v = cJSON_GetObjectItem(o, "flops");
		if (cJSON_IsString(v) || cJSON_IsNumber(v))
			eval_add_flops(job, v);
		if (cJSON_IsArray(v))
			cJSON_ArrayForEach(c, v)
				eval_add_flops(job, c);
		if (cJSON_IsString(v = cJSON_GetObjectItem(o, "arch"))) {
			strvec_push(&job->owned, v->valuestring);
			job->opt.arch = job->owned.v[job->owned.n - 1];
		}
	} else {
		job->bundle = bundle_from_cjson(o, err);
		if (!job->bundle)
			goto out;
	}
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

/* The job as an egg-job object, for a remote evaluator; caller frees. */
static char *
eval_job_to_json(const struct eval_job *job)
{
	return run_job_to_json(job->bundle, job->cands, job->n_cands, job->flags.v, job->flags.n, &job->opt);
}

/* --generate DIR: the program's sources, for reading or compiling by hand. */
static int
eval_generate(struct eval_job *job, const char *dir)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	int rc = 1;
	if (fs_mkdir_p(dir, 0755) < 0) {
		egg_error("cannot create %s: %s", dir, strerror(errno));
		return 1;
	}
	const char *entry = "egg_entry_ref_generated";
	size_t n = job->n_cands ? job->n_cands : 1;
	for (size_t k = 0; k <= n; k++) {
		strbuf_reset(&text);
		char *path;
		int ok;
		if (k == 0) {
			path = fs_join(dir, "ref.cu");
			ok = gen_unit(job->bundle, job->bundle->target, entry, &text, &err) == 0;
		} else {
			path = egg_xasprintf("%s/cand%zu.cu", dir, k - 1);
			const char *src = job->n_cands ? job->cands[k - 1].source : job->bundle->target;
			ok = gen_unit(job->bundle, src, GEN_CAND_ENTRY, &text, &err) == 0;
		}
		if (ok && fs_write_atomic(path, text.buf, text.len) < 0)
			strbuf_addf(&err, "cannot write %s: %s", path, strerror(errno)), ok = 0;
		free(path);
		if (!ok)
			goto out;
	}
	strbuf_reset(&text);
	char *mainp = fs_join(dir, "main.cu");
	int ok = gen_main(job->bundle, entry, job->opt.flops, job->opt.n_flops, &text, &err) == 0;
	if (ok && fs_write_atomic(mainp, text.buf, text.len) < 0)
		strbuf_addf(&err, "cannot write %s: %s", mainp, strerror(errno)), ok = 0;
	free(mainp);
	if (ok) {
		char *rtp = fs_join(dir, "runtime.cu");
		strbuf_reset(&text);
		gen_runtime(&text);
		if (fs_write_atomic(rtp, text.buf, text.len) < 0)
			strbuf_addf(&err, "cannot write %s: %s", rtp, strerror(errno)), ok = 0;
		free(rtp);
	}
	rc = ok ? 0 : 1;
out:
	if (rc)
		egg_error("%s", err.buf);
	strbuf_release(&err);
	strbuf_release(&text);
	return rc;
}

/* The settings egg eval reads (before the job's keys and its own options). */
static int
eval_apply_config(struct eval_job *job, const struct strvec *egg_opts, struct egg_config *cfg,
                  const char **remote, struct strbuf *err)
{
	if (egg_config_load(cfg, egg_opts, err) < 0)
		return -1;
	job->opt.gpu = egg_config_get(cfg, "gpu");
	job->opt.timeout_s = (double)egg_config_seconds(cfg, "timeout");
	job->opt.nvcc = egg_config_get(cfg, "nvcc");
	job->opt.ncu = egg_config_get(cfg, "ncu");
	job->opt.keep = egg_config_bool(cfg, "debug");
	/* the evaluating machine's own setting: a job cannot turn its sandbox off */
	job->opt.no_sandbox = !egg_config_bool(cfg, "sandbox");
	*remote = egg_config_get(cfg, "eval_command");
	return 0;
}

/* --screen: both screens (harness/screen.h) on each candidate, nothing
 * compiled or run; one line each, "NAME: screened" or "NAME: refused: WHY".
 * Exit status 0 when every candidate passes, 1 otherwise. */
static int
eval_screen(const struct eval_job *job)
{
	struct strvec clang_args = STRVEC_INIT;
	screen_clang_args(job->flags.v, job->flags.n, &clang_args);
	int refused = 0;
	for (size_t i = 0; i < job->n_cands; i++) {
		struct strbuf why = STRBUF_INIT;
		if (screen_candidate_unit(job->bundle, job->cands[i].source,
		                          (const char *const *)strvec_argv(&clang_args), &why) != 0) {
			printf("%s: refused: %s\n", job->cands[i].name, why.buf);
			refused = 1;
		} else {
			printf("%s: screened\n", job->cands[i].name);
		}
		strbuf_release(&why);
	}
	strvec_clear(&clang_args);
	return refused;
}

int
cmd_eval(int argc, char **argv)
{
	struct eval_job job;
	memset(&job, 0, sizeof job);
	const char *job_path = NULL, *generate = NULL, *remote = NULL;
	int local = 0, no_timing = 0, keep = 0, sanitize = 0, profile = 0, compile_only = 0;
	int screen_only = 0, progress = 0;
	struct run_options cli; /* what the options say; 0/NULL: not given */
	memset(&cli, 0, sizeof cli);
	struct strvec cand_files = STRVEC_INIT, egg_opts = STRVEC_INIT, cli_flops = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct egg_config *cfg = egg_config_new();
	int rc = 2;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define EVAL_ARG(name) (strcmp(a, name) == 0 && v && ++i)
		if (EVAL_ARG("--candidate")) strvec_push(&cand_files, v);
		else if (EVAL_ARG("--timeout")) cli.timeout_s = atof(v), cli.timeout_s = cli.timeout_s > 0 ? cli.timeout_s : -1;
		else if (EVAL_ARG("--seed")) cli.seed = strtoull(v, NULL, 0);
		else if (EVAL_ARG("--trials")) cli.trials = atoi(v);
		else if (EVAL_ARG("--min-speedup")) cli.min_speedup = atof(v);
		else if (EVAL_ARG("--nvcc")) cli.nvcc = v;
		else if (EVAL_ARG("--gpu")) cli.gpu = v;
		else if (EVAL_ARG("--flops")) strvec_push(&cli_flops, v);
		else if (EVAL_ARG("--flag")) strvec_push(&job.flags, v);
		else if (EVAL_ARG("--workdir")) cli.workdir = v;
		else if (EVAL_ARG("--arch")) cli.arch = v;
		else if (EVAL_ARG("--generate")) generate = v;
		else if (EVAL_ARG("--remote")) remote = v, local = 0;
		else if (strcmp(a, "--local") == 0) local = 1, remote = NULL;
		else if (strcmp(a, "--no-timing") == 0) no_timing = 1;
		else if (strcmp(a, "--keep") == 0) keep = 1;
		else if (strcmp(a, "--progress") == 0) progress = 1;
		else if (strcmp(a, "--sanitize") == 0) sanitize = 1;
		else if (strcmp(a, "--profile") == 0) profile = 1;
		else if (strcmp(a, "--compile-only") == 0) compile_only = 1;
		else if (strcmp(a, "--screen") == 0) screen_only = 1;
		else if (egg_str_starts(a, "--egg-")) strvec_push(&egg_opts, a);
		else if (strcmp(a, "--help") == 0) { fputs(eval_usage, stdout); rc = 0; goto out; }
		else if (!job_path && (a[0] != '-' || strcmp(a, "-") == 0)) job_path = a;
		else {
			egg_error("eval: unknown or incomplete option '%s'", a);
			fputs(eval_usage, stderr);
			goto out;
		}
#undef EVAL_ARG
	}
	if (!job_path) {
		fputs(eval_usage, stderr);
		goto out;
	}
	rc = 1;
	const char *cfg_remote = NULL;
	if (eval_apply_config(&job, &egg_opts, cfg, &cfg_remote, &err) < 0) {
		egg_error("eval: %s", err.buf);
		goto out;
	}
	if (!remote && !local)
		remote = cfg_remote;
	char *text = NULL;
	if (eval_read_text(job_path, &text, &err) < 0 || eval_parse_job(text, &job, &err) < 0) {
		free(text);
		egg_error("eval: %s: %s", job_path, err.buf);
		goto out;
	}
	free(text);
	/* The options have the last word. */
	if (cli.timeout_s)
		job.opt.timeout_s = cli.timeout_s > 0 ? cli.timeout_s : 0;
	if (cli.seed)
		job.opt.seed = cli.seed;
	if (cli.trials)
		job.opt.trials = cli.trials;
	if (cli.min_speedup > 0)
		job.opt.min_speedup = cli.min_speedup;
	if (cli.nvcc)
		job.opt.nvcc = cli.nvcc;
	if (cli.gpu)
		job.opt.gpu = cli.gpu;
	if (cli.workdir)
		job.opt.workdir = cli.workdir;
	if (cli.arch)
		job.opt.arch = cli.arch;
	job.opt.no_timing |= no_timing;
	job.opt.keep |= keep;
	job.opt.sanitize |= sanitize;
	job.opt.profile |= profile;
	job.opt.compile_only |= compile_only;
	if (cli_flops.n) {
		strvec_clear(&job.flops);
		strvec_pushv(&job.flops, cli_flops.v, cli_flops.n);
	}
	job.opt.flops = (const char *const *)job.flops.v;
	job.opt.n_flops = job.flops.n;
	for (size_t i = 0; i < cand_files.n; i++) {
		char *src = NULL;
		if (eval_read_text(cand_files.v[i], &src, &err) < 0) {
			egg_error("eval: %s", err.buf);
			goto out;
		}
		eval_add_candidate(&job, cand_files.v[i], src);
	}
	if (generate) {
		rc = eval_generate(&job, generate);
		goto out;
	}
	if (screen_only) {
		rc = eval_screen(&job);
		goto out;
	}
	job.opt.flags = job.flags.v;
	job.opt.n_flags = job.flags.n;
	enum run_status st;
	cJSON *result;
	if (remote && *remote) {
		char *json = eval_job_to_json(&job);
		double per = job.opt.timeout_s > 0 ? job.opt.timeout_s : 120;
		result = run_remote(remote, json, job.bundle->name, 600 + per * (double)(job.n_cands + 1), &st);
		free(json);
	} else {
		struct progress p;
		progress_begin(&p, job.bundle->name);
		if (progress && job.n_cands > 0)
			job.opt.progress = (struct run_progress){ progress_event, &p };
		result = run_evaluate(job.bundle, job.cands, job.n_cands, &job.opt, &st);
		progress_end(&p);
	}
	char *s = cJSON_Print(result);
	printf("%s\n", s);
	cJSON_free(s);
	const cJSON *msg = cJSON_GetObjectItem(result, "message");
	if (st != RUN_OK && cJSON_IsString(msg))
		egg_warn("eval: %s", msg->valuestring);
	cJSON_Delete(result);
	rc = (int)st;
out:
	bundle_free(job.bundle);
	free(job.cands);
	strvec_clear(&job.owned);
	strvec_clear(&job.flags);
	strvec_clear(&job.flops);
	strvec_clear(&cand_files);
	strvec_clear(&cli_flops);
	strvec_clear(&egg_opts);
	egg_config_free(cfg);
	strbuf_release(&err);
	return rc;
}
