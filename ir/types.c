/* types.c — TorchScript types: construction, equality and printing.
 *
 * Types are values: once made they are not changed, and one IrType may be
 * shared by many IrValues (the parser hands the same object to every value
 * whose type text is identical). A pass that needs a different type makes a
 * new one instead of editing v->type in place.
 *
 * Printing follows torch/csrc/jit's operator<<(Type): refined tensor types
 * as Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu), lists as
 * T[], optionals as T?, tuples as (A, B), and Dict(K, V), Union(...),
 * Future(T) with their TorchScript names (torch 1.13 prints Future[T]; a
 * parsed type keeps the spelling it came with, in IrType.name).
 */
#include <string.h>

#include "tssa/ir.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

static IrType *type_new(IrGraph *g, IrTypeKind kind)
{
    IrType *t = arena_alloc(g->arena, sizeof *t);
    t->kind = kind;
    if (kind == TY_TENSOR) {
        t->tensor.dtype = -1;
        t->tensor.rank = -1;
        t->tensor.requires_grad = -1;
        t->tensor.undefined_shape = true;
    }
    return t;
}

IrType *ir_type_simple(IrGraph *g, IrTypeKind kind)
{
    return type_new(g, kind);
}

IrType *ir_type_tensor(IrGraph *g)
{
    return type_new(g, TY_TENSOR);
}

static IrType *type_with_elems(IrGraph *g, IrTypeKind kind, int n, IrType **elems)
{
    IrType *t = type_new(g, kind);
    t->nelems = n;
    t->elems = arena_alloc(g->arena, sizeof *t->elems * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        t->elems[i] = elems[i];
    return t;
}

IrType *ir_type_tensor_refined(IrGraph *g, int dtype, int rank, const int64_t *sizes,
                               const int64_t *strides)
{
    IrType *t = type_new(g, TY_TENSOR);
    t->tensor.dtype = dtype;
    t->tensor.scalar = dtype >= 0 ? dtype_ts_name((TensorDType)dtype) : NULL;
    t->tensor.undefined_shape = rank < 0;
    t->tensor.rank = rank;
    if (rank >= 0) {
        size_t bytes = sizeof(int64_t) * (size_t)(rank > 0 ? rank : 1);
        t->tensor.sizes = arena_alloc(g->arena, bytes);
        memcpy(t->tensor.sizes, sizes, sizeof(int64_t) * (size_t)rank);
        if (strides) {
            t->tensor.strides = arena_alloc(g->arena, bytes);
            memcpy(t->tensor.strides, strides, sizeof(int64_t) * (size_t)rank);
        }
    }
    return t;
}

IrType *ir_type_list(IrGraph *g, IrType *elem)
{
    return type_with_elems(g, TY_LIST, 1, &elem);
}

IrType *ir_type_optional(IrGraph *g, IrType *elem)
{
    return type_with_elems(g, TY_OPTIONAL, 1, &elem);
}

IrType *ir_type_tuple(IrGraph *g, int n, IrType **elems)
{
    return type_with_elems(g, TY_TUPLE, n, elems);
}

static bool str_equal(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool dims_equal(const int64_t *a, const int64_t *b, int rank)
{
    if (!a || !b)
        return a == b;
    for (int i = 0; i < rank; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

bool ir_type_equal(const IrType *a, const IrType *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || a->nelems != b->nelems)
        return false;
    if (a->kind == TY_TENSOR) {
        const IrTensorType *x = &a->tensor, *y = &b->tensor;
        if (!str_equal(x->scalar, y->scalar) || x->rank != y->rank ||
            x->requires_grad != y->requires_grad || !str_equal(x->device, y->device))
            return false;
        if (x->rank > 0 && (!dims_equal(x->sizes, y->sizes, x->rank) ||
                            !dims_equal(x->strides, y->strides, x->rank)))
            return false;
    }
    if (a->kind == TY_CLASS || a->kind == TY_OTHER || a->kind == TY_NUMBER) {
        /* NUMBER: "number" and "Scalar" are the same type. */
        if (a->kind != TY_NUMBER && !str_equal(a->name, b->name))
            return false;
    }
    for (int i = 0; i < a->nelems; i++)
        if (!ir_type_equal(a->elems[i], b->elems[i]))
            return false;
    return true;
}

const char *ir_type_kind_name(IrTypeKind k)
{
    switch (k) {
    case TY_TENSOR: return "Tensor";
    case TY_INT: return "int";
    case TY_FLOAT: return "float";
    case TY_BOOL: return "bool";
    case TY_STR: return "str";
    case TY_NONE: return "NoneType";
    case TY_DEVICE: return "Device";
    case TY_SCALARTYPE: return "ScalarType";
    case TY_LAYOUT: return "Layout";
    case TY_MEMORYFORMAT: return "MemoryFormat";
    case TY_NUMBER: return "Scalar";
    case TY_ANY: return "Any";
    case TY_GENERATOR: return "Generator";
    case TY_LIST: return "List";
    case TY_OPTIONAL: return "Optional";
    case TY_TUPLE: return "Tuple";
    case TY_DICT: return "Dict";
    case TY_UNION: return "Union";
    case TY_FUTURE: return "Future";
    case TY_CLASS: return "class";
    case TY_OTHER: return "other";
    }
    return "?";
}

static void format_dims(TextBuf *sb, const int64_t *dims, int rank)
{
    for (int i = 0; i < rank; i++) {
        if (i)
            textbuf_puts(sb, ", ");
        if (dims[i] < 0)
            textbuf_putc(sb, '*');
        else
            textbuf_int(sb, dims[i]);
    }
}

static void format_tensor(TextBuf *sb, const IrTensorType *t)
{
    textbuf_puts(sb, t->scalar ? t->scalar : "Tensor");
    bool extras = t->requires_grad >= 0 || t->device;
    if (t->rank < 0 && !extras)
        return;
    int parts = 0;
    textbuf_putc(sb, '(');
    if (t->rank >= 0 && t->sizes) {
        format_dims(sb, t->sizes, t->rank);
        parts += t->rank;
        if (t->strides && t->rank > 0) {
            textbuf_puts(sb, ", strides=[");
            format_dims(sb, t->strides, t->rank);
            textbuf_putc(sb, ']');
        }
    }
    if (t->requires_grad >= 0) {
        textbuf_puts(sb, parts++ ? ", requires_grad=" : "requires_grad=");
        textbuf_int(sb, t->requires_grad);
    }
    if (t->device) {
        textbuf_puts(sb, parts++ ? ", device=" : "device=");
        textbuf_puts(sb, t->device);
    }
    textbuf_putc(sb, ')');
}

static void format_elems(TextBuf *sb, const IrType *t)
{
    for (int i = 0; i < t->nelems; i++) {
        if (i)
            textbuf_puts(sb, ", ");
        ir_type_format(sb, t->elems[i]);
    }
}

void ir_type_format(TextBuf *sb, const IrType *t)
{
    if (!t) {
        textbuf_puts(sb, "Tensor");
        return;
    }
    switch (t->kind) {
    case TY_TENSOR:
        format_tensor(sb, &t->tensor);
        return;
    case TY_LIST:
    case TY_OPTIONAL:
        ir_type_format(sb, t->nelems ? t->elems[0] : NULL);
        textbuf_puts(sb, t->kind == TY_LIST ? "[]" : "?");
        return;
    case TY_TUPLE:
        textbuf_putc(sb, '(');
        format_elems(sb, t);
        textbuf_putc(sb, ')');
        return;
    case TY_DICT:
    case TY_UNION:
    case TY_FUTURE: {
        /* name "[" records the Future[T] spelling of torch 1.13. */
        bool square = t->name && t->name[0] == '[';
        textbuf_puts(sb, ir_type_kind_name(t->kind));
        textbuf_putc(sb, square ? '[' : '(');
        format_elems(sb, t);
        textbuf_putc(sb, square ? ']' : ')');
        return;
    }
    case TY_CLASS:
    case TY_OTHER:
    case TY_NUMBER:
        textbuf_puts(sb, t->name ? t->name : ir_type_kind_name(t->kind));
        return;
    default:
        textbuf_puts(sb, ir_type_kind_name(t->kind));
        return;
    }
}

void ir_type_print(FILE *out, const IrType *t)
{
    TextBuf sb;
    textbuf_init(&sb, out);
    ir_type_format(&sb, t);
    textbuf_release(&sb);
}
