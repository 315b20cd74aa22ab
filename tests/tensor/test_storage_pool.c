/* test_storage_pool.c — the tensor buffer pool (tensor/storage_pool.c):
 * counts, not timings.
 *
 *   reuse     a run that makes and drops the same tensors as the run before
 *             allocates nothing: its buffers are the ones given back (same
 *             addresses), and the counts say so
 *   bound     a pool never holds more than its cap in bytes (buffers given
 *             back past it are freed and counted), nor more than
 *             STORAGE_POOL_MAX_HELD buffers; cap 0 keeps nothing
 *   lifetime  a tensor made under the pool and dropped after it is
 *             uninstalled (a run's outputs) still goes back to it; one
 *             dropped after storage_pool_free is freed (ASan/valgrind see
 *             no leak); no pool installed: plain malloc, nothing counted
 *   poison    a reused buffer is poisoned again like a fresh one (in
 *             builds with TSSA_POISON)
 * Expected counts are derived by hand next to each check.
 */
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "tssa/tensor.h"

static Tensor *vec(int64_t n)
{
    return tensor_empty(DT_F32, 1, &n);
}

/* One "run": three tensors of 1000, 2000 and 1000 floats live at once. */
static void one_run(StoragePool *p, void **addrs)
{
    storage_pool_begin_run(p);
    Tensor *a = vec(1000), *b = vec(2000), *c = vec(1000);
    addrs[0] = tensor_data(a);
    addrs[1] = tensor_data(b);
    addrs[2] = tensor_data(c);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
}

static void test_reuse(void)
{
    StoragePool *p = storage_pool_new(1 << 20);
    CHECK(storage_pool_install(p) == NULL);
    void *first[3], *second[3];
    one_run(p, first);
    one_run(p, second);
    one_run(p, second);
    StoragePoolStats s = storage_pool_stats(p);
    /* run 1 mallocs all three; runs 2 and 3 take them back from the pool */
    CHECK_MSG(s.first_run_allocations == 3, "%lld", (long long)s.first_run_allocations);
    CHECK_MSG(s.last_run_allocations == 0, "%lld", (long long)s.last_run_allocations);
    CHECK(s.allocations == 3);
    CHECK(s.reuses == 6);
    CHECK(s.runs == 3);
    /* held after a run: 4000 + 8000 + 4000 bytes, three buffers */
    CHECK_MSG(s.bytes_held == 16000, "%lld", (long long)s.bytes_held);
    CHECK(s.buffers_held == 3);
    /* the 2000-float buffer is the same one; the two of 1000 are the
     * same two, in either order */
    CHECK(second[1] == first[1]);
    CHECK((second[0] == first[0] && second[2] == first[2]) ||
          (second[0] == first[2] && second[2] == first[0]));
    /* a size the pool has not seen is a new allocation */
    Tensor *d = vec(3000);
    CHECK(storage_pool_stats(p).allocations == 4);
    tensor_release(d);
    CHECK(storage_pool_install(NULL) == p);
    storage_pool_free(p);
}

static void test_bound(void)
{
    /* cap 10000 bytes: of four 4000-byte buffers given back, two fit
     * (8000), the third would make 12000 */
    StoragePool *p = storage_pool_new(10000);
    storage_pool_install(p);
    Tensor *t[4];
    for (int i = 0; i < 4; i++)
        t[i] = vec(1000);
    for (int i = 0; i < 4; i++)
        tensor_release(t[i]);
    StoragePoolStats s = storage_pool_stats(p);
    CHECK_MSG(s.bytes_held == 8000, "%lld", (long long)s.bytes_held);
    CHECK(s.buffers_held == 2);
    CHECK(s.over_cap == 2);
    CHECK(s.peak_bytes_held <= 10000);
    /* a buffer larger than the whole cap is never kept */
    Tensor *big = vec(4000);
    tensor_release(big);
    s = storage_pool_stats(p);
    CHECK(s.bytes_held == 8000 && s.over_cap == 3);
    storage_pool_install(NULL);
    storage_pool_free(p);

    /* the count bound: many tiny buffers, far under the byte cap */
    p = storage_pool_new(64 << 20);
    storage_pool_install(p);
    enum { N = STORAGE_POOL_MAX_HELD + 100 };
    static Tensor *many[N];
    for (int i = 0; i < N; i++)
        many[i] = vec(1);
    for (int i = 0; i < N; i++)
        tensor_release(many[i]);
    s = storage_pool_stats(p);
    CHECK_MSG(s.buffers_held == STORAGE_POOL_MAX_HELD, "%d", s.buffers_held);
    CHECK(s.over_cap == 100);
    storage_pool_install(NULL);
    storage_pool_free(p);

    /* cap 0 keeps nothing, but counts */
    p = storage_pool_new(0);
    storage_pool_install(p);
    void *addrs[3];
    one_run(p, addrs);
    one_run(p, addrs);
    s = storage_pool_stats(p);
    CHECK(s.first_run_allocations == 3 && s.last_run_allocations == 3);
    CHECK(s.bytes_held == 0 && s.reuses == 0);
    storage_pool_install(NULL);
    storage_pool_free(p);
}

static void test_lifetime(void)
{
    StoragePool *p = storage_pool_new(1 << 20);
    storage_pool_install(p);
    Tensor *out = vec(500);
    Tensor *view = tensor_make_view(out, 1, (int64_t[]){10}, (int64_t[]){1}, 5);
    storage_pool_install(NULL);
    /* made under the pool, dropped after it: back to the pool, once the
     * last view goes */
    tensor_release(out);
    CHECK(storage_pool_stats(p).buffers_held == 0);
    tensor_release(view);
    CHECK(storage_pool_stats(p).buffers_held == 1);
    /* not installed: plain malloc, the pool counts nothing */
    Tensor *plain = vec(500);
    CHECK(plain->storage->pool == NULL);
    CHECK(storage_pool_stats(p).allocations == 1);
    tensor_release(plain);
    CHECK(storage_pool_stats(p).buffers_held == 1);
    /* one still out when the pool is freed: freed with its storage */
    storage_pool_install(p);
    Tensor *late = vec(700);
    storage_pool_free(p);           /* also uninstalls it */
    Tensor *after = vec(700);
    CHECK(after->storage->pool == NULL);
    tensor_release(after);
    tensor_release(late);           /* frees the buffer and the closed pool */
}

static void test_poison(void)
{
    if (!tensor_poison_enabled())
        return;
    StoragePool *p = storage_pool_new(1 << 20);
    storage_pool_install(p);
    Tensor *a = vec(64);
    float *d = tensor_data(a);
    for (int i = 0; i < 64; i++)
        d[i] = 1.0f;
    tensor_release(a);
    Tensor *b = vec(64);
    CHECK(tensor_data(b) == (void *)d);     /* the same buffer ... */
    bool all_nan = true;
    for (int i = 0; i < 64; i++)
        all_nan = all_nan && isnan(((float *)tensor_data(b))[i]);
    CHECK(all_nan);                         /* ... poisoned again */
    tensor_release(b);
    storage_pool_install(NULL);
    storage_pool_free(p);
}

int main(void)
{
    test_reuse();
    test_bound();
    test_lifetime();
    test_poison();
    return test_report("tensor_storage_pool");
}
