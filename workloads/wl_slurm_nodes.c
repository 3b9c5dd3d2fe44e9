/* wl_slurm_nodes.c - Slurm's node list to node records, and the cluster
 * file.
 *
 * `scontrol show nodes --oneliner` prints one node a line as KEY=VALUE
 * words (Slurm src/api/node_info.c); a value may hold spaces (OS=, Reason=),
 * so a word that does not start "Key=" continues the value before it. Used:
 * NodeName, CPUEfctv (else CPUTot), RealMemory (MiB), Gres (gpu[:TYPE]:N,
 * an optional "(S:...)" socket list), Partitions, State (DOWN, DRAIN and
 * FAIL nodes are kept and counted). `sinfo -N -o '%N|%c|%m|%G|%P'` gives the
 * same per node and partition under the header NODELIST|CPUS|MEMORY|GRES|
 * PARTITION ('*' marks the default partition); a node in several
 * partitions is merged. A GRES type names a model as wl_gpu_names resolves
 * it (Slurm's NVML autodetection writes the device name lower case, spaces
 * as '_'); an untyped "gpu" needs --gpu-type gpu=MODEL. O(nodes) memory,
 * O(nodes x partitions) time.
 * SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../base/gs_file.h"
#include "../base/gs_json.h"
#include "../base/gs_num.h"
#include "wl_slurm_types.h"

int slurm_model_of(wl_slurm *s, const char *type)
{
    const char *name = s->o->names->model(s->o->names->ud, type);
    if (!name)
        return -1;
    for (int i = 0; i < s->nmodels; i++)
        if (!strcmp(s->models[i], name))
            return i;
    if (s->nmodels == SLURM_MAX_MODELS)
        return -1;
    snprintf(s->models[s->nmodels], sizeof s->models[0], "%s", name);
    return s->nmodels++;
}

uint64_t slurm_part_models(const wl_slurm *s, const char *p)
{
    for (int i = 0; p && i < s->nparts; i++)
        if (!strcmp(s->parts[i].name, p))
            return s->parts[i].models;
    return s->all_models;
}

/* The GPU entry of a Gres value: "gpu:h100:8(S:0-1),nvme:1" -> type
 * "h100", 8; untyped "gpu:8" -> type "gpu". 0 when there is none, 1, or -1
 * when malformed or of two types (a node has one model here). */
static int gres_gpu(const char *g, char *type, size_t cap, long *count)
{
    *count = 0;
    int found = 0;
    for (const char *e = g; e && *e;) {
        const char *end = e;
        int depth = 0;
        while (*end && (depth || *end != ',')) /* commas inside "(S:0,1)" belong to the entry */
            depth += *end == '(' ? 1 : *end == ')' ? -1 : 0, end++;
        size_t len = (size_t)(end - e);
        const char *paren = memchr(e, '(', len);
        if (paren)
            len = (size_t)(paren - e);
        if (len > 4 && !strncmp(e, "gpu:", 4)) {
            const char *last = e + len;
            while (last > e && isdigit((unsigned char)last[-1]))
                last--;
            if (last == e + len || last[-1] != ':' || found)
                return -1;
            *count = strtol(last, NULL, 10);
            size_t tl = last - 1 > e + 3 ? (size_t)(last - 1 - (e + 4)) : 0;
            snprintf(type, cap, "%.*s", (int)tl, e + 4);
            if (!tl)
                snprintf(type, cap, "gpu");
            found = 1;
        }
        e = *end ? end + 1 : NULL;
    }
    return found;
}

/* Adds node nd's model to each of its partitions. */
static void note_parts(wl_slurm *s, const slurm_node *nd)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", nd->parts);
    char *save = NULL;
    for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < s->nparts && strcmp(s->parts[i].name, p))
            i++;
        if (i == s->nparts && s->nparts < SLURM_MAX_PARTS)
            snprintf(s->parts[s->nparts++].name, sizeof s->parts[0].name, "%s", p);
        if (i < s->nparts && nd->model >= 0)
            s->parts[i].models |= 1ull << nd->model;
    }
}

/* One node's fields (name, cpu, memory MiB, gres, partitions) checked
 * into nd; where names the line for messages. */
static int node_of(wl_slurm *s, slurm_node *nd, const char *name, const char *cpu, const char *mem,
                   const char *gres, const char *parts, const char *where, gs_error *err)
{
    memset(nd, 0, sizeof *nd);
    if (!name || !gs_text_field_ok(name, sizeof nd->name - 1))
        return gs_err(err, GS_EINPUT, "%s: expected a node name (NodeName)", where);
    snprintf(nd->name, sizeof nd->name, "%s", name);
    long v;
    nd->cpu = nd->mem_gib = -1;
    if (cpu && *cpu && !gs_num_long(cpu, 0, 1000000, &v))
        return gs_err(err, GS_EINPUT, "%s (%s): CPUs: expected a count, found '%s'", where, name, cpu);
    if (cpu && *cpu)
        nd->cpu = (double)v;
    if (mem && *mem && !gs_num_long(mem, 0, 1000000000000L, &v))
        return gs_err(err, GS_EINPUT, "%s (%s): memory: expected MiB (RealMemory), found '%s'", where, name, mem);
    if (mem && *mem)
        nd->mem_gib = (double)v / 1024.0;
    snprintf(nd->parts, sizeof nd->parts, "%s", parts ? parts : "");
    for (char *p = nd->parts, *q = p;; q++) /* sinfo marks the default partition with '*' */
        if (*q != '*' && !(*p++ = *q))
            break;
    char type[64];
    long cnt;
    int g = gres_gpu(gres ? gres : "", type, sizeof type, &cnt);
    nd->model = -1;
    if (g < 0 || cnt > 64)
        return gs_err(err, GS_EINPUT, "%s (%s): Gres '%s': expected one GPU entry gpu[:TYPE]:N with N <= 64", where,
                      name, gres);
    if (g == 1 && cnt > 0) {
        nd->gpus = (int)cnt;
        if ((nd->model = slurm_model_of(s, type)) < 0)
            return gs_err(err, GS_EINPUT, "%s (%s): GPU type '%s' names no `gpusim models` model or alias; map it "
                          "with --gpu-type '%s=MODEL'", where, name, type, type);
        s->all_models |= 1ull << nd->model;
    }
    return 0;
}

/* {==== scontrol --oneliner ====} */

/* Whether the word at w starts "Key=" (a letter, then letters, digits or
 * '_'). */
static bool starts_key(const char *w)
{
    if (!isalpha((unsigned char)*w))
        return false;
    while (isalnum((unsigned char)*w) || *w == '_')
        w++;
    return *w == '=';
}

/* The value of key in a oneliner (cut into buf), or NULL. */
static const char *kv(const char *line, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *w = line; *w; w++) {
        if ((w == line || w[-1] == ' ') && !strncmp(w, key, kl) && w[kl] == '=') {
            const char *v = w + kl + 1, *e = v;
            for (;;) { /* up to the next word that starts a key */
                const char *sp = strchr(e, ' ');
                if (!sp || starts_key(sp + 1)) {
                    e = sp ? sp : e + strlen(e);
                    break;
                }
                e = sp + 1;
            }
            snprintf(buf, cap, "%.*s", (int)(e - v), v);
            return buf;
        }
    }
    return NULL;
}

static int scontrol_line(wl_slurm *s, const char *line, const char *where, slurm_node *nd, gs_error *err)
{
    char name[256], cpu[32], cpu2[32], mem[32], gres[512], parts[512], state[128];
    const char *nm = kv(line, "NodeName", name, sizeof name), *c = kv(line, "CPUEfctv", cpu, sizeof cpu);
    if (!c)
        c = kv(line, "CPUTot", cpu2, sizeof cpu2);
    const char *m = kv(line, "RealMemory", mem, sizeof mem), *g = kv(line, "Gres", gres, sizeof gres);
    if (g && !strcmp(g, "(null)"))
        g = NULL;
    int rc = node_of(s, nd, nm, c, m, g, kv(line, "Partitions", parts, sizeof parts), where, err);
    const char *st = kv(line, "State", state, sizeof state);
    if (rc == 0 && st && (strstr(st, "DOWN") || strstr(st, "DRAIN") || strstr(st, "FAIL")))
        s->n->nodes_down++;
    return rc;
}

/* sinfo -N -o '%N|%c|%m|%G|%P': five '|'-separated fields. */
static int sinfo_line(wl_slurm *s, char *line, const char *where, slurm_node *nd, gs_error *err)
{
    char *f[5];
    int n = 0;
    for (char *p = line; n < 5; n++) {
        f[n] = p;
        char *bar = strchr(p, '|');
        if (!bar && n < 4)
            return gs_err(err, GS_EINPUT, "%s: expected 5 '|'-separated fields (NODELIST|CPUS|MEMORY|GRES|PARTITION), "
                          "found %d", where, n + 1);
        if (bar)
            *bar = 0;
        p = bar ? bar + 1 : p + strlen(p);
    }
    return node_of(s, nd, f[0], f[1], f[2], strcmp(f[3], "(null)") ? f[3] : NULL, f[4], where, err);
}

/* A node listed again on the next line (sinfo -N lists a node once per
 * partition, in name order): its partitions join the record's, its shape
 * must agree. 1 when the node is new, 0 merged, or GS_EINPUT. */
static int merge_node(wl_slurm *s, const slurm_node *nd, const char *where, gs_error *err)
{
    slurm_node *o = s->nnodes ? &s->nodes[s->nnodes - 1] : NULL;
    if (!o || strcmp(o->name, nd->name))
        return 1;
    if (o->gpus != nd->gpus || o->model != nd->model || o->cpu != nd->cpu || o->mem_gib != nd->mem_gib)
        return gs_err(err, GS_EINPUT, "%s (%s): the node is listed again with other resources", where, nd->name);
    size_t l = strlen(o->parts);
    snprintf(o->parts + l, sizeof o->parts - l, "%s%s", l ? "," : "", nd->parts);
    return 0;
}

static int read_nodes(wl_slurm *s, FILE *f, gs_error *err)
{
    char *line = NULL, where[600];
    size_t cap = 0, ncap = 0;
    long lineno = 0;
    int rc = 0;
    bool sinfo = false;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        snprintf(where, sizeof where, "node list '%s' line %ld", s->o->nodes, lineno);
        if (!*line)
            continue;
        if (lineno == 1 && !strncasecmp(line, "NODELIST|", 9)) {
            sinfo = true;
            continue;
        }
        if (!sinfo && strncmp(line, "NodeName=", 9)) {
            rc = gs_err(err, GS_EINPUT, "%s: expected `scontrol show nodes --oneliner` lines (NodeName=...) or "
                        "`sinfo -N -o '%%N|%%c|%%m|%%G|%%P'` output with its header", where);
            break;
        }
        slurm_node nd;
        rc = sinfo ? sinfo_line(s, line, where, &nd, err) : scontrol_line(s, line, where, &nd, err);
        if (rc == 0 && (rc = merge_node(s, &nd, where, err)) == 1) {
            rc = 0;
            if (s->nnodes == ncap)
                s->nodes = xrealloc(s->nodes, (ncap = ncap ? 2 * ncap : 64) * sizeof *s->nodes);
            s->nodes[s->nnodes++] = nd;
        }
    }
    free(line);
    return rc;
}

wl_slurm *wl_slurm_new(const wl_sacct_opts *o, FILE *warn, wl_sacct_counts *n, gs_error *err)
{
    memset(n, 0, sizeof *n);
    wl_slurm *s = xcalloc(1, sizeof *s);
    s->o = o;
    s->warn = warn;
    s->n = n;
    if (!o->nodes)
        return s;
    FILE *f = gs_open_input(o->nodes, "node list", err);
    int rc = f ? read_nodes(s, f, err) : GS_EINPUT;
    if (f)
        fclose(f);
    for (size_t i = 0; rc == 0 && i < s->nnodes; i++) {
        note_parts(s, &s->nodes[i]);
        n->nodes_in++;
        n->nodes_gpu += s->nodes[i].gpus > 0;
        n->nodes_cpu_only += s->nodes[i].gpus == 0;
        n->gpus += s->nodes[i].gpus;
    }
    if (rc == 0 && n->nodes_gpu == 0)
        rc = gs_err(err, GS_EINPUT, "node list '%s': no node with GPUs (%ld nodes)", o->nodes, n->nodes_in);
    if (rc) {
        wl_slurm_free(s);
        return NULL;
    }
    return s;
}

void wl_slurm_free(wl_slurm *s)
{
    if (!s)
        return;
    free(s->nodes);
    free(s);
}

int wl_slurm_write_cluster(wl_slurm *s, FILE *out, gs_error *err)
{
    long cnt[SLURM_MAX_MODELS] = {0};
    int common = 0;
    for (size_t i = 0; i < s->nnodes; i++)
        if (s->nodes[i].model >= 0 && ++cnt[s->nodes[i].model] > cnt[common])
            common = s->nodes[i].model;
    cJSON *root = cJSON_CreateObject(), *arr;
    cJSON_AddStringToObject(root, "name", "slurm");
    char comment[160];
    snprintf(comment, sizeof comment, "converted by gpusim import sacct from a Slurm node list (%zu nodes, %ld GPUs)",
             s->nnodes, s->n->gpus);
    cJSON_AddStringToObject(root, "comment", comment);
    arr = cJSON_AddArrayToObject(root, "nodes");
    long groups = 0;
    for (size_t i = 0; i < s->nnodes;) {
        const slurm_node *a = &s->nodes[i];
        size_t j = i + 1;
        while (j < s->nnodes && s->nodes[j].model == a->model && s->nodes[j].gpus == a->gpus &&
               s->nodes[j].cpu == a->cpu && s->nodes[j].mem_gib == a->mem_gib)
            j++;
        cJSON *g = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "g%ld-", groups++);
        cJSON_AddStringToObject(g, "name", name);
        cJSON_AddStringToObject(g, "model", s->models[a->model >= 0 ? a->model : common]);
        cJSON_AddNumberToObject(g, "count", (double)(j - i));
        cJSON_AddNumberToObject(g, "gpus", a->gpus);
        if (a->cpu >= 0)
            cJSON_AddNumberToObject(g, "cpu", a->cpu);
        if (a->mem_gib >= 0)
            cJSON_AddNumberToObject(g, "mem_gib", a->mem_gib);
        cJSON_AddItemToArray(arr, g);
        i = j;
    }
    s->n->groups = groups;
    size_t len;
    char *text = gs_json_print(root, &len);
    cJSON_Delete(root);
    int rc = fwrite(text, 1, len, out) != len || fflush(out) != 0 ? gs_err(err, GS_EWRITE, "cannot write the cluster")
                                                                   : 0;
    free(text);
    return rc;
}
