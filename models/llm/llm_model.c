/* llm_model.c - load and validate the model files in models/llm/ (see
 * llm_model.h). The cJSON tree lives only inside the loader.
 * SPDX-License-Identifier: MIT */
#include "llm_model.h"

#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/gs_json.h"

static int bad(gs_error *err, const char *path, const char *field, const char *want)
{
    return gs_err(err, GS_EINPUT, "LLM model '%s': field '%s': expected %s", path, field, want);
}

/* An integer field within [lo, hi]; absent is 0 when not required. */
static bool get_int(const cJSON *o, const char *key, int *out, bool required, int lo, int hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v || cJSON_IsNull(v))
        return !required;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) || v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (int)v->valuedouble;
    return true;
}

static const struct {
    const char *key;
    size_t off;
    int lo, hi;
} shape_fields[] = {
    {"layers", offsetof(llm_model, layers), 1, 10000},
    {"hidden_size", offsetof(llm_model, hidden), 1, 1 << 20},
    {"attention_heads", offsetof(llm_model, heads), 1, 1 << 16},
    {"kv_heads", offsetof(llm_model, kv_heads), 1, 1 << 16},
    {"head_dim", offsetof(llm_model, head_dim), 1, 1 << 16},
    {"intermediate_size", offsetof(llm_model, intermediate), 1, 1 << 22},
    {"vocab_size", offsetof(llm_model, vocab), 1, 1 << 24},
};

/* The attention kind, its MLA latent, and the experts. */
static int load_attn_moe(llm_model *m, const cJSON *j, const char *path, gs_error *err)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(j, "attention");
    const char *a = cJSON_IsString(at) ? at->valuestring : "";
    m->attn = !strcmp(a, "mha") ? LLM_MHA : !strcmp(a, "gqa") ? LLM_GQA : !strcmp(a, "mla") ? LLM_MLA : -1;
    if (m->attn < 0)
        return bad(err, path, "attention", "\"mha\", \"gqa\" or \"mla\"");
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return bad(err, path, "kv_heads", "a divisor of attention_heads");
    const cJSON *mla = cJSON_GetObjectItemCaseSensitive(j, "mla");
    if (m->attn == LLM_MLA && (!cJSON_IsObject(mla) || !get_int(mla, "kv_lora_rank", &m->kv_lora_rank, true, 1, 1 << 16) ||
                               !get_int(mla, "qk_rope_head_dim", &m->rope_head_dim, true, 0, 1 << 16)))
        return bad(err, path, "mla", "{\"kv_lora_rank\": N, \"qk_rope_head_dim\": N} with attention \"mla\"");
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(j, "moe");
    if (!moe || cJSON_IsNull(moe))
        return 0;
    if (!cJSON_IsObject(moe) || !get_int(moe, "experts", &m->experts, true, 2, 1 << 16) ||
        !get_int(moe, "active_experts", &m->active_experts, true, 1, m->experts) ||
        !get_int(moe, "shared_experts", &m->shared_experts, false, 0, 1 << 10) ||
        !get_int(moe, "expert_intermediate_size", &m->expert_intermediate, true, 1, 1 << 22) ||
        !get_int(moe, "dense_layers", &m->dense_layers, false, 0, m->layers - 1))
        return bad(err, path, "moe", "{\"experts\": E >= 2, \"active_experts\": 1..E, \"expert_intermediate_size\": N, "
                                     "optional \"shared_experts\", \"dense_layers\" < layers}");
    return 0;
}

/* Parameter counts, dtype, profile: what the shape cannot say. */
static int load_counts(llm_model *m, const cJSON *j, const char *path, gs_error *err)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "params_b");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "active_params_b");
    if (!cJSON_IsNumber(p) || !(p->valuedouble > 0 && p->valuedouble <= 1e5))
        return bad(err, path, "params_b", "billions of parameters, > 0");
    m->params_b = p->valuedouble;
    if (!cJSON_IsNumber(a) || !(a->valuedouble > 0 && a->valuedouble <= m->params_b))
        return bad(err, path, "active_params_b", "billions of parameters used per token, 0 < x <= params_b");
    m->active_params_b = a->valuedouble;
    if (!m->experts && m->active_params_b != m->params_b)
        return bad(err, path, "active_params_b", "params_b for a dense model (no \"moe\")");
    if (m->experts && llm_expert_params_b(m) * m->experts >= m->params_b)
        return bad(err, path, "moe", "experts whose parameters fit in params_b");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "dtype");
    m->dtype = cJSON_IsString(d) ? llm_dtype_parse(d->valuestring) : -1;
    if (m->dtype < 0)
        return bad(err, path, "dtype", "the checkpoint's precision: \"bf16\", \"fp8\" or \"fp4\"");
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(j, "profile");
    if (pf && !cJSON_IsNull(pf) && (!cJSON_IsString(pf) || strlen(pf->valuestring) >= sizeof m->profile))
        return bad(err, path, "profile", "a measured profile name shorter than 32 characters, or null");
    snprintf(m->profile, sizeof m->profile, "%s", cJSON_IsString(pf) ? pf->valuestring : "");
    return 0;
}

/* The two citations every file carries: its model card and config.json, each an https address. */
static int load_cites(const cJSON *j, const char *path, gs_error *err)
{
    static const char *const keys[] = {"model_card", "config"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i]);
        if (!cJSON_IsString(v) || strncmp(v->valuestring, "https://", 8) != 0 || !v->valuestring[8])
            return bad(err, path, keys[i], "the https address of the public source the shape was read from");
    }
    return 0;
}

static int load_one(llm_model *m, const char *path, gs_error *err)
{
    cJSON *j = gs_json_read(path, "LLM model", err);
    if (!j)
        return GS_EINPUT;
    int rc = 0;
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(j, "name"), *al = cJSON_GetObjectItemCaseSensitive(j, "aliases"), *a;
    if (!cJSON_IsString(nm) || !nm->valuestring[0] || strlen(nm->valuestring) >= sizeof m->name) {
        rc = bad(err, path, "name", "a name shorter than 48 characters");
        goto out;
    }
    strcpy(m->name, nm->valuestring);
    m->aliases = xcalloc((size_t)cJSON_GetArraySize(al) + 1, sizeof *m->aliases);
    cJSON_ArrayForEach(a, al)
    {
        if (!cJSON_IsString(a)) {
            rc = bad(err, path, "aliases", "an array of strings");
            goto out;
        }
        m->aliases[m->naliases++] = xstrdup(a->valuestring);
    }
    for (size_t i = 0; i < sizeof shape_fields / sizeof shape_fields[0]; i++)
        if (!get_int(j, shape_fields[i].key, (int *)(void *)((char *)m + shape_fields[i].off), true, shape_fields[i].lo,
                     shape_fields[i].hi)) {
            rc = bad(err, path, shape_fields[i].key, "a positive integer");
            goto out;
        }
    rc = load_attn_moe(m, j, path, err);
    if (!rc)
        rc = load_counts(m, j, path, err);
    if (!rc)
        rc = load_cites(j, path, err);
out:
    cJSON_Delete(j);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int llm_catalog_load(llm_catalog *cat, const char *dir, gs_error *err)
{
    memset(cat, 0, sizeof *cat);
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* no catalog: services state their own shape */
    char **names = NULL;
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
            names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
            names[nn++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    if (nn > 1)
        qsort(names, (size_t)nn, sizeof *names, cmp_str);
    cat->models = xcalloc((size_t)nn + 1, sizeof *cat->models);
    int rc = 0;
    for (int i = 0; i < nn && rc == 0; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        rc = load_one(&cat->models[cat->n++], path, err);
        for (int k = 0; rc == 0 && k < cat->n - 1; k++)
            if (gs_streq_ci(cat->models[k].name, cat->models[cat->n - 1].name))
                rc = gs_err(err, GS_EINPUT, "LLM model '%s': duplicate model name '%s'", path, cat->models[k].name);
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (rc)
        llm_catalog_free(cat);
    return rc;
}

void llm_catalog_free(llm_catalog *cat)
{
    for (int i = 0; i < cat->n; i++) {
        for (int k = 0; k < cat->models[i].naliases; k++)
            free(cat->models[i].aliases[k]);
        free(cat->models[i].aliases);
    }
    free(cat->models);
    memset(cat, 0, sizeof *cat);
}

const llm_model *llm_catalog_find(const llm_catalog *cat, const char *name)
{
    for (int i = 0; i < cat->n; i++)
        if (gs_names_entry(cat->models[i].name, cat->models[i].aliases, cat->models[i].naliases, name))
            return &cat->models[i];
    return NULL;
}

void llm_catalog_names(const llm_catalog *cat, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < cat->n && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", cat->models[i].name);
}

void llm_catalog_dir_of(const char *gpu_dir, char *buf, size_t n) { snprintf(buf, n, "%s/../llm", gpu_dir); }

static const char *const dtype_names[LLM_NDTYPES] = {"bf16", "fp8", "fp4"};

int llm_dtype_parse(const char *s)
{
    for (int i = 0; i < LLM_NDTYPES; i++)
        if (gs_streq_ci(s, dtype_names[i]))
            return i;
    return -1;
}

const char *llm_dtype_name(int dtype) { return dtype >= 0 && dtype < LLM_NDTYPES ? dtype_names[dtype] : "?"; }

double llm_dtype_bytes(int dtype) { return dtype == LLM_FP8 ? 1.0 : dtype == LLM_FP4 ? 0.5 : 2.0; }

double llm_kv_bytes_per_token(const llm_model *m, double kv_bytes)
{
    if (m->attn == LLM_MLA)
        return (double)m->layers * (m->kv_lora_rank + m->rope_head_dim) * kv_bytes;
    return 2.0 * m->layers * m->kv_heads * m->head_dim * kv_bytes;
}

double llm_expert_params_b(const llm_model *m)
{
    if (!m->experts)
        return 0;
    return 3.0 * m->hidden * m->expert_intermediate * (m->layers - m->dense_layers) / 1e9;
}

double llm_experts_touched(const llm_model *m, double batch)
{
    if (!m->experts)
        return 0;
    double e = m->experts, k = m->active_experts;
    return e * (1.0 - pow(1.0 - k / e, batch > 0 ? batch : 0));
}
