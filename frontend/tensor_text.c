/* tensor_text.c — tensor constants from the text torch prints for them.
 *
 * torch prints a tensor attribute (torch/csrc/jit/ir/ir.cpp printAttribute)
 * as one of:
 *   {2.5} {3}                 one element, as a number (6 significant digits)
 *   " 1  2  3 [ CPULongType{3} ]"
 *                             up to 16 elements: the tensor's repr with its
 *                             newlines turned into spaces; float reprs may
 *                             start with a scale ("1e-05 *") and tensors of
 *                             3+ dims carry slice headers ("(1,.,.) =")
 *   <Tensor>                  anything larger: no data in the text
 * The first two are turned into a Tensor here. The dtype and shape come from
 * the "CPUFloatType{2,2}" suffix, or for {v} from the value's refined type
 * (Float(requires_grad=0, device=cpu)), else float32 for a number written
 * with '.', 'e', inf or nan and int64 otherwise, as torch.tensor would pick.
 * Integers and bools are exact; floats carry only the digits torch printed
 * (4 decimals in a repr, 6 significant digits in {v}).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "tssa/tensor.h"

enum { MAX_TEXT_ELEMS = 4096 };

static bool parse_number(const char *s, size_t n, double *out, bool *is_float)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!(isdigit((unsigned char)buf[i]) || strchr("+-.eEinfa", buf[i])))
            return false;
    char *end;
    *out = strtod(buf, &end);
    if (*end != '\0')
        return false;
    *is_float = strpbrk(buf, ".eEn") != NULL;
    return true;
}

static int dtype_of_type(const IrType *type)
{
    if (type && type->kind == TY_OPTIONAL && type->nelems == 1)
        type = type->elems[0];
    if (type && type->kind == TY_TENSOR)
        return type->tensor.dtype;
    return -1;
}

static void fill(Tensor *t, int64_t i, double v, bool exact_int)
{
    if (exact_int)
        tensor_set_flat_int(t, i, (int64_t)v);
    else
        tensor_set_flat(t, i, v);
}

/* {v}: a one-element tensor. */
static Tensor *from_braces(const char *s, size_t n, const IrType *type)
{
    double v;
    bool is_float;
    if (!parse_number(s + 1, n - 2, &v, &is_float))
        return NULL;
    int dt = dtype_of_type(type);
    if (dt < 0)
        dt = is_float ? DT_F32 : DT_I64;
    int ndim = 0;
    int64_t sizes[TENSOR_MAX_DIMS];
    const IrType *tt = type && type->kind == TY_TENSOR ? type : NULL;
    if (tt && tt->tensor.rank > 0 && tt->tensor.rank <= TENSOR_MAX_DIMS && tt->tensor.sizes) {
        for (int i = 0; i < tt->tensor.rank; i++) {
            if (tt->tensor.sizes[i] != 1)
                return NULL;    /* a type that disagrees with one element */
            sizes[ndim++] = 1;
        }
    }
    Tensor *t = tensor_empty((TensorDType)dt, ndim, sizes);
    if (t)
        fill(t, 0, v, !dtype_is_float((TensorDType)dt));
    return t;
}

/* " 1  2 [ CPULongType{2} ]": the repr of a small tensor. */
static Tensor *from_repr(const char *s, size_t n)
{
    /* The suffix: '[' device+scalar "Type{" dims '}' ']' */
    const char *open = NULL;
    for (size_t i = n; i-- > 0;)
        if (s[i] == '[') {
            open = s + i;
            break;
        }
    if (!open)
        return NULL;
    const char *type_at = strstr(open, "Type{");
    if (!type_at)
        return NULL;
    const char *name_end = type_at, *name_start = type_at;
    while (name_start > open && isalnum((unsigned char)name_start[-1]))
        name_start--;
    static const char *const devices[] = {"CPU", "CUDA", "MPS", "XPU", "Meta"};
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        size_t l = strlen(devices[d]);
        if ((size_t)(name_end - name_start) > l && strncmp(name_start, devices[d], l) == 0) {
            name_start += l;
            break;
        }
    }
    char scalar[32];
    size_t sl = (size_t)(name_end - name_start);
    if (sl == 0 || sl >= sizeof scalar)
        return NULL;
    memcpy(scalar, name_start, sl);
    scalar[sl] = '\0';
    int dt = dtype_from_ts_name(scalar);
    if (dt < 0)
        return NULL;
    int ndim = 0;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t numel = 1;
    const char *p = type_at + 5;
    while (*p != '}') {
        if (ndim == TENSOR_MAX_DIMS || !isdigit((unsigned char)*p))
            return NULL;
        int64_t d = 0;
        while (isdigit((unsigned char)*p) && d < MAX_TEXT_ELEMS)
            d = d * 10 + (*p++ - '0');
        sizes[ndim++] = d;
        numel *= d;
        if (numel > MAX_TEXT_ELEMS)
            return NULL;
        if (*p == ',')
            p++;
        else if (*p != '}')
            return NULL;
    }
    /* The body: numbers, after an optional "SCALE *", with slice headers
     * such as "(1,.,.) =" in between. */
    double values[MAX_TEXT_ELEMS];
    int64_t count = 0;
    double scale = 1.0;
    bool any_float = false;
    const char *q = s, *end = open;
    bool first = true;
    while (q < end) {
        while (q < end && isspace((unsigned char)*q))
            q++;
        if (q >= end)
            break;
        const char *w = q;
        while (q < end && !isspace((unsigned char)*q))
            q++;
        size_t wl = (size_t)(q - w);
        if (w[0] == '(' && w[wl - 1] == ')') {     /* "(1,.,.)" then "=" */
            while (q < end && isspace((unsigned char)*q))
                q++;
            if (q < end && *q == '=')
                q++;
            continue;
        }
        double v;
        bool is_float;
        if (!parse_number(w, wl, &v, &is_float))
            return NULL;
        const char *after = q;
        while (after < end && isspace((unsigned char)*after))
            after++;
        if (first && after < end && *after == '*') {
            scale = v;
            q = after + 1;
            first = false;
            continue;
        }
        first = false;
        if (count == numel)
            return NULL;
        any_float |= is_float;
        values[count++] = v * scale;
    }
    if (count != numel || (any_float && !dtype_is_float((TensorDType)dt)))
        return NULL;
    Tensor *t = tensor_empty((TensorDType)dt, ndim, sizes);
    if (!t)
        return NULL;
    for (int64_t i = 0; i < numel; i++)
        fill(t, i, values[i], !dtype_is_float((TensorDType)dt));
    return t;
}

Tensor *ir_tensor_from_text(const char *text, const IrType *type)
{
    size_t b = 0, e = strlen(text);
    while (b < e && isspace((unsigned char)text[b]))
        b++;
    while (e > b && isspace((unsigned char)text[e - 1]))
        e--;
    if (e - b >= 2 && text[b] == '{' && text[e - 1] == '}')
        return from_braces(text + b, e - b, type);
    if (e - b >= 2 && text[e - 1] == ']')
        return from_repr(text + b, e - b);
    return NULL;
}
