/* registry.c - the only list of policies. Adding a policy is adding its file
 * and one line here; `gpusim policies`, --policy lookup and the contract
 * tests all iterate this table.
 * SPDX-License-Identifier: MIT */
#include "registry.h"

#include <string.h>

extern const pol_ops pol_whole;
extern const pol_ops pol_vgpu, pol_timeslice, pol_mps; /* shared cards */
extern const pol_ops pol_hibernate;            /* time policy */
extern const pol_ops pol_mig, pol_dynmig;     /* MIG */
extern const pol_ops pol_dualpod;              /* service actuator */

static const pol_ops *const registry[] = {
    &pol_whole,
    &pol_vgpu,
    &pol_timeslice,
    &pol_mps,
    &pol_hibernate,
    &pol_mig,
    &pol_dynmig,
    &pol_dualpod,
    NULL,
};

const pol_ops *pol_find(const char *name)
{
    for (int i = 0; registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const pol_ops *const *pol_all(void) { return registry; }
