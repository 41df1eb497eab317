/*
 * canon.c -- the canonical form (see canon.h): a small C++ lexer that keeps
 * tokens and directive boundaries and drops everything else.
 */
#include "config.h"
#include "analyzer/canon.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <ctype.h>
#include <string.h>

/* Punctuators longest first, so that the first match is the maximal munch. */
static const char *const puncts[] = {
	"<<=", ">>=", "...", "->*", "<=>",
	"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##",
};

/* Skips a backslash-newline at s[i]; returns the index after it, or i. */
static size_t
skip_splice(const char *s, size_t i)
{
	while (s[i] == '\\' && (s[i + 1] == '\n' || (s[i + 1] == '\r' && s[i + 2] == '\n')))
		i += s[i + 1] == '\n' ? 2 : 3;
	return i;
}

/* Length of the string or character literal starting at s[i] (quote q). */
static size_t
literal_len(const char *s, size_t i, char q)
{
	size_t j = i + 1;
	while (s[j] && s[j] != q && s[j] != '\n') {
		if (s[j] == '\\' && s[j + 1])
			j++;
		j++;
	}
	return (s[j] == q ? j + 1 : j) - i;
}

/* Length of a raw string literal R"delim( ... )delim" at s[i] ('R' or prefix
 * already consumed by the caller is not needed: s[i] is the '"'), or 0. */
static size_t
raw_literal_len(const char *s, size_t i)
{
	size_t d = i + 1;
	while (s[d] && s[d] != '(' && d - i < 18)
		d++;
	if (s[d] != '(')
		return 0;
	char close[24];
	size_t dl = d - (i + 1);
	close[0] = ')';
	memcpy(close + 1, s + i + 1, dl);
	close[dl + 1] = '"';
	close[dl + 2] = 0;
	const char *end = strstr(s + d, close);
	return end ? (size_t)(end - (s + i)) + dl + 2 : strlen(s + i);
}

char *
canon_text(const char *s)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0;
	int at_line_start = 1, in_directive = 0, need_space = 0;
	int define_state = 0;          /* 0 '#', 1 "define", 2 the name, 3 past it */
	size_t defined_name_end = (size_t)-1;
	for (;;) {
		i = skip_splice(s, i);
		char c = s[i];
		if (!c)
			break;
		if (c == '\n') {
			if (in_directive) {
				strbuf_addch(&out, '\n');
				in_directive = 0;
				need_space = 0;
			}
			at_line_start = 1;
			i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '/' && s[skip_splice(s, i + 1)] == '/') {
			while (s[i] && s[i] != '\n') {
				size_t k = skip_splice(s, i);
				i = k == i ? i + 1 : k;
			}
			continue;
		}
		if (c == '/' && s[skip_splice(s, i + 1)] == '*') {
			const char *end = strstr(s + i + 2, "*/");
			i = end ? (size_t)(end - s) + 2 : strlen(s);
			continue;
		}
		size_t len = 0;
		if (c == '#' && at_line_start) {
			if (out.len && out.buf[out.len - 1] != '\n')
				strbuf_addch(&out, '\n');
			in_directive = 1;
			need_space = 0;
			define_state = 0;
			defined_name_end = (size_t)-1;
			len = 1;
		} else if (c == '"' || c == '\'') {
			len = literal_len(s, i, c);
		} else if (isalnum((unsigned char)c) || c == '_' || (c == '.' && isdigit((unsigned char)s[i + 1]))) {
			int number = isdigit((unsigned char)c) || c == '.';
			size_t j = i;
			while (isalnum((unsigned char)s[j]) || s[j] == '_' || (number && s[j] == '.') ||
			       (number && s[j] == '\'' && isalnum((unsigned char)s[j + 1])) ||
			       (number && (s[j] == '+' || s[j] == '-') && strchr("eEpP", s[j - 1])))
				j++;
			len = j - i;
			/* Encoding prefixes and raw strings: u8"..", L'..', R"x(..)x". */
			if (!number && (s[j] == '"' || s[j] == '\'')) {
				int raw = s[j - 1] == 'R' && s[j] == '"';
				size_t lit = raw ? raw_literal_len(s, j) : literal_len(s, j, s[j]);
				if (lit && len <= 3)
					len += lit;
			}
		} else {
			len = 1;
			for (size_t k = 0; k < sizeof puncts / sizeof *puncts; k++)
				if (strncmp(s + i, puncts[k], strlen(puncts[k])) == 0) {
					len = strlen(puncts[k]);
					break;
				}
		}
		/* "#define F(x)" is function-like, "#define F (x)" is not. */
		int glued = c == '(' && in_directive && defined_name_end == i;
		if (need_space && !glued)
			strbuf_addch(&out, ' ');
		strbuf_add(&out, s + i, len);
		if (in_directive && define_state == 2)
			defined_name_end = i + len;
		if (in_directive)
			define_state = define_state == 0 && c == '#' ? 1
				     : define_state == 1 && len == 6 && strncmp(s + i, "define", 6) == 0 ? 2 : 3;
		need_space = 1;
		at_line_start = 0;
		i += len;
	}
	if (out.len && out.buf[out.len - 1] != '\n')
		strbuf_addch(&out, '\n');
	return strbuf_detach(&out);
}
