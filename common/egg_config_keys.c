/*
 * egg_config_keys.c -- the table of egg's settings (egg_config_int.h), and what
 * it tells about a key: its name, type, default and documentation, and the
 * known key closest to a misspelt one.
 *
 * The table is the one place a key is declared: its type decides how a value is
 * checked when it is set (so that every getter can trust what it reads), its
 * default is what egg_config_new() holds, and its line of documentation is what
 * `egg config` and egg.conf(5) say about it.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/egg_config_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>

const struct key egg_config_keys[] = {
	{ "mode", T_CHOICE, "search|cache|verify|off", "search",
	  "search: use the cache, search on a miss when a GPU is present; cache: never search; "
	  "verify: re-check cached winners on this GPU; off: plain nvcc" },
	{ "regenerate", T_CHOICE, "never|faster", "never",
	  "a winner another generator found (an older egg, another model): never: use it; faster: "
	  "in search mode search again, the old winner among the candidates, and replace it only "
	  "by a faster one" },
	{ "nvcc", T_PATH, NULL, NULL,
	  "the real nvcc (default: the first nvcc on PATH that is not egg-cc)" },
	{ "cache_dir", T_PATH, NULL, "~/.cache/egg",
	  "directory of the local kernel cache (default: $XDG_CACHE_HOME/egg when XDG_CACHE_HOME "
	  "is set)" },
	{ "compiler_launcher", T_LIST, NULL, NULL,
	  "program (and arguments) that runs nvcc on the rewritten sources only, e.g. ccache, so "
	  "that a repeated hit reuses the compiled object; it stays behind egg-cc, never in front "
	  "of it (there it would keep a winner the cache dropped)" },
	{ "max_size", T_SIZE, NULL, "2GiB",
	  "size limit of the local cache; least recently used entries go first (0: no limit)" },
	{ "remote_storage", T_LIST, NULL, NULL,
	  "URLs of remote caches (HTTP GET/HEAD/PUT), separated by spaces, tried in order" },
	{ "remote_read_only", T_BOOL, NULL, "false",
	  "only read from remote caches, never upload to them (CI consumers)" },
	{ "cache_secret", T_SECRET, NULL, NULL,
	  "key for HMAC-SHA256 signatures of remote entries; when set, unsigned or badly signed "
	  "entries are refused" },
	{ "backend", T_CHOICE, "builtin|openai|anthropic", "builtin",
	  "generator: builtin (no network), openai (any OpenAI-compatible chat-completions API), "
	  "anthropic (Messages API)" },
	{ "api_base", T_STRING, NULL, NULL,
	  "base URL of the backend's API (default: the vendor's public endpoint)" },
	{ "model", T_STRING, NULL, NULL, "model name for the openai and anthropic backends" },
	{ "api_key", T_SECRET, NULL, NULL, "API key for the backend; never printed or logged" },
	{ "api_key_file", T_PATH, NULL, NULL, "file whose first line is the API key" },
	{ "api_headers", T_SECRET, NULL, NULL,
	  "extra HTTP headers for the backend, 'Name: value' items separated by ';' (e.g. "
	  "'OpenAI-Organization: org-1'); never printed, as they may hold credentials" },
	{ "price_in", T_STRING, NULL, NULL,
	  "the model's price in USD per million input tokens, for the cost in reports "
	  "(default: unknown, cost 0)" },
	{ "price_out", T_STRING, NULL, NULL,
	  "the model's price in USD per million output tokens, for the cost in reports" },
	{ "strict", T_BOOL, NULL, "false",
	  "an annotation that cannot be used fails the build instead of warning" },
	{ "report", T_PATH, NULL, NULL, "file to which a JSON record per optimized kernel is appended" },
	{ "eval_command", T_STRING, NULL, NULL,
	  "command that evaluates a job given on its stdin and prints the result, e.g. "
	  "'ssh gpu1 egg eval -' (default: evaluate on this machine)" },
	{ "gpu", T_STRING, NULL, NULL,
	  "GPU(s) to evaluate on, as CUDA_VISIBLE_DEVICES names them (default: every visible GPU)" },
	{ "sandbox", T_BOOL, NULL, "true",
	  "run candidates' programs confined by the kernel (Landlock, seccomp): no network, "
	  "writes only in their own directory, no other programs; false: unconfined" },
	{ "ncu", T_STRING, NULL, NULL,
	  "Nsight Compute's ncu, which profiles the current best candidate of a model search "
	  "for the profile agent (default: ncu beside nvcc, then on PATH; none: no profiling)" },
	{ "timeout", T_DURATION, NULL, "120s",
	  "time limit of one step egg waits for: a backend request, a remote transfer (unset: "
	  "10 s there), a candidate's run (0: none)" },
	{ "skip_after_timeout", T_DURATION, NULL, "60s",
	  "how long a build's later compiles skip a remote cache or model backend that timed "
	  "out (one warning in all; 0: never skip)" },
	{ "lock_timeout", T_DURATION, NULL, "300s",
	  "how long a build waits for another build's search of the same kernel before it "
	  "uses the reference" },
	{ "log_file", T_PATH, NULL, NULL,
	  "file to which egg-cc and egg plan append one line per step of an annotated compile: "
	  "keys, hits and misses and why, remotes asked, timings, fallbacks (no secrets)" },
	{ "debug", T_BOOL, NULL, "false",
	  "keep OUTPUT.egg-key.txt (the key texts) and OUTPUT.egg-rewritten.cu (the source "
	  "given to nvcc) beside each output, and the temporary directory" },
	{ "prompts_dir", T_PATH, NULL, NULL,
	  "directory of the agents' prompts and expert principles (default: the installed ones); "
	  "their version and contents are part of the cache key" },
	{ "max_model_calls", T_COUNT, NULL, "40",
	  "model requests one kernel's search may make (0: no limit); the best so far is kept" },
	{ "max_tokens", T_COUNT, NULL, "2M",
	  "input and output tokens one kernel's search may use (0: no limit)" },
	{ "max_search_time", T_DURATION, NULL, "30m",
	  "wall time of one kernel's search with a model backend (0: no limit)" },
	{ "max_candidates", T_COUNT, NULL, "64",
	  "candidates one kernel's search may evaluate, tunable variants included (0: no limit)" },
	{ "roofline_stop", T_STRING, NULL, "0.9",
	  "a model search asks the model nothing when the builtin's best candidate already "
	  "reaches this fraction of the roofline floor (measured ceilings); 0: always ask" },
	{ "max_prompt_chars", T_COUNT, NULL, "60000",
	  "size limit of one prompt to the model, in characters; older attempts are summarized "
	  "to stay under it" },
};

const size_t egg_config_n_keys = sizeof egg_config_keys / sizeof *egg_config_keys;

int
config_key_index(const char *name)
{
	for (size_t i = 0; i < egg_config_n_keys; i++)
		if (strcmp(egg_config_keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

size_t
config_must_key(const char *name)
{
	int i = config_key_index(name);
	assert(i >= 0 && "not a key of egg_config's table");
	return (size_t)i;
}

/* Optimal string alignment distance (edits and swaps of neighbours), case-blind; large
 * for long strings, which never get a suggestion. */
static size_t
edit_distance(const char *a, const char *b)
{
	enum { MAX = 40 };
	size_t n = strlen(a), m = strlen(b);
	if (n >= MAX || m >= MAX)
		return SIZE_MAX;
	size_t d[MAX + 1][MAX + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[n][m];
}

/* The known key closest to name, if it is close enough to be a typo. */
const char *
egg_config_key_suggest(const char *name)
{
	const char *best = NULL;
	size_t best_d = 3; /* at most two edits */
	for (size_t i = 0; i < egg_config_n_keys; i++) {
		size_t d = edit_distance(name, egg_config_keys[i].name);
		if (d < best_d && d < strlen(egg_config_keys[i].name)) {
			best_d = d;
			best = egg_config_keys[i].name;
		}
	}
	return best;
}

const char *
egg_config_key_name(size_t i)
{
	return i < egg_config_n_keys ? egg_config_keys[i].name : NULL;
}

const char *
egg_config_key_type(const char *key)
{
	static const char *const names[] = {
		[T_STRING] = "string", [T_PATH] = "path", [T_SECRET] = "secret", [T_CHOICE] = "choice",
		[T_BOOL] = "bool", [T_SIZE] = "size", [T_DURATION] = "duration", [T_LIST] = "list",
		[T_COUNT] = "count",
	};
	int i = config_key_index(key);
	if (i < 0)
		return NULL;
	return egg_config_keys[i].type == T_CHOICE ? egg_config_keys[i].choices : names[egg_config_keys[i].type];
}

const char *
egg_config_key_default(const char *key)
{
	int i = config_key_index(key);
	return i < 0 ? NULL : egg_config_keys[i].def ? egg_config_keys[i].def : "";
}

const char *
egg_config_key_doc(const char *key)
{
	int i = config_key_index(key);
	return i < 0 ? NULL : egg_config_keys[i].doc;
}
