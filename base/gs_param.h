/* gs_param.h - the one parser of typed parameter values (--set KEY=VALUE).
 *
 * A declared type and range decide what a value may be (no "banana" read
 * as 0), and one message names the parameter and its valid range:
 *   number    decimal (no hex, inf or nan), lo..hi, optionally followed by
 *             its unit ("2GB/s" for unit "GB/s")
 *   integer   whole decimal, lo..hi
 *   enum      one of the '|'-separated choices
 *   on/off    on or off
 *   duration  seconds, lo..hi, with an optional unit us, ms, s, m or h
 *             ("500ms", "2m")
 *   name      a non-empty token without spaces, which its owner resolves
 *             (checks against a catalog that only the run knows)
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_PARAM_H
#define GPUSIM_GS_PARAM_H

#include <stdbool.h>
#include <stddef.h>

#include "gs.h"

enum gs_param_type {
    GS_P_TEXT = 0, /* untyped: the owner parses it (kept for parameters not declared with a type) */
    GS_P_NUM,
    GS_P_INT,
    GS_P_ENUM,
    GS_P_ONOFF,
    GS_P_DURATION,
    GS_P_NAME, /* a name the owner resolves (a GPU model): one token, no spaces */
};

typedef struct gs_param_spec {
    int type;            /* enum gs_param_type */
    double lo, hi;       /* number, integer, duration (seconds) */
    const char *unit;    /* number: its unit, for messages and as an optional suffix */
    const char *choices; /* enum: "a|b|c"; number, integer, duration: words also accepted ("off") */
} gs_param_spec;

typedef struct gs_param_value {
    double num;     /* number; duration in seconds; integer as a double */
    long long i;    /* integer */
    int choice;     /* enum: index into choices; on/off: 1 for on; number, integer, duration: the
                     * word given (index into choices), -1 for a number */
} gs_param_value;

/* Parses value as sp says. 0, or GS_EUSAGE with
 * "--set NAME='VALUE': expected <description>" in err. */
int gs_param_parse(const char *name, const char *value, const gs_param_spec *sp, gs_param_value *out,
                   gs_error *err);
/* "number 0.1..86400 s", "integer 1..4096", "one of fifo|skip", "on|off",
 * "duration 0..1e+06 s"; "" for text. */
void gs_param_describe(const gs_param_spec *sp, char *buf, size_t n);
/* Plain decimal notation (-12, 3.5, 1e-3): what traces and parameters
 * accept as a number. */
bool gs_parse_decimal(const char *s, size_t n, double *out);

#endif
