/* tensor.c — storage, reference counting and the core accessors.
 *
 * A Storage is one malloc'd buffer with a reference count; a Tensor is a
 * reference-counted view (dtype, sizes, strides, offset in elements) that
 * holds one reference to its storage. Every constructor here returns a new
 * reference; tensor_release drops one and frees the storage with its last
 * view. Counts are plain ints: tensors are not shared between threads
 * without the caller's own synchronisation.
 *
 * Buffers come from the installed StoragePool when there is one
 * (storage_pool.c) and go back to it with their storage.
 *
 * Fresh tensors from tensor_empty are filled with a poison value (NaN,
 * 0x5A bytes, true) so a kernel that forgets to write an element shows up in
 * tests instead of reading as a plausible zero.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensor/tensor_impl.h"
#include "tssa/util.h"

/* The most bytes one storage of this thread may have (0: no cap), for a
 * caller that runs ops only to learn their results' shapes
 * (kernels/shape_eval.c) and must not allocate a program's worth. */
static _Thread_local size_t allocation_cap;

size_t tensor_set_allocation_cap(size_t bytes)
{
    size_t previous = allocation_cap;
    allocation_cap = bytes;
    return previous;
}

static Storage *storage_new(size_t nbytes)
{
    if (allocation_cap && nbytes > allocation_cap) {
        tensor_set_error("a tensor of %zu bytes is more than this thread's allocation cap of %zu",
                         nbytes, allocation_cap);
        return NULL;
    }
    /* Asking for more than the machine has would only succeed on paper
     * (overcommit) and end with the process killed while it writes. */
    if (nbytes > physical_memory_bytes()) {
        tensor_set_error("out of memory: a tensor of %zu bytes is more than this machine's memory",
                         nbytes);
        return NULL;
    }
    Storage *s = malloc(sizeof *s);
    if (!s) {
        tensor_set_error("out of memory allocating a tensor of %zu bytes", nbytes);
        return NULL;
    }
    /* The installed pool's buffer of this size, else malloc (of at least
     * one byte, so data is always valid). */
    StoragePool *pool = NULL;
    void *data = storage_pool_take(nbytes, &pool);
    if (!data) {
        free(s);
        tensor_set_error("out of memory allocating a tensor of %zu bytes", nbytes);
        return NULL;
    }
    s->refcount = 1;
    s->nbytes = nbytes;
    s->data = data;
    s->pool = pool;
    return s;
}

static void storage_release(Storage *s)
{
    if (s && --s->refcount == 0) {
        if (s->pool)
            storage_pool_give(s->pool, s->data, s->nbytes);
        else
            free(s->data);
        free(s);
    }
}

static Tensor *tensor_new_header(Storage *s, TensorDType dt, int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset)
{
    Tensor *t = calloc(1, sizeof *t);
    if (!t) {
        tensor_set_error("out of memory allocating a tensor header");
        return NULL;
    }
    t->refcount = 1;
    t->storage = s;
    s->refcount++;
    t->dtype = dt;
    t->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        t->sizes[d] = sizes[d];
        t->strides[d] = strides[d];
    }
    t->offset = offset;
    return t;
}

bool tensor_checked_numel(int ndim, const int64_t *sizes, size_t elem_size, int64_t *numel)
{
    char shape[256];
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", ndim,
                         TENSOR_MAX_DIMS);
        return false;
    }
    int64_t n = 1;
    bool overflow = false;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) {
            tensor_set_error("Trying to create tensor with negative dimension %" PRId64 ": %s",
                             sizes[d], tensor_format_shape(ndim, sizes, shape, sizeof shape));
            return false;
        }
        if (!ckd_mul_i64(&n, n, sizes[d]))
            overflow = true;
    }
    /* A zero size anywhere makes the product 0 even if a prefix overflowed. */
    for (int d = 0; d < ndim; d++)
        if (sizes[d] == 0)
            n = 0, overflow = false;
    int64_t bytes;
    if (overflow || !ckd_mul_i64(&bytes, n, (int64_t)elem_size)) {
        tensor_set_error("tensor of shape %s is too large (element count overflows int64)",
                         tensor_format_shape(ndim, sizes, shape, sizeof shape));
        return false;
    }
    *numel = n;
    return true;
}

void tensor_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    int64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = stride;
        /* PyTorch keeps strides positive past a zero-size dim (so an empty
         * tensor's strides can exceed int64: they are never used then). */
        stride = tensor_mul_wrap(stride, sizes[d] > 1 ? sizes[d] : 1);
    }
}

const char *tensor_format_shape(int ndim, const int64_t *sizes, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return buf;
    buf[0] = '\0';
    used += (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < ndim && used < n; d++)
        used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, d ? ", " : "", sizes[d]);
    if (used < n)
        snprintf(buf + used, n - used, "]");
    return buf;
}

static Tensor *alloc_strided(TensorDType dt, int ndim, const int64_t *sizes, const int64_t *strides,
                             bool poison);

/* New tensors are poison-filled in sanitizer builds (TSSA_POISON): a
 * kernel that leaves an element unset then shows NaN / 0x5A in the tests
 * instead of whatever memory held; release builds skip the extra pass. */
#ifdef TSSA_POISON_TENSORS
enum { POISON_NEW = 1 };
#else
enum { POISON_NEW = 0 };
#endif

bool tensor_poison_enabled(void)
{
    return POISON_NEW;
}

Tensor *tensor_empty_strided(TensorDType dt, int ndim, const int64_t *sizes, const int64_t *strides)
{
    return alloc_strided(dt, ndim, sizes, strides, POISON_NEW);
}

Tensor *tensor_empty_unfilled(TensorDType dt, int ndim, const int64_t *sizes)
{
    int64_t strides[TENSOR_MAX_DIMS];
    int64_t step = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= sizes[d] > 0 ? sizes[d] : 1;
    }
    return alloc_strided(dt, ndim, sizes, strides, false);
}

static Tensor *alloc_strided(TensorDType dt, int ndim, const int64_t *sizes, const int64_t *strides,
                             bool poison)
{
    if ((unsigned)dt >= DT_COUNT) {
        tensor_set_error("invalid dtype %d", (int)dt);
        return NULL;
    }
    int64_t numel;
    if (!tensor_checked_numel(ndim, sizes, dtype_size(dt), &numel))
        return NULL;
    /* The buffer must reach the largest offset the strides address. */
    int64_t extent = numel ? 1 : 0;
    for (int d = 0; d < ndim && numel; d++)
        extent += (sizes[d] - 1) * strides[d];
    if (extent < numel)
        extent = numel;
    Storage *s = storage_new((size_t)extent * dtype_size(dt));
    if (!s)
        return NULL;
    Tensor *t = tensor_new_header(s, dt, ndim, sizes, strides, 0);
    storage_release(s);     /* the header holds the only reference now */
    if (!t || !poison)
        return t;
    /* Poison: NaN for floats, 0x5A bytes for ints, true for bool. */
    if (dt == DT_F32) {
        float *p = s->data;
        for (int64_t i = 0; i < extent; i++)
            p[i] = NAN;
    } else if (dt == DT_F64) {
        double *p = s->data;
        for (int64_t i = 0; i < extent; i++)
            p[i] = NAN;
    } else if (dt == DT_BOOL) {
        bool *p = s->data;
        for (int64_t i = 0; i < extent; i++)
            p[i] = true;
    } else {
        memset(s->data, 0x5A, s->nbytes);
    }
    return t;
}

Tensor *tensor_empty(TensorDType dt, int ndim, const int64_t *sizes)
{
    int64_t strides[TENSOR_MAX_DIMS] = {0};
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", ndim,
                         TENSOR_MAX_DIMS);
        return NULL;
    }
    tensor_contiguous_strides(ndim, sizes, strides);
    return tensor_empty_strided(dt, ndim, sizes, strides);
}

Tensor *tensor_zeros(TensorDType dt, int ndim, const int64_t *sizes)
{
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (t)
        memset(t->storage->data, 0, t->storage->nbytes);   /* 0 bits are 0, 0.0, false */
    return t;
}

Tensor *tensor_full(TensorDType dt, int ndim, const int64_t *sizes, double value)
{
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (t && !tensor_fill_(t, value)) {
        tensor_release(t);
        return NULL;
    }
    return t;
}

Tensor *tensor_scalar(TensorDType dt, double value)
{
    return tensor_full(dt, 0, NULL, value);
}

Tensor *tensor_scalar_int(TensorDType dt, int64_t value)
{
    Tensor *t = tensor_empty(dt, 0, NULL);
    if (t)
        tensor_write_i64(t, 0, value);
    return t;
}

/* Marks a fresh 0-d tensor as a Python number (NULL passes through). */
static Tensor *as_wrapped_number(Tensor *t)
{
    if (t)
        t->wrapped_number = true;
    return t;
}

Tensor *tensor_wrapped_int(int64_t v)
{
    return as_wrapped_number(tensor_scalar_int(DT_I64, v));
}

Tensor *tensor_wrapped_float(double v)
{
    return as_wrapped_number(tensor_scalar(DT_F64, v));
}

Tensor *tensor_wrapped_bool(bool v)
{
    return as_wrapped_number(tensor_scalar_int(DT_BOOL, v));
}

Tensor *tensor_make_view(const Tensor *t, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset)
{
    return tensor_new_header(t->storage, t->dtype, ndim, sizes, strides, offset);
}

Tensor *tensor_retain(Tensor *t)
{
    if (t)
        t->refcount++;
    return t;
}

void tensor_release(Tensor *t)
{
    if (t && --t->refcount == 0) {
        storage_release(t->storage);
        free(t);
    }
}

int64_t tensor_numel(const Tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->sizes[d];
    return n;
}

/* PyTorch's definition: strides of size-1 dims do not matter, and a tensor
 * without elements is contiguous. */
bool tensor_is_contiguous(const Tensor *t)
{
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 0)
            return true;
        if (t->sizes[d] != 1) {
            if (t->strides[d] != expected)
                return false;
            expected *= t->sizes[d];
        }
    }
    return true;
}

void *tensor_data(const Tensor *t)
{
    return (char *)t->storage->data + t->offset * (int64_t)dtype_size(t->dtype);
}

int64_t tensor_flat_to_offset(const Tensor *t, int64_t i)
{
    int64_t offset = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t size = t->sizes[d];
        if (size <= 0)
            break;
        offset += (i % size) * t->strides[d];
        i /= size;
    }
    return offset;
}

static bool flat_index_ok(const Tensor *t, int64_t i)
{
    int64_t n = tensor_numel(t);
    if (i < 0 || i >= n) {
        tensor_set_error("index %" PRId64 " is out of bounds for a tensor of %" PRId64
                         " elements", i, n);
        return false;
    }
    return true;
}

double tensor_get_flat(const Tensor *t, int64_t i)
{
    return flat_index_ok(t, i) ? tensor_read_f64(t, tensor_flat_to_offset(t, i)) : NAN;
}

int64_t tensor_get_flat_int(const Tensor *t, int64_t i)
{
    return flat_index_ok(t, i) ? tensor_read_i64(t, tensor_flat_to_offset(t, i)) : 0;
}

void tensor_set_flat(Tensor *t, int64_t i, double v)
{
    if (flat_index_ok(t, i))
        tensor_write_f64(t, tensor_flat_to_offset(t, i), v);
}

void tensor_set_flat_int(Tensor *t, int64_t i, int64_t v)
{
    if (flat_index_ok(t, i))
        tensor_write_i64(t, tensor_flat_to_offset(t, i), v);
}

static bool item_ok(const Tensor *t)
{
    int64_t n = tensor_numel(t);
    if (n != 1) {
        tensor_set_error("a Tensor with %" PRId64 " elements cannot be converted to Scalar", n);
        return false;
    }
    return true;
}

/* The one element as a double; NaN (with an error) unless numel is 1. */
double tensor_item(const Tensor *t)
{
    return item_ok(t) ? tensor_read_f64(t, t->offset) : NAN;
}

/* The one element as an int64 (floats truncate); 0 (with an error) unless
 * numel is 1. */
int64_t tensor_item_int(const Tensor *t)
{
    return item_ok(t) ? tensor_read_i64(t, t->offset) : 0;
}

bool tensor_same_shape(const Tensor *a, const Tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d])
            return false;
    return true;
}

/* PyTorch's maybe_wrap_dim: a 0-d tensor accepts dims -1 and 0. */
int tensor_wrap_dim(int64_t dim, int ndim)
{
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n) {
        tensor_set_error("Dimension out of range (expected to be in range of [%" PRId64
                         ", %" PRId64 "], but got %" PRId64 ")", -n, n - 1, dim);
        return -1;
    }
    return (int)(dim < 0 ? dim + n : dim);
}

/* Truncation toward zero; NaN or a value outside the 32-bit (narrow types)
 * or 64-bit range gives the x86 "integer indefinite" value, then wraps. */
int64_t tensor_double_to_int(double v, TensorDType dt)
{
    if (dt == DT_BOOL)
        return v != 0;
    if (dt == DT_I64) {
        /* [-2^63, 2^63) are exactly the doubles that truncate into int64. */
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
            return INT64_MIN;
        return (int64_t)v;
    }
    int64_t wide;
    if (!(v > -2147483649.0 && v < 2147483648.0))
        wide = INT32_MIN;
    else
        wide = (int64_t)v;
    return tensor_wrap_int(wide, dt);
}
