/*
 * pipeline.h -- one compile through egg: analyze, key, cache, (search), rewrite.
 *
 * This is what `egg plan` runs for egg-cc (driver/compile_annotated.c), in its own
 * process: it may load libclang, open the cache, talk to remotes and GPUs, and it
 * may fail in any of those ways without touching the user's build -- its answer is
 * only a plan, which egg-cc applies or ignores.
 *
 * The plan (printed on stdout) is the line protocol of driver/plan_protocol.h.
 * Everything for the user (diagnostics, progress, warnings) goes to stderr.
 */
#ifndef EGG_PIPELINE_H
#define EGG_PIPELINE_H

#include "cache/key.h"
#include "common/bundle.h"
#include "common/egg_config.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "driver/args.h"

struct pipeline_request {
	const char *nvcc;          /* the real nvcc of the build */
	const char *tmpdir;        /* where rewritten sources go (egg-cc removes it) */
	struct egg_config *cfg;    /* loaded configuration (mode, cache, generator, ...) */
	const struct args *args;   /* the build's command line */
};

/* Runs the pipeline for every annotated CUDA input of req->args and appends the
 * plan to plan.  Returns 0 (the plan may rewrite nothing), or -1 with a sentence
 * in err when the pipeline could not run at all (egg-cc then warns and compiles
 * the reference). */
int pipeline_plan(const struct pipeline_request *req, struct strbuf *plan, struct strbuf *err);

/* The release of an nvcc ("13.0"), from `nvcc --version`; NULL if it cannot be
 * read.  Caller frees. */
char *pipeline_nvcc_release(const char *nvcc);

/* The GPU architectures ("sm_90") a build's flags generate code for, in order
 * and without repeats: -arch, -code and -gencode values (compute_XY counts as
 * sm_XY, since its PTX runs there); nvcc's default, sm_75, when none is given. */
void pipeline_target_archs(const struct args *a, struct strvec *out);

/* The generator identity configured in cfg (backend, model, recipe version). */
struct cache_generator pipeline_generator(const struct egg_config *cfg);

/* The cache key inputs egg-cc uses for bundle b in the build a under cfg, for GPU
 * architecture arch: the one place that decides them (`egg plan` and `egg cache
 * key` both call it).  flags receives the code-generation flags in->flags points
 * into; the caller clears it after the last use of *in. */
void pipeline_key_inputs(const struct args *a, const struct egg_config *cfg,
                         const struct egg_bundle *b, const char *nvcc_release, const char *arch,
                         struct strvec *flags, struct cache_key_inputs *in);

#endif
