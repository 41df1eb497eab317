/*
 * clauses.h -- the clauses of `#pragma egg optimize` (SPEC.md, "The annotation").
 *
 * Pure text processing, no libclang: the analyzer hands over the clause text and
 * a bundle whose parameters (name, is_pointer) and kind are already known, and
 * gets back the roles, extents, ranges, workloads, tolerance, precision and
 * launch geometry filled in, plus one diagnostic per problem.  A malformed
 * clause never stops the others from being read, so that one message names
 * every problem of a pragma at once.
 */
#ifndef EGG_CLAUSES_H
#define EGG_CLAUSES_H

#include <stddef.h>

#include "common/bundle.h"

/* A diagnostic's offset when it concerns the pragma as a whole (a parameter
 * left without a role, a kernel without launch(...)). */
#define CLAUSE_AT_PRAGMA ((size_t)-1)

struct clause_diag {
	size_t offset;  /* byte offset into the clause text, or CLAUSE_AT_PRAGMA */
	char *message;  /* a sentence without "warning:" and without the location */
};

struct clause_diags {
	struct clause_diag *v; /* owned, like every message */
	size_t n;
};

/* Parses text into b (params must be filled; the roles, extents, ranges,
 * workloads, rtol/atol, precision and launch_* fields are set, replacing
 * nothing that a clause does not name).  known_names (NULL-terminated, may
 * be NULL) are the names an expression may use besides the scalar parameters
 * and the workload names: the file's macros, enumerators and constants.  Appends diagnostics to diags and
 * returns how many it appended: 0 means the pragma is usable. */
size_t clauses_parse(const char *text, struct egg_bundle *b, const char *const *known_names,
		     struct clause_diags *diags);

void clause_diags_free(struct clause_diags *d);

/* The candidate closest to word by edit distance, if close enough to be a
 * plausible typo (a "did you mean" hint); NULL otherwise.  Not owned. */
const char *clauses_suggest(const char *word, const char *const *candidates, size_t n);

#endif
