/*
 * test_interface.c -- interface_check reads the symbols of real objects (built
 * here with cc), finds a lost or a foreign strong symbol, lets egg's own and
 * nvcc's names through, and leaves files it cannot read unchecked without
 * failing: a program, a stripped or truncated file, text.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/util.h"
#include "driver/interface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/egg-test-interface.XXXXXX";

/* Compiles C text with cc and FLAGS into dir/NAME; returns its path. */
static char *
build(const char *name, const char *text, const char *flags)
{
	char *src = egg_xasprintf("%s/%s.c", dir, name), *out = egg_xasprintf("%s/%s", dir, name);
	assert_int_equal(fs_write_atomic(src, text, strlen(text)), 0);
	char *cmd = egg_xasprintf("cc %s %s -o %s 2>/dev/null", flags, src, out);
	if (system(cmd) != 0)
		skip(); /* no C compiler */
	free(cmd);
	free(src);
	return out;
}

static const char lib_text[] =
	"int calls;\n"
	"static int hidden(int x) { return x + calls; }\n"
	"int api(int x) { return hidden(x); }\n"
	"int egg_winner__api(int x) { return x; }\n"
	"void _Z21__device_stub__Z2k2PfPf(void) {}\n";

static void
check(const char *path, const char *const *exports, const char *const *known,
      enum interface_verdict want, const char *why_part)
{
	struct strvec e = STRVEC_INIT, k = STRVEC_INIT;
	for (; exports && *exports; exports++)
		strvec_push(&e, *exports);
	for (; known && *known; known++)
		strvec_push(&k, *known);
	struct strbuf why = STRBUF_INIT;
	enum interface_verdict v = interface_check(path, &e, &k, &why);
	if (v != want || (why_part && !strstr(why.buf, why_part)))
		fail_msg("%s: verdict %d (wanted %d), '%s'", path, v, want, why.buf);
	strbuf_release(&why);
	strvec_clear(&e);
	strvec_clear(&k);
}

static void
an_object_with_its_exports_and_egg_s_own_names_keeps_its_interface(void **state)
{
	(void)state;
	char *o = build("lib.o", lib_text, "-c");
	const char *exports[] = { "api", "calls", NULL }, *known[] = { "api", "calls", "hidden", NULL };
	check(o, exports, known, INTERFACE_KEPT, NULL);
	free(o);
}

static void
a_lost_export_is_a_change_that_names_the_symbol(void **state)
{
	(void)state;
	char *o = build("lib.o", lib_text, "-c");
	const char *exports[] = { "api", "_Z3apii", NULL }, *known[] = { "api", "calls", NULL };
	check(o, exports, known, INTERFACE_CHANGED, "does not define '_Z3apii'");
	free(o);
}

static void
a_strong_symbol_the_source_does_not_declare_is_a_change(void **state)
{
	(void)state;
	char *o = build("lib.o", lib_text, "-c");
	const char *exports[] = { "api", NULL }, *known[] = { "api", NULL };
	check(o, exports, known, INTERFACE_CHANGED, "defines 'calls'");
	free(o);
}

static void
a_shared_library_is_checked_for_its_exports_only(void **state)
{
	(void)state;
	char *so = build("lib.so", lib_text, "-shared -fPIC");
	const char *exports[] = { "api", NULL };
	check(so, exports, NULL, INTERFACE_KEPT, NULL);
	const char *lost[] = { "api", "gone", NULL };
	check(so, lost, NULL, INTERFACE_CHANGED, "does not define 'gone'");
	free(so);
}

static void
programs_text_and_truncated_files_are_left_unchecked(void **state)
{
	(void)state;
	const char *exports[] = { "missing_everywhere", NULL };
	char *prog = build("prog", "int main(void) { return 0; }\n", "");
	check(prog, exports, NULL, INTERFACE_UNCHECKED, "linked program");
	char *o = build("lib.o", lib_text, "-c"), *data;
	size_t len;
	assert_int_equal(fs_read_file(o, 0, &data, &len), 0);
	char *cut = egg_xasprintf("%s/cut.o", dir);
	for (size_t n = 0; n < len; n += len / 7 + 1) { /* headers that point past the end */
		assert_int_equal(fs_write_atomic(cut, data, n), 0);
		struct strvec e = STRVEC_INIT, k = STRVEC_INIT;
		strvec_push(&e, "missing_everywhere");
		struct strbuf why = STRBUF_INIT;
		enum interface_verdict v = interface_check(cut, &e, &k, &why);
		if (v != INTERFACE_UNCHECKED)
			fail_msg("%zu of %zu bytes: verdict %d, '%s'", n, len, v, why.buf);
		strbuf_release(&why);
		strvec_clear(&e);
	}
	assert_int_equal(fs_write_atomic(cut, "hello\n", 6), 0);
	check(cut, exports, NULL, INTERFACE_UNCHECKED, "not an ELF file");
	char *stripped = egg_xasprintf("%s/stripped.o", dir), *cmd;
	cmd = egg_xasprintf("strip -o %s %s 2>/dev/null", stripped, o);
	if (system(cmd) == 0)
		check(stripped, exports, NULL, INTERFACE_UNCHECKED, NULL);
	free(cmd);
	free(stripped);
	free(data);
	free(cut);
	free(o);
	free(prog);
}

static void
egg_s_nvcc_s_and_anonymous_namespace_names_are_its_own(void **state)
{
	(void)state;
	assert_true(interface_own_symbol("_Z27egg_winner__softmax_forwardPKfPfii"));
	assert_true(interface_own_symbol("_Z35__device_stub__Z8add_biasPKfS0_PfiiPKfS0_Pfii"));
	assert_true(interface_own_symbol("__fatbinwrap_5196b04c_4_s_cu_hostvar"));
	assert_true(interface_own_symbol("_ZN46_GLOBAL__N__6041b036_13_namespaces_cu_2ceca5e07scale_kEPKfPffi"));
	assert_true(interface_own_symbol("_ZTV5Shape")); /* a class with an out-of-line key function */
	assert_true(interface_own_symbol("_ZTI5Shape"));
	assert_false(interface_own_symbol("scratch_total"));
	assert_false(interface_own_symbol("_Z15softmax_forwardPKfPfii"));
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	char *cmd = egg_xasprintf("rm -rf %s", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_object_with_its_exports_and_egg_s_own_names_keeps_its_interface),
		cmocka_unit_test(a_lost_export_is_a_change_that_names_the_symbol),
		cmocka_unit_test(a_strong_symbol_the_source_does_not_declare_is_a_change),
		cmocka_unit_test(a_shared_library_is_checked_for_its_exports_only),
		cmocka_unit_test(programs_text_and_truncated_files_are_left_unchecked),
		cmocka_unit_test(egg_s_nvcc_s_and_anonymous_namespace_names_are_its_own),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
