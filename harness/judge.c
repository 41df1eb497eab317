/*
 * judge.c -- from a program's timings to a candidate's numbers and the best
 * candidate (see run.h for the result's keys).
 *
 * What a candidate is worth is the time a program calling each workload once
 * spends in it: the sum of its median times over the workloads.  Its speedup is
 * sum(reference medians) / sum(candidate medians), and the best passing candidate
 * is the one with the smallest sum.  A geometric mean of per-workload ratios would
 * let a point that wins 3x on a 10 us workload and loses 20% on a 10 ms one look
 * like a 1.6x winner (softmax did that); the ratios and their geometric mean stay
 * in the result for whoever wants to see the shape.
 *
 * Rates: achieved bandwidth (bytes the in/out buffers hold, inout twice, over the
 * median) against the measured copy ceiling, and, where the job gives a FLOP count
 * for the workload, the FLOP rate against the measured FMA ceiling.
 */
#include "config.h"
#include "harness/run_int.h"

#include <math.h>
#include <string.h>

static double
judge_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Adds gbs, copy_fraction, gflops and fma_fraction to one STATS object. */
static void
judge_rates(cJSON *stats, double bytes, double flops, const cJSON *ceilings)
{
	double ms = judge_num(stats, "median_ms");
	if (!(ms > 0))
		return;
	double copy = judge_num(ceilings, "copy_gbs"), fma = judge_num(ceilings, "fma_gflops");
	double gbs = bytes / (ms * 1e-3) / 1e9;
	cJSON_AddNumberToObject(stats, "gbs", gbs);
	if (copy > 0)
		cJSON_AddNumberToObject(stats, "copy_fraction", gbs / copy);
	if (flops > 0) {
		double gflops = flops / (ms * 1e-3) / 1e9;
		cJSON_AddNumberToObject(stats, "gflops", gflops);
		if (fma > 0)
			cJSON_AddNumberToObject(stats, "fma_fraction", gflops / fma);
	}
}

int
run_summarize(cJSON *run, const cJSON *ceilings, struct run_summary *s)
{
	memset(s, 0, sizeof *s);
	double log_sum = 0;
	int n = 0, missing = 0;
	s->workloads = cJSON_CreateArray();
	cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(run, "timings")) {
		double bytes = judge_num(t, "bytes"), flops = judge_num(t, "flops");
		cJSON *cand = cJSON_GetObjectItemCaseSensitive(t, "candidate");
		cJSON *ref = cJSON_GetObjectItemCaseSensitive(t, "reference");
		judge_rates(cand, bytes, flops, ceilings);
		judge_rates(ref, bytes, flops, ceilings);
		double cm = judge_num(cand, "median_ms"), rm = judge_num(ref, "median_ms");
		if (!(cm > 0) || !(rm > 0)) {
			missing++;
			continue;
		}
		s->candidate_ms += cm;
		s->reference_ms += rm;
		log_sum += log(rm / cm);
		n++;
		cJSON *w = cJSON_CreateObject();
		cJSON_AddNumberToObject(w, "workload", judge_num(t, "workload"));
		cJSON_AddNumberToObject(w, "speedup", rm / cm);
		cJSON_AddNumberToObject(w, "candidate_ms", cm);
		cJSON_AddNumberToObject(w, "reference_ms", rm);
		static const char *const keys[] = { "gbs", "copy_fraction", "gflops", "fma_fraction" };
		for (int k = 0; k < 4; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(cand, keys[k]);
			if (cJSON_IsNumber(v))
				cJSON_AddNumberToObject(w, keys[k], v->valuedouble);
		}
		if (flops > 0)
			cJSON_AddNumberToObject(w, "flops", flops);
		cJSON_AddItemToArray(s->workloads, w);
	}
	if (!n || missing) {
		/* A workload without a time cannot be summed away. */
		s->candidate_ms = s->reference_ms = 0;
		return -1;
	}
	s->speedup = s->reference_ms / s->candidate_ms;
	s->speedup_geomean = exp(log_sum / n);
	return 0;
}

/* Sets o[key] to item, whether or not o had the key. */
static void
judge_set(cJSON *o, const char *key, cJSON *item)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddItemToObject(o, key, item);
}

void
run_store_summary(cJSON *cand, struct run_summary *s)
{
	if (s->speedup > 0) {
		judge_set(cand, "speedup", cJSON_CreateNumber(s->speedup));
		judge_set(cand, "speedup_geomean", cJSON_CreateNumber(s->speedup_geomean));
		cJSON *tot = cJSON_CreateObject();
		cJSON_AddNumberToObject(tot, "candidate", s->candidate_ms);
		cJSON_AddNumberToObject(tot, "reference", s->reference_ms);
		judge_set(cand, "total_ms", tot);
	}
	judge_set(cand, "workloads", s->workloads);
	s->workloads = NULL;
}

void
run_pick_best(cJSON *result)
{
	double best_ms = 0;
	int k = 0, best = -1;
	const cJSON *cand;
	cJSON_ArrayForEach(cand, cJSON_GetObjectItemCaseSensitive(result, "candidates")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(cand, "verdict");
		double ms = judge_num(cJSON_GetObjectItemCaseSensitive(cand, "total_ms"), "candidate");
		if (cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0 && ms > 0 &&
		    (best < 0 || ms < best_ms)) {
			best = k;
			best_ms = ms;
		}
		k++;
	}
	judge_set(result, "best", best < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)best));
}
