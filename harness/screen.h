/*
 * screen.h -- rejects a candidate's source before anything compiles or runs it.
 *
 * A candidate's host code may only call the CUDA runtime, math and memory
 * functions.  The screen is a lexer, not a compiler: it understands comments,
 * string, character and raw-string literals, line splices and preprocessor lines,
 * and refuses
 *   - any mention of a process, file, network, environment, dynamic-loading or
 *     thread function (system, popen, exec*, fork, fopen, dlopen, socket,
 *     connect, getenv, pthread_create, std::thread, ifstream, syscall, mmap, ...),
 *     called or not: naming one in a #define or taking its address is refused too;
 *   - calls of the POSIX descriptor functions (open, read, write, close, kill,
 *     remove, rename, ...), whose names are common words and so are refused only
 *     when called (`name(`) or mentioned in a #define, never as member names;
 *   - inline assembly outside a function declared __device__ or __global__
 *     (a __host__ __device__ function counts as host);
 *   - an #include of anything but the CUDA, CUB, Thrust, libcu++ and C/C++
 *     math/limits/type headers, or of the bundle's own includes;
 *   - token pasting (## or %:%:), backslashes outside literals (universal
 *     character names), names starting with egg_ (the harness's own), and
 *     functions that ruin the harness's device state (cudaDeviceReset,
 *     cudaSetDevice), and the driver API's module loaders.
 *
 * Known limits: it does not expand macros (so it refuses the spelling, not the
 * meaning: a name built any other way than ## is caught because its parts must be
 * banned names or calls); a lambda marked __device__ inside a host function that
 * uses asm is refused (false positive); device functions with a banned name are
 * refused (false positive).  It is a first gate: the evaluation also runs in a
 * separate process, with a time limit and without the user's secrets.
 *
 * Ownership: appends to the caller's strbuf only.
 */
#ifndef EGG_HARNESS_SCREEN_H
#define EGG_HARNESS_SCREEN_H

#include <stddef.h>

#include "common/bundle.h"
#include "common/strbuf.h"
#include "common/strvec.h"

/* Returns 0 if src may be compiled; -1 with one sentence in why, naming the
 * offending name and its line and column.  allowed_includes (n of them, may be
 * NULL) are include spellings accepted besides the built-in list, e.g. the
 * bundle's own "<cuda_fp16.h>" or "\"mytypes.h\"". */
int screen_candidate(const char *src, char *const *allowed_includes, size_t n,
                     struct strbuf *why);

/* Both screens (screen_unit.c): screen_candidate above, then the allowlist
 * screen of analyzer.h (analyzer_screen_unit) over the unit gen_unit builds for
 * src in bundle b, parsed with clang_args (NULL-terminated, may be NULL; see
 * screen_clang_args).  A unit that cannot be parsed is refused.  Returns 0, or
 * -1 with one sentence in why, or 1 with one sentence in why when the host code
 * names something the screen cannot resolve: refused unless it does not
 * compile (then the compiler's error is the better verdict). */
int screen_candidate_unit(const struct egg_bundle *b, const char *src,
                          const char *const *clang_args, struct strbuf *why);

/* screen_candidate_unit for a cached winner about to be linked: the same
 * verdict, but a pass is remembered under the harness's cache directory, keyed
 * by a salted hash of everything it depends on, so that the next build's hit
 * on the same winner does not parse it again (a tampered winner is a new
 * text, screened anew; a planted memo needs the 0600 salt). */
int screen_winner_unit(const struct egg_bundle *b, const char *src,
                       const char *const *clang_args, struct strbuf *why);

/* Appends to out the clang spellings of the preprocessor flags among the n
 * nvcc flags (-I, -isystem, -D, -U, -include, -std in nvcc's short and long,
 * attached and separate forms). */
void screen_clang_args(char *const *flags, size_t n, struct strvec *out);

#endif
