/*
 * child.h -- running child programs: the one runner of egg's programs.
 *
 * Two callers with different needs share it, each asking for its abilities:
 *   - egg-cc runs nvcc (and egg's planner) as a compiler driver must: the child's
 *     exit status and signals become egg-cc's own (child_exit_like), and a Ctrl-C
 *     or a `kill` aimed at egg-cc reaches the child (forward_signals).
 *   - the harness runs programs it does not trust: in a process group of their
 *     own killed at a time limit and when the child ends (so nothing it started
 *     lingers), killed too if egg dies, with an environment without secrets and
 *     their output in files (own_group, timeout_s, scrub_env, *_path).  Nothing
 *     such a child does comes back as a signal to egg: its fate is a struct.
 * libc only (egg-cc's fast path links it).  No signal handler is left installed
 * once child_run returns; a time limit is kept by polling waitpid.
 */
#ifndef EGG_CHILD_H
#define EGG_CHILD_H

#include "common/strbuf.h"

struct child_status {
	int exited;    /* 1: exited normally with code */
	int code;
	int signaled;  /* 1: killed by signal sig */
	int sig;
	int timed_out; /* killed at the time limit (then neither exited nor signaled) */
	double wall_s; /* how long it ran */
	int interrupted; /* with forward_signals: the signal this process received and
	                    passed on while the child ran (SIGINT, ...), or 0 */
};

struct child_options {
	/* The child's stdin, stdout, stderr: a file (opened by child_run; stdout and
	 * stderr truncated, and may name the same file), else the descriptor
	 * (>= 0), else inherited.  "/dev/null" discards. */
	const char *in_path, *out_path, *err_path;
	int in_fd, out_fd, err_fd;
	/* SIGINT, SIGTERM, SIGHUP and SIGQUIT received while the child runs are sent
	 * to it (to its group with own_group); without own_group the child also gets
	 * SIGTERM if this process dies. */
	int forward_signals;
	/* The child leads its own process group, which is killed when the child
	 * ends (leftovers) and at the time limit; the child gets SIGKILL if this
	 * process dies. */
	int own_group;
	double timeout_s;        /* with own_group; 0: none */
	int scrub_env;           /* the environment less secrets (child_env_is_secret) */
	char *const *extra_env;  /* NAME=VALUE entries added, replacing their names; may be NULL */
	/* Called in the child just before exec (after its descriptors are set): a
	 * confinement that only makes system calls (harness/sandbox.h).  -1 (errno
	 * set): the child says why on stderr and exits 127 without running. */
	int (*before_exec)(const void *arg);
	const void *before_exec_arg;
};

/* Ends this process as the signal sig would (its default action), after a
 * child it was passed on to has ended (child_status.interrupted), removing the
 * directories registered with child_remove_on_death first. */
void child_die_of(int sig);

/* Registers a temporary directory that child_die_of removes (the files of an
 * evaluation a stopped build must not leave behind); child_forget_on_death
 * takes it off again (the caller removes it itself). */
void child_remove_on_death(const char *dir);
void child_forget_on_death(const char *dir);

/* Removes dir and everything below it (links not followed); 0, or -1. */
int child_remove_tree(const char *dir);

/* Inherit everything, no group, no limit, no forwarding. */
#define CHILD_OPTIONS_INIT { NULL, NULL, NULL, -1, -1, -1, 0, 0, 0, 0, NULL, NULL, NULL }

/* Runs path with argv (argv[0] included, NULL-terminated) as opt says (NULL: the
 * defaults above).  Returns 0 with *st filled once the child has ended (a program
 * that cannot be executed exits with 127), or -1 with a sentence in err if it
 * could not be started. */
int child_run(const char *path, char *const argv[], const struct child_options *opt,
              struct child_status *st, struct strbuf *err);

/* 1 if an environment variable of this name must not reach an untrusted child:
 * API keys, tokens, secrets, passwords (EGG_API_KEY, OPENAI_API_KEY,
 * EGG_CACHE_SECRET, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ...). */
int child_env_is_secret(const char *name);

/* A sentence describing how the child ended ("exited with status 4", "was killed
 * by signal 11 (Segmentation fault)", "ran past its time limit ..."). */
void child_describe(const struct child_status *st, struct strbuf *out);

/* The status a shell would report: code, or 128 + signal. */
int child_shell_status(const struct child_status *st);

/* Ends this process as the child ended: the same exit code, or death by the same
 * signal (with its default action restored first). */
void child_exit_like(const struct child_status *st) __attribute__((noreturn));

#endif
