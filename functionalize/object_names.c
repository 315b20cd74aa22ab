/* object_names.c — every name and list slot that holds the tensor a write
 * changes, where the program decides them (issue 30: "TensorSSA follows
 * tensors through lists").
 *
 * alias.c keeps a write imperative when another name may observe the
 * written tensor: the same tensor in two list slots, a name read again
 * after a write through its slot, a slice copy of a list sharing the
 * element objects, an element read at a run-time index before the list
 * grows. Where those names are decided by the program, a write need not
 * stay imperative: it gives every name and every slot holding the object
 * the new version. This file finds them, or says why it cannot.
 *
 * The view. An abstract object is one allocation: the result of an op
 * that makes fresh storage (alias.c's fresh root) in block B, the block of
 * the write m. Each run of B makes a new one (an allocation inside a loop
 * body is a new tensor every iteration). A tracked list is a Tensor[]
 * made in B by prim::ListConstruct or copied in B from a tracked list
 * (l[a:b] with constant bounds and step 1, list(l), l + r); its contents,
 * one object per slot (0: not one of B's allocations), are followed in
 * program order through append and _set_item at a constant index. The
 * nodes of B before m are interpreted once, top to bottom:
 *
 *   x = alloc(...)          obj(x) = a new object
 *   l = [a, b]              contents(l) = [obj(a), obj(b)]
 *   l.append(a)             contents(l) += [obj(a)]
 *   l[c] = a                contents(l)[c] = obj(a)      (c constant, in range)
 *   y = l[c]                obj(y) = contents(l)[c]      (c normalized by the length)
 *   y = l[j]                obj(y) = o when every slot holds o (j at run time:
 *                                     whichever slot it names, it is o)
 *   l2 = l[a:b], list(l)    a new list with those slots' objects
 *
 * A prim::Loop of B with a known trip count and no break (its condition
 * constant true on entry and after each iteration) is interpreted
 * iteration by iteration, its count known in each: an allocation in its
 * body is a new object every iteration, a carried value is the previous
 * iteration's result (the first iteration's the loop's input), the loop's
 * result the last iteration's (its input when it runs no iteration).
 * That is the program's own execution, so what it gives is exact: a loop
 * that appends each new y leaves its result in the last slot; the value
 * it starts from is the slot its first iteration appended. A list made in
 * an iteration and not carried out is dead after it. Other nested blocks
 * (and loops that cannot be followed so) are only scanned for uses.
 *
 * Everything else gives 0. The object of the written root (m's target's
 * alias root) must be an object o; then the names of o at m are the
 * values of B before m with obj = o, and its slots the slots of tracked
 * lists holding o at m. The write gives each name read after m the new
 * version (tssa::update, which renaming applies to every later use) and
 * each slot aten::_set_item(l, c, new) at the write, which list_versions.c
 * makes a new version of the list (rewrite_mutation.c emits both).
 *
 * Why this is exact. The interpretation follows every way the program
 * gives o another name, and refuses o (keeps the write imperative, with
 * the reason) whenever one of them leaves what it follows:
 *
 *  1. A name of o (or a view of one) used before m by anything but a
 *     read that keeps nothing (an op making new storage from it, len,
 *     an in-place write to it): stored into a container that is not a
 *     tracked list (or at a run-time index), passed through control flow
 *     (a block's result, a loop's initial value, used inside a nested
 *     block other than as such a read), given to an op whose result may
 *     alias it (reshape, an unknown op, a view of a name other than the
 *     written root), returned from a block that is not the graph's.
 *  2. A tracked list holding o used before m other than by getitem, len,
 *     ListUnpack, reading ops (stack, cat), append/_set_item followed
 *     above, copies followed above, the graph's result: its slots are no
 *     longer known (it may be passed, copied or changed elsewhere). A
 *     getitem at a run-time index whose slots hold different objects
 *     refuses every object of the list: the result may be any of them.
 *  3. A view of another name of o (not the written root, whose views
 *     alias.c re-reads from the new version) alive at m and read after it.
 *
 * With 1-3 no value other than the names found can be o at m: every value
 * of B made before o's allocation is not o; values made from o's names by
 * reading ops own new storage; values from outside B, from nested blocks
 * and from untracked containers could be o only if o flowed there, which
 * 1 refuses; values after m are made from the versions renaming gives
 * them. And no container other than the slots found holds o at m, by 1
 * and 2. So the rewrite gives every observer of o the new version, as
 * the program's shared object does. Uses after m need no check: they read
 * the version current at their place.
 *
 * What stays imperative (the reasons name it): an object not allocated
 * in the write's block (a name merged by a branch or a loop whose trip
 * count is not known, a graph input or
 * a view of one, a tensor from a list the program did not build), a list
 * whose slots are changed at a run-time index or inside a nested block
 * before the write, a name flowing into control flow before the write
 * (whether a merged name is the object then depends on the path taken),
 * pieces of split/chunk taken at a run-time index.
 *
 * Cost: per write refused by alias.c, linear in the nodes of its block
 * (nested blocks scanned for uses) plus the tracked lists' slots.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

typedef struct TrackedList {
    IrValue *name;          /* the value that made it (ListConstruct, the copy) */
    int *objs;              /* object per slot: 0 for tensors not allocated in the block */
    int n, cap;
    bool lost;              /* slots no longer known (see rule 2) */
} TrackedList;

struct TssaObjectNames {
    TssaAlias *a;
    uint32_t nvalues;
    int *obj;               /* by value id: the object a tensor is, 0 if none */
    int *list;              /* by value id: tracked list index, -1 if none */
    const char **refused;   /* by object - 1: why it is refused */
    int nobjs, cap_objs;    /* objects made so far (ids 1..nobjs) */
    struct Counter {
        const IrValue *param;   /* a loop's iteration count, while it is unrolled */
        int64_t value;
    } counters[16];
    int ncounters;
    long budget;            /* nodes left to interpret (unrolling is bounded) */
    TrackedList *lists;
    int nlists, cap_lists;
    const IrBlock *block;
    const IrNode *write;
};

static const char *fmt(IrGraph *g, const char *format, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(buf, sizeof buf, format, ap);
    va_end(ap);
    return ir_intern(g, buf);
}

static bool is_tensor_list(const IrValue *v)
{
    const IrType *t = v->type;
    return t && t->kind == TY_LIST && t->nelems == 1 && t->elems[0]->kind == TY_TENSOR;
}

static int obj_of(const TssaObjectNames *on, const IrValue *v)
{
    return v->id < on->nvalues ? on->obj[v->id] : 0;
}

static TrackedList *list_of(TssaObjectNames *on, const IrValue *v)
{
    if (v->id >= on->nvalues || on->list[v->id] < 0)
        return NULL;
    return &on->lists[on->list[v->id]];
}

static void refuse(TssaObjectNames *on, int o, const char *why)
{
    if (o > 0 && o <= on->nobjs && !on->refused[o - 1])
        on->refused[o - 1] = why;
}

/* A new object: one run of an allocation. */
static int new_object(TssaObjectNames *on)
{
    if (on->nobjs == on->cap_objs) {
        on->cap_objs = on->cap_objs ? on->cap_objs * 2 : 64;
        on->refused = xrealloc(on->refused, sizeof *on->refused * (size_t)on->cap_objs);
    }
    on->refused[on->nobjs++] = NULL;
    return on->nobjs;
}

/* An int the interpretation knows: a constant, or the count of a loop it
 * is unrolling. */
static bool known_int(const TssaObjectNames *on, const IrValue *v, int64_t *out)
{
    if (tssa_const_int(v, out))
        return true;
    for (int i = on->ncounters - 1; i >= 0; i--)
        if (on->counters[i].param == v) {
            *out = on->counters[i].value;
            return true;
        }
    return false;
}

static void refuse_contents(TssaObjectNames *on, TrackedList *l, const char *why)
{
    for (int i = 0; i < l->n; i++)
        refuse(on, l->objs[i], why);
}

static void lose(TssaObjectNames *on, TrackedList *l, const char *why)
{
    refuse_contents(on, l, why);
    l->lost = true;
}

static void push_obj(TrackedList *l, int o)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->objs = xrealloc(l->objs, sizeof *l->objs * (size_t)l->cap);
    }
    l->objs[l->n++] = o;
}

static TrackedList *new_list(TssaObjectNames *on, IrValue *name)
{
    if (on->nlists == on->cap_lists) {
        on->cap_lists = on->cap_lists ? on->cap_lists * 2 : 8;
        on->lists = xrealloc(on->lists, sizeof *on->lists * (size_t)on->cap_lists);
    }
    TrackedList *l = &on->lists[on->nlists];
    memset(l, 0, sizeof *l);
    l->name = name;
    if (name->id < on->nvalues)
        on->list[name->id] = on->nlists;
    on->nlists++;
    return l;
}

/* The slot a known index names in a list of n, or -1 (Python's
 * indexing: -n..n-1; out of range the program raises there). */
static int slot_index(const TssaObjectNames *on, const IrValue *index, int n)
{
    int64_t k;
    if (!known_int(on, index, &k))
        return -1;
    if (k < 0)
        k += n;
    return k >= 0 && k < n ? (int)k : -1;
}

/* A read that keeps nothing of its operand: an op making new storage
 * from it (not a container, not a view, not the written operand). */
static bool keeps_nothing(const IrNode *user, int index)
{
    const OpInfo *info = op_info(user->op);
    if (user->op == OP_UNKNOWN || info->cls == OPC_STRUCTURE || info->cls == OPC_CONTROL)
        return false;
    if (user->op == OP_PRIM_LISTCONSTRUCT || user->op == OP_PRIM_TUPLECONSTRUCT ||
        user->op == OP_PRIM_DICTCONSTRUCT || user->op == OP_ATEN_APPEND ||
        user->op == OP_ATEN_SET_ITEM || user->op == OP_ATEN_INSERT)
        return false;
    if (info->mutates >= 0 ? index == info->mutates : info->alias != ALIAS_NONE)
        return false;
    for (int i = 0; i < user->noutputs; i++)
        if (tssa_is_container_value(user->outputs[i]))
            return false;
    return true;
}

/* A tuple whose only use is the graph's result: its elements are read
 * at the end, kept by nobody. */
static bool tuple_to_graph_result(const IrNode *n)
{
    if (n->op != OP_PRIM_TUPLECONSTRUCT || n->noutputs != 1)
        return false;
    const IrValue *t = n->outputs[0];
    for (int u = 0; u < t->nuses; u++) {
        const IrNode *user = t->uses[u].user;
        if (user->op != OP_PRIM_RETURN || user->owner->owner)
            return false;
    }
    return true;
}

static bool graph_result(const IrNode *user)
{
    return (user->op == OP_PRIM_RETURN && !user->owner->owner) || tuple_to_graph_result(user);
}

/* A use of a tensor that is a name of object o (or a view of one) inside
 * a block nested in B: only a read that keeps nothing, a write to it, or a
 * view of it is followed (rule 1). */
static void tensor_use_nested(TssaObjectNames *on, int o, const IrValue *v, const IrNode *user,
                              int index)
{
    int mut = op_info(user->op)->mutates;
    if (keeps_nothing(user, index) || (mut >= 0 && index == mut && user->op != OP_UNKNOWN))
        return;
    if (graph_result(user))
        return;
    refuse(on, o, fmt(on->a->g, "%%%s is used by %s inside a block before the write, which "
                                "may give it another name", v->name, user->kind));
}

/* Uses inside the blocks of n (before m) of names the interpretation
 * follows: tensors of objects and tracked lists. */
static void scan_nested(TssaObjectNames *on, IrBlock *b)
{
    for (IrNode *n = ir_block_first(b); n; n = n == b->ret ? NULL : n->next) {
        for (int i = 0; i < n->ninputs; i++) {
            IrValue *v = n->inputs[i];
            int o = obj_of(on, v);
            if (o > 0)
                tensor_use_nested(on, o, v, n, i);
            TrackedList *l = list_of(on, v);
            if (l && !l->lost)
                lose(on, l, fmt(on->a->g, "%%%s, a list holding it, is used inside a block (%s) "
                                          "before the write", l->name->name, n->kind));
        }
        if (n == b->ret)
            break;
        for (int k = 0; k < n->nblocks; k++)
            scan_nested(on, n->blocks[k]);
    }
}

/* A tracked list l as operand `index` of a node of B (rule 2). */
static void list_use(TssaObjectNames *on, TrackedList *l, IrNode *n, int index)
{
    IrGraph *g = on->a->g;
    if (l->lost)
        return;
    switch (n->op) {
    case OP_ATEN_GETITEM:
    case OP_PRIM_LISTUNPACK:
    case OP_ATEN_LEN:
        if (index == 0)
            return;
        break;
    case OP_ATEN_APPEND:
    case OP_ATEN_SET_ITEM:
        if (index == 0)
            return;         /* interpreted below */
        break;
    case OP_ATEN_SLICE:
    case OP_ATEN_LIST:
    case OP_ATEN_ADD:
        if (list_of(on, n->outputs[0]))
            return;         /* a tracked copy */
        break;
    default:
        if (keeps_nothing(n, index) || graph_result(n))
            return;
        break;
    }
    lose(on, l, fmt(g, "%%%s, a list holding it, is used by %s, which the analysis does not "
                       "follow", l->name->name, n->kind));
}

/* A name of object o as operand `index` of node n of B (rule 1). */
static void tensor_use(TssaObjectNames *on, int o, IrValue *v, IrNode *n, int index)
{
    IrGraph *g = on->a->g;
    int mut = op_info(n->op)->mutates;
    if (keeps_nothing(n, index) || graph_result(n))
        return;
    if (mut >= 0 && index == mut && n->op != OP_UNKNOWN && n->op != OP_ATEN_APPEND &&
        n->op != OP_ATEN_SET_ITEM)
        return;                                     /* another write to it */
    if (n->op == OP_PRIM_LISTCONSTRUCT && is_tensor_list(n->outputs[0]))
        return;                                     /* a new tracked list */
    TrackedList *l = n->ninputs ? list_of(on, n->inputs[0]) : NULL;
    if (n->op == OP_ATEN_APPEND && index == 1 && n->ninputs == 2 && l && !l->lost)
        return;
    if (n->op == OP_ATEN_SET_ITEM && index == 2 && n->ninputs == 3 && l && !l->lost &&
        slot_index(on, n->inputs[1], l->n) >= 0)
        return;
    const TssaValueInfo *info = tssa_alias_info(on->a, n->noutputs ? n->outputs[0] : NULL);
    if (info && info->parent == v)
        return;                                     /* a view: checked with its root's tree */
    refuse(on, o, fmt(g, "%%%s is used by %s before the write, which may keep it under a name "
                         "the analysis does not follow", v->name, n->kind));
}

/* The objects of n's outputs and the lists it makes or changes. */
static void interpret(TssaObjectNames *on, IrNode *n)
{
    TssaAlias *a = on->a;
    IrGraph *g = a->g;
    TrackedList *in = n->ninputs ? list_of(on, n->inputs[0]) : NULL;
    if (in && in->lost)
        in = NULL;
    switch (n->op) {
    case OP_PRIM_LISTCONSTRUCT:
        if (n->noutputs == 1 && is_tensor_list(n->outputs[0])) {
            TrackedList *l = new_list(on, n->outputs[0]);
            for (int i = 0; i < n->ninputs; i++)
                push_obj(l, obj_of(on, n->inputs[i]));
        }
        return;
    case OP_ATEN_APPEND:
        if (in && n->ninputs == 2) {
            push_obj(in, obj_of(on, n->inputs[1]));
            if (n->noutputs == 1)
                on->list[n->outputs[0]->id] = (int)(in - on->lists);
        }
        return;
    case OP_ATEN_SET_ITEM:
        if (in && n->ninputs == 3) {
            int k = slot_index(on, n->inputs[1], in->n);
            if (k < 0) {
                lose(on, in, fmt(g, "%%%s, a list holding it, is set at a run-time index before "
                                    "the write", in->name->name));
                return;
            }
            in->objs[k] = obj_of(on, n->inputs[2]);
            if (n->noutputs == 1)
                on->list[n->outputs[0]->id] = (int)(in - on->lists);
        }
        return;
    case OP_ATEN_GETITEM:
        if (in && n->ninputs == 2 && n->noutputs == 1 && tssa_is_tensor_value(n->outputs[0]) &&
            a->values[n->outputs[0]->id].root >= 0 && !a->values[n->outputs[0]->id].parent) {
            int k = slot_index(on, n->inputs[1], in->n);
            int o = k >= 0 ? in->objs[k] : 0;
            if (k < 0 && !known_int(on, n->inputs[1], &(int64_t){0}) && in->n > 0) {
                o = in->objs[0];
                for (int i = 1; i < in->n; i++)
                    if (in->objs[i] != o)
                        o = 0;
                if (!o)
                    refuse_contents(on, in, fmt(g, "%%%s is read at a run-time index from %%%s, "
                                                   "whose slots hold different tensors",
                                                n->outputs[0]->name, in->name->name));
            }
            on->obj[n->outputs[0]->id] = o;
        }
        return;
    case OP_PRIM_LISTUNPACK:
        if (in && n->noutputs == in->n)
            for (int i = 0; i < n->noutputs; i++)
                if (a->values[n->outputs[i]->id].root >= 0 && !a->values[n->outputs[i]->id].parent)
                    on->obj[n->outputs[i]->id] = in->objs[i];
        return;
    case OP_ATEN_SLICE:
        if (in && n->ninputs == 4 && n->noutputs == 1 && is_tensor_list(n->outputs[0])) {
            int64_t lo = 0, hi = in->n, step = 0;
            bool ok = tssa_const_int(n->inputs[3], &step) && step == 1;
            ok = ok && (tssa_is_none(n->inputs[1]) || tssa_const_int(n->inputs[1], &lo));
            ok = ok && (tssa_is_none(n->inputs[2]) || tssa_const_int(n->inputs[2], &hi));
            if (!ok)
                return;
            /* Python's slice bounds: negative from the end, clamped. */
            lo = lo < 0 ? (lo + in->n < 0 ? 0 : lo + in->n) : (lo > in->n ? in->n : lo);
            hi = hi < 0 ? (hi + in->n < 0 ? 0 : hi + in->n) : (hi > in->n ? in->n : hi);
            int from = (int)(in - on->lists);
            TrackedList *l = new_list(on, n->outputs[0]);
            for (int64_t i = lo; i < hi; i++)
                push_obj(l, on->lists[from].objs[i]);
        }
        return;
    case OP_ATEN_LIST:
        if (in && n->ninputs == 1 && n->noutputs == 1 && is_tensor_list(n->outputs[0])) {
            int from = (int)(in - on->lists);
            TrackedList *l = new_list(on, n->outputs[0]);
            for (int i = 0; i < on->lists[from].n; i++)
                push_obj(l, on->lists[from].objs[i]);
        }
        return;
    case OP_ATEN_ADD: {
        TrackedList *r = n->ninputs == 2 ? list_of(on, n->inputs[1]) : NULL;
        if (in && r && !r->lost && n->noutputs == 1 && is_tensor_list(n->outputs[0])) {
            int from = (int)(in - on->lists), other = (int)(r - on->lists);
            TrackedList *l = new_list(on, n->outputs[0]);
            for (int i = 0; i < on->lists[from].n; i++)
                push_obj(l, on->lists[from].objs[i]);
            for (int i = 0; i < on->lists[other].n; i++)
                push_obj(l, on->lists[other].objs[i]);
            return;
        }
        break;
    }
    default:
        break;
    }
    /* A new allocation is a new object. */
    for (int i = 0; i < n->noutputs; i++) {
        IrValue *v = n->outputs[i];
        const TssaValueInfo *info = tssa_alias_info(a, v);
        if (info && !info->parent && a->roots[info->root].kind == TSSA_ROOT_FRESH &&
            a->roots[info->root].value == v)
            on->obj[v->id] = new_object(on);
    }
}

static void interpret_block(TssaObjectNames *on, IrBlock *b, const IrNode *stop);

static long count_nodes(const IrBlock *b)
{
    long count = 0;
    for (const IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        count++;
        for (int k = 0; k < n->nblocks; k++)
            count += count_nodes(n->blocks[k]);
    }
    return count;
}

/* A prim::Loop that runs a known number of times with no break (its
 * condition constant true on entry and after every iteration) is
 * interpreted iteration by iteration: each iteration's allocations are new
 * objects, its carried values the previous iteration's results, its count
 * known. Returns false (the loop is then only scanned) where it cannot. */
static bool unroll(TssaObjectNames *on, IrNode *n)
{
    int64_t trip;
    bool cond;
    if (n->nblocks != 1 || n->ninputs < 2 || !known_int(on, n->inputs[0], &trip) || trip < 0 ||
        !tssa_const_bool(n->inputs[1], &cond) || !cond ||
        on->ncounters == (int)(sizeof on->counters / sizeof on->counters[0]))
        return false;
    IrBlock *body = n->blocks[0];
    int carried = n->noutputs;
    if (ir_block_nreturns(body) != 1 + carried || ir_block_nparams(body) != 1 + carried ||
        n->ninputs != 2 + carried || !tssa_const_bool(ir_block_return(body, 0), &cond) || !cond)
        return false;
    long cost = count_nodes(body) * trip;
    if (cost > on->budget)
        return false;
    on->budget -= cost;
    int *objs = xcalloc((size_t)carried + 1, sizeof *objs);
    int *lists = xcalloc((size_t)carried + 1, sizeof *lists);
    for (int j = 0; j < carried; j++) {
        objs[j] = obj_of(on, n->inputs[2 + j]);
        TrackedList *l = list_of(on, n->inputs[2 + j]);
        lists[j] = l ? (int)(l - on->lists) : -1;
    }
    int top = on->ncounters++;
    on->counters[top].param = ir_block_param(body, 0);
    for (int64_t t = 0; t < trip; t++) {
        on->counters[top].value = t;
        for (int j = 0; j < carried; j++) {
            IrValue *p = ir_block_param(body, 1 + j);
            if (p->id < on->nvalues) {
                on->obj[p->id] = objs[j];
                on->list[p->id] = lists[j];
            }
        }
        interpret_block(on, body, NULL);
        for (int j = 0; j < carried; j++) {
            IrValue *r = ir_block_return(body, 1 + j);
            objs[j] = obj_of(on, r);
            TrackedList *l = list_of(on, r);
            lists[j] = l ? (int)(l - on->lists) : -1;
        }
    }
    on->ncounters--;
    for (int j = 0; j < carried; j++) {
        IrValue *o = n->outputs[j];
        if (o->id >= on->nvalues)
            continue;
        on->obj[o->id] = objs[j];
        on->list[o->id] = lists[j];
        /* A list made inside the loop is named after it by the result. */
        if (lists[j] >= 0 && !tssa_alias_dominates(on->a, on->lists[lists[j]].name, n))
            on->lists[lists[j]].name = o;
    }
    free(objs);
    free(lists);
    return true;
}

/* One node of the block being interpreted: its outputs, then what its
 * uses of followed names say (rules 1 and 2), then its blocks. */
static void step(TssaObjectNames *on, IrNode *n)
{
    on->budget--;
    for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i]->id < on->nvalues) {
            on->obj[n->outputs[i]->id] = 0;
            on->list[n->outputs[i]->id] = -1;
        }
    if (n->op == OP_PRIM_LOOP && unroll(on, n))
        return;
    interpret(on, n);
    for (int i = 0; i < n->ninputs; i++) {
        IrValue *v = n->inputs[i];
        TrackedList *l = list_of(on, v);
        if (l)
            list_use(on, l, n, i);
        int o = obj_of(on, v);
        if (o > 0)
            tensor_use(on, o, v, n, i);
    }
    for (int k = 0; k < n->nblocks; k++)
        scan_nested(on, n->blocks[k]);
}

/* b's nodes in order, up to stop (NULL: the block's end, whose results
 * the caller follows). */
static void interpret_block(TssaObjectNames *on, IrBlock *b, const IrNode *stop)
{
    for (IrNode *n = ir_block_first(b); n != b->ret && n != stop; n = n->next)
        step(on, n);
}

/* Rule 3 and rule 1 for the views of a name v of object o (not m's
 * written root when v is it: alias.c re-reads those). */
static void check_views(TssaObjectNames *on, int o, IrValue *v, bool written_root)
{
    TssaAlias *a = on->a;
    const TssaValueInfo *info = tssa_alias_info(a, v);
    if (!info || info->parent)
        return;
    const TssaRoot *root = &a->roots[info->root];
    if (root->value != v)
        return;
    int64_t threshold = tssa_alias_pos(a, on->write);
    for (int t = 0; t < root->ntree; t++) {
        IrValue *w = root->tree[t];
        if (w == v)
            continue;
        if (!written_root && tssa_alias_dominates(a, w, on->write) &&
            a->values[w->id].last_use > threshold) {
            refuse(on, o, fmt(a->g, "%%%s, a view of %%%s (another name of the tensor), is read "
                                    "after the write", w->name, v->name));
            return;
        }
        for (int u = 0; u < w->nuses; u++) {
            IrNode *user = w->uses[u].user;
            int index = w->uses[u].index;
            int mut = op_info(user->op)->mutates;
            if (keeps_nothing(user, index) || (mut >= 0 && index == mut && user->op != OP_UNKNOWN))
                continue;
            const TssaValueInfo *out = user->noutputs ? tssa_alias_info(a, user->outputs[0]) : NULL;
            if (out && out->parent == w)
                continue;                   /* a further view, in the tree */
            if (user->op == OP_PRIM_RETURN && !user->owner->owner)
                continue;
            refuse(on, o, fmt(a->g, "%%%s, a view of %%%s, is used by %s, which may keep it",
                              w->name, v->name, user->kind));
            return;
        }
    }
}

TssaObjectNames *tssa_object_names_new(TssaAlias *a)
{
    TssaObjectNames *on = xcalloc(1, sizeof *on);
    on->a = a;
    on->nvalues = a->nvalues;
    size_t n = on->nvalues ? on->nvalues : 1;
    on->obj = xcalloc(n, sizeof *on->obj);
    on->list = xcalloc(n, sizeof *on->list);
    return on;
}

void tssa_object_names_free(TssaObjectNames *on)
{
    if (!on)
        return;
    for (int i = 0; i < on->nlists; i++)
        free(on->lists[i].objs);
    free(on->lists);
    free(on->obj);
    free(on->list);
    free(on->refused);
    free(on);
}

static void reset(TssaObjectNames *on)
{
    for (int i = 0; i < on->nlists; i++)
        free(on->lists[i].objs);
    on->nlists = 0;
    memset(on->obj, 0, sizeof *on->obj * on->nvalues);
    on->nobjs = 0;
    on->ncounters = 0;
    on->budget = 200000;
    for (uint32_t i = 0; i < on->nvalues; i++)
        on->list[i] = -1;
}

const char *tssa_object_names_resolve(TssaObjectNames *on, const TssaMutation *m, TssaObjectPlan *plan)
{
    TssaAlias *a = on->a;
    IrGraph *g = a->g;
    const TssaRoot *root = &a->roots[m->root];
    IrValue *written = root->value;
    memset(plan, 0, sizeof *plan);
    reset(on);
    on->block = m->node->owner;
    on->write = m->node;
    if (written->id >= on->nvalues)
        return fmt(g, "%%%s was made after the analysis", written->name);

    /* The block's nodes before m, in order (rules 1 and 2 as they go). */
    interpret_block(on, (IrBlock *)on->block, m->node);

    int o = obj_of(on, written);
    if (!o) {
        const char *what = root->kind == TSSA_ROOT_MERGE ? "merged by control flow (which tensor "
                                                           "it is depends on the path taken)"
                           : root->kind == TSSA_ROOT_CONTAINER
                               ? "read from a list this block does not build, or from a slot "
                                 "whose tensor is not known"
                               : "not a tensor this block allocates";
        return fmt(g, "%%%s is %s", written->name, what);
    }

    /* Names: values of the block before m that are o. */
    int64_t at = tssa_alias_pos(a, m->node);
    IrValue **names = NULL;
    int nnames = 0, cap = 0;
    for (IrNode *n = ir_block_first(on->block); n != m->node && !on->refused[o - 1]; n = n->next)
        for (int i = 0; i < n->noutputs; i++) {
            IrValue *v = n->outputs[i];
            if (obj_of(on, v) != o)
                continue;
            check_views(on, o, v, v == written);
            if (v == written || a->values[v->id].last_use <= at)
                continue;
            if (nnames == cap) {
                cap = cap ? cap * 2 : 4;
                names = xrealloc(names, sizeof *names * (size_t)cap);
            }
            names[nnames++] = v;
        }
    if (on->refused[o - 1]) {
        free(names);
        return on->refused[o - 1];
    }

    /* Slots: the tracked lists holding o at m. */
    int nslots = 0;
    for (int i = 0; i < on->nlists; i++) {
        /* A list no name at m reaches (made in an iteration, not carried
         * out) is dead. */
        if (!tssa_alias_dominates(a, on->lists[i].name, m->node))
            on->lists[i].lost = true;
        for (int k = 0; k < on->lists[i].n; k++)
            nslots += on->lists[i].objs[k] == o && !on->lists[i].lost;
    }
    plan->names = arena_alloc(g->arena, sizeof *plan->names * (size_t)(nnames ? nnames : 1));
    plan->slots = arena_alloc(g->arena, sizeof *plan->slots * (size_t)(nslots ? nslots : 1));
    for (int i = 0; i < nnames; i++)
        plan->names[i] = names[i];
    plan->nnames = nnames;
    for (int i = 0; i < on->nlists; i++)
        for (int k = 0; k < on->lists[i].n; k++)
            if (on->lists[i].objs[k] == o && !on->lists[i].lost)
                plan->slots[plan->nslots++] = (TssaSlot){on->lists[i].name, k};
    plan->resolved = true;
    free(names);
    return NULL;
}
