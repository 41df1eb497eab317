/*
 * rows_columns.c -- the column loop of a row program: a vector body over the
 * aligned span of the row, scalar code for its head and tail.
 *
 * A row of 50257 floats (a vocabulary) puts three rows in four off a 16-byte
 * boundary; testing only the row's start sent those rows down the scalar loop
 * (a fourth of the bytes in flight per load).  Here the row's first
 * (V - residue) % V columns are peeled off instead, so that the body's vector
 * accesses are aligned whatever the row's start, as long as every vector stream
 * has the same residue; a per-column stream (a norm's weight, aligned at column
 * 0 while the row is not) is then read element by element inside the vector
 * body rather than costing the row its vectors.  The head and the tail run in
 * one scalar loop, its index mapped around the body.
 */
#include "config.h"

#include "builtin/recipes/rows_columns.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* The address of stream s at column 0, as an unsigned integer. */
static void
address(const struct emit_ctx *c, const struct emit_stream *s, struct strbuf *out)
{
	strbuf_addf(out, "(unsigned long long)(&%s[", s->buffer);
	if (s->inv) {
		strbuf_addch(out, '(');
		emit_expr(c, s->inv, out);
		strbuf_addstr(out, ") + ");
	}
	strbuf_addstr(out, "0])");
}

/* The test that streams [0, n) of c are element-aligned and share stream 0's
 * residue modulo the vector, with egg_r that residue (declared before). */
static void
same_residue(const struct emit_ctx *c, const struct emit_stream *s, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, " && ");
		strbuf_addstr(out, "(");
		address(c, &s[i], out);
		strbuf_addf(out, " & (sizeof(%s) - 1)) == 0", s[i].elem_type);
		if (i == 0)
			continue;
		strbuf_addstr(out, " && ((");
		address(c, &s[i], out);
		strbuf_addf(out, " / sizeof(%s)) & %d) == egg_r", s[i].elem_type, c->vec - 1);
	}
}

/* One aligned variant: the residue of streams[0], the test, the head, the body. */
static void
emit_variant(const struct rows_columns *rc, struct emit_ctx *c, struct strbuf *out)
{
	const int v = c->vec;
	strbuf_addstr(out, "\t\t\t{\n\t\t\t\tconst int egg_r = (int)((");
	address(c, &c->streams[0], out);
	strbuf_addf(out, " / sizeof(%s)) & %d);\n\t\t\t\tif (", c->streams[0].elem_type, v - 1);
	same_residue(c, c->streams, c->n_streams, out);
	strbuf_addf(out, ") {\n"
	                 "\t\t\t\t\tegg_jh = (%d - egg_r) & %d;\n"
	                 "\t\t\t\t\tif (egg_jh > egg_cn)\n\t\t\t\t\t\tegg_jh = egg_cn;\n"
	                 "\t\t\t\t\tconst long long egg_cv = (egg_cn - egg_jh) / %d;\n", v, v - 1, v);
	char *base = egg_xasprintf("egg_jh + egg_jv * %d", v);
	rc->vector(rc->arg, c, base, out);
	free(base);
	strbuf_addf(out, "\t\t\t\t\tegg_j0 = egg_jh + egg_cv * %d;\n\t\t\t\t}\n\t\t\t}\n", v);
}

/* Whether stream s moves with the row (its offset reads the row index). */
static int
row_stream(const struct emit_stream *s)
{
	return s->inv && ir_expr_uses_index(s->inv, IR_ROW);
}

void
rows_emit_columns(const struct rows_columns *rc, struct strbuf *out)
{
	struct emit_ctx *c = rc->c;
	strbuf_addstr(out, "\t\t\tlong long egg_jh = 0, egg_j0 = 0;\n");
	if (c->vec > 1 && c->n_streams > 0) {
		size_t rows = 0;
		for (size_t i = 0; i < c->n_streams; i++)
			rows += row_stream(&c->streams[i]) != 0;
		emit_variant(rc, c, out);
		if (rows > 0 && rows < c->n_streams) {
			/* the row's streams aligned, the others element by element */
			struct emit_ctx r = *c;
			r.streams = egg_xcalloc(rows, sizeof *r.streams);
			r.n_streams = 0;
			for (size_t i = 0; i < c->n_streams; i++)
				if (row_stream(&c->streams[i]))
					r.streams[r.n_streams++] = c->streams[i];
			strbuf_addstr(out, "\t\t\tif (egg_j0 == 0 && egg_cn > 0)\n");
			emit_variant(rc, &r, out);
			free(r.streams);
		}
	}
	strbuf_addf(out, "#pragma unroll %d\n"
	                 "\t\t\tfor (long long egg_t = egg_lane; egg_t < egg_jh + egg_cn - egg_j0; egg_t += %d) {\n"
	                 "\t\t\t\tconst long long egg_j = egg_t < egg_jh ? egg_t : egg_t - egg_jh + egg_j0;\n",
	            rc->unroll, rc->g);
	rc->scalar(rc->arg, c, out);
	strbuf_addstr(out, "\t\t\t}\n");
}
