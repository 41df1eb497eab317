/*
 * screen_unit.c -- both screens of a candidate, in the order they are cheap
 * (screen.h: screen_candidate_unit).
 *
 * The lexer screen (screen.c) reads the candidate's text alone and refuses
 * spellings; the allowlist screen (analyzer/screen.c) parses the unit the
 * harness compiles, the bundle's includes and closure around the candidate,
 * and refuses what the candidate's host code resolves to.  Both run on every
 * candidate before it compiles and on every cached winner before it is linked.
 */
#include "config.h"
#include "harness/screen.h"
#include "harness/gen.h"
#include "analyzer/analyzer.h"
#include "common/util.h"

#include <string.h>

/* nvcc's spellings of the preprocessor flags, and clang's. */
static const struct {
	const char *nvcc, *clang;
	int list; /* nvcc takes a comma-separated list */
} pp_flags[] = {
	{ "-I", "-I", 1 },           { "--include-path", "-I", 1 },
	{ "-isystem", "-isystem", 1 }, { "--system-include", "-isystem", 1 },
	{ "-D", "-D", 0 },           { "--define-macro", "-D", 0 },
	{ "-U", "-U", 0 },           { "--undefine-macro", "-U", 0 },
	{ "-include", "-include", 1 }, { "--pre-include", "-include", 1 },
	{ "-std", "-std=", 0 },      { "--std", "-std=", 0 },
};

static void
push_flag(struct strvec *out, const char *clang, const char *value, int list)
{
	int separate = clang[strlen(clang) - 1] != '=' && clang[1] != 'I' && clang[1] != 'D' &&
	               clang[1] != 'U';
	do {
		const char *comma = list ? strchr(value, ',') : NULL;
		size_t n = comma ? (size_t)(comma - value) : strlen(value);
		if (n) {
			if (separate) {
				strvec_push(out, clang);
				strvec_push_owned(out, egg_xstrndup(value, n));
			} else {
				strvec_push_owned(out, egg_xasprintf("%s%.*s", clang, (int)n, value));
			}
		}
		value = comma ? comma + 1 : NULL;
	} while (value);
}

void
screen_clang_args(char *const *flags, size_t n, struct strvec *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *f = flags[i];
		for (size_t k = 0; k < sizeof pp_flags / sizeof *pp_flags; k++) {
			size_t len = strlen(pp_flags[k].nvcc);
			if (strncmp(f, pp_flags[k].nvcc, len) != 0)
				continue;
			const char *v = f + len;
			if (*v == '=')
				v++;
			else if (*v == '\0' && i + 1 < n)
				v = flags[++i];
			else if (pp_flags[k].nvcc[1] == '-' || len > 2)
				continue; /* --include-pathX, -includeX: another option */
			push_flag(out, pp_flags[k].clang, v, pp_flags[k].list);
			break;
		}
	}
}

int
screen_candidate_unit(const struct egg_bundle *b, const char *src, const char *const *clang_args,
                      struct strbuf *why)
{
	if (screen_candidate(src, b->includes, b->n_includes, why) < 0)
		return -1;
	struct strbuf unit = STRBUF_INIT, err = STRBUF_INIT;
	int rc = gen_unit(b, src, GEN_CAND_ENTRY, &unit, &err);
	if (rc < 0) {
		strbuf_addf(why, "the candidate could not be screened: %s", err.buf);
	} else {
		/* what nvcc's cuda_runtime.h declares on the host side besides (its
		 * crt/common_functions.h), which the analyzer's host parse leaves out */
		struct strbuf full = STRBUF_INIT;
		strbuf_addstr(&full, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		              "#include <time.h>\n#include <new>\n");
		strbuf_add(&full, unit.buf, unit.len);
		rc = analyzer_screen_unit(full.buf, full.len, clang_args, &err);
		strbuf_release(&full);
		if (rc == -2)
			strbuf_addf(why, "the candidate could not be screened: %s", err.buf);
		else if (rc != 0)
			strbuf_add(why, err.buf, err.len);
	}
	strbuf_release(&unit);
	strbuf_release(&err);
	return rc < 0 ? -1 : rc;
}
