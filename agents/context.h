/*
 * context.h -- what the agents remember: a stage's history of attempts, and
 * the prompt built from a template under a size limit (internal to agents/).
 *
 * A history line is "name: verdict, 2.10x -- why" (the why cut to one line).
 * When a prompt is too long the oldest attempts are folded into one summary
 * line ("4 earlier attempts: 2 compile_error, 1 wrong, 1 pass; best 1.80x
 * (s1.2)"), one more at a time; if it is still too long, the longest inputs are
 * cut in their middle, with a note of how much was left out.
 *
 * Ownership: a history owns its strings; returned strings are the caller's.
 */
#ifndef EGG_AGENTS_CONTEXT_H
#define EGG_AGENTS_CONTEXT_H

#include <stddef.h>

struct attempt {
	char *name;
	char *verdict;
	double speedup; /* 0: none */
	char *why;
};

struct history {
	struct attempt *v;
	size_t n;
};

void history_add(struct history *h, const char *name, const char *verdict, double speedup,
                 const char *why);
void history_release(struct history *h);
/* The first `folded` attempts summarized in one line, the others one line each;
 * "(none yet)" for an empty history. */
char *history_render(const struct history *h, size_t folded);

#define PROMPT_MAX_VARS 24

struct prompt_vars {
	const char *names[PROMPT_MAX_VARS];
	const char *values[PROMPT_MAX_VARS];
	size_t n;
};

/* Sets (or replaces) a variable; value is borrowed. */
void prompt_vars_set(struct prompt_vars *v, const char *name, const char *value);

/* tmpl rendered with v and {{history}} from h (NULL: none), fitted under
 * budget characters as described above (it may stay longer only when the
 * template itself is). */
char *context_fit(const char *tmpl, const struct prompt_vars *v, const struct history *h,
                  size_t budget);

/* text cut to about max characters, its middle replaced by a note. */
char *context_cut(const char *text, size_t max);

/* The first line of text, at most max characters (an ellipsis when cut). */
char *context_one_line(const char *text, size_t max);

#endif
