/*
 * sigpipe.h -- a guard that keeps SIGPIPE from killing the process while a
 * library writes to a socket whose peer may hang up.
 *
 * Why: libcurl with CURLOPT_NOSIGNAL (which threads and timeouts need) no longer
 * ignores SIGPIPE itself, and a write to a server that closed the connection
 * (a TLS write, or a platform without MSG_NOSIGNAL) would otherwise end the
 * user's build with a signal instead of a warning.  Both HTTP clients in egg,
 * the model backends (agents/llm.c) and the remote cache (cache/remote.c), wrap
 * curl_easy_perform in it.  It is libc only, so it lives in libeggcommon.
 *
 * Use:
 *     struct sigpipe_guard g;
 *     sigpipe_guard_begin(&g);
 *     ... calls that may write to a closed socket (they see EPIPE) ...
 *     sigpipe_guard_end(&g);
 * Between the two, SIGPIPE is blocked in the calling thread (pthread_sigmask:
 * other threads keep their own mask).  The end takes a SIGPIPE raised meanwhile
 * off the pending set before it restores the mask, so none is delivered late.
 * If SIGPIPE was already blocked at the beginning, the guard changes nothing.
 */
#ifndef EGG_SIGPIPE_H
#define EGG_SIGPIPE_H

#include <signal.h>

struct sigpipe_guard {
	sigset_t old;    /* the thread's mask before the guard */
};

void sigpipe_guard_begin(struct sigpipe_guard *g);
void sigpipe_guard_end(struct sigpipe_guard *g);

#endif
