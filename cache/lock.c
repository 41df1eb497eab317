/*
 * lock.c -- single-flight locks with flock(2) (see lock.h for why flock).
 *
 * Waiting polls a non-blocking flock every few milliseconds instead of
 * blocking in flock(LOCK_EX): a blocking wait with a deadline would need a
 * signal handler (SIGALRM) inside a library, which egg-cc's caller does not
 * expect.  The poll starts at 1 ms and backs off to 50 ms.
 */
#include "config.h"
#include "cache/lock.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct cache_lock {
	int fd;
	char *path;
};

static long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One attempt: 1 locked (fd kept in *fdp), 0 busy, -1 error. */
static int
try_lock(const char *path, int *fdp)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		close(fd);
		if (e == EWOULDBLOCK || e == EINTR)
			return 0;
		errno = e;
		return -1;
	}
	/* The previous holder may have removed the file after we opened it;
	 * then our lock is on an orphan and someone else can lock a new file. */
	struct stat a, b;
	if (fstat(fd, &a) < 0 || stat(path, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return 0;
	}
	*fdp = fd;
	return 1;
}

enum cache_lock_status
cache_lock_acquire(const char *dir, const char *key, long timeout_ms, struct cache_lock **lock,
		   struct strbuf *err)
{
	*lock = NULL;
	char *locks = fs_join(dir, "locks");
	if (fs_mkdir_p(locks, 0777) < 0) {
		strbuf_addf(err, "cannot create %s: %s", locks, strerror(errno));
		free(locks);
		return CACHE_LOCK_ERROR;
	}
	char *path = fs_join(locks, key);
	free(locks);
	long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	long pause_us = 1000;
	int waited = 0, fd = -1;
	for (;;) {
		int r = try_lock(path, &fd);
		if (r > 0)
			break;
		if (r < 0) {
			strbuf_addf(err, "cannot lock %s: %s", path, strerror(errno));
			free(path);
			return CACHE_LOCK_ERROR;
		}
		/* past it: the clock read in whole milliseconds, ">=" could end up to
		 * 1 ms before timeout_ms had passed */
		if (now_ms() > deadline) {
			free(path);
			return CACHE_LOCK_TIMEOUT;
		}
		waited = 1;
		usleep((useconds_t)pause_us);
		if (pause_us < 50000)
			pause_us *= 2;
	}
	struct cache_lock *l = egg_xcalloc(1, sizeof *l);
	l->fd = fd;
	l->path = path;
	*lock = l;
	return waited ? CACHE_LOCK_AFTER_WAIT : CACHE_LOCK_ACQUIRED;
}

void
cache_lock_release(struct cache_lock *lock)
{
	if (!lock)
		return;
	/* Remove while still holding it (see try_lock), then let go. */
	unlink(lock->path);
	close(lock->fd);
	free(lock->path);
	free(lock);
}

int
cache_lock_is_stale(const char *path)
{
	int fd, r = try_lock(path, &fd);
	if (r > 0)
		close(fd);
	return r;
}

int
cache_lock_sweep(const char *dir)
{
	char *locks = fs_join(dir, "locks");
	DIR *d = opendir(locks);
	int removed = 0;
	struct dirent *f;
	while (d && (f = readdir(d))) {
		if (f->d_name[0] == '.')
			continue;
		char *path = fs_join(locks, f->d_name);
		int fd;
		if (try_lock(path, &fd) > 0) {
			unlink(path);
			close(fd);
			removed++;
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(locks);
	return removed;
}
