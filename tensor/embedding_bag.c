/* embedding_bag.c — torch.embedding_bag with PyTorch's (1.13, CPU)
 * semantics: the rows of `weight` picked by `indices`, reduced per bag
 * (sum, mean or max), bags delimited by `offsets`.
 *
 * Bag membership is ATen's make_offset2bag: index k belongs to the bag
 * numbered by how many of offsets[1..num_bags) are <= k (so an index past
 * offsets[-1] with include_last_offset joins the last bag). Indices equal
 * to padding_idx are skipped and not counted. Sums are taken in double and
 * rounded once; max keeps the first maximum (ATen compares with >).
 *
 * The three auxiliary results are ATen's too, including their
 * mode-dependent shapes, in the index dtype (int32 when indices and
 * offsets both are): offset2bag (the bag of every index; empty on the
 * float32 "sum" fast path), bag_size (indices counted per bag for mean and
 * max, zeros shaped like offsets for sum) and max_indices (the weight row
 * of each maximum, (num_bags, dim), for max; bag_size again for mean;
 * zeros shaped like offsets for sum).
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool bag_check(const Tensor *weight, const Tensor *indices, const Tensor *offsets, int mode,
                      const Tensor *per_sample_weights, bool include_last_offset, int64_t *padding_idx)
{
    const Tensor *index_args[2] = {indices, offsets};
    const char *index_names[2] = {"indices", "offsets"};
    for (int k = 0; k < 2; k++)
        if (index_args[k]->dtype != DT_I64 && index_args[k]->dtype != DT_I32) {
            tensor_set_error("Expected tensor for argument #1 '%s' to have one of the following scalar types: Long, "
                             "Int; but got %s instead (while checking arguments for embedding_bag)",
                             index_names[k], dtype_legacy_tensor_name(index_args[k]->dtype));
            return false;
        }
    if (!dtype_is_float(weight->dtype)) {
        tensor_set_error("Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, "
                         "Float, Double; but got %s instead (while checking arguments for embedding_bag)",
                         dtype_legacy_tensor_name(weight->dtype));
        return false;
    }
    if (weight->ndim != 2) {
        tensor_set_error("embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension %d", weight->ndim);
        return false;
    }
    if (indices->ndim != 1) {
        tensor_set_error("input has to be a 1D or 2D Tensor, but got Tensor of dimension %d", indices->ndim);
        return false;
    }
    if (offsets->ndim != 1) {
        tensor_set_error("offsets has to be a 1D Tensor, but got Tensor of dimension %d", offsets->ndim);
        return false;
    }
    if (mode < 0 || mode > 2) {
        tensor_set_error("mode has to be one of sum, mean or max");
        return false;
    }
    if (include_last_offset && offsets->sizes[0] < 1) {
        tensor_set_error("include_last_offset: number of offset should be at least 1");
        return false;
    }
    if (per_sample_weights) {
        if (mode != 0) {
            tensor_set_error("embedding_bag: per_sample_weights only supported with mode='sum'");
            return false;
        }
        if (per_sample_weights->dtype != weight->dtype) {
            tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(weight->dtype),
                             dtype_ts_name(per_sample_weights->dtype));
            return false;
        }
        if (per_sample_weights->ndim != 1 || per_sample_weights->sizes[0] != indices->sizes[0]) {
            tensor_set_error("embedding_bag: per_sample_weights has to be 1-D with as many elements as indices "
                             "(%" PRId64 ")", indices->sizes[0]);
            return false;
        }
    }
    int64_t rows = weight->sizes[0];
    if (*padding_idx != INT64_MIN) {
        if (*padding_idx < -rows || *padding_idx >= rows) {
            tensor_set_error("padding_idx must be within the number of embeddings, -%" PRId64 " through %" PRId64
                             ", but got %" PRId64, rows, rows - 1, *padding_idx);
            return false;
        }
        if (*padding_idx < 0)
            *padding_idx += rows;
    }
    return true;
}

/* The bag of every index (ATen's make_offset2bag); checks the offsets. */
static int64_t *offset_to_bag(const int64_t *off, int64_t noffsets, int64_t num_bags, int64_t n)
{
    if (noffsets > 0 && n > 0 && off[0] != 0) {
        tensor_set_error("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                         "position 0. However, got %" PRId64, off[0]);
        return NULL;
    }
    if (noffsets > 0 && off[noffsets - 1] > n) {
        tensor_set_error("offsets[-1] can not be greater than input's length %" PRId64 " but got offsets[-1] of %"
                         PRId64, n, off[noffsets - 1]);
        return NULL;
    }
    int64_t *bag = kern_malloc((size_t)(n + 1), sizeof *bag);
    if (!bag)
        return NULL;
    memset(bag, 0, (size_t)(n + 1) * sizeof *bag);
    for (int64_t j = 1; j < num_bags; j++)
        if (off[j] >= 0 && off[j] <= n)
            bag[off[j]]++;
    for (int64_t k = 1; k <= n; k++)
        bag[k] += bag[k - 1];
    return bag;
}

static Tensor *index_tensor(TensorDType dt, int ndim, const int64_t *sizes, const int64_t *vals)
{
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (t)
        kern_write_all_i64(t, vals);
    return t;
}

bool tensor_embedding_bag(const Tensor *weight, const Tensor *indices, const Tensor *offsets, int mode,
                          const Tensor *per_sample_weights, bool include_last_offset, int64_t padding_idx,
                          Tensor **out)
{
    for (int k = 0; k < 4; k++)
        out[k] = NULL;
    if (!bag_check(weight, indices, offsets, mode, per_sample_weights, include_last_offset, &padding_idx))
        return false;
    int64_t n = indices->sizes[0], noffsets = offsets->sizes[0];
    int64_t num_bags = noffsets - (include_last_offset ? 1 : 0);
    int64_t rows = weight->sizes[0], dim = weight->sizes[1];
    bool has_padding = padding_idx != INT64_MIN;
    int64_t bag_sizes[2] = {num_bags, dim}, cells;
    if (!tensor_checked_numel(2, bag_sizes, sizeof(double), &cells))
        return false;
    int64_t *idx = kern_read_all_i64(indices), *off = idx ? kern_read_all_i64(offsets) : NULL;
    int64_t *bag = off ? offset_to_bag(off, noffsets, num_bags, n) : NULL;
    double *w = bag ? kern_read_all_f64(weight) : NULL;
    double *psw = w && per_sample_weights ? kern_read_all_f64(per_sample_weights) : NULL;
    double *acc = w && (psw || !per_sample_weights) ? kern_malloc((size_t)cells, sizeof *acc)
                                                    : NULL;
    int64_t *arg = acc ? kern_malloc((size_t)cells, sizeof *arg) : NULL;
    int64_t *count = arg ? kern_malloc((size_t)num_bags, sizeof *count) : NULL;
    bool ok = count != NULL;
    for (int64_t k = 0; ok && k < n; k++)
        if (!(has_padding && idx[k] == padding_idx) && (idx[k] < 0 || idx[k] >= rows)) {
            tensor_set_error("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be %" PRId64,
                             idx[k]);
            ok = false;
        }
    if (ok) {
        memset(acc, 0, (size_t)cells * sizeof *acc);
        memset(arg, 0, (size_t)cells * sizeof *arg);
        memset(count, 0, (size_t)num_bags * sizeof *count);
        for (int64_t k = 0; k < n; k++) {
            int64_t b = bag[k];
            if (b >= num_bags || (has_padding && idx[k] == padding_idx))
                continue;
            const double *row = w + idx[k] * dim;
            double *dst = acc + b * dim;
            for (int64_t j = 0; j < dim; j++) {
                if (mode == 2) {
                    if (count[b] == 0 || row[j] > dst[j]) {
                        dst[j] = row[j];
                        arg[b * dim + j] = idx[k];
                    }
                } else {
                    dst[j] += psw ? psw[k] * row[j] : row[j];
                }
            }
            count[b]++;
        }
        if (mode == 1)
            for (int64_t b = 0; b < num_bags; b++)
                for (int64_t j = 0; count[b] > 0 && j < dim; j++)
                    acc[b * dim + j] /= (double)count[b];
        /* the auxiliary results */
        bool fast_sum = mode == 0 && weight->dtype == DT_F32 && !has_padding &&
                        (weight->sizes[1] <= 1 || weight->strides[1] == 1) &&
                        (!per_sample_weights || per_sample_weights->sizes[0] <= 1 ||
                         per_sample_weights->strides[0] == 1);
        int64_t o2b_size = fast_sum ? 0 : n;
        /* indices and offsets are promoted to one index type */
        TensorDType it = indices->dtype == DT_I32 && offsets->dtype == DT_I32 ? DT_I32 : DT_I64;
        out[0] = tensor_empty(weight->dtype, 2, bag_sizes);
        if (out[0])
            kern_write_all_f64(out[0], acc);
        out[1] = index_tensor(it, 1, &o2b_size, bag);
        if (mode == 0) {
            /* sum: zeros shaped like offsets */
            out[2] = tensor_zeros(it, 1, &noffsets);
            out[3] = tensor_zeros(it, 1, &noffsets);
        } else {
            out[2] = index_tensor(it, 1, &num_bags, count);
            out[3] = mode == 2 ? index_tensor(it, 2, bag_sizes, arg) : index_tensor(it, 1, &num_bags, count);
        }
        ok = out[0] && out[1] && out[2] && out[3];
    }
    free(idx);
    free(off);
    free(bag);
    free(w);
    free(psw);
    free(acc);
    free(arg);
    free(count);
    if (!ok)
        for (int k = 0; k < 4; k++) {
            tensor_release(out[k]);
            out[k] = NULL;
        }
    return ok;
}
