/* fuzz_util.c - see fuzz_util.h.
 * SPDX-License-Identifier: MIT */
#include "fuzz_util.h"

#include "../../sim/sim_cluster_file.h"
#include "../../workloads/wl_trace.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];
static gpu_catalog cat;
static bool cat_loaded;

static void cleanup(void)
{
    char cmd[600];
    if (dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: could not remove %s\n", dir);
    }
    if (cat_loaded)
        gpu_catalog_free(&cat);
}

const char *fz_dir(void)
{
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gpusim-fuzz-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(cleanup);
    }
    return dir;
}

const char *fz_write(const uint8_t *data, size_t n, const char *name)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/%s", fz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        perror("fuzz: write");
        abort();
    }
    return path;
}

const gpu_catalog *fz_catalog(void)
{
    if (!cat_loaded) {
        char d[512];
        gs_error err;
        gpu_catalog_default_dir(d, sizeof d);
        if (gpu_catalog_load(&cat, d, &err) != 0) {
            fprintf(stderr, "fuzz: cannot load the GPU models: %s\n", err.msg);
            abort();
        }
        cat_loaded = true;
        fz_dir(); /* registers the cleanup that frees the catalog */
    }
    return &cat;
}

void fz_check_err(int rc, const gs_error *err)
{
    if (rc == 0)
        return;
    if ((rc != GS_EINPUT && rc != GS_EUSAGE) || err->code != rc || !err->msg[0]) {
        fprintf(stderr, "fuzz: failure without a proper status or message: rc %d code %d msg '%s'\n", rc, err->code,
                err->msg);
        abort();
    }
}

void fz_trace_reads(const char *path)
{
    gs_error err = {0};
    wl_trace *t = wl_trace_open(path, NULL, &err);
    if (!t) {
        fprintf(stderr, "fuzz: the converted trace does not open: %s\n", err.msg);
        abort();
    }
    const wl_row *row;
    int rc;
    while ((rc = wl_trace_next(t, &row, &err)) > 0)
        ;
    wl_trace_close(t);
    if (rc < 0) {
        fprintf(stderr, "fuzz: the importer wrote a row the trace reader refuses: %s\n", err.msg);
        abort();
    }
}

void fz_cluster_reads(const char *path)
{
    sim_cluster c;
    gs_error err = {0};
    if (sim_cluster_load(&c, path, fz_catalog(), &err) != 0) {
        fprintf(stderr, "fuzz: the importer wrote a cluster the cluster loader refuses: %s\n", err.msg);
        abort();
    }
    sim_cluster_free(&c);
}

int fz_command(int (*fn)(int, char **), int argc, const char *const *argv)
{
    static int null_fd = -1;
    if (null_fd < 0) { /* once: the commands print their tables; the fuzzer needs none of it */
        fflush(stdout);
        null_fd = open("/dev/null", O_WRONLY);
        if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
            perror("fuzz: /dev/null");
            abort();
        }
    }
    char *av[32];
    for (int i = 0; i < argc && i < 31; i++)
        av[i] = (char *)argv[i];
    av[argc < 31 ? argc : 31] = NULL;
    int rc = fn(argc, av);
    fflush(stdout);
    if (rc < 0 || rc > 4) {
        fprintf(stderr, "fuzz: command exited %d, not a command's exit code\n", rc);
        abort();
    }
    return rc;
}
