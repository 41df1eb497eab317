/*
 * test_builtin_2d.c -- the builtin generator's 2-D families: transposes,
 * gathers and stencils lifted from maps by the shape of their indices, the
 * index shapes that must stay what they were or not lift at all (scatters,
 * threads reading what others write), and the candidates of each family.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "builtin/lift/affine.h"
#include "builtin/lift/lift_internal.h"
#include "tests/unit/builtin_helpers.h"

static const char transpose_closure[] =
	"__global__ void tk(const float *in, float *out, int rows, int cols) {\n"
	"  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
	"  if (x < cols && y < rows)\n    out[x * rows + y] = in[y * cols + x];\n}\n";
static const char transpose_launcher[] =
	"void tr(const float *in, float *out, int rows, int cols) {\n"
	"  dim3 b(16, 16);\n  dim3 g((cols + 15) / 16, (rows + 15) / 16);\n"
	"  tk<<<g, b>>>(in, out, rows, cols);\n}\n";
#define TRANSPOSE_PARAMS "const float *in:in, float *out:out, int rows:scalar, int cols:scalar"

static void
transposes_lift_as_transpose_stages(void **state)
{
	(void)state;
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "tr", TRANSPOSE_PARAMS, transpose_closure,
	                               transpose_launcher),
	                   "launcher tr\n"
	                   "stage 0 transpose kernel=tk n=(rows * cols) rows=rows cols=cols\n"
	                   "  let float st0_0 = in[((row * cols) + col)]\n"
	                   "  store out[((col * rows) + row)] = st0_0\n");
	/* reading the other layout, with element-wise work after it, a flat index */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "tr", "const float *a:in, const float *b:in, float *o:out, int m:scalar, int n:scalar",
	                               "__global__ void k(const float *a, const float *b, float *o, int m, int n) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < m * n) {\n    int r = i / n, c = i % n;\n"
	                               "    o[i] = fmaxf(a[c * m + r] * 2.0f + b[c], 0.0f);\n  }\n}\n",
	                               "void tr(const float *a, const float *b, float *o, int m, int n) {\n"
	                               "  k<<<(m * n + 255) / 256, 256>>>(a, b, o, m, n);\n}\n"),
	                   "launcher tr\n"
	                   "stage 0 transpose kernel=k n=(m * n) rows=m cols=n\n"
	                   "  let float st0_0 = fmaxf(((a[((((int)col) * m) + ((int)row))] * 2.0f) + b[((int)col)]), 0.0f)\n"
	                   "  store o[((row * n) + col)] = st0_0\n");
}

static void
gathers_lift_as_row_programs(void **state)
{
	(void)state;
	/* nn.Embedding: int64 ids, a flat index split by the row length */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "emb", "const long *ids:in, const float *table:in, float *out:out, int t:scalar, int d:scalar",
	                               "__global__ void k(const long *ids, const float *table, float *out, int t, int d) {\n"
	                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  if (i < t * d) {\n    int row = i / d;\n    int col = i % d;\n"
	                               "    out[i] = table[ids[row] * d + col];\n  }\n}\n",
	                               "void emb(const long *ids, const float *table, float *out, int t, int d) {\n"
	                               "  k<<<(t * d + 255) / 256, 256>>>(ids, table, out, t, d);\n}\n"),
	                   "launcher emb\n"
	                   "stage 0 rows kernel=k n=t\n"
	                   "  let long long base0_0 = (ids[((int)row)] * d)\n"
	                   "  loop col < d\n"
	                   "    let float st0_0 = table[(base0_0 + col)]\n"
	                   "    store out[((row * d) + col)] = st0_0\n");
}

static const char jacobi_closure[] =
	"__global__ void jac(const float *u, float *v, int h, int w, float c0, float c1) {\n"
	"  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
	"  if (i >= h || j >= w) return;\n"
	"  if (i == 0 || j == 0 || i == h - 1 || j == w - 1) {\n"
	"    v[i * w + j] = u[i * w + j];\n    return;\n  }\n"
	"  v[i * w + j] = c0 * u[i * w + j] + c1 * (u[(i - 1) * w + j] + u[i * w + j + 1]);\n}\n";
static const char jacobi_launcher[] =
	"void st(const float *u, float *v, int h, int w, float c0, float c1) {\n"
	"  dim3 b(32, 4);\n  dim3 g((w + 31) / 32, (h + 3) / 4);\n  jac<<<g, b>>>(u, v, h, w, c0, c1);\n}\n";
#define JACOBI_PARAMS "const float *u:in, float *v:out, int h:scalar, int w:scalar, float c0:scalar, float c1:scalar"

static void
expect_not_lifted_2d(const char *kernel, const char *reason)
{
	char *d = describe(make_bundle(BUNDLE_LAUNCHER, "st", "const float *u:in, float *v:out, int h:scalar, int w:scalar",
	                               kernel, "void st(const float *u, float *v, int h, int w) {\n"
	                               "  k<<<(h * w + 255) / 256, 256>>>(u, v, h, w);\n}\n"));
	if (!egg_str_starts(d, "not lifted: ") || !strstr(d, reason))
		fail_msg("expected 'not lifted: ...%s...', got: %s", reason, d);
	free(d);
}

static void
stencils_lift_with_their_boundary_as_a_select(void **state)
{
	(void)state;
	/* the early return after the border's store is the else it means */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "st", JACOBI_PARAMS, jacobi_closure, jacobi_launcher),
	                   "launcher st\n"
	                   "stage 0 stencil kernel=jac n=(h * w) rows=h cols=w\n"
	                   "  let float st0_0 = (((((row == 0) || (col == 0)) || (row == (h - 1))) || (col == (w - 1))) ? "
	                   "u[((row * w) + col)] : ((c0 * u[((row * w) + col)]) + (c1 * (u[(((row - 1) * w) + col)] + "
	                   "u[(((row * w) + col) + 1)]))))\n"
	                   "  store v[((row * w) + col)] = st0_0\n");
}

static void
skipped_borders_keep_their_elements(void **state)
{
	(void)state;
	/* a store under a condition on indices keeps the element elsewhere; the
	 * taps sit in the select's taken side, never read on the border */
	EXPECT_DESCRIPTION(make_bundle(BUNDLE_LAUNCHER, "st", "const float *u:in, float *v:inout, int h:scalar, int w:scalar",
	                               "__global__ void k(const float *u, float *v, int h, int w) {\n"
	                               "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                               "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
	                               "  if (x < w && y < h) {\n    int up = y - 1;\n"
	                               "    if (y > 0 && x < w - 1) v[y * w + x] = u[up * w + x] + u[y * w + x + 1];\n  }\n}\n",
	                               "void st(const float *u, float *v, int h, int w) {\n"
	                               "  dim3 b(32, 8);\n  dim3 g((w + 31) / 32, (h + 7) / 8);\n  k<<<g, b>>>(u, v, h, w);\n}\n"),
	                   "launcher st\n"
	                   "stage 0 stencil kernel=k n=(h * w) rows=h cols=w\n"
	                   "  let float st0_0 = (((row > 0) && (col < (w - 1))) ? (u[((((int)(row - 1)) * w) + col)] + "
	                   "u[(((row * w) + col) + 1)]) : v[((row * w) + col)])\n"
	                   "  store v[((row * w) + col)] = st0_0\n");
	/* on the data, it is still a partial write; a return inside a loop is not an else */
	expect_not_lifted_2d("__global__ void k(const float *u, float *v, int h, int w) {\n"
	                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                     "  if (i < h * w) { float a = u[i]; if (a > 0.0f) v[i] = a; }\n}\n", "partial write");
	expect_not_lifted_2d("__global__ void k(const float *u, float *v, int h, int w) {\n"
	                     "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
	                     "  if (r < h) { for (int j = 0; j < w; j++) { if (j == 3) { v[r] = 1.0f; return; } } v[r] = 0.0f; }\n}\n",
	                     "");
}

static void
affine_forms_tell_the_layouts_apart(void **state)
{
	(void)state;
	struct ir_expr *rows = ir_expr_new(IR_VAR, "R"), *cols = ir_expr_new(IR_VAR, "C");
	struct ir_expr *r = ir_expr_new(IR_IDX, NULL), *c = ir_expr_new(IR_IDX, NULL);
	r->idx = IR_ROW;
	c->idx = IR_COL;
	/* (row + 2) * C + col - 1: a neighbour */
	struct ir_expr *e = lift_bin("-", lift_bin("+", lift_bin("*", lift_bin("+", ir_expr_copy(r), ir_expr_new(IR_NUM, "2")),
	                                                          ir_expr_copy(cols)), ir_expr_copy(c)),
	                             ir_expr_new(IR_NUM, "1"));
	struct affine_access a = affine_classify(e, rows, cols);
	assert_int_equal(a.kind, AFF_ROW_MAJOR);
	assert_int_equal(a.dr, 2);
	assert_int_equal(a.dc, -1);
	ir_expr_free(e);
	/* col * R + row: the other layout; col * C + row is neither */
	e = lift_bin("+", lift_bin("*", ir_expr_copy(c), ir_expr_copy(rows)), ir_expr_copy(r));
	assert_int_equal(affine_classify(e, rows, cols).kind, AFF_TRANSPOSED);
	ir_expr_free(e);
	e = lift_bin("+", lift_bin("*", ir_expr_copy(c), ir_expr_copy(cols)), ir_expr_copy(r));
	assert_int_equal(affine_classify(e, rows, cols).kind, AFF_OTHER);
	ir_expr_free(e);
	/* row * row: not affine; bias[col]: a broadcast */
	e = lift_bin("*", ir_expr_copy(r), ir_expr_copy(r));
	assert_int_equal(affine_classify(e, rows, cols).kind, AFF_OTHER);
	ir_expr_free(e);
	assert_int_equal(affine_classify(c, rows, cols).kind, AFF_COL_ONLY);
	/* min(max(row - 1, 0), R - 1) * C + max(0, min(col + 3, C - 1)): clamped taps */
	struct ir_expr *mn = ir_expr_new(IR_CALL, "min"), *mx = ir_expr_new(IR_CALL, "max");
	ir_expr_add(mx, lift_bin("-", ir_expr_copy(r), ir_expr_new(IR_NUM, "1")));
	ir_expr_add(mx, ir_expr_new(IR_NUM, "0"));
	ir_expr_add(mn, mx);
	ir_expr_add(mn, lift_bin("-", ir_expr_copy(rows), ir_expr_new(IR_NUM, "1")));
	struct ir_expr *mn2 = ir_expr_new(IR_CALL, "min"), *mx2 = ir_expr_new(IR_CALL, "max");
	ir_expr_add(mn2, lift_bin("+", ir_expr_copy(c), ir_expr_new(IR_NUM, "3")));
	ir_expr_add(mn2, lift_bin("-", ir_expr_copy(cols), ir_expr_new(IR_NUM, "1")));
	ir_expr_add(mx2, ir_expr_new(IR_NUM, "0"));
	ir_expr_add(mx2, mn2);
	e = lift_bin("+", lift_bin("*", mn, ir_expr_copy(cols)), mx2);
	a = affine_classify(e, rows, cols);
	assert_int_equal(a.kind, AFF_CLAMPED);
	assert_int_equal(a.dr, -1);
	assert_int_equal(a.dc, 3);
	/* clamped to another extent: not the domain's border */
	e->kids[0]->kids[0]->kids[1]->kids[0]->text[0] = 'C';
	assert_int_equal(affine_classify(e, rows, cols).kind, AFF_OTHER);
	ir_expr_free(e);
	ir_expr_free(r);
	ir_expr_free(c);
	ir_expr_free(rows);
	ir_expr_free(cols);
}

static void
expect_description_starts(struct egg_bundle *b, const char *prefix, const char *needle)
{
	char *d = describe(b);
	if (!egg_str_starts(d, prefix) || !strstr(d, needle))
		fail_msg("expected '%s...%s...', got: %s", prefix, needle, d);
	free(d);
}

#define XY "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n" \
	   "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
#define GRID_LAUNCH(args) "  dim3 b(32, 8);\n  dim3 g((cols + 31) / 32, (rows + 7) / 8);\n  k<<<g, b>>>" args ";\n}\n"

/* One statement in a 2-D kernel, and what its description must start with and hold. */
static const struct {
	const char *stmt, *prefix, *needle;
} shapes[] = {
	/* a scatter: elements may collide */
	{ "out[idx[y] * cols + x] = v[y * cols + x];", "not lifted: ", "scatter" },
	/* every thread writes one element */
	{ "out[0] = v[y * cols + x];", "not lifted: ", "same element" },
	/* an in-place transpose or stencil: threads read what others write */
	{ "out[y * cols + x] = out[x * rows + y];", "not lifted: ", "other elements" },
	{ "out[y * cols + x] = out[y * cols + x + 1] + v[y * cols + x];", "not lifted: ", "other elements" },
	/* a gather whose index changes along the row, a store at the wrong stride,
	 * a far neighbour: the maps they were */
	{ "out[y * cols + x] = v[idx[y * cols + x] * cols + x];", "launcher f\nstage 0 map ",
	  "v[((idx[i] * cols) + (i % cols))]" },
	{ "out[x * cols + y] = v[y * cols + x];", "launcher f\nstage 0 map ", "store out" },
	{ "out[y * cols + x] = v[(y + 5) * cols + x];", "launcher f\nstage 0 map ", "store out" },
	/* an integer local that changes after it is set is not inlined into indices */
	{ "{ int k = y; k += 1; out[y * cols + x] = v[k * cols + x]; }", "launcher f\nstage 0 map ", "set k_0" },
};

static void
index_shapes_outside_the_families_stay_or_are_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		char *kernel = egg_xasprintf("__global__ void k(const int *idx, const float *v, float *out, int rows, int cols) {\n"
		                             XY "  if (y < rows && x < cols) %s\n}\n", shapes[i].stmt);
		expect_description_starts(make_bundle(BUNDLE_LAUNCHER, "f", "const int *idx:in, const float *v:in, float *out:out, int rows:scalar, int cols:scalar",
		                                      kernel, "void f(const int *idx, const float *v, float *out, int rows, int cols) {\n"
		                                      GRID_LAUNCH("(idx, v, out, rows, cols)")),
		                          shapes[i].prefix, shapes[i].needle);
		free(kernel);
	}
	/* a kernel target keeps its caller's geometry: the map recipe only */
	expect_description_starts(make_bundle(BUNDLE_KERNEL, "tk", TRANSPOSE_PARAMS, "", transpose_closure),
	                          "kernel tk\nstage 0 map ", "store out");
}

/* Thread indices declared together (int x = ..., y = ...;, in either order), as
 * C allows, lift as they do declared one by one: a transpose and a 2-D map get
 * the description they get from the one-by-one form. */
static void
thread_indices_declared_together_lift_as_declared_one_by_one(void **state)
{
	(void)state;
	static const char *const together[] = {
		"  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n",
		"  int y = blockIdx.y * blockDim.y + threadIdx.y, x = blockIdx.x * blockDim.x + threadIdx.x;\n",
	};
	static const char *const guarded[] = {
		"  if (x < cols && y < rows) out[x * rows + y] = v[y * cols + x];\n}\n",
		"  if (y < rows && x < cols) out[y * cols + x] = 2.0f * v[y * cols + x] + 1.0f;\n}\n",
	};
	const char *params = "const int *idx:in, const float *v:in, float *out:out, int rows:scalar, int cols:scalar";
	const char *launcher = "void f(const int *idx, const float *v, float *out, int rows, int cols) {\n"
	                       GRID_LAUNCH("(idx, v, out, rows, cols)");
	for (size_t g = 0; g < 2; g++) {
		char *one = egg_xasprintf("__global__ void k(const int *idx, const float *v, float *out, int rows, int cols) {\n"
		                          XY "%s", guarded[g]);
		char *want = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, one, launcher));
		assert_true(egg_str_starts(want, "launcher f\nstage 0 "));
		for (size_t t = 0; t < 2; t++) {
			char *k = egg_xasprintf("__global__ void k(const int *idx, const float *v, float *out, int rows, int cols) {\n"
			                        "%s%s", together[t], guarded[g]);
			char *got = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, k, launcher));
			assert_string_equal(got, want);
			free(got);
			free(k);
		}
		free(want);
		free(one);
	}
}

/* Indices written through function-like macros (#define IDX(r, c) ((r) * cols
 * + (c)), one macro using another, a ceiling division in the launcher) lift as
 * the same code written out; a macro whose body calls a function (a checking
 * macro) or pastes tokens is left a call, which is not lifted, as before. */
static void
function_like_macros_expand_where_their_body_is_an_expression(void **state)
{
	(void)state;
	const char *params = "const int *idx:in, const float *v:in, float *out:out, int rows:scalar, int cols:scalar";
	const char *launcher = "void f(const int *idx, const float *v, float *out, int rows, int cols) {\n"
	                       GRID_LAUNCH("(idx, v, out, rows, cols)");
	const char *sig = "__global__ void k(const int *idx, const float *v, float *out, int rows, int cols) {\n" XY;
	char *plain = egg_xasprintf("%s  if (y < rows && x < cols) out[x * rows + y] = 2.0f * v[y * cols + x];\n}\n", sig);
	char *want = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, plain, launcher));
	assert_true(egg_str_starts(want, "launcher f\nstage 0 transpose "));
	char *macros = egg_xasprintf("#define IDX(r, c) ((r) * cols + (c))\n#define AT(p, r, c) p[IDX(r, c)]\n"
	                             "#define SCALE (2.0f)\n"
	                             "%s  if (y < rows && x < cols) out[x * rows + y] = SCALE * AT(v, y, x);\n}\n", sig);
	char *got = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, macros, launcher));
	assert_string_equal(got, want);
	free(got);
	static const char *const kept[] = {
		"#define LOAD(p, i) __ldg_f(p, i)\n",   /* calls a function */
		"#define LOAD(p, i) p##_x[i]\n",        /* pastes */
	};
	for (size_t i = 0; i < 2; i++) {
		char *k = egg_xasprintf("%s%s  if (y < rows && x < cols) out[x * rows + y] = 2.0f * LOAD(v, y * cols + x);\n}\n",
		                        kept[i], sig);
		got = describe(make_bundle(BUNDLE_LAUNCHER, "f", params, k, launcher));
		if (!egg_str_starts(got, "not lifted: ") || !strstr(got, "LOAD"))
			fail_msg("expected LOAD kept as a call and refused, got: %s", got);
		free(got);
		free(k);
	}
	free(macros);
	free(want);
	free(plain);
}

static void
transpose_candidates_stage_through_padded_tiles(void **state)
{
	(void)state;
	struct builtin_output o = generate(make_bundle(BUNDLE_LAUNCHER, "tr", TRANSPOSE_PARAMS, transpose_closure,
	                                               transpose_launcher));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 6);
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		assert_non_null(strstr(o.candidates[i].label, "transpose tile="));
		assert_int_equal(count(s, "__shared__ float egg_tb0["), 1);
		assert_non_null(strstr(s, " + 1];"));          /* the padding column */
		assert_non_null(strstr(s, "out[(((int)egg_c * rows) + (int)egg_r)] = egg_tb0[egg_tx][egg_ty + egg_k];"));
		assert_int_equal(count(s, "<<<"), 1);
	}
	builtin_output_release(&o);
}

static void
tiles_beyond_shared_memory_are_not_emitted(void **state)
{
	(void)state;
	/* two double tiles of 64 x 65 need 66 KB: the 64-wide points are left out */
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "tr2", "const double *a:in, double *o1:out, double *o2:out, int rows:scalar, int cols:scalar",
		"__global__ void k(const double *a, double *o1, double *o2, int rows, int cols) {\n"
		"  int x = blockIdx.x * blockDim.x + threadIdx.x;\n  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
		"  if (x < cols && y < rows) { o1[x * rows + y] = a[y * cols + x]; o2[x * rows + y] = 2.0 * a[y * cols + x]; }\n}\n",
		"void tr2(const double *a, double *o1, double *o2, int rows, int cols) {\n"
		"  dim3 b(16, 16);\n  dim3 g((cols + 15) / 16, (rows + 15) / 16);\n  k<<<g, b>>>(a, o1, o2, rows, cols);\n}\n"));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 4);
	for (size_t i = 0; i < o.n_candidates; i++) {
		assert_null(strstr(o.candidates[i].label, "tile=64x64"));
		assert_int_equal(count(o.candidates[i].source, "__shared__ double egg_tb"), 2);
	}
	builtin_output_release(&o);
}

static void
stencil_candidates_read_taps_from_a_haloed_tile(void **state)
{
	(void)state;
	struct builtin_output o = generate(make_bundle(BUNDLE_LAUNCHER, "st", JACOBI_PARAMS, jacobi_closure,
	                                               jacobi_launcher));
	assert_null(o.not_lifted);
	assert_int_equal(o.n_candidates, 13);
	int tiled = 0, windowed = 0;
	for (size_t i = 0; i < o.n_candidates; i++) {
		const char *s = o.candidates[i].source;
		if (strstr(o.candidates[i].label, "tile=shared")) {
			tiled++;
			/* halo of one row (up) and one column (right): taps at +0 and +2 */
			assert_non_null(strstr(s, "egg_sb0[egg_ly + 0][egg_lx + 1]"));
			assert_non_null(strstr(s, "egg_sb0[egg_ly + 1][egg_lx + 2]"));
			assert_null(strstr(s, "u[((((int)egg_r - 1)"));
		} else if (strstr(o.candidates[i].label, "tile=registers")) {
			windowed++;
			/* the same taps from the strip's register tile inside the domain and
			 * from the sliding window at its edges; rows in and out 16 bytes wide */
			assert_non_null(strstr(s, "egg_t0[egg_k + 0][egg_x + 1]"));
			assert_non_null(strstr(s, "egg_t0[egg_k + 1][egg_x + 2]"));
			assert_non_null(strstr(s, "egg_w0[0][egg_x + 1]"));
			assert_non_null(strstr(s, "egg_w0[1][egg_x + 2]"));
			assert_null(strstr(s, "u[((((int)egg_r - 1)"));
			const char *vt = strstr(o.candidates[i].label, "columns=4") ? "float4" : "float2";
			char *ld = egg_xasprintf("__ldg(reinterpret_cast<const %s *>(&u[egg_f]))", vt);
			char *st = egg_xasprintf("*reinterpret_cast<%s *>(&v[egg_r * egg_C + egg_c0]) = egg_v;", vt);
			assert_non_null(strstr(s, ld));
			assert_non_null(strstr(s, st));
			free(ld);
			free(st);
			assert_int_equal(count(s, "<<<"), 1);
		} else {
			assert_non_null(strstr(s, "u[((((int)egg_r - 1) * w) + (int)egg_c)]"));
		}
	}
	assert_int_equal(tiled, 6);
	assert_int_equal(windowed, 6);
	builtin_output_release(&o);
}

static void
gather_candidates_stream_each_row(void **state)
{
	(void)state;
	struct builtin_output o = generate(make_bundle(
		BUNDLE_LAUNCHER, "g", "const int *idx:in, const float *table:in, float *out:out, int rows:scalar, int cols:scalar",
		"__global__ void k(const int *idx, const float *table, float *out, int rows, int cols) {\n" XY
		"  if (y < rows && x < cols) out[y * cols + x] = table[idx[y] * cols + x];\n}\n",
		"void g(const int *idx, const float *table, float *out, int rows, int cols) {\n" GRID_LAUNCH("(idx, table, out, rows, cols)")));
	assert_null(o.not_lifted);
	assert_true(o.n_candidates >= 6);
	/* the row's base is read once per row; past a scalar head (to the 16-byte
	 * boundary) the row moves 16 bytes at a time */
	assert_non_null(strstr(o.candidates[0].source, "long long base0_0 __attribute__((unused)) = (__ldg(&idx[egg_row]) * cols);"));
	assert_non_null(strstr(o.candidates[0].source, "__ldg(reinterpret_cast<const float4 *>(&table[(base0_0) + egg_jh + egg_jv * 4]))"));
	builtin_output_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(transposes_lift_as_transpose_stages),
		cmocka_unit_test(gathers_lift_as_row_programs),
		cmocka_unit_test(stencils_lift_with_their_boundary_as_a_select),
		cmocka_unit_test(skipped_borders_keep_their_elements),
		cmocka_unit_test(affine_forms_tell_the_layouts_apart),
		cmocka_unit_test(index_shapes_outside_the_families_stay_or_are_refused),
		cmocka_unit_test(thread_indices_declared_together_lift_as_declared_one_by_one),
		cmocka_unit_test(function_like_macros_expand_where_their_body_is_an_expression),
		cmocka_unit_test(transpose_candidates_stage_through_padded_tiles),
		cmocka_unit_test(tiles_beyond_shared_memory_are_not_emitted),
		cmocka_unit_test(stencil_candidates_read_taps_from_a_haloed_tile),
		cmocka_unit_test(gather_candidates_stream_each_row),
	};
	return cmocka_run_group_tests(tests, builtin_test_setup, NULL);
}
