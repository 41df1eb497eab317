/*
 * proc.h -- the harness's child processes (common/child.h with a time limit, a
 * process group of their own, an environment without secrets, output to files)
 * and the per-GPU lock.
 *
 * Nothing a child does (hang, crash, fork, fill its output) can take egg down:
 * the child and everything it started are killed as a group at the time limit,
 * its output goes to files, and its fate comes back as a struct, never a signal.
 */
#ifndef EGG_HARNESS_PROC_H
#define EGG_HARNESS_PROC_H

#include "common/child.h"
#include "common/strbuf.h"

/* Runs argv[0] (a path) with argv through child_run as the harness runs what it
 * does not trust: the current environment less the secrets, plus the
 * NULL-terminated NAME=VALUE list extra_env (may be NULL); stdin from in_path,
 * stdout and stderr to the named files (each NULL: /dev/null); its own process
 * group, killed at timeout_s (0: none) and when the child ends.  Returns 0 with
 * *st filled, or -1 with a sentence in err when the child could not be started. */
int proc_run(char *const *argv, char *const *extra_env, const char *in_path,
             const char *out_path, const char *err_path, double timeout_s, struct child_status *st,
             struct strbuf *err);

/* proc_run with the child confined by sb (harness/sandbox.h, prepared for
 * argv[0]) between fork and exec; sb NULL or without layers: as proc_run.  A
 * child that cannot be confined does not run (it exits 127 saying why). */
struct sandbox;
int proc_run_contained(char *const *argv, char *const *extra_env, const char *in_path,
                       const char *out_path, const char *err_path, double timeout_s,
                       const struct sandbox *sb, struct child_status *st, struct strbuf *err);

/* Takes the lock that serializes timings on one GPU (key: the GPU's UUID) across
 * every egg process on this machine; blocks until it is free.  The lock file
 * lives in $EGG_LOCK_DIR, else /tmp, and is shared by all users.  Returns a file
 * descriptor to pass to proc_gpu_unlock, or -1 with a sentence in err. */
int proc_gpu_lock(const char *key, struct strbuf *err);
void proc_gpu_unlock(int fd);

#endif
