/* test_core.c — storage, accessors, copies, casts, errors and in-place
 * semantics of the tensor library, with expected values derived by hand in
 * the comments (PyTorch's behaviour, as documented or observed in 1.13).
 */
#include <limits.h>

#include "tensor/torch_cases.h"

static bool error_is(const char *want)
{
    bool same = strcmp(tensor_last_error(), want) == 0;
    if (!same)
        fprintf(stderr, "  error was: %s\n  expected:  %s\n", tensor_last_error(), want);
    return same;
}

static Tensor *vec_f32(int n, const double *v)
{
    int64_t size = n;
    Tensor *t = tensor_empty(DT_F32, 1, &size);
    for (int k = 0; k < n; k++)
        tensor_set_flat(t, k, v[k]);
    return t;
}

static void test_storage(void)
{
    int64_t s[2] = {2, 3};
    /* Poison (sanitizer builds): NaN, 0x5A bytes, true. */
    Tensor *f = tensor_empty(DT_F32, 2, s);
    Tensor *i = tensor_empty(DT_I32, 2, s);
    Tensor *b = tensor_empty(DT_BOOL, 2, s);
    if (tensor_poison_enabled()) {
        CHECK_MSG(isnan(tensor_get_flat(f, 4)), "float poison %g", tensor_get_flat(f, 4));
        CHECK_MSG(tensor_get_flat_int(i, 5) == 0x5A5A5A5A, "int poison %lld",
                  (long long)tensor_get_flat_int(i, 5));
        CHECK_MSG(tensor_get_flat_int(b, 0) == 1, "bool poison");
    }
    CHECK_MSG(tensor_is_contiguous(f) && tensor_numel(f) == 6, "contiguous (2,3)");
    CHECK_MSG(f->strides[0] == 3 && f->strides[1] == 1, "strides (3, 1)");
    tensor_release(f);
    tensor_release(i);
    tensor_release(b);

    Tensor *z = tensor_zeros(DT_F64, 2, s);
    CHECK_MSG(tensor_get_flat(z, 5) == 0.0, "zeros");
    tensor_release(z);
    Tensor *full = tensor_full(DT_I64, 2, s, 2.9);     /* truncates to 2 */
    CHECK_MSG(tensor_get_flat_int(full, 3) == 2, "full(2.9) as int64");
    tensor_release(full);

    Tensor *w = tensor_wrapped_float(2.5);
    CHECK_MSG(w->wrapped_number && w->ndim == 0 && w->dtype == DT_F64, "wrapped float");
    CHECK_MSG(tensor_item(w) == 2.5, "item");
    tensor_release(w);
    w = tensor_scalar_int(DT_I64, INT64_MAX - 1);
    CHECK_MSG(tensor_item_int(w) == INT64_MAX - 1, "int64 scalar exact");
    tensor_release(w);

    /* Bad sizes. */
    CHECK_MSG(tensor_empty(DT_F32, 2, (int64_t[]){2, -1}) == NULL, "negative size accepted");
    CHECK_MSG(error_is("Trying to create tensor with negative dimension -1: [2, -1]"), "negative size");
    CHECK_MSG(tensor_empty(DT_F32, 3, (int64_t[]){1LL << 40, 1LL << 40, 1LL << 40}) == NULL,
              "overflowing size accepted");
    CHECK_MSG(tensor_empty(DT_F64, 2, (int64_t[]){1LL << 31, 1LL << 31}) == NULL,
              "byte-size overflow accepted");      /* 2^62 elements * 8 bytes */
    int64_t many[TENSOR_MAX_DIMS + 1];
    for (int d = 0; d <= TENSOR_MAX_DIMS; d++)
        many[d] = 1;
    CHECK_MSG(tensor_empty(DT_F32, TENSOR_MAX_DIMS + 1, many) == NULL, "17 dims accepted");
    Tensor *sixteen = tensor_zeros(DT_F32, TENSOR_MAX_DIMS, many);
    CHECK_MSG(sixteen != NULL, "16 dims refused");
    CHECK_MSG(tensor_unsqueeze(sixteen, 0) == NULL, "unsqueeze to 17 dims accepted");
    tensor_release(sixteen);

    /* A zero size anywhere makes an empty tensor, even after a huge one. */
    Tensor *empty = tensor_empty(DT_F32, 3, (int64_t[]){1LL << 62, 0, 1LL << 62});
    CHECK_MSG(empty && tensor_numel(empty) == 0, "empty with huge sizes");
    tensor_release(empty);

    /* Accessors refuse out-of-range flat indices and non-scalar items. */
    Tensor *t = tensor_zeros(DT_F32, 1, (int64_t[]){3});
    tensor_clear_error();
    (void)tensor_get_flat(t, 3);
    CHECK_MSG(tensor_last_error()[0] != '\0', "get_flat(3) of 3 elements");
    (void)tensor_item(t);
    CHECK_MSG(error_is("a Tensor with 3 elements cannot be converted to Scalar"), "item of 3");
    tensor_release(t);
}

static void test_dims_and_broadcast(void)
{
    CHECK_MSG(tensor_wrap_dim(-1, 3) == 2 && tensor_wrap_dim(0, 0) == 0 && tensor_wrap_dim(-1, 0) == 0,
              "wrap_dim");
    CHECK_MSG(tensor_wrap_dim(2, 2) == -1, "dim 2 of 2 accepted");
    CHECK_MSG(error_is("Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
              "wrap_dim message");
    int64_t out[TENSOR_MAX_DIMS];
    /* (2,1,4) with (3,1): align right -> (2,3,4). */
    int n = tensor_broadcast_shape(3, (int64_t[]){2, 1, 4}, 2, (int64_t[]){3, 1}, out);
    CHECK_MSG(n == 3 && out[0] == 2 && out[1] == 3 && out[2] == 4, "broadcast (2,1,4),(3,1)");
    /* (2,3) with (2,4): dim 1 is 3 vs 4. */
    CHECK_MSG(tensor_broadcast_shape(2, (int64_t[]){2, 3}, 2, (int64_t[]){2, 4}, out) == -1, "3 vs 4");
    CHECK_MSG(error_is("The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 1"), "broadcast message");
    Tensor *a = tensor_zeros(DT_F32, 2, (int64_t[]){2, 3});
    Tensor *b = tensor_zeros(DT_F32, 1, (int64_t[]){4});
    CHECK_MSG(tensor_binary(BIN_ADD, a, b) == NULL, "add (2,3)+(4) accepted");
    CHECK_MSG(error_is("The size of tensor a (3) must match the size of tensor b (4) at "
                   "non-singleton dimension 1"), "add message");
    tensor_release(a);
    tensor_release(b);
}

static void test_casts(void)
{
    /* float -> int truncates toward zero; NaN and out-of-range give the x86
     * "integer indefinite" (INT32_MIN / INT64_MIN), narrowed by wrapping. */
    Tensor *f = vec_f32(5, (double[]){-1.7, 2.9, 300.0, NAN, 3e9});
    Tensor *i32 = tensor_to_dtype(f, DT_I32);
    int64_t want32[5] = {-1, 2, 300, INT32_MIN, INT32_MIN};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(tensor_get_flat_int(i32, k) == want32[k], "f32->i32 [%d] = %lld", k,
                  (long long)tensor_get_flat_int(i32, k));
    Tensor *u8 = tensor_to_dtype(f, DT_U8);
    /* -1 -> 255, 2, 300 -> 44 (300 - 256), NaN -> INT32_MIN -> 0, 3e9 -> 0. */
    int64_t want8[5] = {255, 2, 44, 0, 0};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(tensor_get_flat_int(u8, k) == want8[k], "f32->u8 [%d] = %lld", k,
                  (long long)tensor_get_flat_int(u8, k));
    Tensor *b = tensor_to_dtype(f, DT_BOOL);     /* != 0; NaN is true */
    CHECK_MSG(tensor_get_flat_int(b, 0) == 1 && tensor_get_flat_int(b, 3) == 1, "f32->bool");
    tensor_release(f);
    tensor_release(i32);
    tensor_release(u8);
    tensor_release(b);

    /* int64 2^53 + 1 rounds to 2^53 in float64 and to 2^53 in float32. */
    Tensor *big = tensor_scalar_int(DT_I64, (1LL << 53) + 1);
    Tensor *big32 = tensor_to_dtype(big, DT_F32);
    CHECK_MSG(tensor_item(big32) == 9007199254740992.0, "i64->f32 %.17g", tensor_item(big32));
    tensor_release(big);
    tensor_release(big32);

    /* The contiguous fast casts (tensor/copy.c) give the general walk's
     * results, against PyTorch 1.13:
     * torch.tensor([1.5, -2.7, -0.0, 3e9, -5e18, 1e30, inf, nan]).long()
     * = [1, -2, 0, 3000000000, -4999999990253223936, then INT64_MIN x3]
     * (-5e18 is -4999999990253223936 as a float32), and int64 to float32
     * rounds once: 2^60 + 2^36 + 1 is above the midpoint of 2^60 and
     * 2^60 + 2^37, so it gives 2^60 + 2^37 (through a double it would
     * round to 2^60 + 2^36 first, a tie, then to 2^60). */
    Tensor *edges = vec_f32(8, (double[]){1.5, -2.7, -0.0, 3e9, -5e18, 1e30, INFINITY, NAN});
    Tensor *i64 = tensor_to_dtype(edges, DT_I64);
    int64_t want64[8] = {1, -2, 0, 3000000000LL, -4999999990253223936LL, INT64_MIN, INT64_MIN, INT64_MIN};
    for (int k = 0; k < 8; k++)
        CHECK_MSG(tensor_get_flat_int(i64, k) == want64[k], "f32->i64 [%d] = %lld", k,
                  (long long)tensor_get_flat_int(i64, k));
    int64_t two = 2;
    Tensor *ints = tensor_empty(DT_I64, 1, &two);
    tensor_set_flat_int(ints, 0, (1LL << 60) + (1LL << 36) + 1);
    tensor_set_flat_int(ints, 1, -3);
    Tensor *floats = tensor_to_dtype(ints, DT_F32);
    CHECK_MSG(tensor_get_flat(floats, 0) == 1152921642045800448.0 && tensor_get_flat(floats, 1) == -3.0,
              "i64->f32 one rounding: %.17g", tensor_get_flat(floats, 0));
    tensor_release(edges);
    tensor_release(i64);
    tensor_release(ints);
    tensor_release(floats);

    /* fill_ checks the value fits, as Scalar::to<T> does. */
    Tensor *u = tensor_zeros(DT_U8, 1, (int64_t[]){2});
    CHECK_MSG(!tensor_fill_(u, 300), "fill_(300) of uint8 accepted");
    CHECK_MSG(error_is("value cannot be converted to type uint8_t without overflow"), "fill message");
    CHECK_MSG(tensor_fill_int_(u, -3) && tensor_get_flat_int(u, 1) == 253, "fill_(-3) of uint8 wraps");
    tensor_release(u);
}

static void test_copy(void)
{
    /* copy_ broadcasts a (3) source over (2,3) and casts float -> int. */
    Tensor *dst = tensor_zeros(DT_I64, 2, (int64_t[]){2, 3});
    Tensor *src = vec_f32(3, (double[]){1.5, -2.5, 3.0});
    CHECK_MSG(tensor_copy_(dst, src), "copy_: %s", tensor_last_error());
    int64_t want[6] = {1, -2, 3, 1, -2, 3};
    for (int k = 0; k < 6; k++)
        CHECK_MSG(tensor_get_flat_int(dst, k) == want[k], "copy_ [%d]", k);
    Tensor *wide = tensor_zeros(DT_F32, 2, (int64_t[]){4, 3});
    CHECK_MSG(!tensor_copy_(src, wide), "copy_ (4,3) into (3) accepted");
    CHECK_MSG(error_is("output with shape [3] doesn't match the broadcast shape [4, 3]"), "message");
    tensor_release(wide);
    tensor_release(src);
    tensor_release(dst);

    /* Overlapping copy: a[1:] = a[:-1] reads before writing:
     * a = 0 1 2 3 4  ->  0 0 1 2 3 (not 0 0 0 0 0). */
    Tensor *a = tensor_arange(0, 5, 1, DT_F32);
    Tensor *tail = tensor_slice(a, 0, 1, INT64_MAX, 1);
    Tensor *head = tensor_slice(a, 0, 0, -1, 1);
    CHECK_MSG(tensor_copy_(tail, head), "overlapping copy_: %s", tensor_last_error());
    double want_a[5] = {0, 0, 1, 2, 3};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(tensor_get_flat(a, k) == want_a[k], "overlap copy [%d] = %g", k, tensor_get_flat(a, k));

    /* An expanded destination refers to one element twice: refused. */
    Tensor *one = tensor_zeros(DT_F32, 1, (int64_t[]){3});
    Tensor *expanded = tensor_expand(one, 2, (int64_t[]){2, 3});
    Tensor *ones = tensor_full(DT_F32, 2, (int64_t[]){2, 3}, 1);
    CHECK_MSG(!tensor_copy_(expanded, ones), "copy_ into expanded accepted");
    CHECK_MSG(strstr(tensor_last_error(), "more than one element of the written-to tensor") != NULL,
              "message %s", tensor_last_error());
    CHECK_MSG(tensor_fill_(expanded, 4), "fill_ of expanded refused");     /* PyTorch allows it */
    CHECK_MSG(tensor_get_flat(one, 2) == 4, "fill_ through expand");
    tensor_release(ones);
    tensor_release(expanded);
    tensor_release(one);

    /* contiguous() of a contiguous tensor is the tensor; clone never is. */
    Tensor *c = tensor_contiguous(a);
    CHECK_MSG(c == a, "contiguous of contiguous copied");
    tensor_release(c);
    Tensor *m = tensor_zeros(DT_F32, 2, (int64_t[]){2, 3});
    Tensor *mt = tensor_t(m);                       /* (3,2) strides (1,3) */
    c = tensor_contiguous(mt);
    CHECK_MSG(c != mt && c->storage != m->storage && c->strides[0] == 2 && c->strides[1] == 1,
              "contiguous of transposed");
    tensor_release(c);
    /* clone (memory_format=preserve) keeps the dense transposed strides. */
    c = tensor_clone_preserve(mt);
    CHECK_MSG(c->storage != m->storage && c->strides[0] == 1 && c->strides[1] == 3,
              "clone_preserve strides (%lld, %lld)", (long long)c->strides[0], (long long)c->strides[1]);
    tensor_release(c);
    c = tensor_clone(mt);
    CHECK_MSG(tensor_is_contiguous(c), "clone not contiguous");
    tensor_release(c);
    /* x.t() + 1 is laid out like x.t(): strides (1, 3), as TensorIterator does. */
    Tensor *inc = tensor_wrapped_int(1);
    c = tensor_add(mt, inc, 1);
    CHECK_MSG(c && c->strides[0] == 1 && c->strides[1] == 3, "layout of x.t() + 1");
    tensor_release(c);
    tensor_release(inc);
    tensor_release(mt);
    tensor_release(m);

    tensor_release(tail);
    tensor_release(head);
    tensor_release(a);
}

static void test_inplace(void)
{
    /* a[1:] += a[:-1] with a = 0 1 2 3 4 reads the old values:
     * 0, 1+0, 2+1, 3+2, 4+3 = 0 1 3 5 7. */
    Tensor *a = tensor_arange(0, 5, 1, DT_I64);
    Tensor *tail = tensor_slice(a, 0, 1, INT64_MAX, 1);
    Tensor *head = tensor_slice(a, 0, 0, 4, 1);
    CHECK_MSG(tensor_add_(tail, head, 1), "add_: %s", tensor_last_error());
    int64_t want[5] = {0, 1, 3, 5, 7};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(tensor_get_flat_int(a, k) == want[k], "overlap add_ [%d] = %lld", k,
                  (long long)tensor_get_flat_int(a, k));
    tensor_release(tail);
    tensor_release(head);

    /* a += a doubles; m += m.t() with m = [[0,1],[2,3]] is [[0,3],[3,6]]. */
    CHECK_MSG(tensor_add_(a, a, 1) && tensor_get_flat_int(a, 4) == 14, "a += a");
    Tensor *m = tensor_arange(0, 4, 1, DT_F32);
    Tensor *m2 = tensor_view(m, 2, (int64_t[]){2, 2});
    Tensor *m2t = tensor_t(m2);
    CHECK_MSG(tensor_add_(m2, m2t, 1), "m += m.t(): %s", tensor_last_error());
    double want_m[4] = {0, 3, 3, 6};
    for (int k = 0; k < 4; k++)
        CHECK_MSG(tensor_get_flat(m2, k) == want_m[k], "m += m.t() [%d] = %g", k, tensor_get_flat(m2, k));

    /* In-place results must fit the destination's dtype and shape. */
    Tensor *half = tensor_wrapped_float(0.5);
    CHECK_MSG(!tensor_add_(a, half, 1), "int64 += 0.5 accepted");
    CHECK_MSG(error_is("result type Float can't be cast to the desired output type Long"), "cast");
    Tensor *row = tensor_zeros(DT_F32, 1, (int64_t[]){2});
    CHECK_MSG(!tensor_add_(row, m2, 1), "(2) += (2,2) accepted");
    CHECK_MSG(error_is("output with shape [2] doesn't match the broadcast shape [2, 2]"), "shape");
    CHECK_MSG(!tensor_unary_(UN_EXP, a, 0, 0), "int64.exp_() accepted");

    /* Integer division by zero is an error (ZeroDivisionError in PyTorch). */
    Tensor *zero = tensor_wrapped_int(0);
    CHECK_MSG(tensor_binary(BIN_DIV_FLOOR, a, zero) == NULL && error_is("ZeroDivisionError"), "// 0");
    CHECK_MSG(tensor_binary(BIN_REMAINDER, a, zero) == NULL && error_is("ZeroDivisionError"), "%% 0");
    /* Float division by zero is IEEE: 1/0 = inf. */
    Tensor *ones = tensor_full(DT_F32, 1, (int64_t[]){2}, 1);
    Tensor *q = tensor_binary(BIN_DIV, ones, zero);
    CHECK_MSG(q && isinf(tensor_get_flat(q, 0)) && q->dtype == DT_F32, "1.0 / 0");
    tensor_release(q);
    /* int64 INT64_MIN // -1 wraps (PyTorch itself traps here). */
    Tensor *minus_one = tensor_wrapped_int(-1);
    Tensor *lowest = tensor_full(DT_I64, 1, (int64_t[]){1}, 0);
    tensor_set_flat_int(lowest, 0, INT64_MIN);
    q = tensor_binary(BIN_DIV_FLOOR, lowest, minus_one);
    CHECK_MSG(q && tensor_get_flat_int(q, 0) == INT64_MIN, "INT64_MIN // -1");
    tensor_release(q);
    /* int32 overflow wraps: INT32_MAX + 1 = INT32_MIN. */
    Tensor *i32 = tensor_scalar_int(DT_I32, INT32_MAX);
    Tensor *one = tensor_wrapped_int(1);
    q = tensor_add(i32, one, 1);
    CHECK_MSG(q && q->dtype == DT_I32 && tensor_item_int(q) == INT32_MIN, "int32 wrap");
    tensor_release(q);
    /* int64 stays exact beyond 2^53: (2^62 + 1) + 1. */
    Tensor *huge = tensor_scalar_int(DT_I64, (1LL << 62) + 1);
    q = tensor_add(huge, one, 1);
    CHECK_MSG(q && tensor_item_int(q) == (1LL << 62) + 2, "int64 exact");
    tensor_release(q);

    /* A 0-d operand that is a view at a nonzero offset: idx[4] of 0..4 is 4;
     * {1,2,3} + 4 = {5,6,7} (float32: dims beat a 0-d int64). */
    Tensor *idx = tensor_arange(0, 5, 1, DT_I64);
    Tensor *four = tensor_select(idx, 0, 4);
    Tensor *v = vec_f32(3, (double[]){1, 2, 3});
    q = tensor_add(v, four, 1);
    CHECK_MSG(q && q->dtype == DT_F32 && tensor_get_flat(q, 0) == 5 && tensor_get_flat(q, 2) == 7,
              "add of an offset 0-d view");
    tensor_release(q);
    CHECK_MSG(tensor_binary_(BIN_MUL, v, four) && tensor_get_flat(v, 1) == 8, "mul_ by offset 0-d");
    tensor_release(v);
    tensor_release(four);
    tensor_release(idx);

    tensor_release(huge);
    tensor_release(one);
    tensor_release(i32);
    tensor_release(lowest);
    tensor_release(minus_one);
    tensor_release(ones);
    tensor_release(zero);
    tensor_release(row);
    tensor_release(half);
    tensor_release(m2t);
    tensor_release(m2);
    tensor_release(m);
    tensor_release(a);
}

static void test_promotion_examples(void)
{
    /* The examples of the issue, by PyTorch's rules: dim tensors > 0-d
     * tensors > numbers, lower groups only raise the category. */
    Tensor *i32 = tensor_zeros(DT_I32, 1, (int64_t[]){2});
    Tensor *i64_0d = tensor_scalar_int(DT_I64, 1);
    Tensor *f32 = tensor_zeros(DT_F32, 1, (int64_t[]){2});
    Tensor *f64_0d = tensor_scalar(DT_F64, 1);
    Tensor *b = tensor_zeros(DT_BOOL, 1, (int64_t[]){2});
    Tensor *n_int = tensor_wrapped_int(2), *n_float = tensor_wrapped_float(2.5);
    struct { const Tensor *a, *b; TensorDType want; const char *what; } cases[] = {
        {i32, n_float, DT_F32, "int32 + 2.5 -> float32 (default dtype)"},
        {f32, n_float, DT_F32, "float32 + 2.5 -> float32"},
        {i32, n_int, DT_I32, "int32 + 2 -> int32"},
        {b, n_int, DT_I64, "bool + 2 -> int64"},
        {i64_0d, i32, DT_I32, "0-d int64 + int32 -> int32"},
        {f64_0d, f32, DT_F32, "0-d float64 + float32 -> float32"},
        {i32, f64_0d, DT_F64, "int32 + 0-d float64 -> float64"},
        {n_int, f64_0d, DT_F64, "2 + 0-d float64 -> float64"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const Tensor *pair[2] = {cases[k].a, cases[k].b};
        CHECK_MSG(tensor_result_type(pair, 2) == cases[k].want, "%s", cases[k].what);
    }
    /* Comparisons give bool; true division of ints gives float32. */
    Tensor *r = tensor_binary(BIN_LT, i32, n_float);
    CHECK_MSG(r && r->dtype == DT_BOOL, "int < 2.5 is bool");
    tensor_release(r);
    r = tensor_binary(BIN_DIV, i32, n_int);
    CHECK_MSG(r && r->dtype == DT_F32, "int / 2 is float32");
    tensor_release(r);
    r = tensor_binary(BIN_DIV_FLOOR, i32, n_int);
    CHECK_MSG(r && r->dtype == DT_I32, "int // 2 is int32");
    tensor_release(r);
    Tensor *neg = tensor_wrapped_int(-1);
    CHECK_MSG(tensor_binary(BIN_POW, i32, neg) == NULL &&
              error_is("Integers to negative integer powers are not allowed."), "int ** -1");
    tensor_release(neg);
    tensor_release(i32);
    tensor_release(i64_0d);
    tensor_release(f32);
    tensor_release(f64_0d);
    tensor_release(b);
    tensor_release(n_int);
    tensor_release(n_float);
}

static void test_float_math(void)
{
    /* round is half to even; sign(NaN) is 0; relu keeps -0.0 (std::max). */
    Tensor *x = vec_f32(6, (double[]){0.5, 1.5, 2.5, -0.5, -2.5, NAN});
    Tensor *r = tensor_unary(UN_ROUND, x, 0, 0);
    double want[6] = {0, 2, 2, -0.0, -2, NAN};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(tensor_get_flat(r, k) == want[k], "round [%d] = %g", k, tensor_get_flat(r, k));
    CHECK_MSG(isnan(tensor_get_flat(r, 5)), "round(NaN)");
    tensor_release(r);
    r = tensor_unary(UN_SIGN, x, 0, 0);
    CHECK_MSG(tensor_get_flat(r, 5) == 0 && tensor_get_flat(r, 3) == -1, "sign");
    tensor_release(r);
    /* Python remainder takes the divisor's sign: -5.5 % 2 = 0.5; 5 % -2 = -1;
     * floor division: -5.5 // 2 = -3. */
    Tensor *num = vec_f32(2, (double[]){-5.5, 5});
    Tensor *den = vec_f32(2, (double[]){2, -2});
    r = tensor_binary(BIN_REMAINDER, num, den);
    CHECK_MSG(tensor_get_flat(r, 0) == 0.5 && tensor_get_flat(r, 1) == -1, "remainder");
    tensor_release(r);
    r = tensor_binary(BIN_DIV_FLOOR, num, den);
    CHECK_MSG(tensor_get_flat(r, 0) == -3 && tensor_get_flat(r, 1) == -3, "floor div");
    tensor_release(r);
    r = tensor_binary(BIN_FMOD, num, den);          /* dividend's sign: -1.5, 1 */
    CHECK_MSG(tensor_get_flat(r, 0) == -1.5 && tensor_get_flat(r, 1) == 1, "fmod");
    tensor_release(r);
    tensor_release(num);
    tensor_release(den);
    tensor_release(x);
}

/* c10's checked_convert of a Python number into uint8, as torch 1.13 does:
 *   torch.zeros(3, dtype=torch.uint8).fill_(-1)    -> [255, 255, 255] (ints wrap)
 *   torch.zeros(3, dtype=torch.uint8).fill_(-1.0)  -> "value cannot be converted
 *                                                     to type uint8_t without overflow"
 *   F.pad(x_uint8, (1, 1), value=-1.0)             -> the same error */
static void test_number_into_uint8(void)
{
    int64_t n = 3;
    Tensor *x = tensor_zeros(DT_U8, 1, &n);
    CHECK(tensor_fill_int_(x, -1));
    for (int64_t i = 0; i < n; i++)
        CHECK(tensor_get_flat_int(x, i) == 255);
    CHECK(!tensor_fill_int_(x, -256));
    CHECK(!tensor_fill_(x, -1.0));
    CHECK_CONTAINS(tensor_last_error(), "value cannot be converted to type uint8_t without overflow");
    CHECK(tensor_fill_(x, 255.0));
    CHECK(tensor_get_flat_int(x, 0) == 255);
    int64_t pad[2] = {1, 1};
    Tensor *padded = tensor_constant_pad(x, 2, pad, -1.0);
    CHECK(padded == NULL);
    tensor_release(padded);
    padded = tensor_constant_pad(x, 2, pad, 7.0);
    CHECK(padded && padded->sizes[0] == 5 && tensor_get_flat_int(padded, 0) == 7);
    tensor_release(padded);
    tensor_release(x);
}

int main(void)
{
    test_storage();
    test_dims_and_broadcast();
    test_casts();
    test_copy();
    test_inplace();
    test_number_into_uint8();
    test_promotion_examples();
    test_float_math();
    return test_report("tensor_core_basics");
}
