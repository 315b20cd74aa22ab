/* scalar_ops.c — TorchScript's non-tensor ops: Python numbers, strings,
 * lists, tuples, None checks, and the scalar queries on tensors (size, dim,
 * item, dtype).
 *
 * Arithmetic follows TorchScript's own definitions (register_prim_ops), which
 * are Python's for ints and differ slightly for floats:
 *   int + - *          wrap around at 64 bits (computed unsigned: no UB)
 *   int / int          true division, a float (x / 0 gives inf, as torch)
 *   int // and %       floor division and Python's modulo (sign of the
 *                      divisor); a zero divisor is ZeroDivisionError
 *   float // and %     floor(a / b) and fmod(b + fmod(a, b), b)
 *   round(float)       half to even, like Python
 * The result kind (int, float or bool) is the one the graph declares for the
 * output (aten::pow(int, int) is a float, math.floor(float) an int), so
 * every overload is handled by one function per op family.
 *
 * Strings and lists support what TorchScript programs use: +, comparisons,
 * `in`, indexing with negative indices, slicing, len, list * int, append.
 */
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* ---------------------------------------------------------------- helpers */

static bool is_intlike(const RtValue *v)
{
    return v->kind == RT_INT || v->kind == RT_BOOL;
}


/* Python's index normalization: -1 is the last; false if out of range. */
static bool wrap_index(int64_t *index, int64_t len)
{
    if (*index < 0)
        *index += len;
    return *index >= 0 && *index < len;
}

static bool one_element(EvalCall *c, const Tensor *t)
{
    if (tensor_numel(t) != 1)
        return eval_fail(c, "a Tensor with %lld elements cannot be converted to a Python scalar",
                        (long long)tensor_numel(t));
    return true;
}

/* The Python number a one-element tensor holds: int, float or bool by dtype. */
static RtValue *tensor_to_number(const Tensor *t)
{
    if (t->dtype == DT_BOOL)
        return rt_bool(tensor_item(t) != 0);
    if (dtype_is_float(t->dtype))
        return rt_float(tensor_item(t));
    return rt_int(tensor_item_int(t));
}

static bool double_to_int(EvalCall *c, double v, int64_t *out)
{
    if (!(v > -9223372036854775809.0 && v < 9223372036854775808.0))
        return eval_fail(c, "cannot convert float %g to integer", v);
    *out = (int64_t)v;
    return true;
}

/* ---------------------------------------------------------------- arithmetic */

static bool int_floordiv(EvalCall *c, int64_t a, int64_t b, int64_t *q)
{
    if (b == 0)
        return eval_fail(c, "ZeroDivisionError: integer division or modulo by zero");
    if (a == INT64_MIN && b == -1) {
        *q = INT64_MIN; /* wraps, as int64 arithmetic does */
        return true;
    }
    int64_t d = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        d--;
    *q = d;
    return true;
}

static bool int_remainder(EvalCall *c, int64_t a, int64_t b, int64_t *r)
{
    if (b == 0)
        return eval_fail(c, "ZeroDivisionError: integer division or modulo by zero");
    if (b == -1) {
        *r = 0;
        return true;
    }
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
    *r = m;
    return true;
}

static bool int_pow(EvalCall *c, int64_t base, int64_t exp, int64_t *out)
{
    if (exp < 0)
        return eval_fail(c, "integers to negative integer powers are not allowed");
    uint64_t result = 1, b = (uint64_t)base;
    while (exp > 0) {
        if (exp & 1)
            result *= b;
        b *= b;
        exp >>= 1;
    }
    *out = (int64_t)result;
    return true;
}

static int compare_result(OpId op, int cmp)
{
    switch (op) {
    case OP_ATEN_EQ: return cmp == 0;
    case OP_ATEN_NE: return cmp != 0;
    case OP_ATEN_LT: return cmp < 0;
    case OP_ATEN_LE: return cmp <= 0;
    case OP_ATEN_GT: return cmp > 0;
    case OP_ATEN_GE: return cmp >= 0;
    default: return -1;
    }
}

static bool is_comparison(OpId op)
{
    return compare_result(op, 0) >= 0;
}

/* Binary ops on two Python numbers. */
static bool number_binary(EvalCall *c, OpId op, const RtValue *x, const RtValue *y)
{
    bool ints = is_intlike(x) && is_intlike(y);
    int64_t a = x->u.i, b = y->u.i, r = 0;
    double fa = rt_number(x), fb = rt_number(y), f = 0;
    if (is_comparison(op)) {
        int cmp;
        if (ints)
            cmp = a < b ? -1 : a > b;
        else if (isnan(fa) || isnan(fb))
            return eval_out_value(c, 0, rt_bool(op == OP_ATEN_NE));
        else
            cmp = fa < fb ? -1 : fa > fb;
        return eval_out_value(c, 0, rt_bool(compare_result(op, cmp)));
    }
    switch (op) {
    case OP_ATEN_ADD:
        r = (int64_t)((uint64_t)a + (uint64_t)b);
        f = fa + fb;
        break;
    case OP_ATEN_SUB:
        r = (int64_t)((uint64_t)a - (uint64_t)b);
        f = fa - fb;
        break;
    case OP_ATEN_MUL:
        r = (int64_t)((uint64_t)a * (uint64_t)b);
        f = fa * fb;
        break;
    case OP_ATEN_DIV:
        return eval_out_value(c, 0, rt_float(fa / fb));
    case OP_ATEN_FLOORDIV:
    case OP_ATEN_FLOOR_DIVIDE:
        if (ints && !int_floordiv(c, a, b, &r))
            return false;
        f = floor(fa / fb);
        break;
    case OP_ATEN_REMAINDER:
        if (ints && !int_remainder(c, a, b, &r))
            return false;
        f = fmod(fb + fmod(fa, fb), fb);
        break;
    case OP_ATEN_FMOD:
        if (ints) {
            if (b == 0)
                return eval_fail(c, "ZeroDivisionError: integer division or modulo by zero");
            r = b == -1 ? 0 : a % b;
        }
        f = fmod(fa, fb);
        break;
    case OP_ATEN_POW:
        if (ints && eval_out_type(c, 0)->kind == TY_INT) {
            if (!int_pow(c, a, b, &r))
                return false;
            return eval_out_value(c, 0, rt_int(r));
        }
        return eval_out_value(c, 0, eval_number_for_output(c, 0, pow(fa, fb), false, 0));
    case OP_ATEN_ATAN2:
        return eval_out_value(c, 0, rt_float(atan2(fa, fb)));
    case OP_ATEN_LOG:
        return eval_out_value(c, 0, rt_float(log(fa) / log(fb)));
    case OP_ATEN_AND:
    case OP_ATEN_BITWISE_AND:
    case OP_ATEN_OR:
    case OP_ATEN_BITWISE_OR:
    case OP_ATEN_XOR:
    case OP_ATEN_BITWISE_XOR:
        if (!ints)
            return eval_fail(c, "bitwise operations need ints or bools, got %s and %s",
                            rt_kind_name(x->kind), rt_kind_name(y->kind));
        r = op == OP_ATEN_AND || op == OP_ATEN_BITWISE_AND ? (a & b)
          : op == OP_ATEN_OR || op == OP_ATEN_BITWISE_OR   ? (a | b)
                                                           : (a ^ b);
        if (x->kind == RT_BOOL && y->kind == RT_BOOL)
            return eval_out_value(c, 0, rt_bool(r != 0));
        return eval_out_value(c, 0, rt_int(r));
    case OP_ATEN_MAXIMUM:
    case OP_ATEN_MINIMUM: {
        bool take_y = op == OP_ATEN_MAXIMUM ? (ints ? b > a : fb > fa) : (ints ? b < a : fb < fa);
        r = take_y ? b : a;
        f = take_y ? fb : fa;
        break;
    }
    default:
        return eval_fail(c, "not supported on %s and %s", rt_kind_name(x->kind),
                        rt_kind_name(y->kind));
    }
    return eval_out_value(c, 0, eval_number_for_output(c, 0, f, ints, r));
}

static int sequence_compare(const RtValue *a, const RtValue *b, bool *ok);

/* Python ordering of strings, numbers and sequences; *ok false when the
 * kinds cannot be ordered. */
static int value_compare(const RtValue *a, const RtValue *b, bool *ok)
{
    if (rt_is_number(a) && rt_is_number(b)) {
        if (is_intlike(a) && is_intlike(b))
            return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
        double fa = rt_number(a), fb = rt_number(b);
        return fa < fb ? -1 : fa > fb;
    }
    if (a->kind == RT_STR && b->kind == RT_STR) {
        int cmp = strcmp(a->u.s, b->u.s);
        return cmp < 0 ? -1 : cmp > 0;
    }
    if ((a->kind == RT_LIST || a->kind == RT_TUPLE) && a->kind == b->kind)
        return sequence_compare(a, b, ok);
    *ok = false;
    return 0;
}

static int sequence_compare(const RtValue *a, const RtValue *b, bool *ok)
{
    int n = a->u.list.n < b->u.list.n ? a->u.list.n : b->u.list.n;
    for (int i = 0; i < n && *ok; i++) {
        int cmp = value_compare(a->u.list.items[i], b->u.list.items[i], ok);
        if (cmp != 0)
            return cmp;
    }
    return a->u.list.n < b->u.list.n ? -1 : a->u.list.n > b->u.list.n;
}

/* The runtime error for a list a program grows past what fits. */
static bool list_too_large(EvalCall *c, int64_t items)
{
    return eval_fail(c, "out of memory: a list of %lld items does not fit (a list holds at most "
                        "%d items, %zu bytes each, within this machine's memory)",
                     (long long)items, RT_LIST_MAX_ITEMS, sizeof(RtValue *));
}

/* a + b for lists and tuples; NULL after the error when it cannot fit. */
static RtValue *sequence_concat(EvalCall *c, RtValue *a, const RtValue *b)
{
    /* A list nothing else sees is extended in place (a tuple never is). */
    bool reuse = a->kind == RT_LIST && a != b && eval_arg_take(c, 0);
    RtValue *out = reuse ? rt_retain(a) : rt_list(a->kind, a->u.list.n, a->u.list.items);
    if (!rt_list_reserve(out, (int64_t)a->u.list.n + b->u.list.n)) {
        list_too_large(c, (int64_t)a->u.list.n + b->u.list.n);
        rt_release(out);
        return NULL;
    }
    for (int i = 0; i < b->u.list.n; i++)
        rt_list_append(out, b->u.list.items[i]);
    return out;
}

static bool unary_number(EvalCall *c, OpId op, const RtValue *x)
{
    bool is_int = is_intlike(x);
    int64_t a = x->u.i;
    double f = rt_number(x);
    switch (op) {
    case OP_ATEN_NEG:
        if (is_int)
            return eval_out_value(c, 0, rt_int((int64_t)(0 - (uint64_t)a)));
        return eval_out_value(c, 0, rt_float(-f));
    case OP_ATEN_ABS:
        if (is_int)
            return eval_out_value(c, 0, rt_int(a < 0 ? (int64_t)(0 - (uint64_t)a) : a));
        return eval_out_value(c, 0, rt_float(fabs(f)));
    case OP_ATEN_INVERT:
    case OP_ATEN_BITWISE_NOT:
        if (!is_int)
            return eval_fail(c, "~ needs an int, got %s", rt_kind_name(x->kind));
        if (x->kind == RT_BOOL)
            return eval_out_value(c, 0, rt_bool(!a));
        return eval_out_value(c, 0, rt_int(~a));
    case OP_ATEN_FLOOR:
    case OP_ATEN_CEIL:
    case OP_ATEN_TRUNC:
        if (is_int)
            return eval_out_value(c, 0, eval_number_for_output(c, 0, f, true, a));
        f = op == OP_ATEN_FLOOR ? floor(f) : op == OP_ATEN_CEIL ? ceil(f) : trunc(f);
        return eval_out_value(c, 0, eval_number_for_output(c, 0, f, false, 0));
    case OP_ATEN_ROUND:
        if (is_int)
            return eval_out_value(c, 0, eval_number_for_output(c, 0, f, true, a));
        return eval_out_value(c, 0, eval_number_for_output(c, 0, nearbyint(f), false, 0));
    default:
        break;
    }
    double r;
    switch (op) {
    case OP_ATEN_EXP: r = exp(f); break;
    case OP_ATEN_LOG: r = log(f); break;
    case OP_ATEN_LOG2: r = log2(f); break;
    case OP_ATEN_LOG1P: r = log1p(f); break;
    case OP_ATEN_EXPM1: r = expm1(f); break;
    case OP_ATEN_SQRT: r = sqrt(f); break;
    case OP_ATEN_SIN: r = sin(f); break;
    case OP_ATEN_COS: r = cos(f); break;
    case OP_ATEN_TAN: r = tan(f); break;
    case OP_ATEN_TANH: r = tanh(f); break;
    case OP_ATEN_ERF: r = erf(f); break;
    case OP_ATEN_ACOS: r = acos(f); break;
    case OP_ATEN_ASIN: r = asin(f); break;
    case OP_ATEN_ATAN: r = atan(f); break;
    case OP_ATEN_SINH: r = sinh(f); break;
    case OP_ATEN_COSH: r = cosh(f); break;
    case OP_ATEN_ASINH: r = asinh(f); break;
    case OP_ATEN_ACOSH: r = acosh(f); break;
    case OP_ATEN_ATANH: r = atanh(f); break;
    case OP_ATEN_ERFC: r = erfc(f); break;
    case OP_ATEN_EXP2: r = exp2(f); break;
    case OP_ATEN_LOG10: r = log10(f); break;
    case OP_ATEN_LGAMMA: r = lgamma(f); break;
    case OP_ATEN_SIGN: r = (f > 0) - (f < 0); break;
    default:
        return eval_fail(c, "not supported on a %s", rt_kind_name(x->kind));
    }
    return eval_out_value(c, 0, eval_number_for_output(c, 0, r, false, 0));
}

bool eval_scalar_op(EvalCall *c)
{
    OpId op = c->node->op;
    if (c->nargs == 1) {
        const RtValue *x = c->args[0];
        if (!rt_is_number(x))
            return eval_fail(c, "not supported on a %s", rt_kind_name(x->kind));
        return unary_number(c, op, x);
    }
    if (c->nargs < 2)
        return eval_nargs(c, 1, 2);
    const RtValue *x = c->args[0], *y = c->args[1];
    if (rt_is_number(x) && rt_is_number(y))
        return number_binary(c, op, x, y);
    if (op == OP_ATEN_EQ || op == OP_ATEN_NE) {
        bool eq = rt_equal(x, y);
        return eval_out_value(c, 0, rt_bool(op == OP_ATEN_EQ ? eq : !eq));
    }
    if (is_comparison(op)) {
        bool ok = true;
        int cmp = value_compare(x, y, &ok);
        if (!ok)
            return eval_fail(c, "cannot order a %s and a %s", rt_kind_name(x->kind),
                            rt_kind_name(y->kind));
        return eval_out_value(c, 0, rt_bool(compare_result(op, cmp)));
    }
    if (op == OP_ATEN_ADD && x->kind == RT_STR && y->kind == RT_STR) {
        TextBuf sb = {0};
        textbuf_printf(&sb, "%s%s", x->u.s, y->u.s);
        RtValue *s = rt_str(textbuf_cstr(&sb));
        textbuf_release(&sb);
        return eval_out_value(c, 0, s);
    }
    if (op == OP_ATEN_ADD && (x->kind == RT_LIST || x->kind == RT_TUPLE) && x->kind == y->kind) {
        RtValue *sum = sequence_concat(c, c->args[0], y);
        return sum && eval_out_value(c, 0, sum);
    }
    if (op == OP_ATEN_MUL && (x->kind == RT_LIST || y->kind == RT_LIST)) {
        const RtValue *list = x->kind == RT_LIST ? x : y, *times = x->kind == RT_LIST ? y : x;
        if (!is_intlike(times))
            return eval_fail(c, "a list can only be repeated an int number of times");
        RtValue *out = rt_list(RT_LIST, 0, NULL);
        int64_t total;
        if (times->u.i > 0 && (!ckd_mul_i64(&total, times->u.i, list->u.list.n) ||
                               !rt_list_reserve(out, total))) {
            rt_release(out);
            return list_too_large(c, ckd_mul_i64(&total, times->u.i, list->u.list.n) ? total : INT64_MAX);
        }
        for (int64_t k = 0; k < times->u.i; k++)
            for (int i = 0; i < list->u.list.n; i++)
                rt_list_append(out, list->u.list.items[i]);
        return eval_out_value(c, 0, out);
    }
    return eval_fail(c, "not supported on %s and %s", rt_kind_name(x->kind), rt_kind_name(y->kind));
}

bool eval_op_floordiv(EvalCall *c)
{
    return eval_nargs(c, 2, 2) && eval_scalar_op(c);
}

/* ---------------------------------------------------------------- containers */

bool eval_op_list_construct(EvalCall *c)
{
    return eval_out_value(c, 0, rt_list(RT_LIST, c->nargs, c->args));
}

bool eval_op_tuple_construct(EvalCall *c)
{
    return eval_out_value(c, 0, rt_list(RT_TUPLE, c->nargs, c->args));
}

static bool unpack(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 1, 1) || !eval_arg_list(c, 0, &list))
        return false;
    if (list->u.list.n != c->nouts)
        return eval_fail(c, "cannot unpack %d values into %d", list->u.list.n, c->nouts);
    for (int i = 0; i < c->nouts; i++)
        eval_out_value(c, i, rt_retain(list->u.list.items[i]));
    return true;
}

bool eval_op_list_unpack(EvalCall *c) { return unpack(c); }
bool eval_op_tuple_unpack(EvalCall *c) { return unpack(c); }

bool eval_op_tuple_index(EvalCall *c)
{
    RtValue *tuple;
    int64_t i;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &tuple) || !eval_arg_int(c, 1, &i))
        return false;
    if (!wrap_index(&i, tuple->u.list.n))
        return eval_fail(c, "tuple index out of range");
    return eval_out_value(c, 0, rt_retain(tuple->u.list.items[i]));
}

bool eval_op_getitem(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_getitem(c);
    int64_t i;
    if (!eval_nargs(c, 2, 2))
        return false;
    if (eval_kind(c, 0) == RT_STR) {
        const char *s = c->args[0]->u.s;
        if (!eval_arg_int(c, 1, &i))
            return false;
        if (!wrap_index(&i, (int64_t)strlen(s)))
            return eval_fail(c, "string index out of range");
        char ch[2] = {s[i], '\0'};
        return eval_out_value(c, 0, rt_str(ch));
    }
    RtValue *list;
    if (!eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &i))
        return false;
    if (!wrap_index(&i, list->u.list.n))
        return eval_fail(c, "list index out of range");
    return eval_out_value(c, 0, rt_retain(list->u.list.items[i]));
}

/* Python's slice.indices(len): a bound counts from the end when negative
 * and is clamped to the sequence (to -1 or len - 1 for a negative step);
 * None means the whole sequence in the step's direction. */
static int64_t slice_bound(bool given, int64_t bound, int64_t len, int64_t step, bool is_start)
{
    if (!given)
        return step > 0 ? (is_start ? 0 : len) : (is_start ? len - 1 : -1);
    if (bound < 0) {
        bound += len;
        if (bound < 0)
            bound = step < 0 ? -1 : 0;
    } else if (bound >= len) {
        bound = step < 0 ? len - 1 : len;
    }
    return bound;
}

static void slice_indices(int64_t len, bool has_start, int64_t start, bool has_end, int64_t end,
                          int64_t step, int64_t *first, int64_t *count)
{
    start = slice_bound(has_start, start, len, step, true);
    end = slice_bound(has_end, end, len, step, false);
    if (step > 0)
        *count = start < end ? (end - start - 1) / step + 1 : 0;
    else
        *count = end < start ? (start - end - 1) / -step + 1 : 0;
    *first = start;
}

bool eval_sequence_slice(EvalCall *c)
{
    /* aten::slice.t(t[] l, int? start=None, int? end=None, int step=1) and
     * aten::slice.str(str string, int? start=None, int? end=None, int step=1) */
    int64_t start = 0, end = 0, step = 1;
    bool has_start, has_end;
    if (!eval_nargs(c, 4, 4) || !eval_arg_int_opt(c, 1, &start, &has_start) ||
        !eval_arg_int_opt(c, 2, &end, &has_end) || !eval_arg_int(c, 3, &step))
        return false;
    if (step == 0)
        return eval_fail(c, "slice step cannot be zero");
    if (step == INT64_MIN)
        return eval_fail(c, "slice step out of range");
    int64_t first, count;
    if (eval_kind(c, 0) == RT_STR) {
        const char *s = c->args[0]->u.s;
        slice_indices((int64_t)strlen(s), has_start, start, has_end, end, step, &first, &count);
        char *out = xmalloc((size_t)count + 1);
        for (int64_t k = 0; k < count; k++)
            out[k] = s[first + k * step];
        out[count] = '\0';
        RtValue *v = rt_str(out);
        free(out);
        return eval_out_value(c, 0, v);
    }
    RtValue *list;
    if (!eval_arg_list(c, 0, &list))
        return false;
    slice_indices(list->u.list.n, has_start, start, has_end, end, step, &first, &count);
    RtValue *out = rt_list(list->kind, 0, NULL);
    for (int64_t k = 0; k < count; k++)
        rt_list_append(out, list->u.list.items[first + k * step]);
    return eval_out_value(c, 0, out);
}

bool eval_op_len(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_len(c);
    if (!eval_nargs(c, 1, 1))
        return false;
    switch (eval_kind(c, 0)) {
    case RT_STR:
        return eval_out_value(c, 0, rt_int((int64_t)strlen(c->args[0]->u.s)));
    case RT_LIST:
    case RT_TUPLE:
        return eval_out_value(c, 0, rt_int(c->args[0]->u.list.n));
    case RT_TENSOR: {
        const Tensor *t = c->args[0]->u.t;
        if (t->ndim == 0)
            return eval_fail(c, "len() of a 0-d tensor");
        return eval_out_value(c, 0, rt_int(t->sizes[0]));
    }
    default:
        return eval_fail(c, "len() of a %s", rt_kind_name(eval_kind(c, 0)));
    }
}

bool eval_op_append(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list))
        return false;
    if (!rt_list_reserve(list, (int64_t)list->u.list.n + 1))
        return list_too_large(c, (int64_t)list->u.list.n + 1);
    rt_list_append(list, c->args[1]);
    return eval_out_arg(c, 0, 0);
}

/* aten::_set_item(t[] l, int idx, t el) -> t[]: l[idx] = el, in place. */
bool eval_op_set_item(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_set_item(c);
    RtValue *list;
    int64_t i;
    if (!eval_nargs(c, 3, 3) || !eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &i))
        return false;
    if (list->kind != RT_LIST)
        return eval_fail(c, "'tuple' object does not support item assignment");
    if (!wrap_index(&i, list->u.list.n))
        return eval_fail(c, "list index out of range");
    RtValue *old = list->u.list.items[i];
    list->u.list.items[i] = rt_retain(c->args[2]);
    rt_release(old);
    return eval_out_arg(c, 0, 0);
}

/* immut::list_set_item(t[] l, int idx, t el) -> t[]: a copy of l with item
 * idx replaced by el (TensorSSA's form of aten::_set_item, with its index
 * rules and messages); l itself is unchanged. */
bool eval_op_list_set_item(EvalCall *c)
{
    RtValue *list;
    int64_t i;
    if (!eval_nargs(c, 3, 3) || !eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &i))
        return false;
    if (list->kind != RT_LIST)
        return eval_fail(c, "'tuple' object does not support item assignment");
    if (!wrap_index(&i, list->u.list.n))
        return eval_fail(c, "list index out of range");
    /* In place when the caller owns the list (node_exec_node_in_place: a
     * loop's Stack writing into the one copy it made). */
    RtValue *copy = c->run->write_in_place || eval_arg_take(c, 0)
                        ? rt_retain(list)
                        : rt_list(RT_LIST, list->u.list.n, list->u.list.items);
    RtValue *old = copy->u.list.items[i];
    copy->u.list.items[i] = rt_retain(c->args[2]);
    rt_release(old);
    return eval_out_value(c, 0, copy);
}

/* aten::extend(t[] self, t[] other): appends other's items, in place. */
bool eval_op_extend(EvalCall *c)
{
    RtValue *list, *other;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list) || !eval_arg_list(c, 1, &other))
        return false;
    int n = other->u.list.n; /* l.extend(l) appends the original items once */
    if (!rt_list_reserve(list, (int64_t)list->u.list.n + n))
        return list_too_large(c, (int64_t)list->u.list.n + n);
    for (int i = 0; i < n; i++)
        rt_list_append(list, other->u.list.items[i]);
    return true;
}

/* A new version of list argument 0 for a TensorSSA list write (immut::
 * list_*): the list itself when the caller holds it alone (eval_arg_owned:
 * the old version is dead, so an insert or pop at the end in a loop stays
 * O(1)), else a copy of its item references, as Python's list copies are. */
static RtValue *list_version(EvalCall *c, RtValue *list)
{
    return eval_arg_take(c, 0) ? rt_retain(list) : rt_list(RT_LIST, list->u.list.n, list->u.list.items);
}

/* Python's list.insert(i, el) on list (the index is clamped to the list). */
static bool list_insert_at(EvalCall *c, RtValue *list, int64_t i, RtValue *el)
{
    int64_t n = list->u.list.n;
    if (i < 0)
        i = i + n < 0 ? 0 : i + n;
    if (i > n)
        i = n;
    if (!rt_list_reserve(list, n + 1))
        return list_too_large(c, n + 1);
    rt_list_append(list, el); /* grows the list; the item moves below */
    RtValue **items = list->u.list.items;
    memmove(items + i + 1, items + i, (size_t)(n - i) * sizeof *items);
    items[i] = el;
    return true;
}

/* aten::insert(t[] self, int idx, t el): list.insert, in place. */
bool eval_op_insert(EvalCall *c)
{
    RtValue *list;
    int64_t i;
    if (!eval_nargs(c, 3, 3) || !eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &i))
        return false;
    return list_insert_at(c, list, i, c->args[2]);
}

/* immut::list_insert(t[] l, int idx, t el) -> t[]: a copy of l with el
 * inserted as list.insert does (TensorSSA's form of aten::insert). */
bool eval_op_list_insert(EvalCall *c)
{
    RtValue *list;
    int64_t i;
    if (!eval_nargs(c, 3, 3) || !eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &i))
        return false;
    RtValue *copy = list_version(c, list);
    if (!list_insert_at(c, copy, i, c->args[2])) {
        rt_release(copy);
        return false;
    }
    return eval_out_value(c, 0, copy);
}

/* pop's arguments (t[] self, int idx=-1): the list and the wrapped index,
 * with TorchScript's messages (an empty list is its own error; an index
 * out of range is __getitem__'s). */
static bool pop_args(EvalCall *c, RtValue **list, int64_t *i)
{
    *i = -1;
    if (!eval_nargs(c, 1, 2) || !eval_arg_list(c, 0, list) || (c->nargs > 1 && !eval_arg_int(c, 1, i)))
        return false;
    if ((*list)->u.list.n == 0)
        return eval_fail(c, "pop from empty list");
    if (!wrap_index(i, (*list)->u.list.n))
        return eval_fail(c, "list index out of range");
    return true;
}

/* Removes item i (in range) from list; the list's reference to it moves to
 * the caller. */
static RtValue *list_take_at(RtValue *list, int64_t i)
{
    RtValue *item = list->u.list.items[i];
    memmove(list->u.list.items + i, list->u.list.items + i + 1,
            (size_t)(list->u.list.n - i - 1) * sizeof item);
    list->u.list.n--;
    return item;
}

/* aten::pop(t[] self, int idx=-1) -> t: removes and returns the item. */
bool eval_op_pop(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_pop(c);
    RtValue *list;
    int64_t i;
    return pop_args(c, &list, &i) && eval_out_value(c, 0, list_take_at(list, i));
}

/* immut::list_pop(t[] l, int idx=-1) -> (t[], t): a copy of l without item
 * idx, and that item (TensorSSA's form of aten::pop, with its errors). */
bool eval_op_list_pop(EvalCall *c)
{
    RtValue *list;
    int64_t i;
    if (!pop_args(c, &list, &i))
        return false;
    RtValue *copy = list_version(c, list);
    RtValue *item = list_take_at(copy, i);
    bool ok = eval_out_value(c, 0, copy);   /* each takes its value, even when the other fails */
    return eval_out_value(c, 1, item) && ok;
}

/* del l[idx]'s arguments (t[] self, int idx): the wrapped index, with
 * TorchScript's messages (an empty list says "pop index out of range"). */
static bool delete_index(EvalCall *c, RtValue **list, int64_t *i)
{
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, list) || !eval_arg_int(c, 1, i))
        return false;
    if ((*list)->u.list.n == 0)
        return eval_fail(c, "pop index out of range");
    if (!wrap_index(i, (*list)->u.list.n))
        return eval_fail(c, "list index out of range");
    return true;
}

/* aten::Delete(t[] self, int idx) (del l[idx]) or (Dict self, key)
 * (del d[key]), in place. */
bool eval_op_delete(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_delete(c);
    RtValue *list;
    int64_t i;
    if (!delete_index(c, &list, &i))
        return false;
    rt_release(list_take_at(list, i));
    return true;
}

/* immut::list_delete(t[] l, int idx) -> t[]: a copy of l without item idx
 * (TensorSSA's form of del l[idx], with its errors). */
bool eval_op_list_delete(EvalCall *c)
{
    RtValue *list;
    int64_t i;
    if (!delete_index(c, &list, &i))
        return false;
    RtValue *copy = list_version(c, list);
    rt_release(list_take_at(copy, i));
    return eval_out_value(c, 0, copy);
}

/* l *= times (aten::mul_ on a list): list * int, in place (times <= 0
 * empties it). */
bool eval_list_repeat_in_place(EvalCall *c)
{
    RtValue *list;
    int64_t times;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list) || !eval_arg_int(c, 1, &times))
        return false;
    int64_t n = list->u.list.n;
    if (times <= 0 || n == 0) {
        while (list->u.list.n > 0)
            rt_release(list->u.list.items[--list->u.list.n]);
        return eval_out_arg(c, 0, 0);
    }
    if (times > RT_LIST_MAX_ITEMS / n || !rt_list_reserve(list, n * times))
        return list_too_large(c, times > RT_LIST_MAX_ITEMS / n ? INT64_MAX : n * times);
    for (int64_t r = 1; r < times; r++)
        for (int64_t i = 0; i < n; i++)
            rt_list_append(list, list->u.list.items[i]);
    return eval_out_arg(c, 0, 0);
}

/* The index of the first item of list equal to el (list.remove's), or -1
 * after the error. */
static int list_remove_index(EvalCall *c, const RtValue *list, const RtValue *el)
{
    for (int i = 0; i < list->u.list.n; i++)
        if (rt_equal(list->u.list.items[i], el))
            return i;
    eval_fail(c, "list.remove(x): x not in list");
    return -1;
}

/* aten::remove(t[] self, t el): list.remove(x), the first equal item. */
bool eval_op_remove(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list))
        return false;
    int i = list_remove_index(c, list, c->args[1]);
    if (i < 0)
        return false;
    rt_release(list_take_at(list, i));
    return true;
}

/* immut::list_remove(t[] l, t el) -> t[]: a copy of l without its first
 * item equal to el (TensorSSA's form of aten::remove, with its error). */
bool eval_op_list_remove(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list))
        return false;
    int i = list_remove_index(c, list, c->args[1]);
    if (i < 0)
        return false;
    RtValue *copy = list_version(c, list);
    rt_release(list_take_at(copy, i));
    return eval_out_value(c, 0, copy);
}

/* aten::reverse(t[] self): Python's list.reverse(), in place. */
bool eval_op_reverse(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 1, 1) || !eval_arg_list(c, 0, &list))
        return false;
    RtValue **items = list->u.list.items;
    for (int i = 0, j = list->u.list.n - 1; i < j; i++, j--) {
        RtValue *t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
    return true;
}

bool eval_op_list(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (eval_kind(c, 0) == RT_STR) {
        RtValue *out = rt_list(RT_LIST, 0, NULL);
        for (const char *p = c->args[0]->u.s; *p; p++) {
            char ch[2] = {*p, '\0'};
            RtValue *item = rt_str(ch);
            rt_list_append(out, item);
            rt_release(item);
        }
        return eval_out_value(c, 0, out);
    }
    RtValue *list;
    if (!eval_arg_list(c, 0, &list))
        return false;
    return eval_out_value(c, 0, rt_list(RT_LIST, list->u.list.n, list->u.list.items));
}

bool eval_op_contains(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_contains(c);
    if (!eval_nargs(c, 2, 2))
        return false;
    if (eval_kind(c, 0) == RT_STR) {
        const char *needle;
        if (!eval_arg_str(c, 1, &needle))
            return false;
        return eval_out_value(c, 0, rt_bool(strstr(c->args[0]->u.s, needle) != NULL));
    }
    RtValue *list;
    if (!eval_arg_list(c, 0, &list))
        return false;
    bool found = false;
    for (int i = 0; i < list->u.list.n && !found; i++)
        found = rt_equal(list->u.list.items[i], c->args[1]);
    return eval_out_value(c, 0, rt_bool(found));
}

/* aten::count(t[] self, t el) -> int: list.count(x). */
bool eval_op_count(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list))
        return false;
    int64_t n = 0;
    for (int i = 0; i < list->u.list.n; i++)
        n += rt_equal(list->u.list.items[i], c->args[1]);
    return eval_out_value(c, 0, rt_int(n));
}

/* aten::clear(t[] self): list.clear(). */
bool eval_op_clear(EvalCall *c)
{
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_DICT)
        return eval_dict_clear(c);
    RtValue *list;
    if (!eval_nargs(c, 1, 1) || !eval_arg_list(c, 0, &list))
        return false;
    while (list->u.list.n > 0)
        rt_release(list->u.list.items[--list->u.list.n]);
    return true;
}

/* aten::index.list(t[] self, t el) -> int: list.index(x). */
bool eval_list_index_of(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 2, 2) || !eval_arg_list(c, 0, &list))
        return false;
    for (int i = 0; i < list->u.list.n; i++)
        if (rt_equal(list->u.list.items[i], c->args[1]))
            return eval_out_value(c, 0, rt_int(i));
    return eval_fail(c, "'list.index(x)': x not in list");
}

/* sum(), all(), any() of a list. */
bool eval_list_reduce(EvalCall *c)
{
    RtValue *list;
    if (!eval_nargs(c, 1, 1) || !eval_arg_list(c, 0, &list))
        return false;
    OpId op = c->node->op;
    if (op == OP_ATEN_ALL || op == OP_ATEN_ANY) {
        bool all = true, any = false;
        for (int i = 0; i < list->u.list.n; i++) {
            const RtValue *v = list->u.list.items[i];
            bool truth = rt_is_number(v) ? rt_number(v) != 0 : v->kind != RT_NONE;
            all = all && truth;
            any = any || truth;
        }
        return eval_out_value(c, 0, rt_bool(op == OP_ATEN_ALL ? all : any));
    }
    if (op != OP_ATEN_SUM)
        return eval_fail(c, "not supported on a list");
    bool ints = true;
    uint64_t isum = 0;
    double fsum = 0;
    for (int i = 0; i < list->u.list.n; i++) {
        const RtValue *v = list->u.list.items[i];
        if (!rt_is_number(v))
            return eval_fail(c, "sum() of a list holding a %s", rt_kind_name(v->kind));
        ints = ints && is_intlike(v);
        isum += (uint64_t)v->u.i;
        fsum += rt_number(v);
    }
    return eval_out_value(c, 0, eval_number_for_output(c, 0, fsum, ints, (int64_t)isum));
}

/* prim::min / prim::max: of two numbers, or of a list. */
static bool min_max(EvalCall *c, bool want_max)
{
    const RtValue *best = NULL;
    RtValue *const *items;
    int n;
    if (c->nargs == 1) {
        RtValue *list;
        if (!eval_arg_list(c, 0, &list))
            return false;
        items = list->u.list.items;
        n = list->u.list.n;
        if (n == 0)
            return eval_fail(c, "%s() arg is an empty sequence", want_max ? "max" : "min");
    } else if (c->nargs == 2) {
        items = c->args;
        n = 2;
    } else {
        return eval_nargs(c, 1, 2);
    }
    bool ints = true;
    for (int i = 0; i < n; i++) {
        const RtValue *v = items[i];
        bool ok = true;
        if (best) {
            int cmp = value_compare(v, best, &ok);
            if (ok && (want_max ? cmp > 0 : cmp < 0))
                best = v;
        } else {
            best = v;
        }
        if (!ok)
            return eval_fail(c, "cannot compare a %s and a %s", rt_kind_name(v->kind),
                            rt_kind_name(best->kind));
        ints = ints && is_intlike(v);
    }
    if (!rt_is_number(best))
        return eval_out_value(c, 0, rt_retain((RtValue *)best));
    return eval_out_value(c, 0, eval_number_for_output(c, 0, rt_number(best), ints, best->u.i));
}

bool eval_op_prim_min(EvalCall *c) { return min_max(c, false); }
bool eval_op_prim_max(EvalCall *c) { return min_max(c, true); }

bool eval_op_prim_abs(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (eval_is_tensor(c, 0))
        return eval_out_tensor(c, 0, tensor_unary(UN_ABS, c->args[0]->u.t, 0, 0));
    if (!rt_is_number(c->args[0]))
        return eval_fail(c, "abs() of a %s", rt_kind_name(eval_kind(c, 0)));
    return unary_number(c, OP_ATEN_ABS, c->args[0]);
}

/* ---------------------------------------------------------------- None and bools */

static bool value_is(const RtValue *a, const RtValue *b)
{
    if (a->kind == RT_NONE || b->kind == RT_NONE)
        return a->kind == b->kind;
    if (a->kind == RT_TENSOR && b->kind == RT_TENSOR)
        return a->u.t == b->u.t;
    if (rt_is_number(a) && a->kind == b->kind)
        return rt_equal(a, b);
    return a == b;
}

bool eval_op_is(EvalCall *c)
{
    return eval_nargs(c, 2, 2) && eval_out_value(c, 0, rt_bool(value_is(c->args[0], c->args[1])));
}

bool eval_op_isnot(EvalCall *c)
{
    return eval_nargs(c, 2, 2) && eval_out_value(c, 0, rt_bool(!value_is(c->args[0], c->args[1])));
}

bool eval_op_not(EvalCall *c)
{
    bool b;
    return eval_nargs(c, 1, 1) && eval_arg_bool(c, 0, &b) && eval_out_value(c, 0, rt_bool(!b));
}

/* ---------------------------------------------------------------- conversions */

bool eval_op_int(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    const RtValue *v = c->args[0];
    int64_t out = 0;
    switch (v->kind) {
    case RT_INT:
    case RT_BOOL:
        return eval_out_value(c, 0, rt_int(v->u.i));
    case RT_FLOAT:
        return double_to_int(c, v->u.f, &out) && eval_out_value(c, 0, rt_int(out));
    case RT_TENSOR:
        if (!one_element(c, v->u.t))
            return false;
        if (dtype_is_float(v->u.t->dtype))
            return double_to_int(c, tensor_item(v->u.t), &out) && eval_out_value(c, 0, rt_int(out));
        return eval_out_value(c, 0, rt_int(tensor_item_int(v->u.t)));
    case RT_STR: {
        char *end;
        errno = 0;
        long long parsed = strtoll(v->u.s, &end, 10);
        if (end == v->u.s || *end || errno)
            return eval_fail(c, "invalid literal for int() with base 10: '%s'", v->u.s);
        return eval_out_value(c, 0, rt_int(parsed));
    }
    default:
        return eval_fail(c, "int() of a %s", rt_kind_name(v->kind));
    }
}

bool eval_op_float_scalar(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    const RtValue *v = c->args[0];
    switch (v->kind) {
    case RT_INT:
    case RT_BOOL:
    case RT_FLOAT:
        return eval_out_value(c, 0, rt_float(rt_number(v)));
    case RT_TENSOR:
        return one_element(c, v->u.t) && eval_out_value(c, 0, rt_float(tensor_item(v->u.t)));
    case RT_STR: {
        char *end;
        double parsed = strtod(v->u.s, &end);
        if (end == v->u.s || *end)
            return eval_fail(c, "could not convert string to float: '%s'", v->u.s);
        return eval_out_value(c, 0, rt_float(parsed));
    }
    default:
        return eval_fail(c, "float() of a %s", rt_kind_name(v->kind));
    }
}

bool eval_op_bool_scalar(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    const RtValue *v = c->args[0];
    if (rt_is_number(v))
        return eval_out_value(c, 0, rt_bool(rt_number(v) != 0));
    if (v->kind == RT_TENSOR) {
        if (tensor_numel(v->u.t) != 1)
            return eval_fail(c, "Boolean value of Tensor with more than one value is ambiguous");
        return eval_out_value(c, 0, rt_bool(tensor_item(v->u.t) != 0));
    }
    if (v->kind == RT_STR)
        return eval_out_value(c, 0, rt_bool(v->u.s[0] != '\0'));
    return eval_fail(c, "bool() of a %s", rt_kind_name(v->kind));
}

/* aten::ScalarImplicit / IntImplicit / FloatImplicit: a 0-d tensor used
 * where a number is expected. */
static bool implicit_scalar(EvalCall *c, RtKind want)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1))
        return false;
    if (rt_is_number(c->args[0]))
        return eval_out_value(c, 0, rt_retain(c->args[0]));
    if (!eval_arg_tensor(c, 0, &t))
        return false;
    if (t->ndim != 0)
        return eval_fail(c, "Cannot input a tensor of dimension other than 0 as a scalar argument");
    if (want == RT_INT) {
        if (!dtype_is_integral(t->dtype))
            return eval_fail(c, "Cannot input a tensor of type %s as an integral argument",
                            dtype_ts_name(t->dtype));
        return eval_out_value(c, 0, rt_int(tensor_item_int(t)));
    }
    if (want == RT_FLOAT)
        return eval_out_value(c, 0, rt_float(tensor_item(t)));
    return eval_out_value(c, 0, tensor_to_number(t));
}

bool eval_op_scalar_implicit(EvalCall *c) { return implicit_scalar(c, RT_NONE); }
bool eval_op_int_implicit(EvalCall *c) { return implicit_scalar(c, RT_INT); }
bool eval_op_float_implicit(EvalCall *c) { return implicit_scalar(c, RT_FLOAT); }

bool eval_op_item(EvalCall *c)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &t) || !one_element(c, t))
        return false;
    return eval_out_value(c, 0, tensor_to_number(t));
}

/* The elements of t from flat index *at on, nested dims deep (the dims
 * of t from its ndim - dims), as Tensor.tolist() builds them: ints, floats
 * (double) or bools by kind. */
static RtValue *nested_list(const Tensor *t, int dims, RtKind kind, int64_t *at)
{
    if (dims == 0) {
        int64_t i = (*at)++;
        if (kind == RT_INT)
            return rt_int(tensor_get_flat_int(t, i));
        if (kind == RT_BOOL)
            return rt_bool(tensor_get_flat_int(t, i) != 0);
        return rt_float(tensor_get_flat(t, i));
    }
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int64_t k = 0; k < t->sizes[t->ndim - dims]; k++) {
        RtValue *item = nested_list(t, dims - 1, kind, at);
        rt_list_append(list, item);
        rt_release(item);
    }
    return list;
}

/* prim::tolist(Tensor self, int dim, int elem_type): TorchScript's
 * Tensor.tolist() under its annotation, dim nested lists (dim 0: the number
 * itself) of elem_type 0 int, 1 float, 2 bool. PyTorch's op checks both
 * against the tensor at run time: a float annotation takes any floating
 * dtype (the elements become doubles), int wants int64 and bool bool. */
bool eval_op_tolist(EvalCall *c)
{
    Tensor *t;
    int64_t dim, elem_type;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor(c, 0, &t) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_int(c, 2, &elem_type))
        return false;
    static const RtKind kinds[] = {RT_INT, RT_FLOAT, RT_BOOL};
    if (elem_type < 0 || elem_type > 2)
        return eval_fail(c, "Unsupported element type for tolist; only int, float and bool are supported");
    RtKind kind = kinds[elem_type];
    bool matches = kind == RT_FLOAT ? dtype_is_float(t->dtype)
                   : kind == RT_INT ? t->dtype == DT_I64 : t->dtype == DT_BOOL;
    if (!matches)
        return eval_fail(c, "Output annotation element type and runtime tensor element type must match for "
                            "tolist()");
    if (dim != t->ndim)
        return eval_fail(c, "Output annotation list dimension and runtime tensor dimension must match for "
                            "tolist()");
    int64_t at = 0;
    return eval_out_value(c, 0, nested_list(t, (int)dim, kind, &at));
}

bool eval_op_num_to_tensor(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    const RtValue *v = c->args[0];
    if (v->kind == RT_TENSOR)
        return eval_out_arg(c, 0, 0);
    switch (v->kind) {
    case RT_INT: return eval_out_tensor(c, 0, tensor_scalar_int(DT_I64, v->u.i));
    case RT_BOOL: return eval_out_tensor(c, 0, tensor_scalar_int(DT_BOOL, v->u.i));
    case RT_FLOAT: return eval_out_tensor(c, 0, tensor_scalar(DT_F64, v->u.f));
    default: return eval_fail(c, "NumToTensor of a %s", rt_kind_name(v->kind));
    }
}

/* ---------------------------------------------------------------- tensor queries */

static RtValue *int_list(int n, const int64_t *v)
{
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int i = 0; i < n; i++) {
        RtValue *item = rt_int(v[i]);
        rt_list_append(list, item);
        rt_release(item);
    }
    return list;
}

bool eval_op_size(EvalCall *c)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &t))
        return false;
    if (c->nargs == 1)
        return eval_out_value(c, 0, int_list(t->ndim, t->sizes));
    int64_t dim;
    if (!eval_arg_int(c, 1, &dim))
        return false;
    /* A 0-d tensor has no size to give (PyTorch: "dimension specified as 0
     * but tensor has no dimensions"), though tensor_wrap_dim takes 0 and -1
     * for it as a reduction's dim. */
    if (t->ndim == 0)
        return eval_fail(c, "dimension specified as %" PRId64 " but tensor has no dimensions", dim);
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return eval_fail_kernel(c, "dimension out of range");
    return eval_out_value(c, 0, rt_int(t->sizes[d]));
}

bool eval_op_shape(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_value(c, 0, int_list(t->ndim, t->sizes));
}

bool eval_op_dim(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_value(c, 0, rt_int(t->ndim));
}

/* aten::is_floating_point(Tensor self) -> bool */
bool eval_op_is_floating_point(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_value(c, 0, rt_bool(dtype_is_float(t->dtype)));
}

bool eval_op_numel(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_value(c, 0, rt_int(tensor_numel(t)));
}

bool eval_op_dtype(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_value(c, 0, rt_int(dtype_to_scalar_type(t->dtype)));
}

/* The ref backend keeps every tensor in host memory. */
bool eval_op_device(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_value(c, 0, rt_device("cpu"));
}

/* prim::type(Device self) -> str: a device's type, the text before its
 * index ("cuda" of "cuda:1"), as `tensor.device.type` reads it. */
bool eval_op_device_type(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (eval_kind(c, 0) != RT_DEVICE)
        return eval_fail(c, "prim::type expects a Device, got %s", rt_kind_name(c->args[0]->kind));
    const char *name = c->args[0]->u.s;
    size_t len = strcspn(name, ":");
    char type[32];
    if (len >= sizeof type)
        return eval_fail(c, "device name '%s' is too long", name);
    memcpy(type, name, len);
    type[len] = '\0';
    return eval_out_value(c, 0, rt_str(type));
}

bool eval_op_layout(EvalCall *c)
{
    Tensor *t; /* torch.strided is Layout 0 */
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_value(c, 0, rt_int(0));
}

bool eval_op_false_query(EvalCall *c)
{
    Tensor *t; /* requires_grad, is_cuda: inference on the host */
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_value(c, 0, rt_bool(false));
}

/* torch.is_grad_enabled(), torch.is_autocast_enabled(): tssa-stream runs
 * inference only, as export.py's eager run under torch.no_grad() did (the
 * fast paths of nn.MultiheadAttention and nn.TransformerEncoderLayer ask). */
bool eval_op_false_flag(EvalCall *c)
{
    return eval_nargs(c, 0, 0) && eval_out_value(c, 0, rt_bool(false));
}

bool eval_op_unchecked_cast(EvalCall *c)
{
    return eval_nargs(c, 1, 1) && eval_out_arg(c, 0, 0);
}

bool eval_op_data(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_tensor(c, 0, tensor_alias(t));
}

bool eval_op_uninitialized(EvalCall *c)
{
    return eval_nargs(c, 0, 0) && eval_out_value(c, 0, rt_uninit());
}

/* ---------------------------------------------------------------- strings */

bool eval_op_str(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    rt_format_str(&sb, c->args[0]);
    RtValue *s = rt_str(textbuf_cstr(&sb));
    textbuf_release(&sb);
    return eval_out_value(c, 0, s);
}

/* aten::format(str self, ...): each "{}" takes the next argument's str(). */
bool eval_op_format(EvalCall *c)
{
    const char *fmt;
    if (c->nargs < 1 || !eval_arg_str(c, 0, &fmt))
        return false;
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    int used = 1;
    for (const char *p = fmt;;) {
        const char *hole = strstr(p, "{}");
        if (!hole) {
            textbuf_puts(&sb, p);
            break;
        }
        textbuf_printf(&sb, "%.*s", (int)(hole - p), p);
        if (used >= c->nargs) {
            textbuf_release(&sb);
            return eval_fail(c, "Too few arguments for format string: %s", fmt);
        }
        rt_format_str(&sb, c->args[used++]);
        p = hole + 2;
    }
    RtValue *s = rt_str(textbuf_cstr(&sb));
    textbuf_release(&sb);
    return eval_out_value(c, 0, s);
}

/* aten::percentFormat(str self, ...): Python's `"..." % args` as
 * TorchScript runs it (register_prim_ops.cpp's percentFormat): the second
 * argument is the tuple of values, or the one value; %d and %i print an
 * int (a float truncated), %f and %e a number as C's printf does, %c the
 * character of an int, %s the value's str(), %% a percent sign. Every value
 * must be used. */
bool eval_op_percent_format(EvalCall *c)
{
    const char *fmt;
    if (!eval_nargs(c, 2, 2) || !eval_arg_str(c, 0, &fmt))
        return false;
    const RtValue *args = c->args[1];
    bool tuple = args->kind == RT_TUPLE;
    int nvalues = tuple ? args->u.list.n : 1;
    int used = 0;
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    for (const char *p = fmt;;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            textbuf_puts(&sb, p);
            break;
        }
        textbuf_printf(&sb, "%.*s", (int)(pct - p), p);
        char key = pct[1];
        p = pct + 2;
        if (key == '\0') {
            textbuf_release(&sb);
            return eval_fail(c, "Incomplete format specifier");
        }
        if (key == '%') {
            textbuf_puts(&sb, "%");
            continue;
        }
        if (used >= nvalues) {
            textbuf_release(&sb);
            return eval_fail(c, "Too few arguments for format string");
        }
        const RtValue *v = tuple ? args->u.list.items[used] : args;
        used++;
        bool number = v->kind == RT_INT || v->kind == RT_FLOAT || v->kind == RT_BOOL;
        switch (key) {
        case 'd':
        case 'i':
        case 'f':
        case 'e':
        case 'c':
            if (!number) {
                textbuf_release(&sb);
                return eval_fail(c, "%%%c requires a number for formatting, but got %s", key,
                                 rt_kind_name(v->kind));
            }
            if (key == 'd' || key == 'i')
                textbuf_printf(&sb, "%lld", (long long)(v->kind == RT_FLOAT ? (int64_t)v->u.f : v->u.i));
            else if (key == 'c')
                textbuf_printf(&sb, "%c", (char)(v->kind == RT_FLOAT ? (int64_t)v->u.f : v->u.i));
            else
                textbuf_printf(&sb, key == 'f' ? "%f" : "%e",
                               v->kind == RT_FLOAT ? v->u.f : (double)v->u.i);
            break;
        case 's':
            rt_format_str(&sb, v);
            break;
        default:
            textbuf_release(&sb);
            return eval_fail(c, "The specifier %%%c is not supported in TorchScript format strings",
                             key);
        }
    }
    if (used != nvalues) {
        textbuf_release(&sb);
        return eval_fail(c, "Too many arguments for format string");
    }
    RtValue *s = rt_str(textbuf_cstr(&sb));
    textbuf_release(&sb);
    return eval_out_value(c, 0, s);
}

/* prim::Print: str() of each argument, space separated, on stdout. */
bool eval_op_print(EvalCall *c)
{
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    for (int i = 0; i < c->nargs; i++) {
        if (i)
            textbuf_puts(&sb, " ");
        rt_format_str(&sb, c->args[i]);
    }
    printf("%s\n", textbuf_cstr(&sb));
    textbuf_release(&sb);
    return true;
}

bool eval_op_warn(EvalCall *c)
{
    const char *msg;
    if (c->nargs < 1 || !eval_arg_str(c, 0, &msg))
        return false;
    if (c->run->err)
        fprintf(c->run->err, "warning: %s\n", msg);
    return true;
}

/* prim::RaiseException(str msg, str? cls): the message becomes the error. */
bool eval_op_raise_exception(EvalCall *c)
{
    if (c->nargs < 1)
        return eval_fail(c, "exception raised");
    if (eval_kind(c, 0) == RT_STR)
        return eval_fail(c, "%s", c->args[0]->u.s);
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    rt_format_str(&sb, c->args[0]);
    eval_fail(c, "%s", textbuf_cstr(&sb));
    textbuf_release(&sb);
    return false;
}

/* ---------------------------------------------------------------- ranges */

bool eval_op_range_length(EvalCall *c)
{
    int64_t lo, hi, step;
    if (!eval_nargs(c, 3, 3) || !eval_arg_int(c, 0, &lo) || !eval_arg_int(c, 1, &hi) ||
        !eval_arg_int(c, 2, &step))
        return false;
    if (step == 0)
        return eval_fail(c, "range() arg 3 must not be zero");
    uint64_t n = 0;
    if (step > 0 && lo < hi)
        n = ((uint64_t)hi - (uint64_t)lo - 1) / (uint64_t)step + 1;
    else if (step < 0 && lo > hi)
        n = ((uint64_t)lo - (uint64_t)hi - 1) / (0 - (uint64_t)step) + 1;
    return eval_out_value(c, 0, rt_int((int64_t)n));
}

bool eval_op_derive_index(EvalCall *c)
{
    int64_t index, start, step;
    if (!eval_nargs(c, 3, 3) || !eval_arg_int(c, 0, &index) || !eval_arg_int(c, 1, &start) ||
        !eval_arg_int(c, 2, &step))
        return false;
    return eval_out_value(c, 0,
                         rt_int((int64_t)((uint64_t)start + (uint64_t)index * (uint64_t)step)));
}
