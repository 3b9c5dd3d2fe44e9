/* cli_common.c - what every command shares beside main.c's dispatch: exit
 * codes, the error line, atomic output to a file or stdout, seeds, shipped
 * paths. Apart from main() so the fuzz harnesses link the commands.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/gs_cleanup.h"
#include "../base/gs_num.h"
#include "cli.h"

int cli_exit_code(int status)
{
    switch (status) {
    case GS_OK: return 0;
    case GS_EUSAGE: return 2;
    case GS_EINPUT: return 3;
    case GS_EWRITE: return 4;
    default: return 1;
    }
}

int cli_fail(const gs_error *err)
{
    fprintf(stderr, "gpusim: error: %s\n", err->msg);
    if (err->code == GS_EUSAGE)
        fprintf(stderr, "try 'gpusim --help'\n");
    return cli_exit_code(err->code);
}

int cli_emit(const char *path, int (*emit)(FILE *out, void *ud, gs_error *err), void *ud, gs_error *err)
{
    if (!path)
        return emit(stdout, ud, err);
    /* streamed into path.tmp.<pid> beside it, renamed over path only when
     * emit succeeded: memory stays independent of the output's size (an
     * importer's output grows with its input), and a failure leaves nothing */
    size_t l = strlen(path) + 32;
    char *tmp = xmalloc(l);
    snprintf(tmp, l, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int rc;
    if (!f) {
        rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    int slot = gs_cleanup_add(tmp, false); /* a SIGINT or SIGTERM while it is written leaves no .tmp file */
    rc = emit(f, ud, err);
    bool bad = fflush(f) != 0 || ferror(f) != 0;
    if ((fclose(f) != 0 || bad) && rc == 0)
        rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", path, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = gs_err(err, GS_EWRITE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (rc)
        unlink(tmp);
    gs_cleanup_remove(slot);
    free(tmp);
    return rc;
}

bool cli_parse_u64(const char *s, size_t n, uint64_t *out) { return gs_num_u64(s, n, out); }

/* results/<trace>.<policy>, or results/<trace>.<cluster>.<policy> on any
 * cluster but the shipped example (cluster: its name, or the --gpus spec),
 * so two runs of one trace on two clusters do not overwrite each other. */
void cli_shipped_path(char *buf, size_t n, const char *rel)
{
    if (!gs_exe_relative(buf, n, rel))
        snprintf(buf, n, "%s", rel);
}

