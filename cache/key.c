/*
 * key.c -- the key text and its SHA-256 (see key.h for the format).
 *
 * The text is the contract: it must be the same for the same inputs on every
 * machine, so it is written from the bundle's structured fields in a fixed
 * order and never from anything that varies with the checkout (paths, line
 * numbers) or the clock.  The hash is common/digest.h's SHA-256.
 */
#include "config.h"
#include "cache/key.h"
#include "common/digest.h"
#include "common/strvec.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* A value on one line: "-" when absent, "\\" and "\n" escaped. */
static void
add_value(struct strbuf *out, const char *s)
{
	if (!s) {
		strbuf_addch(out, '-');
		return;
	}
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(out, "\\\\");
		else if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
}

static void
add_line(struct strbuf *out, const char *name, const char *value)
{
	strbuf_addstr(out, name);
	strbuf_addstr(out, ": ");
	add_value(out, value);
	strbuf_addch(out, '\n');
}

/* " NAME=VALUE" */
static void
add_field(struct strbuf *out, const char *name, const char *value)
{
	strbuf_addch(out, ' ');
	strbuf_addstr(out, name);
	strbuf_addch(out, '=');
	add_value(out, value);
}

/* Options that take one value (or are one switch) for the whole compile, so
 * that a later occurrence overrides an earlier one and their order does not
 * matter.  Spelled without leading dashes: "-ftz" and "--ftz" are one option. */
static const char *const single_valued[] = {
	"arch", "gpu-architecture", "code", "gpu-code", "std", "ftz", "prec-div", "prec-sqrt",
	"fmad", "use_fast_math", "maxrregcount", "G", "device-debug", "lineinfo",
	"generate-line-info", "rdc", "relocatable-device-code", "extra-device-vectorization",
	"default-stream", "restrict", "optimize", "dopt",
};

/* The identity of a flag whose order does not matter (which earlier
 * occurrence it overrides), or NULL for any other flag: those keep their
 * relative order and all their occurrences, because dropping or reordering an
 * option we do not understand could make two different builds share a key. */
static char *
flag_identity(const char *f)
{
	if (strncmp(f, "-D", 2) == 0 || strncmp(f, "-U", 2) == 0) {
		const char *name = f + 2;
		return egg_xasprintf("macro:%.*s", (int)strcspn(name, "="), name);
	}
	if (f[0] == '-' && f[1] == 'O' && strchr(f, '=') == NULL)
		return egg_xstrdup("optimize");
	const char *name = f + strspn(f, "-");
	size_t n = strcspn(name, "=");
	for (size_t i = 0; i < sizeof single_valued / sizeof *single_valued; i++)
		if (strlen(single_valued[i]) == n && strncmp(name, single_valued[i], n) == 0)
			return egg_xstrndup(name, n);
	return NULL;
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of flag f when it is -NAME=VALUE or --NAME=VALUE for one of names
 * (NULL-terminated), else NULL. */
static const char *
flag_value(const char *f, const char *const *names)
{
	const char *name = f + strspn(f, "-");
	for (; *names; names++) {
		size_t n = strlen(*names);
		if (strncmp(name, *names, n) == 0 && name[n] == '=')
			return name + n + 1;
	}
	return NULL;
}

static const char *const arch_names[] = { "arch", "gpu-architecture", NULL };
static const char *const code_names[] = { "code", "gpu-code", NULL };
static const char *const gencode_names[] = { "gencode", "generate-code", NULL };

/* 1 for flags that only change host code (nvcc's -O is the host compiler's
 * optimization level; device code is optimized by ptxas, -Xptxas, -dopt). */
static int
host_only(const char *f)
{
	if (f[0] == '-' && f[1] == 'O')
		return 1;
	return strncmp(f + strspn(f, "-"), "optimize", 8) == 0;
}

/* Appends "VIRTUAL REAL" to targets for each real code in list (commas,
 * brackets and quotes as nvcc and CMake write them). */
static void
add_targets(struct strvec *targets, const char *virt, const char *list)
{
	char *copy = egg_xstrdup(list), *save = NULL;
	for (char *c = strtok_r(copy, ",[]\"' ", &save); c; c = strtok_r(NULL, ",[]\"' ", &save))
		strvec_push_owned(targets, egg_xasprintf("%s %s", virt, c));
	free(copy);
}

/* The virtual architecture an -arch value stands for: compute_90 for sm_90 or
 * compute_90, sm_90a -> compute_90a; anything else (native, all) as it is. */
static char *
virtual_arch(const char *a)
{
	if (strncmp(a, "sm_", 3) == 0)
		return egg_xasprintf("compute_%s", a + 3);
	return egg_xstrdup(a);
}

/* The (virtual, real) code targets of a compile, sorted and unique, as nvcc
 * reads -arch, -code and -gencode in all their spellings: -arch=sm_90 alone,
 * -arch=compute_90 -code=sm_90,compute_90 and
 * -gencode=arch=compute_90,code=[sm_90,compute_90] are the same two targets.
 * Empty when the compile names none (nvcc's default). */
static void
code_targets(const char *const *flags, size_t n, struct strvec *targets)
{
	const char *arch = NULL, *code = NULL, *v;
	for (size_t i = 0; i < n; i++) {
		if ((v = flag_value(flags[i], arch_names)))
			arch = v;
		else if ((v = flag_value(flags[i], code_names)))
			code = v;
		else if ((v = flag_value(flags[i], gencode_names))) {
			char *copy = egg_xstrdup(v), *a = strstr(copy, "arch="), *c = strstr(copy, "code=");
			if (a && c && a > c)
				a[-1] = '\0'; /* code=...,arch=...: the code list ends before arch */
			if (a && c) {
				char *ae = a + 5 + strcspn(a + 5, ",");
				char *ac = egg_xstrndup(a + 5, (size_t)(ae - (a + 5)));
				add_targets(targets, ac, c + 5);
				free(ac);
			} else {
				strvec_push_owned(targets, egg_xasprintf("gencode %s", v));
			}
			free(copy);
		}
	}
	if (arch) {
		char *virt = virtual_arch(arch);
		if (code)
			add_targets(targets, virt, code);
		else if (strncmp(arch, "sm_", 3) == 0) {
			add_targets(targets, virt, arch);
			add_targets(targets, virt, virt);
		} else {
			add_targets(targets, virt, virt);
		}
		free(virt);
	}
	if (targets->n > 1)
		qsort(targets->v, targets->n, sizeof *targets->v, compare_strings);
	for (size_t i = 1; i < targets->n;)
		if (strcmp(targets->v[i], targets->v[i - 1]) == 0)
			strvec_remove(targets, i);
		else
			i++;
}

/* 1 for the flags that get no "flag:" line: host-only ones, and the code
 * targets (their "target:" lines stand for them). */
static int
not_a_flag_line(const char *f)
{
	return host_only(f) || flag_value(f, arch_names) || flag_value(f, code_names) ||
	       flag_value(f, gencode_names);
}

/* The normalized flag list (see key.h): the order-free flags, last occurrence
 * of each, sorted; then every other flag in command-line order.  Returns the
 * count and fills *out (caller frees the array, not the strings). */
static size_t
normalize_flags(const char *const *flags, size_t n, const char ***out)
{
	const char **keep = egg_xcalloc(n ? n : 1, sizeof *keep);
	char **ids = egg_xcalloc(n ? n : 1, sizeof *ids);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (not_a_flag_line(flags[i]))
			continue; /* left out, or in the target lines */
		char *id = flag_identity(flags[i]);
		if (!id)
			continue;
		size_t j;
		for (j = 0; j < k && strcmp(ids[j], id) != 0; j++)
			;
		if (j < k) { /* a later occurrence wins */
			free(id);
			keep[j] = flags[i];
			continue;
		}
		ids[k] = id;
		keep[k++] = flags[i];
	}
	for (size_t i = 0; i < k; i++)
		free(ids[i]);
	free(ids);
	qsort(keep, k, sizeof *keep, compare_strings);
	for (size_t i = 0; i < n; i++) {
		if (not_a_flag_line(flags[i]))
			continue;
		char *id = flag_identity(flags[i]);
		if (!id)
			keep[k++] = flags[i];
		free(id);
	}
	*out = keep;
	return k;
}

static void
add_bundle(struct strbuf *out, const struct egg_bundle *b)
{
	add_line(out, "kind", bundle_kind_name(b->kind));
	add_line(out, "extern_c", b->extern_c ? "1" : "0");
	add_line(out, "is_static", b->is_static ? "1" : "0");
	for (size_t i = 0; i < b->n_includes; i++)
		add_line(out, "include", b->includes[i]);
	for (size_t i = 0; i < b->n_params; i++) {
		const struct bundle_param *p = &b->params[i];
		strbuf_addstr(out, "param: ");
		add_value(out, p->name);
		add_field(out, "role", bundle_role_name(p->role));
		add_field(out, "type", p->type);
		add_field(out, "elem", p->elem_type);
		add_field(out, "extent", p->extent);
		strbuf_addstr(out, " range=");
		add_value(out, p->range_lo);
		strbuf_addstr(out, "..");
		add_value(out, p->range_hi);
		if (p->align) /* (only when declared: the keys of every other bundle stay) */
			strbuf_addf(out, " align=%u", p->align);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < b->n_workloads; i++) {
		strbuf_addstr(out, "workload:");
		for (size_t j = 0; j < b->workloads[i].n_bindings; j++) {
			const struct bundle_binding *bd = &b->workloads[i].bindings[j];
			if (bundle_workload_leaves_null(b, &b->workloads[i], bd->name)) {
				strbuf_addf(out, " %s=<null>", bd->name); /* (see key.h) */
				continue;
			}
			add_field(out, bd->name, bd->value);
		}
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "tolerance:");
	add_field(out, "rtol", b->rtol);
	add_field(out, "atol", b->atol);
	strbuf_addch(out, '\n');
	add_line(out, "precision", bundle_precision_name(b->precision));
	if (b->launch_grid || b->launch_block) {
		strbuf_addstr(out, "launch:");
		add_field(out, "grid", b->launch_grid);
		add_field(out, "block", b->launch_block);
		add_field(out, "smem", b->launch_smem);
		strbuf_addch(out, '\n');
	} else {
		add_line(out, "launch", NULL);
	}
}

/* "canonical: N lines" then each line as "| LINE"; a final newline does not
 * make an extra empty line, but its absence is visible ("canonical: N lines,
 * no final newline") so that the text stays a faithful image of the input. */
static void
add_canonical(struct strbuf *out, const char *text)
{
	if (!text)
		text = "";
	size_t lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	size_t len = strlen(text);
	int final_nl = len == 0 || text[len - 1] == '\n';
	if (!final_nl)
		lines++;
	strbuf_addf(out, "canonical: %zu lines%s\n", lines, final_nl ? "" : ", no final newline");
	const char *p = text;
	while (*p) {
		size_t n = strcspn(p, "\n");
		strbuf_addstr(out, "| ");
		strbuf_add(out, p, n);
		strbuf_addch(out, '\n');
		p += n;
		if (*p == '\n')
			p++;
	}
}

void
cache_key_text(const struct cache_key_inputs *in, struct strbuf *out)
{
	strbuf_addf(out, "egg-cache-key: %d\n", CACHE_KEY_VERSION);
	if (in->bundle)
		add_bundle(out, in->bundle);
	add_line(out, "arch", in->arch);
	add_line(out, "nvcc", in->nvcc_version);
	struct strvec targets = STRVEC_INIT;
	code_targets(in->flags, in->n_flags, &targets);
	for (size_t i = 0; i < targets.n; i++)
		add_line(out, "target", targets.v[i]);
	if (targets.n == 0)
		add_line(out, "target", "default");
	strvec_clear(&targets);
	const char **flags;
	size_t n = normalize_flags(in->flags, in->n_flags, &flags);
	for (size_t i = 0; i < n; i++)
		add_line(out, "flag", flags[i]);
	free(flags);
	add_canonical(out, in->bundle ? in->bundle->canonical : NULL);
}

void
cache_key_compute(const struct cache_key_inputs *in, char hex[CACHE_KEY_HEX_LEN + 1])
{
	struct strbuf text = STRBUF_INIT;
	cache_key_text(in, &text);
	egg_sha256_hex(text.buf, text.len, hex);
	strbuf_release(&text);
}

int
cache_key_is_valid(const char *s)
{
	size_t i;
	for (i = 0; s && s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s && i == CACHE_KEY_HEX_LEN;
}
