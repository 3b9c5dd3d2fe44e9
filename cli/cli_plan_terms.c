/* cli_plan_terms.c - see cli_plan_terms.h.
 * SPDX-License-Identifier: MIT */
#include "cli_plan_terms.h"

#include <string.h>

const plan_implicit plan_implicit_terms[] = {
    {"jobs.rejected", "--allow-rejected"},
    {"jobs.failed", "--allow-failed"},
    {"derived.requests_dropped", "--allow-dropped"},
    {"derived.replicas_unplaceable", "--allow-unplaceable"},
    {NULL, NULL},
};

const char *plan_term_flag(const char *path)
{
    for (const plan_implicit *t = plan_implicit_terms; t->path; t++)
        if (!strcmp(t->path, path))
            return t->flag;
    return NULL;
}
