/*
 * test_cache_store.c -- the local store (round trip, invalid entries, LRU
 * eviction, counters under concurrent processes) and single-flight locks
 * (busy, released while waiting, holder killed).
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cache/lock.h"
#include "cache/store.h"
#include "common/fsutil.h"
#include "common/util.h"
#include "common/digest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *
make_dir(void)
{
	char tmpl[] = "/tmp/egg-store.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return egg_xstrdup(tmpl);
}

static void
remove_dir(char *dir)
{
	char *cmd = egg_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
}

static void
key_for(int i, char key[65])
{
	char s[32];
	snprintf(s, sizeof s, "entry-%d", i);
	egg_sha256_hex(s, strlen(s), key);
}

static struct cache_entry *
entry_for(int i, size_t source_size)
{
	char key[65];
	key_for(i, key);
	struct cache_entry *e = cache_entry_new(key);
	char *src = egg_xmalloc(source_size + 1);
	memset(src, 'a' + i % 26, source_size);
	src[source_size] = '\0';
	cache_entry_set_source(e, src);
	free(src);
	return e;
}

static void
put(struct cache_store *s, int i, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct cache_entry *e = entry_for(i, size);
	if (cache_store_put(s, e, &err) != 0)
		fail_msg("put %d: %s", i, err.buf);
	cache_entry_free(e);
	strbuf_release(&err);
}

static uint64_t
stat_of(struct cache_store *s, enum cache_stat which)
{
	struct cache_stats st;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(cache_store_stats_read(s, &st, &err), 0);
	strbuf_release(&err);
	return st.v[which];
}

static void
store_round_trip_counts_hits_misses_and_bytes(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	struct cache_store *s = cache_store_open(dir, 0, &err);
	assert_non_null(s);
	char key[65];
	key_for(1, key);
	struct cache_entry *got;
	assert_int_equal(cache_store_get(s, key, 0, &got), 0);
	put(s, 1, 100);
	assert_int_equal(cache_store_get(s, key, 0, &got), 1);
	assert_int_equal(strlen(cache_entry_source(got)), 100);
	cache_entry_free(got);
	/* fan-out: ab/cdef... */
	char *path = cache_store_path(s, key);
	char *expect = egg_xasprintf("%s/%.2s/%s", dir, key, key + 2);
	assert_string_equal(path, expect);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(stat_of(s, CACHE_STAT_HITS), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_MISSES), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_STORES), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_ENTRIES), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_BYTES), st.st_size);
	/* replacing the entry does not count it twice */
	put(s, 1, 300);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(stat_of(s, CACHE_STAT_ENTRIES), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_BYTES), st.st_size);
	free(path);
	free(expect);
	cache_store_close(s);
	strbuf_release(&err);
	remove_dir(dir);
}

static void
invalid_entry_is_a_miss_and_is_removed(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	struct cache_store *s = cache_store_open(dir, 0, &err);
	put(s, 2, 50);
	char key[65];
	key_for(2, key);
	char *path = cache_store_path(s, key);
	char *data;
	size_t len;
	assert_int_equal(fs_read_file(path, 0, &data, &len), 0);
	data[len / 2] ^= 1; /* altered in place: same size */
	assert_int_equal(fs_write_atomic(path, data, len), 0);
	free(data);
	struct cache_entry *got = NULL;
	assert_int_equal(cache_store_get(s, key, 0, &got), 0);
	assert_null(got);
	assert_int_equal(access(path, F_OK), -1); /* removed: reported once */
	assert_int_equal(stat_of(s, CACHE_STAT_ERRORS), 1);
	assert_int_equal(stat_of(s, CACHE_STAT_ENTRIES), 0);
	assert_int_equal(stat_of(s, CACHE_STAT_BYTES), 0);
	assert_int_equal(cache_store_read(s, "not-a-key", &got, &err), -1);
	free(path);
	cache_store_close(s);
	strbuf_release(&err);
	remove_dir(dir);
}

static void
eviction_keeps_the_most_recently_used(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	/* entries of ~1300 bytes, limit for about 10 of them */
	struct cache_store *s = cache_store_open(dir, 13000, &err);
	for (int i = 0; i < 8; i++) {
		put(s, i, 1000);
		usleep(12000); /* distinct mtimes: the kernel stamps files at jiffy (up to 10 ms) granularity */
	}
	/* use entry 0, the oldest, so that it becomes the most recent */
	char key[65];
	key_for(0, key);
	struct cache_entry *got;
	assert_int_equal(cache_store_get(s, key, 0, &got), 1);
	cache_entry_free(got);
	usleep(12000);
	for (int i = 8; i < 14; i++) {
		put(s, i, 1000);
		usleep(12000);
	}
	assert_true(stat_of(s, CACHE_STAT_BYTES) <= 13000);
	assert_true(stat_of(s, CACHE_STAT_EVICTIONS) > 0);
	struct cache_store_item *items;
	size_t n;
	assert_int_equal(cache_store_list(s, &items, &n, &err), 0);
	assert_int_equal(n, stat_of(s, CACHE_STAT_ENTRIES));
	/* the survivors are exactly the most recent: 13, 12, ..., and 0 among them */
	int found0 = 0;
	for (size_t i = 0; i < n; i++) {
		found0 |= strcmp(items[i].key, key) == 0;
		char k[65];
		key_for(13 - (int)i, k);
		if (i < 6)
			assert_string_equal(items[i].key, k);
	}
	assert_true(found0);
	key_for(1, key); /* the least recently used is gone */
	assert_int_equal(cache_store_read(s, key, &got, &err), 0);
	free(items);
	/* explicit eviction to a smaller size */
	size_t removed;
	assert_int_equal(cache_store_evict(s, 3000, &removed, &err), 0);
	assert_true(removed > 0);
	assert_true(stat_of(s, CACHE_STAT_BYTES) <= 3000);
	key_for(13, key);
	assert_int_equal(cache_store_read(s, key, &got, &err), 1);
	cache_entry_free(got);
	assert_int_equal(cache_store_clear(s, &removed, &err), 0);
	assert_int_equal(stat_of(s, CACHE_STAT_ENTRIES), 0);
	cache_store_close(s);
	strbuf_release(&err);
	remove_dir(dir);
}

static void
counters_add_up_across_processes(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	struct cache_store *s = cache_store_open(dir, 0, &err);
	enum { PROCS = 8, EACH = 200 };
	for (int p = 0; p < PROCS; p++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			for (int i = 0; i < EACH; i++)
				cache_store_stats_add(s, CACHE_STAT_SEARCHES, 1);
			_exit(0);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int status;
		assert_true(wait(&status) > 0);
		assert_int_equal(status, 0);
	}
	assert_int_equal(stat_of(s, CACHE_STAT_SEARCHES), PROCS * EACH);
	assert_int_equal(cache_store_stats_zero(s, &err), 0);
	assert_int_equal(stat_of(s, CACHE_STAT_SEARCHES), 0);
	cache_store_close(s);
	strbuf_release(&err);
	remove_dir(dir);
}

static const char *const LOCK_KEY = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

static void
lock_is_exclusive_and_times_out(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	struct cache_lock *a, *b;
	assert_int_equal(cache_lock_acquire(dir, LOCK_KEY, 0, &a, &err), CACHE_LOCK_ACQUIRED);
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int r = cache_lock_acquire(dir, LOCK_KEY, 200, &b, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		_exit(r == CACHE_LOCK_TIMEOUT && ms >= 200 && ms < 5000 ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	cache_lock_release(a);
	assert_int_equal(cache_lock_acquire(dir, LOCK_KEY, 0, &a, &err), CACHE_LOCK_ACQUIRED);
	cache_lock_release(a);
	strbuf_release(&err);
	remove_dir(dir);
}

/* Forks a child that takes the lock and then holds it for hold_us
 * microseconds (0: until killed); returns once the child holds it. */
static pid_t
fork_holder(const char *dir, long hold_us)
{
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		struct cache_lock *l;
		if (cache_lock_acquire(dir, LOCK_KEY, 0, &l, &err) != CACHE_LOCK_ACQUIRED)
			_exit(1);
		(void)!write(ready[1], "x", 1);
		if (hold_us == 0)
			pause();
		usleep((useconds_t)hold_us);
		cache_lock_release(l);
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static void
waiter_gets_the_lock_when_the_holder_releases_it(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	pid_t pid = fork_holder(dir, 150000);
	struct cache_lock *l;
	assert_int_equal(cache_lock_acquire(dir, LOCK_KEY, 5000, &l, &err), CACHE_LOCK_AFTER_WAIT);
	cache_lock_release(l);
	int status;
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);
	strbuf_release(&err);
	remove_dir(dir);
}

static void
lock_of_a_killed_holder_is_recovered(void **state)
{
	char *dir = make_dir();
	struct strbuf err = STRBUF_INIT;
	pid_t pid = fork_holder(dir, 0);
	struct cache_lock *l;
	assert_int_equal(cache_lock_acquire(dir, LOCK_KEY, 0, &l, &err), CACHE_LOCK_TIMEOUT);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the lock file is still there, but nobody holds it */
	char *path = egg_xasprintf("%s/locks/%s", dir, LOCK_KEY);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(cache_lock_acquire(dir, LOCK_KEY, 0, &l, &err), CACHE_LOCK_ACQUIRED);
	assert_int_equal(cache_lock_sweep(dir), 0); /* a held lock stays */
	cache_lock_release(l);
	assert_int_equal(access(path, F_OK), -1);
	/* a file left by a killed holder is swept */
	pid = fork_holder(dir, 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(cache_lock_sweep(dir), 1);
	assert_int_equal(access(path, F_OK), -1);
	free(path);
	strbuf_release(&err);
	remove_dir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(store_round_trip_counts_hits_misses_and_bytes),
		cmocka_unit_test(invalid_entry_is_a_miss_and_is_removed),
		cmocka_unit_test(eviction_keeps_the_most_recently_used),
		cmocka_unit_test(counters_add_up_across_processes),
		cmocka_unit_test(lock_is_exclusive_and_times_out),
		cmocka_unit_test(waiter_gets_the_lock_when_the_holder_releases_it),
		cmocka_unit_test(lock_of_a_killed_holder_is_recovered),
	};
	return cmocka_run_group_tests_name("cache_store", tests, NULL, NULL);
}
