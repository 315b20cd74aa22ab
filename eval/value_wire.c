/* value_wire.c — run-time values as bytes, so that a channel's items can
 * move between MPI ranks (backends/mpi).
 *
 * A batch of items travels as one metadata block and a few data spans:
 *   metadata  int64 words: magic, the spans (bytes, dtype), the item count,
 *             then every item as a tree: kind, then
 *               int, bool      the value
 *               float          its bits
 *               str, device,   byte length, bytes (padded to a word)
 *               object
 *               list, tuple,   item count, the items
 *               dict
 *               tensor         span (-1: no elements), dtype, ndim,
 *                              wrapped_number, offset in the span
 *                              (elements), sizes, strides
 *   spans     the bytes of storage the tensors read, sent straight from
 *             the sender's storage (no copy).
 * Tensors of one storage and dtype share one span, the range of elements
 * they cover together, when that range is compact (at most twice their
 * own ranges): the rows of an unstacked tensor travel as one byte range,
 * and a weight repeated beside every row travels once. A view whose range
 * is much larger than its elements (a column of a matrix) is copied into
 * a contiguous tensor first. A received tensor keeps its sender's strides,
 * so a kernel sees the layout it would see on one rank.
 *
 * The reader checks every count, offset and stride against the spans, so
 * corrupt metadata is an error, never an out-of-bounds access. Ranks are
 * assumed to share byte order and word size (a homogeneous cluster).
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/value.h"

#define WIRE_MAGIC 0x31575354 /* "TSW1" */

typedef struct WireTensor {
    Tensor *t;          /* borrowed, or a contiguous copy (owned) */
    bool owned;
    int span;           /* -1: no elements */
    int64_t lo, hi;     /* elements of storage it reads: [lo, hi) */
} WireTensor;

typedef struct Packer {
    int64_t *words;
    size_t len, cap;
    WireTensor *tensors;
    int ntensors, cap_tensors, next_tensor;
} Packer;

static void put(Packer *p, int64_t w)
{
    if (p->len == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->words = xrealloc(p->words, p->cap * sizeof *p->words);
    }
    p->words[p->len++] = w;
}

static void put_bytes(Packer *p, const char *s)
{
    size_t n = strlen(s);
    put(p, (int64_t)n);
    for (size_t i = 0; i < n; i += 8) {
        int64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        put(p, w);
    }
}

/* The elements of storage t reads: [lo, hi); lo == hi when it has none. */
static void element_range(const Tensor *t, int64_t *lo, int64_t *hi)
{
    *lo = t->offset;
    *hi = t->offset + 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 0) {
            *hi = *lo;
            return;
        }
        int64_t reach = (t->sizes[d] - 1) * t->strides[d];
        if (reach < 0)
            *lo += reach;
        else
            *hi += reach;
    }
}

static bool collect_tensor(Packer *p, Tensor *t)
{
    if (p->ntensors == p->cap_tensors) {
        p->cap_tensors = p->cap_tensors ? 2 * p->cap_tensors : 16;
        p->tensors = xrealloc(p->tensors, (size_t)p->cap_tensors * sizeof *p->tensors);
    }
    WireTensor *w = &p->tensors[p->ntensors];
    *w = (WireTensor){.t = t, .span = -1};
    element_range(t, &w->lo, &w->hi);
    /* A sparse view would send mostly bytes nobody reads. */
    if (w->hi - w->lo > 4 * tensor_numel(t) + 64) {
        if (!(w->t = tensor_clone(t)))
            return false;
        w->owned = true;
        element_range(w->t, &w->lo, &w->hi);
    }
    p->ntensors++;
    return true;
}

/* Collects the tensors of v, depth first (the order put_value meets them). */
static bool collect(Packer *p, RtValue *v)
{
    if (v->kind == RT_TENSOR)
        return collect_tensor(p, v->u.t);
    if (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)
        for (int i = 0; i < v->u.list.n; i++)
            if (!collect(p, v->u.list.items[i]))
                return false;
    return true;
}

/* Gives every tensor with elements a span: one per storage and dtype when
 * the tensors of that storage cover a compact range together, else one
 * each. */
static void assign_spans(Packer *p, RtWireOut *out)
{
    int most = p->ntensors;
    out->span_data = xcalloc((size_t)most + 1, sizeof *out->span_data);
    out->span_bytes = xcalloc((size_t)most + 1, sizeof *out->span_bytes);
    out->span_dtype = xcalloc((size_t)most + 1, sizeof *out->span_dtype);
    int64_t *span_lo = xcalloc((size_t)most + 1, sizeof *span_lo);
    for (int i = 0; i < p->ntensors; i++) {
        WireTensor *w = &p->tensors[i];
        if (w->span >= 0 || w->hi == w->lo)
            continue;
        int64_t lo = w->lo, hi = w->hi, own = 0;
        for (int j = i; j < p->ntensors; j++) {
            const WireTensor *u = &p->tensors[j];
            if (u->span < 0 && u->hi > u->lo && u->t->storage == w->t->storage &&
                u->t->dtype == w->t->dtype) {
                lo = u->lo < lo ? u->lo : lo;
                hi = u->hi > hi ? u->hi : hi;
                own += u->hi - u->lo;
            }
        }
        bool shared = hi - lo <= 2 * own;
        if (!shared) {
            lo = w->lo;
            hi = w->hi;
        }
        int s = out->nspans++;
        size_t esize = dtype_size(w->t->dtype);
        span_lo[s] = lo;
        out->span_data[s] = (const char *)w->t->storage->data + lo * (int64_t)esize;
        out->span_bytes[s] = (size_t)(hi - lo) * esize;
        out->span_dtype[s] = w->t->dtype;
        for (int j = i; j < p->ntensors; j++) {
            WireTensor *u = &p->tensors[j];
            if (u->span < 0 && u->hi > u->lo && u->t->storage == w->t->storage &&
                u->t->dtype == w->t->dtype && (shared || j == i)) {
                u->span = s;
            }
        }
    }
    for (int i = 0; i < p->ntensors; i++)       /* lo: now the span's first element */
        if (p->tensors[i].span >= 0)
            p->tensors[i].lo = span_lo[p->tensors[i].span];
    free(span_lo);
}

static void put_value(Packer *p, const RtValue *v)
{
    put(p, v->kind);
    switch (v->kind) {
    case RT_NONE:
    case RT_UNINIT:
        return;
    case RT_INT:
    case RT_BOOL:
        put(p, v->u.i);
        return;
    case RT_FLOAT: {
        int64_t bits;
        memcpy(&bits, &v->u.f, sizeof bits);
        put(p, bits);
        return;
    }
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT:
        put_bytes(p, v->u.s);
        return;
    case RT_LIST:
    case RT_TUPLE:
    case RT_DICT:
        put(p, v->u.list.n);
        for (int i = 0; i < v->u.list.n; i++)
            put_value(p, v->u.list.items[i]);
        return;
    case RT_TENSOR: {
        const WireTensor *w = &p->tensors[p->next_tensor++];
        const Tensor *t = w->t;
        put(p, w->span);
        put(p, t->dtype);
        put(p, t->ndim);
        put(p, t->wrapped_number);
        put(p, w->span >= 0 ? t->offset - w->lo : 0);
        for (int d = 0; d < t->ndim; d++)
            put(p, t->sizes[d]);
        for (int d = 0; d < t->ndim; d++)
            put(p, t->strides[d]);
        return;
    }
    }
}

bool rt_wire_pack(RtValue *const *items, int n, RtWireOut *out)
{
    *out = (RtWireOut){0};
    Packer p = {0};
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        ok = collect(&p, items[i]);
    if (ok) {
        assign_spans(&p, out);
        put(&p, WIRE_MAGIC);
        put(&p, out->nspans);
        for (int s = 0; s < out->nspans; s++) {
            put(&p, (int64_t)out->span_bytes[s]);
            put(&p, out->span_dtype[s]);
        }
        put(&p, n);
        for (int i = 0; i < n; i++)
            put_value(&p, items[i]);
    }
    out->meta = p.words;
    out->meta_words = p.len;
    for (int i = 0; i < p.ntensors; i++)
        if (p.tensors[i].owned) {
            out->owned = xrealloc(out->owned, (size_t)(out->nowned + 1) * sizeof *out->owned);
            out->owned[out->nowned++] = p.tensors[i].t;
        }
    free(p.tensors);
    if (!ok)
        rt_wire_out_free(out);
    return ok;
}

void rt_wire_out_free(RtWireOut *out)
{
    free(out->meta);
    free(out->span_data);
    free(out->span_bytes);
    free(out->span_dtype);
    for (int i = 0; i < out->nowned; i++)
        tensor_release(out->owned[i]);
    free(out->owned);
    *out = (RtWireOut){0};
}

/* ---------------------------------------------------------------- reading */

typedef struct Reader {
    const int64_t *words;
    size_t len, at;
    RtWireIn *in;
    bool bad;
} Reader;

static int64_t get(Reader *r)
{
    if (r->at >= r->len) {
        r->bad = true;
        return 0;
    }
    return r->words[r->at++];
}

bool rt_wire_begin(const void *meta, size_t bytes, RtWireIn *in)
{
    *in = (RtWireIn){0};
    if (bytes % sizeof(int64_t) != 0)
        return false;
    Reader r = {.words = meta, .len = bytes / sizeof(int64_t)};
    if (get(&r) != WIRE_MAGIC)
        return false;
    int64_t nspans = get(&r);
    if (r.bad || nspans < 0 || nspans > (int64_t)r.len)
        return false;
    in->nspans = (int)nspans;
    in->spans = xcalloc((size_t)nspans + 1, sizeof *in->spans);
    in->span_data = xcalloc((size_t)nspans + 1, sizeof *in->span_data);
    in->span_bytes = xcalloc((size_t)nspans + 1, sizeof *in->span_bytes);
    for (int s = 0; s < in->nspans; s++) {
        int64_t nbytes = get(&r), dtype = get(&r);
        if (r.bad || nbytes <= 0 || dtype < 0 || dtype >= DT_COUNT ||
            nbytes % (int64_t)dtype_size((TensorDType)dtype) != 0) {
            rt_wire_in_free(in);
            return false;
        }
        int64_t count = nbytes / (int64_t)dtype_size((TensorDType)dtype);
        if (!(in->spans[s] = tensor_empty_unfilled((TensorDType)dtype, 1, &count))) {
            rt_wire_in_free(in);
            return false;
        }
        in->span_data[s] = tensor_data(in->spans[s]);
        in->span_bytes[s] = (size_t)nbytes;
    }
    in->meta = meta;
    in->meta_words = r.len;
    in->at = r.at;
    return true;
}

static RtValue *get_value(Reader *r, int depth);

static RtValue *get_tensor(Reader *r)
{
    int64_t span = get(r), dtype = get(r), ndim = get(r), wrapped = get(r), offset = get(r);
    if (r->bad || span < -1 || span >= r->in->nspans || dtype < 0 || dtype >= DT_COUNT || ndim < 0 ||
        ndim > TENSOR_MAX_DIMS) {
        r->bad = true;
        return NULL;
    }
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++)
        if ((sizes[d] = get(r)) < 0)
            r->bad = true;
    for (int d = 0; d < ndim; d++)
        strides[d] = get(r);
    if (r->bad)
        return NULL;
    Tensor *t;
    if (span < 0) {
        t = tensor_empty((TensorDType)dtype, (int)ndim, sizes);
        if (t && tensor_numel(t) != 0) {
            tensor_release(t);
            r->bad = true;
            return NULL;
        }
    } else {
        Tensor *base = r->in->spans[span];
        if (base->dtype != (TensorDType)dtype) {
            r->bad = true;
            return NULL;
        }
        t = tensor_make_view(base, (int)ndim, sizes, strides, offset);
        int64_t lo, hi;
        element_range(t, &lo, &hi);
        if (lo < 0 || hi > base->sizes[0]) {
            tensor_release(t);
            r->bad = true;
            return NULL;
        }
    }
    if (!t) {
        r->bad = true;
        return NULL;
    }
    t->wrapped_number = wrapped != 0;
    return rt_tensor_take(t);
}

static RtValue *get_value(Reader *r, int depth)
{
    int64_t kind = get(r);
    if (r->bad || depth > 64)
        return NULL;
    switch ((RtKind)kind) {
    case RT_NONE: return rt_none();
    case RT_UNINIT: return rt_uninit();
    case RT_INT: return rt_int(get(r));
    case RT_BOOL: return rt_bool(get(r) != 0);
    case RT_FLOAT: {
        int64_t bits = get(r);
        double f;
        memcpy(&f, &bits, sizeof f);
        return rt_float(f);
    }
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT: {
        int64_t n = get(r);
        if (r->bad || n < 0 || (n + 7) / 8 > (int64_t)(r->len - r->at)) {
            r->bad = true;
            return NULL;
        }
        char *s = xcalloc((size_t)n + 1, 1);
        memcpy(s, r->words + r->at, (size_t)n);
        r->at += (size_t)(n + 7) / 8;
        RtValue *v = kind == RT_STR ? rt_str(s) : kind == RT_DEVICE ? rt_device(s) : rt_object(s);
        free(s);
        return v;
    }
    case RT_LIST:
    case RT_TUPLE:
    case RT_DICT: {
        int64_t n = get(r);
        if (r->bad || n < 0 || n > (int64_t)(r->len - r->at)) {
            r->bad = true;
            return NULL;
        }
        RtValue *list = kind == RT_DICT ? rt_dict() : rt_list((RtKind)kind, 0, NULL);
        rt_list_reserve(list, n);
        for (int64_t i = 0; i < n && !r->bad; i++) {
            RtValue *item = get_value(r, depth + 1);
            if (!item)
                break;
            rt_list_append(list, item);
            rt_release(item);
        }
        if (r->bad) {
            rt_release(list);
            return NULL;
        }
        return list;
    }
    case RT_TENSOR: return get_tensor(r);
    }
    r->bad = true;
    return NULL;
}

RtValue **rt_wire_finish(RtWireIn *in, int *n)
{
    *n = 0;
    Reader r = {.words = in->meta, .len = in->meta_words, .at = in->at, .in = in};
    int64_t count = get(&r);
    RtValue **items = NULL;
    if (!r.bad && count >= 0 && count <= (int64_t)(r.len - r.at)) {
        items = xcalloc((size_t)count + 1, sizeof *items);
        for (int64_t i = 0; i < count && !r.bad; i++)
            if (!(items[i] = get_value(&r, 0)))
                r.bad = true;
        if (r.bad || r.at != r.len) {
            for (int64_t i = 0; i < count; i++)
                rt_release(items[i]);
            free(items);
            items = NULL;
        } else {
            *n = (int)count;
        }
    }
    rt_wire_in_free(in);
    return items;
}

void rt_wire_in_free(RtWireIn *in)
{
    for (int s = 0; s < in->nspans; s++)
        tensor_release(in->spans[s]);
    free(in->spans);
    free(in->span_data);
    free(in->span_bytes);
    *in = (RtWireIn){0};
}
