/*
 * test_scan.c -- unit tests for driver/scan: the fast path's annotation scan.
 * A false "no" loses an optimization, so the tricky spellings that must say yes
 * outnumber the ones that must say no.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "driver/scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static enum scan_result
scan_str(const char *s)
{
	return scan_buffer_has_annotation(s, strlen(s));
}

static void
pragma_spellings_with_blanks_are_found(void **state)
{
	static const char *const yes[] = {
		"#pragma egg optimize\n",
		"#pragma egg\n",
		"#pragma egg",
		"  #  pragma   egg optimize\n",
		"#\tpragma\tegg\toptimize\n",
		"__global__ void k() {}\n#pragma egg optimize\n__global__ void r() {}\n",
		"#pragma \\\negg optimize\n",
		"#pragma \\\r\negg optimize\n",
		"#pragma egg(optimize)\n",
		"// #pragma egg optimize\n", /* in a comment: a harmless false yes */
		"#pragma eggnog\n#pragma egg optimize\n", /* first hit rejected, second found */
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_int_equal(scan_str(yes[i]), SCAN_YES);
}

static void
operator_pragma_spellings_are_found(void **state)
{
	static const char *const yes[] = {
		"_Pragma(\"egg optimize\")",
		"_Pragma ( \"egg optimize\" )",
		"_Pragma\t(\t\"egg\")",
		"#define OPT _Pragma(\"egg optimize\")\nOPT\n",
		"_Pragma(R\"(egg optimize)\")",
		"_Pragma(\" egg optimize\")",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_int_equal(scan_str(yes[i]), SCAN_YES);
}

static void
other_eggs_are_not_annotations(void **state)
{
	static const char *const no[] = {
		"",
		"egg",
		"int egg = 1; // egg egg\n",
		"#pragma once\nint egg;\n",
		"#pragma eggs\n",
		"#pragma unroll egg\n",
		"#pragmaegg\n",
		"#pragma_egg\n",
		"my_pragma egg\n",
		"x_Pragma(\"egg\")",
		"_Pragma(\"eggplant\")",
		"\"egg\"",
		"(\"egg\")",
		"#include \"egg.h\"\n",
		"#pragma ",
		"eg",
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		if (scan_str(no[i]) != SCAN_NO)
			fail_msg("said yes to: %s", no[i]);
	}
}

static void
buffer_is_not_read_past_its_length(void **state)
{
	const char *s = "#pragma egg optimize";
	assert_int_equal(scan_buffer_has_annotation(s, 10), SCAN_NO); /* "#pragma eg" */
	assert_int_equal(scan_buffer_has_annotation(s, 11), SCAN_YES);
	assert_int_equal(scan_buffer_has_annotation(s + 9, 2), SCAN_NO);
}

static char *
write_temp(const char *text)
{
	char *path = strdup("/tmp/egg-test-scan.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void
files_are_scanned_and_unreadable_ones_are_errors(void **state)
{
	char *yes = write_temp("__global__ void k(float *x) {}\n#pragma egg optimize\n");
	char *no = write_temp("__global__ void k(float *x) {}\n");
	char *empty = write_temp("");
	assert_int_equal(scan_has_annotation(yes), SCAN_YES);
	assert_int_equal(scan_has_annotation(no), SCAN_NO);
	assert_int_equal(scan_has_annotation(empty), SCAN_NO);

	errno = 0;
	assert_int_equal(scan_has_annotation("/nonexistent/egg/k.cu"), SCAN_ERROR);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(scan_has_annotation("/tmp"), SCAN_ERROR);
	assert_int_equal(errno, EINVAL);
	if (geteuid() != 0) { /* root reads anything */
		chmod(yes, 0);
		assert_int_equal(scan_has_annotation(yes), SCAN_ERROR);
		assert_int_equal(errno, EACCES);
	}
	unlink(yes);
	unlink(no);
	unlink(empty);
	free(yes);
	free(no);
	free(empty);
}

static void
hit_at_end_of_a_large_file_is_found(void **state)
{
	size_t n = 4 << 20;
	char *big = malloc(n + 32);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = "egg  pragma\n#"[i % 13];
	strcpy(big + n, "\n#pragma egg optimize\n");
	assert_int_equal(scan_buffer_has_annotation(big, n), SCAN_NO);
	assert_int_equal(scan_buffer_has_annotation(big, strlen(big)), SCAN_YES);
	free(big);
}

/* Writes text at dir/name (dir/name's parent must exist). */
static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
annotations_in_included_user_headers_are_found_and_headers_outside_the_include_path_are_not_read(void **state)
{
	char dir[] = "/tmp/egg-test-scan.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[600], inc[600], path[700];
	snprintf(sub, sizeof sub, "%s/src", dir);
	snprintf(inc, sizeof inc, "%s/inc", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(inc, 0755), 0);
	/* a.cu -> "near.cuh" (beside it) -> <deep/k.cuh> (through -I) holds the pragma */
	assert_int_equal(mkdir(strcat(strcpy(path, inc), "/deep"), 0755), 0);
	put(sub, "a.cu", "#include <cuda_runtime.h>\n  #  include \"near.cuh\"\nint a;\n");
	put(sub, "near.cuh", "#pragma once\n#include <deep/k.cuh>\n");
	put(inc, "deep/k.cuh", "#pragma egg optimize in(x[n])\nvoid f(float *x, int n);\n");
	/* b.cu includes a header that includes itself, and one that names the pragma
	 * only in a string; c.cu's header is found only without -I */
	put(sub, "b.cu", "#include \"loop.cuh\"\n#include \"str.cuh\"\n#include \"missing.cuh\"\n");
	put(sub, "loop.cuh", "#include \"loop.cuh\"\n");
	put(sub, "str.cuh", "const char *s = \"egg\";\n");
	put(sub, "c.cu", "#include <deep/k.cuh>\n");
	/* d.cu's own text has the pragma only as an #include's name */
	put(sub, "d.cu", "#include \"pragma egg.h\"\n");
	const char *dirs[] = { inc };
	snprintf(path, sizeof path, "%s/a.cu", sub);
	assert_int_equal(scan_headers_have_annotation(path, dirs, 1), SCAN_YES);
	assert_int_equal(scan_headers_have_annotation(path, NULL, 0), SCAN_NO);
	assert_int_equal(scan_has_annotation(path), SCAN_NO);
	snprintf(path, sizeof path, "%s/b.cu", sub);
	assert_int_equal(scan_headers_have_annotation(path, dirs, 1), SCAN_NO);
	snprintf(path, sizeof path, "%s/c.cu", sub);
	assert_int_equal(scan_headers_have_annotation(path, dirs, 1), SCAN_YES);
	assert_int_equal(scan_headers_have_annotation(path, NULL, 0), SCAN_NO);
	snprintf(path, sizeof path, "%s/d.cu", sub);
	assert_int_equal(scan_headers_have_annotation(path, dirs, 1), SCAN_NO);
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pragma_spellings_with_blanks_are_found),
		cmocka_unit_test(operator_pragma_spellings_are_found),
		cmocka_unit_test(other_eggs_are_not_annotations),
		cmocka_unit_test(buffer_is_not_read_past_its_length),
		cmocka_unit_test(files_are_scanned_and_unreadable_ones_are_errors),
		cmocka_unit_test(hit_at_end_of_a_large_file_is_found),
		cmocka_unit_test(annotations_in_included_user_headers_are_found_and_headers_outside_the_include_path_are_not_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
