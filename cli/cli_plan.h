/* cli_plan.h - the `plan` wing, private to its files (bottom-up):
 *   cli_plan_cands.c   candidates (--gpu, --cluster-template), their sizes and
 *                      prices;
 *   cli_plan_search.c  one count on every seed (a point), rounds of counts,
 *                      the serial walk (doubling, then bisection) and its
 *                      speculative rounds;
 *   cli_plan_checks.c  the trace before the search, each entry's impossible
 *                      rows (the policy record asked), the start-up probe;
 *   cli_plan_output.c  plan.json's entry objects and the text: the buyer's
 *                      table, the warnings, the evidence;
 *   cli_plan_serving.c the serving configurations (--tp, --dtype): entries per
 *                      configuration, and whether a card can hold them;
 *   cli_plan_sens.c    --sensitivity: the answer searched again under each
 *                      deciding assumption at both ends of its range;
 *   cli_plan.c         the command: options, candidates and prices, terms,
 *                      one entry per (candidate, policy).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_PLAN_H
#define GPUSIM_CLI_PLAN_H

#include <cJSON.h>

#include "cli_batch.h"
#include "cluster_template.h"
#include "plan_feasible.h"

#define PLAN_HOURS_PER_MONTH 730.0 /* 8760 h / 12 */
#define PLAN_MAX_CANDS 16
#define PLAN_MAX_PRICES 16

typedef struct price_override {
    const gpu_model *model;
    double usd;
} price_override;

typedef struct candidate {
    char label[160];        /* what the table shows */
    char slug[160];         /* file-name safe */
    const gpu_model *model; /* --gpu candidate; NULL for a template */
    cluster_template tpl;   /* template candidate */
    const char *path;       /* the template's file */
    long gpus_per_node;     /* --gpu candidate: cards a node */
    const char *mig;        /* --gpu candidate: --mig layout, NULL: none */
    sim_cluster unit;       /* the candidate at scale 1: feasibility */
} candidate;

typedef struct plan_ctx {
    const cli_opts *com;
    const gpu_catalog *cat;
    const char *odir;
    const cli_batch_slo *slo;
    int nslo, nuser; /* terms [nuser, nslo) are implicit */
    long seeds, jobs, need;
    price_override prices[PLAN_MAX_PRICES];
    int nprices;
    long width;         /* counts tried per round (1: bisection) */
    const char *engine; /* NULL: child processes here; else each round is a sweep on it */
    long min_gpus;      /* --min-gpus: where a --gpu search starts */
    long max_gpus;      /* --max-gpus: where a --gpu search gives up */
    long margin;        /* --margin: probes above the answer (plan_evidence.h) */
    char ref_warning[800]; /* a candidate of several card models whose durations no row states a card for; "" none */
} plan_ctx;

typedef struct point {
    long x; /* the count searched: cards, or a template's N */
    long gpus, nodes;
    int seeds_met;
    bool met;
    bool absent_only;   /* a user term was measured on no seed although every implicit term held */
    char absent[128];   /* with absent_only: the last user term never measured on the first seed */
    char term_sig[600]; /* every term's worst figure, to see a plateau */
    bool starved;       /* a job rejected or a replica unplaceable: too small to judge a plateau */
    bool used;          /* on the search's path: in the evidence (not a speculative run it never needed) */
    cJSON *obj;
} point;

typedef struct planner {
    const plan_ctx *cx;
    const cli_batch_policy *pol;
    const candidate *cand;
    point *pts; /* the evidence: the counts the serial search visits, in its order */
    int npts;
    point *done; /* every count run so far, on the path or speculative */
    int ndone;
    char absent_path[128]; /* set when the search stopped on a metric the report never has */
    bool plateau;          /* stopped: every term's figure stayed the same over 3 doublings */
    int rounds;            /* batches of runs (one per count at width 1) */
} planner;

/* One (candidate, policy) of the buyer's table. */
typedef struct entry {
    const candidate *cand;
    const cli_batch_policy *pol;
    cJSON *obj;       /* its plan.json object */
    long gpus, nodes; /* 0: no answer */
    long stable_gpus; /* the fewest cards from which every probed count met (with an answer) */
    double usd_h;
    bool impossible;
} entry;

/* Cards, nodes and cost per hour of candidate c at scale x; sources (a JSON
 * array, may be NULL) gets one entry per model and source. */
void cli_plan_cands_size(const plan_ctx *cx, const candidate *c, long x, long *cards, long *nodes, double *usd_h,
                         cJSON *sources);
/* --price MODEL=USD into cx->prices. 0 or GS_EUSAGE. */
int cli_plan_cands_price(plan_ctx *cx, const gpu_catalog *cat, const char *arg, gs_error *err);
/* Appends the models of gpu_list (comma separated), each at one node of
 * gpus_per_node cards (with --mig), to cands. 0 or the error. */
int cli_plan_cands_gpus(const char *gpu_list, long gpus_per_node, const char *mig, const gpu_catalog *cat,
                        candidate *cands, int *ncands, gs_error *err);
/* The candidate at scale 1 (one node of each group), built afresh into out
 * (a run may change the cluster it is given). 0 or the error. */
int cli_plan_cands_unit(const candidate *c, const gpu_catalog *cat, sim_cluster *out, gs_error *err);
/* Appends each template, checked at scale 1, to cands. 0 or the error. */
int cli_plan_cands_templates(const char *const *templates, int ntemplates, const gpu_catalog *cat, candidate *cands,
                             int *ncands, gs_error *err);

/* Searches counts min_x..max_x of pl's candidate under its policy; the
 * evidence is pl->pts (in the walk's order), every count run pl->done.
 * *answer = 0 when even max_x fails, or when a user term's metric stays
 * absent although every job and request was served, or on a plateau. */
int cli_plan_search(planner *pl, long min_x, long max_x, long *answer, gs_error *err);
/* A template with burst groups, whose smallest base meeting the SLO is
 * first: *best = the base (first..max_x) of the cheapest bill that meets it
 * (cli_plan_search.c: the bases a bill seen could still beat). */
int cli_plan_search_cheapest(planner *pl, long first, long max_x, long *best, gs_error *err);
/* The largest scale of a template whose cards stay <= max_gpus (>= 1). */
long cli_plan_search_max_scale(const plan_ctx *cx, const candidate *c, long max_gpus);
/* Runs count x of pl's candidate under pol (another variant of pl's
 * policy) on every seed, outside the evidence: *met, and the point's object
 * (the caller's). */
int cli_plan_search_probe(const planner *pl, const cli_batch_policy *pol, long x, bool *met, cJSON **obj,
                          gs_error *err);
/* Sorts points by count. */
int cli_plan_search_cmp_point(const void *a, const void *b);

/* The trace checked once before any search (trace_facts.h): candidates
 * of several cards taking different references with rows naming none
 * (exit 2), token terms and token SLOs without token counts (exit 3),
 * services by id; *services: the trace has service rows. Prints the
 * milliseconds hint; a candidate cluster of several card models with rows
 * naming none is warned about (cx->ref_warning, stderr). 0 or the error. */
int cli_plan_checks_trace(const cli_opts *o, plan_ctx *cx, const candidate *cands, int ncands,
                          const cli_batch_policy *pol, int npol, bool *services, gs_error *err);
/* The rows no count of cd serves under pol (plan_feasible.h), the policy
 * set up on one instance of cd with the plan's parameters (a bad one is
 * refused here). One read of the trace. 0 or the error. */
int cli_plan_checks_feasibility(const cli_opts *o, const gpu_catalog *cat, const candidate *cd,
                                const cli_batch_policy *pol, plan_feasibility *f, gs_error *err);
/* After a search that met at no count: the largest count again with
 * replicas starting at once; if that meets every term, e's verdict says the
 * start-up transient decides it (decided_by, warm_probe). 0 or the error. */
int cli_plan_checks_transient(entry *e, const planner *pl, gs_error *err);
/* False when pol lets requests name MIG profiles and the candidate has no
 * MIG-enabled card: such a policy would run as whole cards under a MIG
 * name, so the entry is not applicable (never searched, never the answer). */
bool cli_plan_checks_mig_applies(const candidate *cd, const cli_batch_policy *pol);
/* --tp (auto: 1,2,4,8) and --dtype (either may be NULL) over the --policies
 * list: every entry once per (tp, dtype) with svc_tp and svc_dtype among its
 * parameters, in *out (free it). 0 or GS_EUSAGE naming the bad value. */
int cli_plan_serving_expand(const char *policies, const char *tps, const char *dtypes, char **out, gs_error *err);
/* Whether every service of a catalog model in the trace fits a replica of
 * --gpu candidate cd in p's configuration: *why "" when so (or for a
 * template), else the first service that does not and why. 0 or the
 * reading error. */
int cli_plan_serving_check(const plan_ctx *cx, const candidate *cd, const cli_batch_policy *p, char *why, size_t n,
                           gs_error *err);

/* plan.json's "feasibility" object. */
cJSON *cli_plan_output_feasibility(const plan_feasibility *f);
/* "WHAT: N of M rows can never be served ..." and the examples. */
void cli_plan_output_impossible(FILE *out, const char *what, const plan_feasibility *f, bool set_aside);
/* The text answer: header, buyer's table (cheapest first), the runs'
 * warnings, the evidence of each entry. */
void cli_plan_output_text(const plan_ctx *cx, const char *trace, const entry *ents, int nents);

/* plan --sensitivity (cli_plan_sens.c): the answer and its runners-up
 * searched again with each deciding assumption at both ends of its range;
 * OUT/sensitivity.json and the tornado table. 0 or the error. */
int cli_plan_sensitivity(const plan_ctx *cx, const entry *ents, int nents, gs_error *err);

#endif
