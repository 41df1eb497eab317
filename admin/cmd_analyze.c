/*
 * cmd_analyze.c -- `egg analyze [FLAGS] FILE.cu...`: the bundles of each file as
 * one JSON array on stdout, diagnostics on stderr.
 *
 * FLAGS are the build's own nvcc flags, read with nvcc's grammar (driver/args.h):
 * -I, -isystem, -D, -U, -include, -std in every spelling, -optf files and
 * NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS; every other nvcc flag is accepted and
 * ignored, so that an nvcc command line can be pasted as it is (a line nvcc
 * itself would refuse is a usage error).  Exit status: 0
 * when every file was parsed (diagnostics or not), 1 when one could not be, or
 * when EGG_STRICT=1 and a pragma had a problem; 2 for a usage error.
 */
#include "config.h"
#include "analyzer/analyzer.h"
#include "common/bundle.h"
#include "common/strvec.h"
#include "common/util.h"
#include "driver/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_analyze(int argc, char **argv);

int
cmd_analyze(int argc, char **argv)
{
	/* The command line is read exactly as nvcc reads it (driver/args.h): -optf
	 * files, NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS, every spelling of -I, -isystem,
	 * -D, -U, -include and -std; every other nvcc flag is accepted and ignored, so
	 * a compile command can be pasted as it is. */
	struct strvec flags = STRVEC_INIT, files = STRVEC_INIT;
	struct args *a = args_parse(argv, (size_t)argc, getenv("NVCC_PREPEND_FLAGS"),
	                            getenv("NVCC_APPEND_FLAGS"), NULL);
	if (args_problem(a)) { /* a line nvcc would refuse is a usage error here too */
		egg_error("%s", args_problem(a));
		args_free(a);
		return 2;
	}
	args_preprocessor_flags(a, &flags);
	for (size_t i = 0; i < args_input_count(a); i++)
		strvec_push(&files, args_input_at(a, i)->path);
	args_free(a);
	if (files.n == 0) {
		egg_error("usage: egg analyze [-I DIR] [-D NAME[=VALUE]] [-std=...] FILE.cu...");
		strvec_clear(&flags);
		return 2;
	}
	struct strbuf out = STRBUF_INIT;
	int status = 0;
	size_t written = 0;
	strbuf_addstr(&out, "[");
	for (size_t f = 0; f < files.n; f++) {
		struct analyzer_result res;
		struct strbuf err = STRBUF_INIT;
		if (analyzer_analyze_file(files.v[f], (const char *const *)strvec_argv(&flags), &res, &err) != 0) {
			egg_error("%s", err.buf);
			strbuf_release(&err);
			status = 1;
			continue;
		}
		if (res.n_bundles < res.n_pragmas) {
			const char *strict = getenv("EGG_STRICT");
			if (strict && strcmp(strict, "1") == 0) {
				status = 1;
				analyzer_diags_as_errors(&res.diags);
			}
		}
		fputs(res.diags.buf, stderr);
		for (size_t i = 0; i < res.n_bundles; i++) {
			strbuf_addstr(&out, written++ ? ",\n" : "\n");
			bundle_to_json(res.bundles[i], 1, &out);
		}
		analyzer_result_free(&res);
		strbuf_release(&err);
	}
	strbuf_addstr(&out, written ? "\n]\n" : "]\n");
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strvec_clear(&flags);
	strvec_clear(&files);
	return status;
}
