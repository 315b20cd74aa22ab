/* ops_dict.c — TorchScript's dicts: prim::DictConstruct, d[k], d[k] = v,
 * keys(), values(), items(), get, setdefault, pop, `in`, len and clear.
 *
 * A dict keeps its entries in insertion order (rt_dict_*, value.c), which
 * is the order keys(), values(), items() and iteration give, as in Python.
 * The list-and-dict ops that share a name (__getitem__, _set_item, pop,
 * __contains__, len, clear) come here from their list bindings when their
 * first argument is a dict.
 */
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

static bool dict_arg(EvalCall *c, RtValue **d)
{
    if (eval_kind(c, 0) != RT_DICT)
        return eval_fail(c, "argument 1: expected dict, got %s", rt_kind_name(eval_kind(c, 0)));
    *d = c->args[0];
    return true;
}

static bool dict_too_large(EvalCall *c, const RtValue *d)
{
    return eval_fail(c, "out of memory: a dict of %d entries cannot grow", rt_dict_count(d));
}

static bool key_error(EvalCall *c, const RtValue *key)
{
    TextBuf text = {0};
    rt_format_str(&text, key);
    eval_fail(c, "KeyError: %s", textbuf_cstr(&text));
    textbuf_release(&text);
    return false;
}

/* prim::DictConstruct(k0, v0, k1, v1, ...) */
bool eval_op_dict_construct(EvalCall *c)
{
    if (c->nargs % 2 != 0)
        return eval_fail(c, "a dict needs a value for every key");
    RtValue *d = rt_dict();
    for (int i = 0; i < c->nargs; i += 2)
        if (!rt_dict_set(d, c->args[i], c->args[i + 1])) {
            rt_release(d);
            return eval_fail(c, "out of memory building a dict of %d entries", c->nargs / 2);
        }
    return eval_out_value(c, 0, d);
}

bool eval_dict_getitem(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 2) || !dict_arg(c, &d))
        return false;
    int i = rt_dict_find(d, c->args[1]);
    return i < 0 ? key_error(c, c->args[1]) : eval_out_value(c, 0, rt_retain(rt_dict_value(d, i)));
}

bool eval_dict_set_item(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 3, 3) || !dict_arg(c, &d))
        return false;
    return rt_dict_set(d, c->args[1], c->args[2]) ? true : dict_too_large(c, d);
}

/* immut::dict_set_item(Dict(k, v) d, k key, v value) -> Dict(k, v): a copy
 * of d with key set to value (TensorSSA's form of d[key] = value,
 * functionalize/list_versions.c); d itself is unchanged. The copy holds the
 * same key and value objects, as Python's dict copies do; a d the caller
 * owns is written in place instead. */
bool eval_op_dict_set_item(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 3, 3) || !dict_arg(c, &d))
        return false;
    RtValue *copy;
    if (c->run->write_in_place || eval_arg_owned(c, 0)) {
        copy = rt_retain(d);
    } else {
        copy = rt_dict();
        for (int i = 0; i < rt_dict_count(d); i++)
            if (!rt_dict_set(copy, rt_dict_key(d, i), rt_dict_value(d, i))) {
                rt_release(copy);
                return dict_too_large(c, d);
            }
    }
    if (!rt_dict_set(copy, c->args[1], c->args[2])) {
        rt_release(copy);
        return dict_too_large(c, d);
    }
    return eval_out_value(c, 0, copy);
}

/* The keys, the values or the (key, value) tuples, as a new list. */
static bool dict_view(EvalCall *c, int what)
{
    RtValue *d;
    if (!eval_nargs(c, 1, 1) || !dict_arg(c, &d))
        return false;
    RtValue *out = rt_list(RT_LIST, 0, NULL);
    if (!rt_list_reserve(out, rt_dict_count(d))) {
        rt_release(out);
        return dict_too_large(c, d);
    }
    for (int i = 0; i < rt_dict_count(d); i++) {
        if (what == 2) {
            RtValue *pair[2] = {rt_dict_key(d, i), rt_dict_value(d, i)};
            RtValue *item = rt_list(RT_TUPLE, 2, pair);
            rt_list_append(out, item);
            rt_release(item);
        } else {
            rt_list_append(out, what == 0 ? rt_dict_key(d, i) : rt_dict_value(d, i));
        }
    }
    return eval_out_value(c, 0, out);
}
bool eval_op_keys(EvalCall *c) { return dict_view(c, 0); }
bool eval_op_values(EvalCall *c) { return dict_view(c, 1); }
bool eval_op_items(EvalCall *c) { return dict_view(c, 2); }

/* get(Dict d, key, default_value=None) */
bool eval_op_get(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 3) || !dict_arg(c, &d))
        return false;
    int i = rt_dict_find(d, c->args[1]);
    if (i >= 0)
        return eval_out_value(c, 0, rt_retain(rt_dict_value(d, i)));
    return eval_out_value(c, 0, c->nargs == 3 ? rt_retain(c->args[2]) : rt_none());
}

/* setdefault(Dict d, key, default_value): d[key], set to the default first
 * when absent. */
bool eval_op_setdefault(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 3, 3) || !dict_arg(c, &d))
        return false;
    int i = rt_dict_find(d, c->args[1]);
    if (i < 0 && !rt_dict_set(d, c->args[1], c->args[2]))
        return dict_too_large(c, d);
    i = rt_dict_find(d, c->args[1]);
    return eval_out_value(c, 0, rt_retain(rt_dict_value(d, i)));
}

/* pop(Dict d, key[, default_value]) */
bool eval_dict_pop(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 3) || !dict_arg(c, &d))
        return false;
    int i = rt_dict_find(d, c->args[1]);
    if (i < 0)
        return c->nargs == 3 ? eval_out_value(c, 0, rt_retain(c->args[2])) : key_error(c, c->args[1]);
    RtValue *v = rt_retain(rt_dict_value(d, i));
    rt_dict_remove(d, i);
    return eval_out_value(c, 0, v);
}

bool eval_dict_contains(EvalCall *c)
{
    RtValue *d;
    return eval_nargs(c, 2, 2) && dict_arg(c, &d) &&
           eval_out_value(c, 0, rt_bool(rt_dict_find(d, c->args[1]) >= 0));
}

bool eval_dict_len(EvalCall *c)
{
    RtValue *d;
    return eval_nargs(c, 1, 1) && dict_arg(c, &d) && eval_out_value(c, 0, rt_int(rt_dict_count(d)));
}

bool eval_dict_clear(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 1, 1) || !dict_arg(c, &d))
        return false;
    while (rt_dict_count(d) > 0)
        rt_dict_remove(d, rt_dict_count(d) - 1);
    return true;
}
