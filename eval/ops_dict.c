/* ops_dict.c — TorchScript's dicts: prim::DictConstruct, d[k], d[k] = v,
 * keys(), values(), items(), get, setdefault, pop, `in`, len, clear,
 * update and popitem, and TensorSSA's functional forms of the writes
 * (immut::dict_*: a new version of the dict, list_versions.c).
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

/* dict() (empty), dict(pairs) from a list of (key, value) tuples, as
 * `OrderedDict([(k, v) for ...])` scripts, later pairs overwriting earlier
 * keys in place, and dict(d), a shallow copy. */
bool eval_op_dict(EvalCall *c)
{
    if (!eval_nargs(c, 0, 1))
        return false;
    RtValue *d = rt_dict();
    const RtValue *from = c->nargs ? c->args[0] : NULL;
    bool ok = true;
    if (from && from->kind == RT_DICT) {
        for (int i = 0; ok && i < rt_dict_count(from); i++)
            ok = rt_dict_set(d, rt_dict_key(from, i), rt_dict_value(from, i));
    } else if (from && from->kind == RT_LIST) {
        for (int i = 0; ok && i < from->u.list.n; i++) {
            const RtValue *pair = from->u.list.items[i];
            if (pair->kind != RT_TUPLE || pair->u.list.n != 2) {
                rt_release(d);
                return eval_fail(c, "dictionary update sequence element #%d has length %d; 2 is required", i,
                                 pair->kind == RT_TUPLE ? pair->u.list.n : 1);
            }
            ok = rt_dict_set(d, pair->u.list.items[0], pair->u.list.items[1]);
        }
    } else if (from) {
        rt_release(d);
        return eval_fail(c, "dict() of a %s", rt_kind_name(from->kind));
    }
    if (!ok) {
        rt_release(d);
        return eval_fail(c, "out of memory building a dict");
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

/* A new version of dict argument 0 for a TensorSSA dict write (immut::
 * dict_*): the dict itself when the caller holds it alone (eval_arg_owned,
 * or a planned in-place run), else a copy holding the same key and value
 * objects, as Python's dict copies do. NULL after the error. */
static RtValue *dict_version(EvalCall *c, RtValue *d)
{
    if (c->run->write_in_place || eval_arg_take(c, 0))
        return rt_retain(d);
    RtValue *copy = rt_dict();
    for (int i = 0; i < rt_dict_count(d); i++)
        if (!rt_dict_set(copy, rt_dict_key(d, i), rt_dict_value(d, i))) {
            rt_release(copy);
            dict_too_large(c, d);
            return NULL;
        }
    return copy;
}

/* immut::dict_set_item(Dict(k, v) d, k key, v value) -> Dict(k, v): a copy
 * of d with key set to value (TensorSSA's form of d[key] = value,
 * functionalize/list_versions.c); d itself is unchanged. */
bool eval_op_dict_set_item(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 3, 3) || !dict_arg(c, &d))
        return false;
    RtValue *copy = dict_version(c, d);
    if (!copy)
        return false;
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

/* immut::dict_setdefault(Dict(k, v) d, k key, v default_value) -> Dict(k, v):
 * d with key set to the default when absent (TensorSSA's form of
 * d.setdefault; its result is read from the new version with __getitem__). */
bool eval_op_dict_setdefault(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 3, 3) || !dict_arg(c, &d))
        return false;
    if (rt_dict_find(d, c->args[1]) >= 0)
        return eval_out_value(c, 0, rt_retain(d));  /* unchanged: the versions may share it */
    RtValue *copy = dict_version(c, d);
    if (!copy)
        return false;
    if (!rt_dict_set(copy, c->args[1], c->args[2])) {
        rt_release(copy);
        return dict_too_large(c, d);
    }
    return eval_out_value(c, 0, copy);
}

/* pop(Dict d, key[, default_value]): the entry's index in d, -1 for an
 * absent key with a default, or -2 after the KeyError. */
static int dict_pop_index(EvalCall *c, RtValue **d)
{
    if (!eval_nargs(c, 2, 3) || !dict_arg(c, d))
        return -2;
    int i = rt_dict_find(*d, c->args[1]);
    if (i < 0 && c->nargs < 3) {
        key_error(c, c->args[1]);
        return -2;
    }
    return i;
}

/* pop(Dict d, key[, default_value]) */
bool eval_dict_pop(EvalCall *c)
{
    RtValue *d;
    int i = dict_pop_index(c, &d);
    if (i == -2)
        return false;
    if (i < 0)
        return eval_out_value(c, 0, rt_retain(c->args[2]));
    RtValue *v = rt_retain(rt_dict_value(d, i));
    rt_dict_remove(d, i);
    return eval_out_value(c, 0, v);
}

/* Output 0 the new dict, output 1 the value read out; each output takes its
 * value even when the other fails. */
static bool two_outputs(EvalCall *c, RtValue *dict, RtValue *value)
{
    bool ok = eval_out_value(c, 0, dict);
    return eval_out_value(c, 1, value) && ok;
}

/* immut::dict_pop(Dict(k, v) d, k key[, v default_value]) -> (Dict(k, v), v):
 * d without key, and key's value (or the default, d unchanged), with pop's
 * KeyError (TensorSSA's form of d.pop). */
bool eval_op_dict_pop(EvalCall *c)
{
    RtValue *d;
    int i = dict_pop_index(c, &d);
    if (i == -2)
        return false;
    if (i < 0)
        return two_outputs(c, rt_retain(d), rt_retain(c->args[2]));
    RtValue *copy = dict_version(c, d);
    if (!copy)
        return false;
    RtValue *v = rt_retain(rt_dict_value(copy, i));
    rt_dict_remove(copy, i);
    return two_outputs(c, copy, v);
}

/* d.update(other): other's entries set into d in other's order. */
static bool dict_update_from(EvalCall *c, RtValue *d, const RtValue *other)
{
    for (int i = 0; i < rt_dict_count(other); i++)
        if (!rt_dict_set(d, rt_dict_key(other, i), rt_dict_value(other, i)))
            return dict_too_large(c, d);
    return true;
}

/* aten::update(Dict(k, v) self, Dict(k, v) to_add): in place. */
bool eval_op_update(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 2) || !dict_arg(c, &d))
        return false;
    if (eval_kind(c, 1) != RT_DICT)
        return eval_fail(c, "argument 2: expected dict, got %s", rt_kind_name(eval_kind(c, 1)));
    return dict_update_from(c, d, c->args[1]);
}

/* immut::dict_update(Dict(k, v) d, Dict(k, v) to_add) -> Dict(k, v): a copy
 * of d updated from to_add (TensorSSA's form of d.update). */
bool eval_op_dict_update(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 2) || !dict_arg(c, &d))
        return false;
    if (eval_kind(c, 1) != RT_DICT)
        return eval_fail(c, "argument 2: expected dict, got %s", rt_kind_name(eval_kind(c, 1)));
    RtValue *copy = dict_version(c, d);
    if (!copy)
        return false;
    if (!dict_update_from(c, copy, c->args[1])) {
        rt_release(copy);
        return false;
    }
    return eval_out_value(c, 0, copy);
}

/* popitem's entry: TorchScript takes the first in insertion order (Python
 * takes the last); the (key, value) tuple, or NULL after the error. */
static RtValue *popitem_pair(EvalCall *c, const RtValue *d)
{
    if (rt_dict_count(d) == 0) {
        eval_fail(c, "popitem(): dictionary is empty");
        return NULL;
    }
    RtValue *pair[2] = {rt_dict_key(d, 0), rt_dict_value(d, 0)};
    return rt_list(RT_TUPLE, 2, pair);
}

/* aten::popitem(Dict(k, v) self) -> (k, v): in place. */
bool eval_op_popitem(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 1, 1) || !dict_arg(c, &d))
        return false;
    RtValue *pair = popitem_pair(c, d);
    if (!pair)
        return false;
    rt_dict_remove(d, 0);
    return eval_out_value(c, 0, pair);
}

/* immut::dict_popitem(Dict(k, v) d) -> (Dict(k, v), (k, v)): d without its
 * first entry, and that entry (TensorSSA's form of d.popitem). */
bool eval_op_dict_popitem(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 1, 1) || !dict_arg(c, &d))
        return false;
    RtValue *pair = popitem_pair(c, d);
    if (!pair)
        return false;
    RtValue *copy = dict_version(c, d);
    if (!copy) {
        rt_release(pair);
        return false;
    }
    rt_dict_remove(copy, 0);
    return two_outputs(c, copy, pair);
}

/* del d[key] (aten::Delete on a dict), in place: KeyError when absent. */
bool eval_dict_delete(EvalCall *c)
{
    RtValue *d;
    if (!eval_nargs(c, 2, 2) || !dict_arg(c, &d))
        return false;
    int i = rt_dict_find(d, c->args[1]);
    if (i < 0)
        return key_error(c, c->args[1]);
    rt_dict_remove(d, i);
    return true;
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
