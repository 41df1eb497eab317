/*
 * fsutil.h -- file and path helpers.
 *
 * Every function that can fail because of the file system returns 0 on success
 * and -1 on failure with errno set, so the caller can say what went wrong
 * (strerror) in its own words.
 */
#ifndef EGG_FSUTIL_H
#define EGG_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Reads the whole file into *data (NUL-terminated, caller frees) and *len.
 * Fails with EFBIG if it is larger than max bytes (0: no limit). */
int fs_read_file(const char *path, size_t max, char **data, size_t *len);
/* fs_read_file for files others may have planted: the file must be a regular
 * file reached without a symbolic link at its last component; anything else (a
 * FIFO that would block the reader forever, a device, a directory, a link) fails
 * at once with EINVAL (not regular) or ELOOP (a link). */
int fs_read_regular_file(const char *path, size_t max, char **data, size_t *len);

/* Appends data to path (created 0644) with one write(2) on an O_APPEND
 * descriptor held under flock(2), so that concurrent writers (make -j) never
 * interleave or tear it.  0, or -1 with errno set and *step naming what failed
 * ("open", "lock" or "write"; a short write is ENOSPC). */
int fs_append_locked(const char *path, const void *data, size_t len, const char **step);

/* Writes data to a temporary file next to path, fsyncs it and renames it over
 * path: readers see the old file or the new one, never a torn one. */
int fs_write_atomic(const char *path, const void *data, size_t len);

/* mkdir -p; existing directories are fine. */
int fs_mkdir_p(const char *path, mode_t mode);

/* Path pieces; results are owned by the caller. */
char *fs_basename(const char *path);
char *fs_dirname(const char *path);
char *fs_join(const char *dir, const char *name);
/* path (absolute) spelled relative to dir (absolute), as a compiler launcher
 * with a base directory (ccache's base_dir) writes it: "sub/f.cu", "../x/f.cu",
 * "." for dir itself.  Lexical: NULL when either is not absolute or holds a
 * ".." component. */
char *fs_relative_path(const char *dir, const char *path);

/* 1 if path is a regular file the user may execute. */
int fs_is_executable(const char *path);

/* 1 if a and b name the same file (same device and inode), following links. */
int fs_same_file(const char *a, const char *b);

/* The first executable called name in the colon-separated list path, skipping
 * every candidate that is the same file as skip (may be NULL).  Caller frees;
 * NULL if none. */
char *fs_find_in_path(const char *name, const char *path, const char *skip);

#endif
