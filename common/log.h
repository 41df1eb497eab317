/*
 * log.h -- the log_file (egg.conf(5)): what egg did with an annotated compile, and why.
 *
 * One process-wide log, as ccache keeps one: egg-cc and `egg plan` open it when
 * log_file is set, and every module then says what it decided with egg_log(), at no
 * cost when it is not set.  Each call is one line,
 *
 *   [2026-12-03T10:11:12.345678 4711] egg plan: softmax_forward: lookup ... : miss
 *
 * (local time to the microsecond, the process id, the tag given to egg_log_open),
 * written with a single write(2) on an O_APPEND descriptor, so that the lines of
 * concurrent compiles (make -j) never interleave or tear.  A line is cut at
 * EGG_LOG_MAX_LINE bytes.  Callers never pass secrets: the log is as public as the
 * build's output.
 *
 * Failure policy: a log that cannot be opened is the caller's one warning (err says
 * why) and egg goes on without it; a failed write is ignored.  Never a failed build.
 */
#ifndef EGG_LOG_H
#define EGG_LOG_H

#include "common/strbuf.h"

#define EGG_LOG_MAX_LINE 4096

/* Opens path for appending (created 0644) and tags the lines with tag (copied).
 * NULL or "" path: no log, 0.  -1 with a sentence in err when it cannot be opened. */
int egg_log_open(const char *path, const char *tag, struct strbuf *err);
/* 1 when a log is open: callers may skip building expensive messages otherwise. */
int egg_log_enabled(void);
void egg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void egg_log_close(void);

/* Seconds on a monotonic clock, for the timings the log reports. */
double egg_log_now(void);

#endif
