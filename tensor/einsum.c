/* einsum.c — torch.einsum by contraction planning onto the existing views,
 * reductions and batched GEMM (never a scalar loop over the index space).
 *
 * The equation is parsed into one label per dim of each operand ("..."
 * stands for the leading dims that have no letter, aligned from the right
 * and broadcast like batch dims). Then:
 *   1. a label repeated within one operand takes that operand's diagonal;
 *   2. a label that appears in one operand only and not in the output is
 *      summed out of that operand at once;
 *   3. the operands are contracted left to right, two at a time: labels both
 *      share are batch dims when still needed later (by the output or a
 *      later operand), else contracted; each operand is permuted to
 *      [batch, own, contracted] / [batch, contracted, own], expanded where
 *      a dim of size 1 broadcasts, reshaped to three dims and multiplied by
 *      tensor_bmm (OpenBLAS for floats), or multiplied by broadcasting when
 *      nothing is contracted (an outer product per batch);
 *      When the pair shares no contracted label, the product is a
 *      broadcast multiply in the output's label order instead;
 *   4. the result is permuted to the output's order and copied, so it never
 *      aliases an input (a contraction's result already in that order is
 *      new: it is returned as it is).
 * The implicit output (no "->") is the ellipsis dims, then the labels that
 * appear exactly once, in alphabetical order (uppercase first), as PyTorch
 * has it. Errors are PyTorch's.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Labels: 'A'..'Z' are 0..25, 'a'..'z' 26..51 (so their order is ASCII's),
 * ellipsis dims 52.. counted from the right. */
enum { LETTERS = 52, MAX_LABELS = LETTERS + TENSOR_MAX_DIMS };

typedef struct Term {
    Tensor *t;                  /* owned */
    int labels[TENSOR_MAX_DIMS];
    int n;
} Term;

static int letter_label(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return 26 + (c - 'a');
    return -1;
}

static char label_char(int l)
{
    return l < 26 ? (char)('A' + l) : l < LETTERS ? (char)('a' + l - 26) : '.';
}

/* The labels of one subscript string s[0..len) for a tensor of ndim dims. */
static bool parse_subscript(const char *s, size_t len, int ndim, int operand, int *labels, int *n,
                            int *ellipsis_dims)
{
    int letters = 0;
    bool ellipsis = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (ellipsis || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.') {
                tensor_set_error("einsum(): found '.' for operand %d that is not part of any "
                                 "ellipsis", operand);
                return false;
            }
            ellipsis = true;
            i += 2;
        } else if (s[i] == ' ') {
            continue;
        } else if (letter_label(s[i]) < 0) {
            tensor_set_error("einsum(): invalid subscript given at index %zu in the equation string, "
                             "subscripts must be in [a-zA-Z]", i);
            return false;
        } else {
            letters++;
        }
    }
    if (ellipsis ? letters > ndim : letters != ndim) {
        tensor_set_error("einsum(): the number of subscripts in the equation (%d) %s the number of "
                         "dimensions (%d) for operand %d%s", letters,
                         ellipsis ? "is more than" : "does not match", ndim, operand,
                         ellipsis ? "" : " and no ellipsis was given");
        return false;
    }
    int edims = ellipsis ? ndim - letters : 0;
    if (edims > *ellipsis_dims)
        *ellipsis_dims = edims;
    *n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (int d = edims - 1; d >= 0; d--)
                labels[(*n)++] = LETTERS + d;
            i += 2;
        } else if (s[i] != ' ') {
            labels[(*n)++] = letter_label(s[i]);
        }
    }
    return true;
}

/* Replaces the term's tensor (taking over `t`), or fails keeping the old. */
static bool term_set(Term *term, Tensor *t)
{
    if (!t)
        return false;
    tensor_release(term->t);
    term->t = t;
    return true;
}

/* Step 1: a label that repeats within the term becomes one diagonal dim. */
static bool take_diagonals(Term *term)
{
    for (int i = 0; i < term->n; i++)
        for (int j = i + 1; j < term->n; j++) {
            if (term->labels[i] != term->labels[j])
                continue;
            int label = term->labels[i];
            if (!term_set(term, tensor_diagonal(term->t, 0, i, j)))
                return false;
            /* tensor_diagonal drops dims i and j and appends the diagonal. */
            int k = 0;
            for (int d = 0; d < term->n; d++)
                if (d != i && d != j)
                    term->labels[k++] = term->labels[d];
            term->labels[k++] = label;
            term->n = k;
            i = -1;     /* start over: positions moved */
            break;
        }
    return true;
}

/* Step 2: sums out the dims whose label `needed` does not mark. */
static bool sum_unneeded(Term *term, const int *needed)
{
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, k = 0;
    for (int d = 0; d < term->n; d++) {
        if (needed[term->labels[d]])
            term->labels[k++] = term->labels[d];
        else
            dims[ndims++] = d;
    }
    if (ndims == 0)
        return true;
    term->n = k;
    return term_set(term, tensor_sum(term->t, dims, ndims, false, term->t->dtype));
}

static int position(const Term *term, int label)
{
    for (int d = 0; d < term->n; d++)
        if (term->labels[d] == label)
            return d;
    return -1;
}

/* The term permuted to `order` (labels it has), expanded to the label sizes
 * and reshaped to the given 3 groups' products. */
static Tensor *arrange(const Term *term, const int *order, int n, const int64_t *size,
                       const int group[3])
{
    int64_t perm[TENSOR_MAX_DIMS], sizes[TENSOR_MAX_DIMS], shape[3] = {1, 1, 1};
    for (int i = 0; i < n; i++) {
        perm[i] = position(term, order[i]);
        sizes[i] = size[order[i]];
    }
    for (int g = 0, i = 0; g < 3; g++)
        for (int k = 0; k < group[g]; k++, i++)
            shape[g] *= sizes[i];
    Tensor *p = tensor_permute(term->t, n, perm);
    Tensor *e = p ? tensor_expand(p, n, sizes) : NULL;
    Tensor *r = e ? tensor_reshape(e, 3, shape) : NULL;
    tensor_release(p);
    tensor_release(e);
    return r;
}

/* The term's view with one dim per label of `order` (n labels, which hold
 * all of the term's): its own dims permuted into that order, size 1 where
 * it lacks the label. */
static Tensor *broadcast_view(const Term *term, const int *order, int n)
{
    int64_t perm[TENSOR_MAX_DIMS] = {0};
    int missing[TENSOR_MAX_DIMS], nperm = 0, nmissing = 0;
    for (int i = 0; i < n; i++) {
        int d = position(term, order[i]);
        if (d >= 0)
            perm[nperm++] = d;
        else
            missing[nmissing++] = i;
    }
    Tensor *v = tensor_permute(term->t, nperm, perm);
    for (int i = 0; v && i < nmissing; i++) {
        Tensor *u = tensor_unsqueeze(v, missing[i]);
        tensor_release(v);
        v = u;
    }
    return v;
}

/* Step 3 when nothing is contracted (`bhd,bmd->bhmd`, xDeepFM's CIN): the
 * pair's product is an outer product per batch, which a broadcast multiply
 * computes directly in the output's label order (each element one product,
 * as the GEMM's would be) instead of one tiny GEMM per batch and two
 * permuting copies. Labels the output lacks (needed by a later operand)
 * come last. */
static bool multiply_outer(Term *a, Term *b, const int *out_pos)
{
    int order[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < a->n; d++)
        order[n++] = a->labels[d];
    for (int d = 0; d < b->n; d++)
        if (position(a, b->labels[d]) < 0) {
            if (n == TENSOR_MAX_DIMS) {
                tensor_set_error("einsum(): the intermediate result has more than %d dims",
                                 TENSOR_MAX_DIMS);
                return false;
            }
            order[n++] = b->labels[d];
        }
    for (int i = 1; i < n; i++)     /* insertion sort by output position, -1 last */
        for (int j = i; j > 0; j--) {
            int pj = out_pos[order[j]], pk = out_pos[order[j - 1]];
            if (pj < 0 || (pk >= 0 && pk <= pj))
                break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    Tensor *va = broadcast_view(a, order, n);
    Tensor *vb = va ? broadcast_view(b, order, n) : NULL;
    Tensor *prod = vb ? tensor_binary(BIN_MUL, va, vb) : NULL;
    tensor_release(va);
    tensor_release(vb);
    if (!prod)
        return false;
    memcpy(a->labels, order, sizeof(int) * (size_t)n);
    a->n = n;
    return term_set(a, prod);
}

/* Step 3: a and b contracted into a (b released). `later[l]` marks the
 * labels still needed after this pair, out_pos[l] the label's place in the
 * output (-1: not there). */
static bool contract(Term *a, Term *b, const int *later, const int64_t *size, const int *out_pos)
{
    int batch[TENSOR_MAX_DIMS], own_a[TENSOR_MAX_DIMS], own_b[TENSOR_MAX_DIMS], sum[TENSOR_MAX_DIMS];
    int nbatch = 0, na = 0, nb = 0, nsum = 0;
    for (int d = 0; d < a->n; d++) {
        int l = a->labels[d];
        if (position(b, l) < 0)
            own_a[na++] = l;
        else if (later[l])
            batch[nbatch++] = l;
        else
            sum[nsum++] = l;
    }
    for (int d = 0; d < b->n; d++)
        if (position(a, b->labels[d]) < 0)
            own_b[nb++] = b->labels[d];
    if (nbatch + na + nb > TENSOR_MAX_DIMS) {
        tensor_set_error("einsum(): the intermediate result has more than %d dims", TENSOR_MAX_DIMS);
        return false;
    }
    if (nsum == 0 && a->t->dtype != DT_BOOL && b->t->dtype != DT_BOOL)
        return multiply_outer(a, b, out_pos);
    int order_a[TENSOR_MAX_DIMS], order_b[TENSOR_MAX_DIMS], k = 0;
    memcpy(order_a, batch, sizeof(int) * (size_t)nbatch);
    memcpy(order_a + nbatch, own_a, sizeof(int) * (size_t)na);
    memcpy(order_a + nbatch + na, sum, sizeof(int) * (size_t)nsum);
    memcpy(order_b, batch, sizeof(int) * (size_t)nbatch);
    memcpy(order_b + nbatch, sum, sizeof(int) * (size_t)nsum);
    memcpy(order_b + nbatch + nsum, own_b, sizeof(int) * (size_t)nb);
    Tensor *ma = arrange(a, order_a, nbatch + na + nsum, size, (int[3]){nbatch, na, nsum});
    Tensor *mb = ma ? arrange(b, order_b, nbatch + nsum + nb, size, (int[3]){nbatch, nsum, nb}) : NULL;
    Tensor *prod = mb ? tensor_bmm(ma, mb) : NULL;
    tensor_release(ma);
    tensor_release(mb);
    if (!prod)
        return false;
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int i = 0; i < nbatch; i++)
        a->labels[k++] = batch[i];
    for (int i = 0; i < na; i++)
        a->labels[k++] = own_a[i];
    for (int i = 0; i < nb; i++)
        a->labels[k++] = own_b[i];
    for (int i = 0; i < k; i++)
        sizes[i] = size[a->labels[i]];
    a->n = k;
    bool ok = term_set(a, tensor_reshape(prod, k, sizes));
    tensor_release(prod);
    return ok;
}

Tensor *tensor_einsum(const char *equation, Tensor *const *operands, int n)
{
    if (n < 1) {
        tensor_set_error("einsum(): must provide at least one operand");
        return NULL;
    }
    const char *arrow = strstr(equation, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - equation) : strlen(equation);
    Term *terms = xcalloc((size_t)n, sizeof *terms);
    int64_t size[MAX_LABELS];
    int count[MAX_LABELS] = {0}, ellipsis_dims = 0, out[TENSOR_MAX_DIMS], nout = 0;
    bool ok = true;
    const char *s = equation;
    for (int i = 0; i < n && ok; i++) {
        const char *end = memchr(s, ',', lhs_len - (size_t)(s - equation));
        if (!end && i < n - 1) {
            tensor_set_error("einsum(): more operands were provided than specified in the equation");
            ok = false;
            break;
        }
        if (end && i == n - 1) {
            tensor_set_error("einsum(): fewer operands were provided than specified in the equation");
            ok = false;
            break;
        }
        size_t len = end ? (size_t)(end - s) : lhs_len - (size_t)(s - equation);
        terms[i].t = tensor_retain(operands[i]);
        ok = parse_subscript(s, len, operands[i]->ndim, i, terms[i].labels, &terms[i].n, &ellipsis_dims);
        if (ok && operands[i]->dtype != operands[0]->dtype) {
            tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(operands[0]->dtype),
                             dtype_ts_name(operands[i]->dtype));
            ok = false;
        }
        s = end ? end + 1 : s + len;
    }
    /* Label sizes, with size 1 broadcasting. */
    for (int l = 0; l < MAX_LABELS; l++)
        size[l] = -1;
    for (int i = 0; i < n && ok; i++)
        for (int d = 0; d < terms[i].n && ok; d++) {
            int l = terms[i].labels[d];
            int64_t sz = operands[i]->sizes[d];
            count[l]++;
            if (size[l] < 0 || size[l] == 1)
                size[l] = sz;
            else if (sz != 1 && sz != size[l]) {
                tensor_set_error("einsum(): subscript %c has size %" PRId64 " for operand %d which does "
                                 "not broadcast with previously seen size %" PRId64,
                                 label_char(l), sz, i, size[l]);
                ok = false;
            }
        }
    /* The output's labels. */
    if (ok && arrow) {
        for (const char *p = arrow + 2; *p && ok; p++) {
            if (*p == ' ')
                continue;
            if (p[0] == '.' && p[1] == '.' && p[2] == '.') {
                for (int d = ellipsis_dims - 1; d >= 0; d--)
                    out[nout++] = LETTERS + d;
                p += 2;
                continue;
            }
            int l = letter_label(*p);
            if (l < 0 || count[l] == 0) {
                tensor_set_error(l < 0 ? "einsum(): invalid subscript given in the output"
                                       : "einsum(): output subscript %c does not appear in the equation "
                                         "for any input operand", *p);
                ok = false;
                break;
            }
            for (int k = 0; k < nout; k++)
                if (out[k] == l) {
                    tensor_set_error("einsum(): output subscript %c appears more than once in the "
                                     "output", *p);
                    ok = false;
                }
            out[nout++] = l;
        }
    } else if (ok) {
        for (int d = ellipsis_dims - 1; d >= 0; d--)
            out[nout++] = LETTERS + d;
        for (int l = 0; l < LETTERS; l++)
            if (count[l] == 1)
                out[nout++] = l;
    }
    /* Steps 1 and 2, then 3: later[l] counts the uses after operand i. */
    int in_output[MAX_LABELS] = {0}, out_pos[MAX_LABELS];
    for (int l = 0; l < MAX_LABELS; l++)
        out_pos[l] = -1;
    for (int k = 0; k < nout; k++) {
        in_output[out[k]] = 1;
        out_pos[out[k]] = k;
    }
    for (int i = 0; i < n && ok; i++) {
        ok = take_diagonals(&terms[i]);
        int needed[MAX_LABELS];
        for (int l = 0; l < MAX_LABELS; l++)
            needed[l] = in_output[l];
        for (int j = 0; j < n; j++)
            for (int d = 0; j != i && d < terms[j].n; d++)
                needed[terms[j].labels[d]] = 1;
        ok = ok && sum_unneeded(&terms[i], needed);
    }
    for (int i = 1; i < n && ok; i++) {
        int later[MAX_LABELS];
        for (int l = 0; l < MAX_LABELS; l++)
            later[l] = in_output[l];
        for (int j = i + 1; j < n; j++)
            for (int d = 0; d < terms[j].n; d++)
                later[terms[j].labels[d]] = 1;
        ok = contract(&terms[0], &terms[i], later, size, out_pos);
    }
    Tensor *result = NULL;
    if (ok) {
        /* Step 4: the output's order; a dim still of size 1 where the label
         * is larger (broadcast but never combined) is expanded. */
        int64_t perm[TENSOR_MAX_DIMS], sizes[TENSOR_MAX_DIMS];
        for (int k = 0; k < nout; k++) {
            perm[k] = position(&terms[0], out[k]);
            sizes[k] = size[out[k]];
        }
        Tensor *p = tensor_permute(terms[0].t, nout, perm);
        Tensor *e = p ? tensor_expand(p, nout, sizes) : NULL;
        /* After a contraction the term is a new tensor: already in the
         * output's order and contiguous, it is the result. */
        bool identity = n >= 2 && terms[0].n == nout && e && tensor_is_contiguous(e);
        for (int k = 0; identity && k < nout; k++)
            identity = perm[k] == k && terms[0].t->sizes[k] == sizes[k];
        result = !e ? NULL : identity ? tensor_retain(terms[0].t) : tensor_clone(e);
        tensor_release(p);
        tensor_release(e);
    }
    for (int i = 0; i < n; i++)
        tensor_release(terms[i].t);
    free(terms);
    return result;
}
