/* gs_cleanup.c - temporaries removed when SIGINT, SIGTERM or SIGBUS ends the
 * process (see gs_cleanup.h). Below both the atomic file writer (gs_file.c)
 * and the output directory (gs_outdir.c), which register what they create.
 * SPDX-License-Identifier: MIT */
#include "gs_cleanup.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

/* {==== cleanup on signals ====}
 * A fixed table: the handler may only call async-signal-safe functions
 * (unlink, rmdir, raise), so nothing here is allocated. */

#define CLEANUP_SLOTS 32
static struct {
    char path[1200];
    volatile sig_atomic_t used, dir;
} cleanup[CLEANUP_SLOTS];

#define CHILD_SLOTS 256
static volatile sig_atomic_t child[CHILD_SLOTS]; /* pid, 0 when free */

static void on_signal(int sig)
{
    for (int i = 0; i < CHILD_SLOTS; i++)
        if (child[i] > 0)
            kill((pid_t)child[i], sig == SIGBUS ? SIGTERM : sig);
    /* up to 10 s for them to remove their own temporaries and end (waitpid
     * and nanosleep are async-signal-safe): when this process is gone, so
     * is what its children were writing; one slower than that is left (a
     * loaded machine can take seconds to schedule a child's handler) */
    for (int tick = 0; tick < 1000; tick++) {
        bool left = false;
        for (int i = 0; i < CHILD_SLOTS; i++)
            if (child[i] > 0) {
                pid_t w = waitpid((pid_t)child[i], NULL, WNOHANG);
                if (w == (pid_t)child[i] || (w < 0 && errno != EINTR))
                    child[i] = 0;
                else
                    left = true;
            }
        if (!left)
            break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    /* files first, then the (now empty) temporary directories */
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used && !cleanup[i].dir)
            unlink(cleanup[i].path);
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used && cleanup[i].dir)
            rmdir(cleanup[i].path);
    if (sig == SIGBUS) {
        /* the trace reader maps a regular file (wl_trace.c): a page of it
         * that is gone when read, because the file was truncated while the
         * run read it, raises SIGBUS. Bad input, not a crash: exit 3 (as
         * GS_EINPUT) with a message, and no output. */
        static const char msg[] = "gpusim: error: an input file became shorter while it was being read "
                                  "(SIGBUS); nothing was written\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(3);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void gs_cleanup_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

int gs_cleanup_add(const char *path, bool dir)
{
    if (strlen(path) >= sizeof cleanup[0].path)
        return -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup[i].used) {
            strcpy(cleanup[i].path, path);
            cleanup[i].dir = dir;
            cleanup[i].used = 1; /* last: the handler sees a whole entry or none */
            return i;
        }
    return -1;
}

int gs_cleanup_add_child(int pid)
{
    for (int i = 0; i < CHILD_SLOTS; i++)
        if (child[i] == 0) {
            child[i] = pid;
            return i;
        }
    return -1;
}

void gs_cleanup_remove_child(int slot)
{
    if (slot >= 0 && slot < CHILD_SLOTS)
        child[slot] = 0;
}

int gs_cleanup_fork(int *slot)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    *slot = -1;
    if (pid == 0) {
        for (int i = 0; i < CLEANUP_SLOTS; i++)
            cleanup[i].used = 0;
        for (int i = 0; i < CHILD_SLOTS; i++)
            child[i] = 0;
    } else if (pid > 0) {
        *slot = gs_cleanup_add_child(pid);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

void gs_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        cleanup[slot].used = 0;
}
