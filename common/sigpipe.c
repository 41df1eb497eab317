/*
 * sigpipe.c -- see sigpipe.h.
 */
#include "config.h"
#include "common/sigpipe.h"

#include <pthread.h>
#include <time.h>

static void
pipe_set(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGPIPE);
}

void
sigpipe_guard_begin(struct sigpipe_guard *g)
{
	sigset_t s;
	pipe_set(&s);
	pthread_sigmask(SIG_BLOCK, &s, &g->old);
}

void
sigpipe_guard_end(struct sigpipe_guard *g)
{
	if (sigismember(&g->old, SIGPIPE))
		return; /* blocked before the guard: whatever is pending is the caller's */
	sigset_t s, pending;
	pipe_set(&s);
	struct timespec zero = { 0, 0 };
	if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
		sigtimedwait(&s, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}
