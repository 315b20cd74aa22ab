/* xalloc.c — checked allocation; see include/tssa/util.h.
 *
 * One family for the whole program: running out of memory in the compiler's
 * own bookkeeping is not something a caller can recover from, so it stops
 * with the size that was asked for instead of returning NULL to be checked
 * (or forgotten) at every call.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tssa/diag.h"
#include "tssa/util.h"

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        diag_die("out of memory (%zu bytes)", size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        diag_die("out of memory (%zu x %zu bytes)", count, size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        diag_die("out of memory (%zu bytes)", size);
    return q;
}

void *xmallocn(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        diag_die("out of memory (%zu x %zu bytes overflows)", count, size);
    return xmalloc(count * size);
}

void *xreallocn(void *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        diag_die("out of memory (%zu x %zu bytes overflows)", count, size);
    return xrealloc(p, count * size);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        diag_die("cannot format a message");
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

size_t physical_memory_bytes(void)
{
    /* Asked once: every tensor allocation checks against it. Concurrent
     * first calls compute and store the same value. */
    static _Atomic size_t cached;
    size_t known = atomic_load_explicit(&cached, memory_order_relaxed);
    if (known)
        return known;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t bytes;
    if (pages <= 0 || page <= 0 || !ckd_mul_size(&bytes, (size_t)pages, (size_t)page))
        bytes = SIZE_MAX;
    atomic_store_explicit(&cached, bytes, memory_order_relaxed);
    return bytes;
}
