/*
 * common.c -- helpers the recipes share: kernel names and signatures, host
 * launches sized to the device, template fills, and the streaming pass
 * (templates/stream.cu) that both element-wise maps and full reductions use.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

char *
recipe_kernel_name(struct recipe_job *job)
{
	return egg_xasprintf("%s_k%u", job->prefix, job->n_kernels++);
}

void
recipe_kernel_signature(const struct recipe_job *job, const char *name, int tpb,
                        struct strbuf *out)
{
	strbuf_addf(out, "__global__ void __launch_bounds__(%d) %s(", tpb, name);
	emit_kernel_params(job->prog, out);
	strbuf_addch(out, ')');
}

int
recipe_needs_launcher(const struct recipe_job *job, const char *family, struct strbuf *why)
{
	if (!job->prog->is_kernel)
		return 0;
	strbuf_addf(why, "a kernel target's launch geometry belongs to its caller; the %s recipe "
	            "needs a launcher target", family);
	return -1;
}

void
recipe_host_grid(struct recipe_job *job, const char *units, long per_block, int tpb, long max)
{
	strbuf_addf(job->host, "\t{\n\t\tlong long egg_g = ((long long)(%s) + %ld - 1) / %ld;\n"
	                       "\t\tconst long long egg_cap = (long long)egg_builtin_sm_count() * %d;\n"
	                       "\t\tif (egg_g > egg_cap)\n\t\t\tegg_g = egg_cap;\n"
	                       "\t\tif (egg_g > %ld)\n\t\t\tegg_g = %ld;\n"
	                       "\t\tif (egg_g < 1)\n\t\t\tegg_g = 1;\n",
	            units, per_block, per_block, 2048 / tpb, max, max);
}

void
recipe_host_launch(struct recipe_job *job, const char *name, const char *units, long per_block,
                   int tpb, int waves)
{
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t{\n\t\tlong long egg_g = ((long long)(%s) + %ld - 1) / %ld;\n", units,
	            per_block, per_block);
	if (waves > 0)
		strbuf_addf(h, "\t\tconst long long egg_cap = (long long)egg_builtin_sm_count() * %d;\n"
		               "\t\tif (egg_g > egg_cap)\n\t\t\tegg_g = egg_cap;\n",
		            waves * (2048 / tpb));
	strbuf_addf(h, "\t\tif (egg_g > 2147483647LL)\n\t\t\tegg_g = 2147483647LL;\n"
	               "\t\tif (egg_g < 1)\n\t\t\tegg_g = 1;\n\t\t%s<<<(unsigned)egg_g, %d>>>(",
	            name, tpb);
	emit_kernel_args(job->prog, h);
	strbuf_addstr(h, ");\n\t}\n");
}

int
recipe_fill(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
            struct strbuf *out, struct strbuf *why)
{
	char *text = emit_template_load(tmpl, why);
	if (!text)
		return -1;
	emit_template_fill(text, keys, vals, n, out);
	free(text);
	return 0;
}

int
recipe_stream_vector(struct emit_ctx *c, int want)
{
	int v = want;
	for (size_t i = 0; i < c->n_streams; i++) {
		int m = emit_max_vector(c->streams[i].elem_type);
		if (m < v)
			v = m;
	}
	return v;
}

int
recipe_stream_kernel(struct recipe_job *job, const struct stream_spec *sp, struct strbuf *out,
                     struct strbuf *why)
{
	struct emit_ctx c = { .prog = job->prog, .var = sp->var, .component = -1 };
	c.index_text[IR_I] = c.index_text[IR_ROW] = c.index_text[IR_COL] = "0";
	c.index_text[sp->var] = "egg_e";
	emit_collect_streams(&c, sp->body);
	c.vec = recipe_stream_vector(&c, sp->vec);
	struct strbuf n = STRBUF_INIT, aligned = STRBUF_INIT, decl = STRBUF_INIT, loads = STRBUF_INIT,
	              compute = STRBUF_INIT, scalar = STRBUF_INIT, vs = STRBUF_INIT, us = STRBUF_INIT,
	              base = STRBUF_INIT;
	emit_expr(&c, sp->n, &n);
	emit_aligned_test(&c, "0", &aligned);
	for (size_t i = 0; i < c.n_streams; i++)
		if (!c.streams[i].is_store)
			strbuf_addf(&decl, "\t\t\t%s egg_l%zu[%d];\n",
			            emit_vector_type(c.streams[i].elem_type, c.vec), i, sp->inflight);
	strbuf_addf(&base, "egg_w * %d", c.vec);
	c.reg_suffix = "[egg_u]";
	emit_stream_loads(&c, base.buf, "\t\t\t\t\t", &loads);
	emit_components(&c, sp->body, base.buf, "\t\t\t\t\t", &compute);
	c.reg_suffix = NULL;
	emit_block(&c, sp->body, "\t\t", &scalar);
	strbuf_addf(&vs, "%d", c.vec);
	strbuf_addf(&us, "%d", sp->inflight);
	const char *keys[] = { "LABEL", "SIG", "N", "V", "U", "ALIGNED", "LOADDECL", "LOADS",
		               "COMPUTE", "SCALAR", "PROLOGUE", "EPILOGUE" };
	const char *vals[] = { sp->label, sp->sig, n.buf, vs.buf, us.buf, aligned.buf, decl.buf,
		               loads.buf, compute.buf, scalar.buf, sp->prologue ? sp->prologue : "",
		               sp->epilogue ? sp->epilogue : "" };
	int rc = recipe_fill("stream.cu", keys, vals, sizeof keys / sizeof *keys, out, why);
	strbuf_release(&n);
	strbuf_release(&aligned);
	strbuf_release(&decl);
	strbuf_release(&loads);
	strbuf_release(&compute);
	strbuf_release(&scalar);
	strbuf_release(&vs);
	strbuf_release(&us);
	strbuf_release(&base);
	emit_ctx_release(&c);
	return rc;
}
