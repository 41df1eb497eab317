/*
 * screen_unit.c -- both screens of a candidate, in the order they are cheap
 * (screen.h: screen_candidate_unit).
 *
 * The lexer screen (screen.c) reads the candidate's text alone and refuses
 * spellings; the allowlist screen (analyzer/screen.c) parses the unit the
 * harness compiles, the bundle's includes and closure around the candidate,
 * and refuses what the candidate's host code resolves to.  Both run on every
 * candidate before it compiles and on every cached winner before it is linked.
 */
#include "config.h"
#include "harness/screen.h"
#include "harness/gen.h"
#include "harness/prepared.h"
#include "harness/run_int.h"
#include "analyzer/analyzer.h"
#include "common/digest.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The screens' rules: raise it when either screen changes what it allows, so
 * that remembered passes (screen_winner_unit) are not trusted across it. */
#define SCREEN_RULES 1

/* nvcc's spellings of the preprocessor flags, and clang's. */
static const struct {
	const char *nvcc, *clang;
	int list; /* nvcc takes a comma-separated list */
} pp_flags[] = {
	{ "-I", "-I", 1 },           { "--include-path", "-I", 1 },
	{ "-isystem", "-isystem", 1 }, { "--system-include", "-isystem", 1 },
	{ "-D", "-D", 0 },           { "--define-macro", "-D", 0 },
	{ "-U", "-U", 0 },           { "--undefine-macro", "-U", 0 },
	{ "-include", "-include", 1 }, { "--pre-include", "-include", 1 },
	{ "-std", "-std=", 0 },      { "--std", "-std=", 0 },
};

static void
push_flag(struct strvec *out, const char *clang, const char *value, int list)
{
	int separate = clang[strlen(clang) - 1] != '=' && clang[1] != 'I' && clang[1] != 'D' &&
	               clang[1] != 'U';
	do {
		const char *comma = list ? strchr(value, ',') : NULL;
		size_t n = comma ? (size_t)(comma - value) : strlen(value);
		if (n) {
			if (separate) {
				strvec_push(out, clang);
				strvec_push_owned(out, egg_xstrndup(value, n));
			} else {
				strvec_push_owned(out, egg_xasprintf("%s%.*s", clang, (int)n, value));
			}
		}
		value = comma ? comma + 1 : NULL;
	} while (value);
}

void
screen_clang_args(char *const *flags, size_t n, struct strvec *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *f = flags[i];
		for (size_t k = 0; k < sizeof pp_flags / sizeof *pp_flags; k++) {
			size_t len = strlen(pp_flags[k].nvcc);
			if (strncmp(f, pp_flags[k].nvcc, len) != 0)
				continue;
			const char *v = f + len;
			if (*v == '=')
				v++;
			else if (*v == '\0' && i + 1 < n)
				v = flags[++i];
			else if (pp_flags[k].nvcc[1] == '-' || len > 2)
				continue; /* --include-pathX, -includeX: another option */
			push_flag(out, pp_flags[k].clang, v, pp_flags[k].list);
			break;
		}
	}
}

/* The unit the allowlist screen parses: what nvcc's cuda_runtime.h declares on
 * the host side besides (its crt/common_functions.h), which the analyzer's
 * host parse leaves out, then the unit the harness compiles. */
static int
screen_unit_text(const struct egg_bundle *b, const char *src, struct strbuf *out, struct strbuf *err)
{
	strbuf_addstr(out, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	              "#include <time.h>\n#include <new>\n");
	return gen_unit(b, src, GEN_CAND_ENTRY, out, err);
}

static int
screen_text(const struct egg_bundle *b, const char *src, const struct strbuf *unit,
            const char *const *clang_args, struct strbuf *why)
{
	if (screen_candidate(src, b->includes, b->n_includes, why) < 0)
		return -1;
	struct strbuf err = STRBUF_INIT;
	int rc = analyzer_screen_unit(unit->buf, unit->len, clang_args, &err);
	if (rc == -2)
		strbuf_addf(why, "the candidate could not be screened: %s", err.buf);
	else if (rc != 0)
		strbuf_add(why, err.buf, err.len);
	strbuf_release(&err);
	return rc < 0 ? -1 : rc;
}

int
screen_candidate_unit(const struct egg_bundle *b, const char *src, const char *const *clang_args,
                      struct strbuf *why)
{
	struct strbuf unit = STRBUF_INIT, err = STRBUF_INIT;
	int rc = screen_unit_text(b, src, &unit, &err);
	if (rc < 0)
		strbuf_addf(why, "the candidate could not be screened: %s", err.buf);
	else
		rc = screen_text(b, src, &unit, clang_args, why);
	strbuf_release(&unit);
	strbuf_release(&err);
	return rc;
}

/* Where a pass of this unit is remembered: GPU_CACHE/screened/NAME, NAME the
 * SHA-256 of the cache's salt and of what the verdict depends on (egg's
 * version and the screens' rules, the toolkit, the flags, the unit's text).
 * NULL when there is no salt (then nothing is remembered). */
static char *
screen_memo_path(const struct strbuf *unit, const char *const *clang_args)
{
	char *gpu = run_cache_dir(), *root = fs_join(gpu, "prepared"), *dir = fs_join(gpu, "screened");
	char *salt = fs_mkdir_p(root, 0700) == 0 && fs_mkdir_p(dir, 0700) == 0 ? prepared_salt(root) : NULL;
	char *path = NULL;
	if (salt) {
		struct strbuf t = STRBUF_INIT;
		const char *cuda = getenv("EGG_CUDA_HOME");
		strbuf_addf(&t, "egg-screened %s %d\n%s\n%s\n", PACKAGE_VERSION, SCREEN_RULES, salt,
		            cuda ? cuda : EGG_CUDA_HOME);
		for (size_t i = 0; clang_args && clang_args[i]; i++)
			strbuf_addf(&t, "%s\n", clang_args[i]);
		strbuf_add(&t, unit->buf, unit->len);
		char hex[EGG_SHA256_HEX_LEN + 1];
		egg_sha256_hex(t.buf, t.len, hex);
		path = fs_join(dir, hex);
		strbuf_release(&t);
	}
	free(salt);
	free(root);
	free(dir);
	free(gpu);
	return path;
}

int
screen_winner_unit(const struct egg_bundle *b, const char *src, const char *const *clang_args,
                   struct strbuf *why)
{
	struct strbuf unit = STRBUF_INIT, err = STRBUF_INIT;
	int rc = screen_unit_text(b, src, &unit, &err);
	if (rc < 0) {
		strbuf_addf(why, "the winner could not be screened: %s", err.buf);
		goto out;
	}
	char *memo = screen_memo_path(&unit, clang_args);
	struct stat st;
	if (memo && lstat(memo, &st) == 0 && S_ISREG(st.st_mode)) {
		rc = 0; /* passed before, exactly this */
	} else {
		rc = screen_text(b, src, &unit, clang_args, why);
		int fd = rc == 0 && memo ? open(memo, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
		if (fd >= 0)
			close(fd);
	}
	free(memo);
out:
	strbuf_release(&unit);
	strbuf_release(&err);
	return rc;
}
