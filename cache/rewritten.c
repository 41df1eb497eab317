/*
 * rewritten.c -- see rewritten.h.
 */
#include "config.h"
#include "cache/rewritten.h"
#include "common/child.h"
#include "common/digest.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when the file at path holds exactly data. */
static int
holds(const char *path, const void *data, size_t len)
{
	char *text;
	size_t n;
	if (fs_read_regular_file(path, len + 1, &text, &n) < 0)
		return 0;
	int same = n == len && memcmp(text, data, len) == 0;
	free(text);
	return same;
}

int
cache_rewritten_put(const char *cache_dir, const char *name, const void *data, size_t len,
                    char **path, struct strbuf *err)
{
	char hex[EGG_SHA256_HEX_LEN + 1];
	egg_sha256_hex(data, len, hex);
	char *top = fs_join(cache_dir, CACHE_REWRITTEN_DIR);
	char *dir = fs_join(top, hex);
	char *file = fs_join(dir, name);
	free(top);
	int rc = 0;
	if (holds(file, data, len)) {
		utimensat(AT_FDCWD, dir, NULL, AT_SYMLINK_NOFOLLOW); /* used now */
	} else if (fs_mkdir_p(dir, 0777) < 0 || fs_write_atomic(file, data, len) < 0) {
		strbuf_addf(err, "cannot write %s: %s", file, strerror(errno));
		rc = -1;
	}
	free(dir);
	if (rc == 0)
		*path = file;
	else
		free(file);
	return rc;
}

size_t
cache_rewritten_sweep(const char *cache_dir, time_t before)
{
	char *top = fs_join(cache_dir, CACHE_REWRITTEN_DIR);
	DIR *d = opendir(top);
	size_t removed = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) != EGG_SHA256_HEX_LEN)
			continue;
		char *dir = fs_join(top, e->d_name);
		struct stat st;
		/* lstat: a link in place of a directory would lead the removal elsewhere */
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (before == 0 || st.st_mtime < before) &&
		    child_remove_tree(dir) == 0)
			removed++;
		free(dir);
	}
	if (d)
		closedir(d);
	free(top);
	return removed;
}
