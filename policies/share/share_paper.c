/* share_paper.c - frag_model=paper: the node scores and the tie-break of the
 * FGD paper's artifact (Weng et al., USENIX ATC'23; public repository
 * hkust-adsl/kubernetes-scheduler-simulator, Go), so that `run --mode fill`
 * lands on the published figures. Facts read from that source (no code
 * carried over; file names are where to check them):
 *
 *   fgd      pkg/simulator/plugin/fgd_score.go: node score = 100 x
 *            sigmoid(fragmentation decrease in GPUs), cut to an integer; a
 *            sharing task takes the first card (index order) with the best
 *            integer score; whole cards: the first free ones.
 *   bestfit  pkg/simulator/plugin/best_fit_score.go: 100 x (1 - 0.5 x
 *            leftover CPU / 128 cores - 0.5 x leftover GPU / 8 GPUs), cut to
 *            an integer, then min-max normalized over the feasible nodes
 *            (plugin_utils.go, NormalizeScore; integer arithmetic); highest.
 *   dotprod  pkg/simulator/plugin/dot_product_score.go with the run
 *            script's "merge" and "max" settings: 100 x (1 - (cpu x free cpu
 *            / 128^2 + gpu x free gpu / 8^2) / 2), cut to an integer;
 *            highest, i.e. the smallest dot product: it packs.
 *   cards    bestfit and dotprod (open_gpu_share.go, "best"): a sharing task
 *            takes the fitting card with the least room (first by index),
 *            whole cards the first free ones.
 *   ties     the vendored scheduler (generic_scheduler.go, selectHost) takes
 *            the smallest node name among the best scores, and the simulator
 *            (simulator.go, syncClusterResourceList) prefixes every node name
 *            with its place in a seeded random permutation: ties follow one
 *            random node order per seed. Ours is drawn from the seed's own
 *            stream, not Go's, so single seeds differ; seed means agree.
 *
 * Cost: O(nodes) per placement on top of the exact strategies' scan (the
 * bestfit normalization keeps one score per feasible node).
 * SPDX-License-Identifier: MIT */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../base/gs_rng.h"
#include "share_paper.h"

#define MAX_SPEC_CPU_MILLI 128000.0 /* the artifact's normalizers (open-gpu-share/utils/const.go) */
#define MAX_SPEC_GPU_MILLI 8000.0
#define NODE_SCORE_MAX 100.0 /* Kubernetes framework.MaxNodeScore */

double sc_paper_fgd_score(double delta_gpus)
{
    /* the artifact subtracts two sums of the same terms, exactly 0 when the
     * node's measure does not move; keep that exact here too, since 50 and
     * 49.999... truncate to different integers */
    double decrease = fabs(delta_gpus) < 1e-9 ? 0 : -delta_gpus;
    return (double)(int64_t)(1.0 / (1.0 + exp(-decrease)) * NODE_SCORE_MAX);
}

static double milli(double units) { return floor(units * 1000.0 + 0.5); }

int64_t sc_paper_node_score(int select, double cpu_free, double gpu_free, double cpu_req, double gpu_req)
{
    double cf = milli(cpu_free), gf = milli(gpu_free), cr = milli(cpu_req), gr = milli(gpu_req);
    if (select == SC_SEL_BESTFIT) {
        double left = (cf - cr) / MAX_SPEC_CPU_MILLI * 0.5 + (gf - gr) / MAX_SPEC_GPU_MILLI * 0.5;
        return (int64_t)((1.0 - left) * NODE_SCORE_MAX);
    }
    double dot = cf / MAX_SPEC_CPU_MILLI * (cr / MAX_SPEC_CPU_MILLI) + gf / MAX_SPEC_GPU_MILLI * (gr / MAX_SPEC_GPU_MILLI);
    return (int64_t)(NODE_SCORE_MAX * (1.0 - dot / 2.0));
}

int64_t sc_paper_normalize(int64_t score, int64_t lo, int64_t hi)
{
    return hi == lo ? 0 : (score - lo) * (int64_t)NODE_SCORE_MAX / (hi - lo);
}

int *sc_paper_rank_new(uint64_t seed, int nnodes)
{
    int *rank = xmalloc(((size_t)nnodes + 1) * sizeof *rank);
    for (int i = 0; i < nnodes; i++)
        rank[i] = i;
    gsl_rng *r = gs_rng_new(seed, RNG_POLICY + 8);
    gsl_ran_shuffle(r, rank, (size_t)nnodes, sizeof *rank);
    gs_rng_free(r);
    return rank;
}
