/*
 * outage.c -- records of servers that stopped answering (see outage.h).
 *
 * A record is the text "egg-outage 1\nLAST_MS\nNAME\n" in DIR/HASH, HASH being
 * the 64-bit FNV-1a of NAME in hex (a collision is caught by the NAME line and
 * reads as no record).  Readers never lock: the file is replaced by rename.
 */
#include "config.h"
#include "common/outage.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "egg-outage 1\n"

int64_t
outage_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *
record_path(const char *dir, const char *name)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return egg_xasprintf("%s/%016" PRIx64, dir, h);
}

/* The last failure's time, or -1 when there is no (readable) record of name. */
static int64_t
read_last(const char *dir, const char *name)
{
	char *path = record_path(dir, name), *data;
	size_t len;
	int64_t last = -1;
	if (fs_read_regular_file(path, 4096, &data, &len) == 0) {
		char *end;
		if (strncmp(data, MAGIC, sizeof MAGIC - 1) == 0) {
			const char *p = data + sizeof MAGIC - 1;
			long long v = strtoll(p, &end, 10);
			size_t n = strlen(name);
			if (end != p && *end == '\n' && strncmp(end + 1, name, n) == 0 &&
			    end[1 + n] == '\n' && v > 0)
				last = v;
		}
		free(data);
	}
	free(path);
	return last;
}

int
outage_skipping(const char *dir, const char *name, int64_t skip_ms, int64_t *left_ms,
                int *recorded)
{
	int64_t last = read_last(dir, name);
	if (recorded)
		*recorded = last > 0;
	if (last <= 0 || skip_ms <= 0)
		return 0;
	int64_t now = outage_now_ms();
	/* a record from the future (the clock was set back) is not trusted */
	if (last > now + 1000 || now >= last + skip_ms)
		return 0;
	if (left_ms)
		*left_ms = last + skip_ms - now;
	return 1;
}

int
outage_record(const char *dir, const char *name, int64_t skip_ms, int64_t started_ms)
{
	if (fs_mkdir_p(dir, 0755) < 0)
		return 1;
	char *lock_path = egg_xasprintf("%s/lock", dir);
	int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	free(lock_path);
	while (fd >= 0 && flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	int64_t last = read_last(dir, name);
	int64_t window = skip_ms > 0 ? 2 * skip_ms : 0;
	int warn = last <= 0 || last < started_ms - window;
	char *path = record_path(dir, name);
	char *text = egg_xasprintf(MAGIC "%" PRId64 "\n%s\n", outage_now_ms(), name);
	fs_write_atomic(path, text, strlen(text));
	free(text);
	free(path);
	if (fd >= 0)
		close(fd); /* releases the lock */
	return warn;
}

void
outage_clear(const char *dir, const char *name)
{
	char *path = record_path(dir, name);
	unlink(path);
	free(path);
}
