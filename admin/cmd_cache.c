/*
 * cmd_cache.c -- `egg cache ...`: look into and manage the kernel cache.
 *
 *   egg cache stats [--json] [--zero]     counters, entries, size and limit
 *   egg cache ls [--json]                 entries, most recently used first
 *   egg cache show KEY [--json|--source]  an entry's report (KEY may be a unique prefix)
 *   egg cache clear                       remove every entry
 *   egg cache evict --max-size SIZE       remove LRU entries down to SIZE
 *   egg cache evict --older-than AGE      remove entries not used for AGE (30d, 12h, ...)
 *   egg cache verify [--repair]           check every entry and orphan (cache/verify.h)
 *   egg cache export FILE                 every entry into one archive file
 *   egg cache import FILE                 entries from such a file
 *   egg cache key --bundle FILE [--arch SM] [--explain] [-- FLAGS...]
 *                                         the key of each bundle `egg analyze` wrote
 *   egg cache key [--explain] -- NVCC-ARGS... FILE.cu
 *                                         the keys egg-cc computes for that compile
 *
 * The archive (export/import) is JSON Lines: a header line
 * {"schema":"egg-cache-export","version":1} and then one stored entry per line,
 * exactly as the store keeps it, so import checks every entry's checksum.
 */
#include "config.h"
#include "cache/cache.h"
#include "cache/verify.h"
#include "plan/pipeline.h"
#include "harness/screen.h"
#include "driver/args.h"
#include "analyzer/analyzer.h"
#include "common/egg_config.h"
#include "common/bundle.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cmd_cache(int argc, char **argv);

#define EXPORT_HEADER "{\"schema\":\"egg-cache-export\",\"version\":1}"

static const char usage[] =
	"usage: egg cache stats [--json] [--zero]\n"
	"       egg cache ls [--json]\n"
	"       egg cache show KEY [--json | --source]\n"
	"       egg cache clear\n"
	"       egg cache evict --max-size SIZE | --older-than AGE\n"
	"       egg cache verify [--repair]\n"
	"       egg cache export FILE\n"
	"       egg cache import FILE\n"
	"       egg cache key --bundle FILE [--arch SM] [--nvcc-version V] [--explain]\n"
	"                     [-- CODEGEN-FLAGS...]\n"
	"       egg cache key [--arch SM] [--explain] -- NVCC-ARGS... FILE.cu\n";

static int
has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], flag) == 0)
			return 1;
	return 0;
}

/* Fails on any argument not in allowed (a NULL-terminated list). */
static int
check_flags(const char *sub, int argc, char **argv, const char *const *allowed)
{
	for (int i = 0; i < argc; i++) {
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			ok |= strcmp(argv[i], *a) == 0;
		if (!ok) {
			egg_error("egg cache %s: unexpected argument '%s'\n%s", sub, argv[i], usage);
			return -1;
		}
	}
	return 0;
}

static void
human_size(uint64_t n, char *buf, size_t len)
{
	if (n < 1024)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (n < (1ULL << 20))
		snprintf(buf, len, "%.1f KiB", n / 1024.0);
	else if (n < (1ULL << 30))
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else
		snprintf(buf, len, "%.1f GiB", n / 1073741824.0);
}

static int
cache_stats(struct cache_settings *set, struct cache_store *s, int argc, char **argv)
{
	static const char *const ok[] = { "--json", "--zero", NULL };
	if (check_flags("stats", argc, argv, ok) < 0)
		return 2;
	struct strbuf err = STRBUF_INIT;
	if (has_flag(argc, argv, "--zero") && cache_store_stats_zero(s, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	struct cache_stats st;
	if (cache_store_stats_read(s, &st, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	struct cache_remote *remote = cache_remote_new(set->remote, set->secret, &err);
	if (!remote) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	strbuf_release(&err);
	int json = has_flag(argc, argv, "--json");
	cJSON *remotes = cJSON_CreateArray();
	struct strbuf remote_text = STRBUF_INIT;
	for (int i = 0; i < cache_remote_count(remote); i++) {
		int ro;
		const char *url = cache_remote_display(remote, i, &ro);
		ro |= set->remote_read_only;
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "url", url);
		cJSON_AddBoolToObject(r, "read_only", ro);
		cJSON_AddItemToArray(remotes, r);
		strbuf_addf(&remote_text, "%s%s%s", i ? ", " : "", url, ro ? " (read-only)" : "");
	}
	cache_remote_free(remote);
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dir", set->dir);
		for (int i = 0; i < CACHE_STAT_COUNT; i++)
			cJSON_AddNumberToObject(o, cache_stat_name(i), (double)st.v[i]);
		cJSON_AddNumberToObject(o, "max_size", (double)set->max_size);
		cJSON_AddItemToObject(o, "remotes", remotes);
		char *text = cJSON_Print(o);
		puts(text);
		free(text);
		cJSON_Delete(o);
		strbuf_release(&remote_text);
		return 0;
	}
	cJSON_Delete(remotes);
	char size[32], limit[32];
	human_size(st.v[CACHE_STAT_BYTES], size, sizeof size);
	human_size(set->max_size, limit, sizeof limit);
	printf("%-16s %s\n", "cache directory", set->dir);
	for (int i = 0; i < CACHE_STAT_COUNT; i++)
		if (i != CACHE_STAT_BYTES)
			printf("%-16s %" PRIu64 "\n", cache_stat_name(i), st.v[i]);
	printf("%-16s %s of %s\n", "size", size, set->max_size ? limit : "no limit");
	printf("%-16s %s\n", "remote storage", remote_text.len ? remote_text.buf : "none");
	strbuf_release(&remote_text);
	return 0;
}

static void
format_time(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static int
cache_ls(struct cache_store *s, int argc, char **argv)
{
	static const char *const ok[] = { "--json", NULL };
	if (check_flags("ls", argc, argv, ok) < 0)
		return 2;
	int json = has_flag(argc, argv, "--json");
	struct strbuf err = STRBUF_INIT;
	struct cache_store_item *items;
	size_t n;
	if (cache_store_list(s, &items, &n, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	for (size_t i = 0; i < n; i++) {
		struct cache_entry *e = NULL;
		strbuf_reset(&err);
		int r = cache_store_read(s, items[i].key, &e, &err);
		const char *outcome = r == 1 ? (cache_entry_is_negative(e) ? "negative" : "winner")
					     : "invalid";
		const char *name = e && cache_entry_name(e) ? cache_entry_name(e) : "-";
		char when[32];
		format_time(&items[i].used, when, sizeof when);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "key", items[i].key);
			cJSON_AddStringToObject(o, "name", name);
			cJSON_AddStringToObject(o, "outcome", outcome);
			cJSON_AddNumberToObject(o, "size", (double)items[i].size);
			cJSON_AddNumberToObject(o, "used", (double)items[i].used.tv_sec);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%s  %-8s %8" PRIu64 "  %s  %s\n", items[i].key, outcome, items[i].size,
			       when, name);
		}
		cache_entry_free(e);
	}
	if (json) {
		char *text = cJSON_Print(arr);
		puts(text);
		free(text);
		cJSON_Delete(arr);
	}
	free(items);
	strbuf_release(&err);
	return 0;
}

/* The full key for a key or a unique prefix of one (caller frees); NULL with
 * an error printed. */
static char *
resolve_key(struct cache_store *s, const char *arg)
{
	struct strbuf err = STRBUF_INIT;
	char *key = cache_store_resolve_key(s, arg, &err);
	if (!key)
		egg_error("%s", err.buf);
	strbuf_release(&err);
	return key;
}

static int
cache_show(struct cache_store *s, int argc, char **argv)
{
	if (argc < 1 || argv[0][0] == '-') {
		egg_error("egg cache show needs a key\n%s", usage);
		return 2;
	}
	static const char *const ok[] = { "--json", "--source", NULL };
	if (check_flags("show", argc - 1, argv + 1, ok) < 0)
		return 2;
	char *key = resolve_key(s, argv[0]);
	if (!key)
		return 1;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct cache_entry *e;
	int r = cache_store_read(s, key, &e, &err);
	if (r <= 0) {
		if (r == 0)
			egg_error("no cache entry has the key %s", key);
		else
			egg_error("the cache entry %s is invalid: %s", key, err.buf);
		free(key);
		strbuf_release(&err);
		return 1;
	}
	if (has_flag(argc, argv, "--json")) {
		cache_entry_to_json(e, 1, &out);
		strbuf_addch(&out, '\n');
	} else if (has_flag(argc, argv, "--source")) {
		strbuf_addstr(&out, cache_entry_source(e) ? cache_entry_source(e) : "");
	} else {
		const char *model = cache_entry_generator_field(e, "model");
		const char *backend = cache_entry_generator_field(e, "backend");
		const char *recipe = cache_entry_generator_field(e, "recipe");
		strbuf_addf(&out, "key:        %s\nname:       %s\noutcome:    %s\n", key,
			    cache_entry_name(e) ? cache_entry_name(e) : "-",
			    cache_entry_is_negative(e) ? "negative (nothing beat the reference)" : "winner");
		strbuf_addf(&out, "generator:  %s%s%s (recipe %s)\nresult:     ", backend ? backend : "-",
			    model ? " " : "", model ? model : "", recipe ? recipe : "-");
		cache_entry_result_json(e, 1, &out);
		if (cache_entry_source(e)) {
			strbuf_addstr(&out, "\nsource:\n");
			strbuf_addstr(&out, cache_entry_source(e));
		}
		if (out.buf[out.len - 1] != '\n')
			strbuf_addch(&out, '\n');
	}
	fwrite(out.buf, 1, out.len, stdout);
	cache_entry_free(e);
	free(key);
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

/* The outcome of clear or evict: an error, or how many entries went. */
static int
report_removal(int r, size_t removed, struct strbuf *err)
{
	if (r < 0)
		egg_error("%s", err->buf);
	else
		printf("removed %zu entries\n", removed);
	strbuf_release(err);
	return r < 0;
}

static int
cache_clear(struct cache_store *s, int argc, char **argv)
{
	static const char *const ok[] = { NULL };
	if (check_flags("clear", argc, argv, ok) < 0)
		return 2;
	struct strbuf err = STRBUF_INIT;
	size_t removed;
	int r = cache_store_clear(s, &removed, &err);
	return report_removal(r, removed, &err);
}

/* "30d", "12h", "90m", "3600s" (ccache's --evict-older-than takes d and s): seconds. */
static int
parse_age(const char *v, uint64_t *out)
{
	static const struct { char unit; uint64_t seconds; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	for (size_t i = 0; i < sizeof units / sizeof *units && errno == 0; i++)
		if (end[0] == units[i].unit && end[1] == '\0' && n <= UINT64_MAX / units[i].seconds) {
			*out = n * units[i].seconds;
			return 0;
		}
	return -1;
}

/* --older-than AGE: removes what was not used for AGE and names each entry. */
static int
evict_older(struct cache_store *s, const char *v)
{
	uint64_t age;
	if (parse_age(v, &age) < 0) {
		egg_error("--older-than: '%s' is not an age (a number and s, m, h or d: 30d, 12h, 90m, 3600s)",
		          v);
		return 2;
	}
	struct strbuf err = STRBUF_INIT;
	struct cache_store_item *gone;
	size_t n;
	/* the names, read before the entries go */
	struct cache_store_item *items;
	size_t n_items;
	cJSON *names = cJSON_CreateObject();
	if (cache_store_list(s, &items, &n_items, &err) == 0) {
		for (size_t i = 0; i < n_items; i++) {
			struct cache_entry *e = NULL;
			if (cache_store_read(s, items[i].key, &e, &err) == 1 && cache_entry_name(e))
				cJSON_AddStringToObject(names, items[i].key, cache_entry_name(e));
			cache_entry_free(e);
		}
		free(items);
	}
	strbuf_reset(&err);
	int r = cache_store_evict_older(s, age, &gone, &n, &err);
	for (size_t i = 0; r == 0 && i < n; i++) {
		char when[32];
		format_time(&gone[i].used, when, sizeof when);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(names, gone[i].key);
		printf("removed %s  %s  last used %s\n", gone[i].key,
		       cJSON_IsString(name) ? name->valuestring : "-", when);
	}
	cJSON_Delete(names);
	if (r == 0)
		free(gone);
	return report_removal(r, n, &err);
}

static int
cache_evict(struct cache_store *s, int argc, char **argv)
{
	uint64_t max;
	const char *v = NULL;
	if (argc == 2 && strcmp(argv[0], "--older-than") == 0)
		return evict_older(s, argv[1]);
	if (argc == 1 && egg_str_starts(argv[0], "--older-than="))
		return evict_older(s, argv[0] + 13);
	if (argc == 2 && strcmp(argv[0], "--max-size") == 0)
		v = argv[1];
	else if (argc == 1 && egg_str_starts(argv[0], "--max-size="))
		v = argv[0] + 11;
	if (!v) {
		egg_error("egg cache evict needs --max-size SIZE or --older-than AGE\n%s", usage);
		return 2;
	}
	if (cache_parse_size(v, &max) < 0) {
		egg_error("--max-size: '%s' is not a size (examples: 500Mi, 1.5G, 2GiB, 0)", v);
		return 2;
	}
	struct strbuf err = STRBUF_INIT;
	size_t removed;
	int r = cache_store_evict(s, max, &removed, &err);
	return report_removal(r, removed, &err);
}

/* The screen verify holds winners to: the lexer screen (harness/screen.h), with
 * the source's own quoted includes of plain file names allowed, as a bundle's
 * would be (entries do not keep their bundle; a build screens again with it). */
static int
screen_winner(const char *src, struct strbuf *why)
{
	struct strvec own = STRVEC_INIT;
	for (const char *p = strstr(src, "#include \""); p; p = strstr(p + 1, "#include \"")) {
		const char *name = p + 10, *end = strchr(name, '"');
		size_t n = end ? (size_t)(end - name) : 0;
		if (n && !memchr(name, '/', n) && !memchr(name, '\n', n) && name[0] != '.')
			strvec_push_owned(&own, egg_xasprintf("\"%.*s\"", (int)n, name));
	}
	int r = screen_candidate(src, own.v, own.n, why);
	strvec_clear(&own);
	return r;
}

static void
print_problem(void *ctx, const char *path, const char *problem, int removed)
{
	(void)ctx;
	printf("%s: %s%s\n", path, problem, removed ? "; removed" : "");
}

static int
cache_verify(struct cache_store *s, int argc, char **argv)
{
	static const char *const ok[] = { "--repair", NULL };
	if (check_flags("verify", argc, argv, ok) < 0)
		return 2;
	int repair = has_flag(argc, argv, "--repair");
	struct strbuf err = STRBUF_INIT;
	struct cache_verify_summary sum;
	if (cache_store_verify(s, repair, screen_winner, print_problem, NULL, &sum, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	strbuf_release(&err);
	printf("%zu entries checked, %zu valid%s; %zu problems", sum.entries, sum.valid,
	       cache_store_secret(s) ? " (signatures checked)" : " (no cache_secret: signatures not checked)",
	       sum.problems);
	if (repair)
		printf(", %zu removed", sum.removed);
	printf("\n");
	return sum.problems > sum.removed;
}

static int
cache_export(struct cache_store *s, int argc, char **argv)
{
	if (argc != 1) {
		egg_error("egg cache export needs one FILE\n%s", usage);
		return 2;
	}
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct cache_store_item *items;
	size_t n, count = 0, skipped = 0;
	if (cache_store_list(s, &items, &n, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		return 1;
	}
	strbuf_addstr(&out, EXPORT_HEADER "\n");
	for (size_t i = 0; i < n; i++) {
		struct cache_entry *e;
		strbuf_reset(&err);
		if (cache_store_read(s, items[i].key, &e, &err) != 1) {
			if (err.len)
				egg_warn("not exporting the invalid entry %s: %s", items[i].key, err.buf);
			skipped++;
			continue;
		}
		cache_entry_serialize(e, cache_store_secret(s), &out); /* signed entries stay signed */
		cache_entry_free(e);
		count++;
	}
	free(items);
	int r = fs_write_atomic(argv[0], out.buf, out.len);
	if (r < 0)
		egg_error("cannot write %s: %s", argv[0], strerror(errno));
	else
		printf("exported %zu entries to %s\n", count, argv[0]);
	strbuf_release(&out);
	strbuf_release(&err);
	return r < 0 || skipped;
}

static int
cache_import(struct cache_store *s, int argc, char **argv)
{
	if (argc != 1) {
		egg_error("egg cache import needs one FILE\n%s", usage);
		return 2;
	}
	char *data;
	size_t len;
	if (fs_read_file(argv[0], 0, &data, &len) < 0) {
		egg_error("cannot read %s: %s", argv[0], strerror(errno));
		return 1;
	}
	size_t hl = strlen(EXPORT_HEADER);
	if (len < hl || memcmp(data, EXPORT_HEADER, hl) != 0 || (data[hl] != '\n' && data[hl])) {
		egg_error("%s is not an egg cache export (its first line is not %s)", argv[0], EXPORT_HEADER);
		free(data);
		return 1;
	}
	size_t imported = 0, bad = 0, lineno = 1;
	struct strbuf err = STRBUF_INIT;
	for (char *p = data + hl + (data[hl] == '\n'); *p;) {
		size_t n = strcspn(p, "\n");
		lineno++;
		if (n > 0) {
			strbuf_reset(&err);
			/* under a secret, only entries signed with it come in */
			struct cache_entry *e = cache_entry_parse(p, n, NULL, cache_store_secret(s), &err);
			if (e && cache_store_put(s, e, &err) == 0) {
				imported++;
			} else {
				egg_warn("%s:%zu: entry skipped: %s", argv[0], lineno, err.buf);
				bad++;
			}
			cache_entry_free(e);
		}
		p += n + (p[n] == '\n');
	}
	printf("imported %zu entries from %s%s\n", imported, argv[0], bad ? " (some were skipped)" : "");
	strbuf_release(&err);
	free(data);
	return bad > 0;
}

/* ---- egg cache key ---- */

struct key_opts {
	const char *bundle, *arch, *nvcc;
	int explain;
	char **flags;
	int n_flags;
};

static int
parse_key_opts(int argc, char **argv, struct key_opts *o)
{
	*o = (struct key_opts){ NULL, NULL, EGG_NVCC_VERSION, 0, NULL, 0 };
	struct { const char *name; const char **slot; } valued[] = {
		{ "--bundle", &o->bundle }, { "--arch", &o->arch }, { "--nvcc-version", &o->nvcc },
	};
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			o->flags = argv + i + 1;
			o->n_flags = argc - i - 1;
			break;
		}
		if (strcmp(argv[i], "--explain") == 0) {
			o->explain = 1;
			continue;
		}
		size_t k;
		for (k = 0; k < sizeof valued / sizeof *valued; k++)
			if (strcmp(argv[i], valued[k].name) == 0)
				break;
		if (k == sizeof valued / sizeof *valued || i + 1 >= argc) {
			egg_error("egg cache key: unexpected argument '%s'\n%s", argv[i], usage);
			return -1;
		}
		*valued[k].slot = argv[++i];
	}
	if (!o->bundle)
		return 0; /* the keys of a .cu file, as egg-cc computes them (key_of_sources) */
	for (int i = 0; !o->arch && i < o->n_flags; i++)
		if (egg_str_starts(o->flags[i], "-arch=") && egg_str_starts(o->flags[i] + 6, "sm_"))
			o->arch = o->flags[i] + 6;
	if (!o->arch) {
		egg_error("egg cache key: no target architecture; pass --arch sm_XX or -arch=sm_XX after --");
		return -1;
	}
	return 0;
}

static void
print_key_of(const struct cache_key_inputs *in, int explain)
{
	const char *name = in->bundle->name ? in->bundle->name : "?";
	char key[CACHE_KEY_HEX_LEN + 1];
	cache_key_compute(in, key);
	if (explain) {
		struct strbuf text = STRBUF_INIT;
		cache_key_text(in, &text);
		printf("# key text of %s\n%s# key: %s\n", name, text.buf, key);
		strbuf_release(&text);
	} else {
		printf("%s  %s\n", key, name);
	}
}

static void
print_key(const struct key_opts *o, const struct egg_bundle *b)
{
	struct cache_key_inputs in = { b, o->arch, o->nvcc, (const char *const *)o->flags,
		(size_t)o->n_flags };
	print_key_of(&in, o->explain);
}

/* `egg cache key [--explain] [--arch sm_XX] -- NVCC-ARGS... FILE.cu`: the keys
 * egg-cc computes for this compile, from the same pieces (plan/pipeline.h):
 * the analyzer's bundles, nvcc's release, the code-generation flags, the target
 * architecture (--arch, else the build's first). */
static int
key_of_sources(const struct key_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	struct egg_config *cfg = egg_config_new();
	struct args *a = args_parse(o->flags, (size_t)o->n_flags, getenv("NVCC_PREPEND_FLAGS"),
	                            getenv("NVCC_APPEND_FLAGS"), NULL);
	if (egg_config_load_for(cfg, NULL, args_first_source(a), &err) < 0) {
		egg_error("%s", err.buf);
		egg_config_free(cfg);
		args_free(a);
		strbuf_release(&err);
		return 1;
	}
	const char *nvcc = egg_config_get(cfg, "nvcc");
	char *found = nvcc && *nvcc ? NULL : fs_find_in_path("nvcc", getenv("PATH"), NULL);
	char *release = pipeline_nvcc_release(nvcc && *nvcc ? nvcc : found ? found : "nvcc");
	struct strvec archs = STRVEC_INIT, pp = STRVEC_INIT;
	pipeline_target_archs(a, &archs);
	args_preprocessor_flags(a, &pp);
	const char *arch = o->arch ? o->arch : archs.v[0];
	int status = args_input_count(a) ? 0 : 2;
	if (status)
		egg_error("egg cache key: no .cu file and no --bundle\n%s", usage);
	for (size_t i = 0; i < args_input_count(a); i++) {
		struct analyzer_result res;
		const char *path = args_input_at(a, i)->path;
		if (analyzer_analyze_file(path, (const char *const *)strvec_argv(&pp), &res, &err) < 0) {
			egg_error("%s", err.buf);
			strbuf_reset(&err);
			status = 1;
			continue;
		}
		fputs(res.diags.buf, stderr);
		for (size_t b = 0; b < res.n_bundles; b++) {
			struct strvec flags = STRVEC_INIT;
			struct cache_key_inputs in;
			pipeline_key_inputs(a, cfg, res.bundles[b], release ? release : EGG_NVCC_VERSION, arch,
			                    &flags, &in);
			print_key_of(&in, o->explain);
			strvec_clear(&flags);
		}
		analyzer_result_free(&res);
	}
	strvec_clear(&archs);
	strvec_clear(&pp);
	free(release);
	free(found);
	args_free(a);
	egg_config_free(cfg);
	strbuf_release(&err);
	return status;
}

static int
cache_key_cmd(int argc, char **argv)
{
	struct key_opts o;
	if (parse_key_opts(argc, argv, &o) < 0)
		return 2;
	if (!o.bundle)
		return key_of_sources(&o);
	char *data;
	size_t len;
	if (fs_read_file(o.bundle, 0, &data, &len) < 0) {
		egg_error("cannot read %s: %s", o.bundle, strerror(errno));
		return 1;
	}
	cJSON *json = cJSON_ParseWithLength(data, len);
	free(data);
	if (!json) {
		egg_error("%s is not JSON", o.bundle);
		return 1;
	}
	int n = cJSON_IsArray(json) ? cJSON_GetArraySize(json) : 1, status = 0;
	for (int i = 0; i < n; i++) {
		struct strbuf err = STRBUF_INIT;
		const cJSON *item = cJSON_IsArray(json) ? cJSON_GetArrayItem(json, i) : json;
		struct egg_bundle *b = bundle_from_cjson(item, &err);
		if (!b) {
			egg_error("%s: bundle %d: %s", o.bundle, i + 1, err.buf);
			status = 1;
		} else {
			print_key(&o, b);
		}
		bundle_free(b);
		strbuf_release(&err);
	}
	cJSON_Delete(json);
	return status;
}

int
cmd_cache(int argc, char **argv)
{
	if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
		fputs(usage, argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	const char *sub = argv[0];
	if (strcmp(sub, "key") == 0)
		return cache_key_cmd(argc - 1, argv + 1);
	static const char *const known[] = { "stats", "ls", "show", "clear", "evict", "verify",
		                             "export", "import", NULL };
	int found = 0;
	for (const char *const *k = known; *k; k++)
		found |= strcmp(sub, *k) == 0;
	if (!found) {
		egg_error("unknown cache command '%s'\n%s", sub, usage);
		return 2;
	}
	struct cache_settings set;
	struct strbuf err = STRBUF_INIT;
	struct cache_store *s = NULL;
	int status = 1;
	struct egg_config *cfg = egg_config_new();
	memset(&set, 0, sizeof set);
	if (egg_config_load(cfg, NULL, &err) < 0) {
		egg_error("%s", err.buf);
		egg_config_free(cfg);
		goto out;
	}
	cache_settings_from_config(&set, cfg);
	egg_config_free(cfg);
	if (!(s = cache_store_open(set.dir, set.max_size, &err))) {
		egg_error("%s", err.buf);
		goto out;
	}
	cache_store_set_secret(s, set.secret);
	if (strcmp(sub, "stats") == 0)
		status = cache_stats(&set, s, argc - 1, argv + 1);
	else if (strcmp(sub, "ls") == 0)
		status = cache_ls(s, argc - 1, argv + 1);
	else if (strcmp(sub, "show") == 0)
		status = cache_show(s, argc - 1, argv + 1);
	else if (strcmp(sub, "clear") == 0)
		status = cache_clear(s, argc - 1, argv + 1);
	else if (strcmp(sub, "evict") == 0)
		status = cache_evict(s, argc - 1, argv + 1);
	else if (strcmp(sub, "verify") == 0)
		status = cache_verify(s, argc - 1, argv + 1);
	else if (strcmp(sub, "export") == 0)
		status = cache_export(s, argc - 1, argv + 1);
	else
		status = cache_import(s, argc - 1, argv + 1);
out:
	cache_store_close(s);
	cache_settings_release(&set);
	strbuf_release(&err);
	return status;
}
