/*
 * scan.c -- see scan.h.  Looks for "egg" with memmem, then walks backwards over
 * blanks to see whether a pragma introduces it; no allocation, one pass.
 */
#include "config.h"
#include "driver/scan.h"
#include "common/strvec.h"
#include "driver/args.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int
is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Index just past the blanks (spaces, tabs, backslash-newlines) that end
 * data[0..end); end itself when none. */
static size_t
skip_blanks_back(const char *data, size_t end)
{
	for (;;) {
		if (end > 0 && (data[end - 1] == ' ' || data[end - 1] == '\t'))
			end--;
		else if (end > 1 && data[end - 1] == '\n' && data[end - 2] == '\\')
			end -= 2;
		else if (end > 2 && data[end - 1] == '\n' && data[end - 2] == '\r' &&
		         data[end - 3] == '\\')
			end -= 3;
		else
			return end;
	}
}

/* 1 when data[0..end) ends with word, which does not continue an identifier. */
static int
ends_with_word(const char *data, size_t end, const char *word)
{
	size_t n = strlen(word);
	if (end < n || memcmp(data + end - n, word, n) != 0)
		return 0;
	return end == n || !is_ident_char(data[end - n - 1]);
}

/* Is the "egg" at data[at] the first word of a pragma? */
static int
pragma_precedes(const char *data, size_t at)
{
	size_t end = skip_blanks_back(data, at);
	if (end > 0 && data[end - 1] == '"') {
		/* _Pragma ( "egg   or   _Pragma(R"(egg */
		end--;
	} else if (end > 2 && data[end - 1] == '(' && data[end - 2] == '"' && data[end - 3] == 'R') {
		end -= 3;
	} else {
		if (end == at && end > 0)
			return 0; /* "xegg": not a separate word */
		if (!ends_with_word(data, end, "pragma"))
			return 0;
		end = skip_blanks_back(data, end - 6);
		return end > 0 && data[end - 1] == '#';
	}
	end = skip_blanks_back(data, end);
	if (end == 0 || data[end - 1] != '(')
		return 0;
	end = skip_blanks_back(data, end - 1);
	return ends_with_word(data, end, "_Pragma");
}

enum scan_result
scan_buffer_has_annotation(const char *data, size_t len)
{
	size_t pos = 0;
	while (pos + 3 <= len) {
		const char *hit = memmem(data + pos, len - pos, "egg", 3);
		if (!hit)
			return SCAN_NO;
		size_t at = (size_t)(hit - data);
		int word_ends = at + 3 == len || !is_ident_char(data[at + 3]);
		if (word_ends && pragma_precedes(data, at))
			return SCAN_YES;
		pos = at + 1;
	}
	return SCAN_NO;
}

enum scan_result
scan_has_annotation(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SCAN_ERROR;
	struct stat st;
	int bad = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (bad) {
		close(fd);
		errno = bad;
		return SCAN_ERROR;
	}
	if (st.st_size == 0) {
		close(fd);
		return SCAN_NO;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;
	close(fd);
	if (map == MAP_FAILED) {
		errno = e;
		return SCAN_ERROR;
	}
	enum scan_result r = scan_buffer_has_annotation(map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	return r;
}

/* The include walk: files already seen (by device and inode) and a budget. */
struct include_walk {
	const char *const *dirs;
	size_t n_dirs;
	dev_t dev[SCAN_MAX_HEADERS];
	ino_t ino[SCAN_MAX_HEADERS];
	size_t n_seen;
};

static enum scan_result scan_file_and_includes(struct include_walk *w, const char *path, int depth);

/* Resolves an #include's name as the preprocessor would for a user header: a
 * quoted name beside its includer first, then (either form) the -I directories;
 * the system directories are never searched, so the toolkit's and libc's headers
 * are not read.  Scans what it finds; SCAN_NO when nothing is found. */
static enum scan_result
scan_include(struct include_walk *w, const char *includer, const char *name, size_t n, int quoted, int depth)
{
	char path[4096];
	if (n == 0 || n >= 1024)
		return SCAN_NO;
	if (name[0] == '/') {
		snprintf(path, sizeof path, "%.*s", (int)n, name);
		return access(path, R_OK) == 0 ? scan_file_and_includes(w, path, depth) : SCAN_NO;
	}
	if (quoted) {
		const char *slash = strrchr(includer, '/');
		int dn = slash ? (int)(slash - includer) : 1;
		snprintf(path, sizeof path, "%.*s/%.*s", dn, slash ? includer : ".", (int)n, name);
		if (access(path, R_OK) == 0)
			return scan_file_and_includes(w, path, depth);
	}
	for (size_t i = 0; i < w->n_dirs; i++) {
		snprintf(path, sizeof path, "%s/%.*s", w->dirs[i], (int)n, name);
		if (access(path, R_OK) == 0)
			return scan_file_and_includes(w, path, depth);
	}
	return SCAN_NO;
}

/* The #include directives of data[0..len), in order; the first that leads to an
 * annotation answers. */
static enum scan_result
scan_includes_of(struct include_walk *w, const char *path, const char *data, size_t len, int depth)
{
	size_t pos = 0;
	while (pos < len) {
		const char *hit = memmem(data + pos, len - pos, "include", 7);
		if (!hit)
			return SCAN_NO;
		size_t at = (size_t)(hit - data), i = at + 7;
		pos = i;
		/* '#', blanks, then "include" at the start of a line */
		size_t b = at;
		while (b > 0 && (data[b - 1] == ' ' || data[b - 1] == '\t'))
			b--;
		if (b == 0 || data[b - 1] != '#')
			continue;
		b--;
		while (b > 0 && (data[b - 1] == ' ' || data[b - 1] == '\t'))
			b--;
		if (b > 0 && data[b - 1] != '\n')
			continue;
		while (i < len && (data[i] == ' ' || data[i] == '\t'))
			i++;
		if (i >= len || (data[i] != '"' && data[i] != '<'))
			continue;
		char close = data[i] == '"' ? '"' : '>';
		size_t s = i + 1, e = s;
		while (e < len && data[e] != close && data[e] != '\n')
			e++;
		if (e >= len || data[e] != close)
			continue;
		if (scan_include(w, path, data + s, e - s, close == '"', depth) == SCAN_YES)
			return SCAN_YES;
	}
	return SCAN_NO;
}

static enum scan_result
scan_file_and_includes(struct include_walk *w, const char *path, int depth)
{
	if (depth > SCAN_MAX_DEPTH || w->n_seen >= SCAN_MAX_HEADERS)
		return SCAN_NO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SCAN_NO;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return SCAN_NO;
	}
	for (size_t i = 0; i < w->n_seen; i++)
		if (w->dev[i] == st.st_dev && w->ino[i] == st.st_ino) {
			close(fd);
			return SCAN_NO;
		}
	w->dev[w->n_seen] = st.st_dev;
	w->ino[w->n_seen++] = st.st_ino;
	if (st.st_size == 0) {
		close(fd);
		return SCAN_NO;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return SCAN_NO;
	enum scan_result r = depth > 0 ? scan_buffer_has_annotation(map, (size_t)st.st_size) : SCAN_NO;
	if (r != SCAN_YES)
		r = scan_includes_of(w, path, map, (size_t)st.st_size, depth + 1);
	munmap(map, (size_t)st.st_size);
	return r;
}

enum scan_result
scan_headers_have_annotation(const char *path, const char *const *dirs, size_t n_dirs)
{
	struct include_walk *w = calloc(1, sizeof *w);
	if (!w)
		return SCAN_NO;
	w->dirs = dirs;
	w->n_dirs = n_dirs;
	enum scan_result r = scan_file_and_includes(w, path, 0);
	free(w);
	return r;
}

enum scan_result
scan_input_has_annotation(const struct args *a, const char *path)
{
	enum scan_result r = scan_has_annotation(path);
	if (r != SCAN_NO)
		return r;
	struct strvec dirs = STRVEC_INIT;
	args_collect(a, "include-path", &dirs);
	r = scan_headers_have_annotation(path, (const char *const *)dirs.v, dirs.n);
	strvec_clear(&dirs);
	return r;
}
