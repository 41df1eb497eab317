/*
 * screen.c -- the candidate screen (see screen.h for what it refuses and why).
 *
 * The lexer works on a copy of the source with line splices removed (so that
 * "sys\<newline>tem" is seen as the one name the compiler sees), keeping each
 * character's original line and column for the message.  It tracks braces to
 * know whether a token sits in a device function, and the previous tokens to
 * tell a member access (a.read()) from a call of the C library (read()).
 */
#include "config.h"
#include "harness/screen.h"
#include "common/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refused wherever they appear. */
static const char *const banned_always[] = {
	"system", "popen", "pclose", "execl", "execle", "execlp", "execv", "execve", "execvp",
	"execvpe", "fexecve", "fork", "vfork", "clone", "clone3", "posix_spawn", "posix_spawnp",
	"daemon", "fopen", "fopen64", "freopen", "fdopen", "tmpfile", "tmpnam", "mkstemp",
	"opendir", "readdir", "scandir", "dlopen", "dlmopen", "dlsym", "dlvsym", "socket",
	"socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto", "sendmsg",
	"recvfrom", "recvmsg", "getaddrinfo", "gethostbyname", "gethostbyaddr", "getenv",
	"secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ", "__environ",
	"syscall", "ptrace", "prctl", "mmap", "mmap64", "mprotect", "shm_open", "memfd_create",
	"pthread_create", "thrd_create", "sigaction", "signal", "unlink", "unlinkat", "rmdir",
	"mkdir", "chmod", "chown", "chdir", "chroot", "symlink", "truncate", "ftruncate",
	"ifstream", "ofstream", "fstream", "filebuf", "basic_ifstream", "basic_ofstream",
	"basic_fstream", "cudaDeviceReset", "cudaSetDevice", "cuModuleLoad", "cuModuleLoadData",
	"cuModuleLoadFatBinary", "cuLibraryLoadFromFile", "cudaLibraryLoadFromFile",
	"__builtin_trap_host", NULL,
};

/* Refused when called or named in a #define (common words otherwise). */
static const char *const banned_calls[] = {
	"open", "open64", "openat", "creat", "read", "write", "pread", "pwrite", "close",
	"ioctl", "dup", "dup2", "pipe", "kill", "raise", "remove", "rename", "sleep", "usleep",
	"nanosleep", "exit", "_exit", "abort", "atexit", NULL,
};

/* Attributes that run code before or after main, or place it where the loader
 * runs it, refused inside __attribute__((...)) and [[...]] (in #define bodies
 * too, so that no macro can hide one). */
static const char *const banned_attributes[] = {
	"constructor", "destructor", "init_priority", "section", "ifunc", "alias", "weakref",
	"__constructor__", "__destructor__", "__section__", "__ifunc__", "__alias__", NULL,
};

/* Refused after std:: (thread is a fine variable name in a kernel). */
static const char *const banned_std[] = { "thread", "jthread", "async", "system", NULL };

static const char *const allowed_includes[] = {
	"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_fp16.h", "cuda_fp16.hpp",
	"cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_pipeline.h", "cuda_awbarrier.h",
	"cooperative_groups.h", "mma.h", "math_constants.h", "device_launch_parameters.h",
	"vector_types.h", "vector_functions.h", "math.h", "cmath", "stdint.h", "cstdint",
	"stddef.h", "cstddef", "float.h", "cfloat", "limits.h", "climits", "limits",
	"type_traits", "utility", "algorithm", "stdio.h", "cstdio", "assert.h", "cassert",
	"string.h", "cstring", "stdbool.h", "array", "tuple", NULL,
};
static const char *const allowed_include_dirs[] = {
	"cub/", "thrust/", "cuda/", "cooperative_groups/", "crt/", NULL,
};

static int
in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

enum brace_kind { BRACE_OTHER, BRACE_HOST_FN, BRACE_DEVICE_FN };

struct lexer {
	char *t;             /* the source, splices removed */
	unsigned *line, *col;
	size_t n, i;
	struct strbuf *why;
	/* context */
	char prev[64], prev2[64];
	int at_line_start, in_directive;
	char directive[32];
	char pending_call[64]; /* a banned_calls name waiting to see if '(' follows */
	int attr_parens;       /* open parentheses of an __attribute__((...)), or -1 */
	int attr_brackets;     /* inside [[ ... ]] */
	size_t pending_at;
	/* the declaration heading the next '{' */
	int saw_paren, saw_device, saw_global, saw_host, saw_namespace, saw_extern;
	unsigned char braces[512];
	int depth;
};

static int
refuse(struct lexer *lx, size_t at, const char *fmt, const char *name)
{
	strbuf_addf(lx->why, "line %u, column %u: ", lx->line[at], lx->col[at]);
	strbuf_addf(lx->why, fmt, name);
	return -1;
}

static void
splice(struct lexer *lx, const char *src)
{
	size_t len = strlen(src);
	lx->t = egg_xmalloc(len + 1);
	lx->line = egg_xmalloc((len + 1) * sizeof *lx->line);
	lx->col = egg_xmalloc((len + 1) * sizeof *lx->col);
	unsigned line = 1, col = 1;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\\' && (src[i + 1] == '\n' || (src[i + 1] == '\r' && src[i + 2] == '\n'))) {
			i += src[i + 1] == '\r' ? 2 : 1;
			line++;
			col = 1;
			continue;
		}
		lx->t[n] = src[i];
		lx->line[n] = line;
		lx->col[n] = col;
		n++;
		if (src[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	lx->t[n] = 0;
	lx->line[n] = line;
	lx->col[n] = col;
	lx->n = n;
}

static void
set_prev(struct lexer *lx, const char *tok)
{
	memcpy(lx->prev2, lx->prev, sizeof lx->prev);
	snprintf(lx->prev, sizeof lx->prev, "%s", tok);
}

static int
check_include(struct lexer *lx, char *const *extra, size_t n_extra)
{
	size_t i = lx->i;
	while (lx->t[i] == ' ' || lx->t[i] == '\t')
		i++;
	char close = lx->t[i] == '<' ? '>' : lx->t[i] == '"' ? '"' : 0;
	if (!close)
		return refuse(lx, i, "%s: an #include must name a header literally", "include");
	size_t start = i, end = i + 1;
	while (end < lx->n && lx->t[end] != close && lx->t[end] != '\n')
		end++;
	if (lx->t[end] != close)
		return refuse(lx, i, "%s: unterminated header name", "include");
	char *spelling = egg_xstrndup(lx->t + start, end - start + 1);
	char *name = egg_xstrndup(lx->t + start + 1, end - start - 1);
	int ok = 0;
	for (size_t k = 0; k < n_extra; k++)
		if (extra[k] && strcmp(extra[k], spelling) == 0)
			ok = 1;
	if (close == '>' && !strstr(name, "..")) {
		ok |= in_list(allowed_includes, name);
		for (int k = 0; allowed_include_dirs[k]; k++)
			ok |= egg_str_starts(name, allowed_include_dirs[k]);
		ok |= egg_str_starts(name, "sm_") && egg_str_ends(name, "intrinsics.h");
	}
	int rc = ok ? 0 : refuse(lx, start, "includes %s, which is not a CUDA, math or type "
	                         "header the candidate may use", spelling);
	free(spelling);
	free(name);
	lx->i = end + 1;
	return rc;
}

/* Skips a string or character literal starting at lx->i (the quote). */
static int
skip_quoted(struct lexer *lx)
{
	char q = lx->t[lx->i];
	size_t start = lx->i++;
	while (lx->i < lx->n && lx->t[lx->i] != q) {
		if (lx->t[lx->i] == '\n')
			return refuse(lx, start, "%s literal is not terminated on its line",
			              q == '"' ? "a string" : "a character");
		if (lx->t[lx->i] == '\\')
			lx->i++;
		lx->i++;
	}
	if (lx->i >= lx->n)
		return refuse(lx, start, "%s literal is not terminated", q == '"' ? "a string" : "a character");
	lx->i++;
	return 0;
}

static int
skip_raw_string(struct lexer *lx)
{
	size_t start = lx->i; /* at the quote */
	size_t d = start + 1;
	while (d < lx->n && lx->t[d] != '(' && d - start <= 17)
		d++;
	if (lx->t[d] != '(')
		return refuse(lx, start, "%s literal has a bad delimiter", "a raw string");
	char delim[20];
	size_t dl = d - start - 1;
	memcpy(delim + 1, lx->t + start + 1, dl);
	delim[0] = ')';
	delim[dl + 1] = '"';
	delim[dl + 2] = 0;
	char *end = strstr(lx->t + d + 1, delim);
	if (!end)
		return refuse(lx, start, "%s literal is not terminated", "a raw string");
	lx->i = (size_t)(end - lx->t) + dl + 2;
	return 0;
}

static void
open_brace(struct lexer *lx)
{
	unsigned char kind;
	if (lx->depth > 0 && lx->braces[lx->depth - 1] != BRACE_OTHER)
		kind = lx->braces[lx->depth - 1];
	else if (lx->saw_namespace || lx->saw_extern || !lx->saw_paren)
		kind = BRACE_OTHER;
	else if ((lx->saw_device || lx->saw_global) && !lx->saw_host)
		kind = BRACE_DEVICE_FN;
	else
		kind = BRACE_HOST_FN;
	if (lx->depth < (int)sizeof lx->braces)
		lx->braces[lx->depth] = kind;
	lx->depth++;
}

static void
reset_heading(struct lexer *lx)
{
	lx->saw_paren = lx->saw_device = lx->saw_global = lx->saw_host = 0;
	lx->saw_namespace = lx->saw_extern = 0;
}

static int
identifier(struct lexer *lx, size_t start)
{
	char name[64];
	size_t len = lx->i - start;
	snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), lx->t + start);
	int member = !strcmp(lx->prev, ".") || !strcmp(lx->prev, "->");
	if (!member && in_list(banned_always, name))
		return refuse(lx, start, "uses '%s': a candidate may only call the CUDA runtime, "
		              "math and memory functions", name);
	if ((lx->attr_parens > 0 || lx->attr_brackets) && in_list(banned_attributes, name))
		return refuse(lx, start, "uses the attribute '%s', which would run or place code "
		              "outside the harness's calls", name);
	if (!strcmp(name, "__attribute__") || !strcmp(name, "__attribute"))
		lx->attr_parens = 0;
	if (!member && !strcmp(lx->prev, "::") && !strcmp(lx->prev2, "std") && in_list(banned_std, name))
		return refuse(lx, start, "uses 'std::%s', which a candidate may not use", name);
	/* The harness's entry points (egg_entry_ref_NONCE, egg_entry_cand) are the
	 * only names a candidate's unit shares with the others; other egg_ names are
	 * free for generators (the builtin prefixes its kernels with egg_). */
	if (egg_str_starts(name, "egg_entry"))
		return refuse(lx, start, "uses '%s': names starting with egg_entry belong to the harness", name);
	if (!strcmp(name, "asm") || !strcmp(name, "__asm") || !strcmp(name, "__asm__")) {
		int dev = lx->depth > 0 && lx->depth <= (int)sizeof lx->braces &&
		          lx->braces[lx->depth - 1] == BRACE_DEVICE_FN;
		if (!dev)
			return refuse(lx, start, "uses '%s' outside a __device__ or __global__ function "
			              "(inline assembly on the host)", name);
	}
	if (!member && in_list(banned_calls, name)) {
		if (lx->in_directive)
			return refuse(lx, start, "names '%s' in a preprocessor directive", name);
		snprintf(lx->pending_call, sizeof lx->pending_call, "%s", name);
		lx->pending_at = start;
	}
	if (!lx->in_directive) {
		if (!strcmp(name, "__device__"))
			lx->saw_device = 1;
		else if (!strcmp(name, "__global__"))
			lx->saw_global = 1;
		else if (!strcmp(name, "__host__"))
			lx->saw_host = 1;
		else if (!strcmp(name, "namespace"))
			lx->saw_namespace = 1;
	}
	set_prev(lx, name);
	return 0;
}

/* One token at lx->i (whitespace already skipped).  Returns -1 on a refusal. */
static int
token(struct lexer *lx, char *const *extra, size_t n_extra)
{
	const char *t = lx->t;
	size_t i = lx->i;
	char c = t[i];
	if (c == '/' && t[i + 1] == '/') {
		while (lx->i < lx->n && t[lx->i] != '\n')
			lx->i++;
		return 0;
	}
	if (c == '/' && t[i + 1] == '*') {
		char *end = strstr(t + i + 2, "*/");
		if (!end)
			return refuse(lx, i, "%s is not terminated", "a comment");
		lx->i = (size_t)(end - t) + 2;
		return 0;
	}
	int starts_line = lx->at_line_start;
	lx->at_line_start = 0;
	if (lx->pending_call[0]) {
		if (c == '(')
			return refuse(lx, lx->pending_at, "calls '%s': a candidate may only call the "
			              "CUDA runtime, math and memory functions", lx->pending_call);
		lx->pending_call[0] = 0;
	}
	if ((c == '#' && t[i + 1] == '#') || (c == '%' && t[i + 1] == ':' && t[i + 2] == '%' && t[i + 3] == ':'))
		return refuse(lx, i, "uses token pasting (%s), which the screen cannot see through", "##");
	if (c == '?' && t[i + 1] == '?')
		return refuse(lx, i, "uses a trigraph (%s)", "??");
	if (c == '\\')
		return refuse(lx, i, "has a backslash outside a literal (%s)", "universal character name");
	if (c == '#' || (c == '%' && t[i + 1] == ':')) {
		lx->i += c == '#' ? 1 : 2;
		if (!starts_line)
			return refuse(lx, i, "uses '%s' outside a preprocessor directive", "#");
		while (t[lx->i] == ' ' || t[lx->i] == '\t')
			lx->i++;
		size_t s = lx->i;
		while (isalnum((unsigned char)t[lx->i]) || t[lx->i] == '_')
			lx->i++;
		snprintf(lx->directive, sizeof lx->directive, "%.*s", (int)(lx->i - s), t + s);
		lx->in_directive = 1;
		if (!strcmp(lx->directive, "include") || !strcmp(lx->directive, "include_next") ||
		    !strcmp(lx->directive, "import"))
			return check_include(lx, extra, n_extra);
		if (!strcmp(lx->directive, "embed"))
			return refuse(lx, s, "uses #%s", lx->directive);
		return 0;
	}
	if (isalpha((unsigned char)c) || c == '_' || c == '$') {
		size_t s = i;
		while (isalnum((unsigned char)t[lx->i]) || t[lx->i] == '_' || t[lx->i] == '$')
			lx->i++;
		size_t len = lx->i - s;
		if (t[lx->i] == '"' && t[lx->i - 1] == 'R' && len <= 3)
			return skip_raw_string(lx);
		if ((t[lx->i] == '"' || t[lx->i] == '\'') && len <= 2 &&
		    (t[s] == 'L' || t[s] == 'u' || t[s] == 'U')) {
			if (skip_quoted(lx) < 0)
				return -1;
			set_prev(lx, "\"");
			if (!lx->in_directive && !strcmp(lx->prev2, "extern"))
				lx->saw_extern = 1;
			return 0;
		}
		return identifier(lx, s);
	}
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)t[i + 1]))) {
		lx->i++;
		for (;;) {
			char d = t[lx->i];
			if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && (t[lx->i + 1] == '+' || t[lx->i + 1] == '-'))
				lx->i += 2;
			else if (isalnum((unsigned char)d) || d == '_' || d == '.')
				lx->i++;
			else if (d == '\'' && isalnum((unsigned char)t[lx->i + 1]))
				lx->i += 2;
			else
				break;
		}
		set_prev(lx, "0");
		return 0;
	}
	if (c == '"' || c == '\'') {
		if (skip_quoted(lx) < 0)
			return -1;
		if (!lx->in_directive && !strcmp(lx->prev, "extern"))
			lx->saw_extern = 1;
		set_prev(lx, "\"");
		return 0;
	}
	/* punctuation */
	char p[4] = { c, 0, 0, 0 };
	lx->i++;
	if ((c == ':' && t[lx->i] == ':') || (c == '-' && t[lx->i] == '>') ||
	    (c == '<' && t[lx->i] == '%') || (c == '%' && t[lx->i] == '>'))
		p[1] = t[lx->i++];
	if (!strcmp(p, "<%"))
		strcpy(p, "{");
	else if (!strcmp(p, "%>"))
		strcpy(p, "}");
	if (p[0] == '(' && lx->attr_parens >= 0)
		lx->attr_parens++;
	else if (p[0] == ')' && lx->attr_parens > 0 && --lx->attr_parens == 0)
		lx->attr_parens = -1;
	if (p[0] == '[' && t[lx->i] == '[')
		lx->attr_brackets = 1;
	else if (p[0] == ']' && t[lx->i] == ']')
		lx->attr_brackets = 0;
	if (!lx->in_directive) {
		if (p[0] == ')' && !p[1])
			lx->saw_paren = 1;
		if (!strcmp(p, "{")) {
			open_brace(lx);
			reset_heading(lx);
		} else if (!strcmp(p, "}")) {
			if (lx->depth > 0)
				lx->depth--;
			reset_heading(lx);
		} else if (!strcmp(p, ";")) {
			reset_heading(lx);
		}
	}
	set_prev(lx, p);
	return 0;
}

int
screen_candidate(const char *src, char *const *extra, size_t n_extra, struct strbuf *why)
{
	struct lexer lx;
	memset(&lx, 0, sizeof lx);
	lx.attr_parens = -1;
	lx.why = why;
	lx.at_line_start = 1;
	splice(&lx, src);
	int rc = 0;
	while (rc == 0 && lx.i < lx.n) {
		char c = lx.t[lx.i];
		if (c == '\n') {
			lx.at_line_start = 1;
			lx.in_directive = 0;
			lx.i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			lx.i++;
			continue;
		}
		rc = token(&lx, extra, n_extra);
	}
	free(lx.t);
	free(lx.line);
	free(lx.col);
	return rc;
}
