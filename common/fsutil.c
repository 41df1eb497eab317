/*
 * fsutil.c -- see fsutil.h.
 */
#include "config.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int
read_file(const char *path, int regular_only, size_t max, char **data, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO without a writer returns at once */
	int fd = open(path, O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK | O_NOFOLLOW : 0));
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (regular_only && !S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_release(&sb);
			goto fail;
		}
		if (n == 0)
			break;
		if (max && sb.len + (size_t)n > max) {
			strbuf_release(&sb);
			errno = EFBIG;
			goto fail;
		}
		strbuf_add(&sb, chunk, (size_t)n);
	}
	close(fd);
	*len = sb.len;
	*data = strbuf_detach(&sb);
	return 0;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
fs_read_file(const char *path, size_t max, char **data, size_t *len)
{
	return read_file(path, 0, max, data, len);
}

int
fs_read_regular_file(const char *path, size_t max, char **data, size_t *len)
{
	return read_file(path, 1, max, data, len);
}

int
fs_write_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = egg_xasprintf("%s.tmp.%ld.XXXXXX", path, (long)getpid());
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	return 0;
fail:;
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

int
fs_mkdir_p(const char *path, mode_t mode)
{
	char *p = egg_xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			errno = e;
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, mode);
	int e = errno;
	free(p);
	if (r < 0 && e != EEXIST) {
		errno = e;
		return -1;
	}
	return 0;
}

char *
fs_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return egg_xstrdup(s ? s + 1 : path);
}

char *
fs_dirname(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return egg_xstrdup(".");
	if (s == path)
		return egg_xstrdup("/");
	return egg_xstrndup(path, (size_t)(s - path));
}

char *
fs_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return egg_xasprintf("%s%s", dir, name);
	return egg_xasprintf("%s/%s", dir, name);
}

/* The components of an absolute path: "/a//b/./c" gives a, b, c.  -1 on a
 * relative path or a ".." component. */
static int
path_components(const char *path, struct strvec *out)
{
	if (path[0] != '/')
		return -1;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (n && !(n == 1 && p[0] == '.'))
			strvec_push_owned(out, egg_xstrndup(p, n));
		p += n;
	}
	return 0;
}

char *
fs_relative_path(const char *dir, const char *path)
{
	struct strvec d = STRVEC_INIT, f = STRVEC_INIT;
	char *rel = NULL;
	if (path_components(dir, &d) == 0 && path_components(path, &f) == 0) {
		size_t common = 0;
		while (common < d.n && common < f.n && strcmp(d.v[common], f.v[common]) == 0)
			common++;
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = common; i < d.n; i++)
			strbuf_addstr(&sb, sb.len ? "/.." : "..");
		for (size_t i = common; i < f.n; i++) {
			if (sb.len)
				strbuf_addch(&sb, '/');
			strbuf_addstr(&sb, f.v[i]);
		}
		rel = sb.len ? strbuf_detach(&sb) : egg_xstrdup(".");
		strbuf_release(&sb);
	}
	strvec_clear(&d);
	strvec_clear(&f);
	return rel;
}

int
fs_is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int
fs_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

char *
fs_find_in_path(const char *name, const char *path, const char *skip)
{
	if (!path)
		return NULL;
	const char *p = path;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		/* An empty PATH element means the current directory. */
		char *dir = n ? egg_xstrndup(p, n) : egg_xstrdup(".");
		char *cand = fs_join(dir, name);
		free(dir);
		if (fs_is_executable(cand) && !(skip && fs_same_file(cand, skip)))
			return cand;
		free(cand);
		if (!end)
			return NULL;
		p = end + 1;
	}
}

int
fs_append_locked(const char *path, const void *data, size_t len, const char **step)
{
	*step = "open";
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = -1;
	*step = "lock";
	if (flock(fd, LOCK_EX) == 0) {
		*step = "write";
		ssize_t n;
		do
			n = write(fd, data, len);
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)len)
			rc = 0;
		else if (n >= 0)
			errno = ENOSPC;
	}
	int e = errno;
	if (close(fd) < 0 && rc == 0) {
		*step = "write";
		return -1;
	}
	errno = e;
	return rc;
}
