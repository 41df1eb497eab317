/*
 * scan.h -- the fast path's question: might this source hold an egg annotation?
 *
 * egg-cc asks it of every CUDA input before deciding to do anything but exec nvcc,
 * so it must cost microseconds: one mmap, memmem for "egg", a look backwards from
 * each hit.  It answers yes for `#pragma egg` (blanks allowed after '#' and between
 * the words, backslash-newline too) and `_Pragma("egg` / `_Pragma ( "egg` /
 * `_Pragma(R"(egg`, followed by a character that cannot continue an identifier.
 * It does not know about comments, strings or #if 0: a false yes costs one libclang
 * parse later, a false no would lose an optimization, so it errs towards yes.
 */
#ifndef EGG_SCAN_H
#define EGG_SCAN_H

#include <stddef.h>

enum scan_result {
	SCAN_ERROR = -1, /* the file could not be read; errno says why */
	SCAN_NO = 0,
	SCAN_YES = 1,
};

/* Scans the file at path (a regular file; anything else is SCAN_ERROR, EINVAL). */
enum scan_result scan_has_annotation(const char *path);

/* The same question of the user headers path includes, followed as the
 * preprocessor would (a quoted name beside its includer, then the dirs given
 * with -I, in order; never the system directories), to a depth of
 * SCAN_MAX_DEPTH and at most SCAN_MAX_HEADERS files: egg optimizes only the
 * annotations of the file it compiles, and one in a header must not be ignored
 * silently (egg plan says why it is not used).  An #include inside #if 0 or a
 * comment is followed too; an unreadable header is skipped.  Costs one open and
 * one mmap per header, only for a source without an annotation of its own. */
#define SCAN_MAX_DEPTH 16
#define SCAN_MAX_HEADERS 256
enum scan_result scan_headers_have_annotation(const char *path, const char *const *dirs,
                                              size_t n_dirs);

struct args;
/* The question egg-cc and egg plan ask of a CUDA input of the command a: the
 * file's own annotations, then its headers' (the -I directories of a). */
enum scan_result scan_input_has_annotation(const struct args *a, const char *path);

/* The same question of a buffer of len bytes (need not be NUL-terminated). */
enum scan_result scan_buffer_has_annotation(const char *data, size_t len);

#endif
