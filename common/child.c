/*
 * child.c -- see child.h.
 *
 * One fork/exec path with its abilities switched on by the options.  Everything
 * the child needs (the environment, opened files) is prepared before fork, so
 * the child only dup2s and execs.
 */
#include "config.h"
#include "common/child.h"
#include "common/strvec.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t child_target; /* pid, or -pgid with own_group; 0: none */
static volatile sig_atomic_t child_interrupted; /* the last signal passed on */

static void
forward(int sig)
{
	child_interrupted = sig;
	if (child_target != 0)
		kill((pid_t)child_target, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_FORWARDED (sizeof forwarded / sizeof *forwarded)

int
child_env_is_secret(const char *name)
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
build_env(int scrub, char *const *extra, struct strvec *env)
{
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = egg_xstrndup(*e, eq ? (size_t)(eq - *e) : strlen(*e));
		int drop = scrub && child_env_is_secret(name);
		for (size_t i = 0; extra && extra[i] && !drop; i++)
			drop = egg_str_starts(extra[i], name) && extra[i][strlen(name)] == '=';
		if (!drop)
			strvec_push(env, *e);
		free(name);
	}
	for (size_t i = 0; extra && extra[i]; i++)
		strvec_push(env, extra[i]);
}

/* The three descriptors the child gets (-1: inherited); fds[3..5] are the ones
 * opened here, to close.  -1 with a sentence when a file cannot be opened. */
static int
open_stdio(const struct child_options *o, const char *path, int fds[6], struct strbuf *err)
{
	const char *paths[3] = { o->in_path, o->out_path, o->err_path };
	const int given[3] = { o->in_fd, o->out_fd, o->err_fd };
	for (int i = 0; i < 6; i++)
		fds[i] = -1;
	for (int i = 0; i < 3; i++) {
		if (!paths[i]) {
			fds[i] = given[i];
			continue;
		}
		/* stdout and stderr naming one file share one descriptor (one offset). */
		if (i == 2 && paths[1] && strcmp(paths[1], paths[2]) == 0) {
			fds[2] = fds[1];
			continue;
		}
		fds[i] = fds[3 + i] = open(paths[i], i ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
		                                       : O_RDONLY | O_CLOEXEC, 0644);
		if (fds[i] < 0) {
			strbuf_addf(err, "cannot open %s for %s: %s", paths[i], path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void
close_opened(int fds[6])
{
	for (int i = 3; i < 6; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void
decode(int status, struct child_status *st)
{
	if (st->timed_out)
		return;
	if (WIFSIGNALED(status)) {
		st->signaled = 1;
		st->sig = WTERMSIG(status);
	} else {
		st->exited = 1;
		st->code = WEXITSTATUS(status);
	}
}

/* Waits for pid, killing its group at the time limit.  -1: lost track of it. */
static int
wait_child(pid_t pid, const struct child_options *o, double start, int *status,
           struct child_status *st)
{
	if (!o->own_group || !(o->timeout_s > 0)) {
		pid_t r;
		do
			r = waitpid(pid, status, 0);
		while (r < 0 && errno == EINTR);
		return r == pid ? 0 : -1;
	}
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_s() - start > o->timeout_s) {
			st->timed_out = 1;
			kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return 0;
		}
		struct timespec nap = { 0, 5 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
}

int
child_run(const char *path, char *const argv[], const struct child_options *opt,
          struct child_status *st, struct strbuf *err)
{
	static const struct child_options defaults = CHILD_OPTIONS_INIT;
	const struct child_options *o = opt ? opt : &defaults;
	memset(st, 0, sizeof *st);
	struct strvec env = STRVEC_INIT;
	int own_env = o->scrub_env || o->extra_env;
	if (own_env)
		build_env(o->scrub_env, o->extra_env, &env);
	int fds[6];
	if (open_stdio(o, path, fds, err) < 0) {
		close_opened(fds);
		strvec_clear(&env);
		return -1;
	}
	struct sigaction sa, old[N_FORWARDED];
	sigset_t block, old_mask;
	if (o->forward_signals) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = forward;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		/* Handlers first, and the signals held until the child's pid is known, so
		 * that a signal between fork and wait is forwarded, not lost. */
		sigemptyset(&block);
		for (size_t i = 0; i < N_FORWARDED; i++) {
			sigaction(forwarded[i], &sa, &old[i]);
			sigaddset(&block, forwarded[i]);
		}
		sigprocmask(SIG_BLOCK, &block, &old_mask);
	}
	child_interrupted = 0;
	double start = now_s();
	pid_t pid = fork();
	if (pid == 0) {
		if (o->forward_signals) {
			for (size_t i = 0; i < N_FORWARDED; i++)
				sigaction(forwarded[i], &old[i], NULL);
			sigprocmask(SIG_SETMASK, &old_mask, NULL);
		}
		if (o->own_group) {
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL); /* egg killed: its child goes too */
		} else if (o->forward_signals) {
			/* this process killed outright (SIGKILL): the child is told to stop,
			 * and passes it on to what it runs */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
		}
		for (int i = 0; i < 3; i++)
			if (fds[i] >= 0 && dup2(fds[i], i) < 0)
				_exit(127);
		if (o->before_exec && o->before_exec(o->before_exec_arg) < 0) {
			dprintf(2, "cannot confine %s: %s\n", path, strerror(errno));
			_exit(127);
		}
		if (own_env)
			execve(path, argv, strvec_argv(&env));
		else
			execv(path, argv);
		if (o->own_group)
			dprintf(2, "cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	int rc = 0, status = 0;
	if (pid > 0 && o->own_group)
		setpgid(pid, pid); /* also here: no race with the child's own call */
	if (pid > 0)
		child_target = o->own_group ? -pid : pid;
	if (o->forward_signals)
		sigprocmask(SIG_SETMASK, &old_mask, NULL); /* what came meanwhile goes on now */
	if (pid < 0) {
		strbuf_addf(err, "cannot start %s: %s", path, strerror(errno));
		rc = -1;
	} else {
		close_opened(fds);
		fds[3] = fds[4] = fds[5] = -1;
		if (wait_child(pid, o, start, &status, st) < 0) {
			strbuf_addf(err, "lost track of %s: %s", path, strerror(errno));
			rc = -1;
		}
		child_target = 0;
		if (o->own_group)
			kill(-pid, SIGKILL); /* whatever it left running */
		st->wall_s = now_s() - start;
		if (rc == 0)
			decode(status, st);
		st->interrupted = o->forward_signals ? child_interrupted : 0;
	}
	if (o->forward_signals)
		for (size_t i = 0; i < N_FORWARDED; i++)
			sigaction(forwarded[i], &old[i], NULL);
	close_opened(fds);
	strvec_clear(&env);
	return rc;
}

void
child_describe(const struct child_status *st, struct strbuf *out)
{
	if (st->timed_out)
		strbuf_addf(out, "ran past its time limit and was killed after %.1f s", st->wall_s);
	else if (st->exited)
		strbuf_addf(out, "exited with status %d", st->code);
	else if (st->signaled)
		strbuf_addf(out, "was killed by signal %d (%s)", st->sig, strsignal(st->sig));
	else
		strbuf_addstr(out, "ended in an unknown way");
}

int
child_shell_status(const struct child_status *st)
{
	return st->signaled ? 128 + st->sig : st->code;
}

static int
remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

int
child_remove_tree(const char *dir)
{
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#define MAX_ON_DEATH 8
static char *on_death[MAX_ON_DEATH];

void
child_remove_on_death(const char *dir)
{
	for (size_t i = 0; i < MAX_ON_DEATH; i++)
		if (!on_death[i]) {
			on_death[i] = egg_xstrdup(dir);
			return;
		}
}

void
child_forget_on_death(const char *dir)
{
	for (size_t i = 0; i < MAX_ON_DEATH; i++)
		if (on_death[i] && strcmp(on_death[i], dir) == 0) {
			free(on_death[i]);
			on_death[i] = NULL;
		}
}

void
child_die_of(int sig)
{
	for (size_t i = 0; i < MAX_ON_DEATH; i++)
		if (on_death[i])
			child_remove_tree(on_death[i]);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* A signal whose default action does not end the process. */
	_exit(128 + sig);
}

void
child_exit_like(const struct child_status *st)
{
	if (st->signaled)
		child_die_of(st->sig);
	exit(st->code);
}
