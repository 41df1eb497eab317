/*
 * proc.c -- child processes with a time limit, a scrubbed environment, and the
 * GPU lock (see proc.h).
 *
 * The parent polls waitpid every few milliseconds rather than using SIGALRM or
 * SIGCHLD handlers, so the library installs no signal handlers in egg-cc.
 */
#include "config.h"
#include "harness/proc.h"
#include "common/strvec.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int
proc_env_is_secret(const char *name)
{
	static const char *const exact[] = { "EGG_CACHE_SECRET", "EGG_API_KEY", "EGG_API_KEY_FILE",
		                             NULL };
	static const char *const parts[] = { "API_KEY", "APIKEY", "SECRET", "TOKEN", "PASSWORD",
		                             "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY",
		                             NULL };
	for (int i = 0; exact[i]; i++)
		if (strcmp(name, exact[i]) == 0)
			return 1;
	char up[256];
	size_t n = 0;
	for (; name[n] && n + 1 < sizeof up; n++)
		up[n] = (char)(name[n] >= 'a' && name[n] <= 'z' ? name[n] - 32 : name[n]);
	up[n] = 0;
	for (int i = 0; parts[i]; i++)
		if (strstr(up, parts[i]))
			return 1;
	return egg_str_ends(up, "_KEY");
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
build_env(char *const *extra, struct strvec *env)
{
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = egg_xstrndup(*e, eq ? (size_t)(eq - *e) : strlen(*e));
		int drop = proc_env_is_secret(name);
		for (size_t i = 0; extra && extra[i] && !drop; i++)
			drop = egg_str_starts(extra[i], name) && extra[i][strlen(name)] == '=';
		if (!drop)
			strvec_push(env, *e);
		free(name);
	}
	for (size_t i = 0; extra && extra[i]; i++)
		strvec_push(env, extra[i]);
}

static int
open_or_null(const char *path, int flags)
{
	return open(path ? path : "/dev/null", flags, 0644);
}

int
proc_run(char *const *argv, char *const *extra_env, const char *in_path,
         const char *out_path, const char *err_path, double timeout_s, struct proc_status *st,
         struct strbuf *err)
{
	memset(st, 0, sizeof *st);
	struct strvec env = STRVEC_INIT;
	build_env(extra_env, &env);
	int in = open_or_null(in_path, O_RDONLY);
	int out = open_or_null(out_path, O_WRONLY | O_CREAT | O_TRUNC);
	int er = open_or_null(err_path, O_WRONLY | O_CREAT | O_TRUNC);
	if (in < 0 || out < 0 || er < 0) {
		strbuf_addf(err, "cannot open the output files of %s: %s", argv[0], strerror(errno));
		goto fail;
	}
	double start = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot start %s: %s", argv[0], strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* egg killed: its child goes too */
		dup2(in, 0);
		dup2(out, 1);
		dup2(er, 2);
		execve(argv[0], argv, strvec_argv(&env));
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also here: no race with the child's own call */
	close(in);
	close(out);
	close(er);
	strvec_clear(&env);
	int status = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			strbuf_addf(err, "lost track of %s: %s", argv[0], strerror(errno));
			kill(-pid, SIGKILL);
			return -1;
		}
		if (timeout_s > 0 && now_s() - start > timeout_s) {
			st->timed_out = 1;
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		struct timespec nap = { 0, 5 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	kill(-pid, SIGKILL); /* whatever it left running */
	st->wall_s = now_s() - start;
	if (WIFEXITED(status) && !st->timed_out) {
		st->exited = 1;
		st->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		st->signal = WTERMSIG(status);
	}
	return 0;
fail:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (er >= 0)
		close(er);
	strvec_clear(&env);
	return -1;
}

void
proc_describe(const struct proc_status *st, struct strbuf *out)
{
	if (st->timed_out)
		strbuf_addf(out, "ran past its time limit and was killed after %.1f s", st->wall_s);
	else if (st->exited)
		strbuf_addf(out, "exited with status %d", st->exit_code);
	else if (st->signal)
		strbuf_addf(out, "was killed by signal %d (%s)", st->signal, strsignal(st->signal));
	else
		strbuf_addstr(out, "ended in an unknown way");
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
