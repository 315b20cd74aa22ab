/* test_value_wire.c — the wire form of values (eval/value_wire.c), as the
 * MPI channels use it: pack on one side, copy the metadata and spans as
 * bytes (what MPI moves), read back on the other.
 *
 * Expected values by hand: the items are made here with known elements,
 * and the checks derive what must come back (same dtype, sizes, strides,
 * elements) and how many bytes must travel (spans), from the layout rules
 * in value_wire.c's comment:
 *   - 8 rows of a 8x4 float tensor, unstacked (each row a view), and the
 *     same 4x4 weight beside every row: 2 spans (the rows' 32 floats as one
 *     range, the weight's 16 floats once), 8*4*4 + 16*4 = 192 bytes;
 *   - a column of a 64x64 matrix: copied to a contiguous tensor (64 floats,
 *     256 bytes), so its stride comes back as 1;
 *   - a transposed 3x2 view keeps its strides (1, 3);
 *   - scalars, strings, None, nested lists and tuples, an empty tensor;
 *   - corrupt metadata (a wrong magic word, a truncated block, an offset
 *     past its span) is refused, never read out of bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

/* Packs items, moves the bytes as MPI would (fresh buffers), reads them
 * back. *span_bytes gets the bytes of data that travelled. */
static RtValue **roundtrip(RtValue **items, int n, int *nout, size_t *span_bytes)
{
    RtWireOut out;
    CHECK(rt_wire_pack(items, n, &out));
    size_t meta_bytes = out.meta_words * sizeof(int64_t);
    void *meta = malloc(meta_bytes);
    memcpy(meta, out.meta, meta_bytes);
    RtWireIn in;
    CHECK(rt_wire_begin(meta, meta_bytes, &in));
    CHECK(in.nspans == out.nspans);
    *span_bytes = 0;
    for (int s = 0; s < in.nspans && s < out.nspans; s++) {
        CHECK(in.span_bytes[s] == out.span_bytes[s]);
        memcpy(in.span_data[s], out.span_data[s], out.span_bytes[s]);
        *span_bytes += out.span_bytes[s];
    }
    rt_wire_out_free(&out);
    RtValue **back = rt_wire_finish(&in, nout);
    free(meta);
    return back;
}

static Tensor *counting(int ndim, const int64_t *sizes)
{
    Tensor *t = tensor_empty(DT_F32, ndim, sizes);
    float *d = tensor_data(t);
    for (int64_t i = 0; i < tensor_numel(t); i++)
        d[i] = (float)i;
    return t;
}

static float at2(const Tensor *t, int64_t i, int64_t j)
{
    const float *base = t->storage->data;
    return base[t->offset + i * t->strides[0] + j * t->strides[1]];
}

static void test_rows_and_shared_weight(void)
{
    int64_t xs[2] = {8, 4}, ws[2] = {4, 4};
    Tensor *x = counting(2, xs), *w = counting(2, ws);
    RtValue *items[16];
    for (int i = 0; i < 8; i++) {
        int64_t rs[1] = {4}, st[1] = {1};
        items[2 * i] = rt_tensor_take(tensor_make_view(x, 1, rs, st, (int64_t)i * 4));
        items[2 * i + 1] = rt_tensor(w);
    }
    int n = 0;
    size_t bytes = 0;
    RtValue **back = roundtrip(items, 16, &n, &bytes);
    CHECK(back && n == 16);
    CHECK_MSG(bytes == 192, "rows and a shared weight moved %zu bytes, want 192", bytes);
    for (int i = 0; back && i < 8; i++) {
        const Tensor *row = back[2 * i]->u.t, *wb = back[2 * i + 1]->u.t;
        CHECK(row->ndim == 1 && row->sizes[0] == 4 && row->strides[0] == 1);
        for (int j = 0; j < 4; j++)
            CHECK(((const float *)row->storage->data)[row->offset + j] == (float)(i * 4 + j));
        CHECK(wb->ndim == 2 && wb->sizes[0] == 4 && at2(wb, 3, 2) == 14.0f);
    }
    /* The rows share one received span, as they shared x. */
    CHECK(back && back[0]->u.t->storage == back[14]->u.t->storage);
    for (int i = 0; i < 16; i++) {
        rt_release(items[i]);
        if (back)
            rt_release(back[i]);
    }
    free(back);
    tensor_release(x);
    tensor_release(w);
}

static void test_column_and_transpose(void)
{
    int64_t ms[2] = {64, 64}, ts[2] = {2, 3};
    Tensor *m = counting(2, ms), *t = counting(2, ts);
    int64_t cs[1] = {64}, cst[1] = {64}, tsz[2] = {3, 2}, tst[2] = {1, 3};
    RtValue *items[2] = {rt_tensor_take(tensor_make_view(m, 1, cs, cst, 5)),
                         rt_tensor_take(tensor_make_view(t, 2, tsz, tst, 0))};
    int n = 0;
    size_t bytes = 0;
    RtValue **back = roundtrip(items, 2, &n, &bytes);
    CHECK(back && n == 2);
    CHECK_MSG(bytes == 64 * 4 + 6 * 4, "a column and a 3x2 view moved %zu bytes, want 280", bytes);
    if (back) {
        const Tensor *col = back[0]->u.t, *tr = back[1]->u.t;
        CHECK(col->strides[0] == 1);
        CHECK(((const float *)tensor_data(col))[10] == (float)(10 * 64 + 5));
        CHECK(tr->strides[0] == 1 && tr->strides[1] == 3);
        CHECK(at2(tr, 2, 1) == 5.0f);   /* t[1][2] */
        rt_release(back[0]);
        rt_release(back[1]);
    }
    free(back);
    rt_release(items[0]);
    rt_release(items[1]);
    tensor_release(m);
    tensor_release(t);
}

static void test_scalars_and_containers(void)
{
    int64_t es[2] = {0, 3};
    RtValue *pair[2] = {rt_int(-7), rt_str("hello, ranks")};
    RtValue *inner = rt_list(RT_TUPLE, 2, pair);
    RtValue *list_items[3] = {inner, rt_none(), rt_tensor_take(tensor_empty(DT_I64, 2, es))};
    RtValue *items[4] = {rt_float(-0.25), rt_bool(true), rt_list(RT_LIST, 3, list_items),
                         rt_tensor_take(tensor_scalar_int(DT_I64, 1234567890123))};
    int n = 0;
    size_t bytes = 0;
    RtValue **back = roundtrip(items, 4, &n, &bytes);
    CHECK(back && n == 4);
    if (back) {
        CHECK(back[0]->kind == RT_FLOAT && back[0]->u.f == -0.25);
        CHECK(back[1]->kind == RT_BOOL && back[1]->u.i == 1);
        const RtValue *l = back[2];
        CHECK(l->kind == RT_LIST && l->u.list.n == 3);
        if (l->kind == RT_LIST && l->u.list.n == 3) {
            const RtValue *tup = l->u.list.items[0];
            CHECK(tup->kind == RT_TUPLE && tup->u.list.n == 2 && tup->u.list.items[0]->u.i == -7 &&
                  strcmp(tup->u.list.items[1]->u.s, "hello, ranks") == 0);
            CHECK(l->u.list.items[1]->kind == RT_NONE);
            const Tensor *e = l->u.list.items[2]->u.t;
            CHECK(e->dtype == DT_I64 && e->ndim == 2 && e->sizes[0] == 0 && e->sizes[1] == 3);
        }
        CHECK(*(const int64_t *)tensor_data(back[3]->u.t) == 1234567890123);
        for (int i = 0; i < 4; i++)
            rt_release(back[i]);
    }
    free(back);
    for (int i = 0; i < 4; i++)
        rt_release(items[i]);
    for (int i = 0; i < 3; i++)
        rt_release(list_items[i]);
    rt_release(pair[0]);
    rt_release(pair[1]);
}

/* Metadata that does not hold together is refused, never read past. */
static void test_corrupt(void)
{
    int64_t xs[1] = {4};
    RtValue *item = rt_tensor_take(counting(1, xs));
    RtWireOut out;
    CHECK(rt_wire_pack(&item, 1, &out));
    size_t bytes = out.meta_words * sizeof(int64_t);
    int64_t *meta = malloc(bytes);
    RtWireIn in;
    int n = 0;

    memcpy(meta, out.meta, bytes);
    meta[0] ^= 1;                                   /* the magic word */
    CHECK(!rt_wire_begin(meta, bytes, &in));
    memcpy(meta, out.meta, bytes);
    CHECK(!rt_wire_begin(meta, 3, &in));            /* not whole words */
    memcpy(meta, out.meta, bytes);
    CHECK(rt_wire_begin(meta, bytes - 8, &in));     /* the last stride cut off */
    CHECK(rt_wire_finish(&in, &n) == NULL);
    memcpy(meta, out.meta, bytes);
    meta[out.meta_words - 3] = 1;                   /* offset 1: reads past the 4-float span */
    CHECK(rt_wire_begin(meta, bytes, &in));
    CHECK(rt_wire_finish(&in, &n) == NULL);
    free(meta);
    rt_wire_out_free(&out);
    rt_release(item);
}

int main(void)
{
    test_rows_and_shared_weight();
    test_column_and_transpose();
    test_scalars_and_containers();
    test_corrupt();
    return test_report("value_wire");
}
