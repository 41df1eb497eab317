/*
 * analyzer.h -- from a .cu file to bundles (common/bundle.h), with libclang.
 *
 * Only `egg` links this module (and later egg-cc loads it lazily): egg-cc's fast
 * path must never pay for libclang.
 *
 * The file is parsed as CUDA for the host side (clang 14's CUDA wrapper headers
 * do not parse CUDA 13's, so the real headers are read without them plus a
 * small shim of the builtins; see parse.c).  Each `#pragma egg optimize` gives
 * one bundle unless its clauses have problems: then it gives diagnostics in the
 * compiler's format and no bundle, and the other pragmas of the file go on.
 */
#ifndef EGG_ANALYZER_H
#define EGG_ANALYZER_H

#include <stddef.h>

#include "common/bundle.h"
#include "common/strbuf.h"
#include "common/strvec.h"

struct analyzer_result {
	struct egg_bundle **bundles; /* owned, one per usable pragma, in file order */
	size_t n_bundles;
	size_t n_pragmas;            /* pragmas found, usable or not */
	struct strbuf diags;         /* "file:line:col: warning: egg: ..." blocks */
	/* The interface of the file's host object, as libclang mangles it
	 * (symbols.c): the strong external definitions it must keep (host functions
	 * and variables of the user's files, C or C++ linkage), and every name the
	 * user's files declare (kernels, members, CUDA variables too). */
	struct strvec exports, known;
};

/* Analyzes path with the build's own flags (a NULL-terminated list of -I DIR,
 * -isystem DIR, -D X, -U X, -include F, -std=S, attached or separate; NULL for
 * none).  Returns 0 and fills *res (release with analyzer_result_free) when the
 * file could be read and parsed, even if some pragmas had problems; returns -1
 * and appends a sentence to err when it could not. */
int analyzer_analyze_file(const char *path, const char *const *clang_args,
			  struct analyzer_result *res, struct strbuf *err);

void analyzer_result_free(struct analyzer_result *res);

/* The allowlist screen of a candidate's host code (screen.c says what it
 * allows): text (len bytes) is the unit the harness compiles, the candidate's
 * own text under `#line 1 "egg-code"`; clang_args as for analyzer_analyze_file.
 * Returns 0 when the candidate may run; -1 with one sentence in why (the
 * candidate's line and column, the name and why) when it is refused; 1 with a
 * sentence when its host code uses a name the parse cannot resolve (refused
 * unless nvcc refuses it first: it may not compile at all); -2 with a sentence
 * when libclang could not parse the unit. */
int analyzer_screen_unit(const char *text, size_t len, const char *const *clang_args,
			 struct strbuf *why);

/* Turns the diagnostics' severity from warning into error (strict mode, where
 * an unusable pragma fails the build: the compiler's word for it is error). */
void analyzer_diags_as_errors(struct strbuf *diags);

#endif
