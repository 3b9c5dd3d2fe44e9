/* gs_outdir.h - an output directory committed as one unit, and temporaries
 * that a signal does not leave behind.
 *
 * A run writes report.json, timeseries.csv (or fill.csv) together; a reader
 * (plot, check, a CI job) must never see the new report beside the old
 * timeseries. So the files are written into DIR.tmp.<pid> beside DIR, and
 * commit puts that directory in DIR's place with one rename: renameat2
 * RENAME_EXCHANGE when DIR exists (entries of the old DIR that this command
 * does not own, e.g. a user's notes, are moved over; its own stale outputs
 * are dropped), a plain rename when it does not. Where the exchange is not
 * available (a filesystem without it, DIR a symlink or '.'), the files are
 * moved one by one, stale outputs removed first and the report last.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_OUTDIR_H
#define GPUSIM_GS_OUTDIR_H

#include "gs.h"
#include "gs_cleanup.h"

#define GS_OUTDIR_MAX_FILES 8

typedef struct gs_outdir {
    char final[1024];
    char tmp[1100];
    const char *owned[GS_OUTDIR_MAX_FILES]; /* names this command writes, in commit order */
    int nowned;
    int slot; /* 0 while registered for signal cleanup, -1 when not */
    int slots[1 + GS_OUTDIR_MAX_FILES]; /* the directory's slot, then each owned file's */
} gs_outdir;

/* Prepares the temporary directory for dir (its parents are created).
 * owned: NULL-terminated names of the files the command may write there,
 * in the order a fallback commit moves them (the report last); an owned
 * name missing at commit is removed from dir (a stale output). 0 or
 * GS_EWRITE. */
int gs_outdir_begin(gs_outdir *o, const char *dir, const char *const *owned, gs_error *err);
/* Path of name inside the temporary directory (buf of n bytes). */
void gs_outdir_file(const gs_outdir *o, const char *name, char *buf, size_t n);
/* Puts the temporary directory in place. 0 or GS_EWRITE (then abort). */
int gs_outdir_commit(gs_outdir *o, gs_error *err);
/* Removes the temporary directory and what this command wrote into it. */
void gs_outdir_abort(gs_outdir *o);


#endif
