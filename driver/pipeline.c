/*
 * pipeline.c -- see pipeline.h.
 *
 * Per annotated input: the analyzer gives bundles (diagnostics go to stderr as
 * they are); each bundle is looked up in the cache under the key of every GPU
 * architecture the build generates code for, first hit wins; on a miss in search
 * mode the search (pipeline_search.c) runs when a GPU is present.  The input is
 * rewritten once, with every kernel that has a positive entry, into the
 * temporary directory under its own basename.
 */
#include "config.h"
#include "driver/pipeline.h"
#include "analyzer/analyzer.h"
#include "cache/cache.h"
#include "common/fsutil.h"
#include "common/util.h"
#include "builtin/builtin.h"
#include "driver/pipeline_search.h"
#include "driver/rewrite.h"
#include "driver/scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The model backends (openai, anthropic) have no prompts in this egg yet: their
 * keys carry "none", so nothing a future egg stores for them is mistaken for
 * today's, and a search with them stops with a warning (pipeline_search.c). */
struct cache_generator
pipeline_generator(const struct egg_config *cfg)
{
	struct cache_generator g = { "builtin", NULL, BUILTIN_VERSION };
	const char *backend = egg_config_get(cfg, "backend");
	if (backend && strcmp(backend, "builtin") != 0) {
		g.backend = backend;
		g.model = egg_config_get(cfg, "model");
		g.recipe = "none";
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
	in->generator = pipeline_generator(cfg);
}

/* The number in "sm_90a" (90), for the dispatcher. */
static int
arch_number(const char *arch)
{
	return atoi(arch + 3);
}

struct kernel_plan {
	const struct egg_bundle *bundle;
	char *winner; /* owned; NULL: keep the reference */
	int arch;
};

static void
take_winner(struct kernel_plan *k, const struct cache_entry *e, const char *arch)
{
	if (!cache_entry_is_negative(e) && cache_entry_source(e)) {
		k->winner = egg_xstrdup(cache_entry_source(e));
		k->arch = arch_number(arch);
	}
}

/* A miss with a GPU in search mode: one process searches (single flight), the
 * others wait for its entry or give up and keep the reference. */
static void
search_kernel(const struct pipeline_request *req, struct cache *cache, const char *key,
              const char *arch, const struct strvec *flags, struct kernel_plan *k)
{
	struct cache_entry *e = NULL;
	struct cache_lock *lock = NULL;
	switch (cache_claim(cache, key, &e, &lock)) {
	case CACHE_CLAIM_HIT:
		take_winner(k, e, arch);
		cache_entry_free(e);
		return;
	case CACHE_CLAIM_REFERENCE:
		egg_warn("egg: %s: another build is still searching this kernel; compiling the reference",
		         k->bundle->name);
		return;
	case CACHE_CLAIM_SEARCH:
		break;
	}
	struct cache_generator gen = pipeline_generator(req->cfg);
	const char *eval_command = egg_config_get(req->cfg, "eval_command");
	struct pipeline_search_request sr = { k->bundle, key, &gen, req->nvcc, flags->v, flags->n,
	                                      (double)egg_config_seconds(req->cfg, "timeout"),
	                                      eval_command && *eval_command ? eval_command : NULL,
	                                      egg_config_get(req->cfg, "gpu") };
	struct pipeline_outcome out;
	e = pipeline_search(&sr, &out);
	if (e) {
		int stored = cache_put(cache, e) == 0;
		take_winner(k, e, arch);
		if (out.won)
			fprintf(stderr, "egg: %s: %.1fx over reference (%s, verified on %s)%s\n", k->bundle->name,
			        out.speedup, gen.backend, out.gpu, stored ? ", cached" : "");
		else
			fprintf(stderr, "egg: %s: nothing beat the reference%s\n", k->bundle->name,
			        stored ? " (remembered in the cache)" : "");
		cache_entry_free(e);
	}
	cache_release(lock);
}

/* Looks one bundle up under each target architecture; fills k on a positive hit;
 * searches on a miss when the mode and a GPU allow it. */
static void
plan_kernel(const struct pipeline_request *req, struct cache *cache, const char *nvcc_release,
            const struct strvec *archs, int may_search, struct kernel_plan *k)
{
	struct strvec flags = STRVEC_INIT;
	struct cache_key_inputs in;
	pipeline_key_inputs(req->args, req->cfg, k->bundle, nvcc_release, NULL, &flags, &in);
	for (size_t i = 0; i < archs->n && !k->winner; i++) {
		char key[CACHE_KEY_HEX_LEN + 1];
		in.arch = archs->v[i];
		cache_key_compute(&in, key);
		struct cache_entry *e = NULL;
		if (cache_lookup(cache, key, &e) == 1) {
			take_winner(k, e, archs->v[i]);
			cache_entry_free(e);
			strvec_clear(&flags);
			return; /* a negative entry is an answer too */
		}
		if (may_search) /* archs is then only this GPU's */
			search_kernel(req, cache, key, archs->v[i], &flags, k);
	}
	strvec_clear(&flags);
}

static int
rewrite_input(const struct pipeline_request *req, size_t index, const char *path,
              struct kernel_plan *kp, size_t n, struct strbuf *plan, struct strbuf *err)
{
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
		if (kp[i].winner && !b->has_spans)
			egg_warn("egg: %s: its definition comes from a macro, which egg cannot replace in "
			         "place; compiling the reference", b->name);
		if (!kp[i].winner || !b->has_spans)
			continue;
		for (size_t p = 0; p < b->n_params; p++)
			strvec_push(&params[m], b->params[p].name);
		t[m].kind = b->kind;
		t[m].name = b->name;
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
		char *dst = fs_join(req->tmpdir, base);
		if (rewrite_source(path, src, len, t, m, &out, err) < 0 ||
		    fs_write_atomic(dst, out.buf, out.len) < 0) {
			if (!err->len)
				strbuf_addf(err, "cannot write %s: %s", dst, strerror(errno));
			rc = -1;
		} else {
			strbuf_addf(plan, "rewrite\t%zu\t%s\n", index, dst);
		}
		strbuf_release(&out);
		free(base);
		free(dst);
	}
	for (size_t i = 0; i < n; i++)
		strvec_clear(&params[i]);
	free(params);
	free(t);
	free(src);
	return rc;
}

int
pipeline_plan(const struct pipeline_request *req, struct strbuf *plan, struct strbuf *err)
{
	struct cache_settings set;
	cache_settings_from_config(&set, req->cfg);
	struct cache *cache = cache_open(&set, err);
	cache_settings_release(&set);
	if (!cache)
		return -1;
	char *release = pipeline_nvcc_release(req->nvcc);
	if (!release) {
		strbuf_addf(err, "cannot read the release of %s (nvcc --version)", req->nvcc);
		cache_close(cache);
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
	struct strvec archs = STRVEC_INIT, clang_args = STRVEC_INIT;
	/* With a GPU and in search mode, the key is this GPU's architecture (the
	 * winner is tuned and verified on it); otherwise any architecture the build
	 * generates code for may have a winner in the cache. */
	enum egg_mode mode = egg_config_mode(req->cfg);
	const char *eval_command = egg_config_get(req->cfg, "eval_command");
	int remote = eval_command && *eval_command;
	char *gpu = mode == EGG_MODE_SEARCH && !remote ? gpu_arch(egg_config_get(req->cfg, "gpu")) : NULL;
	int may_search = gpu != NULL || (mode == EGG_MODE_SEARCH && remote);
	if (gpu) {
		strvec_push_owned(&archs, gpu);
	} else {
		pipeline_target_archs(req->args, &archs);
		/* A remote evaluator is assumed to have the build's first target GPU. */
		while (remote && archs.n > 1)
			strvec_remove(&archs, archs.n - 1);
	}
	args_preprocessor_flags(req->args, &clang_args);
	int strict = egg_config_bool(req->cfg, "strict");
	strbuf_addstr(plan, "egg-plan 1\n");
	int rc = 0;
	for (size_t i = 0; i < args_input_count(req->args) && rc == 0; i++) {
		const struct args_input *in = args_input_at(req->args, i);
		if (in->lang != ARGS_LANG_CU || scan_has_annotation(in->path) != SCAN_YES)
			continue;
		struct analyzer_result res;
		if (analyzer_analyze_file(in->path, (const char *const *)strvec_argv(&clang_args), &res,
		                          err) < 0) {
			rc = -1;
			break;
		}
		fputs(res.diags.buf, stderr);
		if (strict && res.n_bundles < res.n_pragmas)
			strbuf_addf(plan, "fail\t%s: an annotation could not be used (EGG_STRICT)\n", in->path);
		struct kernel_plan *kp = egg_xcalloc(res.n_bundles ? res.n_bundles : 1, sizeof *kp);
		for (size_t b = 0; b < res.n_bundles; b++) {
			kp[b].bundle = res.bundles[b];
			plan_kernel(req, cache, release, &archs, may_search, &kp[b]);
		}
		if (rewrite_input(req, i, in->path, kp, res.n_bundles, plan, err) < 0)
			rc = -1;
		for (size_t b = 0; b < res.n_bundles; b++)
			free(kp[b].winner);
		free(kp);
		analyzer_result_free(&res);
	}
	strbuf_addstr(plan, "end\n");
	strvec_clear(&archs);
	strvec_clear(&clang_args);
	free(release);
	cache_close(cache);
	return rc;
}
