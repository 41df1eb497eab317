/*
 * extract.h -- reading what a model wrote: the candidate's code, the profile
 * agent's JSON, and whether the candidate keeps the target's signature.
 *
 * Models answer in prose with code in Markdown fences (```cuda, ```cpp, ```c++,
 * ```, sometimes several blocks, sometimes none, sometimes cut off by the token
 * limit), and JSON wrapped in sentences or truncated.  Every reader here takes
 * any text, never crashes and never asserts on input: what cannot be used comes
 * back as NULL with a sentence the search sends back to the model (a debug
 * round).
 *
 * Ownership: returned strings are the caller's (free()).
 */
#ifndef EGG_AGENTS_EXTRACT_H
#define EGG_AGENTS_EXTRACT_H

#include "common/bundle.h"
#include "common/strbuf.h"

/* The candidate source in a model's answer for target `name`:
 *   - fenced blocks: the last block that defines name(...) { ... }, preceded by
 *     the other blocks that define a function the chosen block calls but does not
 *     define (helper kernels written in their own block), in answer order;
 *   - no fence: the text from its first line that looks like code (#include,
 *     #define, template, __global__, __device__, struct, static, a comment)
 *     before the definition up to the definition's closing brace;
 *   - an unterminated fence (the answer was cut off) runs to the end.
 * Returns NULL with a sentence in why when no definition of name is found. */
char *extract_code(const char *answer, const char *name, struct strbuf *why);

/* 1 when code defines a function called name (name, its parameter list, a
 * body), outside comments, strings and preprocessor lines; 0 otherwise. */
int extract_defines(const char *code, const char *name);

/* Compares the header of the definition of b->name in code with b->signature,
 * token by token after dropping layout, comments, linkage and inlining words
 * (extern "C", static, inline, __forceinline__, __noinline__, __host__) and
 * parameter restrict qualifiers (__restrict__ does not change the type).
 * Returns 0 when they match, -1 with a sentence naming both in why. */
int extract_check_signature(const char *code, const struct egg_bundle *b, struct strbuf *why);

/* The profile agent's feedback: the first JSON object in the answer (fenced or
 * in prose), repaired when it was cut off (open strings and brackets closed,
 * a dangling key dropped).  Missing or non-string fields get the defaults
 * "unknown" and "" (the search fills its own plan then).  Returns 0 when an
 * object was read, -1 (defaults filled, a sentence in why) when none was.
 * *bottleneck and *plan are always set and owned by the caller. */
int extract_feedback(const char *answer, char **bottleneck, char **plan, struct strbuf *why);

#endif
