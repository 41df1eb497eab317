/*
 * verify.c -- see verify.h.
 *
 * The walk reads names with scandir (sorted, so that two runs print the same
 * lines) and judges every file by lstat, never following a link: a link in the
 * store is itself a problem.  Entries are read through cache_store_read, the
 * very check a build makes, so verify and a build never disagree about what is
 * valid.
 */
#include "config.h"
#include "cache/verify.h"
#include "cache/lock.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temporary file younger than this whose writer lives is a write in progress. */
#define TMP_IN_PROGRESS_SECONDS 3600

struct verifier {
	struct cache_store *s;
	int repair;
	cache_verify_screen_fn screen;
	cache_verify_report_fn report;
	void *ctx;
	struct cache_verify_summary *sum;
	time_t now;
};

static void problem(struct verifier *v, const char *path, const struct stat *st, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

/* Reports one problem and, under repair, removes the file (a directory with
 * what it holds; a link itself, never what it points to). */
static void
problem(struct verifier *v, const char *path, const struct stat *st, const char *fmt, ...)
{
	struct strbuf what = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&what, fmt, ap);
	va_end(ap);
	int removed = 0;
	if (v->repair)
		removed = S_ISDIR(st->st_mode) ? child_remove_tree(path) == 0 : unlink(path) == 0;
	v->sum->problems++;
	v->sum->removed += removed;
	v->report(v->ctx, path, what.buf, removed);
	strbuf_release(&what);
}

/* 1 when name is n lower-case hexadecimal digits, as the store's names are. */
static int
hex_name(const char *name, size_t n)
{
	return strlen(name) == n && strspn(name, "0123456789abcdef") == n;
}

static int
not_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* "KEY.tmp.PID.XXXXXX" (fs_write_atomic): an orphan unless its writer lives and
 * it is recent.  Returns 1 when name is such a file. */
static int
check_tmp(struct verifier *v, const char *path, const char *name, const struct stat *st)
{
	const char *t = strstr(name, ".tmp.");
	if (!t || !S_ISREG(st->st_mode))
		return 0;
	char *end;
	long pid = strtol(t + 5, &end, 10);
	int alive = pid > 0 && *end == '.' && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
	long age = (long)(v->now - st->st_mtime);
	if (alive && age < TMP_IN_PROGRESS_SECONDS)
		return 1; /* a write in progress */
	if (!alive)
		problem(v, path, st, "a temporary file left by an interrupted write (its process is gone)");
	else
		problem(v, path, st, "a temporary file over an hour old");
	return 1;
}

static void
check_entry(struct verifier *v, const char *path, const char *key, const struct stat *st)
{
	v->sum->entries++;
	struct cache_entry *e = NULL;
	struct strbuf why = STRBUF_INIT;
	int r = cache_store_read(v->s, key, &e, &why);
	if (r < 0) {
		problem(v, path, st, "an invalid entry: %s", why.buf);
	} else if (r > 0 && v->screen && !cache_entry_is_negative(e) && cache_entry_source(e) &&
		   v->screen(cache_entry_source(e), &why) < 0) {
		problem(v, path, st, "a winner the screen refuses: %s", why.buf);
	} else if (r > 0) {
		v->sum->valid++;
	}
	cache_entry_free(e);
	strbuf_release(&why);
}

/* One fan-out directory "ab": entries, temporary files, and what is neither. */
static void
check_fanout(struct verifier *v, const char *dir, const char *prefix)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dot, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *path = fs_join(dir, name);
		struct stat st;
		if (lstat(path, &st) == 0) {
			if (hex_name(name, CACHE_KEY_HEX_LEN - 2)) {
				char key[CACHE_KEY_HEX_LEN + 1];
				memcpy(key, prefix, 2);
				memcpy(key + 2, name, CACHE_KEY_HEX_LEN - 2 + 1);
				check_entry(v, path, key, &st);
			} else if (!check_tmp(v, path, name, &st)) {
				problem(v, path, &st, "not a cache entry (%s)",
				        S_ISDIR(st.st_mode)   ? "a directory"
				        : S_ISLNK(st.st_mode) ? "a symbolic link"
				                              : "its name is not a key");
			}
		}
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void
check_locks(struct verifier *v, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dot, alphasort);
	for (int i = 0; i < n; i++) {
		char *path = fs_join(dir, names[i]->d_name);
		struct stat st;
		if (lstat(path, &st) == 0) {
			if (!S_ISREG(st.st_mode))
				problem(v, path, &st, "not a lock file");
			else if (cache_lock_is_stale(path) == 1)
				problem(v, path, &st, "a lock no process holds (left by a killed build)");
		}
		free(path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

int
cache_store_verify(struct cache_store *s, int repair, cache_verify_screen_fn screen,
		   cache_verify_report_fn report, void *ctx, struct cache_verify_summary *sum,
		   struct strbuf *err)
{
	memset(sum, 0, sizeof *sum);
	struct verifier v = { s, repair, screen, report, ctx, sum, time(NULL) };
	const char *top = cache_store_dir(s);
	struct dirent **names;
	int n = scandir(top, &names, not_dot, alphasort);
	if (n < 0) {
		strbuf_addf(err, "cannot list %s: %s", top, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *path = fs_join(top, name);
		struct stat st;
		int seen = lstat(path, &st) == 0;
		if (seen && hex_name(name, 2)) {
			if (S_ISDIR(st.st_mode))
				check_fanout(&v, path, name);
			else
				problem(&v, path, &st, "not a fan-out directory of the store");
		} else if (seen && strcmp(name, "locks") == 0 && S_ISDIR(st.st_mode)) {
			check_locks(&v, path);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	if (sum->removed > 0 && cache_store_recount(s, err) < 0)
		return -1;
	return 0;
}
