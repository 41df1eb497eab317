/*
 * hoist.h -- the #include lines of a piece of code that will stand inside
 * namespaces.
 *
 * A candidate replaces its target where the target stands, which may be inside
 * `namespace nn {` (the harness also wraps it in an anonymous namespace).  A
 * header included there declares everything inside that namespace, so the
 * harness and egg-cc move a candidate's #include lines to the top of the
 * translation unit, at file scope, and leave an empty line in their place so
 * that line numbers do not move.
 */
#ifndef EGG_COMMON_HOIST_H
#define EGG_COMMON_HOIST_H

#include "common/strbuf.h"

/* Appends code to rest with each line that is an #include directive (leading
 * blanks, `#`, blanks, `include`) emptied, and those lines to includes.  A line
 * continued with a backslash, or inside a comment, is left where it is. */
void egg_hoist_includes(const char *code, struct strbuf *includes, struct strbuf *rest);

#endif
