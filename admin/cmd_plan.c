/*
 * cmd_plan.c -- `egg plan --nvcc=NVCC --tmpdir=DIR [--egg-KEY=VALUE...] -- NVCC-ARGS...`
 *
 * The pipeline's entry point for egg-cc (driver/compile_annotated.c): prints the
 * plan (plan/pipeline.h) on stdout and everything meant for the user on stderr.
 * When the pipeline cannot run it says why in one warning and prints an empty plan
 * (which is how egg says "compile the reference"); exit status 0 whenever a plan
 * was printed.  It speaks as egg-cc, on whose behalf it runs.
 * Not meant to be typed by users, but harmless: it only writes into --tmpdir.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"
#include "driver/args.h"
#include "plan/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_plan(int argc, char **argv);

int
cmd_plan(int argc, char **argv)
{
	const char *nvcc = NULL, *tmpdir = NULL;
	struct strvec egg_opts = STRVEC_INIT;
	int i = 0;
	egg_set_progname("egg-cc");
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (egg_str_starts(argv[i], "--nvcc="))
			nvcc = argv[i] + 7;
		else if (egg_str_starts(argv[i], "--tmpdir="))
			tmpdir = argv[i] + 9;
		else if (egg_str_starts(argv[i], "--egg-"))
			strvec_push(&egg_opts, argv[i]);
		else {
			egg_error("plan: unknown option '%s'", argv[i]);
			strvec_clear(&egg_opts);
			return 2;
		}
	}
	if (!nvcc || !tmpdir || i == argc) {
		egg_error("usage: egg plan --nvcc=NVCC --tmpdir=DIR [--egg-KEY=VALUE...] -- NVCC-ARGS...");
		strvec_clear(&egg_opts);
		return 2;
	}
	i++;
	struct strbuf err = STRBUF_INIT, plan = STRBUF_INIT;
	struct egg_config *cfg = egg_config_new();
	int status = 1;
	struct args *a = args_parse(argv + i, (size_t)(argc - i), getenv("NVCC_PREPEND_FLAGS"),
	                            getenv("NVCC_APPEND_FLAGS"), NULL);
	if (egg_config_load_for(cfg, &egg_opts, args_first_source(a), &err) < 0) {
		egg_error("%s", err.buf);
	} else {
		/* egg-cc opened the same log_file first and warned if it could not */
		struct strbuf ignored = STRBUF_INIT;
		egg_log_open(egg_config_get(cfg, "log_file"), "egg plan", &ignored);
		strbuf_release(&ignored);
		struct pipeline_request req = { nvcc, tmpdir, cfg, a };
		if (pipeline_plan(&req, &plan, &err) < 0) {
			egg_warn("egg: %s; compiling the reference", err.buf);
			egg_log("the plan failed: %s; egg-cc compiles the reference", err.buf);
			strbuf_reset(&plan);
			strbuf_addstr(&plan, "egg-plan 1\nend\n");
		}
		fputs(plan.buf, stdout);
		status = fflush(stdout) == 0 ? 0 : 1;
	}
	args_free(a);
	egg_log_close();
	egg_config_free(cfg);
	strvec_clear(&egg_opts);
	strbuf_release(&err);
	strbuf_release(&plan);
	return status;
}
