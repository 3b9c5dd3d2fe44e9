/* pol_dualpod.c - service actuator: dual-pod model actuation (llm-d Fast
 * Model Actuation with vLLM sleep mode; reference/mechanics.md sections
 * 4-5; exact rules and defaults in policies/README.md).
 *
 * It registers as the service layer's actuator (pol_ops.actuator,
 * sim/service/svc_actuator.h) and watches no trace job:
 * - scale-in of an idle replica puts its model instance to sleep (level 1:
 *   weights to the node's host RAM; level 2: weights dropped); the replica's
 *   task, and so its GPUs, is ended only when the sleep has finished, so the
 *   ledger never shows a GPU free while an awake instance still runs on it;
 * - a new replica prefers a node holding a sleeping instance of its model
 *   (job_more.prefer_node) and, once placed, is activated hot (wake the sleeper),
 *   warm (a launcher on the node has room, or makes room by evicting its least
 *   recently used sleeper) or cold (a new launcher).
 * In mode dualpod every activation also pays the actuation path around the
 * server's own start, as llm-d measures it (requester container start to
 * readiness relayed): the requester pod start, the controller's binding,
 * the readiness probe period and the relay of readiness to the requester;
 * the report splits each activation into these steps.
 * dualpod_mode=always-on and scale-to-zero are the baselines in the same run
 * family: every model keeps one replica awake, or every activation is cold
 * and scale-in ends the replica at once (the layer's own behaviour).
 *
 * Cost per hook: O(instances of the model) for the hot search, O(launchers
 * per node x max_instances) for the warm search and evictions.
 * SPDX-License-Identifier: MIT */
#include "pol_dualpod.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "../sim/sim_report.h"
#include "../sim/service/svc.h"
#include "../sim/service/svc_actuator.h"
#include "../sim/sim_policy.h"

enum { MODE_DUALPOD, MODE_ALWAYS_ON, MODE_SCALE_TO_ZERO };

typedef struct inst {
    int state; /* enum dp_inst_state */
    int level; /* sleep level while sleeping / asleep */
    int svc, node, launcher; /* launcher -1: a plain pod outside any launcher */
    job *j;                  /* the replica task while awake or going to sleep */
    uint32_t jgen;
    gs_time_us slept_us; /* when it fell asleep: the LRU key */
    double host_gib;     /* host RAM held by its sleeping weights */
    double gpus;         /* GPUs of its task */
} inst;

typedef struct dp_launcher {
    int node;
    int n;     /* instances in it (awake + going to sleep + asleep) */
    int *inst; /* [max_instances] */
} dp_launcher;

typedef struct svc_list {
    int *ids; /* instances of this service, any state but free */
    int n, cap;
} svc_list;

typedef struct dp {
    sim *s;
    int self;
    int mode, level, max_inst, lpn; /* lpn < 0: one launcher per GPU of the node */
    bool host_evict;
    double host_gib, wake_gibps, wake_fixed_s, wake_l2_fixed_s, sleep_fixed_s, residual_gib;
    double pod_s, import_s, load_gbps;
    double req_s, bind_s, probe_s, relay_s; /* actuation steps around the server's start */
    /* instances (slab with a free list) */
    inst *in;
    int nin, capin, *freei, nfree;
    /* task slot -> instance (-1) */
    int *by_slot;
    uint32_t cap_slot;
    /* launchers, per node lists */
    dp_launcher *la;
    int nla, capla;
    int nnodes;
    int **node_la, *node_nla;
    double *node_host_gib; /* host RAM held by sleeping weights per node */
    svc_list *per_svc;
    int nsvc;
    /* figures */
    uint64_t act[4], hot_l2, sleeps[3], evict_full, evict_host, drops_to_l2, unmanaged, launchers_made, ended;
    sim_sketch first[4], first_all;
    sim_sketch act_total[4];   /* per path: whole actuation, requester start to readiness relayed */
    double act_server_s[4];    /* per path: sum of the server step (wake, launch or cold start) */
    sim_gauge g_gpus, g_host, g_resid;
    double peak_node_host_gib;
} dp;

static const pol_param params[] = {
    {"dualpod_mode", "dualpod", "dualpod: sleep and wake; always-on: one replica per model never sleeps; "
                                "scale-to-zero: every activation cold", P_ENUM("dualpod|always-on|scale-to-zero")},
    {"sleep_level", "1", "1: weights to host RAM; 2: weights dropped (vLLM sleep levels, reference/mechanics.md 4)", P_INT(1, 2)},
    {"launchers_per_node", "gpus", "launchers a node may run; gpus: one per GPU of the node (reference/mechanics.md 5)", P_INT_OR(0, 4096, "gpus")},
    {"max_instances", "2", "model instances per launcher, awake + asleep (LauncherConfig docs, reference/mechanics.md 5)", P_INT(1, 64)},
    {"host_sleep_gib", "512", "host RAM per node for level-1 sleeping weights, GiB; assumption", P_NUM(0, 1e9, "GiB")},
    {"host_full", "level2", "a level-1 sleep that does not fit host RAM: level2 (sleep at level 2) or evict "
                            "(evict LRU level-1 sleepers of the node, then level 2)", P_ENUM("level2|evict")},
    {"wake_l1_gibps", "20", "level-1 wake (and sleep) copy bandwidth GiB/s (reference/mechanics.md 4, vllm.wake_l1_bw)", P_NUM(1e-6, 1e6, "GiB/s")},
    {"wake_l1_fixed_s", "0.2", "level-1 wake fixed cost s (reference/mechanics.md 4, vllm.wake_l1_fixed)", P_DURATION(0, 1e6)},
    {"wake_l2_fixed_s", "0.5", "level-2 wake: reload at svc_load_gbps plus this, s (reference/mechanics.md 4, vllm.wake_l2)", P_DURATION(0, 1e6)},
    {"sleep_fixed_s", "0.3", "sleep fixed cost s, after the weight copy (reference/mechanics.md 4 [U])", P_DURATION(0, 1e6)},
    {"act_requester_s", "2", "actuation: the requester pod's start (K8s pod start without image pull; p99 SLO 5 s, reference/mechanics.md 4) [U]", P_DURATION(0, 1e6)},
    {"act_bind_s", "1", "actuation: the dual-pods controller binds the requester to a server [U] (reference/mechanics.md 5)", P_DURATION(0, 1e6)},
    {"act_probe_s", "5", "actuation: readiness probe period; readiness is seen one period after the server is ready (llm-d benchmark, reference/mechanics.md 5)", P_DURATION(0, 1e6)},
    {"act_relay_s", "4", "actuation: readiness relayed to the requester [U]; with the defaults a 16 GiB hot wake totals the measured mean 13 s (reference/mechanics.md 5)", P_DURATION(0, 1e6)},
    {"sleep_residual_gib", "1", "GPU memory a sleeping instance keeps per GPU, GiB (reference/mechanics.md 4-5)", P_NUM(0, 1e6, "GiB")},
    {NULL, NULL, NULL, {0, 0, 0, NULL, NULL}},
};

/* {==== instances and launchers ====} */

static int inst_new(dp *d, int svc, int node, int launcher, job *j)
{
    int id;
    if (d->nfree) {
        id = d->freei[--d->nfree];
    } else {
        if (d->nin == d->capin) {
            d->capin = d->capin ? 2 * d->capin : 64;
            d->in = xrealloc(d->in, (size_t)d->capin * sizeof *d->in);
            d->freei = xrealloc(d->freei, (size_t)d->capin * sizeof *d->freei);
        }
        id = d->nin++;
    }
    inst *x = &d->in[id];
    memset(x, 0, sizeof *x);
    x->state = DP_AWAKE;
    x->svc = svc;
    x->node = node;
    x->launcher = launcher;
    x->j = j;
    x->jgen = j->gen;
    x->gpus = j->ngpu_ids > 0 ? j->ngpu_ids : j->req.gpus; /* a shared card: the request */
    if (launcher >= 0) {
        dp_launcher *l = &d->la[launcher];
        l->inst[l->n++] = id;
    }
    svc_list *sl = &d->per_svc[svc];
    if (sl->n == sl->cap) {
        sl->cap = sl->cap ? 2 * sl->cap : 4;
        sl->ids = xrealloc(sl->ids, (size_t)sl->cap * sizeof *sl->ids);
    }
    sl->ids[sl->n++] = id;
    return id;
}

static void remove_id(int *a, int *n, int id)
{
    for (int i = 0; i < *n; i++)
        if (a[i] == id) {
            a[i] = a[--*n];
            return;
        }
    GS_BUG("dualpod: instance missing from its list");
}

/* Deletes an instance (evicted, or its service ended, or a plain pod gone). */
static void inst_free(dp *d, int id)
{
    inst *x = &d->in[id];
    if (x->state == DP_ASLEEP) {
        sim_gauge_add(&d->g_resid, sim_now(d->s), -d->residual_gib * x->gpus);
        sim_gauge_add(&d->g_host, sim_now(d->s), -x->host_gib);
        d->node_host_gib[x->node] -= x->host_gib;
    }
    if (x->launcher >= 0) {
        dp_launcher *l = &d->la[x->launcher];
        remove_id(l->inst, &l->n, id);
    }
    svc_list *sl = &d->per_svc[x->svc];
    remove_id(sl->ids, &sl->n, id);
    x->state = DP_FREE;
    x->j = NULL;
    d->freei[d->nfree++] = id;
}

static int launcher_new(dp *d, int node)
{
    if (d->nla == d->capla) {
        d->capla = d->capla ? 2 * d->capla : 16;
        d->la = xrealloc(d->la, (size_t)d->capla * sizeof *d->la);
    }
    int id = d->nla++;
    d->la[id] = (dp_launcher){.node = node, .n = 0, .inst = xmalloc((size_t)d->max_inst * sizeof(int))};
    d->node_la[node] = xrealloc(d->node_la[node], (size_t)(d->node_nla[node] + 1) * sizeof(int));
    d->node_la[node][d->node_nla[node]++] = id;
    d->launchers_made++;
    return id;
}

static int launchers_allowed(const dp *d, int node)
{
    return d->lpn >= 0 ? d->lpn : sim_cluster_of(d->s)->nodes[node].ngpus;
}

/* The least recently used asleep instance among launchers of node; only
 * those in full launchers when full_only; only level 1 when l1_only. -1: none.
 * O(launchers of the node x max_instances). */
static int lru_sleeper(const dp *d, int node, bool full_only, bool l1_only)
{
    int best = -1;
    for (int k = 0; k < d->node_nla[node]; k++) {
        const dp_launcher *l = &d->la[d->node_la[node][k]];
        if (full_only && l->n < d->max_inst)
            continue;
        for (int i = 0; i < l->n; i++) {
            const inst *x = &d->in[l->inst[i]];
            if (x->state != DP_ASLEEP || (l1_only && x->level != 1))
                continue;
            if (best < 0 || x->slept_us < d->in[best].slept_us)
                best = l->inst[i];
        }
    }
    return best;
}

static void map_slot(dp *d, const job *j, int id)
{
    if (j->slot >= d->cap_slot) {
        uint32_t cap = d->cap_slot ? d->cap_slot : 64;
        while (cap <= j->slot)
            cap *= 2;
        d->by_slot = xrealloc(d->by_slot, cap * sizeof *d->by_slot);
        for (uint32_t i = d->cap_slot; i < cap; i++)
            d->by_slot[i] = -1;
        d->cap_slot = cap;
    }
    d->by_slot[j->slot] = id;
}

static int inst_of(const dp *d, const job *j)
{
    if (j->slot >= d->cap_slot || d->by_slot[j->slot] < 0)
        return -1;
    int id = d->by_slot[j->slot];
    const inst *x = &d->in[id];
    return x->j == j && x->jgen == j->gen && (x->state == DP_AWAKE || x->state == DP_SLEEPING) ? id : -1;
}

/* {==== actuator hooks ====} */

static int dp_min_replicas(const void *state)
{
    const dp *d = state;
    return d->mode == MODE_ALWAYS_ON ? 1 : 0; /* always-on: one awake per model */
}

static void dp_placing(void *state, sim *s, job *j, int svc)
{
    dp *d = state;
    if (d->mode != MODE_DUALPOD)
        return;
    if (svc >= d->nsvc) {
        d->per_svc = xrealloc(d->per_svc, (size_t)(svc + 1) * sizeof *d->per_svc);
        memset(d->per_svc + d->nsvc, 0, (size_t)(svc + 1 - d->nsvc) * sizeof *d->per_svc);
        d->nsvc = svc + 1;
    }
    /* the most recently slept instance whose node has room now: O(instances of the model) */
    const svc_list *sl = &d->per_svc[svc];
    int best = -1;
    for (int i = 0; i < sl->n; i++) {
        const inst *x = &d->in[sl->ids[i]];
        if (x->state == DP_ASLEEP && (best < 0 || x->slept_us > d->in[best].slept_us) &&
            sim_cluster_node_fits(sim_cluster_of(s), x->node, ~0ULL, j->req.gpus, j->req.cpu, j->req.mem_gib))
            best = sl->ids[i];
    }
    if (best >= 0)
        sim_job_more(j)->prefer_node = d->in[best].node;
}

static double gib_of_gb(double gb) { return gb / 1.073741824; }

static int dp_activate(void *state, sim *s, job *j, int svc, double cold_s, double *ready_s)
{
    dp *d = state;
    svc_desc v;
    svc_describe(s, svc, &v);
    if (svc >= d->nsvc) { /* a replica placed before any placing() (always-on, scale-to-zero) */
        d->per_svc = xrealloc(d->per_svc, (size_t)(svc + 1) * sizeof *d->per_svc);
        memset(d->per_svc + d->nsvc, 0, (size_t)(svc + 1 - d->nsvc) * sizeof *d->per_svc);
        d->nsvc = svc + 1;
    }
    sim_gauge_add(&d->g_gpus, sim_now(s), j->ngpu_ids > 0 ? j->ngpu_ids : j->req.gpus);
    int node = j->node, path = SVC_PATH_COLD, id = -1;
    double load_s = v.weights_gib / gib_of_gb(d->load_gbps);
    *ready_s = cold_s;
    if (d->mode != MODE_DUALPOD || node < 0) { /* node < 0: a space policy that records none */
        if (d->mode == MODE_DUALPOD)
            d->unmanaged++;
        id = inst_new(d, svc, node < 0 ? 0 : node, -1, j);
    } else {
        /* hot: a sleeping instance of the model on this node */
        const svc_list *sl = &d->per_svc[svc];
        for (int i = 0; i < sl->n && id < 0; i++)
            if (d->in[sl->ids[i]].state == DP_ASLEEP && d->in[sl->ids[i]].node == node)
                id = sl->ids[i];
        if (id >= 0) {
            inst *x = &d->in[id];
            path = SVC_PATH_HOT;
            *ready_s = x->level == 1 ? v.weights_gib / d->wake_gibps + d->wake_fixed_s : load_s + d->wake_l2_fixed_s;
            if (x->level == 2)
                d->hot_l2++;
            sim_gauge_add(&d->g_resid, sim_now(s), -d->residual_gib * x->gpus);
            sim_gauge_add(&d->g_host, sim_now(s), -x->host_gib);
            d->node_host_gib[node] -= x->host_gib;
            x->host_gib = 0;
            x->state = DP_AWAKE;
            x->j = j;
            x->jgen = j->gen;
            x->gpus = j->ngpu_ids > 0 ? j->ngpu_ids : j->req.gpus;
        } else {
            /* warm: a launcher of the node with room, else one that makes room
             * by evicting its least recently used sleeper */
            int la = -1;
            for (int k = 0; k < d->node_nla[node] && la < 0; k++)
                if (d->la[d->node_la[node][k]].n < d->max_inst)
                    la = d->node_la[node][k];
            if (la < 0 && d->node_nla[node] >= launchers_allowed(d, node)) {
                int victim = lru_sleeper(d, node, true, false);
                if (victim >= 0) {
                    la = d->in[victim].launcher;
                    inst_free(d, victim);
                    d->evict_full++;
                }
            }
            if (la >= 0) {
                path = SVC_PATH_WARM;
                *ready_s = cold_s - d->pod_s - d->import_s; /* no container start, modules preloaded */
            } else if (d->node_nla[node] < launchers_allowed(d, node)) {
                la = launcher_new(d, node); /* cold: a new launcher pod */
            } else {
                d->unmanaged++; /* every launcher busy with awake instances: a plain pod */
            }
            id = inst_new(d, svc, node, la, j);
        }
    }
    map_slot(d, j, id);
    d->act[path]++;
    if (d->mode == MODE_DUALPOD) {
        /* the steps around the server's start: the requester runs and is bound
         * before the server starts; its readiness is seen at the next probe and
         * then relayed. Sequential, so they add. */
        d->act_server_s[path] += *ready_s;
        *ready_s += d->req_s + d->bind_s + d->probe_s + d->relay_s;
        sim_sketch_add(&d->act_total[path], *ready_s);
    }
    return path;
}

/* Host RAM for a level-1 sleep of w GiB on node: evicts level-1 sleepers
 * (LRU) when host_full=evict. Returns whether it fits. */
static bool host_room(dp *d, int node, double w)
{
    while (d->node_host_gib[node] + w > d->host_gib + 1e-9) {
        int victim = d->host_evict ? lru_sleeper(d, node, false, true) : -1;
        if (victim < 0)
            return false;
        inst_free(d, victim);
        d->evict_host++;
    }
    return true;
}

static bool dp_retire(void *state, sim *s, job *j, int svc, bool ending)
{
    dp *d = state;
    int id = inst_of(d, j);
    if (id < 0)
        GS_BUG("dualpod: retiring a task it never activated");
    inst *x = &d->in[id];
    if (d->mode != MODE_DUALPOD || x->launcher < 0 || ending) {
        sim_gauge_add(&d->g_gpus, sim_now(s), -x->gpus);
        inst_free(d, id);
        if (ending)
            d->ended++;
        return false; /* the layer ends the task now */
    }
    svc_desc v;
    svc_describe(s, svc, &v);
    x->level = d->level;
    if (x->level == 1 && !host_room(d, x->node, v.weights_gib)) {
        x->level = 2;
        d->drops_to_l2++;
    }
    double sleep_s = d->sleep_fixed_s;
    if (x->level == 1) {
        x->host_gib = v.weights_gib; /* reserved now: the copy is under way */
        d->node_host_gib[x->node] += x->host_gib;
        if (d->node_host_gib[x->node] > d->peak_node_host_gib)
            d->peak_node_host_gib = d->node_host_gib[x->node];
        sim_gauge_add(&d->g_host, sim_now(s), x->host_gib);
        sleep_s += v.weights_gib / d->wake_gibps;
    }
    x->state = DP_SLEEPING;
    d->sleeps[x->level]++;
    sim_timer(s, d->self, j, sim_now(s) + (gs_time_us)llround(sleep_s * 1e6), (uint32_t)id);
    return true;
}

static void dp_timer(void *state, sim *s, job *j, uint32_t tag)
{
    dp *d = state;
    if (!j || (int)tag >= d->nin)
        return;
    inst *x = &d->in[tag];
    if (x->state != DP_SLEEPING || x->j != j || x->jgen != j->gen)
        return;
    /* asleep: only now does its GPU go back */
    x->state = DP_ASLEEP;
    x->slept_us = sim_now(s);
    x->j = NULL;
    sim_gauge_add(&d->g_resid, sim_now(s), d->residual_gib * x->gpus);
    sim_gauge_add(&d->g_gpus, sim_now(s), -x->gpus);
    sim_task_end(s, j);
}

static void dp_first(void *state, sim *s, int svc, int path, double latency_s)
{
    dp *d = state;
    (void)s, (void)svc;
    sim_sketch_add(&d->first[path], latency_s);
    sim_sketch_add(&d->first_all, latency_s);
}

/* {==== life cycle ====} */

static int dp_init(sim *s, int index, void **state, gs_error *err)
{
    dp *d = xcalloc(1, sizeof *d);
    *state = d;
    d->s = s;
    d->self = index;
    for (int k = 0; k < 4; k++) {
        sim_sketch_init(&d->first[k]);
        sim_sketch_init(&d->act_total[k]);
    }
    sim_sketch_init(&d->first_all);
    d->g_gpus.since = d->g_host.since = d->g_resid.since = sim_now(s);
    (void)err; /* every value typed and range-checked by the core (the params' specs) */
    /* the modes in their declared order */
    static const int modes[] = {MODE_DUALPOD, MODE_ALWAYS_ON, MODE_SCALE_TO_ZERO};
    d->mode = modes[sim_param_choice(s, "dualpod_mode")];
    d->host_evict = sim_param_choice(s, "host_full") == 1;
    d->level = (int)sim_param_int(s, "sleep_level");
    d->max_inst = (int)sim_param_int(s, "max_instances");
    /* "gpus" (its word): one per GPU of the node, -1 */
    d->lpn = sim_param_choice(s, "launchers_per_node") == 0 ? -1 : (int)sim_param_int(s, "launchers_per_node");
    d->host_gib = sim_param_num(s, "host_sleep_gib");
    d->wake_gibps = sim_param_num(s, "wake_l1_gibps");
    d->wake_fixed_s = sim_param_number(s, "wake_l1_fixed_s");
    d->wake_l2_fixed_s = sim_param_number(s, "wake_l2_fixed_s");
    d->sleep_fixed_s = sim_param_number(s, "sleep_fixed_s");
    d->residual_gib = sim_param_num(s, "sleep_residual_gib");
    d->req_s = sim_param_number(s, "act_requester_s");
    d->bind_s = sim_param_number(s, "act_bind_s");
    d->probe_s = sim_param_number(s, "act_probe_s");
    d->relay_s = sim_param_number(s, "act_relay_s");
    d->pod_s = sim_param_number(s, "svc_pod_start_s");
    d->import_s = sim_param_number(s, "svc_import_s");
    d->load_gbps = sim_param_number(s, "svc_load_gbps");
    d->nnodes = sim_cluster_of(s)->nnodes;
    d->node_la = xcalloc((size_t)sim_cluster_of(s)->nnodes, sizeof *d->node_la);
    d->node_nla = xcalloc((size_t)sim_cluster_of(s)->nnodes, sizeof *d->node_nla);
    d->node_host_gib = xcalloc((size_t)sim_cluster_of(s)->nnodes, sizeof *d->node_host_gib);
    return 0;
}

static void dp_fini(void *state)
{
    dp *d = state;
    if (!d)
        return;
    for (int k = 0; k < 4; k++) {
        sim_sketch_free(&d->first[k]);
        sim_sketch_free(&d->act_total[k]);
    }
    sim_sketch_free(&d->first_all);
    for (int i = 0; i < d->nla; i++)
        free(d->la[i].inst);
    for (int n = 0; d->node_la && n < d->nnodes; n++)
        free(d->node_la[n]);
    for (int i = 0; i < d->nsvc; i++)
        free(d->per_svc[i].ids);
    free(d->per_svc);
    free(d->node_la);
    free(d->node_nla);
    free(d->node_host_gib);
    free(d->la);
    free(d->in);
    free(d->freei);
    free(d->by_slot);
    free(d);
}

/* {==== report ====} */

static const char *const path_names[4] = {"awake", "hot", "warm", "cold"};

static void dp_report(const void *state, const sim *s, cJSON *root)
{
    const dp *d = state;
    gs_time_us now = sim_now(s);
    cJSON *o = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(root, "policy"), "dualpod");
    static const char *const modes[] = {"dualpod", "always-on", "scale-to-zero"};
    cJSON_AddStringToObject(o, "mode", modes[d->mode]);
    cJSON *a = cJSON_AddObjectToObject(o, "activations");
    uint64_t total = d->act[1] + d->act[2] + d->act[3];
    for (int k = 1; k < 4; k++)
        cJSON_AddNumberToObject(a, path_names[k], (double)d->act[k]);
    cJSON_AddNumberToObject(a, "total", (double)total);
    cJSON_AddNumberToObject(a, "hot_hit_rate", total ? (double)d->act[1] / (double)total : 0.0);
    cJSON_AddNumberToObject(a, "hot_from_level2", (double)d->hot_l2);
    cJSON_AddNumberToObject(a, "outside_launchers", (double)d->unmanaged);
    /* each activation split into its steps (means per path; dualpod mode) */
    cJSON *as = cJSON_AddObjectToObject(o, "actuation_s");
    for (int k = 1; k < 4; k++) {
        const sim_sketch *t = &d->act_total[k];
        double n = (double)t->n;
        cJSON *p = cJSON_AddObjectToObject(as, path_names[k]);
        cJSON_AddNumberToObject(p, "count", n);
        cJSON_AddNumberToObject(p, "requester_s", n > 0 ? d->req_s : 0);
        cJSON_AddNumberToObject(p, "bind_s", n > 0 ? d->bind_s : 0);
        cJSON_AddNumberToObject(p, "server_s", n > 0 ? d->act_server_s[k] / n : 0);
        cJSON_AddNumberToObject(p, "probe_s", n > 0 ? d->probe_s : 0);
        cJSON_AddNumberToObject(p, "relay_s", n > 0 ? d->relay_s : 0);
        sim_report_add_stats(p, "total_s", t);
    }
    cJSON *f = cJSON_AddObjectToObject(o, "first_request_latency_s");
    sim_report_add_stats(f, "all", &d->first_all);
    for (int k = 0; k < 4; k++)
        sim_report_add_stats(f, path_names[k], &d->first[k]);
    /* GPU-hours: what model-service tasks held (sleep transitions included)
     * against every model holding its cards for its whole declared window.
     * O(services). */
    double always_h = 0;
    for (int i = 0; i < svc_count(s); i++) {
        svc_desc v;
        svc_describe(s, i, &v);
        gs_time_us end = v.end_us < now ? v.end_us : now;
        if (end > v.start_us)
            always_h += v.gpus * gs_us_to_s(end - v.start_us) / 3600.0;
    }
    double held_h = sim_gauge_area(&d->g_gpus, now) / 3600.0;
    cJSON *g = cJSON_AddObjectToObject(o, "gpu_hours");
    cJSON_AddNumberToObject(g, "held", held_h);
    cJSON_AddNumberToObject(g, "always_on", always_h);
    cJSON_AddNumberToObject(g, "saved_fraction", always_h > 0 ? 1.0 - held_h / always_h : 0.0);
    cJSON_AddNumberToObject(g, "sleep_residual_gib_hours", sim_gauge_area(&d->g_resid, now) / 3600.0);
    cJSON_AddNumberToObject(g, "sleep_residual_gib_peak", d->g_resid.peak);
    cJSON *h = cJSON_AddObjectToObject(o, "host_memory");
    cJSON_AddNumberToObject(h, "limit_gib_per_node", d->host_gib);
    cJSON_AddNumberToObject(h, "sleeping_weights_gib_at_end", d->g_host.value);
    cJSON_AddNumberToObject(h, "sleeping_weights_gib_peak", d->g_host.peak);
    cJSON_AddNumberToObject(h, "sleeping_weights_gib_hours", sim_gauge_area(&d->g_host, now) / 3600.0);
    cJSON_AddNumberToObject(h, "peak_gib_per_node", d->peak_node_host_gib);
    cJSON *sl = cJSON_AddObjectToObject(o, "sleeps");
    cJSON_AddNumberToObject(sl, "level1", (double)d->sleeps[1]);
    cJSON_AddNumberToObject(sl, "level2", (double)d->sleeps[2]);
    cJSON_AddNumberToObject(sl, "level1_to_level2_host_full", (double)d->drops_to_l2);
    cJSON *e = cJSON_AddObjectToObject(o, "evictions");
    cJSON_AddNumberToObject(e, "launcher_full", (double)d->evict_full);
    cJSON_AddNumberToObject(e, "host_memory", (double)d->evict_host);
    cJSON_AddNumberToObject(e, "total", (double)(d->evict_full + d->evict_host));
    int asleep = 0;
    for (int i = 0; i < d->nin; i++)
        asleep += d->in[i].state == DP_ASLEEP;
    cJSON_AddNumberToObject(o, "launchers", d->nla);
    cJSON_AddNumberToObject(o, "asleep_at_end", asleep);
}

/* {==== audit (tests) ====} */

int dualpod_task_state(const void *state, const job *j)
{
    const dp *d = state;
    int id = inst_of(d, j);
    return id < 0 ? DP_FREE : d->in[id].state;
}

int dualpod_audit(const void *state, const sim *s, char *why, size_t n)
{
    const dp *d = state;
    const sim_cluster *c = sim_cluster_of(s);
    int *owner = xmalloc((size_t)c->ngpus * sizeof *owner);
    for (int g = 0; g < c->ngpus; g++)
        owner[g] = -1;
    int bad = 0;
    for (int i = 0; i < d->nin && !bad; i++) {
        const inst *x = &d->in[i];
        if (x->state != DP_AWAKE && x->state != DP_SLEEPING)
            continue;
        if (!x->j || x->j->gen != x->jgen || x->j->state != JOB_RUNNING) {
            snprintf(why, n, "instance %d (%s) holds no running task", i, x->state == DP_AWAKE ? "awake" : "sleeping");
            bad = 1;
            break;
        }
        for (int k = 0; k < x->j->ngpu_ids; k++) {
            int gid = job_gpu_ids(x->j)[k];
            const sim_node *nd = &c->nodes[sim_cluster_gpu_node(c, gid)];
            if (nd->free_mask >> (gid - nd->gpu0) & 1) {
                snprintf(why, n, "GPU %d shows free under instance %d", gid, i);
                bad = 1;
            } else if (owner[gid] >= 0) {
                snprintf(why, n, "GPU %d held by instances %d and %d", gid, owner[gid], i);
                bad = 1;
            }
            owner[gid] = i;
        }
    }
    free(owner);
    return bad;
}

static const svc_actuator_ops actuator = {
    .min_replicas = dp_min_replicas,
    .placing = dp_placing,
    .activate = dp_activate,
    .retire = dp_retire,
    .first_served = dp_first,
};

const pol_ops pol_dualpod = {
    .abi = POL_ABI,
    .name = "dualpod",
    .summary = "idle model replicas sleep and free their GPU; wake hot, warm or cold (llm-d FMA)",
    .kind = POL_TIME, /* named after the space policy: whole+dualpod */
    .params = params,
    .init = dp_init,
    .fini = dp_fini,
    .timer = dp_timer,
    .report = dp_report,
    .actuator = &actuator,
    .failures_refused = "model instances asleep in a failed node's host memory would wake there: the actuator does "
                        "not learn node states",
};
