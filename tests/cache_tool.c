/*
 * cache_tool.c -- drives the cache the way egg-cc will, for the shell suites
 * (concurrency, crashes, remotes), with the settings from the environment.
 *
 *   cache-tool key SEED             print the key used for SEED (sha256 of it)
 *   cache-tool put SEED SIZE        store a winner whose source is SEED padded to SIZE bytes
 *   cache-tool put-negative SEED    store a negative entry
 *   cache-tool get SEED             lookup: print the source and exit 0, or exit 1 on a miss
 *   cache-tool has SEED             HEAD on the remotes: exit 0 if one has it
 *   cache-tool claim SEED MS        single flight: print hit, or search (then "search"
 *                                   for MS milliseconds and store), or reference
 */
#include "config.h"
#include "cache/cache.h"
#include "common/util.h"
#include "common/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct cache_entry *
make_entry(const char *key, const char *seed, size_t size)
{
	struct cache_entry *e = cache_entry_new(key);
	struct strbuf src = STRBUF_INIT;
	strbuf_addf(&src, "// winner for %s\n", seed);
	while (src.len < size)
		strbuf_addch(&src, src.len % 64 == 63 ? '\n' : 'x');
	cache_entry_set_source(e, src.buf);
	cache_entry_set_name(e, seed);
	struct cache_generator g = { "builtin", NULL, "1" };
	cache_entry_set_generator(e, &g);
	struct strbuf err = STRBUF_INIT;
	cache_entry_set_result(e, "{\"speedup\": 2.5, \"gpu\": \"test\"}", &err);
	strbuf_release(&err);
	strbuf_release(&src);
	return e;
}

int
main(int argc, char **argv)
{
	egg_set_progname("cache-tool");
	if (argc < 3) {
		fprintf(stderr, "usage: cache-tool key|put|put-negative|get|has|claim SEED [ARG]\n");
		return 2;
	}
	const char *cmd = argv[1], *seed = argv[2];
	char key[CACHE_KEY_HEX_LEN + 1];
	egg_sha256_hex(seed, strlen(seed), key);
	if (strcmp(cmd, "key") == 0) {
		puts(key);
		return 0;
	}
	struct cache_settings set;
	struct strbuf err = STRBUF_INIT;
	struct cache *c = NULL;
	if (cache_settings_from_env(&set, &err) < 0 || !(c = cache_open(&set, &err))) {
		egg_error("%s", err.buf);
		return 2;
	}
	int status = 0;
	struct cache_entry *e = NULL;
	if (strcmp(cmd, "put") == 0 || strcmp(cmd, "put-negative") == 0) {
		e = make_entry(key, seed, argc > 3 ? (size_t)atol(argv[3]) : 100);
		if (strcmp(cmd, "put-negative") == 0)
			cache_entry_set_negative(e);
		status = cache_put(c, e) < 0;
	} else if (strcmp(cmd, "get") == 0) {
		if (cache_lookup(c, key, &e))
			fputs(cache_entry_source(e) ? cache_entry_source(e) : "negative\n", stdout);
		else
			status = 1;
	} else if (strcmp(cmd, "has") == 0) {
		struct cache_remote *r = cache_remote_new(set.remote, set.secret, &err);
		status = !(r && cache_remote_has(r, key));
		cache_remote_free(r);
	} else if (strcmp(cmd, "claim") == 0) {
		struct cache_lock *lock;
		switch (cache_claim(c, key, &e, &lock)) {
		case CACHE_CLAIM_HIT:
			puts("hit");
			break;
		case CACHE_CLAIM_SEARCH:
			puts("search");
			fflush(stdout);
			usleep((useconds_t)(argc > 3 ? atol(argv[3]) : 0) * 1000);
			e = make_entry(key, seed, 100);
			cache_put(c, e);
			cache_release(lock);
			break;
		case CACHE_CLAIM_REFERENCE:
			puts("reference");
			break;
		}
	} else {
		egg_error("unknown command %s", cmd);
		status = 2;
	}
	cache_entry_free(e);
	cache_close(c);
	cache_settings_release(&set);
	strbuf_release(&err);
	return status;
}
