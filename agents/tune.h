/*
 * tune.h -- tunable parameters a candidate declares, and their sweep.
 *
 * A candidate may leave numbers it is unsure of to the harness.  It declares
 * each one on a comment line of its own, anywhere in its source:
 *
 *     // egg-tune: BLOCK = 128, 256, 512
 *     // egg-tune: VEC = 2, 4
 *
 * and uses the name as a macro (BLOCK, VEC) without defining it (or only under
 * #ifndef NAME).  Each variant is the candidate with one "#define NAME VALUE"
 * line per parameter in front, an "#undef NAME" after it (the winner goes into
 * the user's file: its macros must not reach the user's code), and its
 * declarations turned into "egg-tuned:"
 * comments (so a variant an agent builds on is not expanded again); the search
 * evaluates every variant in one
 * harness call, without asking the model again, and keeps the fastest correct
 * one.  Rules (documented in egg-pragma(7) and the prompts):
 *   - NAME is a C identifier; VALUEs are separated by commas, each a number, an
 *     identifier or a simple expression (no quotes, braces, semicolons,
 *     comments), at most TUNE_MAX_VALUES of them;
 *   - at most TUNE_MAX_PARAMS parameters; a second declaration of a name, a
 *     line without "=" or without values is ignored, with a note;
 *   - when the values multiply to more variants than the cap, an evenly spaced
 *     sample of the combinations is kept, always including the first values of
 *     every parameter (the candidate's own default).
 *
 * Ownership: everything returned is the caller's; tune_variants_free releases
 * an array of variants.
 */
#ifndef EGG_AGENTS_TUNE_H
#define EGG_AGENTS_TUNE_H

#include <stddef.h>

#include "common/strvec.h"

#define TUNE_MAX_PARAMS 6
#define TUNE_MAX_VALUES 16

struct tune_param {
	char *name;
	struct strvec values;
};

struct tune_space {
	struct tune_param params[TUNE_MAX_PARAMS];
	size_t n;
};

/* Reads the declarations in src into out (which need not be initialized);
 * a sentence per ignored line goes to notes.  Returns the number of parameters. */
size_t tune_parse(const char *src, struct tune_space *out, struct strvec *notes);
void tune_space_release(struct tune_space *s);

/* The number of combinations (saturating at (size_t)-1). */
size_t tune_count(const struct tune_space *s);

struct tune_variant {
	char *label;  /* "BLOCK=256 VEC=4"; "" for a candidate without parameters */
	char *source; /* the #define lines and the candidate */
};

/* The variants of src: one (src itself, label "") when it declares nothing,
 * else at most cap (>= 1) of its combinations.  Returns how many are in *out. */
size_t tune_expand(const char *src, size_t cap, struct tune_variant **out, struct strvec *notes);
void tune_variants_free(struct tune_variant *v, size_t n);

#endif
