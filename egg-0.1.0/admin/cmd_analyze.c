/*
 * cmd_analyze.c -- `egg analyze [FLAGS] FILE.cu...`: the bundles of each file as
 * one JSON array on stdout, diagnostics on stderr.
 *
 * FLAGS are the build's own: -I, -isystem, -D, -U, -include (attached or
 * separate) and -std=; every other flag is accepted and ignored, so that an
 * nvcc command line can be pasted as it is.  Exit status: 0 when every file
 * was parsed (diagnostics or not), 1 when one could not be, or when
 * EGG_STRICT=1 and a pragma had a problem; 2 for a usage error.
 */
#include "config.h"
#include "analyzer/analyzer.h"
#include "common/bundle.h"
#include "common/strvec.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_analyze(int argc, char **argv);

/* Flags taking a value, for the analyzer; value attached or in the next word. */
static const char *const value_flags[] = { "-isystem", "-include", "-I", "-D", "-U" };
/* nvcc flags whose value is a separate word that must not be read as a file. */
static const char *const skip_value_flags[] = {
	"-o", "-x", "-arch", "-code", "-gencode", "-ccbin", "-Xcompiler", "-Xptxas",
	"-Xlinker", "-MF", "-MT", "-MQ", "-odir", "-l", "-L", "--output-file",
};

static int
take_flag(char **argv, int argc, int *i, struct strvec *flags)
{
	const char *a = argv[*i];
	for (size_t k = 0; k < sizeof value_flags / sizeof *value_flags; k++) {
		const char *f = value_flags[k];
		if (strcmp(a, f) == 0) {
			if (*i + 1 >= argc)
				return -1;
			strvec_push(flags, f);
			strvec_push(flags, argv[++*i]);
			return 1;
		}
		if (egg_str_starts(a, f) && (f[2] != 0 || a[2] != 0) &&
		    (strcmp(f, "-I") == 0 || strcmp(f, "-D") == 0 || strcmp(f, "-U") == 0)) {
			strvec_push(flags, a);
			return 1;
		}
	}
	if (egg_str_starts(a, "-std=")) {
		strvec_push(flags, a);
		return 1;
	}
	for (size_t k = 0; k < sizeof skip_value_flags / sizeof *skip_value_flags; k++)
		if (strcmp(a, skip_value_flags[k]) == 0) {
			++*i;
			return 1;
		}
	return a[0] == '-' ? 1 : 0;
}

int
cmd_analyze(int argc, char **argv)
{
	struct strvec flags = STRVEC_INIT, files = STRVEC_INIT;
	for (int i = 0; i < argc; i++) {
		int r = take_flag(argv, argc, &i, &flags);
		if (r < 0) {
			egg_error("'%s' needs a value", argv[i]);
			return 2;
		}
		if (r == 0)
			strvec_push(&files, argv[i]);
	}
	if (files.n == 0) {
		egg_error("usage: egg analyze [-I DIR] [-D NAME[=VALUE]] [-std=...] FILE.cu...");
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
		fputs(res.diags.buf, stderr);
		if (res.n_bundles < res.n_pragmas) {
			const char *strict = getenv("EGG_STRICT");
			if (strict && strcmp(strict, "1") == 0)
				status = 1;
		}
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
