/*
 * scan.c -- see scan.h.  Looks for "egg" with memmem, then walks backwards over
 * blanks to see whether a pragma introduces it; no allocation, one pass.
 */
#include "config.h"
#include "driver/scan.h"

#include <errno.h>
#include <fcntl.h>
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
