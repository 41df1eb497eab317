/*
 * child.h -- running a child program the way a compiler driver must.
 *
 * egg-cc runs nvcc (and egg's planner) as children when it cannot simply exec:
 * their exit status and signals must become egg-cc's own, and a Ctrl-C or a
 * `kill` aimed at egg-cc must reach them.  While a child runs, SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT received by this process are forwarded to it.
 */
#ifndef EGG_CHILD_H
#define EGG_CHILD_H

#include "common/strbuf.h"

struct child_status {
	int exited;   /* 1: exited normally with code */
	int code;
	int signaled; /* 1: killed by signal sig */
	int sig;
};

/* Runs path with argv (argv[0] included, NULL-terminated).  out_fd/err_fd, when
 * >= 0, become the child's stdout/stderr; otherwise they are inherited.  Returns 0
 * with *st filled once the child has ended, or -1 with a sentence in err if it
 * could not be started. */
int child_run(const char *path, char *const argv[], int out_fd, int err_fd,
             struct child_status *st, struct strbuf *err);

/* The status a shell would report: code, or 128 + signal. */
int child_shell_status(const struct child_status *st);

/* Ends this process as the child ended: the same exit code, or death by the same
 * signal (with its default action restored first). */
void child_exit_like(const struct child_status *st) __attribute__((noreturn));

#endif
