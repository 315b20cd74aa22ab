/* value.c — RtValue: the reference-counted values that flow along graph
 * edges at run time, and their Python-style printing.
 *
 * Every constructor returns a value with refcount 1. Lists and tuples hold a
 * reference to each item; releasing the last reference of a container
 * releases its items, so a whole nested value goes away with one
 * rt_release. Lists are shared by reference (aten::append mutates the list
 * every holder sees), as in TorchScript; TorchScript's typed lists cannot
 * contain themselves, so reference counting never meets a cycle.
 *
 * rt_format_str spells a value the way TorchScript's str() and aten::format
 * do (which differs from Python in places: floats print "2." and 17
 * significant digits, strings inside lists print without quotes).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "tssa/diag.h"

/* ---------------------------------------------------------------- constructors */

static RtValue *rt_new(RtKind kind)
{
    RtValue *v = xcalloc(1, sizeof *v);
    v->refcount = 1;
    v->kind = kind;
    return v;
}

RtValue *rt_none(void) { return rt_new(RT_NONE); }
RtValue *rt_uninit(void) { return rt_new(RT_UNINIT); }

RtValue *rt_tensor(Tensor *t)
{
    RtValue *v = rt_new(RT_TENSOR);
    v->u.t = tensor_retain(t);
    return v;
}

RtValue *rt_tensor_take(Tensor *t)
{
    if (!t)
        return NULL;
    RtValue *v = rt_new(RT_TENSOR);
    v->u.t = t;
    return v;
}

RtValue *rt_clone_tensors(RtValue *v)
{
    if (v->kind == RT_TENSOR)
        return rt_tensor_take(tensor_clone_preserve(v->u.t));
    if (v->kind != RT_LIST && v->kind != RT_TUPLE && v->kind != RT_DICT)
        return rt_retain(v);
    RtValue *copy = v->kind == RT_DICT ? rt_dict() : rt_list(v->kind, 0, NULL);
    for (int i = 0; i < v->u.list.n; i++) {
        RtValue *item = rt_clone_tensors(v->u.list.items[i]);
        if (!item) {
            rt_release(copy);
            return NULL;
        }
        rt_list_append(copy, item);
        rt_release(item);
    }
    return copy;
}

RtValue *rt_int(int64_t i)
{
    RtValue *v = rt_new(RT_INT);
    v->u.i = i;
    return v;
}

RtValue *rt_float(double f)
{
    RtValue *v = rt_new(RT_FLOAT);
    v->u.f = f;
    return v;
}

RtValue *rt_bool(bool b)
{
    RtValue *v = rt_new(RT_BOOL);
    v->u.i = b ? 1 : 0;
    return v;
}

static RtValue *rt_string_kind(RtKind kind, const char *s)
{
    RtValue *v = rt_new(kind);
    v->u.s = xstrdup(s);
    return v;
}

RtValue *rt_str(const char *s) { return rt_string_kind(RT_STR, s); }
RtValue *rt_device(const char *s) { return rt_string_kind(RT_DEVICE, s); }
RtValue *rt_object(const char *path) { return rt_string_kind(RT_OBJECT, path); }

RtValue *rt_list(RtKind kind, int n, RtValue **items)
{
    RtValue *v = rt_new(kind);
    v->u.list.cap = n > 4 ? n : 4;
    v->u.list.items = xmalloc((size_t)v->u.list.cap * sizeof(RtValue *));
    for (int i = 0; i < n; i++)
        v->u.list.items[i] = rt_retain(items[i]);
    v->u.list.n = n;
    return v;
}

bool rt_list_reserve(RtValue *list, int64_t n)
{
    if (n <= list->u.list.cap)
        return true;
    if (n > RT_LIST_MAX_ITEMS || (uint64_t)n * sizeof(RtValue *) > physical_memory_bytes())
        return false;
    int64_t cap = list->u.list.cap;
    while (cap < n)
        cap = cap > RT_LIST_MAX_ITEMS / 2 ? RT_LIST_MAX_ITEMS : 2 * cap;
    RtValue **items = realloc(list->u.list.items, (size_t)cap * sizeof *items);
    if (!items)
        return false;
    list->u.list.items = items;
    list->u.list.cap = (int)cap;
    return true;
}

void rt_list_append(RtValue *list, RtValue *item)
{
    if (list->u.list.n == list->u.list.cap && !rt_list_reserve(list, (int64_t)list->u.list.n + 1))
        diag_die("out of memory growing a list of %d items", list->u.list.n);
    list->u.list.items[list->u.list.n++] = rt_retain(item);
}

RtValue *rt_retain(RtValue *v)
{
    if (v)
        v->refcount++;
    return v;
}

void rt_release(RtValue *v)
{
    if (!v || --v->refcount > 0)
        return;
    switch (v->kind) {
    case RT_TENSOR:
        tensor_release(v->u.t);
        break;
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT:
        free(v->u.s);
        break;
    case RT_LIST:
    case RT_TUPLE:
    case RT_DICT:
        for (int i = 0; i < v->u.list.n; i++)
            rt_release(v->u.list.items[i]);
        free(v->u.list.items);
        break;
    default:
        break;
    }
    free(v);
}

/* ---------------------------------------------------------------- queries */

const char *rt_kind_name(RtKind kind)
{
    switch (kind) {
    case RT_NONE: return "None";
    case RT_TENSOR: return "Tensor";
    case RT_INT: return "int";
    case RT_FLOAT: return "float";
    case RT_BOOL: return "bool";
    case RT_STR: return "str";
    case RT_DEVICE: return "Device";
    case RT_LIST: return "list";
    case RT_TUPLE: return "tuple";
    case RT_DICT: return "dict";
    case RT_OBJECT: return "module";
    case RT_UNINIT: return "uninitialized value";
    }
    return "?";
}

bool rt_is_number(const RtValue *v)
{
    return v->kind == RT_INT || v->kind == RT_FLOAT || v->kind == RT_BOOL;
}

double rt_number(const RtValue *v)
{
    return v->kind == RT_FLOAT ? v->u.f : (double)v->u.i;
}

/* ---------------------------------------------------------------- strings */

/* TorchScript prints an integral float that fits an int64 as the integer
 * followed by '.' ("2.", also "0." for -0.0), anything else with 17
 * significant digits ("0.10000000000000001", "1e+20"). */
void rt_format_float(TextBuf *sb, double v)
{
    if (isfinite(v) && v == floor(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0) {
        textbuf_printf(sb, "%lld.", (long long)v);
        return;
    }
    if (isnan(v)) {
        textbuf_puts(sb, "nan");
        return;
    }
    if (isinf(v)) {
        textbuf_puts(sb, v < 0 ? "-inf" : "inf");
        return;
    }
    textbuf_printf(sb, "%.17g", v);
}

void rt_format_str(TextBuf *sb, const RtValue *v)
{
    switch (v->kind) {
    case RT_NONE:
        textbuf_puts(sb, "None");
        break;
    case RT_TENSOR:
        tensor_format_repr(sb, v->u.t);
        break;
    case RT_INT:
        textbuf_printf(sb, "%lld", (long long)v->u.i);
        break;
    case RT_FLOAT:
        rt_format_float(sb, v->u.f);
        break;
    case RT_BOOL:
        textbuf_puts(sb, v->u.i ? "True" : "False");
        break;
    case RT_STR:
    case RT_DEVICE:
        textbuf_puts(sb, v->u.s);
        break;
    case RT_LIST:
    case RT_TUPLE:
        textbuf_puts(sb, v->kind == RT_LIST ? "[" : "(");
        for (int i = 0; i < v->u.list.n; i++) {
            if (i)
                textbuf_puts(sb, ", ");
            rt_format_str(sb, v->u.list.items[i]);
        }
        if (v->kind == RT_TUPLE && v->u.list.n == 1)
            textbuf_puts(sb, ",");
        textbuf_puts(sb, v->kind == RT_LIST ? "]" : ")");
        break;
    case RT_DICT:
        textbuf_puts(sb, "{");
        for (int i = 0; i < rt_dict_count(v); i++) {
            textbuf_puts(sb, i ? ", " : "");
            rt_format_str(sb, rt_dict_key(v, i));
            textbuf_puts(sb, ": ");
            rt_format_str(sb, rt_dict_value(v, i));
        }
        textbuf_puts(sb, "}");
        break;
    case RT_OBJECT:
        textbuf_printf(sb, "<module %s>", v->u.s[0] ? v->u.s : "self");
        break;
    case RT_UNINIT:
        textbuf_puts(sb, "<uninitialized>");
        break;
    }
}

/* ---------------------------------------------------------------- summaries */

static void rt_print_shape(FILE *out, const Tensor *t)
{
    fprintf(out, "Tensor %s[", dtype_name(t->dtype));
    for (int d = 0; d < t->ndim; d++)
        fprintf(out, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    fputc(']', out);
}

void rt_print(FILE *out, const RtValue *v)
{
    switch (v->kind) {
    case RT_TENSOR:
        rt_print_shape(out, v->u.t);
        break;
    case RT_INT:
        fprintf(out, "int %lld", (long long)v->u.i);
        break;
    case RT_BOOL:
        fprintf(out, "bool %s", v->u.i ? "true" : "false");
        break;
    case RT_FLOAT: {
        TextBuf sb = {0};
        rt_format_float(&sb, v->u.f);
        fprintf(out, "float %s", textbuf_cstr(&sb));
        textbuf_release(&sb);
        break;
    }
    case RT_STR:
        fprintf(out, "str \"%s\"", v->u.s);
        break;
    case RT_DEVICE:
        fprintf(out, "Device %s", v->u.s);
        break;
    case RT_LIST:
    case RT_TUPLE:
        fprintf(out, "%s of %d", rt_kind_name(v->kind), v->u.list.n);
        break;
    case RT_DICT:
        fprintf(out, "dict of %d", rt_dict_count(v));
        break;
    case RT_OBJECT:
        fprintf(out, "module %s", v->u.s[0] ? v->u.s : "self");
        break;
    case RT_NONE:
    case RT_UNINIT:
        fputs(rt_kind_name(v->kind), out);
        break;
    }
}

/* ---------------------------------------------------------------- equality and dicts */

static bool is_intlike(const RtValue *v)
{
    return v->kind == RT_INT || v->kind == RT_BOOL;
}

bool rt_equal(const RtValue *a, const RtValue *b)
{
    if (rt_is_number(a) && rt_is_number(b)) {
        if (is_intlike(a) && is_intlike(b))
            return a->u.i == b->u.i;
        return rt_number(a) == rt_number(b);
    }
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case RT_NONE:
    case RT_UNINIT:
        return true;
    case RT_STR:
    case RT_DEVICE:
    case RT_OBJECT:
        return strcmp(a->u.s, b->u.s) == 0;
    case RT_TENSOR:
        return a->u.t == b->u.t;
    case RT_LIST:
    case RT_TUPLE:
        if (a->u.list.n != b->u.list.n)
            return false;
        for (int i = 0; i < a->u.list.n; i++)
            if (!rt_equal(a->u.list.items[i], b->u.list.items[i]))
                return false;
        return true;
    default:
        return false;
    }
}

RtValue *rt_dict(void)
{
    RtValue *d = rt_list(RT_LIST, 0, NULL);
    d->kind = RT_DICT;
    return d;
}

int rt_dict_count(const RtValue *d) { return d->u.list.n / 2; }
RtValue *rt_dict_key(const RtValue *d, int i) { return d->u.list.items[2 * i]; }
RtValue *rt_dict_value(const RtValue *d, int i) { return d->u.list.items[2 * i + 1]; }

int rt_dict_find(const RtValue *d, const RtValue *key)
{
    for (int i = 0; i < rt_dict_count(d); i++)
        if (rt_equal(rt_dict_key(d, i), key))
            return i;
    return -1;
}

bool rt_dict_set(RtValue *d, RtValue *key, RtValue *value)
{
    int i = rt_dict_find(d, key);
    if (i >= 0) {
        RtValue *old = d->u.list.items[2 * i + 1];
        d->u.list.items[2 * i + 1] = rt_retain(value);
        rt_release(old);
        return true;
    }
    if (!rt_list_reserve(d, (int64_t)d->u.list.n + 2))
        return false;
    d->u.list.items[d->u.list.n++] = rt_retain(key);
    d->u.list.items[d->u.list.n++] = rt_retain(value);
    return true;
}

void rt_dict_remove(RtValue *d, int i)
{
    rt_release(d->u.list.items[2 * i]);
    rt_release(d->u.list.items[2 * i + 1]);
    memmove(d->u.list.items + 2 * i, d->u.list.items + 2 * i + 2,
            (size_t)(d->u.list.n - 2 * i - 2) * sizeof(RtValue *));
    d->u.list.n -= 2;
}
