/*
 * test_outage.c -- the outage records (common/outage.h) that let a build's
 * compiles skip a server that stopped answering and warn about it once: who
 * warns, how long a record makes others skip, what clears it, and records that
 * are not to be trusted.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/outage.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME "http://cache.example/egg"

static int
setup(void **state)
{
	char tmpl[] = "/tmp/egg-outage.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	*state = egg_xasprintf("%s/outages", tmpl); /* not created: record makes it */
	return 0;
}

static int
teardown(void **state)
{
	char *base = fs_dirname(*state);
	char *cmd = egg_xasprintf("rm -rf '%s'", base);
	free(base);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(*state);
	return 0;
}

static void
test_the_first_failure_warns_and_others_of_the_same_attempt_do_not(void **state)
{
	const char *dir = *state;
	int64_t started = outage_now_ms();
	assert_int_equal(outage_record(dir, NAME, 60000, started), 1);
	/* compiles that started before that record was written (make -j) */
	assert_int_equal(outage_record(dir, NAME, 60000, started), 0);
	assert_int_equal(outage_record(dir, NAME, 60000, started - 5000), 0);
	/* another server is another outage */
	assert_int_equal(outage_record(dir, NAME "2", 60000, started), 1);
}

static void
test_a_continuing_outage_is_silent_and_a_new_one_warns(void **state)
{
	const char *dir = *state;
	int64_t now = outage_now_ms();
	assert_int_equal(outage_record(dir, NAME, 1000, now), 1);
	/* an attempt after one skip period, within two: the same outage */
	assert_int_equal(outage_record(dir, NAME, 1000, now + 1500), 0);
	/* one that started more than two periods after the last failure: a new one */
	assert_int_equal(outage_record(dir, NAME, 1000, outage_now_ms() + 2500), 1);
}

static void
test_a_record_skips_the_server_for_the_skip_period_only(void **state)
{
	const char *dir = *state;
	int64_t left = 0;
	int recorded = -1;
	assert_int_equal(outage_skipping(dir, NAME, 60000, &left, &recorded), 0);
	assert_int_equal(recorded, 0);
	outage_record(dir, NAME, 60000, outage_now_ms());
	assert_int_equal(outage_skipping(dir, NAME, 60000, &left, &recorded), 1);
	assert_int_equal(recorded, 1);
	assert_true(left > 59000 && left <= 60000);
	assert_int_equal(outage_skipping(dir, NAME "2", 60000, NULL, NULL), 0);
	/* 0: never skip, but the record is still seen (to be cleared) */
	assert_int_equal(outage_skipping(dir, NAME, 0, NULL, &recorded), 0);
	assert_int_equal(recorded, 1);
	usleep(30 * 1000);
	assert_int_equal(outage_skipping(dir, NAME, 20, NULL, &recorded), 0);
	assert_int_equal(recorded, 1);
}

static void
test_an_answer_clears_the_record(void **state)
{
	const char *dir = *state;
	int recorded;
	outage_record(dir, NAME, 60000, outage_now_ms());
	outage_clear(dir, NAME);
	assert_int_equal(outage_skipping(dir, NAME, 60000, NULL, &recorded), 0);
	assert_int_equal(recorded, 0);
	outage_clear(dir, NAME); /* nothing to clear: no harm */
	assert_int_equal(outage_record(dir, NAME, 60000, outage_now_ms()), 1);
}

/* Rewrites NAME's record (there is one file besides the lock) to text. */
static void
overwrite_record(const char *dir, const char *text)
{
	char *cmd = egg_xasprintf("for f in '%s'/*; do [ \"${f##*/}\" = lock ] || printf '%%s' '%s' "
	                          ">\"$f\"; done", dir, text);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void
test_records_from_the_future_or_garbled_are_not_trusted(void **state)
{
	const char *dir = *state;
	outage_record(dir, NAME, 60000, outage_now_ms());
	char *future = egg_xasprintf("egg-outage 1\n%lld\n" NAME "\n",
	                             (long long)outage_now_ms() + 3600 * 1000);
	overwrite_record(dir, future);
	free(future);
	assert_int_equal(outage_skipping(dir, NAME, 60000, NULL, NULL), 0);
	overwrite_record(dir, "egg-outage 1\nnonsense\n");
	assert_int_equal(outage_skipping(dir, NAME, 60000, NULL, NULL), 0);
	char *other = egg_xasprintf("egg-outage 1\n%lld\nhttp://other\n", (long long)outage_now_ms());
	overwrite_record(dir, other);
	free(other);
	assert_int_equal(outage_skipping(dir, NAME, 60000, NULL, NULL), 0);
}

static void
test_an_unwritable_directory_means_every_compile_warns(void **state)
{
	(void)state;
	const char *dir = "/proc/egg-no-such-dir/outages";
	assert_int_equal(outage_record(dir, NAME, 60000, outage_now_ms()), 1);
	assert_int_equal(outage_record(dir, NAME, 60000, outage_now_ms()), 1);
	assert_int_equal(outage_skipping(dir, NAME, 60000, NULL, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_first_failure_warns_and_others_of_the_same_attempt_do_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_continuing_outage_is_silent_and_a_new_one_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_record_skips_the_server_for_the_skip_period_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_answer_clears_the_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_from_the_future_or_garbled_are_not_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_unwritable_directory_means_every_compile_warns, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
