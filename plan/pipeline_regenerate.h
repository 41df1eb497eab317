/*
 * pipeline_regenerate.h -- regenerate = faster: a newer generator searches a
 * key again whose winner another generator found, and replaces that winner
 * only with something faster (see pipeline_regenerate.c).
 */
#ifndef EGG_PIPELINE_REGENERATE_H
#define EGG_PIPELINE_REGENERATE_H

#include "cache/entry.h"
#include "plan/pipeline_search.h"

enum pipeline_regen_verdict {
	PIPELINE_REGEN_REPLACED,   /* a new candidate beat the old winner: entry is the new winner */
	PIPELINE_REGEN_KEPT,       /* nothing new was faster: entry is the old one, marked checked */
	PIPELINE_REGEN_OLD_FAILED, /* the old winner failed here and nothing beat the reference:
	                              entry is the new generator's negative one (for the local store) */
	PIPELINE_REGEN_NO_VERDICT, /* the search reached no verdict (warned): entry is NULL */
};

struct pipeline_regeneration {
	enum pipeline_regen_verdict verdict;
	struct cache_entry *entry; /* owned: what to store; NULL with NO_VERDICT */
	struct pipeline_outcome out; /* the search's outcome (speedups, the old winner's verdict) */
	char old_generator[96];    /* who found the old winner, for messages ("builtin-1") */
};

/* Searches req->key again with req->generator, the cached winner old (a
 * positive entry of another generator) evaluated in the same evaluation as the
 * new candidates (the builtin: among its batch; a model backend: in a run-off
 * against the search's winner).  Fills r; release with
 * pipeline_regeneration_release. */
void pipeline_regenerate(const struct pipeline_search_request *req, const struct cache_entry *old,
                         struct pipeline_regeneration *r);
void pipeline_regeneration_release(struct pipeline_regeneration *r);

/* A generator's short name for messages: "builtin-17" for the builtin (its
 * recipe's first word), "openai MODEL" for a model backend.  Writes to buf. */
void pipeline_generator_label(const char *backend, const char *model, const char *recipe, char *buf,
                              size_t size);

#endif
