/* cli_plan_engine.h - `plan --engine E`: one round of card counts run as a
 * sweep by an engine (slurm, parallel, local), waited for, read back.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_CLI_PLAN_ENGINE_H
#define GPUSIM_CLI_PLAN_ENGINE_H

#include "cli_batch.h"

/* Runs n runs (run i: the cluster of coms[i], --gpus or a cluster file, and
 * seed seeds[i]) of policy pol as the sweep dir/manifest.jsonl on engine;
 * fills runs[i].out_dir and runs[i].report (runs zeroed by the caller).
 * 0, or the first run missing or failed, named. */
int plan_round_engine(const char *engine, const char *dir, const cli_opts *coms, const cli_batch_policy *pol,
                      cli_batch_run *runs, const uint64_t *seeds, int n, gs_error *err);

#endif
