/*
 * progress.h -- the lines a build shows while egg works (see progress.c): one
 * per candidate during an evaluation, and one summary per compile.
 *
 * Everything goes to stderr.  On a terminal the candidate line is rewritten in
 * place (\r); anywhere else (a log) each candidate's run is a whole line, and
 * the compile phase one line when it ends.
 */
#ifndef EGG_PROGRESS_H
#define EGG_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

struct progress {
	const char *name;    /* the kernel ("softmax_forward"), borrowed */
	FILE *out;           /* stderr */
	int tty;             /* out is a terminal: rewrite one line */
	int pending;         /* a rewritten line waits for its newline */
	double t0;           /* when the evaluation began (monotonic seconds) */
	double t_run;        /* when its run phase began; 0: not yet */
	size_t compiled;     /* candidates compiled, of */
	size_t to_compile;
};

/* Starts the lines of one evaluation of kernel name. */
void progress_begin(struct progress *p, const char *name);

/* One event (the shape of run_progress.fn, harness/run.h): phase "compile" or
 * "run", done of total, the best speedup so far (0: none; -1: not known yet). */
void progress_event(void *p, const char *phase, size_t done, size_t total, double best);

/* Ends the evaluation's lines (a rewritten line gets its newline). */
void progress_end(struct progress *p);

/* The estimate of what is left, in seconds, after done of total steps in
 * elapsed seconds (a compile and a run count as one step each; runs not yet
 * begun are estimated at the compiles' pace); -1 when nothing is done yet. */
double progress_estimate(const struct progress *p, const char *phase, size_t done, size_t total,
                         double now);

/* What one compile's kernels came to, for its summary line. */
struct progress_tally {
	size_t kernels, hits, searched, fallbacks, missed, candidates;
	double search_s;
};

/* The compile's one summary line on stderr, where it helps: when a search
 * reached a verdict (a compile of cache hits stays silent, as nvcc would, and a
 * fallback has its own warning):
 *     egg: 3 kernels: 2 hits, 1 searched (12 candidates, 41 s), 0 fallbacks */
void progress_summary(const struct progress_tally *t);

#endif
