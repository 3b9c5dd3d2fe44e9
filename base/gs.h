/* gs.h - common definitions for every gpusim module: time type, status codes,
 * the error slot, and allocation helpers that abort on out-of-memory.
 *
 * Time is int64 microseconds (gs_time_us) everywhere in the core: integer
 * ticks keep equal-time events exactly equal, so ties are broken only by the
 * event sequence number and never by float rounding.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_GS_H
#define GPUSIM_GS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPUSIM_VERSION "0.1.0"

typedef int64_t gs_time_us;
#define GS_US_PER_S 1000000LL
#define GS_TIME_MAX INT64_MAX

static inline double gs_us_to_s(gs_time_us t) { return (double)t / 1e6; }

/* The one range check of a time computed from inputs (a duration at a
 * rate, a checkpoint at a bandwidth, a token count at a per-token time):
 * now + off_us, off_us already rounded by the caller as it wants, into *out
 * when the sum stays on the clock; false for NaN, an offset that would go
 * before 0, or a sum within 4096 us of GS_TIME_MAX (the margin covers the
 * rounding of INT64_MAX - now to a double). Casting a double past int64 is
 * undefined and a signed sum past it wraps: neither may happen. */
static inline bool gs_time_add(gs_time_us now, double off_us, gs_time_us *out)
{
    if (!(off_us >= -(double)now) || !(off_us <= (double)(GS_TIME_MAX - now) - 4096.0))
        return false;
    *out = now + (gs_time_us)off_us;
    return true;
}
/* The same for a whole offset (a stated duration): exact, no double. */
static inline bool gs_time_add_us(gs_time_us now, gs_time_us off_us, gs_time_us *out)
{
    if (off_us < -now || off_us > GS_TIME_MAX - 4096 - now)
        return false;
    *out = now + off_us;
    return true;
}

/* Status codes. Library code returns 0 or one of these (negative) and puts
 * the context into a gs_error; only main.c maps them to exit codes. */
enum {
    GS_OK = 0,
    GS_EFAIL = -1,  /* other failure                 -> exit 1 */
    GS_EUSAGE = -2, /* bad flag, unknown name        -> exit 2 */
    GS_EINPUT = -3, /* bad trace/cluster/model input -> exit 3 */
    GS_EWRITE = -4  /* cannot write results          -> exit 4 */
};

typedef struct gs_error {
    int code;
    char msg[1024];
} gs_error;

/* Records code and a printf-style message in err (if non-NULL); returns code
 * so callers can write `return gs_err(err, GS_EINPUT, ...)`. */
int gs_err(gs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Allocation helpers: never return NULL; print and abort on OOM. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* xcalloc on a 64-byte boundary (a cache line): a record of the array
 * starting on one reads the lines it spans, not one more; freed by free. */
void *xcalloc_lines(size_t n, size_t size);
/* Zeroed memory of bytes (a multiple of GS_HUGE_PAGE) on a GS_HUGE_PAGE
 * boundary, asked of the kernel in transparent huge pages (madvise
 * MADV_HUGEPAGE; where it gives none, 4 KiB pages as before): a structure
 * of many megabytes read at random otherwise takes a page walk on most
 * reads, past what the TLB holds. Touched pages only count. Freed by
 * gs_huge_free with the same bytes. */
#define GS_HUGE_PAGE ((size_t)2 << 20)
void *gs_huge_calloc(size_t bytes);
void gs_huge_free(void *p, size_t bytes);
/* Chunks of zeroed memory carved from huge pages in turn (each chunk at
 * most GS_HUGE_PAGE bytes, a multiple of 64, never freed alone): for the
 * chunks of a slab past its first few. {0} is empty; gs_arena_free frees
 * them all. */
typedef struct gs_arena {
    char **blocks;
    size_t nblocks, used; /* bytes taken of the last block */
} gs_arena;
void *gs_arena_take(gs_arena *a, size_t bytes);
void gs_arena_free(gs_arena *a);
char *xstrdup(const char *s);
/* memset(p, 0, n) through the C library's: out of line, so the compiler
 * cannot expand a fixed-size clear of a hot record into `rep stosq`, whose
 * start-up costs more than the library's vector stores for a few hundred
 * bytes. */
void gs_zero(void *p, size_t n);

/* Programmer error: prints file:line and aborts. */
#define GS_BUG(msg) gs_bug(__FILE__, __LINE__, (msg))
void gs_bug(const char *file, int line, const char *msg) __attribute__((noreturn));

/* Finds rel among the data shipped with the running executable (beside it,
 * in ../share/gpusim/ as `make install` lays it out, or in the source tree
 * above build/<config>/); writes the first that exists into buf and returns
 * true, or false (buf undefined). */
bool gs_exe_relative(char *buf, size_t n, const char *rel);

/* Case-insensitive ASCII string equality. */
bool gs_streq_ci(const char *a, const char *b);
/* Does q name a catalog entry: its name or one of its n aliases, case
 * aside? O(aliases). */
bool gs_names_entry(const char *name, char *const *aliases, int n, const char *q);

#endif
