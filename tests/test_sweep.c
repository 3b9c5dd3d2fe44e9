/* test_sweep.c - the pieces under `gpusim sweep` that have an exact answer:
 * SHA-256 against the FIPS 180-4 example vectors (run ids rest on it), and
 * the line and column a spec error names.
 * SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "../base/gs_jsonpos.h"
#include "../base/gs_sha256.h"
#include "check.h"

static void hex_of(const char *msg, size_t n, char out[65])
{
    gs_sha256 s;
    gs_sha256_init(&s);
    gs_sha256_update(&s, msg, n);
    gs_sha256_hex(&s, out);
}

/* FIPS 180-4 examples (csrc.nist.gov, "SHA256.pdf"): "abc", the 448-bit
 * two-block message, and one million 'a' fed in odd-sized pieces. */
static void sha256_vectors(void)
{
    char h[65];
    hex_of("abc", 3, h);
    CHECK(!strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    hex_of("", 0, h);
    CHECK(!strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two, strlen(two), h);
    CHECK(!strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    gs_sha256 s;
    gs_sha256_init(&s);
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    size_t at = 0, step = 1;
    while (at < 1000000) { /* pieces of 1, 2, ... bytes cross every block boundary case */
        size_t n = step < 1000000 - at ? step : 1000000 - at;
        gs_sha256_update(&s, a + at, n);
        at += n;
        step = step % 150 + 1;
    }
    free(a);
    gs_sha256_hex(&s, h);
    CHECK(!strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

static void json_locate_line_col(void)
{
    const char *t = "{\n  \"traces\": [\"a.csv\"],\n  \"policies\": [\"whole\",\n     {\"name\": \"x\", \"params\": "
                    "{\"k\": 1}}],\n  \"seeds\": [1, 2]\n}\n";
    int line, col;
    size_t koff = 0;
    size_t off = gs_json_locate(t, (const char *[]){"policies", "#1", "params", "k"}, 4, &koff);
    CHECK(off != (size_t)-1);
    gs_text_linecol(t, off, &line, &col);
    CHECK_EQ_INT(line, 4);
    CHECK_EQ_INT(col, 36); /* 5 spaces, {"name": "x", "params": {"k": then 1 */
    gs_text_linecol(t, koff, &line, &col);
    CHECK_EQ_INT(col, 31);
    off = gs_json_locate(t, (const char *[]){"seeds", "#1"}, 2, NULL);
    gs_text_linecol(t, off, &line, &col);
    CHECK_EQ_INT(line, 5);
    CHECK_EQ_INT(col, 16);
    /* a key inside a string value is not a key; absent paths say so */
    const char *u = "{\"a\": \"\\\"b\\\": 1\", \"b\": [10, {\"c\": \"]\"}, 30]}";
    off = gs_json_locate(u, (const char *[]){"b", "#2"}, 2, NULL);
    CHECK(off != (size_t)-1 && !strncmp(u + off, "30", 2));
    CHECK(gs_json_locate(u, (const char *[]){"b", "#3"}, 2, NULL) == (size_t)-1);
    CHECK(gs_json_locate(u, (const char *[]){"zz"}, 1, NULL) == (size_t)-1);
}

const test_case tests_sweep[] = {
    {"sweep/sha256_fips_vectors", sha256_vectors},
    {"sweep/json_locate_line_col", json_locate_line_col},
    {0, 0},
};
