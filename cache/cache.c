/*
 * cache.c -- the build's view of the cache (see cache.h).
 *
 * Counting rule, so that the statistics add up: every lookup or claim counts
 * exactly one of hits, remote_hits or misses; a claim that ends in SEARCH also
 * counts a search.
 */
#include "config.h"
#include "cache/cache.h"
#include "common/egg_config.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cache {
	struct cache_store *store;
	struct cache_remote *remote;
	long lock_timeout_ms;
	int put_warned;
};

int
cache_parse_size(const char *s, uint64_t *out)
{
	return s ? egg_config_parse_size(s, out) : -1;
}

int
cache_parse_duration_ms(const char *s, long *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	double v = strtod(s, &end);
	double mult = 1000;
	if (strcmp(end, "ms") == 0)
		mult = 1;
	else if (strcmp(end, "s") == 0 || *end == '\0')
		mult = 1000;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		mult = 60000;
	else
		return -1;
	if (v * mult > 1e12)
		return -1;
	*out = (long)(v * mult);
	return 0;
}

/* The default cache_dir: $XDG_CACHE_HOME/egg, else ~/.cache/egg (egg_config's). */
static char *
default_dir(void)
{
	struct egg_config *cfg = egg_config_new();
	const char *d = egg_config_get(cfg, "cache_dir");
	char *dir = egg_xstrdup(d && *d ? d : "./.cache/egg");
	egg_config_free(cfg);
	return dir;
}

static char *
env_or_null(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? egg_xstrdup(v) : NULL;
}

int
cache_settings_from_env(struct cache_settings *s, struct strbuf *err)
{
	memset(s, 0, sizeof *s);
	s->max_size = CACHE_STORE_DEFAULT_MAX_SIZE;
	s->lock_timeout_ms = CACHE_DEFAULT_LOCK_TIMEOUT_MS;
	s->skip_ms = CACHE_DEFAULT_SKIP_MS;
	s->dir = env_or_null("EGG_CACHE_DIR");
	if (!s->dir)
		s->dir = default_dir();
	s->remote = env_or_null("EGG_REMOTE_STORAGE");
	s->secret = env_or_null("EGG_CACHE_SECRET");
	const char *v = getenv("EGG_MAX_SIZE");
	if (v && *v && cache_parse_size(v, &s->max_size) < 0) {
		strbuf_addf(err, "environment EGG_MAX_SIZE: '%s' is not a size (examples: 500Mi, 1.5G, 2GiB, 0)", v);
		return -1;
	}
	v = getenv("EGG_LOCK_TIMEOUT");
	if (v && *v && cache_parse_duration_ms(v, &s->lock_timeout_ms) < 0) {
		strbuf_addf(err, "environment EGG_LOCK_TIMEOUT: '%s' is not a duration (examples: 300s, 500ms, 5m)", v);
		return -1;
	}
	const struct { const char *name; long *out; } ms[] = {
		{ "EGG_TIMEOUT", &s->remote_timeout_ms },
		{ "EGG_SKIP_AFTER_TIMEOUT", &s->skip_ms },
	};
	for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
		v = getenv(ms[i].name);
		if (v && *v && cache_parse_duration_ms(v, ms[i].out) < 0) {
			strbuf_addf(err, "environment %s: '%s' is not a duration (examples: 10s, 500ms, 1m)",
				    ms[i].name, v);
			return -1;
		}
	}
	v = getenv("EGG_REMOTE_READ_ONLY");
	s->remote_read_only = v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0);
	return 0;
}

static char *
dup_or_null(const char *s)
{
	return s && *s ? egg_xstrdup(s) : NULL;
}

void
cache_settings_from_config(struct cache_settings *s, const struct egg_config *cfg)
{
	memset(s, 0, sizeof *s);
	s->dir = dup_or_null(egg_config_get(cfg, "cache_dir"));
	if (!s->dir)
		s->dir = default_dir();
	s->max_size = egg_config_size(cfg, "max_size");
	s->remote = dup_or_null(egg_config_get(cfg, "remote_storage"));
	s->remote_read_only = egg_config_bool(cfg, "remote_read_only");
	s->secret = dup_or_null(egg_config_get(cfg, "cache_secret"));
	s->lock_timeout_ms = (long)egg_config_seconds(cfg, "lock_timeout") * 1000;
	/* timeout bounds a remote's transfers only when the user set it: its default
	 * (120 s, for model requests and candidate runs) is far too long for a cache */
	struct strbuf origin = STRBUF_INIT;
	egg_config_origin(cfg, "timeout", &origin);
	if (strcmp(origin.buf, "default") != 0)
		s->remote_timeout_ms = (long)egg_config_seconds(cfg, "timeout") * 1000;
	strbuf_release(&origin);
	s->skip_ms = (long)egg_config_seconds(cfg, "skip_after_timeout") * 1000;
}

void
cache_settings_release(struct cache_settings *s)
{
	free(s->dir);
	free(s->remote);
	free(s->secret);
	memset(s, 0, sizeof *s);
}

/* remote_read_only: every remote of the specification gets |read-only. */
static char *
read_only_spec(const char *spec)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = egg_xstrdup(spec);
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		strbuf_addf(&sb, "%s%s|read-only", sb.len ? " " : "", t);
	free(copy);
	return strbuf_detach(&sb);
}

struct cache *
cache_open(const struct cache_settings *s, struct strbuf *err)
{
	struct cache_store *store = cache_store_open(s->dir, s->max_size, err);
	if (!store)
		return NULL;
	cache_store_set_secret(store, s->secret);
	char *spec = s->remote && s->remote_read_only ? read_only_spec(s->remote)
						      : egg_xstrdup(s->remote ? s->remote : "");
	struct cache_remote *remote = cache_remote_new(spec, s->secret, err);
	free(spec);
	if (!remote) {
		cache_store_close(store);
		return NULL;
	}
	cache_remote_set_timeout(remote, s->remote_timeout_ms);
	char *outages = fs_join(cache_store_dir(store), "outages");
	cache_remote_set_outages(remote, outages, s->skip_ms);
	free(outages);
	struct cache *c = egg_xcalloc(1, sizeof *c);
	c->store = store;
	c->remote = remote;
	c->lock_timeout_ms = s->lock_timeout_ms;
	return c;
}

void
cache_close(struct cache *c)
{
	if (!c)
		return;
	cache_store_close(c->store);
	cache_remote_free(c->remote);
	free(c);
}

struct cache_store *
cache_local(struct cache *c)
{
	return c->store;
}

/* The log line of one lookup that the local store missed: each remote asked and
 * what it answered. */
static void
log_remotes(const struct cache *c, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < cache_remote_count(c->remote); i++) {
		int ro;
		const char *asked = cache_remote_asked(c->remote, i);
		if (asked)
			strbuf_addf(&sb, "; remote %s: %s", cache_remote_display(c->remote, i, &ro), asked);
	}
	egg_log("lookup %.16s: local: miss%s", key, sb.len ? sb.buf : "; no remote storage");
	strbuf_release(&sb);
}

/* Local, then remote (copied to local); a miss is counted unless quiet. */
static int
lookup(struct cache *c, const char *key, int quiet, struct cache_entry **out)
{
	if (cache_store_get(c->store, key, 1, out)) {
		egg_log("lookup %.16s: local: hit", key);
		return 1;
	}
	int remote_hit = cache_remote_count(c->remote) > 0 && cache_remote_get(c->remote, key, out);
	if (egg_log_enabled())
		log_remotes(c, key);
	if (remote_hit) {
		struct strbuf err = STRBUF_INIT;
		if (cache_store_put(c->store, *out, &err) < 0 && !c->put_warned) {
			c->put_warned = 1;
			egg_warn("could not keep a remote cache entry locally: %s", err.buf);
		}
		strbuf_release(&err);
		cache_store_stats_add(c->store, CACHE_STAT_REMOTE_HITS, 1);
		return 1;
	}
	if (!quiet)
		cache_store_stats_add(c->store, CACHE_STAT_MISSES, 1);
	return 0;
}

int
cache_lookup(struct cache *c, const char *key, struct cache_entry **out)
{
	return lookup(c, key, 0, out);
}

/* Takes the key's single-flight lock.  fresh: the caller missed, so a
 * lookup once the lock is held may find what the holder before stored (and the
 * compile counts as a miss); else the caller found an entry it means to replace. */
static enum cache_claim
take_claim(struct cache *c, const char *key, int fresh, struct cache_entry **out,
           struct cache_lock **lock)
{
	struct strbuf err = STRBUF_INIT;
	enum cache_lock_status ls =
		cache_lock_acquire(cache_store_dir(c->store), key, c->lock_timeout_ms, lock, &err);
	enum cache_claim result;
	switch (ls) {
	case CACHE_LOCK_ACQUIRED:
	case CACHE_LOCK_AFTER_WAIT:
		/* Whoever held the lock (or released it just before we looked)
		 * may have stored the entry: look once more, locally. */
		if (fresh && cache_store_get(c->store, key, 1, out)) {
			cache_lock_release(*lock);
			*lock = NULL;
			result = CACHE_CLAIM_HIT;
			break;
		}
		result = CACHE_CLAIM_SEARCH;
		break;
	case CACHE_LOCK_ERROR:
		egg_warn("searching without the single-flight lock: %s", err.buf);
		result = CACHE_CLAIM_SEARCH;
		break;
	case CACHE_LOCK_TIMEOUT:
	default:
		result = CACHE_CLAIM_REFERENCE;
		break;
	}
	if (fresh && result != CACHE_CLAIM_HIT)
		cache_store_stats_add(c->store, CACHE_STAT_MISSES, 1);
	if (result == CACHE_CLAIM_SEARCH)
		cache_store_stats_add(c->store, CACHE_STAT_SEARCHES, 1);
	strbuf_release(&err);
	return result;
}

enum cache_claim
cache_claim(struct cache *c, const char *key, struct cache_entry **out, struct cache_lock **lock)
{
	*lock = NULL;
	if (lookup(c, key, 1, out))
		return CACHE_CLAIM_HIT;
	return take_claim(c, key, 1, out, lock);
}

enum cache_claim
cache_claim_again(struct cache *c, const char *key, struct cache_lock **lock)
{
	*lock = NULL;
	return take_claim(c, key, 0, NULL, lock);
}

void
cache_release(struct cache_lock *lock)
{
	cache_lock_release(lock);
}

int
cache_put(struct cache *c, const struct cache_entry *e)
{
	struct strbuf err = STRBUF_INIT;
	int r = cache_store_put(c->store, e, &err);
	if (r < 0 && !c->put_warned) {
		c->put_warned = 1;
		egg_warn("%s; the result is not cached", err.buf);
	}
	strbuf_release(&err);
	cache_remote_put(c->remote, e);
	return r;
}
