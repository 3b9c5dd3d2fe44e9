/* gs_cleanup.h - a fixed table of temporaries (files, empty directories)
 * that a SIGINT or SIGTERM removes before the process ends as the signal
 * would have: an interrupted command leaves no half-written output. A
 * SIGBUS (a mapped trace file truncated while it is read) removes them too
 * and exits 3 with a message, as bad input does. Registered child processes
 * get the signal first (SIGTERM after a SIGBUS).
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_CLEANUP_H
#define GPUSIM_GS_CLEANUP_H

#include <stdbool.h>

/* Installs the handler; main calls this once. */
void gs_cleanup_on_signals(void);
/* Registers a temporary file (or, dir true, an empty directory) for the
 * signal handler; returns its slot (-1 when the table is full). */
int gs_cleanup_add(const char *path, bool dir);
void gs_cleanup_remove(int slot);
/* Registers a child process (a shard, a sweep submission, an engine's
 * client) that the signal is passed on to first, so stopping this process
 * stops the work it started; its slot (-1 when the table is full). */
int gs_cleanup_add_child(int pid);
void gs_cleanup_remove_child(int slot);
/* fork() with the child registered (*slot) before any signal is taken; the
 * child starts with empty tables (it removes nothing of its parent's).
 * Returns what fork returns. */
int gs_cleanup_fork(int *slot);

#endif
