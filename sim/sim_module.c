/* sim_module.c - the modules of a run as the loop sees them: which have
 * each per-job hook, a module's state (sim_module.h). Part of the engine
 * core (sim_struct.h).
 * SPDX-License-Identifier: MIT */
#include "sim_module.h"
#include "sim_struct.h"

void sim_module_hooks_note(sim *s)
{
    for (int m = 0; m < s->nmod; m++) {
        const sim_module *x = s->mod[m];
        uint32_t bit = 1u << m;
        s->with_admit |= x->admit ? bit : 0;
        s->with_narrow_pools |= x->narrow_pools ? bit : 0;
        s->with_arrived |= x->arrived ? bit : 0;
        s->with_started |= x->started ? bit : 0;
        s->with_stopped |= x->stopped ? bit : 0;
        s->with_speed |= x->speed ? bit : 0;
        s->with_rate_changed |= x->rate_changed ? bit : 0;
        s->row_kinds |= x->row_kinds;
    }
}

void sim_module_skip(sim *s, int index, unsigned hooks)
{
    if (index < 0 || index >= s->nmod)
        GS_BUG("sim_module_skip: no such module");
    uint32_t bit = 1u << index;
    if (hooks & SIM_HOOK_NARROW_POOLS)
        s->with_narrow_pools &= ~bit;
    if (hooks & SIM_HOOK_ARRIVED)
        s->with_arrived &= ~bit;
    if (hooks & SIM_HOOK_STARTED)
        s->with_started &= ~bit;
    if (hooks & SIM_HOOK_STOPPED)
        s->with_stopped &= ~bit;
    if (hooks & SIM_HOOK_ADMIT)
        s->with_admit &= ~bit;
}

void sim_module_unskip(sim *s, int index, unsigned hooks)
{
    if (index < 0 || index >= s->nmod)
        GS_BUG("sim_module_unskip: no such module");
    const sim_module *x = s->mod[index];
    uint32_t bit = 1u << index;
    if ((hooks & SIM_HOOK_NARROW_POOLS) && x->narrow_pools)
        s->with_narrow_pools |= bit;
    if ((hooks & SIM_HOOK_ARRIVED) && x->arrived)
        s->with_arrived |= bit;
    if ((hooks & SIM_HOOK_STARTED) && x->started)
        s->with_started |= bit;
    if ((hooks & SIM_HOOK_STOPPED) && x->stopped)
        s->with_stopped |= bit;
    if ((hooks & SIM_HOOK_ADMIT) && x->admit)
        s->with_admit |= bit;
}

bool sim_module_narrows_first(const sim *s, int index)
{
    return (s->with_narrow_pools & ((1u << index) - 1)) == 0;
}

void *sim_module_state(const sim *s, const sim_module *mod)
{
    for (int m = 0; m < s->nmod; m++)
        if (s->mod[m] == mod)
            return s->mst[m];
    return NULL;
}
