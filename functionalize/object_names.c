/* object_names.c — every name and list slot that holds the tensor a write
 * changes, where the program decides them (issue 30: "TensorSSA follows
 * tensors through lists").
 *
 * alias.c keeps a write imperative when another name may observe the
 * written tensor: the same tensor in two list slots, a name read again
 * after a write through its slot, a slice copy of a list sharing the
 * element objects, an element read at a run-time index before the list
 * grows, a loop-carried or If-merged name that is a list element. Where
 * those names are decided by the program, a write need not stay
 * imperative: it gives every name and every slot holding the object the
 * new version. This file finds them, or says why it cannot.
 *
 * The view. The interpretation starts at a block A: the write m's block,
 * else the next enclosing block, out to the graph's (the first that
 * decides every run of m is used). An abstract object is one run of an
 * allocation in A (alias.c's fresh root). A tracked list is a Tensor[]
 * made in A by prim::ListConstruct or copied from a tracked list (l[a:b]
 * with constant bounds and step 1, list(l), l + r); its contents, one
 * object per slot (0: not an object), are followed through append and
 * _set_item at a known index. A's nodes are interpreted in order:
 *
 *   x = alloc(...)          obj(x) = a new object
 *   l = [a, b]              contents(l) = [obj(a), obj(b)]
 *   l.append(a)             contents(l) += [obj(a)]
 *   l[c] = a                contents(l)[c] = obj(a)      (c known, in range)
 *   y = l[c]                obj(y) = contents(l)[c]      (c normalized by the length)
 *   y = l[j]                obj(y) = o when every slot holds o (j at run time:
 *                                     whichever slot it names, it is o)
 *   l2 = l[a:b], list(l)    a new list with those slots' objects
 *   k == 0, k + 1, i % 2    ints (comparisons, + - * %), where their operands
 *   len(l)                  are known (constants, loop counts, int and bool
 *                           graph inputs bound at compile time); the length
 *                           of a followed list
 *
 * A prim::Loop with a known trip count and no break (its condition
 * constant true on entry and after each iteration) is interpreted
 * iteration by iteration with its count known: an allocation in its body
 * is a new object every iteration, a carried value the previous
 * iteration's result (the first iteration's the loop's input), the loop's
 * result the last iteration's (its input when it runs none). A prim::If
 * whose condition is known runs its taken block; its results are that
 * block's. This is the program's own execution: a loop that appends each
 * new y leaves its result in the last slot, the value it starts from is
 * in the slot its first iteration appended, `if k == 0: w = m[0]` makes w
 * m[0]'s tensor on every iteration. A list made in an iteration and not
 * carried out is dead after it. Other loops and branches are only scanned
 * for uses (rules 1, 2), and a write inside one is not met.
 *
 * Each run of m met gives: o = obj(written root), which must be an object;
 * its names, the values in scope at m (A's down to m's block, parameters
 * included) with obj = o that are read after m (alias.c's "after": in a
 * loop not making the value, any use in the loop); its slots, the slots
 * of the tracked lists reachable at m (named by a value in scope) holding
 * o, named by the written element's own index value where that names the
 * slot (l[i] in a loop over i), else by the constant, counted from the
 * start or, where only that agrees between runs, from the end (the last
 * slot after appends: -1, normalized against the length at the write,
 * which the interpretation knows). Every run must give
 * the same slots and names, with one exception: a name that is o on every
 * iteration of the loop around m but its first (a name carried from the
 * previous iteration, `prev = cur`) gets prim::If(count == 0){name}{new},
 * one that is o on its first iteration only (the value the loop starts
 * from, the first element) prim::If(count == 0){new}{name}.
 * The write then gives each name tssa::update(new, name) (renaming applies
 * it to every later use, block propagation carries it through loops and
 * branches) and each slot aten::_set_item(l, index, new), which
 * list_versions.c makes a new version of the list (rewrite_mutation.c
 * emits both).
 *
 * Why this is exact. The interpretation follows every way the program
 * gives o another name, and refuses o (the write stays imperative, with
 * the reason) whenever one of them leaves what it follows:
 *
 *  1. A name of o (or a view of one) used before a run of m by anything
 *     but a read that keeps nothing (an op making new storage from it,
 *     len, an in-place write to it): stored into a container that is not
 *     a tracked list (or at an unknown index), passed through control flow
 *     not interpreted (a block's result, a loop's initial value, a use
 *     inside such a block other than a read), given to an op whose result
 *     may alias it (reshape, an unknown op, a view of a name other than
 *     the written root), returned from a block that is not the graph's.
 *  2. A tracked list holding o used before a run of m other than by
 *     getitem, len, ListUnpack, reading ops (stack, cat), append and
 *     _set_item followed above, copies followed above, the graph's result:
 *     its slots are no longer known. A getitem at an unknown index whose
 *     slots hold different objects refuses every object of the list.
 *  3. A view of another name of o (not the written root, whose views
 *     alias.c re-reads from the new version) alive at m and read after it.
 *
 * With 1-3 no value other than the names found can be o at a run of m:
 * values made before o's allocation are not o; values made from o's names
 * by reading ops own new storage; values from outside A, from blocks not
 * interpreted and from untracked containers could be o only if o flowed
 * there, which 1 refuses; values after m are made from the versions
 * renaming gives them. No container other than the slots found holds o,
 * by 1 and 2. The rewrite is one piece of code for every run, which is
 * why the runs must agree (or differ only as the first-iteration select
 * says, decided by the loop's count at run time). So every observer of o
 * gets the new version, as the program's shared object does. Uses after
 * m need no check: they read the version current at their place.
 *
 * What stays imperative (the reasons name it): a write whose tensor is
 * not an allocation followed from A (a graph input or a view of one, a
 * tensor from a list the program did not build, a name merged by a loop
 * whose trip count is not known or a branch whose condition is not), a
 * list whose slots are changed at an unknown index or inside a block not
 * interpreted before the write, names or slots that differ between runs
 * otherwise than by the first iteration, pieces of split/chunk taken at a
 * run-time index (not views alias.c follows).
 *
 * Cost: per write alias.c refused for aliasing, per enclosing block tried,
 * the nodes interpreted (loops unrolled within a budget of 200,000 nodes)
 * plus, per run of the write, the values in scope and the tracked slots.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"
#include "tssa/value.h"

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
    int64_t *ival;          /* by value id: an int the interpretation computed */
    bool *has_ival;
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
    const IrBlock *root_block;  /* where the interpretation starts */
    const IrNode *write;
    IrValue *written;           /* the written root */
    IrValue *loop_counter;          /* the count of the loop whose body holds the write */
    int runs, runs_first;       /* runs of the write met; those in that loop's first iteration */
    const char *failed;         /* why a run is not decided */
    struct Candidate {
        IrValue *value;         /* a name of the written tensor at some run */
        int seen, seen_first;
    } *cands;
    int ncands, cap_cands;
    TssaSlot *slots;            /* the first run's slots (arena) */
    int nslots;
    int64_t *from_end;          /* their indices counted from the end (negative) */
    bool *from_start_ok, *from_end_ok;  /* every run agrees on that form */
};

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

/* An int or bool graph input bound at compile time: every stage after
 * functionalization is specialized to the bound inputs, and every --inputs
 * set must bind the same scalars (the driver checks), so a loop whose trip
 * count comes from one (`for step in range(first, last + 1)`) is as known
 * here as one with a constant count. */
static bool bound_scalar_input(const TssaObjectNames *on, const IrValue *v, int64_t *out)
{
    const TssaOptions *opt = &on->a->opt;
    const IrBlock *top = on->a->g->top;
    if (!opt->inputs || !v->def || v->def->op != OP_PRIM_PARAM || v->def->owner != top)
        return false;
    for (int i = 0; i < ir_block_nparams(top) && i < opt->ninputs; i++) {
        if (ir_block_param(top, i) != v)
            continue;
        const RtValue *bound = opt->inputs[i];
        if (!bound || (bound->kind != RT_INT && bound->kind != RT_BOOL))
            return false;
        *out = bound->u.i;
        return true;
    }
    return false;
}

/* An int the interpretation knows: a constant, a bound scalar input, or
 * the count of a loop it is unrolling. */
static bool known_int(const TssaObjectNames *on, const IrValue *v, int64_t *out)
{
    if (tssa_const_int(v, out) || bound_scalar_input(on, v, out))
        return true;
    for (int i = on->ncounters - 1; i >= 0; i--)
        if (on->counters[i].param == v) {
            *out = on->counters[i].value;
            return true;
        }
    if (v->id < on->nvalues && on->has_ival[v->id]) {
        *out = on->ival[v->id];
        return true;
    }
    return false;
}

static void set_int(TssaObjectNames *on, const IrValue *v, int64_t k)
{
    if (v->id < on->nvalues) {
        on->ival[v->id] = k;
        on->has_ival[v->id] = true;
    }
}

/* Int arithmetic and comparisons on known ints (a branch on `k == 0` in
 * an unrolled loop is decided), and the length of a followed list. */
static void interpret_int(TssaObjectNames *on, const IrNode *n)
{
    int64_t x, y;
    if (n->noutputs != 1 || !n->outputs[0]->type)
        return;
    IrTypeKind out = n->outputs[0]->type->kind;
    if (n->op == OP_ATEN_LEN && n->ninputs == 1 && out == TY_INT) {
        int idx = n->inputs[0]->id < on->nvalues ? on->list[n->inputs[0]->id] : -1;
        if (idx >= 0 && !on->lists[idx].lost)
            set_int(on, n->outputs[0], on->lists[idx].n);
        return;
    }
    if (n->ninputs != 2 || (out != TY_INT && out != TY_BOOL) || !known_int(on, n->inputs[0], &x) ||
        !known_int(on, n->inputs[1], &y))
        return;
    switch (n->op) {
    case OP_ATEN_EQ: set_int(on, n->outputs[0], x == y); break;
    case OP_ATEN_NE: set_int(on, n->outputs[0], x != y); break;
    case OP_ATEN_LT: set_int(on, n->outputs[0], x < y); break;
    case OP_ATEN_LE: set_int(on, n->outputs[0], x <= y); break;
    case OP_ATEN_GT: set_int(on, n->outputs[0], x > y); break;
    case OP_ATEN_GE: set_int(on, n->outputs[0], x >= y); break;
    case OP_ATEN_ADD:
        if (out == TY_INT && !__builtin_add_overflow(x, y, &x))
            set_int(on, n->outputs[0], x);
        break;
    case OP_ATEN_SUB:
        if (out == TY_INT && !__builtin_sub_overflow(x, y, &x))
            set_int(on, n->outputs[0], x);
        break;
    case OP_ATEN_MUL:
        if (out == TY_INT && !__builtin_mul_overflow(x, y, &x))
            set_int(on, n->outputs[0], x);
        break;
    case OP_ATEN_REMAINDER:     /* Python's %: the sign of the divisor */
        if (out == TY_INT && y != 0 && !(x == INT64_MIN && y == -1)) {
            int64_t r = x % y;
            if (r != 0 && (r < 0) != (y < 0))
                r += y;
            set_int(on, n->outputs[0], r);
        }
        break;
    default:
        break;
    }
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
        user->op == OP_ATEN_SET_ITEM || user->op == OP_ATEN_INSERT || user->op == OP_PRIM_SETATTR ||
        tssa_returns_element(user))     /* d.get(k, t) may be t; setdefault may store it */
        return false;
    if (info->mutates >= 0 ? index == info->mutates : info->alias != ALIAS_NONE)
        return false;
    for (int i = 0; i < user->noutputs; i++)
        if (tssa_is_container_value(user->outputs[i]))
            return false;
    return true;
}

/* A read of a followed list that keeps none of its items: as above, and
 * the node writes nothing (l2.extend(l), l2 += l and list.sort() return
 * nothing or a list and change a list in place) and returns something. */
static bool reads_list(const IrNode *user, int index)
{
    if (user->op == OP_ATEN_SORT || user->op == OP_ATEN_EXTEND || user->op == OP_ATEN_REVERSE ||
        user->noutputs == 0 || op_info(user->op)->mutates >= 0)
        return false;
    return keeps_nothing(user, index);
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
    refuse(on, o, ir_internf(on->a->g, "%%%s is used by %s inside a block before the write, which "
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
                lose(on, l, ir_internf(on->a->g, "%%%s, a list holding it, is used inside a block (%s) "
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
        if (reads_list(n, index) || graph_result(n))
            return;
        break;
    }
    lose(on, l, ir_internf(g, "%%%s, a list holding it, is used by %s, which the analysis does not "
                       "follow", l->name->name, n->kind));
}

static void check_views(TssaObjectNames *on, int o, IrValue *v, bool written_root);

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
    if (n->op == OP_PRIM_LISTCONSTRUCT && tssa_is_tensor_list(n->outputs[0]))
        return;                                     /* a new tracked list */
    TrackedList *l = n->ninputs ? list_of(on, n->inputs[0]) : NULL;
    if (n->op == OP_ATEN_APPEND && index == 1 && n->ninputs == 2 && l && !l->lost)
        return;
    if (n->op == OP_ATEN_SET_ITEM && index == 2 && n->ninputs == 3 && l && !l->lost &&
        slot_index(on, n->inputs[1], l->n) >= 0)
        return;
    const TssaValueInfo *info = tssa_alias_info(on->a, n->noutputs ? n->outputs[0] : NULL);
    if (info && info->parent == v) {
        /* A view: its tree may not be stored or merged anywhere (checked
         * now, as v may be out of scope at the write). */
        check_views(on, o, v, true);
        return;
    }
    refuse(on, o, ir_internf(g, "%%%s is used by %s before the write, which may keep it under a name "
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
        if (n->noutputs == 1 && tssa_is_tensor_list(n->outputs[0])) {
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
                lose(on, in, ir_internf(g, "%%%s, a list holding it, is set at a run-time index before "
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
                    refuse_contents(on, in, ir_internf(g, "%%%s is read at a run-time index from %%%s, "
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
        if (in && n->ninputs == 4 && n->noutputs == 1 && tssa_is_tensor_list(n->outputs[0])) {
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
        if (in && n->ninputs == 1 && n->noutputs == 1 && tssa_is_tensor_list(n->outputs[0])) {
            int from = (int)(in - on->lists);
            TrackedList *l = new_list(on, n->outputs[0]);
            for (int i = 0; i < on->lists[from].n; i++)
                push_obj(l, on->lists[from].objs[i]);
        }
        return;
    case OP_ATEN_ADD: {
        TrackedList *r = n->ninputs == 2 ? list_of(on, n->inputs[1]) : NULL;
        if (in && r && !r->lost && n->noutputs == 1 && tssa_is_tensor_list(n->outputs[0])) {
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
static void record_run(TssaObjectNames *on);

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
                on->has_ival[p->id] = false;
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
    if (n == on->write)
        record_run(on);
    for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i]->id < on->nvalues) {
            on->obj[n->outputs[i]->id] = 0;
            on->list[n->outputs[i]->id] = -1;
            on->has_ival[n->outputs[i]->id] = false;
        }
    if (n->op == OP_PRIM_LOOP && unroll(on, n))
        return;
    int64_t cond;
    if (n->op == OP_PRIM_IF && n->nblocks == 2 && n->ninputs == 1 &&
        known_int(on, n->inputs[0], &cond)) {
        /* A branch decided here runs its taken block only; its results
         * are that block's. */
        IrBlock *taken = n->blocks[cond ? 0 : 1];
        interpret_block(on, taken, NULL);
        for (int i = 0; i < n->noutputs && i < ir_block_nreturns(taken); i++) {
            IrValue *o = n->outputs[i], *r = ir_block_return(taken, i);
            if (o->id >= on->nvalues)
                continue;
            on->obj[o->id] = obj_of(on, r);
            on->list[o->id] = r->id < on->nvalues ? on->list[r->id] : -1;
            int64_t k;
            if (known_int(on, r, &k))
                set_int(on, o, k);
        }
        return;
    }
    interpret_int(on, n);
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
            refuse(on, o, ir_internf(a->g, "%%%s, a view of %%%s (another name of the tensor), is read "
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
            refuse(on, o, ir_internf(a->g, "%%%s, a view of %%%s, is used by %s, which may keep it",
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
    on->ival = xcalloc(n, sizeof *on->ival);
    on->has_ival = xcalloc(n, sizeof *on->has_ival);
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
    free(on->ival);
    free(on->has_ival);
    free(on->refused);
    free(on->cands);
    free(on);
}

static void reset(TssaObjectNames *on)
{
    for (int i = 0; i < on->nlists; i++)
        free(on->lists[i].objs);
    on->nlists = 0;
    memset(on->obj, 0, sizeof *on->obj * on->nvalues);
    memset(on->has_ival, 0, sizeof *on->has_ival * on->nvalues);
    on->nobjs = 0;
    on->ncounters = 0;
    on->ncands = 0;
    on->runs = on->runs_first = 0;
    on->failed = NULL;
    on->slots = NULL;
    on->nslots = 0;
    on->from_end = NULL;
    on->budget = 200000;
    for (uint32_t i = 0; i < on->nvalues; i++)
        on->list[i] = -1;
}

/* ---------------------------------------------------------------- runs of the write */

/* The values in scope at m, from its block out to the interpretation's
 * root block: a block's parameters and the results of its nodes before
 * m (or before the node holding m). */
static void scope_values(TssaObjectNames *on, IrValue ***out, int *n, int *cap)
{
    const IrNode *stop = on->write;
    for (const IrBlock *b = stop->owner; b; ) {
        for (int i = 0; i < ir_block_nparams(b) + 0; i++) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 32;
                *out = xrealloc(*out, sizeof **out * (size_t)*cap);
            }
            (*out)[(*n)++] = ir_block_param(b, i);
        }
        for (const IrNode *x = ir_block_first(b); x != stop; x = x->next)
            for (int i = 0; i < x->noutputs; i++) {
                if (*n == *cap) {
                    *cap = *cap ? *cap * 2 : 32;
                    *out = xrealloc(*out, sizeof **out * (size_t)*cap);
                }
                (*out)[(*n)++] = x->outputs[i];
            }
        if (b == on->root_block || !b->owner)
            break;
        stop = b->owner;
        b = stop->owner;
    }
}

static void add_candidate(TssaObjectNames *on, IrValue *v, bool first)
{
    for (int i = 0; i < on->ncands; i++)
        if (on->cands[i].value == v) {
            on->cands[i].seen++;
            on->cands[i].seen_first += first;
            return;
        }
    if (on->ncands == on->cap_cands) {
        on->cap_cands = on->cap_cands ? on->cap_cands * 2 : 8;
        on->cands = xrealloc(on->cands, sizeof *on->cands * (size_t)on->cap_cands);
    }
    on->cands[on->ncands++] = (struct Candidate){v, 1, first};
}

/* The slots holding o at this run, as (list name, index): a list is
 * named by the first value in scope at m that is it (none: it is dead
 * here, as a list made in an earlier iteration); the index is the written
 * element's own index value where it names the slot at the write (l[i]
 * with i a loop's count, l[-1] after appends: a different slot each run),
 * else the constant. */
static int run_slots(TssaObjectNames *on, int o, IrValue *const *scope, int nscope, TssaSlot *out,
                     int64_t *from_end, int cap)
{
    const IrNode *read = on->written->def;
    int read_list = -1;
    int64_t read_index = -1;
    if (read->op == OP_ATEN_GETITEM && read->ninputs == 2 && read->inputs[0]->id < on->nvalues &&
        known_int(on, read->inputs[1], &read_index))
        read_list = on->list[read->inputs[0]->id];
    bool read_list_in_scope = false;
    for (int i = 0; i < nscope; i++)
        read_list_in_scope |= scope[i] == read->inputs[0];
    int n = 0;
    for (int i = 0; i < on->nlists; i++) {
        const TrackedList *l = &on->lists[i];
        IrValue *name = NULL;
        for (int s = 0; s < nscope && !name; s++)
            if (scope[s]->id < on->nvalues && on->list[scope[s]->id] == i)
                name = scope[s];
        if (l->lost || !name)
            continue;
        for (int k = 0; k < l->n; k++) {
            if (l->objs[k] != o)
                continue;
            if (n == cap)
                return -1;
            /* A set at the write normalizes a negative index against the
             * length then: l[-1] names slot k if the list has k + 1 slots. */
            bool own = i == read_list && read_list_in_scope &&
                       (read_index >= 0 ? read_index : read_index + l->n) == k;
            from_end[n] = k - l->n;
            out[n++] = own ? (TssaSlot){read->inputs[0], k, read->inputs[1]}
                           : (TssaSlot){name, k, NULL};
        }
    }
    return n;
}

/* Slot i of this run against the first run's: the same list and index
 * value, or the same list and then the same index counted from the start
 * (clears *from_start otherwise) or from the end (clears *from_end_ok). */
static bool same_slot(const TssaSlot *x, int64_t x_end, const TssaSlot *y, int64_t y_end,
                      bool *from_start, bool *from_end_ok)
{
    if (x->list != y->list)
        return false;
    if (x->index_value || y->index_value)
        return x->index_value == y->index_value;
    *from_start &= x->index == y->index;
    *from_end_ok &= x_end == y_end;
    return *from_start || *from_end_ok;
}

enum { MAX_SLOTS = 256 };

/* Why the written root is not an object the interpretation followed. */
static const char *unknown_object(TssaObjectNames *on)
{
    TssaAlias *a = on->a;
    IrGraph *g = a->g;
    const IrValue *w = on->written;
    const TssaRoot *root = &a->roots[a->values[w->id].root];
    const IrNode *read = w->def;
    if (root->kind == TSSA_ROOT_CONTAINER && read->op == OP_ATEN_GETITEM && read->ninputs == 2) {
        const IrValue *l = read->inputs[0];
        const IrNode *d = l->def;
        if (l->id < on->nvalues && on->list[l->id] >= 0 && !on->lists[on->list[l->id]].lost)
            return ir_internf(g, "%%%s is read from %%%s at a slot holding a tensor not allocated in the "
                          "program (a graph input, a view, a tensor from outside the lists followed)",
                       w->name, l->name);
        if (d->op == OP_PRIM_PARAM && d->owner->owner && d->owner->owner->op == OP_PRIM_LOOP)
            return ir_internf(g, "%%%s is read from %%%s, carried by a loop whose trip count is not known "
                          "or that may break: which list it is, and what its slots hold, depends on "
                          "the iterations run", w->name, l->name);
        if (d->op == OP_PRIM_PARAM)
            return ir_internf(g, "%%%s is read from %%%s, a graph input", w->name, l->name);
        if (l->id < on->nvalues && on->list[l->id] >= 0)
            return ir_internf(g, "%%%s is read from %%%s, whose slots are no longer known", w->name, l->name);
        return ir_internf(g, "%%%s is read from %%%s, made by %s, not a list of tensors the analysis "
                      "follows", w->name, l->name, d->kind);
    }
    if (root->kind == TSSA_ROOT_MERGE)
        return ir_internf(g, "%%%s is merged by control flow not followed run by run (which tensor it is "
                      "depends on the path taken)", w->name);
    return ir_internf(g, "%%%s is not a tensor the analysis follows from its allocation", w->name);
}

/* One run of the write m, met by the interpretation: its object, names
 * and slots, which every run must agree on. */
static void record_run(TssaObjectNames *on)
{
    TssaAlias *a = on->a;
    IrGraph *g = a->g;
    if (on->failed)
        return;
    on->runs++;
    bool first = on->loop_counter && known_int(on, on->loop_counter, &(int64_t){0}) &&
                 on->counters[on->ncounters - 1].param == on->loop_counter &&
                 on->counters[on->ncounters - 1].value == 0;
    on->runs_first += first;
    int o = obj_of(on, on->written);
    if (!o) {
        on->failed = unknown_object(on);
        return;
    }
    IrValue **scope = NULL;
    int nscope = 0, cap = 0;
    scope_values(on, &scope, &nscope, &cap);
    for (int i = 0; i < nscope; i++) {
        IrValue *v = scope[i];
        if (obj_of(on, v) != o)
            continue;
        check_views(on, o, v, v == on->written);
        if (v == on->written ||
            a->values[v->id].last_use <= tssa_alias_after_threshold(a, v, on->write))
            continue;
        add_candidate(on, v, first);
    }
    if (on->refused[o - 1]) {
        free(scope);
        on->failed = on->refused[o - 1];
        return;
    }
    TssaSlot slots[MAX_SLOTS];
    int64_t from_end[MAX_SLOTS];
    int n = run_slots(on, o, scope, nscope, slots, from_end, MAX_SLOTS);
    free(scope);
    if (n < 0) {
        on->failed = ir_internf(g, "%%%s is held in more than %d list slots", on->written->name, MAX_SLOTS);
        return;
    }
    if (on->runs == 1) {
        on->slots = arena_alloc(g->arena, sizeof *on->slots * (size_t)(n ? n : 1));
        on->from_end = arena_alloc(g->arena, sizeof *on->from_end * (size_t)(n ? n : 1));
        on->from_start_ok = arena_alloc(g->arena, sizeof *on->from_start_ok * (size_t)(n ? n : 1));
        on->from_end_ok = arena_alloc(g->arena, sizeof *on->from_end_ok * (size_t)(n ? n : 1));
        memcpy(on->slots, slots, sizeof *slots * (size_t)n);
        memcpy(on->from_end, from_end, sizeof *from_end * (size_t)n);
        for (int i = 0; i < n; i++)
            on->from_start_ok[i] = on->from_end_ok[i] = true;
        on->nslots = n;
        return;
    }
    bool same = n == on->nslots;
    for (int i = 0; same && i < n; i++)
        same = same_slot(&slots[i], from_end[i], &on->slots[i], on->from_end[i],
                         &on->from_start_ok[i], &on->from_end_ok[i]);
    if (!same)
        on->failed = ir_internf(g, "the list slots holding %%%s differ between runs of the write",
                         on->written->name);
}

/* The interpretation from root block A: fills plan or says why not. */
static const char *resolve_from(TssaObjectNames *on, const TssaMutation *m, IrBlock *A,
                                TssaObjectPlan *plan)
{
    TssaAlias *a = on->a;
    IrGraph *g = a->g;
    reset(on);
    on->root_block = A;
    on->write = m->node;
    on->written = a->roots[m->root].value;
    /* The loop whose body holds the write: names that are the tensor on
     * all its iterations but the first are selected by its count. */
    const IrNode *owner = m->node->owner->owner;
    on->loop_counter = owner && owner->op == OP_PRIM_LOOP && m->node->owner != A
                           ? ir_block_param(m->node->owner, 0)
                           : NULL;
    interpret_block(on, A, NULL);
    if (on->failed)
        return on->failed;
    if (!on->runs)
        return ir_internf(g, "the write is inside a loop or branch that the analysis cannot follow run by "
                      "run (a trip count or condition not known)");
    /* Each candidate: the tensor on every run, on every run but those of
     * the loop's first iteration, or on those only. */
    int nnames = 0, nlater = 0, nfirst = 0;
    bool split = on->loop_counter && on->runs_first > 0 && on->runs_first < on->runs;
    for (int i = 0; i < on->ncands; i++) {
        const struct Candidate *c = &on->cands[i];
        if (c->seen == on->runs)
            nnames++;
        else if (split && c->seen_first == 0 && c->seen == on->runs - on->runs_first)
            nlater++;
        else if (split && c->seen_first == on->runs_first && c->seen == c->seen_first)
            nfirst++;
        else
            return ir_internf(g, "%%%s is the written tensor on some runs of the write and not on others",
                       c->value->name);
    }
    plan->names = arena_alloc(g->arena, sizeof *plan->names * (size_t)(nnames ? nnames : 1));
    plan->later_names = arena_alloc(g->arena, sizeof *plan->later_names * (size_t)(nlater ? nlater : 1));
    plan->first_names = arena_alloc(g->arena, sizeof *plan->first_names * (size_t)(nfirst ? nfirst : 1));
    for (int i = 0; i < on->ncands; i++) {
        const struct Candidate *c = &on->cands[i];
        if (c->seen == on->runs)
            plan->names[plan->nnames++] = c->value;
        else if (c->seen_first == 0)
            plan->later_names[plan->nlater++] = c->value;
        else
            plan->first_names[plan->nfirst++] = c->value;
    }
    plan->counter = nlater || nfirst ? on->loop_counter : NULL;
    /* A slot every run names the same way from the end only (the last
     * slot after appends) is set by that negative index, which the set
     * normalizes against the list's length at the write. */
    for (int i = 0; i < on->nslots; i++)
        if (!on->slots[i].index_value && !on->from_start_ok[i])
            on->slots[i].index = on->from_end[i];
    plan->slots = on->slots;
    plan->nslots = on->nslots;
    plan->resolved = true;
    return NULL;
}

const char *tssa_object_names_resolve(TssaObjectNames *on, const TssaMutation *m, TssaObjectPlan *plan)
{
    TssaAlias *a = on->a;
    memset(plan, 0, sizeof *plan);
    if (a->roots[m->root].value->id >= on->nvalues)
        return ir_internf(a->g, "%%%s was made after the analysis", a->roots[m->root].value->name);
    /* From the write's block outwards: the first block from which every
     * run of the write is decided. The reason kept is the one of the
     * outermost block whose interpretation met the write. */
    const char *why = NULL;
    for (IrBlock *b = m->node->owner; b; b = b->owner ? b->owner->owner : NULL) {
        const char *w = resolve_from(on, m, b, plan);
        if (!w)
            return NULL;
        memset(plan, 0, sizeof *plan);
        if (!why || on->runs)
            why = w;
    }
    return why;
}
