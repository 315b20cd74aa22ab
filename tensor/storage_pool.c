/* storage_pool.c — tensor buffers kept for reuse across the runs of a plan.
 *
 * Every firing makes its output tensors and drops them again, the same
 * sizes run after run. Without a pool each of those is a malloc and a free;
 * a buffer glibc serves from fresh pages (a new mapping, or heap it had
 * trimmed) costs its page faults again every run. A StoragePool keeps the
 * freed buffers instead, in exact-size free lists, and hands them back to
 * the next tensor of that size: from the second run on a plan allocates
 * nothing (what --stats shows as allocations_last_run).
 *
 * Life cycle: the owner of a plan makes a pool (storage_pool_new) and the
 * cpu backend installs it (storage_pool_install) for its runs; a storage
 * made while a pool is installed remembers that pool and, when its last
 * reference goes, gives its buffer back to it (even after the run, when
 * the pool is no longer installed: the outputs a caller drops between runs
 * are next run's outputs). storage_pool_free closes the pool: the buffers it
 * holds are freed and the memory returned to the operating system
 * (malloc_trim); buffers still in use are freed when their storage is, and
 * the pool's own struct goes with the last of them.
 *
 * Bounds: the pool holds at most cap_bytes of free buffers and at most
 * STORAGE_POOL_MAX_HELD of them; a buffer given back beyond either is freed.
 * A pool of cap 0 keeps nothing (it still counts allocations).
 *
 * Threads: tensors may be made and dropped on OpenMP threads, so the free
 * lists, the counts and the pool's reference count are under one mutex
 * (held for a lookup in a short sorted array: contention stays low); the
 * installed pool is an atomic pointer, process-wide.
 *
 * Sanitizers and valgrind: a reused buffer would hide a use after free
 * from them (the memory stays allocated), so storage_pool_default_cap gives
 * 0 (keep nothing) in AddressSanitizer builds (TSSA_SANITIZE, TSSA_FUZZ),
 * under valgrind, and when TSSA_STORAGE_POOL=0 is set in the environment.
 * Reused buffers are poisoned like fresh ones (tensor_empty poisons after
 * taking the buffer), so a kernel that leaves an element unset still shows.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define STORAGE_POOL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STORAGE_POOL_UNDER_ASAN 1
#endif
#endif
#ifndef STORAGE_POOL_UNDER_ASAN
#define STORAGE_POOL_UNDER_ASAN 0
#endif

#include "tensor/tensor_impl.h"
#include "tssa/util.h"

/* Free buffers of one size. */
typedef struct PoolBin {
    size_t nbytes;
    void **buffers;
    int n, cap;
} PoolBin;

struct StoragePool {
    pthread_mutex_t lock;
    size_t cap_bytes;
    PoolBin *bins;              /* sorted by nbytes; no empty bin */
    int nbins, cap_bins;
    size_t bytes_held;
    int buffers_held;
    /* the owner's reference (until storage_pool_free) + one per buffer out */
    int64_t refs;
    bool closed;
    StoragePoolStats stats;
    int64_t run_start_allocations;
};

static _Atomic(StoragePool *) installed_pool;

StoragePool *storage_pool_new(size_t cap_bytes)
{
    StoragePool *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    p->cap_bytes = cap_bytes;
    p->refs = 1;
    p->stats.cap_bytes = (int64_t)cap_bytes;
    p->stats.first_run_allocations = -1;
    return p;
}

size_t storage_pool_default_cap(int64_t bytes_planned)
{
    const char *env = getenv("TSSA_STORAGE_POOL");
    if (STORAGE_POOL_UNDER_ASAN || RUNNING_ON_VALGRIND || (env && strcmp(env, "0") == 0))
        return 0;
    size_t cap = (size_t)STORAGE_POOL_MIN_CAP;
    if (bytes_planned > 0 && (size_t)bytes_planned <= SIZE_MAX / STORAGE_POOL_PLANNED_FACTOR &&
        (size_t)bytes_planned * STORAGE_POOL_PLANNED_FACTOR > cap)
        cap = (size_t)bytes_planned * STORAGE_POOL_PLANNED_FACTOR;
    size_t quarter = physical_memory_bytes() / 4;
    return cap < quarter ? cap : quarter;
}

/* Frees the pool's struct once it is closed and no buffer is out; called
 * with the lock held, which it releases. */
static void unlock_or_destroy(StoragePool *p)
{
    bool gone = p->refs == 0;
    pthread_mutex_unlock(&p->lock);
    if (gone) {
        pthread_mutex_destroy(&p->lock);
        free(p);
    }
}

static void drop_free_lists(StoragePool *p)
{
    for (int b = 0; b < p->nbins; b++) {
        for (int i = 0; i < p->bins[b].n; i++)
            free(p->bins[b].buffers[i]);
        free(p->bins[b].buffers);
    }
    free(p->bins);
    p->bins = NULL;
    p->nbins = p->cap_bins = 0;
    p->bytes_held = 0;
    p->buffers_held = 0;
}

void storage_pool_free(StoragePool *p)
{
    if (!p)
        return;
    StoragePool *expected = p;
    atomic_compare_exchange_strong(&installed_pool, &expected, NULL);
    pthread_mutex_lock(&p->lock);
    p->closed = true;
    drop_free_lists(p);
    p->refs--;
    unlock_or_destroy(p);
#ifdef __GLIBC__
    malloc_trim(0);             /* the freed buffers back to the system */
#endif
}

StoragePool *storage_pool_install(StoragePool *p)
{
    return atomic_exchange(&installed_pool, p);
}

void storage_pool_begin_run(StoragePool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->stats.runs == 1)
        p->stats.first_run_allocations = p->stats.allocations - p->run_start_allocations;
    p->stats.runs++;
    p->run_start_allocations = p->stats.allocations;
    pthread_mutex_unlock(&p->lock);
}

StoragePoolStats storage_pool_stats(StoragePool *p)
{
    pthread_mutex_lock(&p->lock);
    StoragePoolStats s = p->stats;
    s.last_run_allocations = s.runs > 0 ? s.allocations - p->run_start_allocations : 0;
    if (s.runs == 1)
        s.first_run_allocations = s.last_run_allocations;
    s.bytes_held = (int64_t)p->bytes_held;
    s.buffers_held = p->buffers_held;
    pthread_mutex_unlock(&p->lock);
    return s;
}

/* The index of the bin of nbytes, or where it would go (*found false). */
static int find_bin(const StoragePool *p, size_t nbytes, bool *found)
{
    int lo = 0, hi = p->nbins;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->bins[mid].nbytes < nbytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < p->nbins && p->bins[lo].nbytes == nbytes;
    return lo;
}

void *storage_pool_take(size_t nbytes, StoragePool **from)
{
    size_t size = nbytes ? nbytes : 1;      /* malloc(0) may return NULL */
    StoragePool *p = atomic_load(&installed_pool);
    *from = NULL;
    if (!p)
        return malloc(size);
    pthread_mutex_lock(&p->lock);
    bool found;
    int b = find_bin(p, size, &found);
    void *data = NULL;
    if (found) {
        PoolBin *bin = &p->bins[b];
        data = bin->buffers[--bin->n];
        p->bytes_held -= size;
        p->buffers_held--;
        p->stats.reuses++;
        if (bin->n == 0) {              /* keep no empty bin: lookups stay short */
            free(bin->buffers);
            memmove(bin, bin + 1, (size_t)(p->nbins - b - 1) * sizeof *bin);
            p->nbins--;
        }
    } else {
        data = malloc(size);
        if (data)
            p->stats.allocations++;
    }
    if (data) {
        p->refs++;
        *from = p;
    }
    pthread_mutex_unlock(&p->lock);
    return data;
}

void storage_pool_give(StoragePool *p, void *data, size_t nbytes)
{
    size_t size = nbytes ? nbytes : 1;
    pthread_mutex_lock(&p->lock);
    p->refs--;
    bool keep = !p->closed && data && p->buffers_held < STORAGE_POOL_MAX_HELD &&
                size <= p->cap_bytes && p->bytes_held <= p->cap_bytes - size;
    if (keep) {
        bool found;
        int b = find_bin(p, size, &found);
        if (!found) {
            if (p->nbins == p->cap_bins) {
                p->cap_bins = p->cap_bins ? 2 * p->cap_bins : 16;
                p->bins = xrealloc(p->bins, (size_t)p->cap_bins * sizeof *p->bins);
            }
            memmove(&p->bins[b + 1], &p->bins[b], (size_t)(p->nbins - b) * sizeof *p->bins);
            p->bins[b] = (PoolBin){.nbytes = size};
            p->nbins++;
        }
        PoolBin *bin = &p->bins[b];
        if (bin->n == bin->cap) {
            bin->cap = bin->cap ? 2 * bin->cap : 4;
            bin->buffers = xrealloc(bin->buffers, (size_t)bin->cap * sizeof *bin->buffers);
        }
        bin->buffers[bin->n++] = data;
        p->bytes_held += size;
        p->buffers_held++;
        if ((int64_t)p->bytes_held > p->stats.peak_bytes_held)
            p->stats.peak_bytes_held = (int64_t)p->bytes_held;
    } else {
        if (data && !p->closed)
            p->stats.over_cap++;
        free(data);
    }
    unlock_or_destroy(p);
}
