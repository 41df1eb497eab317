/*
 * run_int.h -- what the files of the evaluation step (run.c, toolchain.c,
 * probe.c) share and nothing else sees: the context of one evaluation and the
 * helpers that compile and launch its programs.
 *
 * Ownership: the context owns its strings and cJSON trees; helpers that return
 * text or JSON hand it to the caller.
 */
#ifndef EGG_HARNESS_RUN_INT_H
#define EGG_HARNESS_RUN_INT_H

#include "harness/proc.h"
#include "harness/run.h"
#include "common/strvec.h"

#include <cjson/cJSON.h>
#include <sys/types.h>

#define RUN_COMPILE_TIMEOUT 600.0
#define RUN_LOG_MAX 16384
#define RUN_MAX_GPUS 16

struct run_ctx {
	const struct egg_bundle *b;
	const struct run_options *opt;
	char *nvcc, *dir, *arch, *cache;
	struct strvec flags;      /* the build's flags less arch and output options */
	unsigned long long seed;
	const char *gpu_key;      /* the first GPU's UUID, for the lock */
	struct run_gpu {
		char *visible;    /* its CUDA_VISIBLE_DEVICES name */
		char *uuid;       /* the key of its lock */
	} gpus[RUN_MAX_GPUS];     /* the GPUs of one architecture the programs may use */
	int n_gpus;
	cJSON *result, *ceilings;
	int have_f64;             /* the reference's float64 twin: PREPARED_F64_* */
	unsigned short tcp_port, tcp_ports; /* TCP ports a confined program may use
					       (compute-sanitizer's, while it runs; then
					       /proc is writable too: run_contain) */
	unsigned sandbox;         /* the sandbox layers candidates' programs run under (0: none) */
};

/* progress.c: reports to opt->progress (a no-op without one).  _wait waits for
 * the worker processes pids[0..workers) (pid <= 0: none), reporting how many of
 * the candidates ks[0..n) (all k < n when ks is NULL) have left candK.SUFFIX. */
double run_progress_best(const struct run_ctx *c);
void run_progress_note(const struct run_ctx *c, const char *phase, size_t done, size_t total);
void run_progress_wait(const struct run_ctx *c, const pid_t *pids, int workers, const char *phase,
                       const size_t *ks, size_t n, const char *suffix);

/* toolchain.c */
char *run_find_nvcc(const struct run_options *opt);
char *run_cache_dir(void);
void run_filter_flags(char *const *flags, size_t n, struct strvec *out);
char *run_read_tail(const char *path, size_t max);
int run_write(const char *path, const char *text, struct strbuf *err);
int run_nvcc(struct run_ctx *c, struct strvec *args, const char *log_path, char **log);
int run_compile(struct run_ctx *c, const char *stem, const char *arch_flag, int deps, char **log);
int run_compile_as(struct run_ctx *c, const char *stem, const char *arch_flag, int deps, int host,
                   char **log);
int run_link(struct run_ctx *c, const char *stem, int self, char **log);
void run_demangle(struct run_ctx *c, cJSON *resources);
int run_launch(struct run_ctx *c, const char *exe, struct strvec *args, const char *stem,
               const char *visible, double timeout_s, const char *const *contain,
               struct child_status *st, struct strbuf *err);
cJSON *run_collect(struct run_ctx *c, const char *stem, char **output);
cJSON *run_program(struct run_ctx *c, const char *exe, struct strvec *args, const char *stem,
                   const char *visible, double timeout_s, const char *const *contain,
                   struct child_status *st, char **output, struct strbuf *err);

/* ncu.c */
/* ncu's CSV (--csv --page raw) as an array of { "name", "metrics": {METRIC:
 * NUMBER} }, one per kernel profiled (at most 8); empty when there is none. */
cJSON *run_parse_ncu(const char *text);
/* The ELF ncu to run for a launcher script at path (ncu.c); owned. */
char *run_ncu_binary(const char *path, const char *cuda);
/* Profiles the built candidate STEM at its largest workload with ncu and adds
 * its "ncu" object (run.h) to cand. */
void run_profile(struct run_ctx *c, const char *stem, cJSON *cand);

/* judge.c */
struct run_summary {
	double candidate_ms, reference_ms; /* sums of the medians over the workloads */
	double speedup;                    /* reference_ms / candidate_ms */
	double speedup_geomean;            /* of the per-workload ratios */
	cJSON *workloads;                  /* per-workload numbers; owned until stored */
};
/* Adds rates to run's timings (gbs, copy_fraction; gflops, fma_fraction where a
 * timing has flops) and sums them up in s.  -1 when a workload has no time (s's
 * times are then 0).  s->workloads is created either way: pass it on with
 * run_store_summary or free it with cJSON_Delete. */
int run_summarize(cJSON *run, const cJSON *ceilings, struct run_summary *s);
/* Puts s's numbers into the candidate (speedup, speedup_geomean, total_ms,
 * workloads); takes s->workloads. */
void run_store_summary(cJSON *cand, struct run_summary *s);
/* Sets the result's "best": the passing candidate with the smallest total_ms. */
void run_pick_best(cJSON *result);

/* probe.c */
void run_set_status(struct run_ctx *c, const char *status, const char *message);
int run_probe(struct run_ctx *c);

#endif
