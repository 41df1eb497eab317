/*
 * run.h -- evaluates candidates against a bundle's reference on the GPU and
 * returns the result.
 *
 * For each candidate: screen (harness/screen.h), generate (harness/gen.h),
 * compile with the build's nvcc and flags for the GPU's architecture (with
 * -Xptxas -v: registers, shared memory, spills per kernel), link with the
 * reference, main and the runtime, run in its own process group with a time limit and no
 * secrets in its environment, under the per-GPU lock, and read the program's
 * JSON.  One program per candidate, so a candidate that crashes, hangs or
 * poisons its CUDA context loses only itself.  With no candidate, the reference
 * is evaluated against itself (a self-check: is it deterministic, how fast).
 *
 * The result (JSON, schema "egg-result", version 1):
 *   { "schema": "egg-result", "version": 1,
 *     "status": "ok" | "no_gpu" | "error",     ok: every candidate has a verdict
 *     "message": sentence | null,
 *     "target": NAME, "arch": "sm_90" | null, "nvcc": PATH, "flags": [...],
 *     "seed": N, "device": {name, uuid, cc, sm_count, memory_bytes, l2_bytes, ...} | null,
 *     "ceilings": {copy_gbs, fma_gflops, ...} | null,
 *     "reference": { "compile_log": TEXT, "resources": [RES...],
 *                    "float64": how its float64 twin fared,
 *                    "objects": "compiled" | "reused" (ref.o, ref64.o, main.o),
 *                    "main": "host" | "cuda" (how main.cu compiled, when it did),
 *                    "runtime": "compiled" | "reused" (runtime.o) } | null,
 *     "candidates": [ { "name": NAME,
 *         "verdict": "pass" | "slower" | "wrong" | "rejected" | "compile_error" |
 *                    "cuda_error" | "crash" | "timeout" | "error" | "compiled" |
 *                    "unsafe",
 *         "message": sentence | null, "compile_log": TEXT | null,
 *         "resources": [ { "function" (mangled), "name" (demangled, when a
 *                          demangler is there), "registers", "smem_bytes",
 *                          "stack_bytes", "spill_stores", "spill_loads" } ],
 *         "speedup": total reference time / total candidate time | null, where a
 *                    total is the sum of the medians over the workloads (the time
 *                    a program calling each workload once spends),
 *         "speedup_geomean": geometric mean of the per-workload ratios | null,
 *         "total_ms": { "candidate": MS, "reference": MS } | null,
 *         "workloads": [ { "workload": W, "speedup", "candidate_ms", "reference_ms",
 *                          "gbs", "copy_fraction", "flops"?, "gflops"?,
 *                          "fma_fraction"? } ]   (the candidate's rates; gbs and
 *                    gflops over its median, fractions of the device's measured
 *                    copy_gbs and fma_gflops; FLOP numbers only where the job
 *                    gives a count),
 *         "run": the program's own JSON (checks, timings; each timing's
 *                candidate and reference STATS also carry gbs, copy_fraction,
 *                gflops, fma_fraction as above) | null,
 *         "wall_s": seconds,
 *         "sanitizer": { "memcheck": STATE, "racecheck": STATE, "log": TEXT } (only
 *                      with sanitize; STATE: "clean", "errors", "unavailable"),
 *         "ncu": { "status": "ok" | "failed" | "unavailable", "message"?: sentence,
 *                  "workload": W (the one moving the most bytes),
 *                  "kernels"?: [ { "name", "metrics": { NCU_METRIC: NUMBER } } ],
 *                  "log"?: the tail of ncu's output when it failed }
 *                (only with profile, on correct candidates: Nsight Compute's
 *                measurements of one call of the candidate at workload W) } ],
 *     "best": index of the passing candidate with the smallest total_ms | null,
 *     "sandbox": the containment candidates' programs ran under ("Landlock (writes
 *                and exec), Landlock (TCP), seccomp (...)", "nothing", "off (...)")
 *                | null when nothing ran }
 * "pass" means correct on every check and at least min_speedup faster over the
 * workloads' total time ("speedup"); "slower" correct but not that fast; in a
 * self-check a correct reference is "pass".  "compiled" is the verdict of
 * compile-only runs; "unsafe" that of a passing candidate in which
 * compute-sanitizer (memcheck on exact allocations, racecheck) found errors.
 */
#ifndef EGG_HARNESS_RUN_H
#define EGG_HARNESS_RUN_H

#include <stddef.h>

#include "common/bundle.h"
#include "common/strbuf.h"

struct run_candidate {
	const char *name;   /* for messages and the result: a file name, "stage2-3" */
	const char *source; /* the replacement definition and its helpers */
};

/* Told as an evaluation moves on, in the evaluating process: phase "compile"
 * (candidates compiled, done of total) or "run" (programs run and judged), and
 * the best speedup among the passing candidates judged so far (0: none yet; -1:
 * not known yet, the programs that ran are judged once all have, on several GPUs). */
struct run_progress {
	void (*fn)(void *ctx, const char *phase, size_t done, size_t total, double best);
	void *ctx;
};

struct run_options {
	const char *nvcc;          /* NULL: $EGG_NVCC, the configured CUDA, then PATH */
	char *const *flags;        /* the build's nvcc flags (arch flags are replaced) */
	size_t n_flags;
	const char *arch;          /* "sm_90": skip the probe and compile for it (compile_only) */
	const char *workdir;       /* where the sources and programs go; NULL: a fresh temp dir */
	int keep;                  /* keep a fresh workdir (its path goes to stderr) */
	int compile_only;          /* generate and compile, run nothing */
	double timeout_s;          /* per program run; 0: 120 s */
	int trials;                /* checks per workload before timing; 0: 3 */
	int no_timing;
	unsigned long long seed;   /* 0: random */
	double min_speedup;        /* 0: 1.03 */
	int sanitize;              /* also run passing candidates under compute-sanitizer */
	int profile;               /* also profile correct candidates with ncu (their "ncu") */
	const char *ncu;           /* the ncu to use: NULL or "": beside nvcc, then PATH;
	                              "none": no profiling */
	int no_sandbox;            /* run candidates' programs unconfined (harness/sandbox.h) */
	const char *gpu;           /* the configuration's gpu key: CUDA_VISIBLE_DEVICES names,
	                              "none" for no GPU; NULL: CUDA_VISIBLE_DEVICES, else all */
	const char *const *flops;  /* FLOPs of one call: C expressions over the scalar */
	size_t n_flops;            /* parameters, 1 for every workload or 1 per workload; */
	                           /* 0: unknown (no FLOP rates in the result) */
	struct run_progress progress; /* {NULL}: nothing is told */
};

/* The result's verdict names. */
enum run_status { RUN_OK = 0, RUN_ERROR = 1, RUN_NO_GPU = 3 };

/* Evaluates n candidates (n == 0: the self-check).  Never fails: problems are in
 * the returned result, which is a cJSON object (declared void * so callers need
 * not include cJSON.h) owned by the caller (cJSON_Delete).  *status gets the
 * result's status as an enum run_status. */
void *run_evaluate(const struct egg_bundle *b, const struct run_candidate *cands, size_t n,
                   const struct run_options *opt, enum run_status *status);

/* An empty result for target (status "ok", no candidates); the caller owns it. */
void *run_new_result(const char *target);

/* Remote evaluation: runs command through /bin/sh -c (e.g. "ssh gpu1 egg eval -")
 * with job_json on its stdin, without the user's secrets in its environment, and
 * reads the result it prints on stdout.  Whatever goes wrong (the command fails,
 * hangs past timeout_s, prints no or a malformed result) comes back as a result
 * with status "error" and a sentence; never NULL, owned by the caller. */
void *run_remote(const char *command, const char *job_json, const char *target,
                 double timeout_s, enum run_status *status);

/* The evaluation job a remote evaluator reads (admin/cmd_eval.c's "egg-job":
 * the bundle, the candidates, the build's flags and the options that differ from
 * their defaults).  Caller frees. */
char *run_job_to_json(const struct egg_bundle *b, const struct run_candidate *cands, size_t n,
                      char *const *flags, size_t n_flags, const struct run_options *opt);

/* The ncu that profiles (run_options.profile): opt->ncu's path ("none": none),
 * else ncu beside the nvcc opt leads to, else on PATH; NULL when there is none.
 * Caller frees. */
char *run_find_ncu(const struct run_options *opt);

/* Parses `ptxas -v` output into a cJSON array of resource objects (see above). */
void *run_parse_ptxas(const char *log);

/* Checks a result object read back from JSON: the schema, the version and the
 * keys every reader relies on.  Returns 0, or -1 with a sentence in err. */
int run_check_result(const void *json, struct strbuf *err);

#endif
