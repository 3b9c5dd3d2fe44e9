/* gs_file.c - output files: a directory made on demand, and a file that
 * appears whole or not at all (see gs_file.h).
 * SPDX-License-Identifier: MIT */
#include "gs_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_cleanup.h"

int gs_mkdirs(const char *dir, gs_error *err)
{
    if (!*dir) /* `--out ''`: there is no directory to make (the walk below starts past the first byte) */
        return gs_err(err, GS_EUSAGE, "an output directory needs a name (an empty one was given)");
    char *p = xstrdup(dir);
    for (char *q = p + 1; ; q++) {
        if (*q == '/' || *q == 0) {
            char saved = *q;
            *q = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                gs_err(err, GS_EWRITE, "cannot create directory '%s': %s", p, strerror(e));
                free(p);
                return GS_EWRITE;
            }
            *q = saved;
            if (!saved)
                break;
        }
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gs_err(err, GS_EWRITE, "cannot use '%s' as an output directory", dir);
    return 0;
}

int gs_write_atomic(const char *path, const char *data, size_t n, gs_error *err)
{
    if (!*path)
        return gs_err(err, GS_EUSAGE, "an output file needs a name (an empty one was given)");
    size_t l = strlen(path) + 32;
    char *tmp = xmalloc(l);
    snprintf(tmp, l, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int rc = 0;
    if (fd < 0) {
        rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    int slot = gs_cleanup_add(tmp, false); /* an interrupt leaves no .tmp file */
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", path, strerror(errno));
            break;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0 && rc == 0)
        rc = gs_err(err, GS_EWRITE, "cannot write '%s': %s", path, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = gs_err(err, GS_EWRITE, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (rc)
        unlink(tmp);
    gs_cleanup_remove(slot);
    free(tmp);
    return rc;
}

FILE *gs_open_input(const char *path, const char *what, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gs_err(err, GS_EINPUT, "cannot open %s '%s': %s", what, path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        gs_err(err, GS_EINPUT, "%s '%s' is a directory, expected a file", what, path);
        fclose(f);
        return NULL;
    }
    return f;
}
