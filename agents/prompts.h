/*
 * prompts.h -- the agents' prompts and expert principles, read from data files.
 *
 * The files live in a directory (installed to $(pkgdatadir)/prompts; the
 * prompts_dir key, or EGG_PROMPTS_DIR, points elsewhere):
 *
 *   VERSION                          one line, bumped when the prompts change
 *   roles/ROLE.md                    system, structure, mapping, tiling, memory,
 *                                    profile, debug: the templates of each call
 *   principles/FAMILY.md             elementwise, rows, reduce, transpose, gather,
 *                                    stencil, gemm, generic: the expert principles
 *                                    of a kernel family; the items of its
 *                                    "## Directions" list seed stage 1's structures
 *
 * Templates name their inputs as {{placeholder}} (see prompts_render).  The
 * identity of a prompt set ("prompts-VERSION+HASH", HASH the first 12 hex
 * digits of SHA-256 over every file above, by name and content) is the
 * generator's recipe in the cache key, so editing any prompt, or pointing
 * egg at other prompts, gives other keys.
 *
 * Ownership: a struct prompts owns its texts; pointers it returns live as long
 * as it does.  prompts_render's result is the caller's.
 */
#ifndef EGG_AGENTS_PROMPTS_H
#define EGG_AGENTS_PROMPTS_H

#include <stddef.h>

#include "common/egg_config.h"
#include "common/strbuf.h"
#include "common/strvec.h"

struct prompts;

/* The directory the configuration names (prompts_dir), else the installed one.
 * Owned by cfg or static. */
const char *prompts_dir_from_config(const struct egg_config *cfg);

/* Reads every file of the set.  NULL, with a sentence naming the missing or
 * unreadable file, when the set is incomplete. */
struct prompts *prompts_load(const char *dir, struct strbuf *err);
void prompts_free(struct prompts *p);

const char *prompts_role(const struct prompts *p, const char *role);        /* NULL: unknown */
/* The principles of family, or the generic ones for an unknown family. */
const char *prompts_principles(const struct prompts *p, const char *family);
/* Appends the items of the principles' "## Directions" list to out. */
void prompts_directions(const struct prompts *p, const char *family, struct strvec *out);
const char *prompts_identity(const struct prompts *p);

/* The identity of the set in dir, computed once per directory and process, for
 * the cache key; "prompts-unreadable" when the set cannot be read (the search
 * then stops with a warning, so nothing is stored under it).  Static storage. */
const char *prompts_identity_of(const char *dir);

/* tmpl with every {{name}} replaced by its value (names[i] -> values[i]); an
 * unknown placeholder is replaced by nothing.  Caller frees. */
char *prompts_render(const char *tmpl, const char *const *names, const char *const *values,
                     size_t n);

#endif
