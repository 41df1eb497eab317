/*
 * proc.h -- running the harness's child processes: a time limit, a process group
 * of their own, an environment without secrets, and the per-GPU lock.
 *
 * Nothing a child does (hang, crash, fork, fill its output) can take egg down:
 * the child and everything it started are killed as a group at the time limit,
 * its output goes to files, and its fate comes back as a struct, never a signal.
 */
#ifndef EGG_HARNESS_PROC_H
#define EGG_HARNESS_PROC_H

#include "common/strbuf.h"

struct proc_status {
	int exited;     /* 1: exited normally with exit_code */
	int exit_code;
	int signal;     /* the signal that ended it, or 0 */
	int timed_out;  /* killed at the time limit */
	double wall_s;
};

/* 1 if an environment variable of this name must not reach a child: API keys,
 * tokens, secrets, passwords (EGG_API_KEY, OPENAI_API_KEY, EGG_CACHE_SECRET,
 * GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ...). */
int proc_env_is_secret(const char *name);

/* Runs argv[0] (a path) with argv in the current environment less the secrets,
 * plus the NULL-terminated NAME=VALUE list extra_env (may be NULL), stdin from
 * in_path and stdout and stderr to the named files (each NULL: /dev/null).  The child
 * leads its own process group; at timeout_s (0: none) the whole group is killed,
 * and so are any processes it left behind when it ends.  Returns 0 with *st
 * filled, or -1 with a sentence in err when the child could not be started. */
int proc_run(char *const *argv, char *const *extra_env, const char *in_path,
             const char *out_path, const char *err_path, double timeout_s, struct proc_status *st,
             struct strbuf *err);

/* A sentence describing how the child ended ("exited with status 4", "was killed
 * by signal 11 (Segmentation fault)", "ran past the 60 s time limit"). */
void proc_describe(const struct proc_status *st, struct strbuf *out);

/* Takes the lock that serializes timings on one GPU (key: the GPU's UUID) across
 * every egg process on this machine; blocks until it is free.  The lock file
 * lives in $EGG_LOCK_DIR, else /tmp, and is shared by all users.  Returns a file
 * descriptor to pass to proc_gpu_unlock, or -1 with a sentence in err. */
int proc_gpu_lock(const char *key, struct strbuf *err);
void proc_gpu_unlock(int fd);

#endif
