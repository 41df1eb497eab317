/*
 * report_show.h -- `egg report KEY`: one cache entry told for a reader (see
 * report_show.c).
 */
#ifndef EGG_ADMIN_REPORT_SHOW_H
#define EGG_ADMIN_REPORT_SHOW_H

#include <stddef.h>
#include <stdio.h>

#include "cache/entry.h"

struct report_show_options {
	int full;         /* prompts and responses in full */
	size_t max_lines; /* otherwise, at most this many lines of each */
};

/* The fields of a transcript step (a cJSON object) that a step's heading and
 * body do not show, as compact JSON, or NULL when there are none.  Caller frees. */
char *report_show_step_rest(const void *step);

/* Writes e's identity, transcript and evaluation result to out. */
void report_show_entry(const struct cache_entry *e, const struct report_show_options *o, FILE *out);

#endif
