/*
 * gen_text.c -- the small amount of C++ text surgery the generated program
 * needs, on the bundle's closure and a contender's code (see gen.h).
 *
 * Two jobs, both lexical (comments, string and character literals skipped, braces
 * counted), neither a parser:
 *   - main.cu compiles the clause expressions, which may name the closure's
 *     macros and constants (BIG_N, enum { VOCAB = 32000 }, constexpr int TILE).
 *     gen_closure_decls copies exactly those: preprocessor definitions and
 *     conditionals, enums, and const/constexpr variables that call nothing.
 *     Functions, kernels, device variables and classes stay out: main must not
 *     see the reference's code, and a class's member could call a function left
 *     out.  Namespaces are kept around what they contain.
 *   - A contender's TU puts the closure and code in an anonymous namespace, where
 *     `extern "C"` would give two contenders one external C name (C linkage
 *     ignores namespaces).  gen_add_code drops it, with the braces of an
 *     `extern "C" { ... }` block.
 */
#include "config.h"
#include "harness/gen.h"

#include <ctype.h>
#include <string.h>

/* Past the comment or literal starting at s[i], or i when none starts there. */
static size_t
gen_skip_lexeme(const char *s, size_t i)
{
	if (s[i] == '/' && s[i + 1] == '/') {
		while (s[i] && s[i] != '\n')
			i++;
		return i;
	}
	if (s[i] == '/' && s[i + 1] == '*') {
		const char *e = strstr(s + i + 2, "*/");
		return e ? (size_t)(e - s) + 2 : strlen(s);
	}
	if (s[i] == '"' || s[i] == '\'') {
		char q = s[i++];
		while (s[i] && s[i] != q && s[i] != '\n')
			i += s[i] == '\\' && s[i + 1] ? 2 : 1;
		return s[i] == q ? i + 1 : i;
	}
	return i;
}

/* Past the '}' matching the '{' at s[open], or strlen(s) when unbalanced. */
static size_t
gen_match_brace(const char *s, size_t open)
{
	int depth = 0;
	for (size_t i = open; s[i];) {
		size_t j = gen_skip_lexeme(s, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && --depth == 0)
			return i + 1;
		i++;
	}
	return strlen(s);
}

static int
gen_at_line_start(const char *s, size_t i)
{
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	return i == 0 || s[i - 1] == '\n';
}

/* Past the end of the preprocessor line at s[i] (continuations joined). */
static size_t
gen_directive_end(const char *s, size_t i)
{
	while (s[i] && !(s[i] == '\n' && s[i - 1] != '\\')) {
		size_t j = gen_skip_lexeme(s, i);
		i = j != i && s[i] == '/' && s[i + 1] == '*' ? j : i + 1;
	}
	return s[i] ? i + 1 : i;
}

/* Does text[b, e) contain the word w? */
int
gen_has_word(const char *text, size_t b, size_t e, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = b; i + n <= e; i++)
		if (strncmp(text + i, w, n) == 0 &&
		    (i == b || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) &&
		    (i + n == e || !(isalnum((unsigned char)text[i + n]) || text[i + n] == '_')))
			return 1;
	return 0;
}

/* Does text[b, e) call anything (an identifier other than sizeof/alignof before '(')? */
static int
gen_calls(const char *text, size_t b, size_t e)
{
	for (size_t i = b; i < e; i++) {
		if (text[i] != '(')
			continue;
		size_t k = i;
		while (k > b && isspace((unsigned char)text[k - 1]))
			k--;
		size_t w = k;
		while (w > b && (isalnum((unsigned char)text[w - 1]) || text[w - 1] == '_'))
			w--;
		if (w == k || isdigit((unsigned char)text[w]))
			continue;
		if (!(k - w == 6 && strncmp(text + w, "sizeof", 6) == 0) &&
		    !(k - w == 7 && strncmp(text + w, "alignof", 7) == 0))
			return 1;
	}
	return 0;
}

static const char *const gen_device_words[] = { "__device__", "__constant__", "__managed__",
	                                        "__shared__", "__global__", NULL };

/* A declaration main may see: an enum, or a const/constexpr variable that names
 * nothing on the device and calls nothing. */
static int
gen_wanted_decl(const char *s, size_t b, size_t e)
{
	for (int k = 0; gen_device_words[k]; k++)
		if (gen_has_word(s, b, e, gen_device_words[k]))
			return 0;
	size_t h = b;
	while (h < e && isspace((unsigned char)s[h]))
		h++;
	if (strncmp(s + h, "enum", 4) == 0 || strncmp(s + h, "typedef enum", 12) == 0)
		return !gen_calls(s, b, e);
	return (gen_has_word(s, b, e, "constexpr") || gen_has_word(s, b, e, "const")) &&
	       !gen_has_word(s, b, e, "struct") && !gen_has_word(s, b, e, "class") &&
	       !gen_has_word(s, b, e, "template") && !gen_has_word(s, b, e, "operator") &&
	       !gen_calls(s, b, e);
}

static void
gen_decls_range(const char *s, size_t i, size_t end, struct strbuf *out)
{
	size_t item = i; /* where the current declaration began */
	while (i < end) {
		if (item == i && isspace((unsigned char)s[i])) {
			item = ++i;
			continue;
		}
		if (s[i] == '#' && gen_at_line_start(s, i)) {
			size_t e = gen_directive_end(s, i);
			size_t w = i + 1;
			while (s[w] == ' ' || s[w] == '\t')
				w++;
			static const char *const keep[] = { "define", "undef", "if", "ifdef", "ifndef",
				                            "elif", "else", "endif", NULL };
			for (int k = 0; keep[k]; k++) {
				size_t n = strlen(keep[k]);
				if (strncmp(s + w, keep[k], n) == 0 && !isalnum((unsigned char)s[w + n]) &&
				    s[w + n] != '_') {
					strbuf_add(out, s + i, e - i);
					if (out->len && out->buf[out->len - 1] != '\n')
						strbuf_addch(out, '\n');
					break;
				}
			}
			i = item = e;
			continue;
		}
		size_t j = gen_skip_lexeme(s, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (s[i] == ';') {
			if (gen_wanted_decl(s, item, i))
				strbuf_add(out, s + item, i + 1 - item), strbuf_addch(out, '\n');
			i = item = i + 1;
			continue;
		}
		if (s[i] != '{') {
			i++;
			continue;
		}
		size_t close = gen_match_brace(s, i);
		if (close > end)
			close = end;
		int is_type = gen_has_word(s, item, i, "enum") || gen_has_word(s, item, i, "struct") ||
		              gen_has_word(s, item, i, "class") || gen_has_word(s, item, i, "union");
		int is_init = memchr(s + item, '=', i - item) != NULL;
		if (gen_has_word(s, item, i, "namespace") && !is_init) {
			strbuf_add(out, s + item, i + 1 - item);
			strbuf_addch(out, '\n');
			gen_decls_range(s, i + 1, close - 1, out);
			strbuf_addstr(out, "}\n");
			i = item = close;
		} else if (gen_has_word(s, item, i, "extern") && strstr(s + item, "\"C\"") &&
		           (size_t)(strstr(s + item, "\"C\"") - s) < i) {
			gen_decls_range(s, i + 1, close - 1, out);
			i = item = close;
		} else if (is_type || is_init) {
			i = close; /* the declaration goes on to its ';' */
		} else {
			i = item = close; /* a function definition */
		}
	}
}

void
gen_closure_decls(const char *closure, struct strbuf *out)
{
	if (closure)
		gen_decls_range(closure, 0, strlen(closure), out);
}

void
gen_add_code(struct strbuf *out, const char *code)
{
	static const char key[] = "extern \"C\"";
	size_t n = strlen(code), drop_close = (size_t)-1, from = 0;
	for (size_t i = 0; i < n;) {
		if (i == drop_close) {
			strbuf_add(out, code + from, i - from);
			from = ++i; /* the block's '}' */
			drop_close = (size_t)-1;
			continue;
		}
		size_t j = gen_skip_lexeme(code, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (strncmp(code + i, key, sizeof key - 1) != 0) {
			i++;
			continue;
		}
		size_t after = i + sizeof key - 1;
		while (isspace((unsigned char)code[after]))
			after++;
		strbuf_add(out, code + from, i - from);
		if (code[after] == '{' && drop_close == (size_t)-1) {
			drop_close = gen_match_brace(code, after) - 1;
			after++;
		}
		i = from = after;
	}
	strbuf_add(out, code + from, n - from);
}
