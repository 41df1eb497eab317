/*
 * builtin_data.h -- the builtin generator's test bundles
 * (tests/data/builtin/NAME.json, under $EGG_SRCDIR) for unit tests, loaded or
 * failing the test.  Included by one test program each (static).
 */
#ifndef EGG_TESTS_BUILTIN_DATA_H
#define EGG_TESTS_BUILTIN_DATA_H

#include "common/bundle.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <stdlib.h>

/* A check bundle, with its closure replaced when closure is not NULL. */
static struct egg_bundle *
load(const char *name, const char *closure)
{
	const char *src = getenv("EGG_SRCDIR");
	char *path = egg_xasprintf("%s/tests/data/builtin/%s.json", src ? src : ".", name);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(fs_read_file(path, 1 << 20, &text, &len), 0);
	struct strbuf err = STRBUF_INIT;
	struct egg_bundle *b = bundle_from_json(text, &err);
	assert_non_null(b);
	if (closure) {
		free(b->closure);
		b->closure = egg_xstrdup(closure);
	}
	strbuf_release(&err);
	free(text);
	free(path);
	return b;
}

#endif
