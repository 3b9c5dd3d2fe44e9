/* gs_sha256.h - SHA-256 (FIPS 180-4) for content identity: a sweep run's id
 * is derived from the hashes of its trace and cluster files, so a result can
 * be recognised as belonging to exactly these inputs. Not for secrets.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_SHA256_H
#define GPUSIM_GS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "gs.h"

typedef struct gs_sha256 {
    uint32_t h[8];
    uint64_t bytes;     /* message length so far */
    uint8_t block[64];  /* pending partial block */
    size_t fill;
} gs_sha256;

void gs_sha256_init(gs_sha256 *s);
void gs_sha256_update(gs_sha256 *s, const void *data, size_t n);
/* Writes the 64 lowercase hex digits and a NUL into hex[65]. */
void gs_sha256_hex(gs_sha256 *s, char hex[65]);
/* Hash of a file's bytes. GS_EINPUT (naming the file) when unreadable. */
int gs_sha256_file(const char *path, char hex[65], gs_error *err);

#endif
