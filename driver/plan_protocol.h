/*
 * plan_protocol.h -- the plan of one compile: the lines `egg plan` prints on its
 * stdout (plan/pipeline.c writes them) and egg-cc reads (driver/compile_annotated.c
 * parses them), and the files of the report that waits for the compile's outcome.
 * Both sides name the lines through this header only.  It lives on egg-cc's side
 * because driver/ sits below plan/ (plan/ uses egg-cc's argument model).
 *
 *     egg-plan 1                          PLAN_HEADER: the first line
 *     rewrite<TAB>INPUT<TAB>PATH          input INPUT (its index among the command
 *                                         line's inputs) compiles from PATH instead
 *     export<TAB>INPUT<TAB>SYMBOL         a strong external definition of the
 *                                         user's source that the rewritten object
 *                                         must keep (else egg-cc compiles the
 *                                         reference); after INPUT's rewrite line
 *     known<TAB>INPUT<TAB>SYMBOL          a name the user's source declares: the
 *                                         rewritten object may define no external
 *                                         symbol outside export and known
 *     report<TAB>PATH                     the report file the waiting records
 *                                         (PLAN_REPORT_*) go to
 *     fail<TAB>REASON                     strict mode: stop the build with REASON
 *     end                                 PLAN_END: the plan is complete
 *
 * A plan without its header or its end, with an unknown line, or naming an input
 * that does not exist or is not rewritten, is not a plan: egg-cc warns once and
 * compiles the reference.  Everything for the user goes to the planner's stderr.
 */
#ifndef EGG_PLAN_PROTOCOL_H
#define EGG_PLAN_PROTOCOL_H

#define PLAN_HEADER "egg-plan 1"
#define PLAN_END "end"
/* the keywords of the other lines, each followed by a tab and its fields */
#define PLAN_REWRITE "rewrite"
#define PLAN_EXPORT "export"
#define PLAN_KNOWN "known"
#define PLAN_REPORT "report"
#define PLAN_FAIL "fail"

/* The report records of kernels in a rewritten input wait in the temporary
 * directory until egg-cc knows whether the rewritten unit compiled: the planner
 * writes them twice, as planned (PLAN_REPORT_USED) and with each winner turned
 * into a fallback for one cause (PLAN_REPORT_FALLBACK_*, the same records with
 * outcome "fallback" and the cause as reason), and names the report in the plan
 * (PLAN_REPORT line).  egg-cc appends exactly one of the files to the report,
 * byte for byte: it never parses JSON itself. */
#define PLAN_REPORT_USED "report.used"
#define PLAN_REPORT_FALLBACK_COMPILE "report.fallback-compile"
#define PLAN_REPORT_FALLBACK_COMPILE_WHY "the rewritten unit did not compile; compiled the reference"
#define PLAN_REPORT_FALLBACK_INTERFACE "report.fallback-interface"
#define PLAN_REPORT_FALLBACK_INTERFACE_WHY \
	"the rewritten unit's object did not keep the source's external symbols; compiled the reference"
#define PLAN_REPORT_FALLBACK_OPTIONS "report.fallback-options"
#define PLAN_REPORT_FALLBACK_OPTIONS_WHY \
	"the source was named in an options file or NVCC_*_FLAGS, which egg does not rewrite; " \
	"compiled the reference"

#endif
