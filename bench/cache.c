/*
 * bench/cache.c -- how long the cache makes a build wait.
 *
 *   bench/cache [EGG_BINARY] [ENTRIES]
 *
 * Fills a fresh store (in $TMPDIR) with ENTRIES entries (default 10,000) and
 * measures, each as the median and the slowest of many runs:
 *   hit    from the key's inputs (a bundle in memory, the flags, the
 *          architecture) to the winner's source: key text, SHA-256, opening the
 *          cache, reading and checking the entry, refreshing its LRU time and
 *          counting the hit -- what egg-cc does per kernel once the analyzer has
 *          the bundle (target: under 10 ms);
 *   stats  `egg cache stats` as a process (target: under 200 ms);
 *   ls     `egg cache ls` as a process (reads every entry; no target).
 */
#include "config.h"
#include "cache/cache.h"
#include "common/util.h"
#include "common/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
report(const char *what, double *t, int n, double target)
{
	qsort(t, (size_t)n, sizeof *t, by_value);
	printf("%-44s median %8.3f ms   p95 %8.3f ms   max %8.3f ms   (%d runs%s%s)\n", what,
	       t[n / 2], t[n * 95 / 100], t[n - 1], n, target > 0 ? ", target < " : "",
	       target > 0 ? (target >= 100 ? "200 ms" : "10 ms") : "");
	if (target > 0)
		printf("%-44s %s\n", "", t[n / 2] < target ? "PASS: median within target" : "FAIL: median over target");
}

static struct egg_bundle *
sample_bundle(void)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = egg_xstrdup("softmax_forward");
	b->kind = BUNDLE_LAUNCHER;
	b->signature = egg_xstrdup("void softmax_forward(const float *x, float *y, int rows, int cols)");
	b->n_params = 4;
	b->params = egg_xcalloc(4, sizeof *b->params);
	const char *names[] = { "x", "y", "rows", "cols" };
	for (int i = 0; i < 4; i++) {
		b->params[i].name = egg_xstrdup(names[i]);
		b->params[i].type = egg_xstrdup(i < 2 ? "float *" : "int");
		b->params[i].elem_type = egg_xstrdup(i < 2 ? "float" : "int");
		b->params[i].is_pointer = i < 2;
		b->params[i].role = i == 0 ? ROLE_IN : i == 1 ? ROLE_OUT : ROLE_SCALAR;
		b->params[i].extent = i < 2 ? egg_xstrdup("rows * cols") : NULL;
	}
	struct strbuf code = STRBUF_INIT;
	for (int i = 0; i < 120; i++) /* a closure of about 6 KB */
		strbuf_addf(&code, "\tfloat v%d = x[row * cols + %d] * 0.5f + y[%d];\n", i, i, i);
	b->canonical = strbuf_detach(&code);
	return b;
}

static double
run_process(char *const argv[])
{
	fflush(stdout); /* or the child's exit would print our buffer again */
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	double t = now_ms() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench: %s failed\n", argv[0]);
		exit(1);
	}
	return t;
}

int
main(int argc, char **argv)
{
	egg_set_progname("bench-cache");
	const char *egg = argc > 1 ? argv[1] : "./egg";
	int entries = argc > 2 ? atoi(argv[2]) : 10000;
	char dir[] = "/tmp/egg-bench-cache.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	setenv("EGG_CACHE_DIR", dir, 1);
	setenv("EGG_MAX_SIZE", "0", 1);

	struct cache_settings set;
	struct strbuf err = STRBUF_INIT;
	if (cache_settings_from_env(&set, &err) < 0)
		return 1;
	struct cache *c = cache_open(&set, &err);
	if (!c) {
		fprintf(stderr, "bench: %s\n", err.buf);
		return 1;
	}

	/* The entry the hits read: a real key from a bundle. */
	struct egg_bundle *b = sample_bundle();
	static const char *const flags[] = { "-O3", "-arch=sm_90", "-std=c++17", "--use_fast_math" };
	struct cache_key_inputs in = { b, "sm_90", "13.0", flags, 4 };
	char key[CACHE_KEY_HEX_LEN + 1];
	cache_key_compute(&in, key);
	struct strbuf src = STRBUF_INIT;
	for (int i = 0; i < 200; i++)
		strbuf_addf(&src, "\tacc = fmaf(__ldg(x + %d), w, acc); /* winner line */\n", i);

	double t0 = now_ms();
	for (int i = 0; i < entries; i++) {
		char k[CACHE_KEY_HEX_LEN + 1];
		char seed[32];
		snprintf(seed, sizeof seed, "bench-%d", i);
		egg_sha256_hex(seed, strlen(seed), k);
		struct cache_entry *e = cache_entry_new(i == 0 ? key : k);
		cache_entry_set_source(e, src.buf);
		cache_entry_set_name(e, seed);
		cache_entry_set_result(e, "{\"speedup\": 3.1, \"time_ms\": 0.42, \"gpu\": \"H100\"}", &err);
		if (cache_put(c, e) < 0)
			return 1;
		cache_entry_free(e);
	}
	cache_close(c);
	printf("store: %d entries of about %zu bytes written in %.1f s (each fsynced)\n\n", entries,
	       src.len, (now_ms() - t0) / 1e3);

	enum { HITS = 500, PROCS = 30 };
	static double t[HITS];
	for (int i = 0; i < HITS; i++) {
		double s = now_ms();
		char k[CACHE_KEY_HEX_LEN + 1];
		cache_key_compute(&in, k);
		struct cache *cc = cache_open(&set, &err);
		struct cache_entry *e;
		if (!cache_lookup(cc, k, &e) || !cache_entry_source(e)) {
			fprintf(stderr, "bench: the hit missed\n");
			return 1;
		}
		cache_entry_free(e);
		cache_close(cc);
		t[i] = now_ms() - s;
	}
	report("local hit (key inputs -> winner source)", t, HITS, 10);

	char *stats_argv[] = { (char *)egg, (char *)"cache", (char *)"stats", NULL };
	for (int i = 0; i < PROCS; i++)
		t[i] = run_process(stats_argv);
	char what[64];
	snprintf(what, sizeof what, "egg cache stats (%d entries)", entries);
	report(what, t, PROCS, 200);

	char *ls_argv[] = { (char *)egg, (char *)"cache", (char *)"ls", NULL };
	for (int i = 0; i < 5; i++)
		t[i] = run_process(ls_argv);
	snprintf(what, sizeof what, "egg cache ls (%d entries)", entries);
	report(what, t, 5, 0);

	char *cmd = egg_xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);
	free(cmd);
	bundle_free(b);
	strbuf_release(&src);
	strbuf_release(&err);
	cache_settings_release(&set);
	return r != 0;
}
