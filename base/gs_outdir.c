/* gs_outdir.c - see gs_outdir.h.
 * SPDX-License-Identifier: MIT */
#include "gs_outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gs_file.h"

/* {==== the output directory ====} */

static bool owned_name(const gs_outdir *o, const char *name)
{
    for (int i = 0; i < o->nowned; i++)
        if (!strcmp(o->owned[i], name))
            return true;
    return false;
}

int gs_outdir_begin(gs_outdir *o, const char *dir, const char *const *owned, gs_error *err)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!*dir)
        return gs_err(err, GS_EUSAGE, "an output directory needs a name (an empty one was given)");
    if (strlen(dir) >= sizeof o->final)
        return gs_err(err, GS_EWRITE, "output directory name too long: '%s'", dir);
    snprintf(o->final, sizeof o->final, "%s", dir);
    size_t l = strlen(o->final);
    while (l > 1 && o->final[l - 1] == '/')
        o->final[--l] = 0;
    for (; owned && owned[o->nowned] && o->nowned < GS_OUTDIR_MAX_FILES; o->nowned++)
        o->owned[o->nowned] = owned[o->nowned];
    struct stat st;
    if (stat(o->final, &st) == 0 && !S_ISDIR(st.st_mode))
        return gs_err(err, GS_EWRITE, "cannot use '%s' as an output directory: it is a file", o->final);
    /* the parent, so that the temporary directory can sit beside dir */
    char parent[1024];
    snprintf(parent, sizeof parent, "%s", o->final);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        int rc = gs_mkdirs(parent, err);
        if (rc)
            return rc;
    }
    for (int k = 0;; k++) {
        snprintf(o->tmp, sizeof o->tmp, k ? "%s.tmp.%ld.%d" : "%s.tmp.%ld", o->final, (long)getpid(), k);
        if (mkdir(o->tmp, 0777) == 0)
            break;
        if (errno != EEXIST || k == 100)
            return gs_err(err, GS_EWRITE, "cannot create directory '%s': %s", o->tmp, strerror(errno));
    }
    o->slots[0] = gs_cleanup_add(o->tmp, true);
    for (int i = 0; i < o->nowned; i++) {
        char p[1300];
        gs_outdir_file(o, o->owned[i], p, sizeof p);
        o->slots[1 + i] = gs_cleanup_add(p, false);
    }
    o->slot = 0;
    return 0;
}

void gs_outdir_file(const gs_outdir *o, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", o->tmp, name);
}

static void forget(gs_outdir *o)
{
    if (o->slot < 0)
        return;
    for (int i = 0; i <= o->nowned; i++)
        gs_cleanup_remove(o->slots[i]);
    o->slot = -1;
}

void gs_outdir_abort(gs_outdir *o)
{
    if (!o->tmp[0])
        return;
    char p[1300];
    for (int i = 0; i < o->nowned; i++) {
        gs_outdir_file(o, o->owned[i], p, sizeof p);
        unlink(p);
    }
    rmdir(o->tmp);
    forget(o);
    o->tmp[0] = 0;
}

/* One file at a time, for where the exchange cannot be used: stale owned
 * outputs removed first, then the new files moved in order (report last). */
static int commit_by_file(gs_outdir *o, gs_error *err)
{
    int rc = gs_mkdirs(o->final, err);
    char from[1300], to[1300];
    for (int i = 0; rc == 0 && i < o->nowned; i++) {
        gs_outdir_file(o, o->owned[i], from, sizeof from);
        snprintf(to, sizeof to, "%s/%s", o->final, o->owned[i]);
        if (access(from, F_OK) != 0 && unlink(to) != 0 && errno != ENOENT)
            rc = gs_err(err, GS_EWRITE, "cannot remove the stale '%s': %s", to, strerror(errno));
    }
    for (int i = 0; rc == 0 && i < o->nowned; i++) {
        gs_outdir_file(o, o->owned[i], from, sizeof from);
        snprintf(to, sizeof to, "%s/%s", o->final, o->owned[i]);
        if (access(from, F_OK) == 0 && rename(from, to) != 0)
            rc = gs_err(err, GS_EWRITE, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
    }
    return rc;
}

int gs_outdir_commit(gs_outdir *o, gs_error *err)
{
    struct stat st;
    int rc = 0;
    if (lstat(o->final, &st) != 0) {
        if (rename(o->tmp, o->final) == 0) {
            forget(o);
            o->tmp[0] = 0;
            return 0;
        }
        rc = commit_by_file(o, err); /* made meanwhile by someone else */
    } else if (S_ISDIR(st.st_mode) && chmod(o->tmp, st.st_mode & 07777) == 0 &&
               renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0) {
        /* o->tmp now holds the old directory: what it had that this command
         * does not write moves over; its stale outputs go with it */
        DIR *d = opendir(o->tmp);
        struct dirent *e;
        char from[1400], to[1400];
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || owned_name(o, e->d_name))
                continue;
            snprintf(from, sizeof from, "%s/%s", o->tmp, e->d_name);
            snprintf(to, sizeof to, "%s/%s", o->final, e->d_name);
            if (rename(from, to) != 0 && rc == 0)
                rc = gs_err(err, GS_EWRITE, "cannot move '%s' back to '%s': %s", from, to, strerror(errno));
        }
        if (d)
            closedir(d);
        if (rc == 0) {
            gs_outdir_abort(o); /* the old outputs and the directory that held them */
            return 0;
        }
        forget(o); /* the old directory keeps what could not be moved: never delete a user's file */
        o->tmp[0] = 0;
        return rc;
    } else {
        rc = commit_by_file(o, err);
    }
    if (rc == 0)
        gs_outdir_abort(o);
    return rc;
}
