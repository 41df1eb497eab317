/*
 * child.c -- see child.h.
 */
#include "config.h"
#include "common/child.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

static void
forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_FORWARDED (sizeof forwarded / sizeof *forwarded)

int
child_run(const char *path, char *const argv[], int out_fd, int err_fd,
         struct child_status *st, struct strbuf *err)
{
	struct sigaction sa, old[N_FORWARDED];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	/* Handlers first, so that a signal between fork and wait is not lost. */
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded[i], &sa, &old[i]);

	pid_t pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot start %s: %s", path, strerror(errno));
		for (size_t i = 0; i < N_FORWARDED; i++)
			sigaction(forwarded[i], &old[i], NULL);
		return -1;
	}
	if (pid == 0) {
		for (size_t i = 0; i < N_FORWARDED; i++)
			sigaction(forwarded[i], &old[i], NULL);
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0)
			_exit(127);
		execv(path, argv);
		_exit(127);
	}
	child_pid = pid;
	int status;
	pid_t r;
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	child_pid = 0;
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded[i], &old[i], NULL);
	if (r < 0) {
		strbuf_addf(err, "waiting for %s: %s", path, strerror(errno));
		return -1;
	}
	memset(st, 0, sizeof *st);
	if (WIFSIGNALED(status)) {
		st->signaled = 1;
		st->sig = WTERMSIG(status);
	} else {
		st->exited = 1;
		st->code = WEXITSTATUS(status);
	}
	return 0;
}

int
child_shell_status(const struct child_status *st)
{
	return st->signaled ? 128 + st->sig : st->code;
}

void
child_exit_like(const struct child_status *st)
{
	if (st->signaled) {
		signal(st->sig, SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, st->sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(st->sig);
		/* A signal whose default action does not end the process. */
		_exit(128 + st->sig);
	}
	exit(st->code);
}
