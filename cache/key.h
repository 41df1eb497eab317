/*
 * key.h -- the cache key: SHA-256 over a documented, versioned text.
 *
 * The key names everything that can change the winner of a search and nothing
 * else.  It is computed over a plain text ("the key text"), one `name: value`
 * line per input, which `egg cache key --explain` prints verbatim so that a
 * surprising miss is explained by diffing two key texts (ccache's habit).
 *
 * The key is what a verified winner's correctness and speed depend on: the
 * canonical bundle and clauses, the GPU architecture, nvcc's release and the
 * flags that change device code.  Who wrote the winner (the generator: builtin
 * and its recipe version, or a model) is not in it: an entry found by an older
 * generator is still a verified winner for the same inputs, so an upgrade of egg
 * keeps a filled cache's hits.  The generator is stored in the entry, and the
 * planner decides what to do with an entry of another generator (search mode:
 * a negative one is searched again; see plan/pipeline.c).
 *
 * Key text, format version CACHE_KEY_VERSION (any change to what is written or
 * how is a new version, so old entries simply stop matching):
 *
 *   egg-cache-key: 2
 *   kind: launcher | kernel
 *   extern_c: 0 | 1
 *   is_static: 0 | 1
 *   include: <cuda_fp16.h>                  one line each, in order
 *   param: NAME role=ROLE type=TYPE elem=ELEM extent=EXPR range=LO..HI
 *   workload: NAME=VALUE NAME=VALUE ...     one line per workload clause, in order;
 *                                           a pointer parameter the workload leaves
 *                                           NULL is NAME=<null>, however it was
 *                                           spelled (NULL, nullptr, 0)
 *   tolerance: rtol=R atol=A                "-" for an absent value
 *   precision: default | tf32 | bf16 | fp16
 *   launch: grid=G block=B smem=S           or "launch: -"
 *   arch: sm_90
 *   nvcc: 13.0
 *   target: compute_90 sm_90                the (virtual, real) code targets, sorted
 *   target: compute_90 compute_90           ("target: default" when none is named)
 *   flag: -use_fast_math                    one line each, normalized (see below)
 *   canonical: N lines
 *   | ...                                   the bundle's canonical text, each line
 *                                           prefixed with "| " so it diffs cleanly
 *
 * NAME=<null> is additive, not a new version: only a bundle with an optional
 * pointer writes it, so every other key stays.  Before it, such a binding was a
 * clause-local name written as NAME=NULL (the harness ignored it and checked
 * only the call with the pointer), so those entries do not answer for the new
 * meaning: "<null>" is no C expression, no earlier text could hold it.
 *
 * Values are single-line: a backslash is written "\\" and a newline "\n".
 * Absent values are written "-".
 *
 * Not in the key: the file name, the pragma's line and column, the pragma text
 * as written (its clauses are in the key, structured, so re-spacing a clause
 * does not miss), timestamps, and flags that do not change generated code.
 *
 * Flags arrive already extracted by the caller (the nvcc argv model) in one
 * canonical spelling each, as strings "-opt" or "-opt=value" ("-O3",
 * "-arch=sm_90", "--ftz=true", "-DN=4", "-Xptxas=-O3").  Normalization, which
 * never lets two different builds share a key:
 *   - -arch, -code and -gencode (also as --gpu-architecture, --gpu-code,
 *     --generate-code) become the set of (virtual, real) targets they name:
 *     -arch=sm_90, "-arch=compute_90 -code=sm_90,compute_90" and
 *     -gencode=arch=compute_90,code=[sm_90,compute_90] are the same key, in
 *     any order, so a CMake build and a Make build share entries;
 *   - -O (nvcc's host-code optimization level) is left out: it does not
 *     change device code (-Xptxas=-O and -dopt, which do, stay in);
 *   - options with one value per compile (-std, --ftz,
 *     --prec-div, --prec-sqrt, --fmad, -use_fast_math, -maxrregcount, -G,
 *     -lineinfo, -rdc, --extra-device-vectorization, --default-stream,
 *     -restrict; dashes do not count, so -ftz and --ftz are one option) and
 *     macros (-D/-U, by name: "-DX=1 -UX" keeps "-UX") keep their last
 *     occurrence and are sorted, since their position does not matter;
 *   - every other flag (-gencode, -Xptxas, anything unknown) is kept, every
 *     occurrence, in command-line order, after the sorted ones.
 * The caller chooses which flags change code generation; include paths and
 * output names are not among them.
 */
#ifndef EGG_CACHE_KEY_H
#define EGG_CACHE_KEY_H

#include <stddef.h>

#include "common/bundle.h"
#include "common/strbuf.h"

#define CACHE_KEY_VERSION 2
#define CACHE_KEY_HEX_LEN 64

/* Who wrote the winner: stored in every entry (not part of the key). */
struct cache_generator {
	const char *backend; /* "builtin", "openai", "anthropic" */
	const char *model;   /* NULL for builtin */
	const char *recipe;  /* egg's prompt/recipe version */
};

/* Everything that goes into a key.  Nothing here is owned by the struct. */
struct cache_key_inputs {
	const struct egg_bundle *bundle;
	const char *arch;         /* "sm_90" */
	const char *nvcc_version; /* "13.0" */
	const char *const *flags; /* code-generation flags, in command-line order */
	size_t n_flags;
};

/* Appends the key text for in to out. */
void cache_key_text(const struct cache_key_inputs *in, struct strbuf *out);

/* Writes the key (64 lowercase hex digits and a NUL) for in to hex. */
void cache_key_compute(const struct cache_key_inputs *in, char hex[CACHE_KEY_HEX_LEN + 1]);

/* 1 if s is a well-formed key (64 lowercase hex digits). */
int cache_key_is_valid(const char *s);

#endif
