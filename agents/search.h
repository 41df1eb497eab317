/*
 * search.h -- EGG's staged agent search over a model backend.
 *
 * Stage 0 (the builtin): the builtin generator's candidates are evaluated first
 * (they cost no model call); the fastest correct one is the baseline: stage 1's
 * prompts show it as the structure to beat, stage 2 tunes it when no model
 * structure is faster, and the winner is the fastest correct candidate of either
 * origin (the transcript says which).  When it already reaches
 * opt->stop_fraction of the roofline floor, the search makes no model call.
 *
 * Stage 1 (algorithmic structure): several seeds, each asked by the code agent
 * for a different structure, the directions taken from the expert principles
 * of the kernel's family; every candidate is evaluated and the best correct
 * structures go on.  Stage 2 (hardware tuning), for each of them: the
 * sub-stages parallel mapping, tiling and memory in order, each starting from
 * the best so far: the profile agent reads the measurements (the harness's
 * times and rates, ptxas' registers and spills, and Nsight Compute's metrics of
 * the current best at its largest workload, profiled once per candidate where
 * the evaluator can: ev.profile) and answers
 * {bottleneck, modification_plan}, the code agent writes the next candidate.
 * The debug agent repairs compile errors, wrong results, crashes, CUDA errors
 * and timeouts (and answers egg cannot use) from the evidence, a bounded number
 * of rounds.  A candidate may declare tunable parameters (agents/tune.h); its
 * variants are evaluated in one call without asking the model again.
 *
 * Context: every model call is one system message and one user message built
 * from the role's template; between stages only decisions and their numbers
 * travel, within a stage a compact history of attempts, older attempts
 * summarized so that a prompt stays under opt->prompt_chars.
 *
 * Budgets (model calls, tokens, wall time, candidates evaluated): when one runs
 * out the search stops, keeps the best so far, and the transcript says which.
 * The model-call and token budgets stop further requests; an answer already
 * received is still evaluated.
 *
 * Transcript: a JSON array of steps
 *   { "stage": "0/builtin" | "1/structure" | "2/mapping" | "2/tiling" | "2/memory" | "debug" | "tune",
 *     "role": "code" | "profile" | "debug" | "search",
 *     "kind": "prompt" | "response" | "evaluation" | "decision" | "note",
 *     "text": TEXT,
 *     "candidate"?: NAME, "verdict"?: V, "speedup"?: X, "tokens"?: { "in": N, "out": N },
 *     "usage"?: { "model_calls", "tokens_in", "tokens_out", "candidates", "wall_s" } }
 * (usage: on the note that closes the search, what it spent)
 * The chat function never sees the key and the transcript never holds one.
 *
 * Ownership: struct agents_result owns its strings; agents_result_release.
 */
#ifndef EGG_AGENTS_SEARCH_H
#define EGG_AGENTS_SEARCH_H

#include <stddef.h>

#include "agents/llm.h"
#include "common/bundle.h"
#include "common/strbuf.h"
#include "harness/run.h"

/* Evaluates candidates against the reference: returns an egg-result (cJSON
 * object, caller owns; harness/run.h) and its status, as run_evaluate and
 * run_remote do. */
struct agents_evaluator {
	void *(*evaluate)(void *ctx, const struct run_candidate *cands, size_t n,
	                  enum run_status *status);
	void *ctx;
	/* Evaluates one correct candidate again with its Nsight Compute profile
	 * (run_options.profile: the result's candidate carries "ncu"); NULL when
	 * the evaluator cannot profile.  May itself return NULL: no profile. */
	void *(*profile)(void *ctx, const struct run_candidate *cand, enum run_status *status);
};

struct agents_budget {
	long max_model_calls;   /* 0: no limit */
	long max_tokens;        /* input + output, as reported (or estimated at 4 chars a token) */
	double max_seconds;     /* wall time of the whole search */
	long max_candidates;    /* candidates evaluated, tunable variants included */
};

struct agents_options {
	const char *prompts_dir;
	int seeds;              /* stage 1 seeds; 0: 3 */
	int keep;               /* structures that go on to stage 2; 0: 2 */
	int repair_rounds;      /* debug rounds per failed candidate; < 0: 2 */
	int max_variants;       /* tunable variants per candidate; 0: 8 */
	size_t prompt_chars;    /* a prompt's size limit; 0: 60000 */
	struct agents_budget budget;
	int quiet;              /* no progress lines on stderr */
	const void *device;     /* the profile: an egg-result's "device" and "ceilings" */
	const void *ceilings;   /* (cJSON objects, may be NULL: taken from the first result) */
	const void *reference;  /* the reference's measurements: a self-check's candidate
	                           object (cJSON), or NULL */
	double stop_fraction;   /* no model call when the builtin's best reaches this
	                           fraction of the roofline floor; 0: always ask */
	int no_builtin;         /* leave the builtin's candidates out (tests) */
};

struct agents_result {
	int verdict;          /* 1: the search reached a verdict (winner or not); 0: it
	                         could not (backend or harness failure before any verdict) */
	char *source;         /* the winner (correct and faster), or NULL */
	char *name;           /* its candidate name */
	double speedup;
	char *result_json;    /* an egg-result of every candidate evaluated, "best" the winner */
	char *transcript;     /* the JSON array above */
	char *stopped_by;     /* the budget that stopped the search ("max_model_calls", ...), or NULL */
	char *failure;        /* why there is no verdict (one sentence), or NULL */
	int failure_warned;   /* the failure was already warned about in this build (the
	                         model backend's outage): the caller says nothing more */
	char gpu[128];        /* the device's name from the results */
	long model_calls, tokens_in, tokens_out, candidates;
};

/* Runs the search for b with chat and ev.  Returns 0 and fills *out (even when
 * no verdict was reached: see out->verdict and out->failure); -1 with a sentence
 * in err when it could not start (the prompts cannot be read). */
int agents_search(const struct egg_bundle *b, struct llm_chat_fn chat, struct agents_evaluator ev,
                  const struct agents_options *opt, struct agents_result *out, struct strbuf *err);
void agents_result_release(struct agents_result *r);

/* The search as a build runs it: the backend (llm_settings_from_config), the
 * prompts (prompts_dir), the budgets (max_model_calls, max_tokens,
 * max_search_time, max_candidates) and the prompt size (max_prompt_chars)
 * from cfg.  The reference is evaluated alone first (ev with no candidate: the
 * harness's self-check), which gives the agents the device profile and the
 * reference's own numbers, and ends the search before any model call when
 * there is no GPU or the harness fails (no verdict).  The search's budget
 * (max_search_time) is also the model client's deadline, so that no request or
 * retry outlasts it.  A backend that stops answering (a full timeout, no
 * connection) is recorded as an outage in the cache directory (common/outage.h):
 * one warning, and the build's later kernels, for skip_after_timeout, keep what
 * the builtin found without asking it (failure_warned: no warning of theirs).
 * Returns as agents_search; -1
 * also when the backend cannot be set up (no model, an unreadable key file, a
 * bad base URL), with the sentence in err. */
int agents_search_configured(const struct egg_config *cfg, const struct egg_bundle *b,
                             struct agents_evaluator ev, struct agents_result *out,
                             struct strbuf *err);

/* The kernel family egg guesses for b (the builtin lifter's families, else
 * hints in the code): "elementwise", "rows", "reduce", "transpose", "gather",
 * "stencil", "gemm" or "generic".  Static string. */
const char *agents_family(const struct egg_bundle *b);

#endif
