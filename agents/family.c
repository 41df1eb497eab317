/*
 * family.c -- which expert principles fit a bundle (see agents_family in
 * search.h).
 *
 * The builtin lifter knows the families it can prove (a map, a row program, a
 * full reduction) and answers cheaply with describe_only (no templates, no
 * code).  What it cannot lift gets a guess from words in the code -- a guess
 * only chooses which principles and stage 1 directions the model reads, so a
 * wrong one costs some search quality, never correctness.
 */
#include "config.h"
#include "agents/search.h"
#include "builtin/builtin.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int
has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; p && (p = strstr(p, word)) != NULL; p += n) {
		int left = p == text || !isalnum((unsigned char)p[-1]);
		if (left)
			return 1;
	}
	return 0;
}

static const char *
lifted_family(const struct egg_bundle *b)
{
	struct builtin_options opt = { NULL, 1 };
	struct builtin_output o;
	struct strbuf err = STRBUF_INIT;
	const char *family = NULL;
	if (builtin_generate(b, &opt, &o, &err) == 0 && o.program) {
		int rows = 0, reduce = 0, map = 0;
		for (size_t i = 0; i < o.program->n_stages; i++) {
			enum ir_stage_kind k = o.program->stages[i].kind;
			rows |= k == IR_STAGE_ROWS;
			reduce |= k == IR_STAGE_REDUCE;
			map |= k == IR_STAGE_MAP;
		}
		family = rows ? "rows" : reduce ? "reduce" : map ? "elementwise" : NULL;
	}
	builtin_output_release(&o);
	strbuf_release(&err);
	return family;
}

const char *
agents_family(const struct egg_bundle *b)
{
	const char *f = lifted_family(b);
	if (f)
		return f;
	static const struct { const char *word, *family; } hints[] = {
		{ "gemm", "gemm" }, { "matmul", "gemm" }, { "sgemm", "gemm" }, { "conv", "stencil" },
		{ "stencil", "stencil" }, { "laplace", "stencil" }, { "blur", "stencil" },
		{ "transpose", "transpose" }, { "permute", "transpose" }, { "gather", "gather" },
		{ "scatter", "gather" }, { "embedding", "gather" }, { "index_select", "gather" },
		{ "softmax", "rows" }, { "norm", "rows" }, { "reduce", "reduce" }, { "sum", "reduce" },
	};
	char *text = egg_xasprintf("%s\n%s", b->closure ? b->closure : "", b->target ? b->target : "");
	for (char *p = text; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	const char *found = "generic";
	for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
		if (has_word(text, hints[i].word)) {
			found = hints[i].family;
			break;
		}
	free(text);
	return found;
}
