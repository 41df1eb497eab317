/*
 * emit.c -- CUDA text from the description (see emit.h).
 *
 * Streams are the whole point: every load or store of buffer[inv + index] along
 * the loop variable becomes one 16-byte vector access per V elements, guarded by
 * a run-time alignment test, so that generated code is correct for any base
 * pointer and extent and fast when they allow it.
 */
#include "config.h"

#include "builtin/emit.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char components[] = "xyzw";

static int
split_stream(const struct ir_expr *ix, enum ir_index var, const struct ir_expr **inv)
{
	if (ix->kind == IR_IDX && ix->idx == var) {
		*inv = NULL;
		return 1;
	}
	if (ix->kind == IR_BIN && strcmp(ix->text, "+") == 0)
		for (int s = 0; s < 2; s++)
			if (ix->kids[s]->kind == IR_IDX && ix->kids[s]->idx == var &&
			    !ir_expr_uses_index(ix->kids[1 - s], var) && !ir_expr_has_load(ix->kids[1 - s])) {
				*inv = ix->kids[1 - s];
				return 1;
			}
	return 0;
}

static const char *pack_type(const char *t, int v);

int
emit_max_vector(const char *t)
{
	if (strcmp(t, "float") == 0 || strcmp(t, "int") == 0)
		return 4;
	if (strcmp(t, "double") == 0)
		return 2;
	return 1;
}

int
emit_narrow(const char *t)
{
	return pack_type(t, 2) != NULL;
}

int
emit_stream_width(const char *t, int want)
{
	if (emit_narrow(t))
		return want * 2 < 8 ? want * 2 : 8;
	int m = emit_max_vector(t);
	return want < m ? want : m;
}

/* The packs of the narrow types (egg_pack<T, N>, templates/narrow.cu), by N. */
static const char *
pack_type(const char *t, int v)
{
	static const struct { const char *type, *pack[3]; } packs[] = {
		{ "__nv_bfloat16", { "egg_pack<__nv_bfloat16, 2>", "egg_pack<__nv_bfloat16, 4>", "egg_pack<__nv_bfloat16, 8>" } },
		{ "nv_bfloat16", { "egg_pack<nv_bfloat16, 2>", "egg_pack<nv_bfloat16, 4>", "egg_pack<nv_bfloat16, 8>" } },
		{ "__half", { "egg_pack<__half, 2>", "egg_pack<__half, 4>", "egg_pack<__half, 8>" } },
		{ "half", { "egg_pack<half, 2>", "egg_pack<half, 4>", "egg_pack<half, 8>" } },
	};
	int k = v == 2 ? 0 : v == 4 ? 1 : v == 8 ? 2 : -1;
	for (size_t i = 0; k >= 0 && i < sizeof packs / sizeof *packs; i++)
		if (strcmp(t, packs[i].type) == 0)
			return packs[i].pack[k];
	return NULL;
}

/* The word a pack of v narrow elements moves through memory as. */
static const char *
pack_word(int v)
{
	return v == 8 ? "uint4" : v == 4 ? "uint2" : "unsigned int";
}

const char *
emit_vector_type(const char *t, int v)
{
	if (v == 1)
		return t;
	if (emit_narrow(t))
		return pack_type(t, v);
	if (strcmp(t, "float") == 0)
		return v == 4 ? "float4" : v == 2 ? "float2" : NULL;
	if (strcmp(t, "int") == 0)
		return v == 4 ? "int4" : v == 2 ? "int2" : NULL;
	if (strcmp(t, "double") == 0)
		return v == 2 ? "double2" : NULL;
	return NULL;
}

void
emit_component(const char *t, int v, int k, struct strbuf *out)
{
	if (v <= 1)
		return;
	if (emit_narrow(t))
		strbuf_addf(out, ".e[%d]", k);
	else
		strbuf_addf(out, ".%c", components[k]);
}

void
emit_vector_load(const char *t, int v, int ldg, int keep, const char *addr, struct strbuf *out)
{
	const char *vt = emit_vector_type(t, v);
	const char *word = emit_narrow(t) && v > 1 ? pack_word(v) : NULL;
	if (word)
		strbuf_addf(out, "egg_bits<%s>(", vt);
	if (ldg && keep)
		strbuf_addf(out, "egg_ldg_keep<%d>(reinterpret_cast<const %s *>(%s))", keep, word ? word : vt, addr);
	else if (ldg)
		strbuf_addf(out, "__ldg(reinterpret_cast<const %s *>(%s))", word ? word : vt, addr);
	else
		strbuf_addf(out, "*reinterpret_cast<const %s *>(%s)", word ? word : vt, addr);
	if (word)
		strbuf_addch(out, ')');
}

void
emit_vector_store(const char *t, int v, int streaming, const char *addr, const char *value,
                  struct strbuf *out)
{
	const char *vt = emit_vector_type(t, v);
	const char *word = emit_narrow(t) && v > 1 ? pack_word(v) : NULL;
	struct strbuf val = STRBUF_INIT;
	if (word)
		strbuf_addf(&val, "egg_bits<%s>(%s)", word, value);
	else
		strbuf_addstr(&val, value);
	if (streaming)
		strbuf_addf(out, "__stcs(reinterpret_cast<%s *>(%s), %s)", word ? word : vt, addr, val.buf);
	else
		strbuf_addf(out, "*reinterpret_cast<%s *>(%s) = %s", word ? word : vt, addr, val.buf);
	strbuf_release(&val);
}

static int
find_stream(const struct emit_ctx *c, const char *buffer, const struct ir_expr *ix, int is_store)
{
	const struct ir_expr *inv;
	if (!split_stream(ix, c->var, &inv))
		return -1;
	for (size_t i = 0; i < c->n_streams; i++)
		if (c->streams[i].is_store == is_store && strcmp(c->streams[i].buffer, buffer) == 0 &&
		    ir_expr_equal(c->streams[i].inv, inv))
			return (int)i;
	return -1;
}

static void
add_stream(struct emit_ctx *c, const char *buffer, const struct ir_expr *ix, int is_store)
{
	const struct ir_expr *inv;
	if (!split_stream(ix, c->var, &inv) || find_stream(c, buffer, ix, is_store) >= 0)
		return;
	const struct ir_param *p = ir_program_param(c->prog, buffer);
	if (p && p->optional)
		return; /* read only under its select, element by element (ir.h) */
	c->streams = egg_xrealloc(c->streams, (c->n_streams + 1) * sizeof *c->streams);
	c->streams[c->n_streams++] = (struct emit_stream){ buffer, inv, is_store,
		                                           p ? p->elem_type : "float" };
}

static void
collect_expr(struct emit_ctx *c, const struct ir_expr *e)
{
	if (!e)
		return;
	if (e->kind == IR_LOAD)
		add_stream(c, e->text, e->kids[0], 0);
	for (size_t i = 0; i < e->n_kids; i++)
		collect_expr(c, e->kids[i]);
}

void
emit_collect_streams(struct emit_ctx *c, const struct ir_block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		collect_expr(c, s->value);
		if (s->kind == IR_ACC) /* a scatter's index reads the data */
			collect_expr(c, s->index);
		if (s->kind == IR_STORE)
			add_stream(c, s->name, s->index, 1);
	}
}

void
emit_ctx_release(struct emit_ctx *c)
{
	free(c->streams);
	c->streams = NULL;
	c->n_streams = 0;
}

static int
read_only(const struct emit_ctx *c, const char *buffer)
{
	const struct ir_param *p = c->prog ? ir_program_param(c->prog, buffer) : NULL;
	return p && !p->written && (emit_max_vector(p->elem_type) > 1 || emit_narrow(p->elem_type));
}

static void
reg_name(const struct emit_ctx *c, int stream, struct strbuf *out)
{
	const struct emit_stream *s = &c->streams[stream];
	if (s->is_store)
		strbuf_addf(out, "egg_s%d", stream);
	else
		strbuf_addf(out, "%s%d%s", c->load_name ? c->load_name : "egg_l", stream,
		            c->reg_suffix ? c->reg_suffix : "");
	emit_component(s->elem_type, c->vec, c->component, out);
}

/* Loads: a stream's register in vector code, else the element (read-only
 * buffers through __ldg). */
static int
emit_leaf(void *ctx, const struct ir_expr *e, struct strbuf *out)
{
	const struct emit_ctx *c = ctx;
	if (e->kind == IR_CALL && c->approx_tanh && strcmp(e->text, "tanhf") == 0 && e->n_kids == 1) {
		strbuf_addstr(out, "egg_tanhf_approx(");
		emit_expr(c, e->kids[0], out);
		strbuf_addch(out, ')');
		return 1;
	}
	if (e->kind != IR_LOAD)
		return 0;
	if (c->subst_buffer && strcmp(e->text, c->subst_buffer) == 0 && ir_expr_equal(e->kids[0], c->subst_index)) {
		strbuf_addstr(out, c->subst_text);
		return 1;
	}
	int s = c->component >= 0 ? find_stream(c, e->text, e->kids[0], 0) : -1;
	if (s >= 0) {
		reg_name(c, s, out);
		return 1;
	}
	int ldg = read_only(c, e->text);
	strbuf_addf(out, "%s%s[", ldg ? "__ldg(&" : "", e->text);
	emit_expr(c, e->kids[0], out);
	strbuf_addstr(out, ldg ? "])" : "]");
	return 1;
}

void
emit_expr(const struct emit_ctx *c, const struct ir_expr *e, struct strbuf *out)
{
	struct ir_print_hooks h = { { c->index_text[0] ? c->index_text[0] : "0",
		                      c->index_text[1] ? c->index_text[1] : "0",
		                      c->index_text[2] ? c->index_text[2] : "0" },
		                    emit_leaf, (void *)c };
	ir_expr_print_with(e, &h, out);
}

void
emit_combine(const struct ir_stmt *acc, const char *a, const char *b, struct strbuf *out)
{
	if (acc->combine == IR_SUM || acc->combine == IR_PROD)
		strbuf_addf(out, "(%s %c %s)", a, acc->combine == IR_SUM ? '+' : '*', b);
	else
		strbuf_addf(out, "%s(%s, %s)", acc->combine_fn, a, b);
}

const char *
emit_identity(enum ir_combine op, const char *type)
{
	static const char *const wide[] = { "long long", "int64_t", "long", "ptrdiff_t", NULL };
	static const char *const uwide[] = { "unsigned long long", "uint64_t", "size_t", "unsigned long", NULL };
	static const char *const u32[] = { "unsigned", "unsigned int", "uint32_t", NULL };
	if (egg_str_starts(type, "const "))
		type += 6;
	int fp = strcmp(type, "float") == 0 || strcmp(type, "double") == 0 || emit_narrow(type);
	int k = 0; /* 1: signed 64-bit, 2: unsigned 64-bit, 3: unsigned 32-bit */
	for (int i = 0; !k && wide[i]; i++)
		k = strcmp(type, wide[i]) == 0 ? 1 : strcmp(type, uwide[i]) == 0 ? 2 : 0;
	for (int i = 0; !k && u32[i]; i++)
		k = strcmp(type, u32[i]) == 0 ? 3 : 0;
	switch (op) {
	case IR_SUM:
		return "0";
	case IR_PROD:
		return "1";
	case IR_MAX:
		return fp ? "-INFINITY" : k == 1 ? "(-9223372036854775807LL - 1)" : k ? "0u" : "(-2147483647 - 1)";
	default:
		return fp ? "INFINITY" : k == 1 ? "9223372036854775807LL" : k == 2 ? "18446744073709551615ull" :
		       k == 3 ? "4294967295u" : "2147483647";
	}
}

const char *
emit_atomic_name(const struct ir_stmt *acc)
{
	return acc->combine == IR_SUM ? "atomicAdd" : acc->combine == IR_MAX ? "atomicMax" : "atomicMin";
}

/* An atomic of s into its buffer, through c->atomic_copy for indices in [0, egg_ext). */
static void
emit_atomic(const struct emit_ctx *c, const struct ir_stmt *s, const char *indent, struct strbuf *out)
{
	struct strbuf v = STRBUF_INIT;
	strbuf_addf(&v, "(%s)(", s->type);
	emit_expr(c, s->value, &v);
	strbuf_addch(&v, ')');
	const char *f = emit_atomic_name(s);
	strbuf_addstr(out, "{\n");
	strbuf_addf(out, "%s\tconst long long egg_x = (long long)(", indent);
	emit_expr(c, s->index, out);
	strbuf_addstr(out, ");\n");
	const char *in2 = "\t";
	if (c->atomic_copy) {
		strbuf_addf(out, "%s\tif ((unsigned long long)egg_x < (unsigned long long)egg_ext)\n%s\t\t%s(&%s[%s], %s);\n%s\telse\n",
		            indent, indent, f, c->atomic_copy, c->atomic_slot ? c->atomic_slot : "egg_x",
		            v.buf, indent);
		in2 = "\t\t";
	}
	strbuf_addf(out, "%s%s%s(&%s[egg_x], %s);\n%s}", indent, in2, f, s->name, v.buf, indent);
	strbuf_release(&v);
}

/* Whether a statement of b from index from on (loop bodies included) names the
 * local name. */
static int
block_names_local(const struct ir_block *b, size_t from, const char *name)
{
	for (size_t i = from; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		if ((s->kind != IR_STORE && s->name && strcmp(s->name, name) == 0) ||
		    ir_expr_reads_local(s->value, name) || ir_expr_reads_local(s->index, name) ||
		    ir_expr_reads_local(s->bound, name) ||
		    (s->kind == IR_LOOP && block_names_local(&s->body, 0, name)))
			return 1;
	}
	return 0;
}

void
emit_block(const struct emit_ctx *c, const struct ir_block *b, const char *indent,
           struct strbuf *out)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct ir_stmt *s = b->stmts[i];
		strbuf_addstr(out, indent);
		switch (s->kind) {
		case IR_LET:
			/* a local the lifting left unread (a bound only the kernel's
			 * guard used, which the recipe's loop now keeps), or one read
			 * outside this block or not at all: marked, so that a user's
			 * -Werror all-warnings sees no #177-D or #550-D */
			strbuf_addf(out, "%s %s%s = ", s->type, s->name,
			            block_names_local(b, i + 1, s->name) ? "" : " __attribute__((unused))");
			emit_expr(c, s->value, out);
			break;
		case IR_ASSIGN:
			strbuf_addf(out, "%s = ", s->name);
			emit_expr(c, s->value, out);
			break;
		case IR_STORE: {
			const struct ir_param *q = c->prog ? ir_program_param(c->prog, s->name) : NULL;
			if (q && q->optional) /* an optional output: stored where it is given (ir.h) */
				strbuf_addf(out, "if (%s != nullptr) ", s->name);
			int st = c->component >= 0 ? find_stream(c, s->name, s->index, 1) : -1;
			if (st >= 0) {
				reg_name(c, st, out);
			} else {
				strbuf_addf(out, "%s[", s->name);
				emit_expr(c, s->index, out);
				strbuf_addch(out, ']');
			}
			strbuf_addstr(out, " = ");
			emit_expr(c, s->value, out);
			break;
		}
		case IR_ACC: {
			if (c->atomics && s->into_buffer) {
				emit_atomic(c, s, indent, out);
				strbuf_addch(out, '\n');
				continue;
			}
			struct strbuf v = STRBUF_INIT, p = STRBUF_INIT;
			emit_expr(c, s->value, &v);
			strbuf_addf(&p, "egg_p_%s", s->name);
			strbuf_addf(out, "%s = ", p.buf);
			emit_combine(s, p.buf, v.buf, out);
			strbuf_release(&v);
			strbuf_release(&p);
			break;
		}
		case IR_LOOP:
			assert(!"loops are emitted by the rows recipe");
			break;
		}
		strbuf_addstr(out, ";\n");
	}
}

static void
stream_address(const struct emit_ctx *c, const struct emit_stream *s, const char *base,
               struct strbuf *out)
{
	strbuf_addf(out, "&%s[", s->buffer);
	if (s->inv) {
		strbuf_addch(out, '(');
		emit_expr(c, s->inv, out);
		strbuf_addstr(out, ") + ");
	}
	strbuf_addf(out, "%s]", base);
}

void
emit_aligned_test(const struct emit_ctx *c, const char *base_text, struct strbuf *out)
{
	if (c->vec == 1 || c->n_streams == 0) {
		strbuf_addstr(out, "1");
		return;
	}
	for (size_t i = 0; i < c->n_streams; i++) {
		if (i)
			strbuf_addstr(out, " && ");
		strbuf_addstr(out, "(((unsigned long long)(");
		stream_address(c, &c->streams[i], base_text, out);
		strbuf_addf(out, ") & (%d * sizeof(%s) - 1)) == 0)", c->vec, c->streams[i].elem_type);
	}
}

void
emit_stream_loads(const struct emit_ctx *c, const char *base_text, const char *indent,
                  struct strbuf *out)
{
	int arrays = c->reg_suffix && c->reg_suffix[0];
	for (size_t i = 0; i < c->n_streams; i++) {
		const struct emit_stream *s = &c->streams[i];
		if (s->is_store || i < c->n_held)
			continue;
		const char *vt = emit_vector_type(s->elem_type, c->vec);
		strbuf_addstr(out, indent);
		if (!arrays)
			strbuf_addf(out, "const %s ", vt);
		strbuf_addf(out, "%s%zu%s = ", c->load_name ? c->load_name : "egg_l", i,
		            arrays ? c->reg_suffix : "");
		struct strbuf addr = STRBUF_INIT;
		stream_address(c, s, base_text, &addr);
		emit_vector_load(s->elem_type, c->vec, read_only(c, s->buffer), c->keep_loads, addr.buf, out);
		strbuf_addstr(out, ";\n");
		strbuf_release(&addr);
	}
}

void
emit_stream_stores(const struct emit_ctx *c, const char *base_text, const char *indent,
                   struct strbuf *out)
{
	for (size_t i = 0; i < c->n_streams; i++) {
		const struct emit_stream *s = &c->streams[i];
		if (!s->is_store)
			continue;
		struct strbuf addr = STRBUF_INIT;
		char *reg = egg_xasprintf("egg_s%zu", i);
		stream_address(c, s, base_text, &addr);
		strbuf_addstr(out, indent);
		emit_vector_store(s->elem_type, c->vec, c->streaming_stores, addr.buf, reg, out);
		strbuf_addstr(out, ";\n");
		free(reg);
		strbuf_release(&addr);
	}
}

void
emit_components(struct emit_ctx *c, const struct ir_block *b, const char *base_text,
                const char *indent, struct strbuf *out)
{
	for (size_t i = 0; i < c->n_streams; i++)
		if (c->streams[i].is_store)
			strbuf_addf(out, "%s%s egg_s%zu;\n", indent,
			            emit_vector_type(c->streams[i].elem_type, c->vec), i);
	const char *saved = c->index_text[c->var];
	struct strbuf in2 = STRBUF_INIT;
	strbuf_addf(&in2, "%s\t", indent);
	for (int k = 0; k < c->vec; k++) {
		char *ix = egg_xasprintf("(%s + %d)", base_text, k);
		c->index_text[c->var] = ix;
		c->component = k;
		strbuf_addf(out, "%s{\n", indent);
		if (c->lane_index)
			strbuf_addf(out, "%sconst int egg_lane = %d;\n%s(void)egg_lane;\n", in2.buf, k, in2.buf);
		emit_block(c, b, in2.buf, out);
		if (c->component_tail)
			strbuf_addf(out, "%s%s\n", in2.buf, c->component_tail);
		strbuf_addf(out, "%s}\n", indent);
		free(ix);
	}
	c->index_text[c->var] = saved;
	c->component = -1;
	strbuf_release(&in2);
	emit_stream_stores(c, base_text, indent, out);
}

void
emit_group_reduce(const struct ir_stmt *acc, const char *v, int g, const char *indent,
                  unsigned uniq, struct strbuf *out)
{
	struct strbuf sh = STRBUF_INIT;
	strbuf_addf(out, "%s#pragma unroll\n%sfor (int egg_o = %d; egg_o > 0; egg_o >>= 1)\n%s\t%s = ",
	            indent, indent, (g < 32 ? g : 32) / 2, indent, v);
	strbuf_addf(&sh, "__shfl_xor_sync(0xffffffffu, %s, egg_o)", v);
	emit_combine(acc, v, sh.buf, out);
	strbuf_addstr(out, ";\n");
	strbuf_reset(&sh);
	if (g > 32) {
		strbuf_addf(out, "%s__shared__ %s egg_sh%u[32];\n", indent, acc->type, uniq);
		strbuf_addf(out, "%s__syncthreads();\n", indent);
		strbuf_addf(out, "%sif ((threadIdx.x & 31) == 0)\n%s\tegg_sh%u[threadIdx.x >> 5] = %s;\n",
		            indent, indent, uniq, v);
		strbuf_addf(out, "%s__syncthreads();\n", indent);
		strbuf_addf(out, "%s%s = egg_sh%u[0];\n", indent, v, uniq);
		strbuf_addf(out, "%sfor (int egg_k = 1; egg_k < %d; egg_k++)\n%s\t%s = ", indent, g / 32,
		            indent, v);
		strbuf_addf(&sh, "egg_sh%u[egg_k]", uniq);
		emit_combine(acc, v, sh.buf, out);
		strbuf_addstr(out, ";\n");
	}
	strbuf_release(&sh);
}

void
emit_kernel_params(const struct ir_program *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->n_params; i++) {
		const struct ir_param *q = &p->params[i];
		if (i)
			strbuf_addstr(out, ", ");
		if (q->is_pointer)
			strbuf_addf(out, "%s%s *__restrict__ %s", q->written ? "" : "const ",
			            q->elem_type, q->name);
		else
			strbuf_addf(out, "%s %s", q->type, q->name);
	}
}

void
emit_kernel_args(const struct ir_program *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->n_params; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", p->params[i].name);
}

char *
emit_template_load(const char *name, struct strbuf *err)
{
	const char *dir = getenv("EGG_BUILTIN_TEMPLATES");
	char *fallback = NULL;
	if (!dir || !*dir)
		dir = fallback = egg_xasprintf("%s/templates", EGG_PKGDATADIR);
	char *path = fs_join(dir, name);
	char *data = NULL;
	size_t len;
	if (fs_read_file(path, 1 << 20, &data, &len) != 0)
		strbuf_addf(err, "cannot read the builtin template %s (set EGG_BUILTIN_TEMPLATES to "
		            "the templates folder)", path);
	free(path);
	free(fallback);
	return data;
}

void
emit_template_fill(const char *tmpl, const char *const *keys, const char *const *vals,
                   size_t n, struct strbuf *out)
{
	const char *s = tmpl;
	while (*s) {
		const char *at = strchr(s, '@');
		const char *end = at ? strchr(at + 1, '@') : NULL;
		if (!at || !end) {
			strbuf_addstr(out, s);
			return;
		}
		strbuf_add(out, s, (size_t)(at - s));
		size_t klen = (size_t)(end - at - 1), i;
		for (i = 0; i < n; i++)
			if (strlen(keys[i]) == klen && strncmp(keys[i], at + 1, klen) == 0)
				break;
		if (i == n) { /* not a key: keep the '@' and go on after it */
			strbuf_addch(out, '@');
			s = at + 1;
			continue;
		}
		strbuf_addstr(out, vals[i]);
		s = end + 1;
	}
}
