/*
 * measure.c -- see measure.h.
 *
 * The achieved bandwidth is the harness's own byte count of a workload (every
 * in and out buffer once, inout twice) over the candidate's median time; the
 * fraction of the measured copy ceiling tells the profile agent whether a
 * memory-bound kernel has room left, which is the first question of stage 2.
 */
#include "config.h"
#include "agents/measure.h"
#include "common/util.h"

#include <string.h>

/* How much of a compile log the debug agent sees. */
#define LOG_EXCERPT 3000

const char *
measure_str(const cJSON *o, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : def;
}

double
measure_num(const cJSON *o, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

void
measure_device(const cJSON *device, const cJSON *ceilings, struct strbuf *out)
{
	if (!cJSON_IsObject(device)) {
		strbuf_addstr(out, "not measured yet (the first evaluation measures it)");
		return;
	}
	strbuf_addstr(out, measure_str(device, "name", "an NVIDIA GPU"));
	const char *cc = measure_str(device, "cc", NULL);
	if (cc)
		strbuf_addf(out, ", compute capability %s", cc);
	double sms = measure_num(device, "sm_count", 0), mem = measure_num(device, "memory_bytes", 0);
	double l2 = measure_num(device, "l2_bytes", 0);
	if (sms > 0)
		strbuf_addf(out, ", %.0f SMs", sms);
	if (mem > 0)
		strbuf_addf(out, ", %.0f GB memory", mem / 1e9);
	if (l2 > 0)
		strbuf_addf(out, ", %.0f MB L2", l2 / 1048576.0);
	double smem = measure_num(device, "smem_per_block_optin", measure_num(device, "smem_per_block", 0));
	if (smem > 0)
		strbuf_addf(out, ", %.0f KB shared memory per block", smem / 1024);
	double copy = measure_num(ceilings, "copy_gbs", 0), fma = measure_num(ceilings, "fma_gflops", 0);
	if (copy > 0)
		strbuf_addf(out, "; measured ceilings: copy %.0f GB/s", copy);
	if (fma > 0)
		strbuf_addf(out, ", FP32 FMA %.0f GFLOP/s", fma);
}

static void
resources(const cJSON *cand, struct strbuf *out)
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(cand, "resources"), *r;
	int any = 0;
	cJSON_ArrayForEach(r, res) {
		const char *fn = measure_str(r, "name", measure_str(r, "function", "?"));
		if (strncmp(fn, "egg_entry", 9) == 0)
			continue; /* the harness's own */
		strbuf_addf(out, "%s  %s: %.0f registers, %.0f B shared memory, %.0f B stack, spills %.0f "
		            "stores / %.0f loads\n", any++ ? "" : "ptxas:\n", fn, measure_num(r, "registers", 0),
		            measure_num(r, "smem_bytes", 0), measure_num(r, "stack_bytes", 0),
		            measure_num(r, "spill_stores", 0), measure_num(r, "spill_loads", 0));
	}
}

double
measure_candidate(const cJSON *cand, const cJSON *ceilings, struct strbuf *out)
{
	double copy = measure_num(ceilings, "copy_gbs", 0), frac = 0;
	strbuf_addf(out, "candidate %s: %s", measure_str(cand, "name", "?"),
	            measure_str(cand, "verdict", "unknown"));
	double sp = measure_num(cand, "speedup", 0);
	if (sp > 0)
		strbuf_addf(out, ", %.2fx the reference (geometric mean over workloads)", sp);
	strbuf_addch(out, '\n');
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(cand, "run"), *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(run, "timings")) {
		double ms = measure_num(cJSON_GetObjectItemCaseSensitive(t, "candidate"), "median_ms", 0);
		double ref = measure_num(cJSON_GetObjectItemCaseSensitive(t, "reference"), "median_ms", 0);
		double bytes = measure_num(t, "bytes", 0);
		strbuf_addf(out, "workload %.0f: %.4g ms (reference %.4g ms)", measure_num(t, "workload", 0),
		            ms, ref);
		if (ms > 0 && bytes > 0) {
			double gbs = bytes / (ms * 1e-3) / 1e9;
			strbuf_addf(out, ", %.0f MB moved, %.0f GB/s", bytes / 1e6, gbs);
			if (copy > 0) {
				strbuf_addf(out, " = %.0f%% of the copy ceiling", 100 * gbs / copy);
				if (gbs / copy > frac)
					frac = gbs / copy;
			}
		}
		strbuf_addch(out, '\n');
	}
	resources(cand, out);
	return frac;
}

double
measure_floor_fraction(const cJSON *cand, const cJSON *ceilings)
{
	double copy = measure_num(ceilings, "copy_gbs", 0), fma = measure_num(ceilings, "fma_gflops", 0);
	double frac = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cand, "run"),
	                                                       "timings")) {
		double ms = measure_num(cJSON_GetObjectItemCaseSensitive(t, "candidate"), "median_ms", 0);
		if (ms <= 0)
			continue;
		double bytes = measure_num(t, "bytes", 0), flops = measure_num(t, "flops", 0);
		if (copy > 0 && bytes > 0 && bytes / (ms * 1e-3) / 1e9 / copy > frac)
			frac = bytes / (ms * 1e-3) / 1e9 / copy;
		if (fma > 0 && flops > 0 && flops / (ms * 1e-3) / 1e9 / fma > frac)
			frac = flops / (ms * 1e-3) / 1e9 / fma;
	}
	return frac;
}

static void
first_bad(const cJSON *cand, struct strbuf *out)
{
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(cand, "run"), *c, *b;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(run, "checks")) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "pass")))
			continue;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(c, "buffers")) {
			if (measure_num(b, "bad", 0) <= 0)
				continue;
			strbuf_addf(out, "output %s (workload %.0f): %.0f of %.0f elements wrong, %.0f unwritten, "
			            "%.0f not finite; first bad index %.0f", measure_str(b, "name", "?"),
			            measure_num(c, "workload", 0), measure_num(b, "bad", 0),
			            measure_num(b, "elements", 0), measure_num(b, "unwritten", 0),
			            measure_num(b, "nonfinite", 0), measure_num(b, "first_bad", -1));
			if (cJSON_HasObjectItem(b, "got"))
				strbuf_addf(out, " (got %.9g, want %.9g)", measure_num(b, "got", 0),
				            measure_num(b, "want", 0));
			strbuf_addf(out, "; max abs error %.3g, max rel error %.3g\n", measure_num(b, "max_abs", 0),
			            measure_num(b, "max_rel", 0));
			return;
		}
	}
}

/* The compile log's lines that say "error" (with the line after each), else its
 * head; at most LOG_EXCERPT characters. */
static void
log_excerpt(const char *log, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	int take_next = 0;
	for (const char *p = log; *p && sb.len < LOG_EXCERPT;) {
		size_t n = strcspn(p, "\n");
		int err = memmem(p, n, "error", 5) != NULL;
		if (err || take_next)
			strbuf_addf(&sb, "%.*s\n", (int)n, p);
		take_next = err;
		p += n + (p[n] == '\n');
	}
	if (!sb.len)
		strbuf_addf(&sb, "%.*s\n", LOG_EXCERPT, log);
	if (sb.len > LOG_EXCERPT)
		sb.buf[LOG_EXCERPT] = '\0', sb.len = LOG_EXCERPT;
	strbuf_addstr(out, sb.buf);
	strbuf_release(&sb);
}

void
measure_evidence(const cJSON *cand, struct strbuf *out)
{
	strbuf_addf(out, "verdict: %s\n", measure_str(cand, "verdict", "unknown"));
	const char *msg = measure_str(cand, "message", NULL);
	if (msg)
		strbuf_addf(out, "message: %s\n", msg);
	first_bad(cand, out);
	const char *log = measure_str(cand, "compile_log", NULL);
	if (log && *log && strcmp(measure_str(cand, "verdict", ""), "compile_error") == 0) {
		strbuf_addstr(out, "compiler output (excerpt):\n");
		log_excerpt(log, out);
	}
}

int
measure_needs_repair(const char *verdict)
{
	static const char *const v[] = { "compile_error", "wrong", "crash", "cuda_error", "timeout",
		                         "rejected", "unsafe", NULL };
	for (size_t i = 0; v[i]; i++)
		if (strcmp(v[i], verdict) == 0)
			return 1;
	return 0;
}

int
measure_is_correct(const char *verdict)
{
	return strcmp(verdict, "pass") == 0 || strcmp(verdict, "slower") == 0;
}

/* The metric of kernel k's "metrics", or -1. */
static double
ncu_metric(const cJSON *k, const char *name)
{
	return measure_num(cJSON_GetObjectItemCaseSensitive(k, "metrics"), name, -1);
}

static void
ncu_cell(struct strbuf *out, double v)
{
	if (v < 0)
		strbuf_addstr(out, " ? |");
	else
		strbuf_addf(out, " %.3g |", v);
}

/* The three largest stall reasons of k ("long_scoreboard 12.1, ..."). */
static void
ncu_stalls(const cJSON *k, struct strbuf *out)
{
	static const char pre[] = "smsp__average_warps_issue_stalled_", post[] = "_per_issue_active.ratio";
	const cJSON *m, *top[3] = { NULL, NULL, NULL };
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(k, "metrics")) {
		size_t n = strlen(m->string);
		if (!cJSON_IsNumber(m) || strncmp(m->string, pre, sizeof pre - 1) != 0 ||
		    n < sizeof pre + sizeof post || strcmp(m->string + n - (sizeof post - 1), post) != 0 ||
		    strcmp(m->string + sizeof pre - 1, "selected" "_per_issue_active.ratio") == 0)
			continue; /* "selected" is the issuing warp, not a stall */
		for (int i = 0; i < 3; i++)
			if (!top[i] || m->valuedouble > top[i]->valuedouble) {
				for (int j = 2; j > i; j--)
					top[j] = top[j - 1];
				top[i] = m;
				break;
			}
	}
	for (int i = 0; i < 3 && top[i]; i++) {
		size_t n = strlen(top[i]->string) - (sizeof pre - 1) - (sizeof post - 1);
		strbuf_addf(out, "%s%.*s %.3g", i ? ", " : " ", (int)n, top[i]->string + sizeof pre - 1,
		            top[i]->valuedouble);
	}
	strbuf_addstr(out, top[0] ? " |" : " ? |");
}

int
measure_ncu(const cJSON *ncu, struct strbuf *out)
{
	const char *status = measure_str(ncu, "status", NULL);
	const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(ncu, "kernels"), *k;
	if (!status || strcmp(status, "ok") != 0 || cJSON_GetArraySize(kernels) == 0) {
		strbuf_addf(out, "no ncu metrics (%s)", measure_str(ncu, "message", status ? status :
		            "the evaluator did not profile the candidate"));
		return 0;
	}
	strbuf_addf(out, "Nsight Compute, one call at workload %.0f:\n", measure_num(ncu, "workload", 0));
	strbuf_addstr(out, "| kernel | time (us) | DRAM throughput (% of peak) | SM throughput (% of peak) "
	              "| achieved occupancy (%) | L2 hit rate (%) | top warp stalls (cycles per issued "
	              "instruction) |\n|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(k, kernels) {
		strbuf_addf(out, "| %s |", measure_str(k, "name", "?"));
		double ns = ncu_metric(k, "gpu__time_duration.sum");
		ncu_cell(out, ns < 0 ? -1 : ns / 1e3);
		ncu_cell(out, ncu_metric(k, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
		ncu_cell(out, ncu_metric(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed"));
		ncu_cell(out, ncu_metric(k, "sm__warps_active.avg.pct_of_peak_sustained_active"));
		ncu_cell(out, ncu_metric(k, "lts__t_sector_hit_rate.pct"));
		ncu_stalls(k, out);
		strbuf_addch(out, '\n');
	}
	return 1;
}
