/* fuzz_report.c - what `check` and `plot` read: the JSON reader and the one
 * definition of a report, compare.json and plan.json (cli/cli_docs.c); a
 * document that parses must also print back as valid UTF-8 JSON that
 * parses to the same tree.
 * SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/gs_json.h"
#include "../../base/gs_utf8.h"
#include "../../cli/cli_docs.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gs_error err = {0};
    cJSON *j = gs_json_parse((const char *)data, size, "report", "r.json", &err);
    if (!j) {
        fz_check_err(GS_EINPUT, &err);
        return 0;
    }
    int rc = cd_check_report(j, "r.json", &err);
    fz_check_err(rc, &err);
    rc = cd_check_compare(j, "c.json", &err);
    fz_check_err(rc, &err);
    rc = cd_check_plan(j, "p.json", &err);
    fz_check_err(rc, &err);
    size_t n;
    char *text = gs_json_print(j, &n);
    if (!gs_utf8_valid(text, n))
        abort();
    cJSON *back = gs_json_parse(text, n, "report", "printed", &err);
    if (!back || !cJSON_Compare(j, back, 1)) {
        fprintf(stderr, "fuzz: printed JSON does not parse back to the same tree: %s\n", back ? "" : err.msg);
        abort();
    }
    cJSON_Delete(back);
    free(text);
    cJSON_Delete(j);
    return 0;
}
