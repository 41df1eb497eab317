/*
 * proc.c -- the harness's way of running a program (common/child.h with the
 * untrusted-child options) and the GPU lock (see proc.h).
 */
#include "config.h"
#include "harness/proc.h"
#include "harness/sandbox.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static int
enter(const void *sb)
{
	return sandbox_enter(sb);
}

int
proc_run(char *const *argv, char *const *extra_env, const char *in_path,
         const char *out_path, const char *err_path, double timeout_s, struct child_status *st,
         struct strbuf *err)
{
	return proc_run_contained(argv, extra_env, in_path, out_path, err_path, timeout_s, NULL, st,
	                          err);
}

int
proc_run_contained(char *const *argv, char *const *extra_env, const char *in_path,
                   const char *out_path, const char *err_path, double timeout_s,
                   const struct sandbox *sb, struct child_status *st, struct strbuf *err)
{
	struct child_options o = CHILD_OPTIONS_INIT;
	o.in_path = in_path ? in_path : "/dev/null";
	o.out_path = out_path ? out_path : "/dev/null";
	o.err_path = err_path ? err_path : "/dev/null";
	o.own_group = 1;
	o.timeout_s = timeout_s;
	o.scrub_env = 1;
	o.extra_env = extra_env;
	/* A build stopped (Ctrl-C, make killed) stops the evaluator's whole process
	 * tree, then this process: nothing of a search outlives the build. */
	o.forward_signals = 1;
	if (sb && sb->layers) {
		o.before_exec = enter;
		o.before_exec_arg = sb;
	}
	int rc = child_run(argv[0], argv, &o, st, err);
	if (rc == 0 && (st->interrupted == SIGINT || st->interrupted == SIGTERM || st->interrupted == SIGHUP))
		child_die_of(st->interrupted);
	return rc;
}

int
proc_gpu_lock(const char *key, struct strbuf *err)
{
	const char *dir = getenv("EGG_LOCK_DIR");
	char name[128];
	size_t n = 0;
	for (const char *k = key; *k && n + 1 < sizeof name; k++)
		name[n++] = (char)((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		                   (*k >= '0' && *k <= '9') || *k == '-' ? *k : '_');
	name[n] = 0;
	char *path = egg_xasprintf("%s/egg-gpu-%s.lock", dir && *dir ? dir : "/tmp", name);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		strbuf_addf(err, "cannot open the GPU lock %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fchmod(fd, 0666); /* other users' egg must be able to take it too */
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			strbuf_addf(err, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			free(path);
			return -1;
		}
	}
	free(path);
	return fd;
}

void
proc_gpu_unlock(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}
