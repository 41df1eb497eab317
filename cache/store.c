/*
 * store.c -- the local cache directory (see store.h for the layout).
 *
 * Concurrency model: entry files are only ever replaced by rename(2), so
 * readers need no lock.  Everything that changes the counters -- and every
 * store, because it changes "entries" and "bytes" by an amount that depends on
 * what it replaces -- runs under an exclusive flock(2) on the stats file.  A
 * process killed while holding it releases it with its file descriptors.
 */
#include "config.h"
#include "cache/store.h"
#include "cache/lock.h"
#include "cache/rewritten.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ENTRY_SIZE ((size_t)256 << 20) /* larger files are not entries */
#define STALE_TMP_SECONDS 3600

struct cache_store {
	char *dir;
	char *stats_path;
	uint64_t max_size;
	char *secret; /* entries are signed with it, and refused unless signed with it */
};

static const char *const stat_names[CACHE_STAT_COUNT] = {
	"hits", "remote_hits", "misses", "searches", "stores",
	"errors", "evictions", "entries", "bytes",
};

const char *
cache_stat_name(enum cache_stat s)
{
	return (unsigned)s < CACHE_STAT_COUNT ? stat_names[s] : "?";
}

struct cache_store *
cache_store_open(const char *dir, uint64_t max_size, struct strbuf *err)
{
	if (fs_mkdir_p(dir, 0777) < 0) {
		strbuf_addf(err, "cannot create the cache directory %s: %s", dir, strerror(errno));
		return NULL;
	}
	struct cache_store *s = egg_xcalloc(1, sizeof *s);
	s->dir = egg_xstrdup(dir);
	s->stats_path = fs_join(dir, "stats");
	s->max_size = max_size;
	return s;
}

void
cache_store_close(struct cache_store *s)
{
	if (!s)
		return;
	free(s->dir);
	free(s->stats_path);
	free(s->secret);
	free(s);
}

void
cache_store_set_secret(struct cache_store *s, const char *secret)
{
	free(s->secret);
	s->secret = secret && *secret ? egg_xstrdup(secret) : NULL;
}

const char *
cache_store_secret(const struct cache_store *s)
{
	return s->secret;
}

const char *
cache_store_dir(const struct cache_store *s)
{
	return s->dir;
}

char *
cache_store_path(const struct cache_store *s, const char *key)
{
	return egg_xasprintf("%s/%.2s/%s", s->dir, key, key + 2);
}

/* ---- counters ---- */

/* Opens and exclusively locks the stats file; -1 if that is impossible. */
static int
stats_lock(struct cache_store *s)
{
	int fd = open(s->stats_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static void stats_load(int fd, struct cache_stats *st);

/* stats_lock, then the counters into *st; -1 with a sentence in err. */
static int
stats_lock_load(struct cache_store *s, struct cache_stats *st, struct strbuf *err)
{
	int fd = stats_lock(s);
	if (fd < 0) {
		strbuf_addf(err, "cannot lock %s: %s", s->stats_path, strerror(errno));
		return -1;
	}
	stats_load(fd, st);
	return fd;
}

/* Reads the counters; unknown names and damaged lines are ignored, so that a
 * newer egg's counters or a torn file cost counts, never a build. */
static void
stats_load(int fd, struct cache_stats *st)
{
	memset(st, 0, sizeof *st);
	char buf[2048];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		uint64_t v;
		if (sscanf(line, "%31s %" SCNu64, name, &v) != 2)
			continue;
		for (int i = 0; i < CACHE_STAT_COUNT; i++)
			if (strcmp(name, stat_names[i]) == 0)
				st->v[i] = v;
	}
}

static int
stats_save(int fd, const struct cache_stats *st)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < CACHE_STAT_COUNT; i++)
		strbuf_addf(&sb, "%s %" PRIu64 "\n", stat_names[i], st->v[i]);
	int r = pwrite(fd, sb.buf, sb.len, 0) == (ssize_t)sb.len && ftruncate(fd, (off_t)sb.len) == 0;
	strbuf_release(&sb);
	return r ? 0 : -1;
}

static void
stats_bump(struct cache_stats *st, enum cache_stat stat, int64_t delta)
{
	if (delta < 0 && (uint64_t)-delta > st->v[stat])
		st->v[stat] = 0;
	else
		st->v[stat] += (uint64_t)delta;
}

void
cache_store_stats_add(struct cache_store *s, enum cache_stat stat, int64_t delta)
{
	int fd = stats_lock(s);
	if (fd < 0)
		return; /* counts are advisory: a read-only cache still serves hits */
	struct cache_stats st;
	stats_load(fd, &st);
	stats_bump(&st, stat, delta);
	stats_save(fd, &st);
	close(fd);
}

int
cache_store_stats_read(struct cache_store *s, struct cache_stats *out, struct strbuf *err)
{
	int fd = open(s->stats_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		memset(out, 0, sizeof *out);
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "cannot read %s: %s", s->stats_path, strerror(errno));
		return -1;
	}
	flock(fd, LOCK_SH);
	stats_load(fd, out);
	close(fd);
	return 0;
}

int
cache_store_stats_zero(struct cache_store *s, struct strbuf *err)
{
	struct cache_stats st;
	int fd = stats_lock_load(s, &st, err);
	if (fd < 0)
		return -1;
	for (int i = 0; i < CACHE_STAT_COUNT; i++)
		if (i != CACHE_STAT_ENTRIES && i != CACHE_STAT_BYTES)
			st.v[i] = 0;
	int r = stats_save(fd, &st);
	close(fd);
	return r;
}

/* ---- reading ---- */

/* Removes the invalid entry at path if it is still the file we read (a writer
 * may have replaced it meanwhile), and accounts for it. */
static void
drop_invalid(struct cache_store *s, const char *path, const struct stat *seen)
{
	int fd = stats_lock(s);
	struct stat now;
	struct cache_stats st;
	if (fd >= 0)
		stats_load(fd, &st);
	int removed = lstat(path, &now) == 0 && now.st_ino == seen->st_ino &&
		      !S_ISDIR(now.st_mode) &&
		      now.st_dev == seen->st_dev && unlink(path) == 0;
	if (fd >= 0) {
		stats_bump(&st, CACHE_STAT_ERRORS, 1);
		if (removed) {
			stats_bump(&st, CACHE_STAT_ENTRIES, -1);
			stats_bump(&st, CACHE_STAT_BYTES, -(int64_t)seen->st_size);
		}
		stats_save(fd, &st);
		close(fd);
	}
}

/* 1 and *out on a valid entry, 0 if absent, -1 if invalid (err says why;
 * *seen describes the file). */
static int
read_entry(const struct cache_store *s, const char *path, const char *key, struct stat *seen,
	   struct cache_entry **out, struct strbuf *err)
{
	if (lstat(path, seen) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		strbuf_addf(err, "cannot read it: %s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(seen->st_mode)) {
		/* a FIFO would block the build forever; a link may point anywhere */
		strbuf_addstr(err, S_ISLNK(seen->st_mode) ? "it is a symbolic link, not a file"
		                                          : "it is not a regular file");
		return -1;
	}
	char *data;
	size_t len;
	if (fs_read_regular_file(path, MAX_ENTRY_SIZE, &data, &len) < 0) {
		if (errno == ENOENT) /* evicted or cleared meanwhile */
			return 0;
		strbuf_addf(err, "cannot read it: %s", errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	*out = cache_entry_parse(data, len, key, s->secret, err);
	free(data);
	return *out ? 1 : -1;
}

int
cache_store_read(struct cache_store *s, const char *key, struct cache_entry **out,
		 struct strbuf *err)
{
	*out = NULL;
	if (!cache_key_is_valid(key)) {
		strbuf_addf(err, "'%s' is not a cache key (64 hexadecimal digits)", key);
		return -1;
	}
	char *path = cache_store_path(s, key);
	struct stat seen;
	int r = read_entry(s, path, key, &seen, out, err);
	free(path);
	return r;
}

int
cache_store_get(struct cache_store *s, const char *key, int quiet_miss, struct cache_entry **out)
{
	*out = NULL;
	if (!cache_key_is_valid(key))
		return 0;
	char *path = cache_store_path(s, key);
	struct stat seen;
	struct strbuf err = STRBUF_INIT;
	int r = read_entry(s, path, key, &seen, out, &err);
	if (r < 0) {
		egg_warn("ignoring the invalid cache entry %s: %s", path, err.buf);
		egg_log("lookup %.16s: local: invalid entry removed: %s", key, err.buf);
		drop_invalid(s, path, &seen);
	}
	if (r == 1) {
		/* refresh the LRU time; failing (read-only cache) only ages it */
		utimensat(AT_FDCWD, path, NULL, 0);
		cache_store_stats_add(s, CACHE_STAT_HITS, 1);
	} else if (!quiet_miss) {
		cache_store_stats_add(s, CACHE_STAT_MISSES, 1);
	}
	strbuf_release(&err);
	free(path);
	return r == 1;
}

/* ---- listing and eviction ---- */

static int
is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}

static int
more_recent_first(const void *a, const void *b)
{
	const struct cache_store_item *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec > y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec > y->used.tv_nsec ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Lists entries; removes temporary files older than min_tmp_age seconds
 * (-1: never). */
static int
scan(struct cache_store *s, long min_tmp_age, struct cache_store_item **items, size_t *n,
     struct strbuf *err)
{
	*items = NULL;
	*n = 0;
	DIR *top = opendir(s->dir);
	if (!top) {
		strbuf_addf(err, "cannot list %s: %s", s->dir, strerror(errno));
		return -1;
	}
	size_t cap = 0;
	time_t now = time(NULL);
	struct dirent *d;
	while ((d = readdir(top))) {
		if (!is_hex(d->d_name, 2))
			continue;
		char *sub = fs_join(s->dir, d->d_name);
		struct stat sst;
		/* a link in place of a subdirectory would lead eviction elsewhere */
		DIR *dd = lstat(sub, &sst) == 0 && S_ISDIR(sst.st_mode) ? opendir(sub) : NULL;
		struct dirent *f;
		while (dd && (f = readdir(dd))) {
			if (f->d_name[0] == '.')
				continue;
			char *path = fs_join(sub, f->d_name);
			struct stat st;
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (is_hex(f->d_name, CACHE_KEY_HEX_LEN - 2)) {
					if (*n == cap) {
						cap = cap ? 2 * cap : 256;
						*items = egg_xrealloc(*items, cap * sizeof **items);
					}
					struct cache_store_item *it = &(*items)[(*n)++];
					memcpy(it->key, d->d_name, 2);
					memcpy(it->key + 2, f->d_name, CACHE_KEY_HEX_LEN - 2 + 1);
					it->size = (uint64_t)st.st_size;
					it->used = st.st_mtim;
				} else if (strstr(f->d_name, ".tmp.") && min_tmp_age >= 0 &&
					   now - st.st_mtime >= min_tmp_age) {
					unlink(path);
				}
			}
			free(path);
		}
		if (dd)
			closedir(dd);
		free(sub);
	}
	closedir(top);
	if (*n > 1)
		qsort(*items, *n, sizeof **items, more_recent_first);
	return 0;
}

int
cache_store_list(struct cache_store *s, struct cache_store_item **items, size_t *n,
		 struct strbuf *err)
{
	return scan(s, -1, items, n, err);
}

/* With the stats lock held: removes LRU entries until at most target bytes
 * remain, recounting entries and bytes into st. */
static int
evict_locked(struct cache_store *s, uint64_t target, long min_tmp_age, struct cache_stats *st,
	     size_t *removed, struct strbuf *err)
{
	struct cache_store_item *items;
	size_t n;
	*removed = 0;
	if (scan(s, min_tmp_age, &items, &n, err) < 0)
		return -1;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += items[i].size;
	size_t keep = n;
	while (keep > 0 && total > target) {
		keep--;
		char *path = cache_store_path(s, items[keep].key);
		if (unlink(path) == 0 || errno == ENOENT) {
			total -= items[keep].size;
			(*removed)++;
		}
		free(path);
	}
	cache_lock_sweep(s->dir);
	/* the rewritten sources go with the entries they were made of (rewritten.h) */
	cache_rewritten_sweep(s->dir, keep > 0 ? items[keep - 1].used.tv_sec : 0);
	st->v[CACHE_STAT_ENTRIES] = n - *removed;
	st->v[CACHE_STAT_BYTES] = total;
	st->v[CACHE_STAT_EVICTIONS] += *removed;
	free(items);
	return 0;
}

int
cache_store_evict(struct cache_store *s, uint64_t max_size, size_t *removed, struct strbuf *err)
{
	struct cache_stats st;
	int fd = stats_lock_load(s, &st, err);
	if (fd < 0)
		return -1;
	int r = evict_locked(s, max_size, STALE_TMP_SECONDS, &st, removed, err);
	if (r == 0)
		stats_save(fd, &st);
	close(fd);
	return r;
}

int
cache_store_evict_older(struct cache_store *s, uint64_t age, struct cache_store_item **gone,
			size_t *n_gone, struct strbuf *err)
{
	*gone = NULL;
	*n_gone = 0;
	struct cache_stats st;
	int fd = stats_lock_load(s, &st, err);
	if (fd < 0)
		return -1;
	struct cache_store_item *items;
	size_t n;
	int r = scan(s, STALE_TMP_SECONDS, &items, &n, err);
	if (r == 0) {
		time_t now = time(NULL);
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++)
			total += items[i].size;
		/* items are most recent first: the old ones are at the end */
		size_t first_old = n;
		while (first_old > 0 && items[first_old - 1].used.tv_sec < now &&
		       (uint64_t)(now - items[first_old - 1].used.tv_sec) > age)
			first_old--;
		*gone = egg_xcalloc(n - first_old + 1, sizeof **gone);
		for (size_t i = n; i > first_old; i--) {
			char *path = cache_store_path(s, items[i - 1].key);
			if (unlink(path) == 0 || errno == ENOENT) {
				total -= items[i - 1].size;
				(*gone)[(*n_gone)++] = items[i - 1];
			}
			free(path);
		}
		cache_rewritten_sweep(s->dir, first_old > 0 ? items[first_old - 1].used.tv_sec : 0);
		st.v[CACHE_STAT_ENTRIES] = n - *n_gone;
		st.v[CACHE_STAT_BYTES] = total;
		st.v[CACHE_STAT_EVICTIONS] += *n_gone;
		stats_save(fd, &st);
		free(items);
	}
	close(fd);
	return r;
}

int
cache_store_recount(struct cache_store *s, struct strbuf *err)
{
	size_t removed;
	return cache_store_evict(s, UINT64_MAX, &removed, err);
}

int
cache_store_clear(struct cache_store *s, size_t *removed, struct strbuf *err)
{
	struct cache_stats st;
	int fd = stats_lock_load(s, &st, err);
	if (fd < 0)
		return -1;
	uint64_t evictions = st.v[CACHE_STAT_EVICTIONS];
	int r = evict_locked(s, 0, 0, &st, removed, err);
	st.v[CACHE_STAT_EVICTIONS] = evictions; /* clearing is not evicting */
	if (r == 0)
		stats_save(fd, &st);
	close(fd);
	return r;
}

/* ---- writing ---- */

int
cache_store_put(struct cache_store *s, const struct cache_entry *e, struct strbuf *err)
{
	const char *key = cache_entry_key(e);
	char *path = cache_store_path(s, key);
	char *sub = fs_dirname(path);
	struct strbuf data = STRBUF_INIT;
	cache_entry_serialize(e, s->secret, &data);
	struct cache_stats st;
	int fd = stats_lock_load(s, &st, err);
	int r = -1;
	if (fd < 0)
		goto out;
	struct stat old;
	int replaced = stat(path, &old) == 0;
	if (fs_mkdir_p(sub, 0777) < 0 || fs_write_atomic(path, data.buf, data.len) < 0) {
		strbuf_addf(err, "cannot write the cache entry %s: %s", path, strerror(errno));
		stats_bump(&st, CACHE_STAT_ERRORS, 1);
		stats_save(fd, &st);
		goto out;
	}
	r = 0;
	stats_bump(&st, CACHE_STAT_STORES, 1);
	if (replaced) {
		stats_bump(&st, CACHE_STAT_BYTES, -(int64_t)old.st_size);
		stats_bump(&st, CACHE_STAT_ENTRIES, -1);
	}
	stats_bump(&st, CACHE_STAT_BYTES, (int64_t)data.len);
	stats_bump(&st, CACHE_STAT_ENTRIES, 1);
	if (s->max_size && st.v[CACHE_STAT_BYTES] > s->max_size) {
		size_t removed;
		struct strbuf ignored = STRBUF_INIT;
		evict_locked(s, s->max_size / 10 * 9, STALE_TMP_SECONDS, &st, &removed, &ignored);
		strbuf_release(&ignored);
	}
	stats_save(fd, &st);
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&data);
	free(sub);
	free(path);
	return r;
}

char *
cache_store_resolve_key(struct cache_store *s, const char *arg, struct strbuf *err)
{
	if (cache_key_is_valid(arg))
		return egg_xstrdup(arg);
	struct strbuf lerr = STRBUF_INIT;
	struct cache_store_item *items;
	size_t n, found = 0;
	char *key = NULL;
	if (strlen(arg) >= 4 && cache_store_list(s, &items, &n, &lerr) == 0) {
		for (size_t i = 0; i < n; i++)
			if (egg_str_starts(items[i].key, arg) && found++ == 0)
				key = egg_xstrdup(items[i].key);
		free(items);
	}
	strbuf_release(&lerr);
	if (found == 1)
		return key;
	free(key);
	if (found > 1)
		strbuf_addf(err, "'%s' is the start of %zu keys; give more digits", arg, found);
	else
		strbuf_addf(err, "no cache entry has the key '%s' (a key, or a unique prefix of at least 4 digits)",
		            arg);
	return NULL;
}
