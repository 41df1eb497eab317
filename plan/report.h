/*
 * report.h -- the per-kernel report: one JSON record for each annotated kernel
 * a build handled, appended to the file named by `report` (--egg-report=FILE,
 * EGG_REPORT, `report = FILE` in egg.conf), and the same records made from cache
 * entries for `egg report --cache`.
 *
 * A record (one line of JSON, schema "egg-report", version 1):
 *   { "schema": "egg-report", "version": 1,
 *     "time": "2026-11-30T05:47:13Z",        UTC, when the kernel was handled
 *     "source": "kernels.cu" | null,          the source file as the build named it
 *     "kernel": "softmax_forward" | null,    null: egg could not plan the source at
 *                                         all (cache, nvcc or analyzer failed)
 *     "key": "<64 hex>" | null,               the cache key (null: none computed)
 *     "arch": "sm_90" | null,                 the architecture of that key
 *     "mode": "search" | "cache" | "verify" | null,
 *     "outcome": OUTCOME, "reason": sentence | null,
 *     "speedup": number | null,               the winner's (geometric mean over workloads)
 *     "workloads": [ { "workload": 0, "reference_ms": 2.1, "winner_ms": 0.18,
 *                      "speedup": 11.7 } ],   medians, when the result has timings
 *     "gpu": "NVIDIA H200" | null,            where the result was measured
 *     "generator": { "backend", "model", "recipe" },
 *     "wall_s": number | null,                seconds egg spent on this kernel
 *     "location": { "file": "kernels.cu", "line": 26 } | null,   the pragma's
 *     "clauses": "in(x[rows * cols]) ..." | null,     the clause text as written
 *     "search": { "model_calls", "tokens_in", "tokens_out", "wall_s" | null } | null }
 *                                         what the search behind the entry spent
 *                                         (its transcript's usage; the builtin's
 *                                         calls no model: 0; wall_s this kernel's
 *                                         when this build searched and the
 *                                         transcript does not say); null: no entry
 * and each workload carries "values": "rows = 16384, cols = 4096" (its clause's
 * bindings) where the build knew them.  location, clauses and values come from a
 * build's analysis: records made from the cache have none (a reader takes a
 * missing member as null: records of an older egg lack them).
 * OUTCOME, from a build: searched-winner, searched-none (nothing beat the
 * reference), not-lifted, cache-hit, cache-hit-negative, cache-miss (no search
 * in this mode or without a GPU), verified, verify-failed, fallback (egg's own
 * failure; reason says which).  From a cache entry: winner, negative,
 * not-lifted, verify-failed.
 * No secret goes in: the generator is named by backend, model and recipe only.
 *
 * Ownership: records are cJSON objects (void * here, so callers need not include
 * cJSON.h) owned by the caller (cJSON_Delete); strings passed in are copied.
 */
#ifndef EGG_DRIVER_REPORT_H
#define EGG_DRIVER_REPORT_H

#include <time.h>

#include "cache/entry.h"
#include "common/bundle.h"
#include "common/strbuf.h"

#define REPORT_SCHEMA "egg-report"
#define REPORT_VERSION 1

struct report_kernel {
	const char *source;       /* NULL: unknown */
	const char *kernel;
	const char *key;          /* NULL: none */
	const char *arch;         /* NULL: none */
	const char *mode;         /* NULL: not from a build */
	const char *outcome;
	const char *reason;       /* NULL: none */
	const char *result_json;  /* the evaluation result (egg-result) or NULL */
	const char *transcript_json; /* the entry's transcript, or NULL: no entry */
	const char *backend, *model, *recipe;
	time_t when;
	double wall_s;            /* < 0: unknown */
	const struct egg_bundle *bundle; /* location, clauses, workload values; NULL: unknown */
};

/* The record for k (see above): speedup, workload times and GPU come from
 * k->result_json's winning candidate ("best"), or its only candidate for a
 * verification.  Never NULL. */
void *report_record_new(const struct report_kernel *k);

void report_record_free(void *record);

/* The record of a cache entry (source and mode null, time when), outcome
 * winner / negative / not-lifted / verify-failed. */
void *report_record_from_entry(const struct cache_entry *e, time_t when);

/* Appends record as one line to path: O_APPEND, one write(2) of the whole line,
 * under flock(2), so that concurrent builds (make -j) never interleave.  0, or
 * -1 with a sentence in err. */
int report_append(const char *path, const void *record, struct strbuf *err);

/* The outcome of a cache entry, as report_record_from_entry names it (static). */
const char *report_entry_outcome(const struct cache_entry *e);

/* Why a negative entry is negative (its result's "reason"), or NULL for a
 * winner and for a result that does not say.  Caller frees. */
char *report_entry_reason(const struct cache_entry *e);

/* 1 for the outcomes that link a winner (searched-winner, cache-hit, verified,
 * winner). */
int report_outcome_is_winner(const char *outcome);

#endif
