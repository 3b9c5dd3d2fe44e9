/* cli.h - gpusim subcommands. Each returns an exit code:
 * 0 ok, 1 other failure, 2 usage, 3 bad input, 4 cannot write output.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_H
#define GPUSIM_CLI_H

#include "gs.h"

int cmd_run(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_import(int argc, char **argv);
/* capacity planning workflow (issue 6) */
int cmd_compare(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* Maps a GS_E* status to the exit code. */
int cli_exit_code(int status);
/* Prints "gpusim: error: <msg>" to stderr and returns the exit code. */
int cli_fail(const gs_error *err);
/* Path of a file shipped beside the executable (e.g. the example cluster). */
void cli_shipped_path(char *buf, size_t n, const char *rel);

#endif
