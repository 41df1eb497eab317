/*
 * common.c -- helpers the recipes share: kernel names and signatures, host
 * launches sized to the device, template fills, and the streaming pass
 * (templates/stream.cu) that both element-wise maps and full reductions use.
 */
#include "config.h"

#include "builtin/recipes/common.h"
#include "common/util.h"

#include <ctype.h>
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

void
recipe_host_launch_wave(struct recipe_job *job, const char *name, const char *units,
                        long per_block, int tpb)
{
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t{\n\t\tstatic int egg_occ = 0;\n\t\tif (egg_occ <= 0) {\n"
	               "\t\t\tif (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&egg_occ, %s, %d, 0) != cudaSuccess || egg_occ <= 0)\n"
	               "\t\t\t\tegg_occ = %d;\n\t\t}\n"
	               "\t\tlong long egg_g = ((long long)(%s) + %ld - 1) / %ld;\n"
	               "\t\tconst long long egg_cap = (long long)egg_builtin_sm_count() * egg_occ;\n"
	               "\t\tif (egg_g > egg_cap)\n\t\t\tegg_g = egg_cap;\n",
	            name, tpb, 2048 / tpb, units, per_block, per_block);
	strbuf_addf(h, "\t\tif (egg_g > 2147483647LL)\n\t\t\tegg_g = 2147483647LL;\n"
	               "\t\tif (egg_g < 1)\n\t\t\tegg_g = 1;\n\t\t%s<<<(unsigned)egg_g, %d>>>(",
	            name, tpb);
	emit_kernel_args(job->prog, h);
	strbuf_addstr(h, ");\n\t}\n");
}

void
recipe_host_cooperative(struct recipe_job *job, const char *name, int tpb, const char *extra_args)
{
	struct strbuf *h = job->host;
	strbuf_addf(h, "\t\t\tcudaLaunchConfig_t egg_cfg = {};\n"
	               "\t\t\tcudaLaunchAttribute egg_at[1];\n"
	               "\t\t\tegg_at[0].id = cudaLaunchAttributeCooperative;\n"
	               "\t\t\tegg_at[0].val.cooperative = 1;\n"
	               "\t\t\tegg_cfg.gridDim = dim3((unsigned)egg_g);\n"
	               "\t\t\tegg_cfg.blockDim = dim3(%d);\n"
	               "\t\t\tegg_cfg.dynamicSmemBytes = egg_smem;\n"
	               "\t\t\tegg_cfg.stream = 0;\n"
	               "\t\t\tegg_cfg.attrs = egg_at;\n"
	               "\t\t\tegg_cfg.numAttrs = 1;\n"
	               "\t\t\tegg_done = cudaLaunchKernelEx(&egg_cfg, %s, ",
	            tpb, name);
	emit_kernel_args(job->prog, h);
	strbuf_addf(h, "%s) == cudaSuccess;\n\t\t\tif (!egg_done)\n\t\t\t\tcudaGetLastError();\n", extra_args);
}

int
recipe_same_extent(const struct ir_expr *a, const struct ir_expr *b)
{
	if (ir_expr_equal(a, b))
		return 1;
	struct strbuf ta = STRBUF_INIT, tb = STRBUF_INIT;
	ir_expr_print(a, &ta);
	ir_expr_print(b, &tb);
	int same = strcmp(ta.buf, tb.buf) == 0 && !ir_expr_has_load(a) && !ir_expr_has_load(b);
	strbuf_release(&ta);
	strbuf_release(&tb);
	return same;
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
	int v = 0;
	for (size_t i = 0; i < c->n_streams; i++) {
		int m = emit_stream_width(c->streams[i].elem_type, want);
		if (v == 0 || m < v)
			v = m;
	}
	return v ? v : want;
}

int
recipe_stream_vector_exact(struct emit_ctx *c, int want)
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
recipe_units_vector(const struct ir_program *p, enum ir_index var, const struct ir_block *body, int want)
{
	struct emit_ctx c = { .prog = p, .var = var, .component = -1 };
	emit_collect_streams(&c, body);
	int v = recipe_stream_vector(&c, want);
	emit_ctx_release(&c);
	return v > want ? v : want;
}

/* The vector path's divisions by an invariant (i / X, i % X: a broadcast
 * operand's column; (i / X) % Y: an NCHW channel) are done once per vector:
 * with b = egg_w * V, q = b / X and r = b - q * X, lane k's quotient and
 * remainder are q or q + 1 and r + k or r + k - X, one wrap at most when
 * X >= V, and its (i / X) % Y is m = q % Y or the next one, m + 1 wrapped to 0 at
 * Y.  X >= V and Y >= 1 join the vector path's condition; other divisors take
 * the scalar path, which divides as written. */
#define MAX_LANE_DIVS 4

struct lane_divs {
	const struct ir_expr *x[MAX_LANE_DIVS], *y[MAX_LANE_DIVS]; /* y: NULL or the outer % */
	int used_q[MAX_LANE_DIVS], used_r[MAX_LANE_DIVS]; /* the body reads these lanes' arrays */
	size_t n;
	enum ir_index var;
	const struct ir_program *prog;
};

int
recipe_integral_type(const char *t)
{
	static const char *const names[] = { "int", "unsigned", "unsigned int", "long", "long long",
		                             "unsigned long", "unsigned long long", "size_t",
		                             "int64_t", "int32_t", "uint32_t", "uint64_t",
		                             "short", "unsigned short", "ptrdiff_t" };
	if (egg_str_starts(t, "const "))
		t += 6;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(t, names[i]) == 0)
			return 1;
	return 0;
}

/* C text of a launch's scalar argument, "W" or "(H / 2)": integer parameters,
 * integer literals, + - * / % and parentheses only. */
static int
int_invariant_text(const struct ir_program *p, const char *t)
{
	while (*t) {
		if (isalpha((unsigned char)*t) || *t == '_') {
			const char *e = t;
			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			char *name = egg_xstrndup(t, (size_t)(e - t));
			const struct ir_param *q = ir_program_param(p, name);
			free(name);
			if (!q || q->is_pointer || !recipe_integral_type(q->type))
				return 0;
			t = e;
		} else if (isdigit((unsigned char)*t)) {
			while (isdigit((unsigned char)*t))
				t++;
			if (isalnum((unsigned char)*t) || *t == '.' || *t == '_')
				return 0; /* 1.5, 2f, 0x10, 10u: not a plain integer literal */
		} else if (strchr("+-*/%() ", *t)) {
			t++;
		} else {
			return 0;
		}
	}
	return 1;
}

int
recipe_int_invariant(const struct ir_program *p, const struct ir_expr *e)
{
	switch (e->kind) {
	case IR_NUM:
		return strspn(e->text, "0123456789") == strlen(e->text);
	case IR_VAR:
		return int_invariant_text(p, e->text);
	case IR_CAST:
		return recipe_integral_type(e->text) && recipe_int_invariant(p, e->kids[0]);
	case IR_BIN:
		if (!strchr("+-*/%", e->text[0]) || e->text[1])
			return 0;
		return recipe_int_invariant(p, e->kids[0]) && recipe_int_invariant(p, e->kids[1]);
	default:
		return 0;
	}
}

static int
lane_invariant(const struct lane_divs *d, const struct ir_expr *e)
{
	return recipe_int_invariant(d->prog, e);
}

/* i / X or i % X with X invariant: X, else NULL. */
static const struct ir_expr *
lane_divisor(const struct lane_divs *d, const struct ir_expr *e, char op)
{
	return e->kind == IR_BIN && e->text[0] == op && e->text[1] == '\0' &&
	       e->kids[0]->kind == IR_IDX && e->kids[0]->idx == d->var && lane_invariant(d, e->kids[1]) ?
	               e->kids[1] : NULL;
}

/* The local of (x, y) ("q", "r" or, with y, "m"), or NULL when the table is full. */
static struct ir_expr *
lane_local(struct lane_divs *d, const struct ir_expr *x, const struct ir_expr *y, char what)
{
	/* one division per divisor: a quotient or remainder takes any entry of x,
	 * a channel the entry of (x, y) or one of x still without its y */
	size_t j;
	for (j = 0; j < d->n; j++)
		if (ir_expr_equal(d->x[j], x) && (!y || !d->y[j] || ir_expr_equal(d->y[j], y)))
			break;
	if (j == MAX_LANE_DIVS)
		return NULL;
	if (j == d->n) {
		d->x[j] = x;
		d->y[j] = NULL;
		d->n++;
	}
	if (y)
		d->y[j] = y;
	if (what == 'q')
		d->used_q[j] = 1;
	if (what == 'r')
		d->used_r[j] = 1;
	char *t = egg_xasprintf("egg_d%c%zu[egg_lane]", what, j);
	struct ir_expr *l = ir_expr_new(IR_LOCAL, t);
	free(t);
	return l;
}

static struct ir_expr *
hoist_expr(struct lane_divs *d, const struct ir_expr *e)
{
	if (!e)
		return NULL;
	const struct ir_expr *x;
	struct ir_expr *l = NULL;
	if (e->kind == IR_BIN && strcmp(e->text, "%") == 0 && (x = lane_divisor(d, e->kids[0], '/')) &&
	    lane_invariant(d, e->kids[1]))
		l = lane_local(d, x, e->kids[1], 'm');
	else if ((x = lane_divisor(d, e, '/')) || (x = lane_divisor(d, e, '%')))
		l = lane_local(d, x, NULL, e->text[0] == '/' ? 'q' : 'r');
	if (l)
		return l;
	struct ir_expr *c = ir_expr_new(e->kind, e->text);
	c->idx = e->idx;
	for (size_t i = 0; i < e->n_kids; i++)
		ir_expr_add(c, hoist_expr(d, e->kids[i]));
	return c;
}

/* A copy of b (no loops) with the divisions rewritten; divisors borrowed from b. */
static struct ir_block
hoist_block(struct lane_divs *d, const struct ir_block *b)
{
	struct ir_block out = { 0 };
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		struct ir_stmt *c = ir_stmt_new(s->kind);
		*c = *s;
		c->name = s->name ? egg_xstrdup(s->name) : NULL;
		c->type = s->type ? egg_xstrdup(s->type) : NULL;
		c->combine_fn = s->combine_fn ? egg_xstrdup(s->combine_fn) : NULL;
		c->index = hoist_expr(d, s->index);
		c->value = hoist_expr(d, s->value);
		c->bound = ir_expr_copy(s->bound);
		c->body = (struct ir_block){ 0 };
		ir_block_add(&out, c);
	}
	return out;
}

static void
paren(const struct emit_ctx *c, const struct ir_expr *e, struct strbuf *out)
{
	strbuf_addch(out, '(');
	emit_expr(c, e, out);
	strbuf_addch(out, ')');
}

static void
lane_div_code(const struct emit_ctx *c, const struct lane_divs *d, struct strbuf *pre,
              struct strbuf *cond)
{
	const char *in = "\t\t\t\t\t";
	for (size_t j = 0; j < d->n; j++) {
		struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
		paren(c, d->x[j], &x);
		strbuf_addf(cond, " && %s >= %d", x.buf, c->vec);
		/* only the arrays the body reads (nvcc warns of the others) */
		const struct { int used; char what; } arr[] = { { d->used_q[j], 'q' }, { d->used_r[j], 'r' },
			                                      { d->y[j] != NULL, 'm' } };
		for (size_t a = 0; a < 3; a++)
			if (arr[a].used)
				strbuf_addf(pre, "%slong long egg_d%c%zu[%d];\n", in, arr[a].what, j, c->vec);
		strbuf_addf(pre, "%s{\n%s\tconst long long egg_b = egg_w * %d, egg_q = egg_b / %s, egg_r = egg_b - egg_q * %s;\n",
		            in, in, c->vec, x.buf, x.buf);
		if (d->y[j]) {
			paren(c, d->y[j], &y);
			strbuf_addf(cond, " && %s >= 1", y.buf);
			strbuf_addf(pre, "%s\tconst long long egg_m = egg_q %% %s, egg_m1 = egg_m + 1 == %s ? 0 : egg_m + 1;\n",
			            in, y.buf, y.buf);
		}
		strbuf_addf(pre, "#pragma unroll\n%s\tfor (int egg_k = 0; egg_k < %d; egg_k++) {\n"
		                 "%s\t\tconst bool egg_o = egg_r + egg_k >= %s;\n",
		            in, c->vec, in, x.buf);
		if (d->used_q[j])
			strbuf_addf(pre, "%s\t\tegg_dq%zu[egg_k] = egg_o ? egg_q + 1 : egg_q;\n", in, j);
		if (d->used_r[j])
			strbuf_addf(pre, "%s\t\tegg_dr%zu[egg_k] = egg_o ? egg_r + egg_k - %s : egg_r + egg_k;\n",
			            in, j, x.buf);
		if (d->y[j])
			strbuf_addf(pre, "%s\t\tegg_dm%zu[egg_k] = egg_o ? egg_m1 : egg_m;\n", in, j);
		strbuf_addf(pre, "%s\t}\n%s}\n", in, in);
		strbuf_release(&x);
		strbuf_release(&y);
	}
}

int
recipe_stream_kernel(struct recipe_job *job, const struct stream_spec *sp, struct strbuf *out,
                     struct strbuf *why)
{
	struct emit_ctx c = { .prog = job->prog, .var = sp->var, .component = -1,
		              .atomics = sp->atomics, .atomic_copy = sp->atomic_copy,
		              .atomic_slot = sp->atomic_slot, .approx_tanh = sp->approx_tanh };
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
	struct lane_divs d = { .var = sp->var, .prog = job->prog };
	struct ir_block hoisted = { 0 };
	if (c.vec > 1 && sp->var == IR_I) {
		hoisted = hoist_block(&d, sp->body);
		lane_div_code(&c, &d, &compute, &aligned);
	}
	c.lane_index = d.n > 0;
	emit_components(&c, d.n ? &hoisted : sp->body, base.buf, "\t\t\t\t\t", &compute);
	c.lane_index = 0;
	ir_block_free(&hoisted);
	c.reg_suffix = NULL;
	emit_block(&c, sp->body, "\t\t", &scalar);
	strbuf_addf(&vs, "%d", c.vec);
	strbuf_addf(&us, "%d", sp->inflight);
	const char *keys[] = { "LABEL", "SIG", "N", "V", "U", "ALIGNED", "LOADDECL", "LOADS",
		               "COMPUTE", "SCALAR", "PROLOGUE", "EPILOGUE", "W", "WOK" };
	const char *vals[] = { sp->label, sp->sig, n.buf, vs.buf, us.buf, aligned.buf, decl.buf,
		               loads.buf, compute.buf, scalar.buf, sp->prologue ? sp->prologue : "",
		               sp->epilogue ? sp->epilogue : "",
		               sp->reverse ? "egg_nv - 1 - (egg_w0 + egg_u * egg_stride)" : "egg_w0 + egg_u * egg_stride",
		               sp->reverse ? "egg_w >= 0" : "egg_w < egg_nv" };
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
