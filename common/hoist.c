/*
 * hoist.c -- see hoist.h.
 */
#include "config.h"

#include "common/hoist.h"

#include <string.h>

static int
is_include(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == n || s[i] != '#')
		return 0;
	i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return n - i >= 7 && strncmp(s + i, "include", 7) == 0 && s[n - 1] != '\\';
}

void
egg_hoist_includes(const char *code, struct strbuf *includes, struct strbuf *rest)
{
	int in_comment = 0;
	for (const char *s = code; *s;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (!in_comment && is_include(s, n)) {
			strbuf_add(includes, s, n);
			strbuf_addch(includes, '\n');
		} else {
			strbuf_add(rest, s, n);
		}
		/* a block comment left open on this line (string literals with comment
		 * markers in them are rare enough in an #include's neighbourhood) */
		for (size_t i = 0; i + 1 < n; i++) {
			if (!in_comment && s[i] == '/' && s[i + 1] == '/')
				break;
			if (!in_comment && s[i] == '/' && s[i + 1] == '*') {
				in_comment = 1;
				i++;
			} else if (in_comment && s[i] == '*' && s[i + 1] == '/') {
				in_comment = 0;
				i++;
			}
		}
		if (!e)
			break;
		strbuf_addch(rest, '\n');
		s = e + 1;
	}
}
