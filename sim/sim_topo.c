/* sim_topo.c - the network topology and its domain index (sim_topo.h).
 * SPDX-License-Identifier: MIT */
#include "sim_topo.h"

#include <stdlib.h>
#include <string.h>

/* {==== the index ====} */

static inline int *hist_of(const topo_level *L, int d) { return L->hist + (size_t)d * (size_t)(L->g + 1); }

/* Every threshold's key (S, q) of domain d from its histogram: O(g). */
static void keys_of(const topo_level *L, int d, int *S, int *q)
{
    const int *h = hist_of(L, d);
    int run = 0;
    for (int t = L->g; t >= 1; t--) { /* S_t: nodes with t free cards or more */
        run += h[t];
        S[t] = run;
    }
    int best = 0;
    for (int t = 1; t <= L->g; t++) { /* q_t: the most free cards below t on some node */
        if (t - 1 >= 1 && h[t - 1] > 0)
            best = t - 1;
        q[t] = best;
    }
}

static void unlink_dom(topo_thresh *th, int t, int d)
{
    int s = th->key_s[d], q = th->key_q[d];
    if (th->prev[d] >= 0)
        th->next[th->prev[d]] = th->next[d];
    else
        th->head[s * t + q] = th->next[d];
    if (th->next[d] >= 0)
        th->prev[th->next[d]] = th->prev[d];
    if (th->head[s * t + q] < 0) {
        th->qmask[s] &= ~(1ULL << q);
        if (!th->qmask[s])
            th->smask[s / 64] &= ~(1ULL << (s % 64));
    }
}

static void link_dom(topo_thresh *th, int t, int d, int s, int q)
{
    int *h = &th->head[s * t + q];
    th->key_s[d] = s;
    th->key_q[d] = q;
    th->prev[d] = -1;
    th->next[d] = *h;
    if (*h >= 0)
        th->prev[*h] = d;
    *h = d;
    th->qmask[s] |= 1ULL << q;
    th->smask[s / 64] |= 1ULL << (s % 64);
}

/* Domain d's buckets again after its histogram changed: O(g). */
static void rekey(topo_level *L, int d)
{
    int S[65], q[65];
    keys_of(L, d, S, q);
    for (int t = 1; t <= L->g; t++) {
        topo_thresh *th = &L->th[t - 1];
        if (th->key_s[d] == S[t] && th->key_q[d] == q[t])
            continue;
        unlink_dom(th, t, d);
        link_dom(th, t, d, S[t], q[t]);
    }
}

static inline void mark(topo_level *L, int d)
{
    if (!L->is_dirty[d]) {
        L->is_dirty[d] = 1;
        L->dirty[L->ndirty++] = d;
    }
}

/* The marked domains of level L into their buckets. */
static topo_level *flush(sim_topo *t, int p, int l)
{
    topo_level *L = &t->lv[p][l];
    for (int i = 0; i < L->ndirty; i++) {
        rekey(L, L->dirty[i]);
        L->is_dirty[L->dirty[i]] = 0;
    }
    L->ndirty = 0;
    return L;
}

void sim_topo_moved(sim_topo *t, int p, int n, int from, int to)
{
    for (int l = 0; l < t->nlevels; l++) {
        topo_level *L = &t->lv[p][l];
        int d = sim_topo_dom(t, n, l), *h = hist_of(L, d);
        h[from]--;
        h[to]++;
        mark(L, d);
    }
}

void sim_topo_node(sim_topo *t, int p, int n, int f, bool in)
{
    for (int l = 0; l < t->nlevels; l++) {
        topo_level *L = &t->lv[p][l];
        int d = sim_topo_dom(t, n, l);
        hist_of(L, d)[f] += in ? 1 : -1;
        mark(L, d);
    }
}

int sim_topo_count(sim_topo *t, int p, int l, int d, int th, int *q)
{
    const topo_level *L = flush(t, p, l);
    if (th < 1 || th > L->g) {
        *q = 0;
        return 0;
    }
    *q = L->th[th - 1].key_q[d];
    return L->th[th - 1].key_s[d];
}

/* The first non-empty row of th from s on (<= dmax), -1: none. */
static int row_from(const topo_thresh *th, int dmax, int s)
{
    for (int w = s / 64; w * 64 <= dmax; w++) {
        uint64_t m = th->smask[w] & (w == s / 64 ? ~0ULL << (s % 64) : ~0ULL);
        if (m)
            return w * 64 + __builtin_ctzll(m);
    }
    return -1;
}

int sim_topo_best(sim_topo *t, int p, int l, int g, int k, int r)
{
    const topo_level *L = flush(t, p, l);
    if (g < 1 || g > L->g || k < 1)
        return -1;
    const topo_thresh *th = &L->th[g - 1];
    if (k - 1 <= L->dmax && r < g) { /* k - 1 parts of g and a node with r..g-1 for the last */
        uint64_t m = th->qmask[k - 1] & (~0ULL << r);
        if (m)
            return th->head[(k - 1) * g + __builtin_ctzll(m)];
    }
    int s = k <= L->dmax ? row_from(th, L->dmax, k) : -1;
    return s < 0 ? -1 : th->head[s * g + __builtin_ctzll(th->qmask[s])];
}

int sim_topo_largest(sim_topo *t, int p, int l, int g, int *out, int max)
{
    const topo_level *L = flush(t, p, l);
    if (g < 1 || g > L->g)
        return 0;
    const topo_thresh *th = &L->th[g - 1];
    int n = 0;
    for (int s = L->dmax; s >= 1 && n < max; s--) {
        if (!(th->smask[s / 64] >> (s % 64) & 1))
            continue;
        for (uint64_t m = th->qmask[s]; m && n < max; m &= m - 1)
            for (int d = th->head[s * g + __builtin_ctzll(m)]; d >= 0 && n < max; d = th->next[d])
                out[n++] = d;
    }
    return n;
}

/* {==== building ====} */

static void level_build(topo_level *L, const sim_topo *t, const topo_nodes *nd, int p, int l, int ndom)
{
    L->ndom = ndom;
    L->g = nd->pool_g[p];
    int *cnt = xcalloc((size_t)ndom + 1, sizeof *cnt);
    for (int n = 0; n < nd->nnodes; n++)
        if (nd->pool[n] == p)
            cnt[sim_topo_dom(t, n, l)]++;
    L->dmax = 0;
    for (int d = 0; d < ndom; d++)
        L->dmax = cnt[d] > L->dmax ? cnt[d] : L->dmax;
    free(cnt);
    L->hist = xcalloc((size_t)ndom * (size_t)(L->g + 1), sizeof *L->hist);
    for (int n = 0; n < nd->nnodes; n++)
        if (nd->pool[n] == p)
            hist_of(L, sim_topo_dom(t, n, l))[nd->free[n]]++;
    L->th = xcalloc((size_t)L->g + 1, sizeof *L->th);
    L->dirty = xmalloc(((size_t)ndom + 1) * sizeof *L->dirty);
    L->is_dirty = xcalloc((size_t)ndom + 1, 1);
    int S[65], q[65];
    for (int th = 1; th <= L->g; th++) {
        topo_thresh *x = &L->th[th - 1];
        x->head = xmalloc((size_t)(L->dmax + 1) * (size_t)th * sizeof *x->head);
        for (int i = 0; i < (L->dmax + 1) * th; i++)
            x->head[i] = -1;
        x->next = xmalloc((size_t)ndom * sizeof *x->next);
        x->prev = xmalloc((size_t)ndom * sizeof *x->prev);
        x->key_s = xmalloc((size_t)ndom * sizeof *x->key_s);
        x->key_q = xmalloc((size_t)ndom * sizeof *x->key_q);
        x->qmask = xcalloc((size_t)L->dmax + 1, sizeof *x->qmask);
        x->smask = xcalloc((size_t)L->dmax / 64 + 1, sizeof *x->smask);
    }
    L->ever_s = xcalloc((size_t)L->g + 2, sizeof *L->ever_s);
    for (int d = ndom - 1; d >= 0; d--) { /* linked in reverse: the lowest domain heads its bucket */
        keys_of(L, d, S, q);
        for (int th = 1; th <= L->g; th++) {
            link_dom(&L->th[th - 1], th, d, S[th], q[th]);
            L->ever_s[th] = S[th] > L->ever_s[th] ? S[th] : L->ever_s[th];
        }
    }
}

void sim_topo_set_ever(sim_topo *t, const topo_nodes *nd)
{
    for (int p = 0; p < t->npools; p++)
        for (int l = 0; l < t->nlevels; l++) {
            topo_level *L = &t->lv[p][l];
            int *cnt = xcalloc((size_t)L->ndom * (size_t)(L->g + 2), sizeof *cnt);
            for (int n = 0; n < nd->nnodes; n++)
                if (nd->pool[n] == p)
                    for (int th = 1; th <= nd->free[n] && th <= L->g; th++)
                        cnt[(size_t)sim_topo_dom(t, n, l) * (size_t)(L->g + 2) + th]++;
            memset(L->ever_s, 0, (size_t)(L->g + 2) * sizeof *L->ever_s);
            for (int d = 0; d < L->ndom; d++)
                for (int th = 1; th <= L->g; th++) {
                    int v = cnt[(size_t)d * (size_t)(L->g + 2) + th];
                    L->ever_s[th] = v > L->ever_s[th] ? v : L->ever_s[th];
                }
            free(cnt);
        }
}

bool sim_topo_ever(const sim_topo *t, int p, int l, int g, int k, int r)
{
    const topo_level *L = &t->lv[p][l];
    if (g < 1 || g > L->g || r < 1 || r > L->g)
        return false;
    return L->ever_s[g] >= k || (L->ever_s[g] >= k - 1 && L->ever_s[r] >= k);
}

void sim_topo_build(sim_topo *t, const topo_nodes *nd)
{
    t->npools = nd->npools;
    t->lv = xcalloc((size_t)nd->npools + 1, sizeof *t->lv);
    int nracks = (nd->nnodes + t->rack_nodes - 1) / t->rack_nodes;
    int nblocks = (nracks + t->block_racks - 1) / t->block_racks;
    for (int p = 0; p < nd->npools; p++)
        for (int l = 0; l < t->nlevels; l++)
            level_build(&t->lv[p][l], t, nd, p, l, l == TOPO_RACK ? nracks : nblocks);
}

static void level_free(topo_level *L)
{
    for (int th = 1; L->th && th <= L->g; th++) {
        topo_thresh *x = &L->th[th - 1];
        free(x->head);
        free(x->next);
        free(x->prev);
        free(x->key_s);
        free(x->key_q);
        free(x->qmask);
        free(x->smask);
    }
    free(L->th);
    free(L->hist);
    free(L->ever_s);
    free(L->dirty);
    free(L->is_dirty);
}

void sim_topo_free(sim_topo *t)
{
    if (!t)
        return;
    for (int p = 0; p < t->npools; p++)
        for (int l = 0; l < t->nlevels; l++)
            level_free(&t->lv[p][l]);
    free(t->lv);
    free(t);
}

/* {==== the cluster file's "topology" ====} */

static int bad(gs_error *err, const char *path, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "cluster '%s': topology.%s: expected %s", path, field, want);
}

/* The array j[key] of n numbers from lo to hi into v. */
static bool numbers(const cJSON *j, const char *key, int n, double lo, double hi, double *v)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, key), *x;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return false;
    int i = 0;
    cJSON_ArrayForEach(x, a)
    {
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi))
            return false;
        v[i++] = x->valuedouble;
    }
    return true;
}

/* levels must be ["rack"] or ["block", "rack"]: *n their number. */
static bool levels_of(const cJSON *j, int *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "levels");
    int k = cJSON_GetArraySize(a);
    if (!cJSON_IsArray(a) || k < 1 || k > TOPO_MAX_LEVELS)
        return false;
    const char *want[2][2] = {{"rack", NULL}, {"block", "rack"}};
    for (int i = 0; i < k; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsString(x) || strcmp(x->valuestring, want[k - 1][i]))
            return false;
    }
    *n = k;
    return true;
}

int sim_topo_parse(sim_topo **out, const cJSON *j, const char *path, gs_error *err)
{
    *out = NULL;
    if (!j)
        return 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, j)
    {
        if (strcmp(k->string, "levels") && strcmp(k->string, "sizes") && strcmp(k->string, "bw_gbps") &&
            strcmp(k->string, "comment"))
            return gs_err(err, GS_EINPUT, "cluster '%s': topology: unknown key '%s' (expected levels, sizes, bw_gbps)",
                          path, k->string);
    }
    int nl;
    double sizes[TOPO_MAX_LEVELS], bw[TOPO_MAX_LEVELS];
    if (!cJSON_IsObject(j) || !levels_of(j, &nl))
        return bad(err, path, "levels", "[\"rack\"] or [\"block\", \"rack\"] (top level first)");
    if (!numbers(j, "sizes", nl, 1, 1e7, sizes))
        return bad(err, path, "sizes", "one integer >= 1 per level (racks per block, nodes per rack)");
    for (int i = 0; i < nl; i++)
        if (sizes[i] != (double)(int)sizes[i])
            return bad(err, path, "sizes", "one integer >= 1 per level (racks per block, nodes per rack)");
    if (!numbers(j, "bw_gbps", nl, 1e-6, 1e6, bw))
        return bad(err, path, "bw_gbps", "one per-GPU bandwidth per level, GB/s from 1e-6 to 1e6");
    sim_topo *t = xcalloc(1, sizeof *t);
    t->nlevels = nl;
    t->rack_nodes = (int)sizes[nl - 1];
    t->block_racks = nl == 2 ? (int)sizes[0] : 1;
    t->bw_gbps[TOPO_RACK] = bw[nl - 1];
    t->bw_gbps[TOPO_BLOCK] = bw[0];
    *out = t;
    return 0;
}
