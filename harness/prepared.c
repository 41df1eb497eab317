/*
 * prepared.c -- the reference's objects, compiled once per bundle and toolchain.
 *
 * ref.o (the reference), ref64.o (its float64 twin) and main.o (the test
 * program's main) of one evaluation depend only on the generated sources, the
 * files they include, nvcc, the flags and the architecture.  A search evaluates
 * the same bundle again and again (the reference's run, each model round, each
 * stage), and each time these three compiles cost ~5 s of nvcc.  So they are
 * kept under the GPU cache directory, in prepared/KEY/, where KEY is the SHA-256
 * of nvcc's path, size and mtime, the flags, the architecture and the three
 * sources.  The entry also lists every file the compiles included (nvcc -MD,
 * written while compiling) with its SHA-256, and is used only while each of
 * them still has that content: a changed header compiles again and replaces
 * the entry.  This is ccache's direct mode: no preprocessor run to look an
 * entry up (an `nvcc -M` cost half a second, hit or miss), and, as there, a
 * header included only in the device pass is not seen.
 *
 * The reference's entry point has a secret name (candidates must not call the
 * reference): for a prepared object it is derived from the cache directory's
 * salt (prepared/salt, 0600, random) and the sources, so that it is stable for
 * the object and unknown to code that cannot read the cache.
 *
 * The runtime's object (runtime.o: harness/runtime.cuh, the half of every
 * program that depends on no bundle) is kept the same way, in an entry of its
 * own keyed by nvcc, the flags, the architecture and its source
 * (prepared_begin_runtime), so that it is compiled once for all the bundles a
 * project's build evaluates; it holds no secret.
 *
 * Entries are written whole into a temporary directory and renamed into place;
 * at most PREPARED_MAX are kept (the least recently used go).  Any failure here
 * only means compiling as if nothing were kept.
 */
#include "config.h"
#include "harness/prepared.h"
#include "harness/gen.h"
#include "common/child.h"
#include "common/digest.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PREPARED_MAX 128
#define PREPARED_FILE_MAX (64u << 20)

static const char *const prepared_files[] = { "ref.o", "ref.log", "main.o", "main.log", NULL };
static const char *const prepared_f64_files[] = { "ref64.o", "ref64.log", NULL };
/* the twin compiled into ref.o (run.c, run_compile_with_twin): its mark */
static const char *const prepared_f64_mark[] = { "ref64.in-ref", NULL };
static const char *const prepared_stems[] = { "ref", "main", "ref64", NULL };
static const char *const runtime_files[] = { "runtime.o", "runtime.log", NULL };
static const char *const runtime_stems[] = { "runtime", NULL };

static void
add_field(struct strbuf *t, const char *name, const char *value)
{
	strbuf_addf(t, "%s %zu\n", name, value ? strlen(value) : 0);
	if (value)
		strbuf_addstr(t, value);
	strbuf_addch(t, '\n');
}

/* What every entry's key holds of the toolchain: nvcc (its path, size and
 * modification time), the flags and the architecture. */
static void
add_toolchain(struct strbuf *t, const char *nvcc, char *const *flags, size_t n_flags,
              const char *arch)
{
	struct stat st;
	add_field(t, "nvcc", nvcc);
	if (stat(nvcc, &st) == 0)
		strbuf_addf(t, "nvcc-id %lld %lld\n", (long long)st.st_size, (long long)st.st_mtime);
	for (size_t i = 0; i < n_flags; i++)
		add_field(t, "flag", flags[i]);
	add_field(t, "arch", arch);
}

char *
prepared_salt(const char *root)
{
	char *path = fs_join(root, "salt"), *data = NULL;
	size_t len = 0;
	if (fs_read_regular_file(path, 256, &data, &len) == 0 && len >= 32) {
		free(path);
		return data;
	}
	free(data);
	unsigned char r[32];
	FILE *u = fopen("/dev/urandom", "rb");
	int ok = u && fread(r, 1, sizeof r, u) == sizeof r;
	if (u)
		fclose(u);
	char hex[65];
	for (int i = 0; ok && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	int fd = ok ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
	if (fd >= 0) {
		ok = write(fd, hex, 64) == 64;
		close(fd);
		if (!ok)
			unlink(path);
	}
	/* lost a race with another evaluation, or wrote it: read what is there */
	data = NULL;
	if (fs_read_regular_file(path, 256, &data, &len) < 0 || len < 32) {
		free(data);
		data = NULL;
	}
	free(path);
	return data;
}

int
prepared_begin(struct prepared *p, const char *cache, const char *nvcc,
               char *const *flags, size_t n_flags, const char *arch,
               const char *ref0, const char *main0, const char *ref64_0)
{
	memset(p, 0, sizeof *p);
	p->files = prepared_files;
	p->stems = prepared_stems;
	p->min_rules = 2; /* the twin's may be missing */
	p->root = fs_join(cache, "prepared");
	if (fs_mkdir_p(p->root, 0700) < 0)
		return -1;
	char *salt = prepared_salt(p->root);
	if (!salt)
		return -1;
	struct strbuf t = STRBUF_INIT;
	strbuf_addstr(&t, "egg-prepared 2\n");
	add_toolchain(&t, nvcc, flags, n_flags, arch);
	add_field(&t, "ref", ref0);
	add_field(&t, "main", main0);
	add_field(&t, "ref64", ref64_0);
	char hex[EGG_SHA256_HEX_LEN + 1];
	egg_sha256_hex(t.buf, t.len, hex);
	p->pre_key = egg_xstrdup(hex);
	/* the entry's name: secret to whoever cannot read the salt */
	strbuf_reset(&t);
	strbuf_addf(&t, "%s\n%s\n", salt, hex);
	egg_sha256_hex(t.buf, t.len, hex);
	hex[16] = '\0';
	p->nonce = egg_xstrdup(hex);
	free(salt);
	strbuf_release(&t);
	return 0;
}

int
prepared_begin_runtime(struct prepared *p, const char *cache, const char *nvcc,
                       char *const *flags, size_t n_flags, const char *arch,
                       const char *runtime)
{
	memset(p, 0, sizeof *p);
	p->files = runtime_files;
	p->stems = runtime_stems;
	p->min_rules = 1;
	p->root = fs_join(cache, "prepared");
	if (fs_mkdir_p(p->root, 0700) < 0)
		return -1;
	struct strbuf t = STRBUF_INIT;
	strbuf_addstr(&t, "egg-prepared-runtime 1\n");
	add_toolchain(&t, nvcc, flags, n_flags, arch);
	add_field(&t, "runtime", runtime);
	char hex[EGG_SHA256_HEX_LEN + 1];
	egg_sha256_hex(t.buf, t.len, hex);
	p->pre_key = egg_xstrdup(hex);
	strbuf_release(&t);
	return 0;
}

/* The files a make rule ("target: dep dep \ ...", as nvcc -MD writes it) names. */
static void
parse_deps(const char *text, struct strvec *out)
{
	const char *s = strchr(text, ':');
	if (!s)
		return;
	s++;
	struct strbuf w = STRBUF_INIT;
	for (;; s++) {
		if (*s == '\\' && s[1] == ' ') { /* an escaped space in a path */
			strbuf_addch(&w, ' ');
			s++;
			continue;
		}
		if (*s == '\\' && (s[1] == '\n' || s[1] == '\r'))
			continue;
		if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			if (w.len)
				strvec_push(out, w.buf);
			strbuf_reset(&w);
			if (*s == '\0')
				break;
			continue;
		}
		strbuf_addch(&w, *s);
	}
	strbuf_release(&w);
}

/* The SHA-256 of the file at path into hex.  0, or -1. */
static int
hash_file(const char *path, char hex[EGG_SHA256_HEX_LEN + 1])
{
	char *data = NULL;
	size_t len = 0;
	/* (headers are often links: nvcc has read them already) */
	if (fs_read_file(path, PREPARED_FILE_MAX, &data, &len) < 0)
		return -1;
	egg_sha256_hex(data, len, hex);
	free(data);
	return 0;
}

int
prepared_lookup(struct prepared *p)
{
	p->entry = fs_join(p->root, p->pre_key);
	char *mpath = fs_join(p->entry, "deps"), *manifest = NULL;
	size_t len = 0;
	int rc = 1;
	if (fs_read_regular_file(mpath, PREPARED_FILE_MAX, &manifest, &len) < 0 || len == 0)
		rc = 0;
	/* lines "SHA256 PATH": each file must still hold what was compiled */
	for (char *l = manifest; rc == 1 && l && *l;) {
		char *e = strchr(l, '\n'), hex[EGG_SHA256_HEX_LEN + 1];
		if (!e || (size_t)(e - l) < EGG_SHA256_HEX_LEN + 2 || l[EGG_SHA256_HEX_LEN] != ' ') {
			rc = 0;
			break;
		}
		*e = '\0';
		if (hash_file(l + EGG_SHA256_HEX_LEN + 1, hex) < 0 ||
		    memcmp(hex, l, EGG_SHA256_HEX_LEN) != 0)
			rc = 0;
		l = e + 1;
	}
	free(manifest);
	free(mpath);
	for (int i = 0; rc == 1 && p->files[i]; i++) {
		char *f = fs_join(p->entry, p->files[i]);
		rc = access(f, R_OK) == 0;
		free(f);
	}
	if (rc == 0) /* stale or incomplete: compiled again and stored in its place */
		child_remove_tree(p->entry);
	return rc;
}

/* The manifest of the files that the compiles in dir included (their .d
 * files; the twin's, where it failed, has the reference's #include lines):
 * "SHA256 PATH" lines, paths made absolute.  0, or -1 (nothing can be kept). */
static int
prepared_manifest(const struct prepared *p, const char *dir, struct strbuf *out)
{
	const char *const *stems = p->stems;
	struct strvec deps = STRVEC_INIT;
	size_t dl = strlen(dir);
	int ok = 1, n_rules = 0;
	for (int i = 0; stems[i]; i++) {
		char *path = egg_xasprintf("%s/%s.d", dir, stems[i]), *rule = NULL;
		size_t len = 0;
		if (fs_read_regular_file(path, PREPARED_FILE_MAX, &rule, &len) == 0) {
			parse_deps(rule, &deps);
			n_rules++;
		}
		free(rule);
		free(path);
	}
	char cwd[4096];
	if (n_rules < p->min_rules || !getcwd(cwd, sizeof cwd))
		ok = 0;
	for (size_t i = 0; ok && i < deps.n; i++) {
		const char *f = deps.v[i];
		char hex[EGG_SHA256_HEX_LEN + 1];
		if (strncmp(f, dir, dl) == 0 && f[dl] == '/') /* our own sources: in the key */
			continue;
		if (strchr(f, '\n'))
			ok = 0;
		else if (hash_file(f, hex) == 0)
			strbuf_addf(out, "%s %s%s%s\n", hex, f[0] == '/' ? "" : cwd,
			            f[0] == '/' ? "" : "/", f);
		else if (errno != ENOENT) /* (ENOENT: a #line name, "egg-closure") */
			ok = 0;
	}
	strvec_clear(&deps);
	return ok ? 0 : -1;
}

static int
copy_file(const char *from, const char *to)
{
	char *data = NULL;
	size_t len = 0;
	if (fs_read_regular_file(from, PREPARED_FILE_MAX, &data, &len) < 0)
		return -1;
	FILE *f = fopen(to, "wb");
	int ok = f && fwrite(data, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = 0;
	free(data);
	return ok ? 0 : -1;
}

/* Copies each of names from directory from to directory to.  0, or -1. */
static int
copy_files(const char *from, const char *to, const char *const *names)
{
	for (int i = 0; names[i]; i++) {
		char *a = fs_join(from, names[i]), *b = fs_join(to, names[i]);
		int rc = copy_file(a, b);
		free(a);
		free(b);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
prepared_fetch(struct prepared *p, const char *dir, int *have_f64)
{
	if (copy_files(p->entry, dir, p->files) < 0)
		return -1;
	if (have_f64) {
		char *obj = fs_join(p->entry, "ref64.o"), *mark = fs_join(p->entry, prepared_f64_mark[0]);
		*have_f64 = access(obj, R_OK) == 0 ? PREPARED_F64_OBJECT
		            : access(mark, R_OK) == 0 ? PREPARED_F64_IN_REF : PREPARED_F64_NONE;
		free(obj);
		free(mark);
		if (*have_f64 != PREPARED_F64_NONE &&
		    copy_files(p->entry, dir, *have_f64 == PREPARED_F64_OBJECT ? prepared_f64_files
		                                                               : prepared_f64_mark) < 0)
			return -1;
	}
	/* the entry was used: the least recently used go first */
	utimes(p->entry, NULL);
	return 0;
}

struct aged {
	char *path;
	time_t mtime;
};

static int
by_age(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;
	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Keeps the newest PREPARED_MAX entries. */
static void
prepared_prune(const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		return;
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strlen(e->d_name) != EGG_SHA256_HEX_LEN)
			continue;
		char *path = fs_join(root, e->d_name);
		struct stat st;
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		if (n == cap)
			v = egg_xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
		v[n].path = path;
		v[n++].mtime = st.st_mtime;
	}
	closedir(d);
	if (n > PREPARED_MAX) {
		qsort(v, n, sizeof *v, by_age);
		for (size_t i = 0; i < n - PREPARED_MAX; i++)
			child_remove_tree(v[i].path);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void
prepared_store(struct prepared *p, const char *dir, int have_f64)
{
	if (!p->entry)
		return;
	char *tmp = egg_xasprintf("%s/tmp.XXXXXX", p->root);
	if (!mkdtemp(tmp)) {
		free(tmp);
		return;
	}
	struct strbuf m = STRBUF_INIT;
	char *mpath = fs_join(tmp, "deps");
	int ok = prepared_manifest(p, dir, &m) == 0 && fs_write_atomic(mpath, m.buf, m.len) == 0 &&
	         copy_files(dir, tmp, p->files) == 0 &&
	         (have_f64 == PREPARED_F64_NONE ||
	          copy_files(dir, tmp, have_f64 == PREPARED_F64_OBJECT ? prepared_f64_files
	                                                               : prepared_f64_mark) == 0);
	free(mpath);
	strbuf_release(&m);
	if (ok && rename(tmp, p->entry) == 0) {
		free(tmp);
		prepared_prune(p->root);
		return;
	}
	child_remove_tree(tmp); /* a failure, or another evaluation stored it first */
	free(tmp);
}

void
prepared_release(struct prepared *p)
{
	free(p->root);
	free(p->pre_key);
	free(p->nonce);
	free(p->entry);
	memset(p, 0, sizeof *p);
}
