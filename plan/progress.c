/*
 * progress.c -- see progress.h.
 *
 * A candidate line reads
 *     egg: softmax_forward: run 3/12, best 2.50x, 8.2 s elapsed, ~11 s left
 * (the phase, how far it is, the best correct speedup so far, the time since
 * the evaluation began and the estimate of what is left).  The estimate assumes
 * the steps still to come take as long as those done: while compiling, each
 * compile so far and each run to come at the compiles' pace; while running,
 * the runs' own pace.  It is a guess, and says so with "~".  With several
 * GPUs the programs are judged once all have run, so the best is not shown
 * until then.
 */
#include "config.h"
#include "plan/progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void
progress_begin(struct progress *p, const char *name)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	p->out = stderr;
	p->tty = isatty(fileno(stderr));
	p->t0 = now_s();
}

double
progress_estimate(const struct progress *p, const char *phase, size_t done, size_t total,
                  double now)
{
	if (done == 0)
		return -1;
	if (strcmp(phase, "compile") == 0) {
		double each = (now - p->t0) / (double)done;
		return each * (double)(total - done + total);
	}
	double t_run = p->t_run > 0 ? p->t_run : p->t0;
	return (now - t_run) / (double)done * (double)(total - done);
}

void
progress_event(void *ctx, const char *phase, size_t done, size_t total, double best)
{
	struct progress *p = ctx;
	double now = now_s();
	int run = strcmp(phase, "run") == 0;
	if (!run) {
		p->compiled = done;
		p->to_compile = total;
		if (done == total)
			p->t_run = now; /* the runs begin */
	}
	/* in a log: the compiles in one line when they end, each run in one */
	if (done == 0 || (!p->tty && !run && done < total))
		return;
	char best_text[32] = "";
	if (run && best >= 0)
		snprintf(best_text, sizeof best_text, best > 0 ? ", best %.2fx" : ", no winner yet", best);
	double left = progress_estimate(p, phase, done, total, now);
	char left_text[32] = "";
	if (left >= 0)
		snprintf(left_text, sizeof left_text, left < 10 ? ", ~%.1f s left" : ", ~%.0f s left", left);
	fprintf(p->out, "%segg: %s: %s %zu/%zu%s, %.1f s elapsed%s%s", p->tty ? "\r" : "", p->name,
	        run ? "run" : "compile", done, total, best_text, now - p->t0, left_text,
	        p->tty ? "\033[K" : "\n");
	p->pending = p->tty;
	fflush(p->out);
}

void
progress_end(struct progress *p)
{
	if (p->pending)
		fputc('\n', p->out);
	p->pending = 0;
	fflush(p->out);
}

void
progress_summary(const struct progress_tally *t)
{
	if (!t->searched)
		return;
	char missed_text[48] = "";
	if (t->missed)
		snprintf(missed_text, sizeof missed_text, ", %zu not searched", t->missed);
	fprintf(stderr, "egg: %zu kernel%s: %zu hit%s, %zu searched (%zu candidates, %.0f s)%s, %zu fallback%s\n",
	        t->kernels, t->kernels == 1 ? "" : "s", t->hits, t->hits == 1 ? "" : "s", t->searched,
	        t->candidates, t->search_s, missed_text, t->fallbacks, t->fallbacks == 1 ? "" : "s");
	fflush(stderr);
}
