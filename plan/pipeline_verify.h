/*
 * pipeline_verify.h -- the verify mode's re-check of a cached winner, and the
 * evaluation call it shares with the search (see pipeline_verify.c).
 */
#ifndef EGG_PIPELINE_VERIFY_H
#define EGG_PIPELINE_VERIFY_H

#include <stddef.h>

#include "cache/entry.h"
#include "plan/pipeline_search.h"
#include "harness/run.h"

/* Evaluates n candidates of req->bundle against its reference, on this GPU
 * (run_evaluate) or through req->eval_command (run_remote with an egg-job), with
 * req's nvcc, flags and timeout.  Returns the result (a cJSON object, never
 * NULL, the caller's to cJSON_Delete) and its status in *status. */
void *pipeline_evaluate(const struct pipeline_search_request *req, const struct run_candidate *cands,
                        size_t n, enum run_status *status);
/* The same, and with profile set the correct candidates are also profiled with
 * ncu (run_options.profile; the evaluating machine's ncu setting). */
void *pipeline_evaluate_with(const struct pipeline_search_request *req,
                             const struct run_candidate *cands, size_t n, int profile,
                             enum run_status *status);

enum pipeline_verdict {
	PIPELINE_VERIFIED,          /* correct and faster on this GPU: use it */
	PIPELINE_VERIFY_FAILED,     /* wrong, slower, or it failed to build or run */
	PIPELINE_VERIFY_NO_VERDICT, /* the evaluation itself did not happen */
};

struct pipeline_verification {
	enum pipeline_verdict verdict;
	double speedup;     /* measured now; 0 when none */
	char gpu[128];      /* where ("the GPU" when the result does not say) */
	char reason[512];   /* for FAILED and NO_VERDICT: the verdict and its message */
	char *result_json;  /* the verification's result (owned; NULL when none) */
};

/* Re-evaluates the winner of entry e (a positive entry for req->key) against the
 * reference of req->bundle.  Fills v; release it with pipeline_verification_release. */
void pipeline_verify(const struct pipeline_search_request *req, const struct cache_entry *e,
                     struct pipeline_verification *v);
void pipeline_verification_release(struct pipeline_verification *v);

/* The negative entry that takes the place of e after a failed verification: e's
 * name, key and generator, the verification's result marked "outcome": "verify
 * failed" with the reason, and e's transcript followed by a step recording the
 * verification (and the rejected source).  NULL (after a warning) if it cannot
 * be built.  Caller frees. */
struct cache_entry *pipeline_verify_failed_entry(const struct cache_entry *e,
                                                 const struct pipeline_verification *v);

#endif
