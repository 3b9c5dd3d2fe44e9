/* sim_param.h - the parameters in force for a run: a --set value, else
 * the declaring module's or policy's default, parsed by its pol_param.spec.
 * Every value is checked once, at sim_init (sim_params_check), so a typed
 * read never fails. O(declared parameters) a read: setup and rare paths.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_PARAM_H
#define GPUSIM_SIM_PARAM_H

#include "sim_policy.h"

/* Value in force of a declared parameter of the running policies or the core. */
const char *sim_param(const sim *s, const char *name);
/* A typed parameter's value (its pol_param.spec; checked at sim_init, so
 * always in range). Asking for the wrong type is a programming error. */
double sim_param_num(const sim *s, const char *name);
/* A number, an integer or a duration (in seconds) as a double. */
double sim_param_number(const sim *s, const char *name);
long long sim_param_int(const sim *s, const char *name);
/* The index of the value among an enum's choices; for a number that also
 * takes words (P_INT_OR, P_DURATION_OR), the word given, or -1 for a number. */
int sim_param_choice(const sim *s, const char *name);
bool sim_param_on(const sim *s, const char *name);
gs_time_us sim_param_us(const sim *s, const char *name); /* a duration */
/* sim_init's check: every --set key is a declared parameter, and every
 * value in force, given or default, is in its declared range. 0, or
 * GS_EUSAGE / the parse's code with the message in err. */
int sim_params_check(sim *s, gs_error *err);

#endif
