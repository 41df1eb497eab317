/*
 * builtin.c -- the builtin generator's driver: lift, plan runs of stages by
 * family, and emit one candidate per point (see builtin.h).
 *
 * A program may hold stages of several families (a memset then a reduction,
 * maps then rows); candidate k uses point min(k, n_points - 1) of every family
 * involved, so the number of candidates is the largest family's space, and
 * identical sources are emitted once.
 */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/launch_check.h"
#include "builtin/keep/butterfly.h"
#include "builtin/lift/fuse.h"
#include "builtin/keep/generic.h"
#include "builtin/lift/lift.h"
#include "builtin/keep/refill.h"
#include "builtin/recipes/recipe.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct recipe *const recipes[] = {
	&recipe_elementwise,
	&recipe_rows,
	&recipe_reduce,
	&recipe_gemm,
	&recipe_transpose,
	&recipe_stencil,
	&recipe_scatter,
	&recipe_scan,
};
#define N_RECIPES (sizeof recipes / sizeof *recipes)

/* recipes whose points take a run of stages of several kinds (recipe.h's spans) */
static const struct span_recipe *const spanning[] = {
	&recipe_persist,
};
#define N_SPANNING (sizeof spanning / sizeof *spanning)

static const struct recipe *
recipe_for(enum ir_stage_kind kind)
{
	for (size_t i = 0; i < N_RECIPES; i++)
		if (recipes[i]->kind == kind)
			return recipes[i];
	return NULL;
}

static int
is_memset(const struct ir_stage *st)
{
	return st->kind == IR_STAGE_MEMSET;
}

/* Whether some stage of p still reads or writes buffer (a scratch buffer whose
 * uses fusion removed is only declared). */
static int
program_uses(const struct ir_program *p, const char *buffer)
{
	for (size_t i = 0; i < p->n_stages; i++)
		if ((p->stages[i].buffer && strcmp(p->stages[i].buffer, buffer) == 0) ||
		    ir_block_touches(&p->stages[i].body, buffer, 0) || ir_block_touches(&p->stages[i].body, buffer, 1))
			return 1;
	return 0;
}

enum local_part { LOCAL_HELPER, LOCAL_ALLOC, LOCAL_FREE };

/* The buffers the reference's launcher allocates (every kernel of the candidate
 * takes them): allocated at the candidate's start (LOCAL_ALLOC) and freed at its
 * end (LOCAL_FREE) in stream order on the default stream, from a pool of egg's
 * own that keeps its memory between calls (the default pool would hand it back
 * to the system at each synchronization, and take it again at the next call);
 * plain cudaMalloc and cudaFree where the device has no memory pools.  A buffer
 * no stage uses any more is only declared, NULL.  LOCAL_HELPER is the pool's
 * code, once per file. */
static void
local_buffers(const struct ir_program *p, struct strbuf *out, enum local_part part)
{
	int any = 0;
	for (size_t i = 0; i < p->n_params; i++) {
		const struct ir_param *q = &p->params[i];
		if (!q->is_local)
			continue;
		int used = program_uses(p, q->name);
		if (part == LOCAL_HELPER && !any && used)
			strbuf_addstr(out, "#ifndef EGG_BUILTIN_POOL\n#define EGG_BUILTIN_POOL\n"
			                   "/* a memory pool per device that keeps what it has held (scratch buffers of\n"
			                   " * launchers), or NULL where the device has none; made once, under a lock\n"
			                   " * of the host compiler's atomic builtins */\n"
			                   "static __attribute__((unused)) cudaMemPool_t egg_builtin_pool(void)\n{\n"
			                   "\tstatic int lock;\n\tstatic cudaMemPool_t pools[64];\n\tstatic int tried[64];\n"
			                   "\tint dev = 0;\n\tif (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)\n\t\treturn NULL;\n"
			                   "\twhile (__sync_lock_test_and_set(&lock, 1))\n\t\t;\n\tif (!tried[dev]) {\n\t\ttried[dev] = 1;\n"
			                   "\t\tcudaMemPoolProps props = {};\n\t\tprops.allocType = cudaMemAllocationTypePinned;\n"
			                   "\t\tprops.location.type = cudaMemLocationTypeDevice;\n\t\tprops.location.id = dev;\n"
			                   "\t\tif (cudaMemPoolCreate(&pools[dev], &props) == cudaSuccess) {\n"
			                   "\t\t\tunsigned long long keep = ~0ull;\n"
			                   "\t\t\tcudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, &keep);\n"
			                   "\t\t} else {\n\t\t\tcudaGetLastError();\n\t\t\tpools[dev] = NULL;\n\t\t}\n\t}\n"
			                   "\tcudaMemPool_t pool = pools[dev];\n\t__sync_lock_release(&lock);\n"
			                   "\treturn pool;\n}\n#endif\n");
		else if (part == LOCAL_ALLOC && !used)
			strbuf_addf(out, "\t%s *%s = NULL; /* no kernel uses it any more */\n", q->elem_type, q->name);
		else if (part == LOCAL_ALLOC)
			strbuf_addf(out, "\t%s *%s = NULL;\n\tconst size_t egg_bytes_%s = (size_t)(%s) * sizeof(%s);\n"
			                 "\tcudaMemPool_t egg_pool_%s = egg_builtin_pool();\n"
			                 "\tif (!egg_pool_%s || cudaMallocFromPoolAsync((void **)&%s, egg_bytes_%s, egg_pool_%s, 0) != cudaSuccess) {\n"
			                 "\t\tcudaGetLastError();\n\t\tegg_pool_%s = NULL;\n\t\tcudaMalloc((void **)&%s, egg_bytes_%s);\n\t}\n",
			            q->elem_type, q->name, q->name, q->extent, q->elem_type, q->name, q->name, q->name,
			            q->name, q->name, q->name, q->name, q->name);
		else if (part == LOCAL_FREE && used)
			strbuf_addf(out, "\tif (egg_pool_%s)\n\t\tcudaFreeAsync(%s, 0);\n\telse\n\t\tcudaFree(%s);\n",
			            q->name, q->name, q->name);
		any |= used;
	}
}

/* Whether spanning recipe r's point k takes a run starting at some stage of p. */
static int
span_applies(const struct ir_program *p, const struct span_recipe *r, size_t k)
{
	for (size_t i = 0; i < p->n_stages; i++)
		if (p->stages[i].kind == r->base.kind && r->spans(p, i, k) > 0)
			return 1;
	return 0;
}

/* One candidate for point k, its kernels named PREFIX_kN; 0 and *src set, or
 * -1 with why.  With span, point k of that spanning recipe takes the first run
 * it applies to, and the other stages take point 0 of their families. */
static int
emit_candidate(const struct ir_program *p, const char *prefix, size_t k, const struct span_recipe *span,
               struct strbuf *label, struct strbuf *src, struct strbuf *why)
{
	struct strbuf device = STRBUF_INIT, host = STRBUF_INIT, body = STRBUF_INIT;
	struct recipe_job job = { .prog = p, .prefix = prefix, .device = &device, .host = &host,
		                  .body = &body };
	int rc = 0;
	const struct recipe *seen[N_RECIPES] = { 0 };
	size_t n_seen = 0;
	const size_t span_k = k;
	int spanned = 0;
	if (span)
		k = 0;
	for (size_t i = 0; i < p->n_stages && rc == 0;) {
		const struct ir_stage *st = &p->stages[i];
		size_t m = 0;
		if (span && !spanned && st->kind == span->base.kind)
			m = span->spans(p, i, span_k);
		if (m > 0) {
			spanned = 1;
			if (label->len)
				strbuf_addstr(label, "; ");
			span->base.label(span_k, label);
			rc = span->base.emit(&job, i, m, span_k, why);
			i += m;
			continue;
		}
		if (is_memset(st)) {
			const struct recipe *next = i + 1 < p->n_stages ? recipe_for(p->stages[i + 1].kind) : NULL;
			size_t npt = next ? (k < next->n_points ? k : next->n_points - 1) : 0;
			if (span && !spanned && i + 1 < p->n_stages && p->stages[i + 1].kind == span->base.kind &&
			    span->spans(p, i + 1, span_k) > 0) {
				next = &span->base;
				npt = span_k;
			}
			if (next && next->absorbs && next->absorbs(p, i + 1, npt)) {
				i++; /* the next stage overwrites what it would clear */
				continue;
			}
			struct emit_ctx c = { .prog = p, .component = -1 };
			strbuf_addf(&host, "\tcudaMemsetAsync(%s, 0, ", st->buffer);
			emit_expr(&c, st->n, &host);
			strbuf_addstr(&host, ");\n");
			i++;
			continue;
		}
		const struct recipe *r = recipe_for(st->kind);
		size_t j = i + 1;
		while (j < p->n_stages && p->stages[j].kind == st->kind)
			j++;
		size_t pt = k < r->n_points ? k : r->n_points - 1;
		size_t s;
		for (s = 0; s < n_seen && seen[s] != r; s++)
			;
		if (s == n_seen) {
			seen[n_seen++] = r;
			if (label->len)
				strbuf_addstr(label, "; ");
			r->label(pt, label);
		}
		rc = r->emit(&job, i, j - i, pt, why);
		i = j;
	}
	if (rc == 0) {
		if (p->is_kernel) { /* the recipe wrote the whole definition, header included */
			strbuf_addstr(src, device.buf);
			strbuf_addstr(src, body.buf);
		} else {
			local_buffers(p, src, LOCAL_HELPER);
			strbuf_addstr(src, device.buf);
			strbuf_addstr(src, p->header);
			strbuf_addstr(src, "{\n");
			local_buffers(p, src, LOCAL_ALLOC);
			strbuf_addstr(src, host.buf);
			local_buffers(p, src, LOCAL_FREE);
			strbuf_addstr(src, "}\n");
		}
	}
	strbuf_release(&device);
	strbuf_release(&host);
	strbuf_release(&body);
	return rc;
}

/* text without its comments (the label comments differ between points) */
static char *
code_only(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *s = text; *s;) {
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
			continue;
		}
		strbuf_addch(&sb, *s++);
	}
	return strbuf_detach(&sb);
}

static size_t
n_points(const struct ir_program *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_stages; i++) {
		const struct recipe *r = recipe_for(p->stages[i].kind);
		if (r && r->n_points > n)
			n = r->n_points;
	}
	return n;
}

/* The shared helpers, and the narrow types' packs after them when a buffer
 * holds bf16 or half (only then: other programs' candidates stay as they were). */
static char *
prelude(const struct ir_program *p, struct strbuf *err)
{
	char *pre = emit_template_load("prelude.cu", err);
	int narrow = 0;
	for (size_t i = 0; pre && i < p->n_params; i++)
		narrow |= p->params[i].is_pointer && emit_narrow(p->params[i].elem_type);
	if (!narrow)
		return pre;
	char *packs = emit_template_load("narrow.cu", err);
	char *both = packs ? egg_xasprintf("%s%s", pre, packs) : NULL;
	free(pre);
	free(packs);
	return both;
}

/* Code no recipe takes gets the generic path's candidates (generic.c) and the
 * butterfly path's (butterfly.c); the reason stays in the description, and
 * not_lifted only when there are none.  -1 with err when a template is missing. */
static int
generic_fallback(const struct egg_bundle *b, const struct builtin_options *opt,
                 struct builtin_output *out, struct strbuf *err)
{
	if (opt && opt->describe_only)
		return 0;
	struct strbuf why = STRBUF_INIT, bwhy = STRBUF_INIT, refill_why = STRBUF_INIT;
	char *prefix = opt && opt->prefix ? egg_xstrdup(opt->prefix) : egg_xasprintf("egg_%s", b->name);
	size_t n = generic_generate(b, prefix, &out->candidates, &out->n_candidates, &why);
	long nb = butterfly_generate(b, prefix, &out->candidates, &out->n_candidates, &bwhy, err);
	if (nb < 0) {
		free(prefix);
		strbuf_release(&why);
		strbuf_release(&bwhy);
		return -1;
	}
	size_t nr = refill_generate(b, prefix, &out->candidates, &out->n_candidates, &refill_why);
	if (n + (size_t)nb + nr > 0) {
		char *d = egg_xasprintf("%snot lifted: %s\n%s%s%s%s%s", out->description ? out->description : "",
		                        out->not_lifted, n ? "generic: the reference's code, edited\n" : "",
		                        nb ? "butterfly: runs of launches fused through shared memory\n" : "",
		                        nr ? "refill: lanes walk their elements, each refilled when its "
		                             "element's loop ends\n" : "",
		                        refill_why.buf, refill_why.len ? "\n" : "");
		free(out->description);
		out->description = d;
		free(out->not_lifted);
		out->not_lifted = NULL;
	} else {
		char *m = egg_xasprintf("%s; %s", out->not_lifted, why.buf);
		free(out->not_lifted);
		out->not_lifted = m;
	}
	free(prefix);
	strbuf_release(&why);
	strbuf_release(&bwhy);
	strbuf_release(&refill_why);
	return 0;
}

/* The helpers' include guards (#ifndef EGG_BUILTIN_PRELUDE) of a target in a
 * namespace get the namespace in their name: egg-cc puts each winner where its
 * target stands, and a helper defined once in nn would not be seen by a winner
 * in ops or at file scope. */
static void
scope_guards(const struct egg_bundle *b, struct builtin_output *out)
{
	char *ns = bundle_namespace(b);
	if (!*ns) {
		free(ns);
		return;
	}
	struct strbuf tag = STRBUF_INIT;
	strbuf_addstr(&tag, "__NS_");
	for (const char *s = ns; *s; s++) {
		if (strncmp(s, "(anonymous namespace)", 21) == 0) {
			strbuf_addstr(&tag, "anon");
			s += 20;
		} else {
			strbuf_addch(&tag, isalnum((unsigned char)*s) ? *s : '_');
		}
	}
	free(ns);
	for (size_t i = 0; i < out->n_candidates; i++) {
		struct strbuf sb = STRBUF_INIT;
		const char *s = out->candidates[i].source;
		while (*s) {
			const char *e = strchr(s, '\n');
			size_t n = e ? (size_t)(e - s) + 1 : strlen(s), m = n;
			int guard = strncmp(s, "#ifndef EGG_BUILTIN_", 20) == 0 || strncmp(s, "#define EGG_BUILTIN_", 20) == 0;
			if (guard) /* the end of the macro's name */
				for (m = 20; m < n && (isalnum((unsigned char)s[m]) || s[m] == '_');)
					m++;
			strbuf_add(&sb, s, m);
			if (guard)
				strbuf_add(&sb, tag.buf, tag.len);
			strbuf_add(&sb, s + m, n - m);
			s += n;
		}
		free(out->candidates[i].source);
		out->candidates[i].source = strbuf_detach(&sb);
	}
	strbuf_release(&tag);
}

int
builtin_generate(const struct egg_bundle *b, const struct builtin_options *opt,
                 struct builtin_output *out, struct strbuf *err)
{
	memset(out, 0, sizeof *out);
	struct strbuf why = STRBUF_INIT;
	out->program = lift_bundle(b, &why);
	if (!out->program) {
		out->not_lifted = strbuf_detach(&why);
		int rc = generic_fallback(b, opt, out, err);
		launch_check_keep(b, out);
		scope_guards(b, out);
		return rc;
	}
	out->program->precision = (int)b->precision;
	struct strbuf d = STRBUF_INIT;
	ir_program_describe(out->program, &d);
	out->description = strbuf_detach(&d);
	for (size_t i = 0; i < out->program->n_stages; i++)
		if (!is_memset(&out->program->stages[i]) && !recipe_for(out->program->stages[i].kind)) {
			out->not_lifted = egg_xstrdup("a stage of a family without a recipe");
			int rc = generic_fallback(b, opt, out, err);
			launch_check_keep(b, out);
			scope_guards(b, out);
			return rc;
		}
	if (opt && opt->describe_only)
		return 0;
	fuse_program(out->program); /* after the description, which shows the code as written */
	char *pre = prelude(out->program, err);
	if (!pre)
		return -1;
	char *prefix = opt && opt->prefix ? egg_xstrdup(opt->prefix) : egg_xasprintf("egg_%s", b->name);
	size_t n = n_points(out->program), n_all = n;
	for (size_t r = 0; r < N_SPANNING; r++)
		n_all += spanning[r]->base.n_points;
	out->candidates = egg_xcalloc(n_all + 1, sizeof *out->candidates);
	/* a point that changes nothing for this program (say, the online pass where
	 * there is no softmax) gives the code of an earlier one: compare the code
	 * emitted under one neutral prefix and keep the first */
	struct strvec seen = STRVEC_INIT;
	int status = 0;
	for (size_t k = 0; k < n_all; k++) {
		const struct span_recipe *span = NULL;
		size_t pk = k;
		if (k >= n) { /* the spanning recipes' points, after the ordinary ones */
			size_t j = k - n, r = 0;
			while (j >= spanning[r]->base.n_points)
				j -= spanning[r++]->base.n_points;
			span = spanning[r];
			pk = j;
			if (!span_applies(out->program, span, pk))
				continue;
		}
		struct strbuf label = STRBUF_INIT, src = STRBUF_INIT, probe = STRBUF_INIT;
		strbuf_reset(&why);
		int rc = emit_candidate(out->program, "egg_probe", pk, span, &label, &probe, &why);
		char *code = code_only(probe.buf);
		int dup = 0;
		for (size_t j = 0; rc == 0 && j < seen.n && !dup; j++)
			dup = strcmp(seen.v[j], code) == 0;
		strbuf_reset(&label);
		strbuf_addstr(&src, pre);
		char *name = egg_xasprintf("%s_c%zu", prefix, k);
		if (rc == 0 && !dup)
			rc = emit_candidate(out->program, name, pk, span, &label, &src, &why);
		free(name);
		strbuf_release(&probe);
		if (rc != 0 || dup) {
			free(code);
			strbuf_release(&label);
			strbuf_release(&src);
			continue;
		}
		strvec_push_owned(&seen, code);
		out->candidates[out->n_candidates].label = strbuf_detach(&label);
		out->candidates[out->n_candidates].source = strbuf_detach(&src);
		out->n_candidates++;
	}
	strvec_clear(&seen);
	if (out->n_candidates == 0) {
		out->not_lifted = strbuf_detach(&why);
		status = generic_fallback(b, opt, out, err);
	} else if (out->program->weak) {
		/* the reference's own code with the generic path's edits competes too
		 * (its kernels under a prefix of their own: check programs hold all) */
		struct strbuf gwhy = STRBUF_INIT;
		char *gp = egg_xasprintf("%s_g", prefix);
		if (generic_generate(b, gp, &out->candidates, &out->n_candidates, &gwhy) > 0) {
			char *nd = egg_xasprintf("%sgeneric: the reference's code, edited (as well)\n", out->description);
			free(out->description);
			out->description = nd;
		}
		free(gp);
		strbuf_release(&gwhy);
	}
	launch_check_keep(b, out);
	scope_guards(b, out);
	strbuf_release(&why);
	free(prefix);
	free(pre);
	return status;
}

void
builtin_output_release(struct builtin_output *o)
{
	ir_program_free(o->program);
	free(o->description);
	free(o->not_lifted);
	for (size_t i = 0; i < o->n_candidates; i++) {
		free(o->candidates[i].label);
		free(o->candidates[i].source);
	}
	free(o->candidates);
	memset(o, 0, sizeof *o);
}
