/* tensor_repr.c — a tensor as TorchScript's str(), aten::format and
 * prim::Print spell it.
 *
 * Inside TorchScript a tensor prints through C++'s operator<< (ATen's
 * Formatting.cpp), not Python's repr:
 *      1.5000
 *      2.0000
 *     [ CPUFloatType{2} ]
 * This file transcribes that printer: values are read as doubles; one
 * format per matrix is chosen from whether all finite values are integral
 * and from the decimal exponents of the smallest and largest magnitudes
 * (integers: %g; fixed "%.4f", optionally with a common "scale *" factor;
 * or scientific "%.4e"), every value right-aligned in that width; matrices
 * wider than 80 columns are split into "Columns a to b" groups, and tensors
 * of more than two dims print one "(i,j,.,.) = " matrix per leading index.
 * A 0-d tensor prints its value with %g. The last line names the type and
 * sizes: "[ CPULongType{2,2} ]".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"

enum { PRINT_LINESIZE = 80 };

typedef enum ReprMode { REPR_GENERAL, REPR_FIXED, REPR_SCIENTIFIC } ReprMode;

typedef struct ReprFormat {
    ReprMode mode;
    double scale;
    int width;
} ReprFormat;

static const char *repr_type_name(TensorDType dt)
{
    switch (dt) {
    case DT_BOOL: return "CPUBoolType";
    case DT_U8: return "CPUByteType";
    case DT_I8: return "CPUCharType";
    case DT_I16: return "CPUShortType";
    case DT_I32: return "CPUIntType";
    case DT_I64: return "CPULongType";
    case DT_F32: return "CPUFloatType";
    case DT_F64: return "CPUDoubleType";
    default: return "CPUType";
    }
}

/* C++ streams print doubles like printf's %g (precision 6), %.4f or %.4e;
 * glibc's "-nan" is what C++ prints too. */
static void repr_number(TextBuf *sb, ReprMode mode, int width, double v)
{
    switch (mode) {
    case REPR_GENERAL: textbuf_printf(sb, "%*g", width, v); break;
    case REPR_FIXED: textbuf_printf(sb, "%*.4f", width, v); break;
    case REPR_SCIENTIFIC: textbuf_printf(sb, "%*.4e", width, v); break;
    }
}

/* __printFormat over n values (a whole matrix or vector). */
static ReprFormat repr_choose_format(const double *v, int64_t n)
{
    ReprFormat f = {REPR_GENERAL, 1.0, 0};
    bool int_mode = true;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] != ceil(v[i])) {
            int_mode = false;
            break;
        }
    int64_t offset = 0;
    while (offset < n && !isfinite(v[offset]))
        offset++;
    double exp_min = 1, exp_max = 1;
    if (offset < n) {
        exp_min = fabs(v[offset]);
        exp_max = fabs(v[offset]);
        for (int64_t i = offset; i < n; i++) {
            double z = fabs(v[i]);
            if (isfinite(z)) {
                if (z < exp_min)
                    exp_min = z;
                if (v[i] > exp_max) /* sic: ATen compares the signed value */
                    exp_max = z;
            }
        }
        exp_min = exp_min != 0 ? floor(log10(exp_min)) + 1 : 1;
        exp_max = exp_max != 0 ? floor(log10(exp_max)) + 1 : 1;
    }
    if (int_mode) {
        if (exp_max > 9) {
            f.width = 11;
            f.mode = REPR_SCIENTIFIC;
        } else {
            f.width = (int)exp_max + 1;
            f.mode = REPR_GENERAL;
        }
    } else if (exp_max - exp_min > 4) {
        f.width = 11;
        if (fabs(exp_max) > 99 || fabs(exp_min) > 99)
            f.width++;
        f.mode = REPR_SCIENTIFIC;
    } else {
        f.mode = REPR_FIXED;
        if (exp_max > 5 || exp_max < 0) {
            f.width = 7;
            f.scale = pow(10, exp_max - 1);
        } else {
            f.width = exp_max == 0 ? 7 : (int)exp_max + 6;
        }
    }
    return f;
}

static void repr_scale(TextBuf *sb, double scale)
{
    textbuf_printf(sb, "%g *\n", scale);
}

static void repr_indent(TextBuf *sb, int indent)
{
    textbuf_printf(sb, "%*s", indent, "");
}

/* __printMatrix: rows x cols values, row-major. */
static void repr_matrix(TextBuf *sb, const double *v, int64_t rows, int64_t cols, int indent)
{
    ReprFormat f = repr_choose_format(v, rows * cols);
    repr_indent(sb, indent);
    int64_t per_line = (PRINT_LINESIZE - indent) / (f.width + 1);
    if (per_line < 1)
        per_line = 1;
    for (int64_t first = 0; first < cols;) {
        int64_t last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
        if (per_line < cols) {
            if (first != 0)
                textbuf_puts(sb, "\n");
            textbuf_printf(sb, "Columns %lld to %lld", (long long)first + 1, (long long)last + 1);
            repr_indent(sb, indent);
        }
        if (f.scale != 1) {
            repr_scale(sb, f.scale);
            repr_indent(sb, indent);
        }
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t col = first; col <= last; col++) {
                repr_number(sb, f.mode, f.width, v[r * cols + col] / f.scale);
                if (col == last) {
                    textbuf_puts(sb, "\n");
                    if (r != rows - 1) {
                        repr_indent(sb, indent);
                        if (f.scale != 1)
                            textbuf_puts(sb, " ");
                    }
                } else {
                    textbuf_puts(sb, " ");
                }
            }
        }
        first = last + 1;
    }
}

void tensor_format_repr(TextBuf *sb, const Tensor *t)
{
    int64_t n = tensor_numel(t);
    double *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = tensor_get_flat(t, i);

    if (t->ndim == 0) {
        textbuf_printf(sb, "%g\n", v[0]);
    } else if (t->ndim == 1 && n > 0) {
        ReprFormat f = repr_choose_format(v, n);
        if (f.scale != 1)
            repr_scale(sb, f.scale);
        for (int64_t i = 0; i < n; i++) {
            repr_number(sb, f.mode, f.width, v[i] / f.scale);
            textbuf_puts(sb, "\n");
        }
    } else if (t->ndim == 2 && n > 0) {
        repr_matrix(sb, v, t->sizes[0], t->sizes[1], 0);
    } else if (n > 0) {
        /* One matrix per index of the leading dims, first dim fastest. */
        int lead = t->ndim - 2;
        int64_t rows = t->sizes[lead], cols = t->sizes[lead + 1];
        int64_t counter[TENSOR_MAX_DIMS] = {0};
        int64_t nmatrices = n / (rows * cols);
        for (int64_t m = 0; m < nmatrices; m++) {
            if (m > 0)
                textbuf_puts(sb, "\n");
            textbuf_puts(sb, "(");
            int64_t base = 0, stride = rows * cols;
            for (int d = lead - 1; d >= 0; d--) {
                base += counter[d] * stride;
                stride *= t->sizes[d];
            }
            for (int d = 0; d < lead; d++)
                textbuf_printf(sb, "%lld,", (long long)counter[d] + 1);
            textbuf_puts(sb, ".,.) = \n");
            repr_matrix(sb, v + base, rows, cols, 1);
            for (int d = 0; d < lead; d++) {
                if (++counter[d] < t->sizes[d])
                    break;
                counter[d] = 0;
            }
        }
    }
    free(v);

    textbuf_printf(sb, "[ %s{", repr_type_name(t->dtype));
    for (int d = 0; d < t->ndim; d++)
        textbuf_printf(sb, "%s%lld", d ? "," : "", (long long)t->sizes[d]);
    textbuf_puts(sb, "} ]");
}
