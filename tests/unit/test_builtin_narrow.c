/*
 * test_builtin_narrow.c -- the narrow float types in builtin/emit.c: which types
 * have packs and how wide a point's access is for each type.  The code the packs
 * make is proven by running it (tests/suites/builtin_narrow.bash: the CPU stand-in,
 * nvcc's PTX); these are the decisions that code rests on.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "builtin/emit.h"
#include "builtin/lift/ir.h"

static void
a_point_of_four_float_lanes_is_sixteen_bytes_of_every_type(void **state)
{
	(void)state;
	assert_int_equal(emit_stream_width("float", 4), 4);
	assert_int_equal(emit_stream_width("int", 4), 4);
	assert_int_equal(emit_stream_width("double", 4), 2);
	assert_int_equal(emit_stream_width("__nv_bfloat16", 4), 8);
	assert_int_equal(emit_stream_width("nv_bfloat16", 4), 8);
	assert_int_equal(emit_stream_width("__half", 4), 8);
	assert_int_equal(emit_stream_width("half", 4), 8);
	/* one lane: a pair of narrow elements, one element of the rest */
	assert_int_equal(emit_stream_width("__nv_bfloat16", 1), 2);
	assert_int_equal(emit_stream_width("float", 1), 1);
	/* types without vectors stay scalar */
	assert_int_equal(emit_stream_width("unsigned char", 4), 1);
	assert_int_equal(emit_stream_width("__nv_bfloat162", 4), 1);
}

static void
only_packs_of_two_four_or_eight_narrow_elements_exist(void **state)
{
	(void)state;
	for (int v = 2; v <= 8; v *= 2) {
		assert_non_null(emit_vector_type("__nv_bfloat16", v));
		assert_non_null(emit_vector_type("__half", v));
	}
	assert_null(emit_vector_type("__nv_bfloat16", 3));
	assert_null(emit_vector_type("__nv_bfloat16", 16));
	assert_null(emit_vector_type("float", 8));
	assert_string_equal(emit_vector_type("__half", 1), "__half");
	/* the fixed vector types keep their own names and components */
	assert_string_equal(emit_vector_type("float", 4), "float4");
	assert_int_equal(emit_max_vector("__nv_bfloat16"), 1);
	assert_true(emit_narrow("__half") && emit_narrow("nv_bfloat16") && !emit_narrow("float"));
}

static void
a_max_or_min_over_narrow_values_starts_at_an_infinity(void **state)
{
	(void)state;
	assert_string_equal(emit_identity(IR_MAX, "__nv_bfloat16"), "-INFINITY");
	assert_string_equal(emit_identity(IR_MIN, "__half"), "INFINITY");
	assert_string_equal(emit_identity(IR_MAX, "int"), "(-2147483647 - 1)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_point_of_four_float_lanes_is_sixteen_bytes_of_every_type),
		cmocka_unit_test(only_packs_of_two_four_or_eight_narrow_elements_exist),
		cmocka_unit_test(a_max_or_min_over_narrow_values_starts_at_an_infinity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
