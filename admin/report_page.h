/*
 * report_page.h -- the web pages of `egg report --html`: the escape and the
 * style every page shares, and the page of one kernel (see report_page.c).
 *
 * Ownership: functions returning char * give the caller a string to free().
 */
#ifndef EGG_ADMIN_REPORT_PAGE_H
#define EGG_ADMIN_REPORT_PAGE_H

#include <stddef.h>

#include "cache/entry.h"
#include "common/strbuf.h"

/* The CSS of every page (inline: the pages are self-contained). */
extern const char report_page_style[];

/* Appends s to sb with &, <, >, " and ' escaped: text or an attribute's value. */
void report_page_escape(struct strbuf *sb, const char *s);

/* The path of the i-th kernel's page relative to the index page:
 * "kernels/3-softmax_forward.html", the name cut to its first 40 letters,
 * digits and '_' (no other character reaches a file name). */
char *report_page_kernel_path(size_t i, const char *kernel);

/* One kernel's page: title is its name as the index shows it; record is its
 * egg-report record (a cJSON object, plan/report.h); e its cache entry or
 * NULL, in which case no_entry says why the candidates, code and transcript
 * are missing. */
char *report_page_kernel(const char *title, const void *record, const struct cache_entry *e,
                         const char *no_entry);

#endif
