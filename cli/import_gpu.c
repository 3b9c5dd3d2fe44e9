/* import_gpu.c - see import_gpu.h.
 *
 * A product string names a catalog model when, ignoring case and treating
 * ' ', '-' and '_' alike, it equals a model's name or alias: GPU feature
 * discovery writes the device name with spaces as '-' ("NVIDIA-H100-80GB-
 * HBM3"), Slurm's NVML autodetection lower case with '_'
 * ("nvidia_h100_80gb_hbm3"), and both come from the name the driver
 * reports, which the catalog's aliases hold. The user's --gpu-product /
 * --gpu-type mappings come first, then the catalog, then the few device
 * names below that the aliases lack. MIG placement uses the catalog's
 * placement tables through policies/mig_layout.h, largest instance first
 * with backtracking (at most 8 instances a card).
 * SPDX-License-Identifier: MIT */
#include "import_gpu.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../policies/mig_layout.h"

/* Driver device names not among the catalog's aliases (nvidia-smi --query-gpu=name). */
static const struct {
    const char *product, *model;
} extra[] = {
    {"Tesla P100-PCIE-16GB", "P100-PCIE-16GB"},
    {"NVIDIA A100 80GB PCIe", "A100-SXM4-80GB"}, /* the catalog's A100-80GB covers the PCIe card (its alias) */
};

/* a and b equal ignoring case, with ' ', '-' and '_' one character. */
static bool same_product(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = tolower((unsigned char)*a), y = tolower((unsigned char)*b);
        if (x == '-' || x == '_')
            x = ' ';
        if (y == '-' || y == '_')
            y = ' ';
        if (x != y)
            return false;
        if (!x)
            return true;
    }
}

static const char *find_model(const gpu_catalog *cat, const char *product)
{
    const gpu_model *m = gpu_catalog_find(cat, product);
    if (m)
        return m->name;
    for (int i = 0; i < cat->n; i++) {
        if (same_product(cat->models[i].name, product))
            return cat->models[i].name;
        for (int a = 0; a < cat->models[i].naliases; a++)
            if (same_product(cat->models[i].aliases[a], product))
                return cat->models[i].name;
    }
    return NULL;
}

static const char *model_cb(void *ud, const char *product)
{
    const import_gpu *g = ud;
    for (int i = 0; i < g->nmap; i++)
        if (same_product(g->map[i].from, product))
            return g->map[i].to;
    const char *m = find_model(g->cat, product);
    for (size_t i = 0; !m && i < sizeof extra / sizeof *extra; i++)
        if (same_product(extra[i].product, product))
            m = find_model(g->cat, extra[i].model);
    return m;
}

static const mig_table *table_of(const import_gpu *g, const char *model)
{
    const gpu_model *m = gpu_catalog_find(g->cat, model);
    return m ? m->mig : NULL;
}

/* Places instances ord[k..n) on c, trying each legal start in order. */
static bool place_from(mig_card *c, const int *prof, const int *ord, int k, int n, int *starts)
{
    if (k == n)
        return true;
    int p = prof[ord[k]];
    const mig_profile *pr = &c->t->profiles[p];
    for (int q = 0; q < pr->nplacements; q++) {
        int s = pr->placements[q];
        if (!mig_can_place(c, p, s))
            continue;
        mig_place(c, p, s);
        starts[ord[k]] = s;
        if (place_from(c, prof, ord, k + 1, n, starts))
            return true;
        mig_remove(c, p, s);
    }
    return false;
}

static bool mig_place_cb(void *ud, const char *model, const char *const *profiles, int n, int *starts)
{
    const mig_table *t = table_of(ud, model);
    int prof[MIG_MAX_SLICES], ord[MIG_MAX_SLICES];
    if (!t || n > MIG_MAX_SLICES)
        return false;
    for (int i = 0; i < n; i++) {
        if ((prof[i] = mig_profile_find(t, profiles[i])) < 0)
            return false;
        ord[i] = i;
    }
    for (int i = 1; i < n; i++) /* largest first, file order among equals */
        for (int j = i; j > 0 && t->profiles[prof[ord[j]]].size > t->profiles[prof[ord[j - 1]]].size; j--) {
            int x = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = x;
        }
    mig_card c;
    mig_card_init(&c, t);
    return place_from(&c, prof, ord, 0, n, starts);
}

/* As the cluster file's "all-<profile>": lowest free starts until none. */
static int mig_all_cb(void *ud, const char *model, const char *profile)
{
    const mig_table *t = table_of(ud, model);
    int p = t ? mig_profile_find(t, profile) : -1, n = 0, st[MIG_MAX_SLICES];
    if (p < 0)
        return 0;
    mig_card c;
    mig_card_init(&c, t);
    while (n < MIG_MAX_SLICES && mig_free_starts(&c, p, st) > 0) {
        mig_place(&c, p, st[0]);
        n++;
    }
    return n;
}

void import_gpu_init(import_gpu *g, const gpu_catalog *cat)
{
    memset(g, 0, sizeof *g);
    g->cat = cat;
}

int import_gpu_load(import_gpu *g, gpu_catalog *cat, gs_error *err)
{
    char dir[512];
    gpu_catalog_default_dir(dir, sizeof dir);
    int rc = gpu_catalog_load(cat, dir, err);
    if (rc == 0)
        import_gpu_init(g, cat);
    return rc;
}

bool import_gpu_map(import_gpu *g, const char *spec, char *why, size_t n)
{
    const char *eq = strrchr(spec, '=');
    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof g->map[0].from) {
        snprintf(why, n, "expected PRODUCT=MODEL, found '%s'", spec);
        return false;
    }
    const gpu_model *m = gpu_catalog_find(g->cat, eq + 1);
    if (!m) {
        char names[1024];
        gpu_catalog_names(g->cat, names, sizeof names);
        snprintf(why, n, "unknown model '%s' (models: %s)", eq + 1, names);
        return false;
    }
    if (g->nmap == IMPORT_GPU_MAX_MAP) {
        snprintf(why, n, "at most %d mappings", IMPORT_GPU_MAX_MAP);
        return false;
    }
    snprintf(g->map[g->nmap].from, sizeof g->map[0].from, "%.*s", (int)(eq - spec), spec);
    g->map[g->nmap++].to = m->name;
    return true;
}

wl_gpu_names import_gpu_names(import_gpu *g)
{
    return (wl_gpu_names){model_cb, mig_place_cb, mig_all_cb, g};
}
