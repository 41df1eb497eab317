/*
 * test_sigpipe.c -- the SIGPIPE guard (common/sigpipe.h) that both HTTP clients
 * wrap libcurl in: a write to a closed pipe inside it is an EPIPE error, not a
 * dead process, and no signal is left to strike after it ends.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/sigpipe.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A pipe whose reading end is closed: writing to it raises SIGPIPE. */
static int
broken_pipe(void)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	close(fd[0]);
	return fd[1];
}

/* Runs body in a child with SIGPIPE at its default action (death); returns the
 * child's wait status. */
static int
in_child(void (*body)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		body();
		_exit(0);
	}
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return ws;
}

static void
write_unguarded(void)
{
	int fd = broken_pipe();
	(void)!write(fd, "x", 1);
	_exit(3);
}

static void
write_guarded(void)
{
	int fd = broken_pipe();
	struct sigpipe_guard g;
	sigpipe_guard_begin(&g);
	ssize_t n = write(fd, "x", 1);
	int e = errno;
	sigpipe_guard_end(&g);
	/* the signal would be delivered here, at the latest, if it were still pending */
	sigset_t pending;
	sigpending(&pending);
	_exit(n == -1 && e == EPIPE && !sigismember(&pending, SIGPIPE) ? 0 : 4);
}

static void
write_guarded_with_sigpipe_already_blocked(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	sigprocmask(SIG_BLOCK, &s, NULL);
	int fd = broken_pipe();
	struct sigpipe_guard g;
	sigpipe_guard_begin(&g);
	(void)!write(fd, "x", 1);
	sigpipe_guard_end(&g);
	/* the caller blocked it: the guard must leave both the mask and the pending signal alone */
	sigset_t mask, pending;
	sigprocmask(SIG_BLOCK, NULL, &mask);
	sigpending(&pending);
	_exit(sigismember(&mask, SIGPIPE) && sigismember(&pending, SIGPIPE) ? 0 : 5);
}

static void
a_write_to_a_closed_pipe_kills_without_the_guard(void **state)
{
	(void)state;
	/* the premise of the other tests: this write does raise a deadly SIGPIPE */
	int ws = in_child(write_unguarded);
	assert_true(WIFSIGNALED(ws));
	assert_int_equal(WTERMSIG(ws), SIGPIPE);
}

static void
a_write_to_a_closed_pipe_inside_the_guard_is_epipe_and_no_late_signal(void **state)
{
	(void)state;
	int ws = in_child(write_guarded);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

static void
the_guard_leaves_a_mask_that_already_blocked_sigpipe_alone(void **state)
{
	(void)state;
	int ws = in_child(write_guarded_with_sigpipe_already_blocked);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_write_to_a_closed_pipe_kills_without_the_guard),
		cmocka_unit_test(a_write_to_a_closed_pipe_inside_the_guard_is_epipe_and_no_late_signal),
		cmocka_unit_test(the_guard_leaves_a_mask_that_already_blocked_sigpipe_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
