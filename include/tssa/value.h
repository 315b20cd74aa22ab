/* value.h — run-time values: what flows along a graph edge when a program
 * runs (eval/value.c).
 *
 * An RtValue is a tensor, a Python scalar, a string, None, a device or dtype,
 * a list or tuple of values, or a module object (the %self input, resolved
 * through the weights file). RtValues are reference counted; lists are
 * mutable (aten::append) and shared by reference, as in TorchScript.
 */
#ifndef TSSA_VALUE_H
#define TSSA_VALUE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/tensor.h"
#include "tssa/util.h"

typedef enum RtKind {
    RT_NONE,
    RT_TENSOR,
    RT_INT,
    RT_FLOAT,
    RT_BOOL,
    RT_STR,
    RT_DEVICE,      /* s holds "cpu", "cuda:0" */
    RT_LIST,
    RT_TUPLE,
    RT_DICT,        /* u.list holds key, value, key, value... in insertion order */
    RT_OBJECT,      /* a module: its dotted path in the weights file */
    RT_UNINIT,      /* prim::Uninitialized */
} RtKind;

typedef struct RtValue RtValue;
struct RtValue {
    int refcount;
    RtKind kind;
    union {
        Tensor *t;
        int64_t i;      /* RT_INT, RT_BOOL */
        double f;
        char *s;        /* RT_STR, RT_DEVICE, RT_OBJECT (dotted path, "" for the root) */
        struct {
            RtValue **items;
            int n, cap;
        } list;         /* RT_LIST, RT_TUPLE */
    } u;
};

RtValue *rt_none(void);
RtValue *rt_tensor(Tensor *t);          /* takes a new reference to t */
RtValue *rt_int(int64_t v);
RtValue *rt_float(double v);
RtValue *rt_bool(bool v);
RtValue *rt_str(const char *s);
RtValue *rt_list(RtKind kind /* RT_LIST or RT_TUPLE */, int n, RtValue **items); /* retains items */
RtValue *rt_retain(RtValue *v);
void rt_release(RtValue *v);            /* NULL is fine */
void rt_print(FILE *out, const RtValue *v);     /* short summary: "Tensor float32[2, 3]" */

const char *rt_kind_name(RtKind kind);
RtValue *rt_device(const char *s);
RtValue *rt_object(const char *path);
RtValue *rt_uninit(void);
/* rt_tensor that takes over the caller's reference to t (NULL stays NULL). */
RtValue *rt_tensor_take(Tensor *t);
/* v with every tensor in it copied (same strides), lists and tuples new,
 * everything else shared; NULL when memory runs out. For a run that must
 * not see what an earlier run wrote into its inputs. */
RtValue *rt_clone_tensors(RtValue *v);
/* Python equality (numbers by value, strings by text, containers item by
 * item, tensors by identity), as list.index, `in` and dict keys use it. */
bool rt_equal(const RtValue *a, const RtValue *b);

/* An empty dict. Lookup is a linear scan of the keys: TorchScript dicts
 * in post-processing code are small. */
RtValue *rt_dict(void);
int rt_dict_count(const RtValue *d);
/* The index of key among d's entries, or -1. */
int rt_dict_find(const RtValue *d, const RtValue *key);
/* Entry i's key and value (borrowed). */
RtValue *rt_dict_key(const RtValue *d, int i);
RtValue *rt_dict_value(const RtValue *d, int i);
/* d[key] = value (both retained), keeping the key's first position. False,
 * changing nothing, when the dict cannot grow (rt_list_reserve). */
bool rt_dict_set(RtValue *d, RtValue *key, RtValue *value);
/* Removes entry i. */
void rt_dict_remove(RtValue *d, int i);

/* Lists are indexed by int: they hold at most this many items. */
#define RT_LIST_MAX_ITEMS (INT_MAX / 2)
/* Makes room for n items in a list. False, changing nothing, when n is
 * over RT_LIST_MAX_ITEMS or memory runs out: ops that let a program grow a
 * list call it first and report a runtime error naming the node. */
bool rt_list_reserve(RtValue *list, int64_t n);
/* Appends item (retained) to a list; out of memory is an internal error
 * here, so a list a program grows is reserved first (rt_list_reserve). */
void rt_list_append(RtValue *list, RtValue *item);
/* True if v is an int, float or bool (a Python number). */
bool rt_is_number(const RtValue *v);
double rt_number(const RtValue *v);             /* int, float or bool as double */

/* str() of a value as TorchScript prints it: floats as "1." or 17
 * significant digits, lists "[1, 2]", tuples "(1,)", bools "True", strings
 * unquoted even inside lists, tensors as ATen's C++ printer does. */
void rt_format_str(TextBuf *sb, const RtValue *v);
/* A tensor as ATen's operator<< prints it, ending "[ CPUFloatType{2} ]"
 * (tensor_repr.c). */
void tensor_format_repr(TextBuf *sb, const Tensor *t);
/* A float as TorchScript's str() spells it. */
void rt_format_float(TextBuf *sb, double v);

/* ---------------------------------------------------------------- wire form */
/* Values as bytes, to move a channel's items between MPI ranks
 * (eval/value_wire.c has the format): one metadata block of int64 words
 * and the data spans the tensors read. */
typedef struct RtWireOut {
    int64_t *meta;
    size_t meta_words;
    int nspans;
    const void **span_data;     /* into the packed tensors' storage: keep them alive */
    size_t *span_bytes;
    TensorDType *span_dtype;
    Tensor **owned;             /* contiguous copies of sparse views */
    int nowned;
} RtWireOut;
/* Packs items[0..n); false (out empty) when memory runs out. */
bool rt_wire_pack(RtValue *const *items, int n, RtWireOut *out);
void rt_wire_out_free(RtWireOut *out);

typedef struct RtWireIn {
    const int64_t *meta;        /* borrowed until rt_wire_finish */
    size_t meta_words, at;
    int nspans;
    Tensor **spans;             /* fresh storage for each span */
    void **span_data;           /* where to receive span s: span_bytes[s] bytes */
    size_t *span_bytes;
} RtWireIn;
/* Reads a metadata block and allocates its spans; false for a block that
 * is not one (in is left empty). */
bool rt_wire_begin(const void *meta, size_t bytes, RtWireIn *in);
/* Once the spans are filled: the items (new references, *n of them), or
 * NULL for corrupt metadata. Frees in's state either way. */
RtValue **rt_wire_finish(RtWireIn *in, int *n);
void rt_wire_in_free(RtWireIn *in);

#endif
