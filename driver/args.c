/*
 * args.c -- see args.h for the rules (each measured with nvcc 13.0).
 *
 * The parse runs in two passes.  The first reads tokens into options and inputs,
 * expanding options files where they stand (each file is its own token list: a
 * value never crosses its end).  The second, once the last -o, -odir, -x, -MF and
 * -MT are known, computes each input's language, output and depfile, because all
 * of these are global in nvcc, not positional.
 */
#include "config.h"
#include "driver/args.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct option_def {
	const char *lname, *sname;
	enum nvcc_arg_kind kind;
	int glued;
	const char *values;
};

static const struct option_def nvcc_options[] = {
#define NVCC_OPTION(l, s, k, g, v) { l, s, k, g, v },
#include "driver/nvcc-options.def"
#undef NVCC_OPTION
};
#define N_OPTIONS (sizeof nvcc_options / sizeof nvcc_options[0])

/* nvcc: "Too many options file opened". */
#define MAX_OPTF_DEPTH 64

struct args {
	struct args_option *opts;
	size_t nopts, capopts;
	struct args_input *inputs;
	size_t ninputs, capinputs;
	char *problem;
	char *output;
	char *cwd;
	enum args_phase phase;
	int rdc, deps_with_compile, deps_phony, depth;
};

/* A token list being read: where its tokens came from, for their spans. */
struct token_list {
	char *const *tok;
	size_t n;
	enum args_origin origin;
	int from_argv;          /* tok[i] is argv[i] */
	struct args_span outer; /* span of the top-level -optf (options files only) */
};

static void
add_problem(struct args *a, const char *fmt, const char *what)
{
	if (!a->problem)
		a->problem = egg_xasprintf(fmt, what);
}

static const char *
def_name(const struct option_def *d)
{
	return d->lname ? d->lname : d->sname;
}

static const struct option_def *
find_def(const char *name, size_t len, int long_form)
{
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const char *n = long_form ? nvcc_options[i].lname : nvcc_options[i].sname;
		if (n && strlen(n) == len && memcmp(n, name, len) == 0)
			return &nvcc_options[i];
	}
	return NULL;
}

/* The longest short name marked glued that begins body ("-Iinc": I). */
static const struct option_def *
find_glued(const char *body)
{
	const struct option_def *best = NULL;
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = &nvcc_options[i];
		if (d->glued && d->sname && egg_str_starts(body, d->sname) &&
		    (!best || strlen(d->sname) > strlen(best->sname)))
			best = d;
	}
	return best;
}

int
args_option_kind(const char *name)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (strcmp(def_name(&nvcc_options[i]), name) == 0)
			return nvcc_options[i].kind;
	return -1;
}

static struct args_span
span_of(const struct token_list *tl, size_t first, size_t last)
{
	if (tl->from_argv)
		return (struct args_span){ ARGS_FROM_ARGV, (int)first, (int)last };
	if (tl->origin == ARGS_FROM_OPTIONS_FILE)
		return (struct args_span){ ARGS_FROM_OPTIONS_FILE, tl->outer.first, tl->outer.last };
	return (struct args_span){ tl->origin, -1, -1 };
}

static void
push_option(struct args *a, const char *name, const char *value, int known,
            struct args_span span)
{
	if (a->nopts == a->capopts) {
		a->capopts = a->capopts ? 2 * a->capopts : 16;
		a->opts = egg_xrealloc(a->opts, a->capopts * sizeof *a->opts);
	}
	a->opts[a->nopts++] = (struct args_option){
		egg_xstrdup(name), value ? egg_xstrdup(value) : NULL, known, span
	};
}

static void
push_input(struct args *a, const char *path, struct args_span span)
{
	if (a->ninputs == a->capinputs) {
		a->capinputs = a->capinputs ? 2 * a->capinputs : 8;
		a->inputs = egg_xrealloc(a->inputs, a->capinputs * sizeof *a->inputs);
	}
	struct args_input *in = &a->inputs[a->ninputs++];
	memset(in, 0, sizeof *in);
	in->path = egg_xstrdup(path);
	in->span = span;
}

/* Splits an options file's text: blanks separate, "..." groups (quotes dropped),
 * a backslash makes the next character literal (a quote after it still toggles). */
static void
split_options_file(const char *s, struct strvec *out)
{
	struct strbuf tok = STRBUF_INIT;
	int in_tok = 0, quoted = 0;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			if (*s == '"')
				quoted = !quoted;
			else
				strbuf_addch(&tok, *s);
			in_tok = 1;
		} else if (*s == '"') {
			quoted = !quoted;
			in_tok = 1;
		} else if (!quoted && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
			if (in_tok)
				strvec_push(out, tok.buf);
			strbuf_reset(&tok);
			in_tok = 0;
		} else {
			strbuf_addch(&tok, *s);
			in_tok = 1;
		}
	}
	if (in_tok)
		strvec_push(out, tok.buf);
	strbuf_release(&tok);
}

/* Splits NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS: blanks outside "..." separate; the
 * quotes are kept, as nvcc keeps them. */
static void
split_env(const char *s, struct strvec *out)
{
	while (s && *s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		const char *start = s;
		int quoted = 0;
		for (; *s && (quoted || (*s != ' ' && *s != '\t' && *s != '\n')); s++)
			if (*s == '"')
				quoted = !quoted;
		strvec_push_owned(out, egg_xstrndup(start, (size_t)(s - start)));
	}
}

static void parse_list(struct args *a, const struct token_list *tl);

/* Reads one options file and parses its tokens as their own list. */
static void
expand_options_file(struct args *a, const char *file, struct args_span outer)
{
	if (a->depth >= MAX_OPTF_DEPTH) {
		add_problem(a, "too many nested options files (at '%s')", file);
		return;
	}
	char *path = (file[0] == '/' || !a->cwd) ? egg_xstrdup(file) : fs_join(a->cwd, file);
	char *text = NULL;
	size_t len;
	if (fs_read_file(path, 0, &text, &len) < 0) {
		add_problem(a, "cannot open options file '%s'", file);
		free(path);
		return;
	}
	free(path);
	struct strvec toks = STRVEC_INIT;
	split_options_file(text, &toks);
	free(text);
	struct token_list sub = { toks.v, toks.n, ARGS_FROM_OPTIONS_FILE, 0, outer };
	a->depth++;
	parse_list(a, &sub);
	a->depth--;
	strvec_clear(&toks);
}

/* Calls fn on each comma-separated piece of a list value; commas inside [...] do
 * not split ("code=[sm_90,compute_90]"). */
static void
for_each_list_value(const char *value, void (*fn)(const char *, size_t, void *), void *ctx)
{
	const char *start = value;
	int depth = 0;
	for (const char *p = value;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		else if ((*p == ',' && depth == 0) || !*p) {
			fn(start, (size_t)(p - start), ctx);
			if (!*p)
				break;
			start = p + 1;
		}
	}
}

struct optf_ctx {
	struct args *a;
	struct args_span outer;
};

static void
expand_one(const char *s, size_t n, void *ctx)
{
	struct optf_ctx *c = ctx;
	char *file = egg_xstrndup(s, n);
	expand_options_file(c->a, file, c->outer);
	free(file);
}

/* 1 when every comma-separated piece of value is one of "a|b|c" (nvcc checks
 * -x, -std, -cudart, ... against their sets; -compress-mode takes several). */
static int
enum_accepts(const char *set, const char *value)
{
	for (const char *v = value;;) {
		size_t n = strcspn(v, ",");
		int found = 0;
		for (const char *s = set; *s && !found;) {
			size_t m = strcspn(s, "|");
			found = m == n && memcmp(s, v, n) == 0;
			s += m + (s[m] == '|');
		}
		if (!found)
			return 0;
		if (!v[n])
			return 1;
		v += n + 1;
	}
}

/* Reads one option token at tl->tok[*i] (and its value token); advances *i. */
static void
parse_option(struct args *a, const struct token_list *tl, size_t *i)
{
	const char *tok = tl->tok[*i];
	int long_form = tok[1] == '-';
	const char *body = tok + (long_form ? 2 : 1);
	const char *eq = strchr(body, '=');
	size_t name_len = eq ? (size_t)(eq - body) : strlen(body);
	const struct option_def *d = find_def(body, name_len, long_form);
	const char *value = NULL;
	size_t first = *i;

	if (!d && !long_form && (d = find_glued(body)) != NULL) {
		value = body + strlen(d->sname);
	} else if (!d) {
		push_option(a, tok, NULL, 0, span_of(tl, first, first));
		add_problem(a, "unknown option '%s'", tok);
		return;
	} else if (eq) {
		value = eq + 1;
		if (d->kind == NVCC_ARG_NONE)
			add_problem(a, "option '%s' takes no argument", tok);
	} else if (d->kind != NVCC_ARG_NONE) {
		if (*i + 1 >= tl->n) {
			push_option(a, def_name(d), NULL, 1, span_of(tl, first, first));
			add_problem(a, "argument expected after '%s'", tok);
			return;
		}
		value = tl->tok[++*i];
	}
	if (d->kind == NVCC_ARG_ENUM && value && !enum_accepts(d->values, value))
		add_problem(a, "value '%s' is not one nvcc allows", value);
	struct args_span span = span_of(tl, first, *i);
	push_option(a, def_name(d), d->kind == NVCC_ARG_NONE ? NULL : value, 1, span);
	if (strcmp(def_name(d), "options-file") == 0 && value) {
		struct optf_ctx c = { a, tl->origin == ARGS_FROM_OPTIONS_FILE ? tl->outer : span };
		for_each_list_value(value, expand_one, &c);
	}
}

static void
parse_list(struct args *a, const struct token_list *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		const char *tok = tl->tok[i];
		if (tok[0] == '-' && tok[1] != '\0')
			parse_option(a, tl, &i);
		else
			push_input(a, tok, span_of(tl, i, i));
	}
}

/* --- the second pass: phase, languages, outputs, depfiles --- */

static const struct {
	const char *option;
	enum args_phase phase;
} phase_options[] = {
	{ "generate-dependencies", ARGS_PHASE_DEPS },
	{ "generate-nonsystem-dependencies", ARGS_PHASE_DEPS },
	{ "preprocess", ARGS_PHASE_PREPROCESS },
	{ "optix-ir", ARGS_PHASE_OPTIX_IR },
	{ "ltoir", ARGS_PHASE_LTOIR },
	{ "ptx", ARGS_PHASE_PTX },
	{ "cubin", ARGS_PHASE_CUBIN },
	{ "fatbin", ARGS_PHASE_FATBIN },
	{ "cuda", ARGS_PHASE_CUDA },
	{ "compile", ARGS_PHASE_COMPILE },
	{ "device-c", ARGS_PHASE_COMPILE },
	{ "device-w", ARGS_PHASE_COMPILE },
	{ "device-link", ARGS_PHASE_DLINK },
	{ "lib", ARGS_PHASE_LIB },
	{ "run", ARGS_PHASE_RUN },
	{ "link", ARGS_PHASE_LINK },
};

static void
decide_phase(struct args *a)
{
	a->phase = ARGS_PHASE_LINK;
	for (size_t i = 0; i < a->nopts; i++) {
		const struct args_option *o = &a->opts[i];
		for (size_t k = 0; k < sizeof phase_options / sizeof phase_options[0]; k++)
			if (o->known && strcmp(o->name, phase_options[k].option) == 0 &&
			    phase_options[k].phase < a->phase)
				a->phase = phase_options[k].phase;
		if (!o->known)
			continue;
		if (strcmp(o->name, "device-c") == 0)
			a->rdc = 1;
		else if (strcmp(o->name, "relocatable-device-code") == 0 && o->value)
			a->rdc = strcmp(o->value, "true") == 0;
		else if (strcmp(o->name, "generate-dependencies-with-compile") == 0 ||
		         strcmp(o->name, "generate-nonsystem-dependencies-with-compile") == 0)
			a->deps_with_compile = 1;
		else if (strcmp(o->name, "generate-dependency-targets") == 0)
			a->deps_phony = 1;
	}
}

static enum args_lang
lang_of_path(const char *path)
{
	static const struct {
		const char *ext;
		enum args_lang lang;
	} exts[] = {
		{ ".cu", ARGS_LANG_CU },        { ".cup", ARGS_LANG_CU },
		{ ".c", ARGS_LANG_C },          { ".cc", ARGS_LANG_CXX },
		{ ".cpp", ARGS_LANG_CXX },      { ".cxx", ARGS_LANG_CXX },
		{ ".i", ARGS_LANG_CPP_OUTPUT }, { ".ii", ARGS_LANG_CPP_OUTPUT },
		{ ".ptx", ARGS_LANG_PTX },      { ".cubin", ARGS_LANG_CUBIN },
		{ ".fatbin", ARGS_LANG_FATBIN }, { ".gpu", ARGS_LANG_GPU },
		{ ".ltoir", ARGS_LANG_LTOIR },  { ".o", ARGS_LANG_OBJECT },
		{ ".obj", ARGS_LANG_OBJECT },   { ".a", ARGS_LANG_LIBRARY },
		{ ".so", ARGS_LANG_LIBRARY },   { ".lib", ARGS_LANG_LIBRARY },
	};
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	if (!dot)
		return ARGS_LANG_OTHER;
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
		if (strcmp(dot, exts[i].ext) == 0)
			return exts[i].lang;
	return ARGS_LANG_OTHER;
}

static int
lang_of_x(const char *x, enum args_lang *lang)
{
	if (!x)
		return 0;
	if (strcmp(x, "cu") == 0)
		*lang = ARGS_LANG_CU;
	else if (strcmp(x, "c++") == 0)
		*lang = ARGS_LANG_CXX;
	else if (strcmp(x, "c") == 0)
		*lang = ARGS_LANG_C;
	else
		return 0;
	return 1;
}

/* "dir/x.y.cu" -> "x.y" (the base name without its last suffix). */
static char *
stem_of(const char *path)
{
	char *base = fs_basename(path);
	char *dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	return base;
}

/* NAME under -odir, as nvcc joins them ("d" or "d/" + "a.o" -> "d/a.o"). */
static char *
in_odir(const char *odir, const char *name)
{
	if (!odir || !*odir)
		return egg_xstrdup(name);
	return egg_xasprintf("%s%s%s", odir, egg_str_ends(odir, "/") ? "" : "/", name);
}

/* "sub/q.o" -> "sub/q.d"; "noext" -> "noext.d"; "sub.d/obj" -> "sub.d/obj.d". */
static char *
with_suffix_d(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	size_t keep = dot ? (size_t)(dot - path) : strlen(path);
	return egg_xasprintf("%.*s.d", (int)keep, path);
}

/* The file the phase makes of one input ("a.ptx"), or NULL when it makes none. */
static char *
per_input_output(enum args_phase phase, enum args_lang lang, int rdc, const char *path,
                 const char *odir)
{
	int cu = lang == ARGS_LANG_CU;
	const char *ext = NULL;
	switch (phase) {
	case ARGS_PHASE_COMPILE:
		if (cu || lang == ARGS_LANG_C || lang == ARGS_LANG_CXX || lang == ARGS_LANG_CPP_OUTPUT)
			ext = ".o";
		else if (rdc && (lang == ARGS_LANG_PTX || lang == ARGS_LANG_CUBIN))
			ext = ".o"; /* -dc k.ptx makes k.o */
		break;
	case ARGS_PHASE_PTX: ext = cu ? ".ptx" : NULL; break;
	case ARGS_PHASE_OPTIX_IR: ext = cu ? ".optixir" : NULL; break;
	case ARGS_PHASE_LTOIR: ext = cu ? ".ltoir" : NULL; break;
	case ARGS_PHASE_CUBIN:
		ext = (cu || lang == ARGS_LANG_PTX || lang == ARGS_LANG_GPU) ? ".cubin" : NULL;
		break;
	case ARGS_PHASE_FATBIN:
		ext = (cu || lang == ARGS_LANG_PTX || lang == ARGS_LANG_GPU || lang == ARGS_LANG_CUBIN)
		              ? ".fatbin" : NULL;
		break;
	case ARGS_PHASE_CUDA:
		if (cu) {
			char *base = fs_basename(path);
			char *name = egg_xasprintf("%s.cpp.ii", base);
			char *out = in_odir(odir, name);
			free(base);
			free(name);
			return out;
		}
		break;
	default:
		break;
	}
	if (!ext)
		return NULL;
	char *stem = stem_of(path);
	char *name = egg_xasprintf("%s%s", stem, ext);
	char *out = in_odir(odir, name);
	free(stem);
	free(name);
	return out;
}

static int
is_source(enum args_lang lang)
{
	return lang == ARGS_LANG_CU || lang == ARGS_LANG_C || lang == ARGS_LANG_CXX;
}

static int
per_input_phase(enum args_phase phase)
{
	return phase < ARGS_PHASE_DLINK;
}

/* Depfile and target of one source input, for -M/-MM and for -MD/-MMD. */
static void
decide_depfile(struct args *a, struct args_input *in, const char *o, const char *odir)
{
	const char *mf = args_value(a, "dependency-output");
	const char *mt = args_value(a, "dependency-target-name");
	char *stem = stem_of(in->path);
	char *stem_o = egg_xasprintf("%s.o", stem);
	char *target = NULL;
	if (a->phase == ARGS_PHASE_DEPS) {
		/* -o names the depfile here; it wins over -MF. */
		if (o || mf)
			in->depfile = egg_xstrdup(o ? o : mf);
		else
			in->depfile_stdout = 1;
		target = mt ? egg_xstrdup(mt) : in_odir(odir, stem_o);
	} else if (a->deps_with_compile && a->phase != ARGS_PHASE_PREPROCESS) {
		if (mf) {
			in->depfile = egg_xstrdup(mf);
		} else if (o) {
			in->depfile = with_suffix_d(o);
		} else {
			char *name = egg_xasprintf("%s.d", stem);
			in->depfile = in_odir(odir, name);
			free(name);
		}
		target = mt ? egg_xstrdup(mt) : o ? egg_xstrdup(o) : in_odir(odir, stem_o);
	}
	in->dep_target = target;
	free(stem);
	free(stem_o);
}

static void
decide_outputs(struct args *a)
{
	const char *o = args_value(a, "output-file");
	const char *odir = args_value(a, "output-directory");
	enum args_lang forced;
	int have_x = lang_of_x(args_value(a, "x"), &forced);

	for (size_t i = 0; i < a->ninputs; i++) {
		struct args_input *in = &a->inputs[i];
		in->lang = have_x ? forced : lang_of_path(in->path);
		if (a->phase == ARGS_PHASE_PREPROCESS && is_source(in->lang)) {
			if (o)
				in->output = egg_xstrdup(o);
			else
				in->output_stdout = 1;
		} else if (per_input_phase(a->phase)) {
			char *out = per_input_output(a->phase, in->lang, a->rdc, in->path, odir);
			if (out && o) {
				free(out);
				out = egg_xstrdup(o);
			}
			in->output = out;
		}
		if (is_source(in->lang))
			decide_depfile(a, in, o, odir);
	}
	if (o && per_input_phase(a->phase) && a->phase != ARGS_PHASE_DEPS && a->ninputs > 1)
		add_problem(a, "%s", "a single input file is required for a non-link phase "
		                     "when an output file is specified");
	static const char *const defaults[] = {
		[ARGS_PHASE_DLINK] = "a_dlink.o",
		[ARGS_PHASE_LIB] = "a.a",
		[ARGS_PHASE_RUN] = "a.out",
		[ARGS_PHASE_LINK] = "a.out",
	};
	if (!per_input_phase(a->phase))
		a->output = o ? egg_xstrdup(o) : in_odir(odir, defaults[a->phase]);
}

struct args *
args_parse(char *const *argv, size_t argc, const char *env_prepend, const char *env_append,
           const char *cwd)
{
	struct args *a = egg_xcalloc(1, sizeof *a);
	a->cwd = cwd ? egg_xstrdup(cwd) : NULL;
	struct strvec pre = STRVEC_INIT, post = STRVEC_INIT;
	split_env(env_prepend, &pre);
	split_env(env_append, &post);
	struct token_list lists[] = {
		{ pre.v, pre.n, ARGS_FROM_PREPEND_ENV, 0, { ARGS_FROM_PREPEND_ENV, -1, -1 } },
		{ argv, argc, ARGS_FROM_ARGV, 1, { ARGS_FROM_ARGV, -1, -1 } },
		{ post.v, post.n, ARGS_FROM_APPEND_ENV, 0, { ARGS_FROM_APPEND_ENV, -1, -1 } },
	};
	for (size_t i = 0; i < 3; i++)
		parse_list(a, &lists[i]);
	strvec_clear(&pre);
	strvec_clear(&post);
	decide_phase(a);
	decide_outputs(a);
	return a;
}

void
args_free(struct args *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nopts; i++) {
		free((char *)a->opts[i].name);
		free((char *)a->opts[i].value);
	}
	for (size_t i = 0; i < a->ninputs; i++) {
		struct args_input *in = &a->inputs[i];
		free((char *)in->path);
		free((char *)in->output);
		free((char *)in->depfile);
		free((char *)in->dep_target);
	}
	free(a->opts);
	free(a->inputs);
	free(a->problem);
	free(a->output);
	free(a->cwd);
	free(a);
}

/* --- accessors --- */

const char *args_problem(const struct args *a) { return a->problem; }
enum args_phase args_phase(const struct args *a) { return a->phase; }
int args_rdc(const struct args *a) { return a->rdc; }
int args_deps_with_compile(const struct args *a) { return a->deps_with_compile; }
int args_deps_phony(const struct args *a) { return a->deps_phony; }
size_t args_input_count(const struct args *a) { return a->ninputs; }
const char *args_output(const struct args *a) { return a->output; }
size_t args_option_count(const struct args *a) { return a->nopts; }

const struct args_input *
args_input_at(const struct args *a, size_t i)
{
	return i < a->ninputs ? &a->inputs[i] : NULL;
}

const char *
args_first_source(const struct args *a)
{
	for (size_t i = 0; i < a->ninputs; i++)
		if (a->inputs[i].lang == ARGS_LANG_CU)
			return a->inputs[i].path;
	return a->ninputs ? a->inputs[0].path : NULL;
}

const struct args_option *
args_option_at(const struct args *a, size_t i)
{
	return i < a->nopts ? &a->opts[i] : NULL;
}

const char *
args_value(const struct args *a, const char *name)
{
	for (size_t i = a->nopts; i-- > 0;)
		if (a->opts[i].known && strcmp(a->opts[i].name, name) == 0)
			return a->opts[i].value;
	return NULL;
}

int
args_has(const struct args *a, const char *name)
{
	for (size_t i = 0; i < a->nopts; i++)
		if (a->opts[i].known && strcmp(a->opts[i].name, name) == 0)
			return 1;
	return 0;
}

static void
push_piece(const char *s, size_t n, void *ctx)
{
	strvec_push_owned(ctx, egg_xstrndup(s, n));
}

size_t
args_collect(const struct args *a, const char *name, struct strvec *out)
{
	size_t before = out->n;
	int list = args_option_kind(name) == NVCC_ARG_LIST && strcmp(name, "generate-code") != 0;
	for (size_t i = 0; i < a->nopts; i++) {
		const struct args_option *o = &a->opts[i];
		if (!o->known || !o->value || strcmp(o->name, name) != 0)
			continue;
		if (list)
			for_each_list_value(o->value, push_piece, out);
		else
			strvec_push(out, o->value);
	}
	return out->n - before;
}

size_t
args_codegen_flags(const struct args *a, struct strvec *out)
{
	static const char *const codegen[][2] = {
		{ "gpu-architecture", "arch" },   { "gpu-code", "code" },
		{ "generate-code", "gencode" },   { "relocatable-device-code", "rdc" },
		{ "device-c", "rdc=true" },       { "optimize", "O" },
		{ "use_fast_math", "use_fast_math" }, { "ftz", "ftz" },
		{ "prec-div", "prec-div" },       { "prec-sqrt", "prec-sqrt" },
		{ "fmad", "fmad" },               { "device-debug", "G" },
		{ "generate-line-info", "lineinfo" }, { "maxrregcount", "maxrregcount" },
		{ "ptxas-options", "Xptxas" },    { "std", "std" },
		{ "expt-relaxed-constexpr", "expt-relaxed-constexpr" },
		{ "extended-lambda", "extended-lambda" },
		{ "expt-extended-lambda", "expt-extended-lambda" },
	};
	size_t before = out->n;
	for (size_t i = 0; i < a->nopts; i++) {
		const struct args_option *o = &a->opts[i];
		if (!o->known)
			continue;
		for (size_t k = 0; k < sizeof codegen / sizeof codegen[0]; k++) {
			if (strcmp(o->name, codegen[k][0]) != 0)
				continue;
			if (o->value)
				strvec_push_owned(out, egg_xasprintf("-%s=%s", codegen[k][1], o->value));
			else
				strvec_push_owned(out, egg_xasprintf("-%s", codegen[k][1]));
		}
	}
	return out->n - before;
}

struct prefixed {
	struct strvec *out;
	const char *flag;
	int separate; /* flag and value as two words */
};

static void
push_prefixed(const char *s, size_t n, void *ctx)
{
	struct prefixed *p = ctx;
	if (p->separate) {
		strvec_push(p->out, p->flag);
		strvec_push_owned(p->out, egg_xstrndup(s, n));
	} else {
		strvec_push_owned(p->out, egg_xasprintf("%s%.*s", p->flag, (int)n, s));
	}
}

size_t
args_preprocessor_flags(const struct args *a, struct strvec *out)
{
	static const struct { const char *name, *flag; int separate; } pp[] = {
		{ "include-path", "-I", 0 },    { "system-include", "-isystem", 1 },
		{ "define-macro", "-D", 0 },    { "undefine-macro", "-U", 0 },
		{ "pre-include", "-include", 1 }, { "std", "-std=", 0 },
	};
	size_t before = out->n;
	for (size_t i = 0; i < a->nopts; i++) {
		const struct args_option *o = &a->opts[i];
		if (!o->known || !o->value)
			continue;
		for (size_t k = 0; k < sizeof pp / sizeof pp[0]; k++) {
			if (strcmp(o->name, pp[k].name) != 0)
				continue;
			struct prefixed p = { out, pp[k].flag, pp[k].separate };
			if (args_option_kind(o->name) == NVCC_ARG_LIST)
				for_each_list_value(o->value, push_prefixed, &p);
			else
				push_prefixed(o->value, strlen(o->value), &p);
		}
	}
	return out->n - before;
}

const char *
args_phase_name(enum args_phase phase)
{
	static const char *const names[] = {
		"deps", "preprocess", "optix-ir", "ltoir", "ptx", "cubin", "fatbin",
		"cuda", "compile", "dlink", "lib", "run", "link",
	};
	return (size_t)phase < sizeof names / sizeof names[0] ? names[phase] : "?";
}

const char *
args_lang_name(enum args_lang lang)
{
	static const char *const names[] = {
		"cu", "c", "c++", "cpp-output", "ptx", "cubin", "fatbin", "gpu",
		"ltoir", "object", "library", "other",
	};
	return (size_t)lang < sizeof names / sizeof names[0] ? names[lang] : "?";
}
