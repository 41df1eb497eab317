/*
 * test_agents.c -- the staged search without a server or a GPU: reading model
 * output (fences, several blocks, none, JSON in prose or cut off, a wrong
 * signature), tunable parameters, prompts kept under their budget, the prompt
 * files.  The searches themselves are in test_agents_search.c.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "agents/context.h"
#include "agents/extract.h"
#include "agents/prompts.h"
#include "agents/tune.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct egg_bundle *
load_bundle(const char *file)
{
	const char *src = getenv("EGG_SRCDIR");
	char *path = egg_xasprintf("%s/tests/data/builtin/%s", src ? src : ".", file);
	char *text;
	size_t len;
	assert_int_equal(fs_read_file(path, 0, &text, &len), 0);
	struct strbuf err = STRBUF_INIT;
	struct egg_bundle *b = bundle_from_json(text, &err);
	assert_non_null(b);
	free(text);
	free(path);
	strbuf_release(&err);
	return b;
}

static char *
prompts_dir(void)
{
	const char *src = getenv("EGG_SRCDIR");
	return egg_xasprintf("%s/prompts", src ? src : ".");
}

/* ---- extract ---- */

#define TARGET "void softmax_forward(const float *x, float *y, int rows, int cols)\n{\n" \
	"\tegg_softmax_forward_k<<<rows, 256>>>(x, y, rows, cols);\n}\n"
#define HELPER "__global__ void egg_softmax_forward_k(const float *x, float *y, int rows, int cols)\n" \
	"{ (void)x; (void)y; (void)rows; (void)cols; }\n"

static void
test_extract_picks_the_fenced_block_whatever_its_tag(void **state)
{
	(void)state;
	const char *tags[] = { "cuda", "cpp", "c++", "" };
	for (size_t i = 0; i < 4; i++) {
		char *answer = egg_xasprintf("Structure: one block per row.\n\n```%s\n" HELPER TARGET "```\n"
		                             "That should be fast.\n", tags[i]);
		struct strbuf why = STRBUF_INIT;
		char *code = extract_code(answer, "softmax_forward", &why);
		assert_non_null(code);
		assert_string_equal(code, HELPER TARGET);
		free(code);
		free(answer);
		strbuf_release(&why);
	}
}

static void
test_extract_joins_helper_blocks_and_drops_unrelated_ones(void **state)
{
	(void)state;
	const char *answer = "First the kernel:\n```cuda\n" HELPER "```\n"
		"An example of use, not part of the answer:\n```cpp\nint main() { return 0; }\n```\n"
		"And the launcher:\n```cuda\n" TARGET "```\n";
	struct strbuf why = STRBUF_INIT;
	char *code = extract_code(answer, "softmax_forward", &why);
	assert_non_null(code);
	assert_string_equal(code, HELPER TARGET);
	free(code);
	strbuf_release(&why);
}

static void
test_extract_takes_the_last_block_defining_the_target(void **state)
{
	(void)state;
	const char *answer = "```cuda\nvoid softmax_forward(const float *x, float *y, int rows, int cols) { /* draft */ }\n```\n"
		"Better:\n```cuda\n" HELPER TARGET "```\n";
	struct strbuf why = STRBUF_INIT;
	char *code = extract_code(answer, "softmax_forward", &why);
	assert_non_null(code);
	assert_null(strstr(code, "draft"));
	free(code);
	strbuf_release(&why);
}

static void
test_extract_reads_code_without_fences_and_cut_off_fences(void **state)
{
	(void)state;
	struct strbuf why = STRBUF_INIT;
	char *code = extract_code("Here is the code:\n#include <cuda_runtime.h>\n" HELPER TARGET
	                          "Hope it helps.\n", "softmax_forward", &why);
	assert_non_null(code);
	assert_string_equal(code, "#include <cuda_runtime.h>\n" HELPER TARGET);
	free(code);
	code = extract_code("It's simple:\n```cuda\n" HELPER TARGET, "softmax_forward", &why);
	assert_non_null(code);
	assert_string_equal(code, HELPER TARGET);
	free(code);
	strbuf_release(&why);
}

static void
test_extract_without_a_definition_says_why(void **state)
{
	(void)state;
	const char *answers[] = { "", "I cannot do that.", "```cuda\n" HELPER "```\n",
		                  "```cuda\nvoid softmax_forward(const float *x, float *y, int rows, int cols);\n```",
		                  "// softmax_forward(x) { in a comment }\n", "```\n```\n```", "\"{'\x01" };
	for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
		struct strbuf why = STRBUF_INIT;
		assert_null(extract_code(answers[i], "softmax_forward", &why));
		assert_non_null(strstr(why.buf, "softmax_forward"));
		strbuf_release(&why);
	}
}

static void
test_signature_check_accepts_layout_linkage_and_restrict(void **state)
{
	(void)state;
	struct egg_bundle *b = load_bundle("softmax.json");
	const char *ok[] = {
		TARGET,
		"extern \"C\" static inline void\nsoftmax_forward( const float* x,float *y ,int rows,int cols ) {}",
		"void softmax_forward(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {}",
		"/* void softmax_forward(int) {} */ void softmax_forward(const float *x, float *y, int rows, int cols) {}",
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(extract_check_signature(ok[i], b, &why), 0);
		strbuf_release(&why);
	}
	bundle_free(b);
}

static void
test_signature_check_rejects_a_changed_signature_with_both_spellings(void **state)
{
	(void)state;
	struct egg_bundle *b = load_bundle("softmax.json");
	const char *bad[] = {
		"void softmax_forward(const float4 *x, float *y, int rows, int cols) {}",
		"void softmax_forward(const float *x, float *y, int n, int cols) {}",
		"int softmax_forward(const float *x, float *y, int rows, int cols) { return 0; }",
		"void softmax_forward(const float *x, float *y, int rows) {}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(extract_check_signature(bad[i], b, &why), -1);
		assert_non_null(strstr(why.buf, "it must keep `void softmax_forward ( const float * x , float * y , int rows , int cols )`"));
		strbuf_release(&why);
	}
	bundle_free(b);
}

static void
check_feedback(const char *answer, int rc, const char *bottleneck, const char *plan)
{
	char *bn, *pl;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(extract_feedback(answer, &bn, &pl, &why), rc);
	assert_string_equal(bn, bottleneck);
	assert_string_equal(pl, plan);
	free(bn);
	free(pl);
	strbuf_release(&why);
}

static void
test_feedback_json_in_prose_fences_or_cut_off_is_recovered(void **state)
{
	(void)state;
	check_feedback("Looking at it, {\"bottleneck\": \"memory\", \"modification_plan\": \"float4\"} is my view.",
	               0, "memory", "float4");
	check_feedback("```json\n{\"bottleneck\": \"latency\",\n \"modification_plan\": [\"more loads\", \"unroll\"]}\n```",
	               0, "latency", "more loads; unroll");
	/* cut off inside the plan's string, after a key, after a comma */
	check_feedback("{\"bottleneck\": \"bandwidth at 40%\", \"modification_plan\": \"use 16-byte lo",
	               0, "bandwidth at 40%", "use 16-byte lo");
	check_feedback("{\"bottleneck\": \"registers\", \"modification_plan\":", 0, "registers", "");
	check_feedback("{\"bottleneck\": \"spills\",", 0, "spills", "");
	/* the first object is unrelated; missing fields get defaults */
	check_feedback("e.g. {\"x\": 1} then {\"modification_plan\": \"tile\"}", 0, "unknown", "tile");
	check_feedback("{\"other\": true}", 0, "unknown", "");
	check_feedback("no json here", -1, "unknown", "");
	check_feedback("{{{{[[[\"", -1, "unknown", "");
}

/* Every prefix of an answer (a reply cut anywhere by the token limit or the
 * network) and a few byte flips: the readers answer or refuse, never crash
 * (run under valgrind to see the reads stay in bounds). */
static void
test_readers_survive_every_cut_and_corruption_of_an_answer(void **state)
{
	(void)state;
	struct egg_bundle *b = load_bundle("softmax.json");
	const char *full = "Change: it's \"better\".\n```cuda\n// egg-tune: B = 1, 2\n" HELPER "```\n"
		"{\"bottleneck\": \"x [1, {2}]\", \"modification_plan\": \"y\\\"z\"}\n```cuda\n"
		"/* c */ #define K 'a'\n" TARGET "```\n";
	size_t len = strlen(full);
	int found = 0;
	for (int flip = 0; flip < 3; flip++)
		for (size_t n = 0; n <= len; n++) {
			char *cut = egg_xstrndup(full, n);
			if (flip && n > 0)
				cut[(n * 37 + 11) % n] = flip == 1 ? '{' : '`';
			struct strbuf why = STRBUF_INIT;
			char *code = extract_code(cut, "softmax_forward", &why);
			if (code) {
				found++;
				extract_check_signature(code, b, &why);
				struct strvec notes = STRVEC_INIT;
				struct tune_variant *v;
				size_t k = tune_expand(code, 4, &v, &notes);
				assert_true(k >= 1 && k <= 4);
				tune_variants_free(v, k);
				strvec_clear(&notes);
				free(code);
			} else {
				assert_true(why.len > 0);
			}
			char *bn, *pl;
			extract_feedback(cut, &bn, &pl, &why);
			assert_non_null(bn);
			assert_non_null(pl);
			free(bn);
			free(pl);
			strbuf_release(&why);
			free(cut);
		}
	assert_true(found > 0);
	bundle_free(b);
}

/* ---- tune ---- */

static void
test_tune_expands_every_combination_as_defines(void **state)
{
	(void)state;
	const char *src = "// egg-tune: BLOCK = 128, 256, 512\n  //egg-tune: VEC=2,4\n__global__ void k() {}\n";
	struct strvec notes = STRVEC_INIT;
	struct tune_variant *v;
	size_t n = tune_expand(src, 100, &v, &notes);
	assert_int_equal(n, 6);
	assert_int_equal(notes.n, 0);
	assert_string_equal(v[0].label, "BLOCK=128 VEC=2");
	assert_string_equal(v[5].label, "BLOCK=512 VEC=4");
	assert_string_equal(v[3].source, "#define BLOCK 256\n#define VEC 4\n// egg-tuned: BLOCK = 128, 256, 512\n"
	                    "  //egg-tuned: VEC=2,4\n__global__ void k() {}\n#undef BLOCK\n#undef VEC\n");
	/* a chosen variant, given back to an agent, is not expanded again */
	struct tune_variant *again;
	assert_int_equal(tune_expand(v[3].source, 100, &again, &notes), 1);
	tune_variants_free(again, 1);
	tune_variants_free(v, n);
	n = tune_expand("__global__ void k() {}\n", 100, &v, &notes);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].label, "");
	assert_string_equal(v[0].source, "__global__ void k() {}\n");
	tune_variants_free(v, n);
}

static void
test_tune_caps_the_variants_and_keeps_the_default_first(void **state)
{
	(void)state;
	const char *src = "// egg-tune: A = 1, 2, 3, 4\n// egg-tune: B = 10, 20, 30, 40\n";
	struct strvec notes = STRVEC_INIT;
	struct tune_variant *v;
	size_t n = tune_expand(src, 5, &v, &notes);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].label, "A=1 B=10");
	for (size_t i = 1; i < n; i++)
		assert_string_not_equal(v[i].label, v[i - 1].label);
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.v[0], "16 combinations"));
	tune_variants_free(v, n);
	strvec_clear(&notes);
}

static void
test_tune_ignores_malformed_declarations_with_a_note(void **state)
{
	(void)state;
	const char *src = "// egg-tune: NOEQUALS 1 2\n"
		"// egg-tune: 9BAD = 1\n"
		"// egg-tune: EMPTY =\n"
		"// egg-tune: HOLE = 1,,2\n"
		"// egg-tune: EVIL = 1; system(\"x\")\n"
		"// egg-tune: OK = 1, 2\n"
		"// egg-tune: OK = 3\n"
		"/* egg-tune: INBLOCK = 1 */\n"
		"int x; // egg-tune: TRAILING = 1\n";
	struct tune_space sp;
	struct strvec notes = STRVEC_INIT;
	assert_int_equal(tune_parse(src, &sp, &notes), 1);
	assert_string_equal(sp.params[0].name, "OK");
	assert_int_equal(sp.params[0].values.n, 2);
	assert_int_equal(notes.n, 6);
	assert_non_null(strstr(notes.v[5], "declared twice"));
	tune_space_release(&sp);
	strvec_clear(&notes);
}

/* ---- context ---- */

static void
test_prompt_folds_old_attempts_and_cuts_inputs_to_stay_under_budget(void **state)
{
	(void)state;
	struct history h = { 0 };
	for (int i = 0; i < 200; i++) {
		char *name = egg_xasprintf("s1.%d", i);
		history_add(&h, name, i % 3 ? "wrong" : "pass", i % 3 ? 0 : 1.0 + i / 100.0,
		            "a fairly long explanation of what this attempt tried and why it should help");
		free(name);
	}
	struct prompt_vars v = { 0 };
	prompt_vars_set(&v, "name", "k");
	char *p = context_fit("# {{name}}\n{{history}}\nend", &v, &h, 2000);
	assert_true(strlen(p) <= 2000);
	assert_non_null(strstr(p, "earlier attempts:"));
	assert_non_null(strstr(p, "- s1.199: wrong")); /* the newest stays in full */
	assert_null(strstr(p, "- s1.0: "));
	free(p);
	char *big = egg_xmalloc(100001);
	memset(big, 'x', 100000);
	big[100000] = '\0';
	prompt_vars_set(&v, "bundle", big);
	p = context_fit("# {{name}}\n{{bundle}}\n{{history}}\nend", &v, &h, 5000);
	assert_true(strlen(p) <= 5000);
	assert_non_null(strstr(p, "characters left out"));
	assert_non_null(strstr(p, "\nend"));
	free(p);
	free(big);
	history_release(&h);
}

static void
test_prompts_render_and_identity_follows_the_files(void **state)
{
	(void)state;
	const char *names[] = { "a", "b" }, *values[] = { "1", "{{b}}" };
	char *r = prompts_render("x{{a}}y{{b}}z{{unknown}}{{ not one }}{{", names, values, 2);
	assert_string_equal(r, "x1y{{b}}z{{ not one }}{{");
	free(r);
	char *dir = prompts_dir();
	struct strbuf err = STRBUF_INIT;
	struct prompts *p = prompts_load(dir, &err);
	assert_non_null(p);
	assert_true(egg_str_starts(prompts_identity(p), "prompts-1+"));
	assert_string_equal(prompts_identity_of(dir), prompts_identity(p));
	struct strvec d = STRVEC_INIT;
	prompts_directions(p, "rows", &d);
	assert_int_equal(d.n, 3);
	strvec_clear(&d);
	prompts_free(p);
	assert_null(prompts_load("/nonexistent", &err));
	assert_non_null(strstr(err.buf, "VERSION"));
	assert_string_equal(prompts_identity_of("/nonexistent"), "prompts-unreadable");
	strbuf_release(&err);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extract_picks_the_fenced_block_whatever_its_tag),
		cmocka_unit_test(test_extract_joins_helper_blocks_and_drops_unrelated_ones),
		cmocka_unit_test(test_extract_takes_the_last_block_defining_the_target),
		cmocka_unit_test(test_extract_reads_code_without_fences_and_cut_off_fences),
		cmocka_unit_test(test_extract_without_a_definition_says_why),
		cmocka_unit_test(test_signature_check_accepts_layout_linkage_and_restrict),
		cmocka_unit_test(test_signature_check_rejects_a_changed_signature_with_both_spellings),
		cmocka_unit_test(test_feedback_json_in_prose_fences_or_cut_off_is_recovered),
		cmocka_unit_test(test_readers_survive_every_cut_and_corruption_of_an_answer),
		cmocka_unit_test(test_tune_expands_every_combination_as_defines),
		cmocka_unit_test(test_tune_caps_the_variants_and_keeps_the_default_first),
		cmocka_unit_test(test_tune_ignores_malformed_declarations_with_a_note),
		cmocka_unit_test(test_prompt_folds_old_attempts_and_cuts_inputs_to_stay_under_budget),
		cmocka_unit_test(test_prompts_render_and_identity_follows_the_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
