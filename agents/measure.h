/*
 * measure.h -- the numbers the agents read, as text: the device profile, a
 * candidate's measurements (time, achieved bandwidth against the copy ceiling,
 * ptxas registers, spills and shared memory) for the profile agent, and the
 * evidence of a failure for the debug agent (internal to agents/).
 *
 * Inputs are parts of an egg-result (harness/run.h) as cJSON objects; any of
 * them may be missing or malformed (a remote evaluator's result), which gives
 * shorter text, never a crash.
 */
#ifndef EGG_AGENTS_MEASURE_H
#define EGG_AGENTS_MEASURE_H

#include <cjson/cJSON.h>

#include "common/strbuf.h"

/* "NVIDIA H200, cc 9.0, 132 SMs, 141 GB, L2 60 MB; measured copy 3900 GB/s, FMA
 * 60000 GFLOP/s", or "not measured yet". */
void measure_device(const cJSON *device, const cJSON *ceilings, struct strbuf *out);

/* The measurements of one candidate (a result's candidates[] item).  Returns
 * the achieved fraction of the copy bandwidth (0 when unknown). */
double measure_candidate(const cJSON *cand, const cJSON *ceilings, struct strbuf *out);

/* The candidate's fraction of the roofline floor: over its workloads, the
 * highest of (achieved GB/s over the copy ceiling) and (achieved GFLOP/s over
 * the FMA ceiling, where the job counts FLOPs).  0 when unknown. */
double measure_floor_fraction(const cJSON *cand, const cJSON *ceilings);

/* Nsight Compute's metrics of a candidate (its result's "ncu", harness/run.h)
 * as a short table, one row per kernel: time, DRAM and SM throughput, achieved
 * occupancy, L2 hit rate, the top three warp stall reasons.  Returns 1; or 0
 * with "no ncu metrics (WHY)" when there are none. */
int measure_ncu(const cJSON *ncu, struct strbuf *out);

/* What went wrong with a candidate: verdict, message, the first failing
 * buffer's first bad index and error size, a compile log excerpt. */
void measure_evidence(const cJSON *cand, struct strbuf *out);

/* 1 for the verdicts the debug agent repairs. */
int measure_needs_repair(const char *verdict);
/* 1 for "pass" and "slower" (correct). */
int measure_is_correct(const char *verdict);

/* cJSON helpers: a string member or def; a number member or def. */
const char *measure_str(const cJSON *o, const char *key, const char *def);
double measure_num(const cJSON *o, const char *key, double def);

#endif
