/*
 * test_config.c -- unit tests for common/egg_config: the layer order and every origin,
 * the file syntax (comments, quotes, CRLF), each kind of error with its location,
 * secrets never shown, and the typed values (sizes, bools, durations, lists, paths).
 *
 * Each test runs in a fresh temporary directory that is also HOME, with
 * XDG_CONFIG_HOME, EGG_SYSTEM_CONFIG and every EGG_<KEY> variable under its control.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/egg_config.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[PATH_MAX];
static char old_cwd[PATH_MAX];

static void
unset_egg_variables(void)
{
	char name[64];
	for (size_t i = 0; egg_config_key_name(i); i++) {
		const char *k = egg_config_key_name(i);
		snprintf(name, sizeof name, "EGG_%s", k);
		for (char *p = name; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		unsetenv(name);
	}
}

static int
setup(void **state)
{
	snprintf(tmp, sizeof tmp, "%s/egg-test-config.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp) || !getcwd(old_cwd, sizeof old_cwd) || chdir(tmp) < 0)
		return -1;
	setenv("HOME", tmp, 1);
	char *xdg = egg_xasprintf("%s/xdg", tmp);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	unsetenv("XDG_CACHE_HOME"); /* the default cache_dir is then ~/.cache/egg */
	free(xdg);
	char *sys = egg_xasprintf("%s/system.conf", tmp);
	setenv("EGG_SYSTEM_CONFIG", sys, 1);
	free(sys);
	unset_egg_variables();
	return 0;
}

static int
teardown(void **state)
{
	if (chdir(old_cwd) < 0)
		return -1;
	char *cmd = egg_xasprintf("rm -rf '%s'", tmp);
	int rc = system(cmd);
	free(cmd);
	unset_egg_variables();
	return rc == 0 ? 0 : -1;
}

/* Writes text to tmp/rel (making its directory); returns the full path (caller frees). */
static char *
write_conf(const char *rel, const char *text)
{
	char *path = egg_xasprintf("%s/%s", tmp, rel);
	char *dir = fs_dirname(path);
	assert_int_equal(fs_mkdir_p(dir, 0755), 0);
	free(dir);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
	return path;
}

/* The origin of key as a string (caller frees). */
static char *
origin_of(const struct egg_config *cfg, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	egg_config_origin(cfg, key, &sb);
	return strbuf_detach(&sb);
}

static void
assert_origin(const struct egg_config *cfg, const char *key, const char *want)
{
	char *o = origin_of(cfg, key);
	assert_string_equal(o, want);
	free(o);
}

/* Reads text as a file that must fail; returns the error (caller frees). */
static char *
file_error(const char *text)
{
	char *path = write_conf("bad.conf", text);
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), -1);
	egg_config_free(cfg);
	free(path);
	return strbuf_detach(&err);
}

static void
assert_file_error(const char *text, unsigned line, const char *message)
{
	char *err = file_error(text);
	char *want = egg_xasprintf("%s/bad.conf:%u: %s", tmp, line, message);
	assert_string_equal(err, want);
	free(want);
	free(err);
}

static void
defaults_hold_before_any_layer(void **state)
{
	struct egg_config *cfg = egg_config_new();
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_SEARCH);
	assert_int_equal(egg_config_backend(cfg), EGG_BACKEND_BUILTIN);
	assert_int_equal(egg_config_size(cfg, "max_size"), 2ull << 30);
	assert_int_equal(egg_config_seconds(cfg, "timeout"), 120);
	assert_int_equal(egg_config_bool(cfg, "strict"), 0);
	assert_null(egg_config_get(cfg, "nvcc"));
	char *cache = egg_xasprintf("%s/.cache/egg", tmp);
	assert_string_equal(egg_config_get(cfg, "cache_dir"), cache);
	free(cache);
	assert_origin(cfg, "mode", "default");
	egg_config_free(cfg);
}

static void
key_table_is_complete_and_documented(void **state)
{
	size_t n = 0;
	for (; egg_config_key_name(n); n++) {
		const char *k = egg_config_key_name(n);
		assert_non_null(egg_config_key_doc(k));
		assert_true(strlen(egg_config_key_doc(k)) > 10);
		assert_non_null(egg_config_key_type(k));
		assert_non_null(egg_config_key_default(k));
	}
	assert_true(n >= 19);
	assert_string_equal(egg_config_key_type("mode"), "search|cache|verify|off");
	assert_string_equal(egg_config_key_type("max_size"), "size");
	assert_string_equal(egg_config_key_default("max_size"), "2GiB");
	assert_string_equal(egg_config_key_default("model"), "");
	assert_null(egg_config_key_doc("mdoe"));
	assert_string_equal(egg_config_key_suggest("mdoe"), "mode");
	assert_string_equal(egg_config_key_suggest("max-size"), "max_size");
	assert_null(egg_config_key_suggest("zzzzzzzz"));
	assert_string_equal(egg_mode_name(EGG_MODE_VERIFY), "verify");
}

/* Five layers over the defaults; each key is set in the layers up to one, and the
 * highest of those must win with its own origin. */
static void
layers_apply_in_order_with_their_origins(void **state)
{
	char *sys = write_conf("system.conf", "mode = cache\nmodel = s\napi_base = s\n"
	                                      "gpu = s\neval_command = s\n");
	char *user = write_conf("xdg/egg/egg.conf", "mode = verify\nmodel = u\napi_base = u\n"
	                                            "gpu = u\n");
	char *project = write_conf("proj/egg.conf", "# project\nmode = off\nmodel = p\napi_base = p\n");
	char *sub = egg_xasprintf("%s/proj/src/deep", tmp);
	assert_int_equal(fs_mkdir_p(sub, 0755), 0);
	assert_int_equal(chdir(sub), 0);
	setenv("EGG_MODE", "search", 1);
	setenv("EGG_MODEL", "e", 1);
	struct strvec opts = STRVEC_INIT;
	strvec_push(&opts, "--egg-mode=cache");

	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_load(cfg, &opts, &err), 0);
	assert_string_equal(err.buf, "");

	assert_string_equal(egg_config_get(cfg, "mode"), "cache");
	assert_origin(cfg, "mode", "option --egg-mode");
	assert_string_equal(egg_config_get(cfg, "model"), "e");
	assert_origin(cfg, "model", "environment EGG_MODEL");
	assert_string_equal(egg_config_get(cfg, "api_base"), "p");
	char *want = egg_xasprintf("%s:4", project);
	assert_origin(cfg, "api_base", want);
	free(want);
	assert_string_equal(egg_config_get(cfg, "gpu"), "u");
	want = egg_xasprintf("%s:4", user);
	assert_origin(cfg, "gpu", want);
	free(want);
	assert_string_equal(egg_config_get(cfg, "eval_command"), "s");
	want = egg_xasprintf("%s:5", sys);
	assert_origin(cfg, "eval_command", want);
	free(want);
	assert_origin(cfg, "backend", "default");

	egg_config_free(cfg);
	strbuf_release(&err);
	strvec_clear(&opts);
	free(sub);
	free(sys);
	free(user);
	free(project);
}

static void
nearest_project_file_wins_and_home_default_applies(void **state)
{
	char *outer = write_conf("a/egg.conf", "model = outer\n");
	char *inner = write_conf("a/b/egg.conf", "backend = openai\n");
	char *dir = egg_xasprintf("%s/a/b/c", tmp);
	assert_int_equal(fs_mkdir_p(dir, 0755), 0);
	assert_int_equal(chdir(dir), 0);
	/* Without XDG_CONFIG_HOME the user file is ~/.config/egg/egg.conf. */
	unsetenv("XDG_CONFIG_HOME");
	char *user = write_conf(".config/egg/egg.conf", "gpu = 1\n");

	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_load(cfg, NULL, &err), 0);
	assert_null(egg_config_get(cfg, "model")); /* only the nearest file is read */
	assert_int_equal(egg_config_backend(cfg), EGG_BACKEND_OPENAI);
	assert_string_equal(egg_config_get(cfg, "gpu"), "1");
	char *want = egg_xasprintf("%s:1", user);
	assert_origin(cfg, "gpu", want);
	free(want);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(outer);
	free(inner);
	free(dir);
	free(user);
}

static void
comments_blank_lines_and_crlf_are_understood(void **state)
{
	char *path = write_conf("c.conf", "# a comment\n"
	                                  "\n"
	                                  "   \t\n"
	                                  "  # indented comment\n"
	                                  "model = gpt # trailing comment\n"
	                                  "api_base = http://h/x#frag\n"
	                                  "gpu=0\t# tab before the hash\r\n"
	                                  "eval_command = # only a comment: empty\n"
	                                  "api_key_file=#also a comment\n"
	                                  "  report   =   out.json   \n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), 0);
	assert_string_equal(egg_config_get(cfg, "model"), "gpt");
	assert_string_equal(egg_config_get(cfg, "api_base"), "http://h/x#frag");
	assert_string_equal(egg_config_get(cfg, "gpu"), "0");
	assert_null(egg_config_get(cfg, "eval_command"));
	assert_null(egg_config_get(cfg, "api_key_file"));
	char *report = egg_xasprintf("%s/out.json", tmp);
	assert_string_equal(egg_config_get(cfg, "report"), report);
	free(report);
	char *want = egg_xasprintf("%s:5", path);
	assert_origin(cfg, "model", want);
	free(want);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
quoted_values_are_literal(void **state)
{
	char *path = write_conf("q.conf", "model = \"  a # b  \"\n"
	                                  "api_base = 'it''s' # comment after a quote\n"
	                                  "eval_command = \"ssh 'gpu 1' egg eval -\"\n"
	                                  "gpu = \"\"\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	int rc = egg_config_read_file(cfg, path, &err);
	/* 'it''s' is a quoted "it" followed by text: an error on line 2, the rest applies. */
	assert_int_equal(rc, -1);
	char *want = egg_xasprintf("%s:2: unexpected text after the closing quote of api_base's "
	                           "value", path);
	assert_string_equal(err.buf, want);
	free(want);
	assert_string_equal(egg_config_get(cfg, "model"), "  a # b  ");
	assert_string_equal(egg_config_get(cfg, "eval_command"), "ssh 'gpu 1' egg eval -");
	assert_null(egg_config_get(cfg, "gpu"));
	assert_null(egg_config_get(cfg, "api_base"));
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
each_error_names_file_and_line(void **state)
{
	assert_file_error("mode = cache\n\nmdoe = off\n", 3,
	                  "unknown key 'mdoe' (did you mean 'mode'?)");
	assert_file_error("frobnicate = 1\n", 1,
	                  "unknown key 'frobnicate' ('egg config' lists the keys)");
	assert_file_error("# ok\njunk without equals\n", 2,
	                  "expected 'key = value', not 'junk ...'");
	assert_file_error("junk\t \n", 1, "expected 'key = value', not 'junk'");
	assert_file_error(" = x\n", 1, "no key before '='");
	assert_file_error("mode = serch\n", 1,
	                  "mode must be search, cache, verify or off, not 'serch'");
	assert_file_error("backend = gemini\n", 1,
	                  "backend must be builtin, openai or anthropic, not 'gemini'");
	assert_file_error("max_size = lots\n", 1,
	                  "max_size must be a size such as 500Mi, 1.5G or 2GiB, not 'lots'");
	assert_file_error("strict = maybe\n", 1,
	                  "strict must be true or false (or yes/no, on/off, 1/0), not 'maybe'");
	assert_file_error("timeout = soon\n", 1,
	                  "timeout must be a duration such as 90, 90s, 5m or 1h, not 'soon'");
	assert_file_error("model = \"unterminated\n", 1, "the value of model has no closing \"");
}

static void
nul_bytes_and_unreadable_files_are_errors(void **state)
{
	char *path = egg_xasprintf("%s/nul.conf", tmp);
	static const char text[] = "model = a\nmo\0de = x\n";
	assert_int_equal(fs_write_atomic(path, text, sizeof text - 1), 0);
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), -1);
	char *want = egg_xasprintf("%s:2: contains a NUL byte; egg.conf must be text", path);
	assert_string_equal(err.buf, want);
	assert_string_equal(egg_config_get(cfg, "model"), "a");
	free(want);
	free(path);

	/* A directory where the file should be. */
	strbuf_reset(&err);
	path = egg_xasprintf("%s/dir.conf", tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(egg_config_read_file(cfg, path, &err), -1);
	want = egg_xasprintf("%s: cannot read it: Is a directory", path);
	assert_string_equal(err.buf, want);
	free(want);
	free(path);

	/* A missing file is no error and changes nothing. */
	strbuf_reset(&err);
	assert_int_equal(egg_config_read_file(cfg, "/nonexistent/egg.conf", &err), 0);
	assert_string_equal(err.buf, "");
	egg_config_free(cfg);
	strbuf_release(&err);
}

static void
only_the_first_error_is_reported_and_the_rest_applies(void **state)
{
	char *path = write_conf("m.conf", "mode = bad\nmodel = kept\nstrict = maybe\ngpu = 2\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), -1);
	assert_non_null(strstr(err.buf, ":1: mode must be"));
	assert_null(strstr(err.buf, "strict"));
	assert_null(strchr(err.buf, '\n'));
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_SEARCH);
	assert_string_equal(egg_config_get(cfg, "model"), "kept");
	assert_string_equal(egg_config_get(cfg, "gpu"), "2");
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
secrets_never_appear_in_errors(void **state)
{
	static const char *const bad[] = {
		"api_key sk-SECRET\n", "api_key = \"sk-SEC\"RET\n", "cache_secret: SECRET\n",
		"api_key = 'SECRET\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *err = file_error(bad[i]);
		assert_non_null(strstr(err, "bad.conf:1: "));
		assert_null(strstr(err, "SEC"));
		free(err);
	}
}

static void
a_byte_order_mark_is_skipped(void **state)
{
	char *path = write_conf("bom.conf", "\xEF\xBB\xBFmode = off\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), 0);
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_OFF);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
secrets_are_shown_masked(void **state)
{
	char *path = write_conf("s.conf", "api_key = sk-very-secret\nmodel = m\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT, shown = STRBUF_INIT;
	egg_config_show(cfg, "api_key", &shown);
	assert_string_equal(shown.buf, "");
	assert_int_equal(egg_config_read_file(cfg, path, &err), 0);
	setenv("EGG_CACHE_SECRET", "hmac-secret", 1);
	assert_int_equal(egg_config_read_env(cfg, &err), 0);
	for (size_t i = 0; egg_config_key_name(i); i++) {
		strbuf_reset(&shown);
		egg_config_show(cfg, egg_config_key_name(i), &shown);
		assert_null(strstr(shown.buf, "secret"));
		egg_config_origin(cfg, egg_config_key_name(i), &shown);
		assert_null(strstr(shown.buf, "secret"));
	}
	strbuf_reset(&shown);
	egg_config_show(cfg, "api_key", &shown);
	assert_string_equal(shown.buf, "<set>");
	strbuf_reset(&shown);
	egg_config_show(cfg, "cache_secret", &shown);
	assert_string_equal(shown.buf, "<set>");
	assert_string_equal(egg_config_get(cfg, "api_key"), "sk-very-secret");
	assert_string_equal(egg_config_get(cfg, "cache_secret"), "hmac-secret");
	egg_config_free(cfg);
	strbuf_release(&err);
	strbuf_release(&shown);
	free(path);
}

/* Sets max_size through an option and returns 0 with *bytes, or -1. */
static int
size_of(const char *text, uint64_t *bytes)
{
	struct egg_config *cfg = egg_config_new();
	struct strvec opts = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	strvec_push_owned(&opts, egg_xasprintf("--egg-max-size=%s", text));
	int rc = egg_config_read_options(cfg, &opts, &err);
	*bytes = egg_config_size(cfg, "max_size");
	egg_config_free(cfg);
	strvec_clear(&opts);
	strbuf_release(&err);
	return rc;
}

/* ccache's rules: k, M, G, T are powers of 1000 and Ki, Mi, Gi, Ti powers of 1024, each
 * alone or with B, in any case; fractions are allowed with a unit and rounded down; a
 * bare number is bytes (unlike ccache, where it means GiB: egg's 0 means no limit). */
static void
sizes_take_ccaches_decimal_and_binary_suffixes(void **state)
{
	static const struct { const char *text; uint64_t bytes; } good[] = {
		{ "0", 0 }, { "10", 10 }, { "1k", 1000 }, { "1K", 1000 }, { "1kB", 1000 },
		{ "1Ki", 1024 }, { "1KiB", 1024 }, { "500Mi", 500ull << 20 }, { "10M", 10000000 },
		{ "1.5G", 1500000000 }, { "2G", 2000000000 }, { "2GiB", 2ull << 30 },
		{ "3gib", 3ull << 30 }, { "1 G", 1000000000 }, { "4gb", 4000000000ull },
		{ "1T", 1000000000000ull }, { "1Ti", 1ull << 40 }, { "7B", 7 }, { "1.25Ki", 1280 },
		{ "0.5Mi", 512ull << 10 }, { "1.0000001K", 1000 }, { "16000000Ti", 16000000ull << 40 },
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		uint64_t b = 1;
		if (size_of(good[i].text, &b) != 0 || b != good[i].bytes)
			fail_msg("'%s': got %llu, want %llu", good[i].text, (unsigned long long)b,
			         (unsigned long long)good[i].bytes);
	}
	static const char *const bad[] = {
		"G", "-1", "1.5", "1X", "1 G B", "99999999999999T", "184467440737095516160", " 1G",
		"1.G", ".5G", "1e3", "1iB", "1KiBB", "1.5.5G", "17000000Ti", "1m5",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint64_t b = 0;
		if (size_of(bad[i], &b) != -1)
			fail_msg("'%s' was taken as %llu bytes", bad[i], (unsigned long long)b);
		assert_int_equal(b, 2ull << 30); /* the bad value left the default */
	}
	uint64_t b;
	assert_int_equal(egg_config_parse_size("1.5Gi", &b), 0);
	assert_int_equal(b, 3ull << 29);
}

static void
bools_and_durations_take_their_spellings(void **state)
{
	static const char *const yes[] = { "true", "yes", "on", "1", "TRUE", "Yes" };
	static const char *const no[] = { "false", "no", "off", "0", "False" };
	struct strbuf err = STRBUF_INIT;
	for (size_t i = 0; i < 11; i++) {
		int want = i < 6;
		const char *v = want ? yes[i] : no[i - 6];
		setenv("EGG_STRICT", v, 1);
		struct egg_config *cfg = egg_config_new();
		assert_int_equal(egg_config_read_env(cfg, &err), 0);
		assert_int_equal(egg_config_bool(cfg, "strict"), want);
		assert_string_equal(egg_config_get(cfg, "strict"), want ? "true" : "false");
		egg_config_free(cfg);
	}
	setenv("EGG_STRICT", "2", 1);
	struct egg_config *cfg = egg_config_new();
	assert_int_equal(egg_config_read_env(cfg, &err), -1);
	assert_string_equal(err.buf, "environment EGG_STRICT: strict must be true or false "
	                             "(or yes/no, on/off, 1/0), not '2'");
	unsetenv("EGG_STRICT");

	static const struct { const char *text; uint64_t s; } d[] = {
		{ "90", 90 }, { "90s", 90 }, { "5m", 300 }, { "1h", 3600 }, { "0", 0 },
	};
	for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
		setenv("EGG_TIMEOUT", d[i].text, 1);
		strbuf_reset(&err);
		assert_int_equal(egg_config_read_env(cfg, &err), 0);
		assert_int_equal(egg_config_seconds(cfg, "timeout"), d[i].s);
	}
	setenv("EGG_TIMEOUT", "5d", 1);
	assert_int_equal(egg_config_read_env(cfg, &err), -1);
	assert_int_equal(egg_config_seconds(cfg, "timeout"), 0); /* the last good value */
	egg_config_free(cfg);
	strbuf_release(&err);
}

static void
environment_sets_checks_and_resets(void **state)
{
	char *path = write_conf("e.conf", "mode = cache\nbackend = anthropic\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), 0);
	setenv("EGG_MODE", "VERIFY", 1);
	setenv("EGG_BACKEND", "", 1); /* empty: back to the default */
	setenv("EGG_REMOTE_STORAGE", "  http://a/c \thttp://b/c  ", 1);
	setenv("EGG_NVCC", "rel/nvcc", 1); /* relative to the working directory, as given */
	assert_int_equal(egg_config_read_env(cfg, &err), 0);
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_VERIFY);
	assert_string_equal(egg_config_get(cfg, "mode"), "verify");
	assert_origin(cfg, "mode", "environment EGG_MODE");
	assert_int_equal(egg_config_backend(cfg), EGG_BACKEND_BUILTIN);
	assert_origin(cfg, "backend", "environment EGG_BACKEND");
	assert_string_equal(egg_config_get(cfg, "nvcc"), "rel/nvcc");
	struct strvec urls = STRVEC_INIT;
	egg_config_list(cfg, "remote_storage", &urls);
	assert_int_equal(urls.n, 2);
	assert_string_equal(urls.v[0], "http://a/c");
	assert_string_equal(urls.v[1], "http://b/c");
	strvec_clear(&urls);

	setenv("EGG_MODE", "fast", 1);
	assert_int_equal(egg_config_read_env(cfg, &err), -1);
	assert_string_equal(err.buf, "environment EGG_MODE: mode must be search, cache, verify or "
	                             "off, not 'fast'");
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
options_take_dashes_bare_bools_and_suggestions(void **state)
{
	struct strvec opts = STRVEC_INIT;
	strvec_push(&opts, "--egg-max-size=1Gi");
	strvec_push(&opts, "--egg-remote_read_only");
	strvec_push(&opts, "--egg-report=r.json");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_options(cfg, &opts, &err), 0);
	assert_int_equal(egg_config_size(cfg, "max_size"), 1ull << 30);
	assert_origin(cfg, "max_size", "option --egg-max-size");
	assert_int_equal(egg_config_bool(cfg, "remote_read_only"), 1);
	assert_string_equal(egg_config_get(cfg, "report"), "r.json");

	static const struct { const char *opt, *msg; } bad[] = {
		{ "--egg-mode", "option --egg-mode: needs a value: --egg-mode=VALUE" },
		{ "--egg-mdoe=off", "option --egg-mdoe: unknown option (did you mean --egg-mode?)" },
		{ "--egg-max_szie=1", "option --egg-max_szie: unknown option (did you mean --egg-max-size?)" },
		{ "--egg-xyzzyxyzzy", "option --egg-xyzzyxyzzy: unknown option ('egg config' lists the keys)" },
		{ "--egg-mode=fast", "option --egg-mode: mode must be search, cache, verify or off, not 'fast'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		strvec_clear(&opts);
		strvec_push(&opts, bad[i].opt);
		strbuf_reset(&err);
		assert_int_equal(egg_config_read_options(cfg, &opts, &err), -1);
		assert_string_equal(err.buf, bad[i].msg);
	}
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_SEARCH);
	egg_config_free(cfg);
	strvec_clear(&opts);
	strbuf_release(&err);
}

static void
paths_expand_home_and_follow_their_file(void **state)
{
	char *path = write_conf("p/q/egg.conf", "nvcc = bin/nvcc\ncache_dir = ~/c\n"
	                                        "log_file = /abs/log\napi_key_file = ~\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_read_file(cfg, path, &err), 0);
	char *want = egg_xasprintf("%s/p/q/bin/nvcc", tmp);
	assert_string_equal(egg_config_get(cfg, "nvcc"), want);
	free(want);
	want = egg_xasprintf("%s/c", tmp);
	assert_string_equal(egg_config_get(cfg, "cache_dir"), want);
	free(want);
	assert_string_equal(egg_config_get(cfg, "log_file"), "/abs/log");
	assert_string_equal(egg_config_get(cfg, "api_key_file"), tmp);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(path);
}

static void
an_empty_value_restores_the_default_from_its_layer(void **state)
{
	char *sys = write_conf("system.conf", "max_size = 10G\nremote_storage = http://x/\n");
	char *user = write_conf("xdg/egg/egg.conf", "max_size =\nremote_storage = \"\"\n");
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_load(cfg, NULL, &err), 0);
	assert_int_equal(egg_config_size(cfg, "max_size"), 2ull << 30);
	assert_string_equal(egg_config_get(cfg, "max_size"), "2GiB");
	char *want = egg_xasprintf("%s:1", user);
	assert_origin(cfg, "max_size", want);
	free(want);
	struct strvec urls = STRVEC_INIT;
	egg_config_list(cfg, "remote_storage", &urls);
	assert_int_equal(urls.n, 0);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(sys);
	free(user);
}

static void
load_reports_an_error_in_any_layer_but_keeps_the_good_ones(void **state)
{
	char *sys = write_conf("system.conf", "nvcc = /opt/cuda/bin/nvcc\n");
	char *project = write_conf("egg.conf", "mode = cache\nmdoe = off\n");
	setenv("EGG_MAX_SIZE", "huge", 1);
	struct egg_config *cfg = egg_config_new();
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(egg_config_load(cfg, NULL, &err), -1);
	char *want = egg_xasprintf("%s:2: unknown key 'mdoe' (did you mean 'mode'?)", project);
	assert_string_equal(err.buf, want);
	free(want);
	assert_string_equal(egg_config_get(cfg, "nvcc"), "/opt/cuda/bin/nvcc");
	assert_int_equal(egg_config_mode(cfg), EGG_MODE_CACHE);
	assert_int_equal(egg_config_size(cfg, "max_size"), 2ull << 30);
	egg_config_free(cfg);
	strbuf_release(&err);
	free(sys);
	free(project);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defaults_hold_before_any_layer, setup, teardown),
		cmocka_unit_test_setup_teardown(key_table_is_complete_and_documented, setup, teardown),
		cmocka_unit_test_setup_teardown(layers_apply_in_order_with_their_origins, setup, teardown),
		cmocka_unit_test_setup_teardown(nearest_project_file_wins_and_home_default_applies, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(comments_blank_lines_and_crlf_are_understood, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(quoted_values_are_literal, setup, teardown),
		cmocka_unit_test_setup_teardown(each_error_names_file_and_line, setup, teardown),
		cmocka_unit_test_setup_teardown(nul_bytes_and_unreadable_files_are_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(only_the_first_error_is_reported_and_the_rest_applies,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(secrets_are_shown_masked, setup, teardown),
		cmocka_unit_test_setup_teardown(secrets_never_appear_in_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(a_byte_order_mark_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(sizes_take_ccaches_decimal_and_binary_suffixes, setup, teardown),
		cmocka_unit_test_setup_teardown(bools_and_durations_take_their_spellings, setup, teardown),
		cmocka_unit_test_setup_teardown(environment_sets_checks_and_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(options_take_dashes_bare_bools_and_suggestions, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(paths_expand_home_and_follow_their_file, setup, teardown),
		cmocka_unit_test_setup_teardown(an_empty_value_restores_the_default_from_its_layer, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
			load_reports_an_error_in_any_layer_but_keeps_the_good_ones, setup, teardown),
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
