/*
 * cmd_analyze.c -- `egg analyze [FLAGS] FILE.cu...`: the bundles of each file as
 * one JSON array on stdout, diagnostics on stderr.
 *
 * FLAGS are the build's own: -I, -isystem, -D, -U, -include (attached or
 * separate), -std= and nvcc's long spellings of them (--include-path,
 * --define-macro, ...), with NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS around
 * them as nvcc reads them; every other flag is accepted and ignored, so that
 * an nvcc command line can be pasted as it is.  (-optf files and nvcc's full
 * argv grammar belong to driver/args.h, which will feed the analyzer later.)  Exit status: 0 when every file
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
/* nvcc's long spellings of the same flags (--name VALUE or --name=VALUE). */
static const struct { const char *nvcc, *clang; } long_flags[] = {
	{ "--include-path", "-I" }, { "--system-include", "-isystem" }, { "--define-macro", "-D" },
	{ "--undefine-macro", "-U" }, { "--pre-include", "-include" }, { "--std", "-std=" },
};
/* nvcc flags whose value is a separate word that must not be read as a file. */
static const char *const skip_value_flags[] = {
	"-o", "-x", "-arch", "-code", "-gencode", "-ccbin", "-Xcompiler", "-Xptxas",
	"-Xlinker", "-MF", "-MT", "-MQ", "-odir", "-l", "-L", "--output-file",
};

static int
take_flag(char **argv, int argc, int *i, struct strvec *flags)
{
	const char *a = argv[*i];
	for (size_t k = 0; k < sizeof long_flags / sizeof *long_flags; k++) {
		size_t n = strlen(long_flags[k].nvcc);
		if (strncmp(a, long_flags[k].nvcc, n) != 0 || (a[n] != 0 && a[n] != '='))
			continue;
		if (a[n] == 0 && *i + 1 >= argc)
			return -1;
		const char *value = a[n] == '=' ? a + n + 1 : argv[++*i];
		const char *c = long_flags[k].clang;
		strvec_push_owned(flags, egg_xasprintf("%s%s", c, value));
		return 1;
	}
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

/* Appends the words of an NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS value. */
static void
push_env_words(struct strvec *words, const char *var)
{
	const char *v = getenv(var);
	while (v && *v) {
		while (*v == ' ' || *v == '\t')
			v++;
		size_t n = strcspn(v, " \t");
		if (n)
			strvec_push_owned(words, egg_xstrndup(v, n));
		v += n;
	}
}

int
cmd_analyze(int argc, char **argv)
{
	struct strvec flags = STRVEC_INIT, files = STRVEC_INIT, words = STRVEC_INIT;
	/* nvcc reads these around its command line; so does the analysis. */
	push_env_words(&words, "NVCC_PREPEND_FLAGS");
	strvec_pushv(&words, argv, (size_t)argc);
	push_env_words(&words, "NVCC_APPEND_FLAGS");
	int n_words = (int)words.n;
	char **w = strvec_argv(&words);
	for (int i = 0; i < n_words; i++) {
		int r = take_flag(w, n_words, &i, &flags);
		if (r < 0) {
			egg_error("'%s' needs a value", w[i]);
			strvec_clear(&words);
			return 2;
		}
		if (r == 0)
			strvec_push(&files, w[i]);
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
	strvec_clear(&words);
	return status;
}
