/*
 * pipeline_search.h -- a cache miss in search mode (see pipeline_search.c).
 */
#ifndef EGG_PIPELINE_SEARCH_H
#define EGG_PIPELINE_SEARCH_H

#include <stddef.h>

#include "cache/entry.h"
#include "cache/key.h"
#include "common/bundle.h"
#include "common/egg_config.h"

struct pipeline_search_request {
	const struct egg_bundle *bundle;
	const char *key;                        /* the cache key the entry will carry */
	const struct cache_generator *generator;
	const char *nvcc;
	char *const *flags;                     /* the build's code-generation flags */
	size_t n_flags;
	double timeout_s;                       /* per candidate program; 0: the harness's default */
	const char *eval_command;               /* evaluate through this command (eval_command); NULL: here */
	const struct egg_config *cfg;           /* the model backends' settings and budgets */
	const char *gpu;                        /* the gpu setting; NULL: every visible GPU */
	/* regenerate (pipeline_regenerate.h): the cached winner of another generator,
	 * evaluated as the last candidate of the builtin's batch so that its time and
	 * the new candidates' come from one evaluation; NULL: none */
	const char *incumbent;
	const char *incumbent_name;             /* its candidate name */
};

struct pipeline_outcome {
	int won;          /* a candidate beat the reference */
	double speedup;   /* its speedup (total reference time / its total time over the workloads) */
	char gpu[128];    /* the GPU it was verified on */
	char name[128];   /* the winning candidate's name ("" when none) */
	size_t candidates; /* how many were evaluated */
	/* With req->incumbent, when it was evaluated: */
	int incumbent_evaluated;
	int incumbent_best;       /* it was the fastest correct candidate (won is then 1 too) */
	double incumbent_speedup; /* its speedup in this evaluation, whatever the verdict; 0: none */
	char incumbent_verdict[64]; /* the harness's verdict on it ("pass", "slower", "wrong", ...) */
};

/* Generates and evaluates candidates for req->bundle.  Returns the entry to store
 * (a winner, or negative: nothing beat the reference / not lifted), or NULL when
 * no verdict could be reached (no GPU, an unavailable backend, a harness
 * failure), after one warning.  Progress lines go to stderr.  Caller frees. */
struct cache_entry *pipeline_search(const struct pipeline_search_request *req,
                                    struct pipeline_outcome *out);

/* Fills out's incumbent_* fields from candidate index of an egg-result (a cJSON
 * object): what the evaluation said of the cached winner. */
void pipeline_note_incumbent(const void *result, size_t index, struct pipeline_outcome *out);

#endif
