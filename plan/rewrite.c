/*
 * rewrite.c -- see rewrite.h.
 *
 * The winner's text is only lexed, never parsed: what the rewrite needs from it
 * (for a kernel target: where the kernel's definition starts, its parameter list
 * and its body) is found by a small lexer that knows comments, string and
 * character literals and bracket depth, which is all C and CUDA need for that.
 */
#include "config.h"
#include "plan/rewrite.h"
#include "common/hoist.h"
#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* 1-based line number of offset off in s. */
static unsigned
line_of(const char *s, size_t off)
{
	unsigned line = 1;
	for (size_t i = 0; i < off; i++)
		if (s[i] == '\n')
			line++;
	return line;
}

static void
add_line_directive(struct strbuf *out, unsigned line, const char *path)
{
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addf(out, "#line %u \"", line);
	for (const char *p = path; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *p);
	}
	strbuf_addstr(out, "\"\n");
}

/* Skips a comment or literal starting at s[i]; returns the index after it, or i. */
static size_t
skip_trivia(const char *s, size_t n, size_t i)
{
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
		while (i < n && s[i] != '\n')
			i++;
		return i;
	}
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
		const char *end = strstr(s + i + 2, "*/");
		return end ? (size_t)(end - s) + 2 : n;
	}
	if (s[i] == '"' || s[i] == '\'') {
		char q = s[i++];
		while (i < n && s[i] != q) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			i++;
		}
		return i < n ? i + 1 : n;
	}
	return i;
}

/* s[i] is an opening bracket; returns the index of its match, or n. */
static size_t
match_bracket(const char *s, size_t n, size_t i)
{
	char open = s[i], close = open == '(' ? ')' : open == '{' ? '}' : ']';
	int depth = 0;
	while (i < n) {
		size_t j = skip_trivia(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i;
		i++;
	}
	return n;
}

static int
is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

struct kernel_def {
	size_t decl_start;   /* first byte of the declaration */
	size_t params_open;  /* '(' of the parameter list */
	size_t params_close; /* its ')' */
	size_t body_open, body_close;
};

/* Finds the definition of function `name` at file scope of text s. */
static int
find_definition(const char *s, size_t n, const char *name, struct kernel_def *d)
{
	size_t len = strlen(name), boundary = 0, i = 0;
	int depth = 0, line_start = 1;
	while (i < n) {
		size_t j = skip_trivia(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		char c = s[i];
		if (line_start && c == '#' && depth == 0) { /* preprocessor line */
			while (i < n && !(s[i] == '\n' && s[i - 1] != '\\'))
				i++;
			boundary = i;
			continue;
		}
		if (c == '\n') {
			line_start = 1;
			i++;
			continue;
		}
		if (!isspace((unsigned char)c))
			line_start = 0;
		if (c == '{' || c == '(' || c == '[') {
			depth++;
		} else if (c == '}' || c == ')' || c == ']') {
			depth--;
			if (depth == 0 && c == '}')
				boundary = i + 1;
		} else if (c == ';' && depth == 0) {
			boundary = i + 1;
		} else if (depth == 0 && strncmp(s + i, name, len) == 0 &&
		           (i == 0 || !is_ident(s[i - 1])) && !is_ident(s[i + len])) {
			size_t k = i + len;
			while (k < n && isspace((unsigned char)s[k]))
				k++;
			if (k < n && s[k] == '(') {
				size_t close = match_bracket(s, n, k), m = close + 1;
				while (m < n && s[m] != '{' && s[m] != ';')
					m = skip_trivia(s, n, m) == m ? m + 1 : skip_trivia(s, n, m);
				if (close < n && m < n && s[m] == '{') {
					d->decl_start = boundary;
					d->params_open = k;
					d->params_close = close;
					d->body_open = m;
					d->body_close = match_bracket(s, n, m);
					return d->body_close < n ? 0 : -1;
				}
			}
			i += len;
			continue;
		}
		i++;
	}
	return -1;
}

static int
check_target(const char *src, size_t len, const struct rewrite_target *t, struct strbuf *err)
{
	const struct rewrite_span *sp[] = { &t->definition, &t->name_tok, &t->body };
	for (size_t i = 0; i < 3; i++)
		if (sp[i]->begin > sp[i]->end || sp[i]->end > len)
			goto bad;
	if (t->pragma.begin > t->pragma.end || t->pragma.end > t->definition.begin)
		goto bad;
	size_t nl = strlen(t->name);
	if (t->name_tok.end - t->name_tok.begin != nl ||
	    memcmp(src + t->name_tok.begin, t->name, nl) != 0)
		goto bad;
	if (src[t->body.begin] != '{' || src[t->body.end - 1] != '}' ||
	    t->body.end != t->definition.end || t->name_tok.end > t->body.begin ||
	    t->name_tok.begin < t->definition.begin)
		goto bad;
	if (t->pragma.end > t->pragma.begin &&
	    (!memmem(src + t->pragma.begin, t->pragma.end - t->pragma.begin, "egg", 3)))
		goto bad;
	return 0;
bad:
	strbuf_addf(err, "the analyzer's positions for '%s' do not match the file (was it changed during the build?)",
	            t->name);
	return -1;
}

static void
add_call(struct strbuf *out, const char *fn, const struct rewrite_target *t)
{
	strbuf_addf(out, "%s(", fn);
	for (size_t i = 0; i < t->n_params; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", t->params[i]);
	strbuf_addstr(out, ")");
}

/* The dispatcher's helper: 1 when the current device has compute capability cc
 * (x10), asked once per device.  One per target, named after it and not guarded:
 * targets may stand in different namespaces, where one guarded copy would be
 * seen by the first only. */
static void
add_dispatch_helper(struct strbuf *out, const char *name)
{
	strbuf_addf(out, "static int egg_dispatch_tuned__%s(int cc)\n", name);
	strbuf_addstr(out,
		"{\n"
		"\tstatic int known[64], value[64];\n"
		"\tint dev = 0;\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)\n"
		"\t\treturn 0;\n"
		"\tif (!known[dev]) {\n"
		"\t\tint major = 0, minor = 0;\n"
		"\t\tif (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||\n"
		"\t\t    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)\n"
		"\t\t\treturn 0;\n"
		"\t\tvalue[dev] = major * 10 + minor;\n"
		"\t\tknown[dev] = 1;\n"
		"\t}\n"
		"\treturn value[dev] == cc;\n"
		"}\n");
}

/* 1 when the text before offset `at` ends with the linkage specification
 * `extern "C"` without braces (`extern "C" void f()`), which applies to the one
 * declaration it precedes: the renamed reference keeps it, and the dispatcher
 * must repeat it to keep the user's symbol unmangled. */
static int
preceded_by_extern_c(const char *src, size_t at)
{
	size_t i = at;
	while (i > 0 && isspace((unsigned char)src[i - 1]))
		i--;
	if (i < 3 || memcmp(src + i - 3, "\"C\"", 3) != 0)
		return 0;
	i -= 3;
	while (i > 0 && isspace((unsigned char)src[i - 1]))
		i--;
	return i >= 6 && memcmp(src + i - 6, "extern", 6) == 0 && (i == 6 || !is_ident(src[i - 7]));
}

static void
emit_launcher(const char *path, const char *src, const struct rewrite_target *t, const char *winner,
              struct strbuf *out)
{
	unsigned pragma_line = line_of(src, t->pragma.end > t->pragma.begin ? t->pragma.begin
	                                                                     : t->definition.begin);
	/* The reference, renamed in place. */
	strbuf_add(out, src + t->definition.begin, t->name_tok.begin - t->definition.begin);
	strbuf_addf(out, "egg_reference__%s", t->name);
	strbuf_add(out, src + t->name_tok.end, t->definition.end - t->name_tok.end);
	strbuf_addch(out, '\n');
	add_dispatch_helper(out, t->name);
	strbuf_addf(out, "#define %s egg_winner__%s\n", t->name, t->name);
	/* a target with C linkage may stand in an extern "C" block, where the
	 * winner's templates and overloads could not */
	if (t->c_linkage)
		strbuf_addstr(out, "extern \"C++\" {\n");
	add_line_directive(out, pragma_line, path);
	strbuf_addstr(out, winner);
	strbuf_addf(out, "\n%s#undef %s\n", t->c_linkage ? "}\n" : "", t->name);
	/* The dispatcher: the original declaration text, the original name (and the
	 * linkage, which for `extern "C" void f()` stands outside the definition). */
	add_line_directive(out, line_of(src, t->definition.begin), path);
	if (t->extern_c || (t->c_linkage && preceded_by_extern_c(src, t->definition.begin)))
		strbuf_addstr(out, "extern \"C\" ");
	strbuf_add(out, src + t->definition.begin, t->name_tok.begin - t->definition.begin);
	strbuf_addstr(out, t->name);
	strbuf_add(out, src + t->name_tok.end, t->body.begin - t->name_tok.end);
	strbuf_addf(out, "{\n\tif (egg_dispatch_tuned__%s(%d))\n\t\treturn ", t->name, t->arch);
	char *fn = egg_xasprintf("egg_winner__%s", t->name);
	add_call(out, fn, t);
	free(fn);
	strbuf_addstr(out, ";\n\treturn ");
	fn = egg_xasprintf("egg_reference__%s", t->name);
	add_call(out, fn, t);
	free(fn);
	strbuf_addstr(out, ";\n}\n");
	add_line_directive(out, line_of(src, t->definition.end), path);
}

static int
emit_kernel(const char *path, const char *src, const struct rewrite_target *t, const char *winner,
            struct strbuf *out, struct strbuf *err)
{
	const char *w = winner;
	size_t wn = strlen(w);
	struct kernel_def d;
	if (find_definition(w, wn, t->name, &d) < 0) {
		strbuf_addf(err, "the winner for kernel '%s' does not define it", t->name);
		return -1;
	}
	unsigned pragma_line = line_of(src, t->pragma.end > t->pragma.begin ? t->pragma.begin
	                                                                     : t->definition.begin);
	add_line_directive(out, pragma_line, path);
	strbuf_addf(out, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == %d0\n", t->arch);
	strbuf_add(out, w, d.decl_start);
	strbuf_addf(out, "\nstatic __device__ __forceinline__ void egg_winner__%s", t->name);
	strbuf_add(out, w + d.params_open, d.params_close + 1 - d.params_open);
	strbuf_addch(out, '\n');
	strbuf_add(out, w + d.body_open, d.body_close + 1 - d.body_open);
	strbuf_addstr(out, "\n#endif\n");
	add_line_directive(out, line_of(src, t->definition.begin), path);
	strbuf_add(out, src + t->definition.begin, t->body.begin - t->definition.begin);
	strbuf_addf(out, "{\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == %d0\n\t", t->arch);
	char *fn = egg_xasprintf("egg_winner__%s", t->name);
	add_call(out, fn, t);
	free(fn);
	strbuf_addstr(out, ";\n#else\n");
	add_line_directive(out, line_of(src, t->body.begin), path);
	strbuf_add(out, src + t->body.begin + 1, t->body.end - 1 - (t->body.begin + 1));
	strbuf_addstr(out, "\n#endif\n}\n");
	add_line_directive(out, line_of(src, t->definition.end), path);
	return 0;
}

static int
by_position(const void *a, const void *b)
{
	const struct rewrite_target *x = *(const struct rewrite_target *const *)a;
	const struct rewrite_target *y = *(const struct rewrite_target *const *)b;
	return x->definition.begin < y->definition.begin ? -1 : x->definition.begin > y->definition.begin;
}

int
rewrite_source(const char *path, const char *src, size_t len,
               const struct rewrite_target *targets, size_t n,
               struct strbuf *out, struct strbuf *err)
{
	const struct rewrite_target **order = egg_xcalloc(n, sizeof *order);
	for (size_t i = 0; i < n; i++) {
		if (check_target(src, len, &targets[i], err) < 0)
			goto fail;
		order[i] = &targets[i];
	}
	qsort(order, n, sizeof *order, by_position);
	for (size_t i = 1; i < n; i++)
		if (order[i]->pragma.begin < order[i - 1]->definition.end) {
			strbuf_addf(err, "annotated functions '%s' and '%s' overlap", order[i - 1]->name,
			            order[i]->name);
			goto fail;
		}
	/* the winners' #include lines at file scope, before the user's code: a
	 * winner stands where its target stood, maybe inside namespaces */
	struct strbuf tmp = STRBUF_INIT, *winners = egg_xcalloc(n, sizeof *winners);
	for (size_t i = 0; i < n; i++) {
		strbuf_init(&winners[i]);
		egg_hoist_includes(order[i]->winner, &tmp, &winners[i]);
	}
	add_line_directive(&tmp, 1, path);
	size_t pos = 0;
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rewrite_target *t = order[i];
		strbuf_add(&tmp, src + pos, t->pragma.begin - pos);
		/* Blank the pragma, keeping its newlines (continuation lines). */
		for (size_t k = t->pragma.begin; k < t->pragma.end; k++)
			if (src[k] == '\n')
				strbuf_addch(&tmp, '\n');
		strbuf_add(&tmp, src + t->pragma.end, t->definition.begin - t->pragma.end);
		if (t->kind == BUNDLE_LAUNCHER)
			emit_launcher(path, src, t, winners[i].buf, &tmp);
		else
			r = emit_kernel(path, src, t, winners[i].buf, &tmp, err);
		if (r < 0)
			break;
		pos = t->definition.end;
	}
	if (r == 0) {
		strbuf_add(&tmp, src + pos, len - pos);
		strbuf_add(out, tmp.buf, tmp.len);
	}
	strbuf_release(&tmp);
	for (size_t i = 0; i < n; i++)
		strbuf_release(&winners[i]);
	free(winners);
	free(order);
	return r;
fail:
	free(order);
	return -1;
}
