/*
 * test_clauses.c -- the clause parser of `#pragma egg optimize` and the
 * canonical form, which need no libclang.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyzer/canon.h"
#include "analyzer/clauses.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* A launcher (or kernel) with parameters "const float *x, float *y, float *idx, int n, int m". */
static struct egg_bundle *
target(enum bundle_kind kind)
{
	static const struct { const char *name; int ptr; } spec[] = {
		{ "x", 1 }, { "y", 1 }, { "idx", 1 }, { "n", 0 }, { "m", 0 },
	};
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->kind = kind;
	b->n_params = 5;
	b->params = egg_xcalloc(5, sizeof *b->params);
	for (size_t i = 0; i < 5; i++) {
		b->params[i].name = egg_xstrdup(spec[i].name);
		b->params[i].type = egg_xstrdup(spec[i].ptr ? "float *" : "int");
		b->params[i].elem_type = egg_xstrdup(spec[i].ptr ? "float" : "int");
		b->params[i].is_pointer = spec[i].ptr;
		b->params[i].is_const = i == 0; /* const float *x */
	}
	return b;
}

/* Parses text; returns the diagnostics (caller frees) and the bundle in *out. */
static struct clause_diags
parse(const char *text, enum bundle_kind kind, struct egg_bundle **out)
{
	struct clause_diags d = { NULL, 0 };
	*out = target(kind);
	static const char *const known[] = { "TILE", "MODE_A", NULL };
	size_t n = clauses_parse(text, *out, known, &d);
	assert_int_equal(n, d.n);
	return d;
}

static void
expect_one(const char *text, enum bundle_kind kind, size_t offset, const char *message)
{
	struct egg_bundle *b;
	struct clause_diags d = parse(text, kind, &b);
	if (d.n != 1 || strcmp(d.v[0].message, message) != 0 || d.v[0].offset != offset) {
		for (size_t i = 0; i < d.n; i++)
			print_error("got %zu: %s\n", d.v[i].offset, d.v[i].message);
		print_error("for %s\nwanted %zu: %s\n", text, offset, message);
		fail();
	}
	clause_diags_free(&d);
	bundle_free(b);
}

static void
test_full_pragma_fills_every_field(void **state)
{
	struct egg_bundle *b;
	struct clause_diags d = parse(
		"in(x[n * m], idx[n]) out(y[n]) range(idx, 0, m) workload(n = 1 << 10, m = 3) "
		"workload(n = 7, m = 2) tolerance(rtol = 1e-5, atol = 1e-6) precision(bf16)",
		BUNDLE_LAUNCHER, &b);
	assert_int_equal(d.n, 0);
	assert_int_equal(b->params[0].role, ROLE_IN);
	assert_string_equal(b->params[0].extent, "n * m");
	assert_int_equal(b->params[1].role, ROLE_OUT);
	assert_int_equal(b->params[2].role, ROLE_IN);
	assert_string_equal(b->params[2].range_lo, "0");
	assert_string_equal(b->params[2].range_hi, "m");
	assert_int_equal(b->params[3].role, ROLE_SCALAR);
	assert_int_equal(b->n_workloads, 2);
	assert_string_equal(b->workloads[0].bindings[0].value, "1 << 10");
	assert_string_equal(b->workloads[1].bindings[1].name, "m");
	assert_string_equal(b->rtol, "1e-5");
	assert_string_equal(b->atol, "1e-6");
	assert_int_equal(b->precision, PRECISION_BF16);
	assert_null(b->launch_grid);
	bundle_free(b);
}

static void
test_kernel_launch_clause_and_nested_commas(void **state)
{
	struct egg_bundle *b;
	struct clause_diags d = parse("inout(y[max(n, m)]), in(x[n], idx[n]), launch(dim3(n, m), 256, 4 * n) workload(n = 8, m = 2)",
				      BUNDLE_KERNEL, &b);
	assert_int_equal(d.n, 0);
	assert_string_equal(b->params[1].extent, "max(n, m)");
	assert_int_equal(b->params[1].role, ROLE_INOUT);
	assert_string_equal(b->launch_grid, "dim3(n, m)");
	assert_string_equal(b->launch_block, "256");
	assert_string_equal(b->launch_smem, "4 * n");
	bundle_free(b);
}

static void
test_extents_may_use_workload_names(void **state)
{
	struct egg_bundle *b;
	struct clause_diags d = parse("in(x[batch * n], y[n], idx[n * TILE]) workload(n = 4, batch = MODE_A, m = 1)",
				      BUNDLE_LAUNCHER, &b);
	assert_int_equal(d.n, 0);
	bundle_free(b);
}

static void
test_each_malformed_clause_has_its_message_and_offset(void **state)
{
	const enum bundle_kind L = BUNDLE_LAUNCHER, K = BUNDLE_KERNEL;
	struct { const char *text; enum bundle_kind kind; size_t offset; const char *msg; } cases[] = {
		{ "in(xs[n])", L, 3, "unknown parameter 'xs' in in(...); did you mean 'x'?" },
		{ "inn(x[n])", L, 0, "unknown clause 'inn'; did you mean 'in'?" },
		{ "out(y)", L, 5, "'y' in out(...) needs an extent: y[ELEMENTS]" },
		{ "in(x[n]) workload(n 3)", L, 18, "expected NAME = VALUE in workload(...)" },
		{ "in(x[n]) range(x, 0)", L, 15, "range(...) takes three arguments: range(BUFFER, LO, HI)" },
		{ "in(x[n]) tolerance(rtl = 1)", L, 19, "expected rtol = VALUE or atol = VALUE in tolerance(...)" },
		{ "in(x[n]) precision(fp8)", L, 19, "unknown precision 'fp8'; expected tf32, bf16 or fp16" },
		{ "in(x[n]) precision(bf61)", L, 19, "unknown precision 'bf61'; expected tf32, bf16 or fp16; did you mean 'bf16'?" },
		{ "in(x[n]) launch(n, 1)", L, 9, "launch(...) applies to a __global__ kernel; a launcher chooses its own geometry" },
		{ "in(x[n]) launch(n)", K, 16, "launch(...) takes two or three arguments: launch(GRID, BLOCK[, SMEM])" },
		{ "in(x[k])", L, 5, "unknown name 'k' in the extent of 'x'; it may use 'n', 'm'" },
		{ "in(x[nn])", L, 5, "unknown name 'nn' in the extent of 'x'; did you mean 'n'?" },
		{ "in(x[n]])", L, 6, "unbalanced ']' in the extent of 'x'" },
		{ "in(x[n; 1])", L, 6, "unexpected character ';' in the extent of 'x'" },
		{ "in(x[])", L, 5, "empty expression in the extent of 'x'" },
		{ "in(n[4])", L, 3, "'n' in in(...) is not a pointer parameter" },
		{ "in(x[n]) out(x[n])", L, 13, "parameter 'x' has two roles ('in' and 'out')" },
		{ "out(x[n])", L, 4, "'x' points to const data, so it cannot be out(...); did you mean in(...)?" },
		{ "in(x[n]", L, 2, "missing ')' to close clause 'in'" },
		{ "in x[n]", L, 3, "expected '(' after clause 'in'" },
		{ "in(x[n]) 42", L, 9, "expected a clause name, found '4'" },
		{ "in(x[n]) workload(n = 1, n = 2)", L, 25, "'n' is bound twice in one workload(...)" },
		{ "in(x[n]) range(q, 0, 1)", L, 15, "unknown parameter 'q' in range(...)" },
		{ "in(x[n]) tolerance(rtol = 1) tolerance(atol = 2)", L, 39, "tolerance(...) is given twice" },
		{ "in(x[n]) out(y[n])", L, CLAUSE_AT_PRAGMA,
		  "pointer parameter 'idx' has no role; name it in in(...), out(...), inout(...) or temp(...) with its extent" },
		{ "in(x[n]) out(y[n], idx[n])", K, CLAUSE_AT_PRAGMA,
		  "a __global__ target needs launch(GRID, BLOCK[, SMEM]) to know its callers' geometry" },
		{ "in(x[n]) out(y[n], idx[n]) workload(n = 4, m = 1) workload(n = 8)", L, CLAUSE_AT_PRAGMA,
		  "scalar parameter 'm' has no value in workload 2 of 2; give it one in every workload(...), e.g. workload(..., m = VALUE)" },
		{ "in(x[n]) out(y[n], idx[n])", L, CLAUSE_AT_PRAGMA,
		  "scalar parameter 'n' needs a value to check and time the function with; add workload(n = VALUE, ...)" },
	};
	/* A pragma with a problem is not also told about the roles it left out,
	 * so each case shows exactly its own message. */
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		expect_one(cases[i].text, cases[i].kind, cases[i].offset, cases[i].msg);
}

/* offset of the first occurrence of what in text, plus skip */
static size_t
at(const char *text, const char *what, size_t skip)
{
	const char *p = strstr(text, what);
	assert_non_null(p);
	return (size_t)(p - text) + skip;
}

/* Values known before anything runs are computed: the mistakes the harness would
 * only meet when it runs (an empty or negative extent, a division by zero, an
 * overflow, a size no GPU holds, an empty range, a negative tolerance) are
 * told at the pragma, pointing at the value. */
static void
test_bad_values_are_told_at_the_pragma(void **state)
{
	const enum bundle_kind L = BUNDLE_LAUNCHER;
	static const char neg[] = "in(x[n], idx[n]) out(y[n]) workload(n = -1, m = 1)";
	expect_one(neg, L, at(neg, "workload(", 9),
		   "buffer 'x' has -1 elements in workload 1 (its extent n must be at least 1)");
	static const char zero[] = "in(x[n], idx[n]) out(y[n]) workload(n = 4, m = 1) workload(n = 2 - 2, m = 1)";
	expect_one(zero, L, at(zero, "workload(n = 2", 9),
		   "buffer 'x' has 0 elements in workload 2 (its extent n must be at least 1)");
	static const char div[] = "in(x[n], idx[n]) out(y[n]) workload(n = 1/0, m = 1)";
	expect_one(div, L, at(div, "1/0", 0), "the value of 'n' divides by zero");
	static const char big[] = "in(x[n], idx[n]) out(y[n]) workload(n = 1<<62, m = 1)";
	expect_one(big, L, at(big, "1<<62", 0),
		   "n = 4611686018427387904 does not fit 'int' (-2147483648 to 2147483647)");
	static const char over[] = "in(x[n], idx[n]) out(y[n]) workload(n = 1 << 63, m = 1)";
	expect_one(over, L, at(over, "1 << 63", 0), "the value of 'n' overflows 64-bit arithmetic");
	static const char huge[] = "in(x[k * k], idx[n]) out(y[n]) workload(k = 1 << 30, n = 8, m = 1)";
	expect_one(huge, L, at(huge, "workload(", 9),
		   "buffer 'x' would take 4.61e+18 bytes in workload 1 (k * k elements), more than a GPU holds");
	static const char mdiv[] = "in(x[n / m], idx[n]) out(y[n]) workload(n = 8, m = 0)";
	expect_one(mdiv, L, at(mdiv, "workload(", 9), "the extent of 'x' (n / m) divides by zero in workload 1");
	static const char range[] = "in(x[n], idx[n]) out(y[n]) workload(n = 8, m = 1) range(idx, 10, 0)";
	expect_one(range, L, at(range, "10, 0", 0), "range(idx, 10, 0) is empty: LO must be below HI");
	static const char tol[] = "in(x[n], idx[n]) out(y[n]) workload(n = 8, m = 1) tolerance(rtol = -5)";
	expect_one(tol, L, at(tol, "-5", 0), "rtol = -5: a tolerance must not be negative");
	/* what cannot be known here, or is right, is left alone: names of the file
	 * (macros), calls, floating scalars, zero for a scalar no extent uses */
	static const char *const fine[] = {
		"in(x[n], idx[n]) out(y[n]) workload(n = TILE, m = 0)",
		"in(x[n], idx[n]) out(y[n]) workload(n = max(3, 4), m = -1)",
		"in(x[n * m], idx[n]) out(y[n]) workload(n = (1 << 20) + 3, m = n > 4 ? 2 : 1)",
		"in(x[n], idx[n]) out(y[n]) workload(n = 0x10, m = 1) range(idx, 0, n) tolerance(rtol = 1e-5, atol = 0)",
	};
	for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
		struct egg_bundle *b;
		struct clause_diags d = parse(fine[i], L, &b);
		if (d.n)
			fail_msg("%s: %s", fine[i], d.v[0].message);
		bundle_free(b);
		clause_diags_free(&d);
	}
}

/* workload(..., x = NULL): the function called without that pointer, as a
 * caller with an optional buffer does; NULL, nullptr and 0 are one value, and
 * nothing else binds a pointer */
static void
test_a_workload_may_leave_a_pointer_parameter_null(void **state)
{
	(void)state;
	const enum bundle_kind L = BUNDLE_LAUNCHER;
	struct egg_bundle *b;
	struct clause_diags d = parse("in(x[n], idx[n]) out(y[n]) workload(n = 4, m = 1) "
				      "workload(n = 4, m = 1, x = NULL) workload(n = 2, idx = nullptr, m = 1, x = (0))",
				      L, &b);
	assert_int_equal(d.n, 0);
	assert_int_equal(b->n_workloads, 3);
	assert_false(bundle_workload_leaves_null(b, &b->workloads[0], "x"));
	assert_true(bundle_workload_leaves_null(b, &b->workloads[1], "x"));
	assert_false(bundle_workload_leaves_null(b, &b->workloads[1], "idx"));
	assert_true(bundle_workload_leaves_null(b, &b->workloads[2], "idx"));
	assert_true(bundle_workload_leaves_null(b, &b->workloads[2], "x"));
	assert_string_equal(b->workloads[2].bindings[1].value, "NULL");
	assert_string_equal(b->workloads[2].bindings[3].value, "NULL");
	assert_true(bundle_param_is_optional(b, "x"));
	assert_false(bundle_param_is_optional(b, "y"));
	assert_false(bundle_param_is_optional(b, "n"));
	clause_diags_free(&d);
	bundle_free(b);
	/* only NULL; never every output; a pointer left NULL is no name an extent may use */
	static const struct { const char *text, *anchor; size_t skip; const char *msg; } bad[] = {
		{ "in(x[n], idx[n]) out(y[n]) workload(n = 4, m = 1, x = n)", "x = n", 4,
		  "pointer parameter 'x' can only be left NULL in workload(...) (x = NULL: a call without it)" },
		{ "in(x[n], idx[n]) out(y[n]) workload(n = 4, m = 1) workload(n = 4, m = 1, y = NULL)",
		  "workload(n = 4, m = 1, y", 9, "workload 2 leaves every output NULL: there is nothing to compare" },
		{ "in(x[n], idx[x]) out(y[n]) workload(n = 4, m = 1, x = NULL)", "idx[x", 4,
		  "unknown name 'x' in the extent of 'idx'; it may use 'n', 'm'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		expect_one(bad[i].text, L, at(bad[i].text, bad[i].anchor, bad[i].skip), bad[i].msg);
}

static void
test_suggest_finds_close_names_only(void **state)
{
	const char *names[] = { "rows", "cols", "x" };
	assert_string_equal(clauses_suggest("row", names, 3), "rows");
	assert_string_equal(clauses_suggest("xs", names, 3), "x");
	assert_null(clauses_suggest("banana", names, 3));
}

static void
test_canonical_form_drops_comments_and_layout(void **state)
{
	char *a = canon_text("__global__ void k(float *x) // c\n{\n  x[0] = 1.0f; /* b */\n}\n");
	char *b = canon_text("__global__   void k( float* x ){x[0]=1.0f;}");
	assert_string_equal(a, b);
	assert_string_equal(a, "__global__ void k ( float * x ) { x [ 0 ] = 1.0f ; }\n");
	free(a);
	free(b);
}

static void
test_canonical_form_keeps_directives_literals_and_operators(void **state)
{
	char *a = canon_text("#define SQ(x) \\\n  ((x)*(x))\n#define NEG (x)\nint s = SQ(a)>>1; const char *t = \"a  /* b */\";\n");
	assert_string_equal(a, "# define SQ( x ) ( ( x ) * ( x ) )\n# define NEG ( x )\n"
			       "int s = SQ ( a ) >> 1 ; const char * t = \"a  /* b */\" ;\n");
	char *b = canon_text("float f = 1e-5f + .5 + 0x1p3 + x++ + ++y;");
	assert_string_equal(b, "float f = 1e-5f + .5 + 0x1p3 + x ++ + ++ y ;\n");
	free(a);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_pragma_fills_every_field),
		cmocka_unit_test(test_kernel_launch_clause_and_nested_commas),
		cmocka_unit_test(test_extents_may_use_workload_names),
		cmocka_unit_test(test_each_malformed_clause_has_its_message_and_offset),
		cmocka_unit_test(test_bad_values_are_told_at_the_pragma),
		cmocka_unit_test(test_a_workload_may_leave_a_pointer_parameter_null),
		cmocka_unit_test(test_suggest_finds_close_names_only),
		cmocka_unit_test(test_canonical_form_drops_comments_and_layout),
		cmocka_unit_test(test_canonical_form_keeps_directives_literals_and_operators),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
