/* run.c - the unit and validation test runner: runs every case of every
 * table in test_tables[] (or those whose name contains argv[1]), each in a
 * child process, prints [ok]/[FAIL] per case and ends with
 * "N passed, N failed"; exits 1 on any failure.
 *
 * Why a child per case: a case that crashes, aborts (GS_BUG, a sanitizer
 * report) or leaks (LeakSanitizer runs at the child's exit and makes it exit
 * non-zero) is then counted as that case's failure, with its name, and the
 * other cases still run. A runner that dies half-way would otherwise print
 * no count at all, and a pipeline could report the run as green.
 * SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int check_failures;

/* Runs one case in this process; the exit status is the verdict. */
static void run_case(const test_case *c)
{
    check_failures = 0;
    c->fn();
    test_cleanup();
    fflush(stdout);
    fflush(stderr);
    exit(check_failures ? 1 : 0); /* exit, not _exit: LeakSanitizer checks here */
}

/* Returns NULL when the case passed, else why it failed. */
static const char *verdict(int status, char *buf, size_t n)
{
    if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        if (code == 0)
            return NULL;
        if (code == 1)
            return "checks failed";
        snprintf(buf, n, "exited with status %d (sanitizer report or leak: see above)", code);
        return buf;
    }
    if (WIFSIGNALED(status)) {
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return buf;
    }
    return "ended abnormally";
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int passed = 0, failed = 0;
    for (int t = 0; test_tables[t]; t++) {
        for (const test_case *c = test_tables[t]; c->name; c++) {
            if (argc > 1 && !strstr(c->name, argv[1]))
                continue;
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 1;
            }
            if (pid == 0)
                run_case(c);
            int status = 0;
            while (waitpid(pid, &status, 0) < 0) {
                if (errno != EINTR) {
                    perror("waitpid");
                    return 1;
                }
            }
            char buf[160];
            const char *why = verdict(status, buf, sizeof buf);
            if (why) {
                failed++;
                printf("[FAIL] %s: %s\n", c->name, why);
            } else {
                passed++;
                printf("[ok]   %s\n", c->name);
            }
            fflush(stdout);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
