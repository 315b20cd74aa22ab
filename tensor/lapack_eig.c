/* lapack_eig.c — eigenvalues of symmetric matrices without eigenvectors
 * (linalg.eigvalsh: syevd with jobz 'N', as PyTorch) and the deprecated
 * torch.symeig (syev, the routine PyTorch's symeig calls, so that its
 * eigenvectors have the same signs).
 */
#include "tensor/lapack_common.h"

#include <lapacke.h>

/* Eigenvalues (ascending) and, when vectors, eigenvectors (columns,
 * overwriting a clone of a) of each matrix; routine 'd' syevd, 'e' syev. */
static bool symmetric_eigen(const Tensor *a, bool upper, bool vectors, char routine, const char *op,
                            Tensor **values, Tensor **vecs)
{
    *values = *vecs = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, op, &batch, &n))
        return false;
    Tensor *work = tensor_clone(a);
    *values = lapack_vector_batch(a, a->dtype, n);
    bool ok = work && *values;
    bool f32 = a->dtype == DT_F32;
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *m = lapack_matrix_at(work, b, n, n);
        void *w = (char *)tensor_data(*values) + (size_t)(b * n) * dtype_size(a->dtype);
        lapack_int info, ln = (lapack_int)n;
        if (routine == 'd')
            info = f32 ? LAPACKE_ssyevd(LAPACK_ROW_MAJOR, jobz, uplo, ln, m, ln, w)
                       : LAPACKE_dsyevd(LAPACK_ROW_MAJOR, jobz, uplo, ln, m, ln, w);
        else
            info = f32 ? LAPACKE_ssyev(LAPACK_ROW_MAJOR, jobz, uplo, ln, m, ln, w)
                       : LAPACKE_dsyev(LAPACK_ROW_MAJOR, jobz, uplo, ln, m, ln, w);
        if (info != 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            tensor_set_error("%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned or "
                             "has too many repeated eigenvalues (error code: %d).", op, prefix, (int)info);
            ok = false;
        }
    }
    if (ok && vectors)
        *vecs = tensor_retain(work);
    tensor_release(work);
    if (!ok) {
        tensor_release(*values);
        *values = NULL;
    }
    return ok;
}

Tensor *tensor_linalg_eigvalsh(const Tensor *a, bool upper)
{
    Tensor *w, *v;
    return symmetric_eigen(a, upper, false, 'd', "linalg.eigh", &w, &v) ? w : NULL;
}

bool tensor_symeig(const Tensor *a, bool eigenvectors, bool upper, Tensor **values, Tensor **vectors)
{
    if (!symmetric_eigen(a, upper, eigenvectors, 'e', "symeig", values, vectors))
        return false;
    if (!eigenvectors) {
        /* PyTorch returns an empty tensor in place of the eigenvectors */
        int64_t zero = 0;
        *vectors = tensor_zeros(a->dtype, 1, &zero);
        if (!*vectors) {
            tensor_release(*values);
            *values = NULL;
            return false;
        }
    }
    return true;
}
