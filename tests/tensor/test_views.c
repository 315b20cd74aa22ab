/* test_views.c — views share storage: geometry derived by hand, and writes
 * through one alias read back through another.
 *
 * Every expected size, stride and offset below is worked out in the comment
 * next to it from the definition of the op (strides count elements), not
 * taken from the library. The PyTorch-generated cases in test_torch_cases.c
 * cover the same ops on many more shapes and layouts.
 */
#include "tensor/torch_cases.h"

/* t holds 0, 1, 2, ... in row-major order (a fresh contiguous tensor). */
static Tensor *iota(TensorDType dt, int ndim, const int64_t *sizes)
{
    Tensor *t = tensor_empty(dt, ndim, sizes);
    for (int64_t k = 0; k < tensor_numel(t); k++)
        tensor_set_flat(t, k, (double)k);
    return t;
}

static void check_geometry(const char *what, const Tensor *t, int ndim, const int64_t *sizes,
                           const int64_t *strides, int64_t offset)
{
    CHECK_MSG(t != NULL, "%s: %s", what, tensor_last_error());
    if (!t)
        return;
    CHECK_MSG(t->ndim == ndim, "%s: ndim %d, want %d", what, t->ndim, ndim);
    for (int d = 0; d < ndim && d < t->ndim; d++) {
        CHECK_MSG(t->sizes[d] == sizes[d], "%s: size[%d] %lld, want %lld", what, d,
                  (long long)t->sizes[d], (long long)sizes[d]);
        CHECK_MSG(t->strides[d] == strides[d], "%s: stride[%d] %lld, want %lld", what, d,
                  (long long)t->strides[d], (long long)strides[d]);
    }
    CHECK_MSG(t->offset == offset, "%s: offset %lld, want %lld", what, (long long)t->offset,
              (long long)offset);
}

static void test_select_slice(void)
{
    int64_t s[3] = {2, 3, 4};       /* contiguous strides (12, 4, 1) */
    Tensor *x = iota(DT_F32, 3, s);

    /* x.select(1, -1): index -1 -> 2; drop dim 1; offset 2 * 4 = 8. */
    Tensor *v = tensor_select(x, 1, -1);
    check_geometry("select(1,-1)", v, 2, (int64_t[]){2, 4}, (int64_t[]){12, 1}, 8);
    /* v[1][3] is x[1][2][3] = 12 + 8 + 3 = 23. */
    CHECK_MSG(tensor_get_flat(v, 7) == 23, "select value %g", tensor_get_flat(v, 7));
    tensor_release(v);

    /* x[:, :, 1::2]: start 1 -> offset 1; size ceil(3/2) = 2; stride 1*2. */
    v = tensor_slice(x, 2, 1, INT64_MAX, 2);
    check_geometry("slice(2,1,None,2)", v, 3, (int64_t[]){2, 3, 2}, (int64_t[]){12, 4, 2}, 1);
    tensor_release(v);

    /* x[:, -2:10]: start -2 -> 1, end 10 clamps to 3; size 2; offset 1*4. */
    v = tensor_slice(x, 1, -2, 10, 1);
    check_geometry("slice(1,-2,10)", v, 3, (int64_t[]){2, 2, 4}, (int64_t[]){12, 4, 1}, 4);
    tensor_release(v);

    /* x[3:1]: start 3 clamps to 2, end 1 < start -> end 2; empty, offset 2*12. */
    v = tensor_slice(x, 0, 3, 1, 1);
    check_geometry("slice(0,3,1)", v, 3, (int64_t[]){0, 3, 4}, (int64_t[]){12, 4, 1}, 24);
    tensor_release(v);

    /* narrow(2, -3, 2): start -3 -> 1; same as x[:, :, 1:3]. */
    v = tensor_narrow(x, 2, -3, 2);
    check_geometry("narrow(2,-3,2)", v, 3, (int64_t[]){2, 3, 2}, (int64_t[]){12, 4, 1}, 1);
    tensor_release(v);

    CHECK_MSG(tensor_select(x, 1, 3) == NULL, "select out of range accepted");
    CHECK_MSG(strcmp(tensor_last_error(),
                 "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1") == 0,
              "message: %s", tensor_last_error());
    CHECK_MSG(tensor_slice(x, 0, 0, 1, 0) == NULL, "step 0 accepted");
    CHECK_MSG(tensor_slice(x, 3, 0, 1, 1) == NULL, "dim 3 accepted");
    CHECK_MSG(strcmp(tensor_last_error(),
                 "Dimension out of range (expected to be in range of [-3, 2], but got 3)") == 0,
              "message: %s", tensor_last_error());
    tensor_release(x);
}

static void test_aliasing(void)
{
    int64_t s[2] = {3, 4};          /* strides (4, 1) */
    Tensor *x = tensor_zeros(DT_F32, 2, s);

    /* Write through a transposed view, read through a row view. */
    Tensor *xt = tensor_t(x);                       /* sizes (4,3), strides (1,4) */
    Tensor *row = tensor_select(x, 0, 2);           /* x[2]: offset 8, stride 1 */
    /* xt[1][2] is x[2][1]: flat index in xt is 1*3 + 2 = 5. */
    tensor_set_flat(xt, 5, 7.5);
    CHECK_MSG(tensor_get_flat(row, 1) == 7.5, "x[2][1] through the row view: %g",
              tensor_get_flat(row, 1));

    /* A fill through an expanded, then permuted, then sliced chain. */
    Tensor *col = tensor_slice(x, 1, 3, 4, 1);      /* x[:, 3:4]: offset 3, sizes (3,1) */
    CHECK_MSG(tensor_fill_(col, -1.0), "fill: %s", tensor_last_error());
    for (int64_t r = 0; r < 3; r++)
        CHECK_MSG(tensor_get_flat(x, r * 4 + 3) == -1.0, "x[%lld][3] = %g", (long long)r,
                  tensor_get_flat(x, r * 4 + 3));

    /* copy_ into a diagonal view: x[i][i] for i < 3 at offsets 0, 5, 10. */
    Tensor *diag = tensor_diagonal(x, 0, 0, 1);
    check_geometry("diagonal", diag, 1, (int64_t[]){3}, (int64_t[]){5}, 0);
    Tensor *vals = tensor_arange(10, 13, 1, DT_F32);
    CHECK_MSG(tensor_copy_(diag, vals), "copy_: %s", tensor_last_error());
    CHECK_MSG(tensor_get_flat(x, 5) == 11 && tensor_get_flat(x, 10) == 12, "diag write");

    /* In-place arithmetic on a view changes the base. */
    Tensor *one = tensor_wrapped_int(1);
    CHECK_MSG(tensor_add_(row, one, 1.0), "add_: %s", tensor_last_error());
    /* x[2] was {0, 7.5, 12, -1} -> {1, 8.5, 13, 0}. */
    CHECK_MSG(tensor_get_flat(x, 8) == 1 && tensor_get_flat(x, 9) == 8.5 &&
              tensor_get_flat(x, 10) == 13 && tensor_get_flat(x, 11) == 0, "row add_");

    /* reshape of a contiguous tensor is a view; of a transposed one a copy. */
    Tensor *flat = tensor_reshape(x, 1, (int64_t[]){-1});
    CHECK_MSG(flat && flat->storage == x->storage, "reshape(-1) of contiguous copies");
    Tensor *flat_t = tensor_reshape(xt, 1, (int64_t[]){12});
    CHECK_MSG(flat_t && flat_t->storage != x->storage, "reshape of transposed aliases");
    /* flat_t[1] is xt[0][1] = x[1][0] = 0; flat_t[3] = xt[1][0] = x[0][1] = 0;
     * flat_t[5] = xt[1][2] = x[2][1] = 8.5. */
    CHECK_MSG(tensor_get_flat(flat_t, 5) == 8.5, "reshape copy value %g", tensor_get_flat(flat_t, 5));
    tensor_set_flat(flat_t, 5, 100);                /* the copy is independent */
    CHECK_MSG(tensor_get_flat(x, 9) == 8.5, "reshape copy wrote through");
    CHECK_MSG(tensor_view(xt, 1, (int64_t[]){12}) == NULL, "view of transposed accepted");
    CHECK_MSG(strstr(tensor_last_error(), "view size is not compatible") != NULL, "message: %s",
              tensor_last_error());

    /* Views outlive the tensor they came from: storage is reference counted. */
    tensor_release(x);
    tensor_set_flat(flat, 0, 42);
    CHECK_MSG(tensor_get_flat(xt, 0) == 42, "storage freed under a live view");

    tensor_release(one);
    tensor_release(vals);
    tensor_release(diag);
    tensor_release(col);
    tensor_release(row);
    tensor_release(xt);
    tensor_release(flat);
    tensor_release(flat_t);
}

static void test_view_geometry(void)
{
    int64_t s[3] = {2, 3, 4};
    Tensor *x = iota(DT_I64, 3, s);

    /* view(4, -1): -1 = 24 / 4 = 6; contiguous strides (6, 1). */
    Tensor *v = tensor_view(x, 2, (int64_t[]){4, -1});
    check_geometry("view(4,-1)", v, 2, (int64_t[]){4, 6}, (int64_t[]){6, 1}, 0);
    tensor_release(v);

    /* x.transpose(1, 2): sizes (2,4,3) strides (12,1,4). Every dim is its
     * own contiguous chunk (12 != 4*1, 1 != 3*4), so view(2, 12) would merge
     * two chunks -> error. view(2, 4, 3, 1) keeps the chunks; the trailing 1
     * joins the last chunk (size 3, stride 4) and gets stride 1 * 4 = 4. */
    Tensor *xt = tensor_transpose(x, 1, 2);
    CHECK_MSG(tensor_view(xt, 2, (int64_t[]){2, 12}) == NULL, "view across chunks accepted");
    v = tensor_view(xt, 4, (int64_t[]){2, 4, 3, 1});
    check_geometry("view(2,4,3,1) of transposed", v, 4, (int64_t[]){2, 4, 3, 1},
                   (int64_t[]){12, 1, 4, 4}, 0);
    tensor_release(v);

    /* unsqueeze(1): new size 1 with stride sizes[1]*strides[1] = 3*4 = 12. */
    v = tensor_unsqueeze(x, 1);
    check_geometry("unsqueeze(1)", v, 4, (int64_t[]){2, 1, 3, 4}, (int64_t[]){12, 12, 4, 1}, 0);
    tensor_release(v);

    /* expand(5, -1, 3, 4): new leading dim of 5 has stride 0. */
    v = tensor_expand(x, 4, (int64_t[]){5, -1, 3, 4});
    check_geometry("expand", v, 4, (int64_t[]){5, 2, 3, 4}, (int64_t[]){0, 12, 4, 1}, 0);
    tensor_release(v);

    /* permute(2, 0, 1): sizes (4,2,3), strides (1,12,4). */
    v = tensor_permute(x, 3, (int64_t[]){2, 0, 1});
    check_geometry("permute", v, 3, (int64_t[]){4, 2, 3}, (int64_t[]){1, 12, 4}, 0);
    tensor_release(v);

    /* movedim(0, 2): dims (1, 2, 0): sizes (3,4,2), strides (4,1,12). */
    v = tensor_movedim(x, 0, 2);
    check_geometry("movedim", v, 3, (int64_t[]){3, 4, 2}, (int64_t[]){4, 1, 12}, 0);
    tensor_release(v);

    /* diagonal(offset 1, dims 1, 2): size min(3, 4-1) = 3, stride 4+1 = 5,
     * offset 1 * stride(dim 2) = 1; remaining dim 0 comes first. */
    v = tensor_diagonal(x, 1, 1, 2);
    check_geometry("diagonal(1,1,2)", v, 2, (int64_t[]){2, 3}, (int64_t[]){12, 5}, 1);
    /* Element [1][2] is x[1][2][3] = 12 + 8 + 3 = 23. */
    CHECK_MSG(tensor_get_flat_int(v, 5) == 23, "diagonal value %lld", (long long)tensor_get_flat_int(v, 5));
    tensor_release(v);

    /* flatten(1) is view (dims 1, 2 contiguous): (2, 12) strides (12, 1). */
    v = tensor_flatten(x, 1, -1);
    check_geometry("flatten(1)", v, 2, (int64_t[]){2, 12}, (int64_t[]){12, 1}, 0);
    CHECK_MSG(v->storage == x->storage, "flatten of contiguous copied");
    tensor_release(v);

    /* unflatten(2, (2, -1)): -1 = 4 / 2 = 2; strides (12, 4, 2, 1). */
    v = tensor_unflatten(x, 2, 2, (int64_t[]){2, -1});
    check_geometry("unflatten", v, 4, (int64_t[]){2, 3, 2, 2}, (int64_t[]){12, 4, 2, 1}, 0);
    tensor_release(v);

    /* squeeze on (1, 3, 1): keeps (3) with its stride 1. */
    Tensor *y = tensor_zeros(DT_F32, 3, (int64_t[]){1, 3, 1});
    v = tensor_squeeze(y);
    check_geometry("squeeze", v, 1, (int64_t[]){3}, (int64_t[]){1}, 0);
    tensor_release(v);
    v = tensor_squeeze_dim(y, 1);           /* size 3: unchanged */
    check_geometry("squeeze_dim(1)", v, 3, (int64_t[]){1, 3, 1}, (int64_t[]){3, 1, 1}, 0);
    tensor_release(v);
    tensor_release(y);

    tensor_release(xt);
    tensor_release(x);
}

static void test_lists(void)
{
    Tensor *x = tensor_arange(0, 5, 1, DT_I64);    /* 0 1 2 3 4 */
    int n = 0;

    /* chunk(4): split size ceil(5/4) = 2 -> pieces 2, 2, 1 (only 3 chunks). */
    Tensor **parts = tensor_chunk(x, 4, 0, &n);
    CHECK_MSG(parts && n == 3, "chunk count %d", n);
    if (parts && n == 3) {
        check_geometry("chunk[0]", parts[0], 1, (int64_t[]){2}, (int64_t[]){1}, 0);
        check_geometry("chunk[2]", parts[2], 1, (int64_t[]){1}, (int64_t[]){1}, 4);
        /* Writing through a piece is seen by x. */
        tensor_set_flat_int(parts[1], 1, 99);
        CHECK_MSG(tensor_get_flat_int(x, 3) == 99, "chunk write");
    }
    for (int k = 0; parts && k < n; k++)
        tensor_release(parts[k]);
    free(parts);

    /* split_with_sizes (1, 4): offsets 0 and 1. */
    parts = tensor_split_sizes(x, 2, (int64_t[]){1, 4}, 0, &n);
    CHECK_MSG(parts && n == 2, "split_sizes count %d", n);
    if (parts && n == 2)
        check_geometry("split_sizes[1]", parts[1], 1, (int64_t[]){4}, (int64_t[]){1}, 1);
    for (int k = 0; parts && k < n; k++)
        tensor_release(parts[k]);
    free(parts);
    CHECK_MSG(tensor_split_sizes(x, 2, (int64_t[]){2, 2}, 0, &n) == NULL, "bad sizes accepted");
    CHECK_MSG(strcmp(tensor_last_error(),
                 "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size "
                 "at dimension 0), but got split_sizes=[2, 2]") == 0,
              "message: %s", tensor_last_error());

    /* unbind of (2, 3) along 1: three views of size 2, stride 3, offsets 0..2. */
    Tensor *m = tensor_zeros(DT_F32, 2, (int64_t[]){2, 3});
    parts = tensor_unbind(m, 1, &n);
    CHECK_MSG(parts && n == 3, "unbind count %d", n);
    if (parts && n == 3)
        check_geometry("unbind[2]", parts[2], 1, (int64_t[]){2}, (int64_t[]){3}, 2);
    for (int k = 0; parts && k < n; k++)
        tensor_release(parts[k]);
    free(parts);

    /* meshgrid "ij" of (2) and (3): (2,3) views, strides (1,0) and (0,1);
     * "xy" swaps: shape (3,2), first output strides (0,1). */
    Tensor *a = tensor_arange(0, 2, 1, DT_F32), *b = tensor_arange(0, 3, 1, DT_F32);
    Tensor *grids[2];
    Tensor *ins[2] = {a, b};
    CHECK_MSG(tensor_meshgrid(ins, 2, false, grids), "meshgrid: %s", tensor_last_error());
    check_geometry("meshgrid ij[0]", grids[0], 2, (int64_t[]){2, 3}, (int64_t[]){1, 0}, 0);
    check_geometry("meshgrid ij[1]", grids[1], 2, (int64_t[]){2, 3}, (int64_t[]){0, 1}, 0);
    CHECK_MSG(grids[0]->storage == a->storage, "meshgrid copied");
    tensor_release(grids[0]);
    tensor_release(grids[1]);
    CHECK_MSG(tensor_meshgrid(ins, 2, true, grids), "meshgrid xy: %s", tensor_last_error());
    check_geometry("meshgrid xy[0]", grids[0], 2, (int64_t[]){3, 2}, (int64_t[]){0, 1}, 0);
    check_geometry("meshgrid xy[1]", grids[1], 2, (int64_t[]){3, 2}, (int64_t[]){1, 0}, 0);
    tensor_release(grids[0]);
    tensor_release(grids[1]);

    tensor_release(a);
    tensor_release(b);
    tensor_release(m);
    tensor_release(x);
}

int main(void)
{
    test_select_slice();
    test_aliasing();
    test_view_geometry();
    test_lists();
    return test_report("tensor_core_views");
}
