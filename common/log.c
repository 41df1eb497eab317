/*
 * log.c -- see log.h.
 *
 * The descriptor is opened with O_APPEND and each line leaves in one write(2): on a
 * local file system the kernel then places every line whole at the end of the file,
 * whatever other processes append meanwhile.  No lock is taken: a compile never
 * waits for another's log line.
 */
#include "config.h"
#include "common/log.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static char *log_tag;

int
egg_log_open(const char *path, const char *tag, struct strbuf *err)
{
	egg_log_close();
	if (!path || !*path)
		return 0;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(err, "cannot open the log file %s: %s", path, strerror(errno));
		return -1;
	}
	log_fd = fd;
	log_tag = egg_xstrdup(tag ? tag : egg_progname());
	return 0;
}

int
egg_log_enabled(void)
{
	return log_fd >= 0;
}

void
egg_log(const char *fmt, ...)
{
	if (log_fd < 0)
		return;
	char line[EGG_LOG_MAX_LINE];
	struct timeval tv;
	struct tm tm;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	size_t n = strftime(line, sizeof line, "[%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof line - n, ".%06ld %ld] %s: ", (long)tv.tv_usec,
	                      (long)getpid(), log_tag);
	if (n < sizeof line - 1) {
		va_list ap;
		va_start(ap, fmt);
		int m = vsnprintf(line + n, sizeof line - n, fmt, ap);
		va_end(ap);
		n = m < 0 ? n : n + (size_t)m;
	}
	if (n > sizeof line - 2)
		n = sizeof line - 2; /* cut, but still one whole line */
	for (size_t i = 0; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	ssize_t w;
	do
		w = write(log_fd, line, n);
	while (w < 0 && errno == EINTR);
}

void
egg_log_close(void)
{
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
	free(log_tag);
	log_tag = NULL;
}

double
egg_log_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
