/*
 * cmd_report.c -- `egg report`: what egg did for each kernel, as a table, JSON
 * or a web page, from build reports or from the cache.
 *
 *   egg report [--all] [--json | --html DIR] FILE...   records of report files
 *   egg report [--json | --html DIR] [--cache]          records made from the cache
 *   egg report KEY [--full] [--lines N]                 one entry's transcript and result
 *
 * Report files are what egg-cc appends with --egg-report (plan/report.h).
 * A build appends a record per kernel every time, so records are merged: the
 * latest record of each key (of each source and kernel when there is no key)
 * stands for it, unless --all.  An argument that names an existing file is a
 * report file; a lone argument of hex digits otherwise names a cache entry.
 *
 * The pages (--html) are DIR/index.html: inline CSS, an inline SVG chart of
 * the speedups on a log scale with each number written next to its bar, and
 * the table; and DIR/kernels/N-NAME.html, a page per kernel (report_page.h)
 * linked from its name in the chart and in the table.  No script, no external
 * file, so the folder can be attached to a CI run or mailed as it is.
 */
#include "config.h"
#include "admin/report_page.h"
#include "admin/report_show.h"
#include "cache/cache.h"
#include "common/egg_config.h"
#include "common/fsutil.h"
#include "common/util.h"
#include "plan/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cmd_report(int argc, char **argv);

static const char usage[] =
	"usage: egg report [--all] [--json | --html DIR] FILE...\n"
	"       egg report [--json | --html DIR] [--cache]\n"
	"       egg report KEY [--full] [--lines N]\n";

/* ---- reading records ---- */

static int
is_record(const cJSON *r)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(r, "schema");
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(r, "version");
	return cJSON_IsString(schema) && strcmp(schema->valuestring, REPORT_SCHEMA) == 0 &&
	       cJSON_IsNumber(version) && version->valueint == REPORT_VERSION &&
	       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "outcome"));
}

/* Appends the records of a report file to out; -1 if it cannot be read, else
 * the number of lines skipped (each warned about). */
static int
read_report(const char *path, cJSON *out)
{
	char *data;
	size_t len;
	if (fs_read_file(path, 0, &data, &len) < 0) {
		egg_error("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	int skipped = 0;
	size_t lineno = 0;
	for (char *p = data; *p;) {
		size_t n = strcspn(p, "\n");
		lineno++;
		if (strspn(p, " \t\r") < n) {
			cJSON *r = cJSON_ParseWithLength(p, n);
			if (is_record(r)) {
				cJSON_AddItemToArray(out, r);
			} else {
				egg_warn("%s:%zu: not an egg-report record; skipped", path, lineno);
				cJSON_Delete(r);
				skipped++;
			}
		}
		p += n + (p[n] == '\n');
	}
	free(data);
	return skipped;
}

/* The local store, or NULL with a sentence in err. */
static struct cache_store *
open_store_quietly(struct strbuf *err)
{
	struct egg_config *cfg = egg_config_new();
	struct cache_settings set;
	struct cache_store *s = NULL;
	memset(&set, 0, sizeof set);
	if (egg_config_load(cfg, NULL, err) == 0) {
		cache_settings_from_config(&set, cfg);
		s = cache_store_open(set.dir, set.max_size, err);
		if (s)
			cache_store_set_secret(s, set.secret);
	}
	cache_settings_release(&set);
	egg_config_free(cfg);
	return s;
}

static struct cache_store *
open_store(void)
{
	struct strbuf err = STRBUF_INIT;
	struct cache_store *s = open_store_quietly(&err);
	if (!s)
		egg_error("%s", err.buf);
	strbuf_release(&err);
	return s;
}

/* The records of every entry of the local cache; -1 if it cannot be read,
 * else the number of invalid entries skipped. */
static int
read_cache(cJSON *out)
{
	struct cache_store *s = open_store();
	if (!s)
		return -1;
	struct strbuf err = STRBUF_INIT;
	struct cache_store_item *items;
	size_t n;
	int skipped = 0;
	if (cache_store_list(s, &items, &n, &err) < 0) {
		egg_error("%s", err.buf);
		strbuf_release(&err);
		cache_store_close(s);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct cache_entry *e = NULL;
		strbuf_reset(&err);
		int r = cache_store_read(s, items[i].key, &e, &err);
		if (r == 1)
			cJSON_AddItemToArray(out, report_record_from_entry(e, items[i].used.tv_sec));
		else if (r < 0) {
			egg_warn("the cache entry %s is invalid (%s); skipped", items[i].key, err.buf);
			skipped++;
		}
		cache_entry_free(e);
	}
	free(items);
	strbuf_release(&err);
	cache_store_close(s);
	return skipped;
}

static const char *
str(const cJSON *r, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

static double
num(const cJSON *r, const char *name)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, name);
	return cJSON_IsNumber(n) ? n->valuedouble : -1;
}

/* What a record stands for when merging: its key, else its source and kernel. */
static char *
identity(const cJSON *r)
{
	const char *key = str(r, "key");
	if (key)
		return egg_xstrdup(key);
	const char *src = str(r, "source");
	const char *kernel = str(r, "kernel");
	return egg_xasprintf("%s\n%s", src ? src : "", kernel ? kernel : "");
}

/* Keeps the latest record of each identity (by time; the later one read on a tie). */
static void
merge_records(cJSON *recs)
{
	for (int i = cJSON_GetArraySize(recs) - 1; i >= 0; i--) {
		cJSON *a = cJSON_GetArrayItem(recs, i);
		char *ia = identity(a);
		for (int j = i + 1; j < cJSON_GetArraySize(recs); j++) {
			cJSON *b = cJSON_GetArrayItem(recs, j);
			char *ib = identity(b);
			int same = strcmp(ia, ib) == 0;
			free(ib);
			if (!same)
				continue;
			const char *ta = str(a, "time"), *tb = str(b, "time");
			int a_newer = ta && tb && strcmp(ta, tb) > 0;
			cJSON_DeleteItemFromArray(recs, a_newer ? j : i);
			if (!a_newer)
				break;
			j--;
		}
		free(ia);
	}
}

static int
compare_records(const void *pa, const void *pb)
{
	const cJSON *a = *(cJSON *const *)pa, *b = *(cJSON *const *)pb;
	static const char *const keys[] = { "kernel", "source", "key", "time" };
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		const char *x = str(a, keys[k]), *y = str(b, keys[k]);
		int c = strcmp(x ? x : "", y ? y : "");
		if (c)
			return c;
	}
	return 0;
}

/* The records sorted by kernel (then source, key, time); the array is rebuilt. */
static void
sort_records(cJSON *recs)
{
	size_t n = (size_t)cJSON_GetArraySize(recs);
	cJSON **v = egg_xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(recs, 0);
	qsort(v, n, sizeof *v, compare_records);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(recs, v[i]);
	free(v);
}

/* ---- the table ---- */

/* calls, tokens in/out and search s: what the search behind the entry spent
 * (the record's "search") */
enum { C_KERNEL, C_OUTCOME, C_SPEEDUP, C_REF, C_EGG, C_GPU, C_GEN, C_CALLS, C_TOK_IN, C_TOK_OUT,
       C_SEARCH_S, C_KEY, C_NOTE, N_COLS };
static const char *const headers[N_COLS] = { "kernel", "outcome", "speedup", "ref ms", "egg ms",
	                                     "GPU", "generator", "calls", "tokens in", "tokens out",
	                                     "search s", "key", "note" };

struct row {
	char *cell[N_COLS];
	double speedup; /* > 0 for a winner */
	char *page;     /* its page, relative to the index (--html) */
};

/* The sum of a timing over the record's workloads, or -1 when there is none. */
static double
sum_ms(const cJSON *r, const char *field)
{
	double sum = 0;
	int n = 0;
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(r, "workloads")) {
		double ms = num(w, field);
		if (ms >= 0) {
			sum += ms;
			n++;
		}
	}
	return n ? sum : -1;
}

static char *
fmt_number(double v, const char *fmt)
{
	return v >= 0 ? egg_xasprintf(fmt, v) : egg_xstrdup("-");
}

static void
row_fill(struct row *row, const cJSON *r)
{
	const char *outcome = str(r, "outcome");
	int won = report_outcome_is_winner(outcome);
	double sp = num(r, "speedup");
	row->speedup = won && sp > 0 ? sp : 0;
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(r, "generator");
	const char *backend = str(g, "backend"), *model = str(g, "model");
	const char *key = str(r, "key"), *gpu = str(r, "gpu"), *reason = str(r, "reason");
	double ref = sum_ms(r, "reference_ms"), egg = sum_ms(r, "winner_ms");
	/* A source egg could not plan at all has no kernel: it is named by the source. */
	const char *kernel = str(r, "kernel"), *source = str(r, "source");
	row->cell[C_KERNEL] = kernel ? egg_xstrdup(kernel) : egg_xasprintf("(%s)", source ? source : "?");
	row->cell[C_OUTCOME] = egg_xstrdup(outcome);
	row->cell[C_SPEEDUP] = row->speedup > 0 ? egg_xasprintf("%.2fx", sp) : egg_xstrdup("-");
	row->cell[C_REF] = fmt_number(ref, "%.3f");
	/* egg links the reference when there is no winner: its time is the reference's. */
	row->cell[C_EGG] = fmt_number(won ? egg : ref, "%.3f");
	row->cell[C_GPU] = egg_xstrdup(gpu ? gpu : "-");
	row->cell[C_GEN] = egg_xasprintf("%s%s%s", backend ? backend : "-", model ? " " : "",
	                                 model ? model : "");
	const cJSON *cost = cJSON_GetObjectItemCaseSensitive(r, "search");
	row->cell[C_CALLS] = fmt_number(num(cost, "model_calls"), "%.0f");
	row->cell[C_TOK_IN] = fmt_number(num(cost, "tokens_in"), "%.0f");
	row->cell[C_TOK_OUT] = fmt_number(num(cost, "tokens_out"), "%.0f");
	row->cell[C_SEARCH_S] = fmt_number(num(cost, "wall_s"), "%.1f");
	row->cell[C_KEY] = egg_xasprintf("%.12s", key ? key : "-");
	row->cell[C_NOTE] = egg_xasprintf("%.60s", reason ? reason : "");
}

static struct row *
rows_new(const cJSON *recs, size_t *n)
{
	*n = (size_t)cJSON_GetArraySize(recs);
	struct row *rows = egg_xcalloc(*n ? *n : 1, sizeof *rows);
	size_t i = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, recs) {
		row_fill(&rows[i], r);
		rows[i].page = report_page_kernel_path(i, rows[i].cell[C_KERNEL]);
		i++;
	}
	return rows;
}

static void
rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < N_COLS; c++)
			free(rows[i].cell[c]);
		free(rows[i].page);
	}
	free(rows);
}

/* "3 kernels: 2 with a winner (geometric mean speedup 2.50x); cache-hit 2, searched-none 1" */
static char *
summary(const struct row *rows, size_t n, const char *what)
{
	double log_sum = 0;
	size_t winners = 0;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		if (rows[i].speedup > 0) {
			log_sum += log(rows[i].speedup);
			winners++;
		}
	strbuf_addf(&sb, "%zu %s%s: %zu with a winner", n, what, n == 1 ? "" : "s", winners);
	if (winners)
		strbuf_addf(&sb, " (geometric mean speedup %.2fx)", exp(log_sum / (double)winners));
	/* Counts per outcome, in alphabetical order. */
	const char *prev = NULL;
	for (;;) {
		const char *next = NULL;
		size_t count = 0;
		for (size_t i = 0; i < n; i++) {
			const char *o = rows[i].cell[C_OUTCOME];
			if ((!prev || strcmp(o, prev) > 0) && (!next || strcmp(o, next) < 0))
				next = o;
		}
		if (!next)
			break;
		for (size_t i = 0; i < n; i++)
			count += strcmp(rows[i].cell[C_OUTCOME], next) == 0;
		strbuf_addf(&sb, "%s %s %zu", prev ? "," : ";", next, count);
		prev = next;
	}
	return strbuf_detach(&sb);
}

static void
print_table(const struct row *rows, size_t n, const char *what)
{
	size_t width[N_COLS];
	for (int c = 0; c < N_COLS; c++) {
		width[c] = strlen(headers[c]);
		for (size_t i = 0; i < n; i++)
			if (strlen(rows[i].cell[c]) > width[c])
				width[c] = strlen(rows[i].cell[c]);
	}
	for (size_t i = 0; i <= n; i++) {
		struct strbuf line = STRBUF_INIT;
		for (int c = 0; c < N_COLS; c++) {
			const char *cell = i == 0 ? headers[c] : rows[i - 1].cell[c];
			int right = c == C_SPEEDUP || c == C_REF || c == C_EGG ||
			            (c >= C_CALLS && c <= C_SEARCH_S);
			if (c)
				strbuf_addstr(&line, "  ");
			strbuf_addf(&line, right ? "%*s" : "%-*s", (int)width[c], cell);
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = '\0';
		puts(line.buf);
		strbuf_release(&line);
	}
	char *s = summary(rows, n, what);
	printf("\n%s\n", s);
	free(s);
}

/* ---- the page ---- */

#define BAR_W 520.0
#define ROW_H 26
#define TOP 34

/* The chart: a row per kernel, a bar from 1x to its speedup on a log2 scale
 * with the number written after it; kernels without a winner say so at 1x. */
static void
add_chart(struct strbuf *sb, const struct row *rows, size_t n)
{
	double lo = -1, hi = 1; /* log2 of 0.5x and 2x at least */
	size_t name_len = 8;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].speedup > 0) {
			lo = fmin(lo, floor(log2(rows[i].speedup)));
			hi = fmax(hi, ceil(log2(rows[i].speedup)));
		}
		name_len = strlen(rows[i].cell[C_KERNEL]) > name_len ? strlen(rows[i].cell[C_KERNEL]) : name_len;
	}
	double left = 16 + 7.5 * (double)name_len, right_pad = 170;
	double width = left + BAR_W + right_pad, height = TOP + ROW_H * (double)n + 10;
#define X(s) (left + (log2(s) - lo) / (hi - lo) * BAR_W)
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"speedup over the reference per "
	            "kernel, log scale\">\n", width, height, width, height);
	for (double e = lo; e <= hi; e++) {
		double x = X(exp2(e));
		strbuf_addf(sb, "<line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\"/>\n",
		            e == 0 ? "one" : "grid", x, TOP - 6, x, height - 6);
		strbuf_addf(sb, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%gx</text>\n", x, TOP - 12, exp2(e));
	}
	double x1 = X(1.0);
	for (size_t i = 0; i < n; i++) {
		double y = TOP + ROW_H * (double)i;
		strbuf_addstr(sb, "<a href=\"");
		report_page_escape(sb, rows[i].page);
		strbuf_addf(sb, "\"><text class=\"name\" x=\"%.1f\" y=\"%.1f\">", left - 8, y + 17);
		report_page_escape(sb, rows[i].cell[C_KERNEL]);
		strbuf_addstr(sb, "</text></a>\n");
		double s = rows[i].speedup;
		if (s > 0) {
			double xs = X(s);
			strbuf_addf(sb, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>\n",
			            s >= 1 ? "win" : "loss", fmin(x1, xs), y + 4, fmax(fabs(xs - x1), 1.0),
			            ROW_H - 8);
			strbuf_addf(sb, "<text class=\"num\" x=\"%.1f\" y=\"%.1f\">", fmax(x1, xs) + 5, y + 17);
			report_page_escape(sb, rows[i].cell[C_SPEEDUP]);
			strbuf_addstr(sb, "</text>\n");
		} else {
			strbuf_addf(sb, "<text class=\"ref\" x=\"%.1f\" y=\"%.1f\">reference (", x1 + 5, y + 17);
			report_page_escape(sb, rows[i].cell[C_OUTCOME]);
			strbuf_addstr(sb, ")</text>\n");
		}
	}
#undef X
	strbuf_addstr(sb, "</svg>\n");
}

static char *
page_new(const struct row *rows, size_t n, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	            "<title>egg report</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	            "<h1>egg report</h1>\n<p>", report_page_style);
	char *s = summary(rows, n, what);
	report_page_escape(&sb, s);
	free(s);
	strbuf_addstr(&sb, "</p>\n<h2>Speedup over the reference (log scale)</h2>\n");
	add_chart(&sb, rows, n);
	strbuf_addstr(&sb, "<h2>Kernels</h2>\n<table>\n<tr>");
	for (int c = 0; c < N_COLS; c++) {
		strbuf_addstr(&sb, "<th>");
		report_page_escape(&sb, headers[c]);
		strbuf_addstr(&sb, "</th>");
	}
	strbuf_addstr(&sb, "</tr>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&sb, "<tr>");
		for (int c = 0; c < N_COLS; c++) {
			int numeric = c == C_SPEEDUP || c == C_REF || c == C_EGG;
			strbuf_addstr(&sb, numeric ? "<td class=\"n\">" : "<td>");
			if (c == C_KERNEL) {
				strbuf_addstr(&sb, "<a href=\"");
				report_page_escape(&sb, rows[i].page);
				strbuf_addstr(&sb, "\">");
			}
			report_page_escape(&sb, rows[i].cell[c]);
			strbuf_addstr(&sb, c == C_KERNEL ? "</a></td>" : "</td>");
		}
		strbuf_addstr(&sb, "</tr>\n");
	}
	strbuf_addstr(&sb, "</table>\n<p>Times are the medians measured by egg's harness, summed over "
	              "each kernel's workloads; egg ms is the reference's time where egg kept the "
	              "reference.</p>\n</body>\n</html>\n");
	return strbuf_detach(&sb);
}

/* The cache entry of a record for its page: NULL, with why in *no_entry
 * (static), when the record has no key or the local cache lacks it. */
static struct cache_entry *
record_entry(struct cache_store *s, const char *store_err, const cJSON *rec, const char **no_entry)
{
	const char *key = str(rec, "key");
	struct cache_entry *e = NULL;
	*no_entry = NULL;
	if (!key)
		return NULL;
	struct strbuf err = STRBUF_INIT;
	int r = s ? cache_store_read(s, key, &e, &err) : -2;
	if (r == 0)
		*no_entry = "The local cache holds no entry of this key: the candidates, the winner's "
		            "code and the transcript are in the cache that found it (egg report KEY there).";
	else if (r < 0)
		*no_entry = s ? "The local cache's entry of this key is invalid (egg cache verify)."
		              : store_err;
	strbuf_release(&err);
	return r == 1 ? e : NULL;
}

/* index.html and, under kernels/, a page per record (rows[i] is recs' i-th),
 * with what the local cache holds of it. */
static int
write_page(const char *dir, const cJSON *recs, const struct row *rows, size_t n, const char *what)
{
	char *kdir = fs_join(dir, "kernels");
	if (fs_mkdir_p(kdir, 0777) < 0) {
		egg_error("cannot create %s: %s", kdir, strerror(errno));
		free(kdir);
		return 1;
	}
	free(kdir);
	struct strbuf store_err = STRBUF_INIT;
	struct cache_store *s = open_store_quietly(&store_err);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const cJSON *rec = cJSON_GetArrayItem(recs, (int)i);
		const char *no_entry;
		struct cache_entry *e = record_entry(s, store_err.buf, rec, &no_entry);
		char *path = fs_join(dir, rows[i].page);
		char *page = report_page_kernel(rows[i].cell[C_KERNEL], rec, e, no_entry);
		if ((rc = fs_write_atomic(path, page, strlen(page))) < 0)
			egg_error("cannot write %s: %s", path, strerror(errno));
		free(page);
		free(path);
		cache_entry_free(e);
	}
	if (s)
		cache_store_close(s);
	strbuf_release(&store_err);
	char *path = fs_join(dir, "index.html");
	char *page = page_new(rows, n, what);
	if (rc == 0 && (rc = fs_write_atomic(path, page, strlen(page))) < 0)
		egg_error("cannot write %s: %s", path, strerror(errno));
	else if (rc == 0)
		printf("wrote %s and a page per kernel (%zu kernel%s)\n", path, n, n == 1 ? "" : "s");
	free(page);
	free(path);
	return rc < 0;
}

/* ---- the command ---- */

struct report_opts {
	int json, all, cache, full;
	long lines;
	const char *html;
	char **args;
	int n_args;
};

static int
parse_opts(int argc, char **argv, struct report_opts *o)
{
	memset(o, 0, sizeof *o);
	o->lines = 12;
	o->args = egg_xcalloc((size_t)argc + 1, sizeof *o->args);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0)
			o->json = 1;
		else if (strcmp(a, "--all") == 0)
			o->all = 1;
		else if (strcmp(a, "--cache") == 0)
			o->cache = 1;
		else if (strcmp(a, "--full") == 0)
			o->full = 1;
		else if (strcmp(a, "--html") == 0 && i + 1 < argc)
			o->html = argv[++i];
		else if (egg_str_starts(a, "--html="))
			o->html = a + 7;
		else if ((strcmp(a, "--lines") == 0 && i + 1 < argc) || egg_str_starts(a, "--lines=")) {
			const char *v = a[7] == '=' ? a + 8 : argv[++i];
			char *end;
			o->lines = strtol(v, &end, 10);
			if (*end || o->lines < 1) {
				egg_error("--lines: '%s' is not a positive number", v);
				return -1;
			}
		} else if (a[0] == '-' && a[1]) {
			egg_error("egg report: unknown option '%s'\n%s", a, usage);
			return -1;
		} else {
			o->args[o->n_args++] = argv[i];
		}
	}
	if (o->json && o->html) {
		egg_error("egg report: --json and --html exclude each other\n%s", usage);
		return -1;
	}
	if (o->cache && o->n_args) {
		egg_error("egg report: --cache reads the cache, not files\n%s", usage);
		return -1;
	}
	return 0;
}

static int
is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* A lone argument that is no file but looks like a key (prefix): egg report KEY. */
static int
names_entry(const struct report_opts *o)
{
	const char *a = o->n_args == 1 ? o->args[0] : NULL;
	return a && !is_file(a) && strlen(a) >= 4 && strspn(a, "0123456789abcdef") == strlen(a);
}

static int
show_entry(const struct report_opts *o)
{
	struct cache_store *s = open_store();
	if (!s)
		return 1;
	struct strbuf err = STRBUF_INIT;
	int status = 1;
	char *key = cache_store_resolve_key(s, o->args[0], &err);
	struct cache_entry *e = NULL;
	int r = key ? cache_store_read(s, key, &e, &err) : -2;
	if (r == 1) {
		struct report_show_options so = { o->full, (size_t)o->lines };
		report_show_entry(e, &so, stdout);
		status = 0;
	} else if (r == 0) {
		egg_error("no cache entry has the key %s", key);
	} else if (r == -1) {
		egg_error("the cache entry %s is invalid: %s", key, err.buf);
	} else {
		egg_error("%s", err.buf);
	}
	cache_entry_free(e);
	free(key);
	strbuf_release(&err);
	cache_store_close(s);
	return status;
}

int
cmd_report(int argc, char **argv)
{
	if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	struct report_opts o;
	if (parse_opts(argc, argv, &o) < 0) {
		free(o.args);
		return 2;
	}
	if (names_entry(&o)) {
		int rc = show_entry(&o);
		free(o.args);
		return rc;
	}
	cJSON *recs = cJSON_CreateArray();
	int skipped = 0, status = 0;
	for (int i = 0; i < o.n_args && status == 0; i++) {
		int r = read_report(o.args[i], recs);
		status = r < 0;
		skipped += r > 0 ? r : 0;
	}
	if (o.n_args == 0) {
		int r = read_cache(recs);
		status = r < 0;
		skipped += r > 0 ? r : 0;
	}
	if (status == 0) {
		if (!o.all)
			merge_records(recs);
		sort_records(recs);
		size_t n;
		struct row *rows = rows_new(recs, &n);
		const char *what = o.all ? "record" : "kernel";
		if (o.json) {
			char *text = cJSON_Print(recs);
			puts(text);
			free(text);
		} else if (o.html) {
			status = write_page(o.html, recs, rows, n, what);
		} else {
			print_table(rows, n, what);
		}
		rows_free(rows, n);
	}
	cJSON_Delete(recs);
	free(o.args);
	return status ? 1 : skipped > 0;
}
