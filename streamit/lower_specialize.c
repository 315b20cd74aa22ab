/* lower_specialize.c — multistage compilation: the graph specialized to its
 * bound inputs.
 *
 * Once inputs are bound, the scalar slice of the program is known: constants,
 * module attributes (weights and flags), sizes and ranks of bound tensors,
 * int and float arithmetic on those, lists and tuples of them, list
 * indexing. This pass walks the top level in program order and runs every
 * node of that slice exactly once, now, with the ref backend's op bindings
 * (node_exec), so loop trip counts, write indices and If conditions become
 * known values. A node belongs to the slice when
 *   - it has no blocks and no side effect (no in-place write, print,
 *     warning, setattr or raise) and its declared outputs can hold no tensor
 *     (ints, floats, bools, lists and tuples of them: sizes, arithmetic),
 *   - every input is a compile-time value or a graph input, and
 *   - its result holds no tensor, except prim::Constant and prim::GetAttr,
 *     whose tensors are constants of the program (weights).
 * A list that is written in place anywhere (append, sort, ...) is left out,
 * with everything computed from it: the slice cannot replay those writes.
 * Tensor work runs here in two cases: views of bound tensors
 * (view_of_known below: free, and the run's own values) so that their sizes
 * are known, and tensor work on compile-time values only
 * (constant_tensor_work below: the same result on every run, kept as
 * weights are). A node of the slice that fails (an index out of range) is left
 * to fail at run time, where it reports as usual.
 *
 * A top-level prim::Loop made only of the slice's nodes (and loops and Ifs
 * of them) over compile-time values runs now too, all its iterations
 * (fold_scalar_control below).
 *
 * prim::If with a compile-time condition is folded: the taken block's nodes
 * move before the If, its results replace the If's outputs, and the walk
 * continues into the moved nodes (so nested static structure folds too).
 * Inside loops and Ifs that stay, the slice's nodes whose inputs are all
 * compile-time values are hoisted to the top level (hoist_static below).
 * A top-level Loop or If that computes only scalars from compile-time
 * values runs whole (fold_scalar_control); a short for loop that reads a list
 * or dict of tensors it carries is unrolled first (lower_unroll.c), and the
 * walk follows the contents of lists and dicts (lower_containers.c).
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/eval.h"
#include "tssa/functionalize.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

bool lower_value_has_tensor(const RtValue *v)
{
    if (!v)
        return false;
    if (v->kind == RT_TENSOR)
        return true;
    if (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)    /* a dict: keys and values */
        for (int i = 0; i < v->u.list.n; i++)
            if (lower_value_has_tensor(v->u.list.items[i]))
                return true;
    return false;
}

bool lower_type_scalar(const IrType *t)
{
    if (!t)
        return false;
    switch (t->kind) {
    case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STR: case TY_NONE: case TY_DEVICE:
    case TY_SCALARTYPE: case TY_LAYOUT: case TY_MEMORYFORMAT: case TY_NUMBER:
        return true;
    case TY_LIST: case TY_OPTIONAL: case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (!lower_type_scalar(t->elems[i]))
                return false;
        return true;
    default:
        return false;
    }
}

bool lower_node_scalar(const IrNode *n)
{
    if (n->nblocks > 0 || n->op == OP_UNKNOWN || op_is_inplace(n->op))
        return false;
    if (n->op == OP_PRIM_PRINT || n->op == OP_ATEN_WARN || n->op == OP_PRIM_SETATTR ||
        n->op == OP_PRIM_RAISEEXCEPTION || n->noutputs == 0)
        return false;
    if (n->op == OP_PRIM_CONSTANT || n->op == OP_PRIM_GETATTR)
        return true;
    for (int i = 0; i < n->noutputs; i++)
        if (!lower_type_scalar(n->outputs[i]->type))
            return false;
    return true;
}

static bool op_in_scalar_slice(const IrNode *n)
{
    return lower_node_scalar(n);
}

/* True when every input of n has its run-time value at hand: compile-time
 * values, bound graph inputs, and views of those (`known`, below). */
static bool inputs_known(const LowerProgram *p, const IrNode *n, const bool *known)
{
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *v = n->inputs[i];
        bool graph_input = v->def == p->g->top->param;
        if (!p->is_static[v->id] && !((graph_input || known[v->id]) && node_exec_get(p->exec, v)))
            return false;
    }
    return true;
}

/* Views of bound tensors (x.transpose(0, 1), x.unbind(0), u.float() of a
 * float tensor: the op table's view and maybe-view ops) are computed here
 * too, so that their sizes are known: `for t in range(x.size(0))` after a
 * permute, `len(x.unbind(0))`. A view costs nothing (a maybe-view that
 * converts copies once) and is the run's own value, so the sizes read from
 * it are exact. They are no compile-time values: filters still get the
 * tensors through the stream. */
static bool makes_view(const IrNode *n)
{
    /* A list of them too (`[feat0, feat1]`: the same tensors, nothing
     * copied), and an element taken from one. */
    bool holds_views = n->op == OP_PRIM_LISTCONSTRUCT || n->op == OP_ATEN_GETITEM;
    return n->op != OP_UNKNOWN && n->nblocks == 0 && !op_is_inplace(n->op) &&
           (op_is_view(n->op) || holds_views) && n->noutputs > 0;
}

static bool view_of_known(const LowerProgram *p, const IrNode *n, const bool *known)
{
    return makes_view(n) && inputs_known(p, n, known);
}

IrNode *lower_fold_if(LowerProgram *p, IrNode *n, bool cond)
{
    IrBlock *taken = n->blocks[cond ? 0 : 1];
    IrNode *first = ir_block_first(taken);
    IrNode *resume = first->op == OP_PRIM_RETURN ? n->next : first;
    while (ir_block_first(taken)->op != OP_PRIM_RETURN)
        ir_move_before(ir_block_first(taken), n);
    for (int i = 0; i < n->noutputs; i++)
        ir_replace_all_uses(n->outputs[i], ir_block_return(taken, i));
    if (resume == n->next) {
        /* Nothing moved: the outputs were block params or outer values. */
        IrNode *next = n->next;
        ir_node_destroy(n);
        return next;
    }
    ir_node_destroy(n);
    p->stats.ifs_folded++;
    return resume;
}

static bool is_list_value(const IrValue *v)
{
    return v->type && v->type->kind == TY_LIST;
}

/* The list a node writes in place, or NULL: list.append/extend/insert/pop/
 * remove/reverse/clear/+= (the op table's mutated input) and list.sort()
 * (aten::sort on a list, with no result). */
static IrValue *written_list(const IrNode *n)
{
    int mut = n->op == OP_UNKNOWN ? -1 : op_info(n->op)->mutates;
    if (mut >= 0 && mut < n->ninputs && is_list_value(n->inputs[mut]))
        return n->inputs[mut];
    if (n->noutputs == 0 && n->ninputs > 0 && is_list_value(n->inputs[0]))
        return n->inputs[0];
    return NULL;
}

/* A list written in place anywhere is no compile-time value: the slice runs
 * each node once, in order, and cannot replay the writes that run later.
 * Nor is a list it was taken from (a[0].append(1) changes what a[0] reads). */
static void mark_written_lists(bool *never_static, IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->nblocks; i++)
            mark_written_lists(never_static, n->blocks[i]);
        IrValue *v = written_list(n);
        for (int depth = 0; v && depth < 64; depth++) {
            never_static[v->id] = true;
            const IrNode *d = v->def;
            bool taken_from_container = d && (d->op == OP_ATEN_GETITEM || d->op == OP_PRIM_LISTUNPACK ||
                                              d->op == OP_PRIM_TUPLEUNPACK || d->op == OP_PRIM_TUPLEINDEX);
            v = taken_from_container && d->ninputs > 0 ? d->inputs[0] : NULL;
        }
    }
}

/* Runs n, a node of the scalar slice, now; true when it gave compile-time
 * values (a tensor only from a constant or a module attribute). */
static bool run_static(LowerProgram *p, IrNode *n)
{
    bool ok = node_exec_node(p->exec, n);
    bool constant_tensor = n->op == OP_PRIM_CONSTANT || n->op == OP_PRIM_GETATTR;
    for (int i = 0; ok && i < n->noutputs; i++)
        if (!constant_tensor && lower_value_has_tensor(node_exec_get(p->exec, n->outputs[i])))
            ok = false;
    if (!ok) {
        node_exec_clear_node(p->exec, n);
        return false;
    }
    for (int i = 0; i < n->noutputs; i++)
        p->is_static[n->outputs[i]->id] = true;
    p->stats.static_nodes++;
    return true;
}

bool lower_run_static(LowerProgram *p, IrNode *n)
{
    lower_graph_grown(p);
    for (int i = 0; i < n->ninputs; i++)
        if (!p->is_static[n->inputs[i]->id])
            return false;
    return lower_node_scalar(n) && run_static(p, n);
}

/* x.device for any tensor x: every backend computes with PyTorch's CPU
 * semantics and answers "cpu" (eval_op_device: the ref backend keeps every
 * tensor in host memory), so the answer is known before x is: torchaudio's
 * `if x.device == torch.device('cpu')` then folds like any static check. */
static bool run_device_query(LowerProgram *p, IrNode *n)
{
    bool flag = n->op == OP_PRIM_IS_CUDA || n->op == OP_PRIM_IS_NESTED || n->op == OP_PRIM_REQUIRES_GRAD;
    if ((n->op != OP_PRIM_DEVICE && !flag) || n->ninputs != 1 || n->noutputs != 1 ||
        !n->inputs[0]->type || n->inputs[0]->type->kind != TY_TENSOR)
        return false;
    /* what the evaluator answers for every tensor (eval_op_false_query):
     * on the host, not nested, no gradient; nn.MultiheadAttention's fast
     * path and nested-tensor checks then fold away */
    node_exec_set(p->exec, n->outputs[0], flag ? rt_bool(false) : rt_device("cpu"));
    p->is_static[n->outputs[0]->id] = true;
    p->stats.static_nodes++;
    return true;
}

static bool is_static_bool(const LowerProgram *p, const IrValue *v)
{
    return p->is_static[v->id] && node_exec_get(p->exec, v)->kind == RT_BOOL;
}

/* Inside the blocks of `anchor`, a top-level loop or If: nodes of the
 * scalar slice whose inputs are all compile-time values (a module's
 * attributes read in a loop's body, the constants and lists of a
 * GRUCell's checks) compute the same value on every pass; they run now and
 * move before anchor, with the program's other constants (inside a body
 * the lowering would take them for the body's own work). Ifs whose
 * condition that makes known fold as at the top level. */
static bool is_container(const IrValue *v)
{
    return v->type && (v->type->kind == TY_LIST || v->type->kind == TY_TUPLE ||
                       v->type->kind == TY_DICT);
}

static bool sets_attributes(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_PRIM_SETATTR)
            return true;
        for (int i = 0; i < n->nblocks; i++)
            if (sets_attributes(n->blocks[i]))
                return true;
    }
    return false;
}

static void hoist_static(LowerProgram *p, IrBlock *b, const bool *never_static, bool *hoisted,
                         IrNode *anchor, bool attributes_set)
{
    IrNode *n = ir_block_first(b);
    while (n->op != OP_PRIM_RETURN) {
        IrNode *next = n->next;
        if (n->op == OP_PRIM_IF && n->ninputs == 1 && n->nblocks == 2 &&
            is_static_bool(p, n->inputs[0])) {
            n = lower_fold_if(p, n, node_exec_get(p->exec, n->inputs[0])->u.i != 0);
            continue;
        }
        for (int i = 0; i < n->nblocks; i++)
            hoist_static(p, n->blocks[i], never_static, hoisted, anchor, attributes_set);
        /* a module attribute a loop may reassign (prim::SetAttr anywhere:
         * only where functionalize/module_state.c declined the graph, which
         * otherwise leaves no SetAttr) is read where it is */
        bool all_static = op_in_scalar_slice(n) &&
                          !(n->op == OP_PRIM_GETATTR && attributes_set);
        for (int i = 0; all_static && i < n->noutputs; i++)
            all_static = !never_static[n->outputs[i]->id];
        /* a list made before the loop may be written through an alias
         * inside it (a carried name for the same list): only lists built
         * in the body itself (and hoisted here) are read */
        for (int i = 0; all_static && i < n->ninputs; i++)
            all_static = p->is_static[n->inputs[i]->id] &&
                         (!is_container(n->inputs[i]) || hoisted[n->inputs[i]->id]);
        /* a device query moves before anchor only when its tensor is made
         * outside the body */
        bool outer_device_query = n->ninputs == 1 && n->inputs[0]->def->owner == p->g->top;
        if ((all_static && run_static(p, n)) || (outer_device_query && run_device_query(p, n))) {
            for (int i = 0; i < n->noutputs; i++)
                hoisted[n->outputs[i]->id] = true;
            ir_move_before(n, anchor);
        }
        n = next;
    }
}

/* prim::Uninitialized stands for a value on paths that raise (TorchScript
 * puts one before an If whose other branch raises, as F.embedding_bag's
 * argument checks do). Once such Ifs fold, nothing reads it: it computes
 * nothing and has no effect, but left at the top level it would be a unit
 * with no input and no live output, which the lowering may only place by
 * keeping the whole program in order (one filter). */
static void drop_unread_placeholders(IrBlock *top)
{
    IrNode *n = ir_block_first(top);
    while (n->op != OP_PRIM_RETURN) {
        IrNode *next = n->next;
        if (n->op == OP_PRIM_UNINITIALIZED && n->noutputs == 1 && n->outputs[0]->nuses == 0)
            ir_node_destroy(n);
        n = next;
    }
}

static bool inside(const IrNode *x, const IrNode *n)
{
    for (const IrBlock *b = x->owner; b && b->owner; b = b->owner->owner)
        if (b->owner == n)
            return true;
    return false;
}

/* A value a block inside root reads from outside it is at hand now: a
 * compile-time value, or a bound graph input or a view of one (`known`)
 * whose sizes the slice reads. */
static bool outer_value_at_hand(const LowerProgram *p, const IrValue *v, const IrNode *root,
                                const bool *known)
{
    if (inside(v->def, root) || p->is_static[v->id])
        return true;
    bool bound = v->def == p->g->top->param || known[v->id];
    return bound && node_exec_get(p->exec, v);
}

/* Every node of b (inside root) is of the scalar slice, a view of a bound
 * tensor (`feature_maps[k].shape[-2:]`: only scalars leave root, so no
 * tensor does), or a Loop or If of the same kind; none makes a list that
 * is written in place; every value read from outside root is at hand. */
static bool block_in_scalar_slice(const LowerProgram *p, const IrBlock *b, const IrNode *root,
                                  const bool *never_static, const bool *known)
{
    IR_FOREACH_NODE(n, b) {
        bool control = (n->op == OP_PRIM_LOOP || n->op == OP_PRIM_IF) && n->nblocks > 0;
        bool view = !control && !op_in_scalar_slice(n) && makes_view(n);
        if (!control && !view && !op_in_scalar_slice(n))
            return false;
        for (int i = 0; i < n->noutputs; i++)
            if ((!view && !lower_type_scalar(n->outputs[i]->type)) || never_static[n->outputs[i]->id])
                return false;
        for (int i = 0; i < n->ninputs; i++)
            if (!outer_value_at_hand(p, n->inputs[i], root, known))
                return false;
        for (int i = 0; i < n->nblocks; i++)
            if (!block_in_scalar_slice(p, n->blocks[i], root, never_static, known))
                return false;
    }
    for (int i = 0; i < ir_block_nreturns(b); i++) {
        const IrValue *v = ir_block_return(b, i);
        if (!lower_type_scalar(v->type) || !outer_value_at_hand(p, v, root, known))
            return false;
    }
    return true;
}

/* A prim::Loop or prim::If at the top level that computes only scalars
 * (and lists of them) from compile-time values and the sizes of bound
 * tensors: torchvision's SSD DBoxGenerator builds its default boxes as a
 * list of float lists by three nested loops over the feature maps' sizes;
 * a while loop halves a float attribute until it is under a bound
 * argument. It runs now, whole, as a node of the slice does: its results
 * are compile-time values and the loop is no run-time filter at all. */
static bool fold_scalar_control(LowerProgram *p, IrNode *n, const bool *never_static, const bool *known)
{
    if ((n->op != OP_PRIM_LOOP && n->op != OP_PRIM_IF) || n->nblocks == 0 || n->noutputs == 0)
        return false;
    for (int i = 0; i < n->ninputs; i++)
        if (!p->is_static[n->inputs[i]->id])
            return false;
    for (int i = 0; i < n->noutputs; i++)
        if (!lower_type_scalar(n->outputs[i]->type) || never_static[n->outputs[i]->id])
            return false;
    for (int i = 0; i < n->nblocks; i++)
        if (!block_in_scalar_slice(p, n->blocks[i], n, never_static, known))
            return false;
    if (!run_static(p, n))
        return false;
    if (n->op == OP_PRIM_LOOP)
        p->stats.loops_folded++;
    return true;
}

/* Tensor work on compile-time values only (torch.arange(h) of a bound
 * size, a mel filter bank from linspace, an anchor grid from repeat and
 * stack) gives the same tensors on every run: it runs now, once, and its
 * results are compile-time tensors as weights are, so no run pays for it
 * (and what reads them sees static shapes). Not for draws (a random op is
 * keyed by the run's seed), writes, host actions, ops with blocks, nor
 * results of more than CONSTANT_TENSOR_MAX elements (memory held for the
 * program's life; a list or tuple of tensors counts them all) or past
 * CONSTANT_TENSORS_TOTAL for the program, nor anywhere in a graph that
 * keeps a write in place (a kept write could change a shared constant
 * between runs), nor a loop's initial value (the buffer its plan fills). */
enum { CONSTANT_TENSOR_MAX = 1 << 16, CONSTANT_TENSORS_TOTAL = 1 << 22 };

static bool has_inplace_write(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_UNKNOWN || op_is_inplace(n->op))
            return true;
        for (int i = 0; i < n->nblocks; i++)
            if (has_inplace_write(n->blocks[i]))
                return true;
    }
    return false;
}

static bool constant_tensor_work(const LowerProgram *p, const IrNode *n)
{
    if (n->nblocks > 0 || n->op == OP_UNKNOWN || op_is_inplace(n->op) || n->noutputs == 0 ||
        op_info(n->op)->cls == OPC_RANDOM || n->op == OP_PRIM_PRINT || n->op == OP_ATEN_WARN ||
        n->op == OP_PRIM_SETATTR || n->op == OP_PRIM_RAISEEXCEPTION || n->op == OP_PRIM_UNINITIALIZED)
        return false;
    /* tensors, or lists and tuples of them (the index list of x[mask]) */
    bool makes_tensor = false;
    for (int i = 0; i < n->noutputs; i++)
        makes_tensor |= !lower_type_scalar(n->outputs[i]->type);
    if (!makes_tensor)
        return false;
    for (int i = 0; i < n->ninputs; i++)
        if (!p->is_static[n->inputs[i]->id])
            return false;
    /* a tensor a loop starts from (`out = torch.zeros(n)` then `out[i] =
     * ...` in the loop) is the buffer the loop's plan fills (a copy of it,
     * made per run): it stays the run's own, as the lowering expects */
    for (int i = 0; i < n->noutputs; i++) {
        const IrValue *v = n->outputs[i];
        for (int u = 0; u < v->nuses; u++)
            if (v->uses[u].user->nblocks > 0)
                return false;
    }
    return true;
}

/* The elements of the tensors v holds (in lists and tuples too). */
static int64_t elements_held(const RtValue *v)
{
    if (v->kind == RT_TENSOR)
        return tensor_numel(v->u.t);
    int64_t n = 0;
    if (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT)
        for (int i = 0; i < v->u.list.n; i++)
            n += elements_held(v->u.list.items[i]);
    return n;
}

/* Runs n (constant_tensor_work) now; false, with nothing recorded, when it
 * fails (left to fail at run time) or a result is too large to keep.
 * p->constants_held counts the elements kept so far. */
static bool run_constant_tensor_work(LowerProgram *p, IrNode *n)
{
    int64_t *held = &p->constants_held;
    bool ok = node_exec_node(p->exec, n);
    int64_t elements = 0;
    for (int i = 0; ok && i < n->noutputs; i++) {
        const RtValue *r = node_exec_get(p->exec, n->outputs[i]);
        elements += r ? elements_held(r) : 0;
        ok = r && elements <= CONSTANT_TENSOR_MAX && *held + elements <= CONSTANT_TENSORS_TOTAL;
    }
    *held += ok ? elements : 0;
    if (!ok) {
        node_exec_clear_node(p->exec, n);
        return false;
    }
    for (int i = 0; i < n->noutputs; i++)
        p->is_static[n->outputs[i]->id] = true;
    p->stats.static_nodes++;
    return true;
}

bool lower_run_constant_tensor(LowerProgram *p, IrNode *n)
{
    lower_graph_grown(p);
    return p->fold_tensors && n->owner == p->g->top && constant_tensor_work(p, n) &&
           run_constant_tensor_work(p, n);
}

/* flags, a table of n flags by value id, covering `grown` (new ones false) */
static bool *grow_flags(bool *flags, uint32_t n, uint32_t grown)
{
    if (grown <= n)
        return flags;
    flags = xrealloc(flags, grown * sizeof *flags);
    memset(flags + n, 0, (grown - n) * sizeof *flags);
    return flags;
}

void lower_specialize_values(LowerProgram *p, RtValue **inputs, int ninputs)
{
    IrBlock *top = p->g->top;
    uint32_t nflags = p->g->nvalues + 1;
    bool *never_static = xcalloc(nflags, sizeof *never_static);
    bool *known = xcalloc(p->g->nvalues + 1, sizeof *known);   /* views of bound tensors */
    bool *hoisted = xcalloc(p->g->nvalues + 1, sizeof *hoisted);
    bool attributes_set = sets_attributes(top);
    bool fold_tensors = !has_inplace_write(top) && !getenv("TSSA_NO_CONSTANT_TENSORS");
    p->fold_tensors = fold_tensors;
    mark_written_lists(never_static, top);

    for (int i = 0; i < ninputs && i < ir_block_nparams(top); i++) {
        IrValue *param = ir_block_param(top, i);
        node_exec_set(p->exec, param, rt_retain(inputs[i]));
        if (!lower_value_has_tensor(inputs[i]) && !never_static[param->id])
            p->is_static[param->id] = true;
    }
    LowerContainers *containers = lower_containers_new();
    bool changed = false;
    IrNode *n = ir_block_first(top);
    while (n->op != OP_PRIM_RETURN) {
        lower_graph_grown(p);
        if (p->g->nvalues + 1 > nflags) {
            /* values made since (lower_containers_visit's lists of known
             * items) start with every flag clear */
            uint32_t grown = p->g->nvalues + 1;
            never_static = grow_flags(never_static, nflags, grown);
            known = grow_flags(known, nflags, grown);
            hoisted = grow_flags(hoisted, nflags, grown);
            nflags = grown;
        }
        if (n->op == OP_PRIM_IF && n->ninputs == 1 && n->nblocks == 2 &&
            p->is_static[n->inputs[0]->id] &&
            node_exec_get(p->exec, n->inputs[0])->kind == RT_BOOL) {
            n = lower_fold_if(p, n, node_exec_get(p->exec, n->inputs[0])->u.i != 0);
            /* the branch not taken may have been the only reader of work
             * before the If (mmdet's bbox_overlaps computes area2, which
             * only its 'iou'/'giou' branch reads): left in, it is a filter
             * whose result goes nowhere, and the program one filter */
            changed = true;
            continue;
        }
        int64_t trips;
        if (lower_unroll_wanted(p, n, &trips)) {
            n = lower_unroll(p, n, trips);
            changed = true;
            uint32_t grown = p->g->nvalues + 1;
            never_static = grow_flags(never_static, nflags, grown);
            known = grow_flags(known, nflags, grown);
            hoisted = grow_flags(hoisted, nflags, grown);
            nflags = grown;
            /* the copies' lists written in place (a body's own appends) */
            mark_written_lists(never_static, top);
            continue;
        }
        bool writes_list_output = false;
        for (int i = 0; i < n->noutputs; i++)
            writes_list_output |= never_static[n->outputs[i]->id];
        if (!writes_list_output && fold_tensors && !op_in_scalar_slice(n) && constant_tensor_work(p, n) &&
            run_constant_tensor_work(p, n)) {
            /* done: compile-time tensors (views of them too) */
        } else if (!writes_list_output && !op_in_scalar_slice(n) && view_of_known(p, n, known)) {
            if (node_exec_node(p->exec, n))
                for (int i = 0; i < n->noutputs; i++)
                    known[n->outputs[i]->id] = true;
            else
                node_exec_clear_node(p->exec, n);
        } else if (op_in_scalar_slice(n) && inputs_known(p, n, known) && !writes_list_output) {
            run_static(p, n);
        } else if (fold_scalar_control(p, n, never_static, known)) {
            n = n->next;
            continue;
        } else {
            run_device_query(p, n);
        }
        for (int i = 0; i < n->nblocks; i++)
            hoist_static(p, n->blocks[i], never_static, hoisted, n, attributes_set);
        n = lower_containers_visit(p, containers, n);
    }
    changed |= lower_containers_folded(containers) > 0;
    lower_containers_free(containers);
    /* reads folded away leave the containers' construction unread */
    if (changed)
        tssa_dce(p->g);
    free(never_static);
    free(hoisted);
    drop_unread_placeholders(top);
    /* Tensor inputs and their views reach filters through the stream only. */
    for (int i = 0; i < ir_block_nparams(top); i++)
        if (!p->is_static[ir_block_param(top, i)->id])
            node_exec_clear(p->exec, ir_block_param(top, i));
    IR_FOREACH_NODE(x, top)
        for (int i = 0; i < x->noutputs; i++)
            if (x->outputs[i]->id < nflags && known[x->outputs[i]->id])
                node_exec_clear(p->exec, x->outputs[i]);
    free(known);
}
