/*
 * pipeline.c -- see pipeline.h.
 *
 * Per annotated input: the analyzer gives bundles (diagnostics go to stderr as
 * they are); each bundle is looked up in the cache under the key of every GPU
 * architecture the build generates code for, first hit wins; on a miss in search
 * mode the search (pipeline_search.c) runs when a GPU is present.  The input is
 * rewritten once, with every kernel that has a positive entry, into the
 * temporary directory under its own basename.  In verify mode a positive hit is
 * first evaluated again on this GPU (pipeline_verify.c).  Each kernel's outcome
 * is noted as it is handled and, when `report` is set, appended to the report
 * (report.h) once its input has been planned.
 */
#include "config.h"
#include "plan/pipeline.h"
#include "analyzer/analyzer.h"
#include "cache/cache.h"
#include "cache/rewritten.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/util.h"
#include "agents/prompts.h"
#include "builtin/builtin.h"
#include "plan/pipeline_regenerate.h"
#include "plan/pipeline_search.h"
#include "driver/plan_protocol.h"
#include "plan/pipeline_verify.h"
#include "plan/progress.h"
#include "plan/report.h"
#include "plan/rewrite.h"
#include "driver/scan.h"
#include "harness/screen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *
pipeline_nvcc_release(const char *nvcc)
{
	char *cmd = egg_xasprintf("'%s' --version 2>/dev/null", nvcc);
	if (strchr(nvcc, '\'')) {
		free(cmd);
		return NULL;
	}
	FILE *f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return NULL;
	char line[512], *release = NULL;
	while (fgets(line, sizeof line, f)) {
		char *r = strstr(line, "release ");
		if (r && !release) {
			r += 8;
			size_t n = strspn(r, "0123456789.");
			if (n)
				release = egg_xstrndup(r, n);
		}
	}
	pclose(f);
	return release;
}

static void
push_unique(struct strvec *out, char *arch)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i], arch) == 0) {
			free(arch);
			return;
		}
	strvec_push_owned(out, arch);
}

/* Every "sm_XY" / "compute_XY" (also "sm_90a") in text, as "sm_XY...". */
static void
scan_archs(const char *text, struct strvec *out)
{
	for (const char *p = text; *p; p++) {
		const char *digits = NULL;
		if (egg_str_starts(p, "sm_"))
			digits = p + 3;
		else if (egg_str_starts(p, "compute_"))
			digits = p + 8;
		if (!digits || (p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z'))))
			continue;
		size_t n = strspn(digits, "0123456789");
		if (n < 2)
			continue;
		while (digits[n] == 'a' || digits[n] == 'f')
			n++;
		push_unique(out, egg_xasprintf("sm_%.*s", (int)n, digits));
	}
}

void
pipeline_target_archs(const struct args *a, struct strvec *out)
{
	struct strvec flags = STRVEC_INIT;
	args_codegen_flags(a, &flags);
	size_t before = out->n;
	for (size_t i = 0; i < flags.n; i++)
		if (egg_str_starts(flags.v[i], "-arch=") || egg_str_starts(flags.v[i], "-code=") ||
		    egg_str_starts(flags.v[i], "-gencode="))
			scan_archs(strchr(flags.v[i], '=') + 1, out);
	strvec_clear(&flags);
	if (out->n == before)
		strvec_push(out, "sm_75"); /* nvcc 13's default target */
}

/* The model backends (openai, anthropic) are identified by their model and
 * the identity of the prompts their agents read (agents/prompts.h: a version
 * and a hash of the files), so edited or user-supplied prompts never share a
 * key with the installed ones. */
struct cache_generator
pipeline_generator(const struct egg_config *cfg)
{
	struct cache_generator g = { "builtin", NULL, BUILTIN_VERSION };
	const char *backend = egg_config_get(cfg, "backend");
	if (backend && strcmp(backend, "builtin") != 0) {
		g.backend = backend;
		g.model = egg_config_get(cfg, "model");
		g.recipe = prompts_identity_of(prompts_dir_from_config(cfg));
	}
	return g;
}

/* The compute capability of the GPU this build runs on ("sm_90"), or NULL when
 * there is none (nvidia-smi missing or seeing no device).  The first visible
 * device decides; the gpu setting (sel) or CUDA_VISIBLE_DEVICES select it as CUDA does. */
static char *
gpu_arch(const char *sel)
{
	char *cmd = egg_xasprintf("nvidia-smi --query-gpu=compute_cap --format=csv,noheader%s%s 2>/dev/null",
	                          sel && *sel ? " -i " : "", sel && *sel && !strpbrk(sel, "'\"$`;&|") ? sel : "");
	FILE *f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return NULL;
	char line[64] = "";
	char *ok = fgets(line, sizeof line, f);
	pclose(f);
	int major, minor;
	if (!ok || sscanf(line, "%d.%d", &major, &minor) != 2)
		return NULL;
	return egg_xasprintf("sm_%d%d", major, minor);
}

void
pipeline_key_inputs(const struct args *a, const struct egg_config *cfg,
                    const struct egg_bundle *b, const char *nvcc_release, const char *arch,
                    struct strvec *flags, struct cache_key_inputs *in)
{
	args_codegen_flags(a, flags);
	memset(in, 0, sizeof *in);
	in->bundle = b;
	in->arch = arch;
	in->nvcc_version = nvcc_release;
	in->flags = (const char *const *)flags->v;
	in->n_flags = flags->n;
}

/* The number in "sm_90a" (90), for the dispatcher. */
static int
arch_number(const char *arch)
{
	return atoi(arch + 3);
}

struct kernel_plan {
	const struct egg_bundle *bundle;
	const char *const *clang_args; /* the build's preprocessor flags, for the screen */
	char *winner; /* owned; NULL: keep the reference */
	int arch;
	/* What happened, for the report (report.h). */
	const char *outcome;     /* static */
	char *reason;            /* owned or NULL */
	char key[CACHE_KEY_HEX_LEN + 1];
	const char *arch_name;   /* the key's architecture, borrowed from the arch list */
	char *result_json;       /* owned or NULL: the evaluation result behind the outcome */
	char *transcript_json;   /* owned or NULL: the entry's transcript (the search's cost) */
	double wall_s;
	double lookup_s, search_s; /* for the log */
	size_t candidates;         /* evaluated by its search */
};

/* Notes the kernel's outcome (replacing an earlier note); reason may be NULL. */
static void
note(struct kernel_plan *k, const char *outcome, const char *reason)
{
	k->outcome = outcome;
	free(k->reason);
	k->reason = reason ? egg_xstrdup(reason) : NULL;
}

static void
note_result(struct kernel_plan *k, const struct cache_entry *e)
{
	struct strbuf sb = STRBUF_INIT;
	free(k->result_json);
	cache_entry_result_json(e, 0, &sb);
	k->result_json = strbuf_detach(&sb);
	free(k->transcript_json);
	cache_entry_transcript_json(e, 0, &sb);
	k->transcript_json = strbuf_detach(&sb);
}

/* A hit: links a winner, notes the outcome (hit_outcome for a winner). */
static void
take_winner(struct kernel_plan *k, const struct cache_entry *e, const char *arch,
            const char *hit_outcome)
{
	note_result(k, e);
	struct strbuf why = STRBUF_INIT;
	if (!cache_entry_is_negative(e) && cache_entry_source(e) &&
	    screen_winner_unit(k->bundle, cache_entry_source(e), k->clang_args, &why) != 0) {
		/* whoever can write a cache can write anything into it: the entry is
		 * screened as a candidate is before it runs */
		egg_warn("egg: %s: the cached winner is refused by the screen (%s); compiling the reference",
		         k->bundle->name, why.buf);
		egg_log("%s: the cached winner is refused by the screen: %s", k->bundle->name, why.buf);
		note(k, "fallback", why.buf);
		strbuf_release(&why);
		return;
	}
	strbuf_release(&why);
	if (!cache_entry_is_negative(e) && cache_entry_source(e)) {
		k->winner = egg_xstrdup(cache_entry_source(e));
		k->arch = arch_number(arch);
		note(k, hit_outcome, NULL);
	} else {
		char *reason = report_entry_reason(e);
		note(k, "cache-hit-negative", reason);
		free(reason);
	}
}

/* What every kernel of one plan shares. */
struct plan_ctx {
	const struct pipeline_request *req;
	struct cache *cache;
	const char *nvcc_release;
	struct strvec archs;     /* the architectures to look up, in order */
	int may_search;          /* search mode with a GPU or eval_command */
	int may_verify;          /* verify mode with a GPU or eval_command */
	int regenerate;          /* regenerate = faster (and may_search) */
	const char *miss_reason; /* why a miss does not search (NULL: the mode says it) */
	const char *hit_reason;  /* why a hit was not verified in verify mode */
	int report_failed;       /* the report could not be written (warned once) */
	int report_pending;      /* records wait in the temporary directory for egg-cc */
	struct strbuf *key_text; /* debug: the key texts of the input being planned, or NULL */
	struct progress_tally tally; /* for the summary line */
	char *cache_dir;         /* the local cache, where rewritten sources are kept */
};

/* The request to search or verify k under key: the build's nvcc and flags, the
 * configured generator, timeout and evaluator. */
static void
evaluation_request(const struct plan_ctx *c, const struct kernel_plan *k, const char *key,
                   const struct strvec *flags, const struct cache_generator *gen,
                   struct pipeline_search_request *sr)
{
	const char *eval_command = egg_config_get(c->req->cfg, "eval_command");
	*sr = (struct pipeline_search_request){
		.bundle = k->bundle,
		.key = key,
		.generator = gen,
		.nvcc = c->req->nvcc,
		.flags = flags->v,
		.n_flags = flags->n,
		.timeout_s = (double)egg_config_seconds(c->req->cfg, "timeout"),
		.eval_command = eval_command && *eval_command ? eval_command : NULL,
		.cfg = c->req->cfg,
		.gpu = egg_config_get(c->req->cfg, "gpu"),
	};
}

/* A miss with a GPU in search mode: one process searches (single flight), the
 * others wait for its entry or give up and keep the reference. */
static void
search_kernel(const struct plan_ctx *c, const char *key, const char *arch,
              const struct strvec *flags, struct kernel_plan *k, int again)
{
	struct cache_entry *e = NULL;
	struct cache_lock *lock = NULL;
	switch (again ? cache_claim_again(c->cache, key, &lock) : cache_claim(c->cache, key, &e, &lock)) {
	case CACHE_CLAIM_HIT:
		take_winner(k, e, arch, "cache-hit");
		cache_entry_free(e);
		return;
	case CACHE_CLAIM_REFERENCE:
		egg_warn("egg: %s: another build is still searching this kernel; compiling the reference",
		         k->bundle->name);
		note(k, "fallback", "another build is still searching this kernel");
		return;
	case CACHE_CLAIM_SEARCH:
		break;
	}
	struct cache_generator gen = pipeline_generator(c->req->cfg);
	struct pipeline_search_request sr;
	evaluation_request(c, k, key, flags, &gen, &sr);
	struct pipeline_outcome out;
	double t0 = egg_log_now();
	egg_log("%s: searching (key %.16s, %s, backend %s)", k->bundle->name, key, arch, gen.backend);
	e = pipeline_search(&sr, &out);
	k->search_s += egg_log_now() - t0;
	k->candidates += out.candidates;
	if (e) {
		int stored = cache_put(c->cache, e) == 0;
		take_winner(k, e, arch, "searched-winner");
		if (out.won) {
			fprintf(stderr, "egg: %s: %.1fx over reference (%s, verified on %s)%s\n", k->bundle->name,
			        out.speedup, gen.backend, out.gpu, stored ? ", cached" : "");
		} else {
			fprintf(stderr, "egg: %s: nothing beat the reference%s\n", k->bundle->name,
			        stored ? " (remembered in the cache)" : "");
			k->outcome = strcmp(report_entry_outcome(e), "not-lifted") == 0 ? "not-lifted"
			                                                               : "searched-none";
		}
		cache_entry_free(e);
	} else {
		note(k, "fallback", "the search reached no verdict");
	}
	cache_release(lock);
}

/* Verify mode, a positive hit e: the winner is linked only if it passes again
 * on this GPU; a failed one is replaced locally by a negative entry
 * (pipeline_verify.c says why). */
static void
verify_hit(const struct plan_ctx *c, const char *key, const char *arch, const struct strvec *flags,
           const struct cache_entry *e, struct kernel_plan *k)
{
	struct cache_generator gen = pipeline_generator(c->req->cfg);
	struct pipeline_search_request sr;
	evaluation_request(c, k, key, flags, &gen, &sr);
	struct pipeline_verification v;
	pipeline_verify(&sr, e, &v);
	const char *name = k->bundle->name;
	if (v.verdict == PIPELINE_VERIFIED) {
		take_winner(k, e, arch, "verified");
		free(k->result_json);
		k->result_json = egg_xstrdup(v.result_json);
		fprintf(stderr, "egg: %s: verified %.1fx on %s\n", name, v.speedup, v.gpu);
	} else if (v.verdict == PIPELINE_VERIFY_FAILED) {
		struct cache_entry *neg = pipeline_verify_failed_entry(e, &v);
		struct strbuf err = STRBUF_INIT;
		int marked = neg && cache_store_put(cache_local(c->cache), neg, &err) == 0;
		egg_warn("egg: %s: the cached winner failed verification on %s (%s); compiling the "
		         "reference%s", name, v.gpu, v.reason,
		         marked ? ", and the local cache now says so" : "");
		note(k, "verify-failed", v.reason);
		k->result_json = egg_xstrdup(v.result_json);
		cache_entry_free(neg);
		strbuf_release(&err);
	} else {
		egg_warn("egg: %s: the cached winner could not be verified (%s); compiling the reference",
		         name, v.reason);
		char *why = egg_xasprintf("not verified: %s", v.reason);
		note(k, "fallback", why);
		free(why);
	}
	pipeline_verification_release(&v);
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 1 when the entry was written by the generator this build is configured with
 * (backend, model and recipe version), or that generator searched its key
 * again and found nothing faster (regenerate = faster): nothing to search. */
static int
settled(const struct plan_ctx *c, const struct cache_entry *e)
{
	struct cache_generator g = pipeline_generator(c->req->cfg);
	return cache_entry_is_from(e, &g) || cache_entry_was_checked_by(e, &g);
}

/* regenerate = faster, a positive hit old of another generator: this build's
 * generator searches again, old among the candidates (pipeline_regenerate.c);
 * links whichever is faster.  Two builds that decide so at once search one
 * after the other; the second finds the first's verdict under the lock. */
static void
regenerate_kernel(const struct plan_ctx *c, const char *key, const char *arch,
                  const struct strvec *flags, const struct cache_entry *old, struct kernel_plan *k)
{
	struct cache_lock *lock = NULL;
	struct cache_entry *now = NULL;
	struct strbuf err = STRBUF_INIT;
	const char *name = k->bundle->name;
	if (cache_claim_again(c->cache, key, &lock) != CACHE_CLAIM_SEARCH ||
	    (cache_store_read(cache_local(c->cache), key, &now, &err) == 1 && settled(c, now))) {
		/* another build holds the key, or has just settled it */
		take_winner(k, now ? now : old, arch, "cache-hit");
		cache_entry_free(now);
		cache_release(lock);
		strbuf_release(&err);
		return;
	}
	strbuf_reset(&err);
	cache_entry_free(now);
	struct cache_generator gen = pipeline_generator(c->req->cfg);
	struct pipeline_search_request sr;
	evaluation_request(c, k, key, flags, &gen, &sr);
	struct pipeline_regeneration r;
	double t0 = egg_log_now();
	egg_log("%s: a winner of another generator (%s recipe %s): searching again (regenerate = faster)",
	        name, cache_entry_generator_field(old, "backend"), cache_entry_generator_field(old, "recipe"));
	pipeline_regenerate(&sr, old, &r);
	k->search_s += egg_log_now() - t0;
	k->candidates += r.out.candidates;
	switch (r.verdict) {
	case PIPELINE_REGEN_REPLACED: {
		int stored = cache_put(c->cache, r.entry) == 0;
		take_winner(k, r.entry, arch, "searched-winner");
		fprintf(stderr, "egg: %s: %.1fx over reference (%s, verified on %s), faster than the cached "
		        "winner of %s (%.1fx in the same evaluation)%s\n", name, r.out.speedup, gen.backend,
		        r.out.gpu, r.old_generator, r.out.incumbent_speedup, stored ? ", cached" : "");
		break;
	}
	case PIPELINE_REGEN_KEPT:
		cache_put(c->cache, r.entry);
		take_winner(k, r.entry, arch, "cache-hit");
		fprintf(stderr, "egg: %s: the cached winner of %s stays (%s); marked as checked\n", name,
		        r.old_generator, r.out.incumbent_evaluated ? "nothing new was faster" : "nothing new beat the reference");
		break;
	case PIPELINE_REGEN_OLD_FAILED: {
		int marked = cache_store_put(cache_local(c->cache), r.entry, &err) == 0;
		take_winner(k, r.entry, arch, "searched-none");
		egg_warn("egg: %s: the cached winner of %s failed on %s (%s) and nothing beat the reference; "
		         "compiling the reference%s", name, r.old_generator, r.out.gpu, r.out.incumbent_verdict,
		         marked ? ", and the local cache now says so" : "");
		k->outcome = "verify-failed";
		break;
	}
	case PIPELINE_REGEN_NO_VERDICT:
		take_winner(k, old, arch, "cache-hit");
		break;
	}
	strbuf_release(&err);
	pipeline_regeneration_release(&r);
	cache_release(lock);
}

/* The kernel's line in the log: its key, what became of it and why, and the time
 * its lookups and search took. */
static void
log_kernel(const struct plan_ctx *c, const struct kernel_plan *k)
{
	if (!egg_log_enabled())
		return;
	const char *why = k->reason;
	if (strcmp(k->outcome, "cache-miss") == 0)
		why = "no entry"; /* why it did not search: the next line */
	char search[48] = "";
	if (k->search_s > 0)
		snprintf(search, sizeof search, ", search %.3f s", k->search_s);
	egg_log("%s: key %s (%s): %s%s%s%s; lookup %.3f s%s, total %.3f s", k->bundle->name,
	        k->key[0] ? k->key : "-", k->arch_name ? k->arch_name : "-", k->outcome,
	        why ? " (" : "", why ? why : "", why ? ")" : "", k->lookup_s, search, k->wall_s);
	if (strcmp(k->outcome, "cache-miss") == 0)
		egg_log("%s: not searched: %s", k->bundle->name,
		        c->miss_reason ? c->miss_reason : "the mode does not search");
}

/* Looks one bundle up under each target architecture; fills k on a positive hit
 * (verified first in verify mode); searches on a miss when the mode and a GPU
 * allow it, and again where an entry of another generator may be bettered; notes the outcome. */
static void
plan_kernel(struct plan_ctx *c, struct kernel_plan *k)
{
	double t0 = now_s();
	struct strvec flags = STRVEC_INIT;
	struct cache_key_inputs in;
	pipeline_key_inputs(c->req->args, c->req->cfg, k->bundle, c->nvcc_release, NULL, &flags, &in);
	for (size_t i = 0; i < c->archs.n && !k->outcome; i++) {
		char key[CACHE_KEY_HEX_LEN + 1];
		in.arch = c->archs.v[i];
		cache_key_compute(&in, key);
		if (c->key_text) {
			strbuf_addf(c->key_text, "# key text of %s\n", k->bundle->name);
			cache_key_text(&in, c->key_text);
			strbuf_addf(c->key_text, "# key: %s\n", key);
		}
		struct cache_entry *e = NULL;
		double t_lookup = egg_log_now();
		int hit = cache_lookup(c->cache, key, &e) == 1;
		k->lookup_s += egg_log_now() - t_lookup;
		if (i == 0 || hit || c->may_search) {
			memcpy(k->key, key, sizeof key);
			k->arch_name = c->archs.v[i];
		}
		if (hit && c->may_search && cache_entry_is_negative(e) && !settled(c, e)) {
			/* nothing beat the reference as another generator searched: this one
			 * may do better (a winner of another generator is used as it is) */
			egg_log("%s: a negative entry of an older generator (%s recipe %s): searching again",
			        k->bundle->name, cache_entry_generator_field(e, "backend"),
			        cache_entry_generator_field(e, "recipe"));
			search_kernel(c, key, c->archs.v[i], &flags, k, 1);
		}
		else if (hit && c->regenerate && !settled(c, e))
			regenerate_kernel(c, key, c->archs.v[i], &flags, e, k);
		else if (hit && c->may_verify && !cache_entry_is_negative(e))
			verify_hit(c, key, c->archs.v[i], &flags, e, k);
		else if (hit) { /* a negative entry is an answer too */
			take_winner(k, e, c->archs.v[i], "cache-hit");
			if (k->winner && c->hit_reason)
				note(k, "cache-hit", c->hit_reason);
		}
		else if (c->may_search) /* archs is then only this GPU's */
			search_kernel(c, key, c->archs.v[i], &flags, k, 0);
		cache_entry_free(e);
	}
	if (!k->outcome)
		note(k, "cache-miss", c->miss_reason);
	strvec_clear(&flags);
	k->wall_s = now_s() - t0;
	log_kernel(c, k);
}

/* Appends each kernel's record to path; with fallback_why, a kernel that would
 * link a winner is recorded as a fallback for that reason instead.  A report
 * that cannot be written is one warning per plan, never a failed build. */
static void
append_records(struct plan_ctx *c, const char *path, const char *source,
               const struct kernel_plan *kp, size_t n, const char *fallback_why)
{
	struct cache_generator gen = pipeline_generator(c->req->cfg);
	for (size_t i = 0; i < n && !c->report_failed; i++) {
		int falls_back = fallback_why && kp[i].outcome && report_outcome_is_winner(kp[i].outcome);
		struct report_kernel r = {
			.source = source, .kernel = kp[i].bundle ? kp[i].bundle->name : NULL,
			.key = kp[i].key[0] ? kp[i].key : NULL, .arch = kp[i].arch_name,
			.mode = egg_mode_name(egg_config_mode(c->req->cfg)),
			.outcome = falls_back ? "fallback" : kp[i].outcome,
			.reason = falls_back ? fallback_why : kp[i].reason, .result_json = kp[i].result_json,
			.transcript_json = kp[i].transcript_json,
			.backend = gen.backend, .model = gen.model, .recipe = gen.recipe,
			.when = time(NULL), .wall_s = kp[i].wall_s, .bundle = kp[i].bundle,
		};
		void *rec = report_record_new(&r);
		struct strbuf err = STRBUF_INIT;
		if (report_append(path, rec, &err) < 0) {
			egg_warn("egg: %s; the build goes on without it", err.buf);
			c->report_failed = 1;
		}
		strbuf_release(&err);
		report_record_free(rec);
	}
}

/* Reports the kernels of one input, when a report is configured: straight to
 * the report, or, when the input is rewritten, to the files in the temporary
 * directory that egg-cc picks from once the rewritten unit compiled or not
 * (compile_annotated.h). */
static void
report_kernels(struct plan_ctx *c, const char *source, const struct kernel_plan *kp, size_t n,
               int rewritten)
{
	const char *path = egg_config_get(c->req->cfg, "report");
	if (!path || !*path || c->report_failed)
		return;
	if (!rewritten) {
		append_records(c, path, source, kp, n, NULL);
		return;
	}
	static const struct {
		const char *file, *why;
	} pending[] = {
		{ PLAN_REPORT_USED, NULL },
		{ PLAN_REPORT_FALLBACK_COMPILE, PLAN_REPORT_FALLBACK_COMPILE_WHY },
		{ PLAN_REPORT_FALLBACK_INTERFACE, PLAN_REPORT_FALLBACK_INTERFACE_WHY },
		{ PLAN_REPORT_FALLBACK_OPTIONS, PLAN_REPORT_FALLBACK_OPTIONS_WHY },
	};
	for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++) {
		char *file = fs_join(c->req->tmpdir, pending[i].file);
		append_records(c, file, source, kp, n, pending[i].why);
		free(file);
	}
	c->report_pending = 1;
}

/* The record of an annotated source that egg could not plan at all (the cache,
 * nvcc or the analyzer failed): no kernel is known, the source and why are. */
static void
report_source_failure(struct plan_ctx *c, const char *path, const char *why)
{
	struct kernel_plan k = { 0 };
	note(&k, "fallback", why);
	k.wall_s = -1;
	report_kernels(c, path, &k, 1, 0);
	free(k.reason);
}

/* Every annotated source of the build, failed for the reason in err. */
static void
report_all_failed(struct plan_ctx *c, const struct strbuf *err)
{
	for (size_t i = 0; i < args_input_count(c->req->args); i++) {
		const struct args_input *in = args_input_at(c->req->args, i);
		if (in->lang == ARGS_LANG_CU && scan_has_annotation(in->path) == SCAN_YES)
			report_source_failure(c, in->path, err->buf);
	}
}

/* Counts kernel k, its outcome final, in the compile's summary. */
static void
tally_kernel(struct plan_ctx *c, const struct kernel_plan *k)
{
	struct progress_tally *t = &c->tally;
	t->kernels++;
	if (strcmp(k->outcome, "fallback") == 0 || strcmp(k->outcome, "verify-failed") == 0) {
		t->fallbacks++; /* searched or not: its warning said why */
	} else if (k->search_s > 0) {
		t->searched++;
		t->candidates += k->candidates;
		t->search_s += k->search_s;
	} else if (strcmp(k->outcome, "cache-miss") == 0) {
		t->missed++;
	} else {
		t->hits++;
	}
}

/* Writes a rewritten source where the compile of the same bytes always finds it
 * (cache/rewritten.h), else (a read-only cache) into the temporary directory;
 * *dst is the caller's. */
static int
write_rewritten(const struct plan_ctx *c, const char *base, const struct strbuf *out, char **dst,
                struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	if (cache_rewritten_put(c->cache_dir, base, out->buf, out->len, dst, &why) == 0) {
		strbuf_release(&why);
		return 0;
	}
	egg_log("%s; the rewritten source goes to the temporary directory (its object will not "
	        "be reproducible)", why.buf);
	strbuf_release(&why);
	*dst = fs_join(c->req->tmpdir, base);
	if (fs_write_atomic(*dst, out->buf, out->len) < 0) {
		strbuf_addf(err, "cannot write %s: %s", *dst, strerror(errno));
		return -1;
	}
	return 0;
}

/* Rewrites input index with its winners when it has any: a rewrite line in the plan,
 * *written the rewritten source's path (the caller's; NULL when nothing was rewritten). */
static int
rewrite_input(const struct plan_ctx *c, size_t index, const char *path, struct kernel_plan *kp,
              size_t n, struct strbuf *plan, char **written, struct strbuf *err)
{
	*written = NULL;
	char *src;
	size_t len;
	if (fs_read_file(path, 0, &src, &len) < 0) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	struct rewrite_target *t = egg_xcalloc(n, sizeof *t);
	struct strvec *params = egg_xcalloc(n, sizeof *params);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct egg_bundle *b = kp[i].bundle;
		if (kp[i].winner && !b->has_spans) {
			egg_warn("egg: %s: its definition comes from a macro, which egg cannot replace in "
			         "place; compiling the reference", b->name);
			note(&kp[i], "fallback", "its definition comes from a macro");
		}
		if (!kp[i].winner || !b->has_spans)
			continue;
		for (size_t p = 0; p < b->n_params; p++)
			strvec_push(&params[m], b->params[p].name);
		t[m].kind = b->kind;
		t[m].name = b->name;
		t[m].c_linkage = b->extern_c;
		t[m].pragma = (struct rewrite_span){ b->span_pragma.begin, b->span_pragma.end };
		t[m].definition = (struct rewrite_span){ b->span_definition.begin, b->span_definition.end };
		t[m].name_tok = (struct rewrite_span){ b->span_name.begin, b->span_name.end };
		t[m].body = (struct rewrite_span){ b->span_body.begin, b->span_body.end };
		t[m].params = (const char *const *)params[m].v;
		t[m].n_params = params[m].n;
		t[m].winner = kp[i].winner;
		t[m].arch = kp[i].arch;
		m++;
	}
	int rc = 0;
	if (m > 0) {
		struct strbuf out = STRBUF_INIT;
		char *base = fs_basename(path);
		if (rewrite_source(path, src, len, t, m, &out, err) < 0 ||
		    write_rewritten(c, base, &out, written, err) < 0) {
			free(*written);
			*written = NULL;
			rc = -1;
		} else {
			strbuf_addf(plan, PLAN_REWRITE "\t%zu\t%s\n", index, *written);
		}
		strbuf_release(&out);
		free(base);
	}
	for (size_t i = 0; i < n; i++)
		strvec_clear(&params[i]);
	free(params);
	free(t);
	free(src);
	return rc;
}

/* What the mode, a GPU and eval_command allow, and which architectures to look
 * up.  With a GPU (or an evaluator) in search or verify mode, the key is that
 * GPU's architecture (the winner is tuned and verified on it); otherwise any
 * architecture the build generates code for may have a winner in the cache. */
static void
plan_modes(struct plan_ctx *c)
{
	enum egg_mode mode = egg_config_mode(c->req->cfg);
	const char *eval_command = egg_config_get(c->req->cfg, "eval_command");
	int remote = eval_command && *eval_command;
	int evaluates = mode == EGG_MODE_SEARCH || mode == EGG_MODE_VERIFY;
	char *gpu = evaluates && !remote ? gpu_arch(egg_config_get(c->req->cfg, "gpu")) : NULL;
	c->may_search = mode == EGG_MODE_SEARCH && (gpu || remote);
	c->may_verify = mode == EGG_MODE_VERIFY && (gpu || remote);
	c->regenerate = c->may_search && strcmp(egg_config_get(c->req->cfg, "regenerate"), "faster") == 0;
	if (mode == EGG_MODE_SEARCH && !c->may_search)
		c->miss_reason = "no GPU to search on";
	if (mode == EGG_MODE_VERIFY && !c->may_verify)
		c->hit_reason = "not verified: no GPU and no eval_command";
	if (mode == EGG_MODE_VERIFY && !c->may_verify)
		egg_warn("egg: verify mode needs a GPU (or eval_command) to check cached winners; "
		         "using the cache unchecked, as in cache mode");
	if (gpu) {
		strvec_push_owned(&c->archs, gpu);
	} else {
		pipeline_target_archs(c->req->args, &c->archs);
		/* A remote evaluator is assumed to have the build's first target GPU. */
		while (remote && c->archs.n > 1)
			strvec_remove(&c->archs, c->archs.n - 1);
	}
}

/* debug: beside the input's output (OUTPUT.egg-key.txt, OUTPUT.egg-rewritten.cu; the
 * input's own name in the working directory when the command names no output of its
 * own), what a surprising result needs explaining: the exact key texts looked up (as
 * `egg cache key --explain` prints them) and the source given to nvcc. */
static void
keep_debug_files(const struct args_input *in, const struct strbuf *key_text, const char *rewritten)
{
	char *base = in->output && !in->output_stdout ? egg_xstrdup(in->output) : fs_basename(in->path);
	char *key_path = egg_xasprintf("%s.egg-key.txt", base);
	char *src_path = egg_xasprintf("%s.egg-rewritten.cu", base);
	char *text = NULL;
	size_t len = 0;
	if (fs_write_atomic(key_path, key_text->buf, key_text->len) < 0)
		egg_warn("egg: debug: cannot write %s: %s", key_path, strerror(errno));
	if (rewritten) {
		if (fs_read_file(rewritten, 0, &text, &len) < 0 || fs_write_atomic(src_path, text, len) < 0)
			egg_warn("egg: debug: cannot write %s: %s", src_path, strerror(errno));
	} else {
		unlink(src_path); /* an older compile's would mislead */
	}
	egg_log("%s: debug: kept %s%s%s", in->path, key_path, rewritten ? " and " : "",
	        rewritten ? src_path : "");
	free(text);
	free(key_path);
	free(src_path);
	free(base);
}

int
pipeline_plan(const struct pipeline_request *req, struct strbuf *plan, struct strbuf *err)
{
	struct plan_ctx c = { req, NULL, NULL, STRVEC_INIT, 0, 0, 0, NULL, NULL, 0, 0, NULL, { 0 }, NULL };
	struct cache_settings set;
	cache_settings_from_config(&set, req->cfg);
	struct cache *cache = cache_open(&set, err);
	c.cache_dir = egg_xstrdup(set.dir);
	cache_settings_release(&set);
	if (!cache) {
		report_all_failed(&c, err);
		free(c.cache_dir);
		return -1;
	}
	char *release = pipeline_nvcc_release(req->nvcc);
	if (!release) {
		strbuf_addf(err, "cannot read the release of %s (nvcc --version)", req->nvcc);
		report_all_failed(&c, err);
		cache_close(cache);
		free(c.cache_dir);
		return -1;
	}
	/* The analyzer reads the headers of the toolkit this build's nvcc belongs to. */
	char *real = realpath(req->nvcc, NULL);
	if (real && !getenv("EGG_CUDA_HOME")) {
		char *bin = fs_dirname(real), *home = fs_dirname(bin);
		setenv("EGG_CUDA_HOME", home, 1);
		free(bin);
		free(home);
	}
	free(real);
	c.cache = cache;
	c.nvcc_release = release;
	plan_modes(&c);
	struct strvec clang_args = STRVEC_INIT;
	args_preprocessor_flags(req->args, &clang_args);
	int strict = egg_config_bool(req->cfg, "strict");
	int debug = egg_config_bool(req->cfg, "debug");
	strbuf_addstr(plan, PLAN_HEADER "\n");
	int rc = 0;
	for (size_t i = 0; i < args_input_count(req->args) && rc == 0; i++) {
		const struct args_input *in = args_input_at(req->args, i);
		if (in->lang != ARGS_LANG_CU || scan_input_has_annotation(req->args, in->path) != SCAN_YES)
			continue;
		struct analyzer_result res;
		double t_analysis = egg_log_now();
		if (analyzer_analyze_file(in->path, (const char *const *)strvec_argv(&clang_args), &res,
		                          err) < 0) {
			egg_log("%s: the analysis failed: %s", in->path, err->buf);
			report_source_failure(&c, in->path, err->buf);
			rc = -1;
			break;
		}
		egg_log("%s: analyzed in %.3f s: %zu kernels of %zu annotations (mode %s)", in->path,
		        egg_log_now() - t_analysis, res.n_bundles, res.n_pragmas,
		        egg_mode_name(egg_config_mode(req->cfg)));
		struct strbuf key_text = STRBUF_INIT;
		c.key_text = debug ? &key_text : NULL;
		if (strict && res.n_bundles < res.n_pragmas)
			analyzer_diags_as_errors(&res.diags);
		fputs(res.diags.buf, stderr);
		if (strict && res.n_bundles < res.n_pragmas)
			strbuf_addf(plan, PLAN_FAIL "\t%s: an annotation could not be used (EGG_STRICT)\n", in->path);
		struct kernel_plan *kp = egg_xcalloc(res.n_bundles ? res.n_bundles : 1, sizeof *kp);
		for (size_t b = 0; b < res.n_bundles; b++) {
			kp[b].bundle = res.bundles[b];
			kp[b].clang_args = (const char *const *)strvec_argv(&clang_args);
			plan_kernel(&c, &kp[b]);
		}
		size_t plan_len = plan->len;
		char *written = NULL;
		if (rewrite_input(&c, i, in->path, kp, res.n_bundles, plan, &written, err) < 0) {
			rc = -1;
			for (size_t b = 0; b < res.n_bundles; b++)
				if (kp[b].winner)
					note(&kp[b], "fallback", err->buf);
		} else if (plan->len > plan_len) {
			/* the interface the rewritten object must keep (compile_annotated.c) */
			for (size_t s = 0; s < res.exports.n; s++)
				strbuf_addf(plan, PLAN_EXPORT "\t%zu\t%s\n", i, res.exports.v[s]);
			for (size_t s = 0; s < res.known.n; s++)
				strbuf_addf(plan, PLAN_KNOWN "\t%zu\t%s\n", i, res.known.v[s]);
		}
		for (size_t b = 0; b < res.n_bundles; b++)
			tally_kernel(&c, &kp[b]);
		report_kernels(&c, in->path, kp, res.n_bundles, plan->len > plan_len);
		if (rc == 0)
			egg_log("%s: %s", in->path, plan->len > plan_len ? "rewritten with its winners"
			                                                  : "nothing to rewrite: nvcc compiles it as it is");
		if (debug)
			keep_debug_files(in, &key_text, written);
		free(written);
		strbuf_release(&key_text);
		c.key_text = NULL;
		for (size_t b = 0; b < res.n_bundles; b++) {
			free(kp[b].winner);
			free(kp[b].reason);
			free(kp[b].result_json);
			free(kp[b].transcript_json);
		}
		free(kp);
		analyzer_result_free(&res);
	}
	progress_summary(&c.tally);
	if (c.report_pending && !c.report_failed)
		strbuf_addf(plan, PLAN_REPORT "\t%s\n", egg_config_get(req->cfg, "report"));
	strbuf_addstr(plan, PLAN_END "\n");
	strvec_clear(&c.archs);
	strvec_clear(&clang_args);
	free(release);
	cache_close(cache);
	free(c.cache_dir);
	return rc;
}
