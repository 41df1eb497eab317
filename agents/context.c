/*
 * context.c -- see context.h.
 *
 * Folding before cutting: the history's newest attempts are the ones the
 * agent learns the most from, and the code and evidence in the other inputs are
 * what it works on, so the oldest attempts go first and a cut is the last
 * resort.
 */
#include "config.h"
#include "agents/context.h"
#include "agents/prompts.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

void
history_add(struct history *h, const char *name, const char *verdict, double speedup,
            const char *why)
{
	h->v = egg_xrealloc(h->v, (h->n + 1) * sizeof *h->v);
	struct attempt *a = &h->v[h->n++];
	a->name = egg_xstrdup(name);
	a->verdict = egg_xstrdup(verdict ? verdict : "unknown");
	a->speedup = speedup;
	a->why = context_one_line(why ? why : "", 240);
}

void
history_release(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].verdict);
		free(h->v[i].why);
	}
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

static void
summarize(const struct history *h, size_t folded, struct strbuf *out)
{
	struct strvec kinds = STRVEC_INIT;
	size_t counts[64] = { 0 };
	const struct attempt *best = NULL;
	for (size_t i = 0; i < folded; i++) {
		const struct attempt *a = &h->v[i];
		size_t k = 0;
		while (k < kinds.n && strcmp(kinds.v[k], a->verdict) != 0)
			k++;
		if (k == kinds.n && k < 64)
			strvec_push(&kinds, a->verdict);
		if (k < 64)
			counts[k]++;
		if (a->speedup > 0 && (!best || a->speedup > best->speedup))
			best = a;
	}
	strbuf_addf(out, "- %zu earlier attempt%s:", folded, folded == 1 ? "" : "s");
	for (size_t k = 0; k < kinds.n; k++)
		strbuf_addf(out, "%s %zu %s", k ? "," : "", counts[k], kinds.v[k]);
	if (best)
		strbuf_addf(out, "; best %.2fx (%s)", best->speedup, best->name);
	strbuf_addch(out, '\n');
	strvec_clear(&kinds);
}

char *
history_render(const struct history *h, size_t folded)
{
	struct strbuf sb = STRBUF_INIT;
	if (!h || h->n == 0)
		return egg_xstrdup("(none yet)");
	if (folded > h->n)
		folded = h->n;
	if (folded)
		summarize(h, folded, &sb);
	for (size_t i = folded; i < h->n; i++) {
		const struct attempt *a = &h->v[i];
		strbuf_addf(&sb, "- %s: %s", a->name, a->verdict);
		if (a->speedup > 0)
			strbuf_addf(&sb, ", %.2fx", a->speedup);
		if (a->why[0])
			strbuf_addf(&sb, " -- %s", a->why);
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

void
prompt_vars_set(struct prompt_vars *v, const char *name, const char *value)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->names[i], name) == 0) {
			v->values[i] = value;
			return;
		}
	if (v->n < PROMPT_MAX_VARS) {
		v->names[v->n] = name;
		v->values[v->n++] = value;
	}
}

char *
context_cut(const char *text, size_t max)
{
	size_t len = strlen(text);
	if (len <= max)
		return egg_xstrdup(text);
	size_t keep = max > 80 ? max - 80 : max;
	size_t head = keep / 2, tail = keep - head;
	return egg_xasprintf("%.*s\n[... %zu characters left out ...]\n%s", (int)head, text,
	                     len - head - tail, text + len - tail);
}

char *
context_one_line(const char *text, size_t max)
{
	while (*text == '\n' || *text == ' ' || *text == '\t' || *text == '\r')
		text++;
	size_t n = strcspn(text, "\r\n");
	if (n <= max)
		return egg_xstrndup(text, n);
	return egg_xasprintf("%.*s...", (int)(max > 3 ? max - 3 : max), text);
}

static char *
render(const char *tmpl, const struct prompt_vars *v, const char *history)
{
	struct prompt_vars all = *v;
	prompt_vars_set(&all, "history", history);
	return prompts_render(tmpl, all.names, all.values, all.n);
}

char *
context_fit(const char *tmpl, const struct prompt_vars *v, const struct history *h,
            size_t budget)
{
	size_t n_hist = h ? h->n : 0;
	for (size_t folded = 0;; folded++) {
		char *hist = history_render(h, folded);
		char *p = render(tmpl, v, hist);
		free(hist);
		if (strlen(p) <= budget || folded >= n_hist) {
			if (strlen(p) <= budget)
				return p;
			free(p);
			break;
		}
		free(p);
	}
	/* Still too long with the whole history folded: halve the longest input
	 * until it fits or nothing long is left. */
	struct prompt_vars cut = *v;
	char *owned[PROMPT_MAX_VARS] = { 0 };
	char *hist = history_render(h, n_hist);
	char *p = render(tmpl, &cut, hist);
	while (strlen(p) > budget) {
		size_t longest = cut.n, len = 400;
		for (size_t i = 0; i < cut.n; i++)
			if (cut.values[i] && strlen(cut.values[i]) > len) {
				longest = i;
				len = strlen(cut.values[i]);
			}
		if (longest == cut.n)
			break;
		size_t over = strlen(p) - budget;
		size_t target = over + 200 < len / 2 ? len - over - 200 : len / 2;
		char *c = context_cut(cut.values[longest], target);
		free(owned[longest]);
		owned[longest] = c;
		cut.values[longest] = c;
		free(p);
		p = render(tmpl, &cut, hist);
	}
	for (size_t i = 0; i < PROMPT_MAX_VARS; i++)
		free(owned[i]);
	free(hist);
	return p;
}
