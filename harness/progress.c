/*
 * progress.c -- what an evaluation tells its caller while it runs
 * (run_options.progress, run.h): each candidate compiled, each program run, and
 * the best speedup among the candidates judged so far.
 *
 * Candidates compile in worker processes and, with several GPUs, run in
 * worker processes too; each leaves a file behind when it is done (candK.build,
 * candK.status).  While a progress function is set, the parent waits for its
 * workers by looking every 100 ms at how many of those files exist, instead of
 * blocking in waitpid, so that the count moves as they finish.  Without one it
 * waits as before.  This file only counts and reports: which candidate ran
 * where and the verdicts stay run.c's and judge.c's.
 */
#include "config.h"
#include "harness/run_int.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

double
run_progress_best(const struct run_ctx *c)
{
	double best = 0;
	const cJSON *cand;
	cJSON_ArrayForEach(cand, cJSON_GetObjectItemCaseSensitive(c->result, "candidates")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(cand, "verdict");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(cand, "speedup");
		if (cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0 && cJSON_IsNumber(sp) &&
		    sp->valuedouble > best)
			best = sp->valuedouble;
	}
	return best;
}

void
run_progress_note(const struct run_ctx *c, const char *phase, size_t done, size_t total)
{
	const struct run_progress *p = &c->opt->progress;
	if (p->fn)
		p->fn(p->ctx, phase, done, total, run_progress_best(c));
}

/* As run_progress_note, the best unknown yet: programs that ran in workers are
 * judged once they all have. */
static void
note_unjudged(const struct run_ctx *c, const char *phase, size_t done, size_t total)
{
	const struct run_progress *p = &c->opt->progress;
	p->fn(p->ctx, phase, done, total, -1);
}

/* How many of the candidates ks[0..n) (all k < n when ks is NULL) have left
 * candK.SUFFIX in the work directory. */
static size_t
count_done(const struct run_ctx *c, const size_t *ks, size_t n, const char *suffix)
{
	size_t done = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = egg_xasprintf("%s/cand%zu.%s", c->dir, ks ? ks[i] : i, suffix);
		struct stat st;
		done += stat(path, &st) == 0;
		free(path);
	}
	return done;
}

void
run_progress_wait(const struct run_ctx *c, const pid_t *pids, int workers, const char *phase,
                  const size_t *ks, size_t n, const char *suffix)
{
	if (!c->opt->progress.fn) {
		for (int w = 0; w < workers; w++)
			while (pids[w] > 0 && waitpid(pids[w], NULL, 0) < 0 && errno == EINTR)
				;
		return;
	}
	int *alive = egg_xcalloc((size_t)workers, sizeof *alive);
	int n_alive = 0;
	for (int w = 0; w < workers; w++)
		n_alive += alive[w] = pids[w] > 0;
	size_t last = (size_t)-1;
	for (;;) {
		for (int w = 0; w < workers; w++) {
			if (!alive[w])
				continue;
			pid_t r = waitpid(pids[w], NULL, WNOHANG);
			if (r == pids[w] || (r < 0 && errno != EINTR)) {
				alive[w] = 0;
				n_alive--;
			}
		}
		size_t done = count_done(c, ks, n, suffix);
		if (done != last && done > 0)
			note_unjudged(c, phase, done, n);
		last = done;
		if (n_alive == 0)
			break;
		usleep(100 * 1000);
	}
	free(alive);
}
