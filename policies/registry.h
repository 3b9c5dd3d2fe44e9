/* registry.h - every policy this build offers. The engine names no policy:
 * the command-line tool (and a test) hands this table to the engine in
 * sim_config.registry.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_POLICIES_REGISTRY_H
#define GPUSIM_POLICIES_REGISTRY_H

#include "../sim/sim_policy.h"

/* The policy called name, or NULL. */
const pol_ops *pol_find(const char *name);
/* NULL-terminated array of every policy, in table order. */
const pol_ops *const *pol_all(void);

#endif
