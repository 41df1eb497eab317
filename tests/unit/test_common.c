/*
 * test_common.c -- unit tests for common/: strbuf, strvec, fsutil.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
strbuf_grows_and_stays_terminated(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 2000);
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	char *s = strbuf_detach(&sb);
	assert_string_equal(sb.buf, "");
	assert_int_equal(strlen(s), 2000);
	free(s);
	strbuf_release(&sb);
}

static void
strvec_insert_remove_keep_null_terminator(void **state)
{
	struct strvec sv = STRVEC_INIT;
	strvec_push(&sv, "b");
	strvec_push(&sv, "d");
	strvec_insert(&sv, 0, "a");
	strvec_insert(&sv, 2, "c");
	char **v = strvec_argv(&sv);
	assert_int_equal(sv.n, 4);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[2], "c");
	assert_null(v[4]);
	strvec_remove(&sv, 1);
	assert_string_equal(sv.v[1], "c");
	assert_null(sv.v[3]);
	strvec_clear(&sv);
}

static void
fs_write_atomic_replaces_whole_file(void **state)
{
	char dir[] = "/tmp/egg-unit.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = fs_join(dir, "f");
	assert_int_equal(fs_write_atomic(path, "first version", 13), 0);
	assert_int_equal(fs_write_atomic(path, "second", 6), 0);
	char *data;
	size_t len;
	assert_int_equal(fs_read_file(path, 0, &data, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(data, "second");
	free(data);
	/* no temporary file left beside it */
	char *cmd = egg_xasprintf("test $(ls %s | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void
fs_read_file_reports_missing_and_too_big(void **state)
{
	char *data;
	size_t len;
	assert_int_equal(fs_read_file("/nonexistent/egg", 0, &data, &len), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(fs_read_file("/etc/passwd", 4, &data, &len), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(fs_read_file("/tmp", 0, &data, &len), -1);
	assert_int_equal(errno, EISDIR);
}

static void
fs_mkdir_p_creates_nested_and_accepts_existing(void **state)
{
	char dir[] = "/tmp/egg-unit.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *deep = egg_xasprintf("%s/a/b/c", dir);
	assert_int_equal(fs_mkdir_p(deep, 0755), 0);
	assert_int_equal(fs_mkdir_p(deep, 0755), 0);
	struct stat st;
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	char *cmd = egg_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(deep);
}

static void
fs_path_pieces(void **state)
{
	char *s;
	assert_string_equal(s = fs_basename("/a/b/c.cu"), "c.cu"), free(s);
	assert_string_equal(s = fs_basename("c.cu"), "c.cu"), free(s);
	assert_string_equal(s = fs_dirname("/a/b/c.cu"), "/a/b"), free(s);
	assert_string_equal(s = fs_dirname("c.cu"), "."), free(s);
	assert_string_equal(s = fs_dirname("/c.cu"), "/"), free(s);
	assert_string_equal(s = fs_join("a/", "b"), "a/b"), free(s);
	assert_string_equal(s = fs_join("a", "b"), "a/b"), free(s);
}

/* as ccache with base_dir writes a path under the working directory */
static void
fs_relative_path_spells_a_path_from_a_directory(void **state)
{
	char *s;
	assert_string_equal(s = fs_relative_path("/tmp/t", "/tmp/t/cache/k.cu"), "cache/k.cu"), free(s);
	assert_string_equal(s = fs_relative_path("/tmp/t/", "/tmp/t//cache/./k.cu"), "cache/k.cu"), free(s);
	assert_string_equal(s = fs_relative_path("/tmp/t/w", "/tmp/u/k.cu"), "../../u/k.cu"), free(s);
	assert_string_equal(s = fs_relative_path("/tmp/tt", "/tmp/t/k.cu"), "../t/k.cu"), free(s);
	assert_string_equal(s = fs_relative_path("/", "/k.cu"), "k.cu"), free(s);
	assert_string_equal(s = fs_relative_path("/a/b", "/a/b"), "."), free(s);
	assert_null(fs_relative_path("t", "/tmp/k.cu"));
	assert_null(fs_relative_path("/tmp", "k.cu"));
	assert_null(fs_relative_path("/tmp/../x", "/tmp/k.cu"));
	(void)state;
}

static void
fs_find_in_path_skips_the_excluded_file(void **state)
{
	char dir[] = "/tmp/egg-unit.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cmd = egg_xasprintf("mkdir %s/a %s/b && printf '#!/bin/sh\\n' > %s/a/tool && "
	                          "chmod +x %s/a/tool && cp %s/a/tool %s/b/tool",
	                          dir, dir, dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	char *path = egg_xasprintf("%s/none:%s/a:%s/b", dir, dir, dir);
	char *skip = egg_xasprintf("%s/a/tool", dir);
	char *found = fs_find_in_path("tool", path, NULL);
	assert_string_equal(found, skip);
	free(found);
	found = fs_find_in_path("tool", path, skip);
	assert_non_null(found);
	assert_true(egg_str_ends(found, "/b/tool"));
	free(found);
	assert_null(fs_find_in_path("absent", path, NULL));
	cmd = egg_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
	free(skip);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strbuf_grows_and_stays_terminated),
		cmocka_unit_test(strvec_insert_remove_keep_null_terminator),
		cmocka_unit_test(fs_write_atomic_replaces_whole_file),
		cmocka_unit_test(fs_read_file_reports_missing_and_too_big),
		cmocka_unit_test(fs_mkdir_p_creates_nested_and_accepts_existing),
		cmocka_unit_test(fs_path_pieces),
		cmocka_unit_test(fs_relative_path_spells_a_path_from_a_directory),
		cmocka_unit_test(fs_find_in_path_skips_the_excluded_file),
	};
	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
