/*
 * test_cache_key.c -- the cache key (same inputs same key, every input changes
 * it, paths and positions do not) and entries (round trip, checksum, tamper,
 * truncation, signatures).
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cache/entry.h"
#include "cache/key.h"
#include "common/util.h"
#include "common/digest.h"

#include <stdlib.h>
#include <string.h>

static struct egg_bundle *
sample_bundle(void)
{
	struct egg_bundle *b = egg_xcalloc(1, sizeof *b);
	b->name = egg_xstrdup("scale");
	b->kind = BUNDLE_LAUNCHER;
	b->signature = egg_xstrdup("void scale(const float *x, float *y, int n)");
	b->n_params = 3;
	b->params = egg_xcalloc(3, sizeof *b->params);
	b->params[0] = (struct bundle_param){ egg_xstrdup("x"), egg_xstrdup("const float *"),
		egg_xstrdup("float"), 1, 1, ROLE_IN, egg_xstrdup("n"), NULL, NULL };
	b->params[1] = (struct bundle_param){ egg_xstrdup("y"), egg_xstrdup("float *"),
		egg_xstrdup("float"), 1, 0, ROLE_OUT, egg_xstrdup("n"), NULL, NULL };
	b->params[2] = (struct bundle_param){ egg_xstrdup("n"), egg_xstrdup("int"),
		egg_xstrdup("int"), 0, 0, ROLE_SCALAR, NULL, NULL, NULL };
	b->n_workloads = 1;
	b->workloads = egg_xcalloc(1, sizeof *b->workloads);
	b->workloads[0].n_bindings = 1;
	b->workloads[0].bindings = egg_xcalloc(1, sizeof(struct bundle_binding));
	b->workloads[0].bindings[0].name = egg_xstrdup("n");
	b->workloads[0].bindings[0].value = egg_xstrdup("1 << 20");
	b->pragma = egg_xstrdup("in(x[n]) out(y[n]) workload(n = 1 << 20)");
	b->file = egg_xstrdup("/home/a/src/scale.cu");
	b->line = 10;
	b->column = 1;
	b->canonical = egg_xstrdup("__global__ void k(const float *x, float *y, int n)\n{\n}\n"
				   "void scale(const float *x, float *y, int n)\n{\n}\n");
	return b;
}

static const char *const base_flags[] = { "-O3", "-arch=sm_90", "-std=c++17" };

static struct cache_key_inputs
sample_inputs(struct egg_bundle *b)
{
	struct cache_key_inputs in = {
		b, "sm_90", "13.0", base_flags, 3,
	};
	return in;
}

static void
key_of(const struct cache_key_inputs *in, char hex[65])
{
	cache_key_compute(in, hex);
	assert_true(cache_key_is_valid(hex));
}

static void
same_inputs_give_the_same_key(void **state)
{
	struct egg_bundle *b1 = sample_bundle(), *b2 = sample_bundle();
	struct cache_key_inputs i1 = sample_inputs(b1), i2 = sample_inputs(b2);
	char k1[65], k2[65];
	key_of(&i1, k1);
	key_of(&i2, k2);
	assert_string_equal(k1, k2);
	bundle_free(b1);
	bundle_free(b2);
}

static void
paths_positions_and_pragma_spelling_do_not_change_the_key(void **state)
{
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	char k1[65], k2[65];
	key_of(&in, k1);
	free(b->file);
	b->file = egg_xstrdup("/tmp/other/checkout/scale.cu");
	b->line = 999;
	b->column = 7;
	free(b->pragma);
	b->pragma = egg_xstrdup("in(x[n])   out(y[n])  workload(n=1 << 20)");
	key_of(&in, k2);
	assert_string_equal(k1, k2);
	struct strbuf text = STRBUF_INIT;
	cache_key_text(&in, &text);
	assert_null(strstr(text.buf, "checkout"));
	assert_null(strstr(text.buf, "999"));
	strbuf_release(&text);
	bundle_free(b);
}

/* Each mutation of one input must change the key. */
static void
every_input_changes_the_key(void **state)
{
	char base[65], k[65];
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	key_of(&in, base);
	int n = 0;
#define CHANGED()                                                                         \
	do {                                                                              \
		key_of(&in, k);                                                           \
		assert_string_not_equal(base, k);                                         \
		bundle_free(b);                                                           \
		b = sample_bundle();                                                      \
		in = sample_inputs(b);                                                    \
		n++;                                                                      \
	} while (0)
	b->canonical[0] = '_' + 1; CHANGED();
	free(b->canonical); b->canonical = egg_xstrdup("x"); CHANGED();
	b->kind = BUNDLE_KERNEL; CHANGED();
	b->extern_c = 1; CHANGED();
	b->is_static = 1; CHANGED();
	b->params[0].role = ROLE_INOUT; CHANGED();
	free(b->params[0].extent); b->params[0].extent = egg_xstrdup("n + 1"); CHANGED();
	b->params[0].range_lo = egg_xstrdup("0"); b->params[0].range_hi = egg_xstrdup("n"); CHANGED();
	free(b->params[2].type); b->params[2].type = egg_xstrdup("long"); CHANGED();
	free(b->workloads[0].bindings[0].value);
	b->workloads[0].bindings[0].value = egg_xstrdup("4096"); CHANGED();
	b->rtol = egg_xstrdup("1e-3"); CHANGED();
	b->atol = egg_xstrdup("1e-3"); CHANGED();
	b->precision = PRECISION_BF16; CHANGED();
	b->launch_grid = egg_xstrdup("n / 256"); b->launch_block = egg_xstrdup("256"); CHANGED();
	b->n_includes = 1; b->includes = egg_xcalloc(1, sizeof(char *));
	b->includes[0] = egg_xstrdup("<cuda_fp16.h>"); CHANGED();
	in.arch = "sm_80"; CHANGED();
	in.nvcc_version = "12.4"; CHANGED();
	in.n_flags = 2; CHANGED();
	static const char *const fast[] = { "-O3", "-arch=sm_90", "-std=c++17", "-use_fast_math" };
	in.flags = fast; in.n_flags = 4; CHANGED();
	static const char *const ptx_only[] = { "-O3", "-arch=compute_90", "-std=c++17" };
	in.flags = ptx_only; in.n_flags = 3; CHANGED();
	static const char *const other_sm[] = { "-O3", "-gencode=arch=compute_80,code=sm_80", "-std=c++17" };
	in.flags = other_sm; in.n_flags = 3; CHANGED();
	static const char *const debug[] = { "-O3", "-arch=sm_90", "-std=c++17", "-G" };
	in.flags = debug; in.n_flags = 4; CHANGED();
	static const char *const regs[] = { "-O3", "-arch=sm_90", "-std=c++17", "-G", "-maxrregcount=64" };
	in.flags = regs; in.n_flags = 5; CHANGED();
#undef CHANGED
	assert_int_equal(n, 23);
	bundle_free(b);
}

/* workload(..., x = NULL) calls the function without x: a key of its own,
 * whatever the spelling of the null pointer, written NAME=<null> (the key text
 * is the contract: before this meaning, such a binding was a clause-local
 * name written with its value, and an entry checked only with x present
 * must not answer for it). */
static void
a_pointer_a_workload_leaves_null_is_keyed_by_meaning(void **state)
{
	char none[65], null[65], nullptr_[65];
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	key_of(&in, none);
	struct bundle_workload *w = &b->workloads[0];
	w->bindings = egg_xrealloc(w->bindings, 2 * sizeof *w->bindings);
	w->bindings[1] = (struct bundle_binding){ egg_xstrdup("x"), egg_xstrdup("NULL") };
	w->n_bindings = 2;
	key_of(&in, null);
	assert_string_not_equal(none, null);
	struct strbuf text = STRBUF_INIT;
	cache_key_text(&in, &text);
	assert_non_null(strstr(text.buf, "\nworkload: n=1 << 20 x=<null>\n"));
	strbuf_release(&text);
	free(w->bindings[1].value);
	w->bindings[1].value = egg_xstrdup("nullptr");
	key_of(&in, nullptr_);
	assert_string_equal(null, nullptr_);
	bundle_free(b);
}

static void
flag_order_does_not_matter_but_the_last_value_wins(void **state)
{
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	static const char *const a[] = { "-O3", "-DN=4", "--ftz=true", "-arch=sm_90" };
	static const char *const r[] = { "-arch=sm_90", "--ftz=true", "-DN=4", "-O3" };
	static const char *const over[] = { "-O1", "-DN=2", "--ftz=false", "-arch=sm_90",
					    "-O3", "-DN=4", "--ftz=true" };
	static const char *const undef[] = { "-O3", "-DN=4", "--ftz=true", "-arch=sm_90", "-UN" };
	char ka[65], kr[65], ko[65], ku[65];
	in.flags = a; in.n_flags = 4; key_of(&in, ka);
	in.flags = r; in.n_flags = 4; key_of(&in, kr);
	in.flags = over; in.n_flags = 7; key_of(&in, ko);
	in.flags = undef; in.n_flags = 5; key_of(&in, ku);
	assert_string_equal(ka, kr);
	assert_string_equal(ka, ko);
	assert_string_not_equal(ka, ku);
	/* one option whatever the dashes: a later -ftz overrides --ftz */
	static const char *const dashes[] = { "-O3", "-DN=4", "--ftz=false", "-arch=sm_90", "-ftz=true" };
	struct strbuf text = STRBUF_INIT;
	in.flags = dashes; in.n_flags = 5;
	cache_key_text(&in, &text);
	assert_non_null(strstr(text.buf, "\nflag: -ftz=true\n"));
	assert_null(strstr(text.buf, "ftz=false"));
	strbuf_release(&text);
	bundle_free(b);
}

/* Options the key does not know may accumulate or depend on order: they are
 * all kept, in order, so that two different builds never share a key. */
static void
unknown_flags_keep_every_occurrence_in_order(void **state)
{
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	static const char *const one[] = { "-O3", "-Xptxas=-O1", "-Xptxas=-O3" };
	static const char *const swapped[] = { "-O3", "-Xptxas=-O3", "-Xptxas=-O1" };
	static const char *const single[] = { "-O3", "-Xptxas=-O3" };
	static const char *const moved[] = { "-Xptxas=-O1", "-Xptxas=-O3", "-O3" };
	char k1[65], k2[65], k3[65], k4[65];
	in.flags = one; in.n_flags = 3; key_of(&in, k1);
	in.flags = swapped; in.n_flags = 3; key_of(&in, k2);
	in.flags = single; in.n_flags = 2; key_of(&in, k3);
	in.flags = moved; in.n_flags = 3; key_of(&in, k4);
	assert_string_not_equal(k1, k2);
	assert_string_not_equal(k1, k3);
	assert_string_equal(k1, k4); /* -O3 (host code only) is not in the key */
	struct strbuf text = STRBUF_INIT;
	in.flags = one; in.n_flags = 3;
	cache_key_text(&in, &text);
	assert_non_null(strstr(text.buf, "\nflag: -Xptxas=-O1\nflag: -Xptxas=-O3\n"));
	strbuf_release(&text);
	bundle_free(b);
}

/* The spellings of one set of code targets that nvcc, CMake and Makefiles use,
 * and the host-only -O, give one key: a CMake build and a Make build of the
 * same code share entries. */
static void
arch_spellings_and_host_optimization_share_one_key(void **state)
{
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	static const char *const forms[][4] = {
		{ "-arch=sm_90", NULL },
		{ "-O3", "-arch=sm_90", NULL },
		{ "-arch=compute_90", "-code=sm_90,compute_90", "-O2", NULL },
		{ "--gpu-architecture=compute_90", "--gpu-code=compute_90,sm_90", NULL },
		{ "-gencode=arch=compute_90,code=[sm_90,compute_90]", NULL },
		{ "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-O0", NULL },
		{ "-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_90,code=compute_90", NULL },
		{ "-gencode=arch=compute_90,code=\"compute_90,sm_90\"", NULL },
	};
	char first[65], k[65];
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		size_t n = 0;
		while (forms[i][n])
			n++;
		in.flags = forms[i];
		in.n_flags = n;
		key_of(&in, i ? k : first);
		if (i && strcmp(k, first) != 0) {
			struct strbuf text = STRBUF_INIT;
			cache_key_text(&in, &text);
			fail_msg("form %zu gives another key:\n%s", i, text.buf);
		}
	}
	/* and what does change device code still changes the key */
	static const char *const sm_only[] = { "-gencode=arch=compute_90,code=sm_90" };
	static const char *const two[] = { "-arch=sm_90", "-gencode=arch=compute_80,code=sm_80" };
	static const char *const ptxas[] = { "-arch=sm_90", "-Xptxas=-O1" };
	const char *const *other[] = { sm_only, two, ptxas };
	size_t other_n[] = { 1, 2, 2 };
	for (size_t i = 0; i < 3; i++) {
		in.flags = other[i];
		in.n_flags = other_n[i];
		key_of(&in, k);
		assert_string_not_equal(k, first);
	}
	bundle_free(b);
}

static void
key_text_is_line_per_input_and_versioned(void **state)
{
	struct egg_bundle *b = sample_bundle();
	struct cache_key_inputs in = sample_inputs(b);
	struct strbuf text = STRBUF_INIT;
	cache_key_text(&in, &text);
	assert_true(egg_str_starts(text.buf, "egg-cache-key: 2\nkind: launcher\n"));
	assert_non_null(strstr(text.buf, "\nparam: x role=in type=const float * elem=float extent=n range=-..-\n"));
	assert_non_null(strstr(text.buf, "\nworkload: n=1 << 20\n"));
	assert_non_null(strstr(text.buf, "\narch: sm_90\nnvcc: 13.0\ntarget: compute_90 compute_90\n"
	                                 "target: compute_90 sm_90\nflag: -std=c++17\n"));
	assert_null(strstr(text.buf, "generator")); /* stored in the entry, not in the key */
	assert_non_null(strstr(text.buf, "\ncanonical: 6 lines\n| __global__ void k"));
	char hex[65], direct[65];
	cache_key_compute(&in, hex);
	egg_sha256_hex(text.buf, text.len, direct);
	assert_string_equal(hex, direct);
	strbuf_release(&text);
	bundle_free(b);
}

static void
sha256_and_hmac_match_known_vectors(void **state)
{
	char hex[65];
	egg_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* RFC 4231 test case 2 */
	egg_hmac_sha256_hex("Jefe", "what do ya want for nothing?", 28, hex);
	assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	assert_false(cache_key_is_valid("abc"));
	assert_false(cache_key_is_valid("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
}

/* ---- entries ---- */

static const char *const KEY = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

static struct cache_entry *
sample_entry(void)
{
	struct cache_entry *e = cache_entry_new(KEY);
	cache_entry_set_name(e, "scale");
	cache_entry_set_source(e, "void scale(const float *x, float *y, int n)\n{\n\t/* \"fast\" */\n}\n");
	struct cache_generator g = { "builtin", NULL, "1" };
	cache_entry_set_generator(e, &g);
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(cache_entry_set_result(e, "{\"speedup\": 3.25, \"time_ms\": 0.1, \"gpu\": \"H100\"}", &err), 0);
	assert_int_equal(cache_entry_set_transcript(e, "[{\"stage\": 1, \"note\": \"ünïcode\"}]", &err), 0);
	strbuf_release(&err);
	return e;
}

static struct cache_entry *
parse(const char *data, const char *key, const char *secret, struct strbuf *err)
{
	return cache_entry_parse(data, strlen(data), key, secret, err);
}

static void
entry_round_trips_through_its_stored_form(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT, r1 = STRBUF_INIT, r2 = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &data);
	assert_non_null(strchr(data.buf, '\n'));
	assert_ptr_equal(strchr(data.buf, '\n'), data.buf + data.len - 1); /* one line */
	struct cache_entry *back = parse(data.buf, KEY, NULL, &err);
	assert_non_null(back);
	assert_string_equal(cache_entry_source(back), cache_entry_source(e));
	assert_string_equal(cache_entry_name(back), "scale");
	assert_false(cache_entry_is_negative(back));
	assert_false(cache_entry_is_signed(back));
	assert_string_equal(cache_entry_generator_field(back, "backend"), "builtin");
	assert_null(cache_entry_generator_field(back, "model"));
	cache_entry_result_json(e, 0, &r1);
	cache_entry_result_json(back, 0, &r2);
	assert_string_equal(r1.buf, r2.buf);
	struct strbuf again = STRBUF_INIT;
	cache_entry_serialize(back, NULL, &again);
	assert_string_equal(again.buf, data.buf);
	strbuf_release(&again);
	strbuf_release(&r1);
	strbuf_release(&r2);
	strbuf_release(&data);
	strbuf_release(&err);
	cache_entry_free(back);
	cache_entry_free(e);
}

/* A winner an older generator found, searched again by newer ones that found
 * nothing faster: the marks survive the stored form and name exactly those
 * generators; an entry without marks is stored byte for byte as before. */
static void
checked_marks_round_trip_and_name_their_generators(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf plain = STRBUF_INIT, data = STRBUF_INIT, again = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &plain);
	assert_null(strstr(plain.buf, "\"checked\""));
	struct cache_generator old = { "builtin", NULL, "1" }, b17 = { "builtin", NULL, "builtin-17" },
	                       model = { "openai", "m", "prompts-3" }, other = { "openai", "n", "prompts-3" };
	assert_true(cache_entry_is_from(e, &old));
	assert_false(cache_entry_is_from(e, &b17));
	assert_false(cache_entry_was_checked_by(e, &b17));
	cache_entry_add_checked(e, &b17);
	cache_entry_add_checked(e, &model);
	cache_entry_add_checked(e, &b17); /* once only */
	cache_entry_serialize(e, "s3cret", &data);
	struct cache_entry *back = parse(data.buf, KEY, "s3cret", &err);
	assert_non_null(back);
	assert_true(cache_entry_was_checked_by(back, &b17));
	assert_true(cache_entry_was_checked_by(back, &model));
	assert_false(cache_entry_was_checked_by(back, &other));
	assert_false(cache_entry_was_checked_by(back, &old));
	assert_true(cache_entry_is_from(back, &old)); /* the winner's author is unchanged */
	cache_entry_serialize(back, "s3cret", &again);
	assert_string_equal(again.buf, data.buf);
	/* a mark that is not a list of generators is refused, checksum or not */
	cache_entry_free(back);
	static const char canon[] =
		"{\"schema\":\"egg-cache-entry\",\"version\":1,\"key\":\"ba7816bf8f01cfea414140de5dae2223b00361a"
		"396177a9cb410ff61f20015ad\",\"name\":null,\"outcome\":\"negative\",\"source\":null,"
		"\"result\":{},\"transcript\":[],\"generator\":{\"backend\":\"builtin\",\"model\":null,"
		"\"recipe\":\"1\"},\"checked\":[3]}";
	char hex[65];
	egg_sha256_hex(canon, strlen(canon), hex);
	char *bad = egg_xasprintf("%.*s,\"checksum\":\"%s\"}", (int)strlen(canon) - 1, canon, hex);
	strbuf_reset(&err);
	back = parse(bad, KEY, NULL, &err);
	assert_null(back);
	assert_non_null(strstr(err.buf, "checked"));
	free(bad);
	strbuf_release(&plain);
	strbuf_release(&data);
	strbuf_release(&again);
	strbuf_release(&err);
	cache_entry_free(e);
}

static void
negative_entry_has_no_source(void **state)
{
	struct cache_entry *e = sample_entry();
	cache_entry_set_negative(e);
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &data);
	assert_non_null(strstr(data.buf, "\"outcome\":\"negative\""));
	struct cache_entry *back = parse(data.buf, KEY, NULL, &err);
	assert_non_null(back);
	assert_true(cache_entry_is_negative(back));
	assert_null(cache_entry_source(back));
	cache_entry_free(back);
	cache_entry_free(e);
	strbuf_release(&data);
	strbuf_release(&err);
}

static void
altered_entry_fails_its_checksum(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &data);
	char *p = strstr(data.buf, "3.25");
	assert_non_null(p);
	p[0] = '9';
	assert_null(parse(data.buf, KEY, NULL, &err));
	assert_non_null(strstr(err.buf, "checksum"));
	cache_entry_free(e);
	strbuf_release(&data);
	strbuf_release(&err);
}

static void
every_truncation_is_refused(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf data = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &data);
	size_t full = data.len - 1; /* without the newline */
	for (size_t n = 0; n < full; n++) {
		struct strbuf err = STRBUF_INIT;
		struct cache_entry *t = cache_entry_parse(data.buf, n, KEY, NULL, &err);
		if (t)
			fail_msg("a %zu-byte prefix of a %zu-byte entry was accepted", n, full);
		assert_true(err.len > 0);
		strbuf_release(&err);
	}
	cache_entry_free(e);
	strbuf_release(&data);
}

static void
entry_under_another_key_is_refused(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &data);
	char other[65];
	egg_sha256_hex("other", 5, other);
	assert_null(parse(data.buf, other, NULL, &err));
	assert_non_null(strstr(err.buf, "not the key"));
	cache_entry_free(e);
	strbuf_release(&data);
	strbuf_release(&err);
}

static void
signature_is_required_and_checked_under_a_secret(void **state)
{
	struct cache_entry *e = sample_entry();
	struct strbuf plain = STRBUF_INIT, sig = STRBUF_INIT, err = STRBUF_INIT;
	cache_entry_serialize(e, NULL, &plain);
	cache_entry_serialize(e, "s3cret", &sig);
	struct cache_entry *ok = parse(sig.buf, KEY, "s3cret", &err);
	assert_non_null(ok);
	assert_true(cache_entry_is_signed(ok));
	cache_entry_free(ok);
	assert_null(parse(plain.buf, KEY, "s3cret", &err));
	assert_non_null(strstr(err.buf, "not signed"));
	strbuf_reset(&err);
	assert_null(parse(sig.buf, KEY, "other", &err));
	assert_non_null(strstr(err.buf, "signature is wrong"));
	/* a signed entry reads fine where no secret is configured */
	ok = parse(sig.buf, KEY, NULL, &err);
	assert_non_null(ok);
	cache_entry_free(ok);
	cache_entry_free(e);
	strbuf_release(&plain);
	strbuf_release(&sig);
	strbuf_release(&err);
}

/* The checksum covers the bytes as written: another printer's spelling of the
 * same numbers verifies, and a "checksum" member inside the result does not
 * confuse the reader. */
static void
checksum_covers_the_bytes_as_another_printer_wrote_them(void **state)
{
	struct strbuf doc = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addf(&doc, "{\"schema\":\"egg-cache-entry\",\"version\":1.0,\"key\":\"%s\","
		    "\"name\":null,\"outcome\":\"winner\",\"source\":\"int x;\","
		    "\"result\":{\"speedup\":2.50,\"checksum\":\"not ours\"},\"transcript\":[],"
		    "\"generator\":{\"backend\":\"builtin\",\"model\":null,\"recipe\":\"1\"}}", KEY);
	char hex[65], sig[65];
	egg_sha256_hex(doc.buf, doc.len, hex);
	egg_hmac_sha256_hex("k", doc.buf, doc.len, sig);
	doc.buf[--doc.len] = '\0'; /* drop the closing brace */
	strbuf_addf(&doc, ",\"checksum\":\"%s\",\"signature\":\"%s\"}\n", hex, sig);
	struct cache_entry *e = parse(doc.buf, KEY, "k", &err);
	if (!e)
		fail_msg("refused: %s", err.buf);
	assert_string_equal(cache_entry_source(e), "int x;");
	assert_true(cache_entry_is_signed(e));
	cache_entry_free(e);
	/* a seal that is not last is not where a writer puts it */
	char *moved = egg_xasprintf("%.*s,\"name2\":1}", (int)(doc.len - 2), doc.buf);
	assert_null(parse(moved, KEY, NULL, &err));
	free(moved);
	strbuf_release(&doc);
	strbuf_release(&err);
}

static void
result_must_be_a_json_object(void **state)
{
	struct cache_entry *e = cache_entry_new(KEY);
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(cache_entry_set_result(e, "[1,2]", &err), -1);
	assert_int_equal(cache_entry_set_result(e, "{\"a\":", &err), -1);
	assert_non_null(strstr(err.buf, "not a JSON object"));
	cache_entry_free(e);
	strbuf_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_inputs_give_the_same_key),
		cmocka_unit_test(paths_positions_and_pragma_spelling_do_not_change_the_key),
		cmocka_unit_test(every_input_changes_the_key),
		cmocka_unit_test(a_pointer_a_workload_leaves_null_is_keyed_by_meaning),
		cmocka_unit_test(flag_order_does_not_matter_but_the_last_value_wins),
		cmocka_unit_test(unknown_flags_keep_every_occurrence_in_order),
		cmocka_unit_test(arch_spellings_and_host_optimization_share_one_key),
		cmocka_unit_test(key_text_is_line_per_input_and_versioned),
		cmocka_unit_test(sha256_and_hmac_match_known_vectors),
		cmocka_unit_test(entry_round_trips_through_its_stored_form),
		cmocka_unit_test(checked_marks_round_trip_and_name_their_generators),
		cmocka_unit_test(negative_entry_has_no_source),
		cmocka_unit_test(altered_entry_fails_its_checksum),
		cmocka_unit_test(every_truncation_is_refused),
		cmocka_unit_test(entry_under_another_key_is_refused),
		cmocka_unit_test(signature_is_required_and_checked_under_a_secret),
		cmocka_unit_test(checksum_covers_the_bytes_as_another_printer_wrote_them),
		cmocka_unit_test(result_must_be_a_json_object),
	};
	return cmocka_run_group_tests_name("cache_key", tests, NULL, NULL);
}
