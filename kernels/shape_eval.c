/* shape_eval.c — the shapes and dtypes of a node's results, from the op
 * itself: the node runs on the evaluator (the same bindings the ref backend
 * runs) with stand-in tensors of its inputs' static shapes and dtypes, and
 * the results' shapes and dtypes are read off what it returns.
 *
 * This is shape inference's general rule (kernels/shape_infer.c tries it
 * for every node its hand-written rules do not type), so every op of the
 * table has a shape rule by construction: the one its evaluator binding
 * implements. PyTorch does the same with meta tensors and FakeTensor
 * (torch/_subclasses/fake_tensor.py): run the op's own code on tensors that
 * carry sizes and a dtype but no data. Here a stand-in is a tensor of the
 * input's sizes over one row of storage (the innermost size; every other
 * stride 0), holding zeros (an op that refuses zeros is tried again on
 * ones, then on identity matrices: StandIn), so it costs one row whatever
 * its size; compile-time tensors (weights, constants) are passed as they
 * are, and compile-time scalars and the scalars shape inference
 * decided as their values.
 *
 * Preconditions: every tensor input of the node has a static type
 * (shape_of) or a compile-time value, and every other input a compile-time
 * or decided value, a list or tuple built of such values, or a value
 * computed from such values by ops that read no tensor's elements
 * (x.size(), _infer_size, list and int arithmetic, evaluated the same way).
 * Nothing is evaluated otherwise.
 *
 * Never evaluated, so their results stay of unknown shape:
 *   - ops whose result shapes depend on the values of their tensor inputs
 *     (op_has_dynamic_shape: PyTorch's dynamic_output_shape ops, generated
 *     from PyTorch by ir/gen_op_dynamic_shape.py), aten::index and
 *     index_put with a boolean or uint8 index (FakeTensor's
 *     check_no_bool_index_tensors), repeat_interleave and tensor_split
 *     with their repeats or indices in a tensor, and where(condition),
 *     which is nonzero(condition, as_tuple=True);
 *   - ops that write (in-place ops, list mutation, prints, attributes,
 *     raises), control flow, constants and tssa:: markers;
 *   - nodes whose work would be too large for compile time: a stand-in
 *     input of more than 2^26 elements (its op would read that many), and,
 *     checked at each allocation (tensor_set_allocation_cap), any tensor
 *     the op makes of more than 2^28 bytes (2^26 float32 elements: a
 *     product's or einsum's result, a copy of a stand-in made contiguous).
 * An op that fails on stand-ins (zeros and ones) leaves its results
 * unknown: never guessed, and never an error at compile time; the node
 * fails at run time, on real values, with the evaluator's own message.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/eval.h"
#include "tssa/shapes.h"

enum {
    STAND_IN_MAX_ELEMENTS = 1 << 26,
    STAND_IN_CONTIGUOUS_MAX = 1 << 20,
    EVAL_ALLOCATION_CAP = 1 << 28,      /* bytes */
};

struct ShapeEval {
    IrGraph *g;
    NodeExec *exec;
    RtValue **inputs;           /* the bound inputs, by graph input */
    int ninputs;
};

ShapeEval *shape_eval_new(IrGraph *g, RtValue **inputs, int ninputs)
{
    ShapeEval *se = xcalloc(1, sizeof *se);
    se->g = g;
    se->inputs = inputs;
    se->ninputs = inputs ? ninputs : 0;
    se->exec = node_exec_new(g, NULL, NULL);
    return se;
}

void shape_eval_free(ShapeEval *se)
{
    if (!se)
        return;
    node_exec_free(se->exec);
    free(se);
}

static bool writes_or_controls(const IrNode *n)
{
    OpClass cls = op_info(n->op)->cls;
    return n->op == OP_UNKNOWN || n->nblocks > 0 || op_is_inplace(n->op) || cls == OPC_STRUCTURE ||
           cls == OPC_CONTROL || cls == OPC_CONSTANT ||
           (cls == OPC_TSSA && n->op != OP_TSSA_INPLACE_CHECK) || n->op == OP_PRIM_PRINT ||
           n->op == OP_PRIM_GETATTR || n->op == OP_PRIM_SETATTR;
}

/* Whether an index list (aten::index's, index_put's) holds a boolean or
 * uint8 mask, or a tensor whose dtype is not known. */
static bool has_mask_index(const IrValue *list)
{
    const IrNode *d = list->def;
    if (d->op != OP_PRIM_LISTCONSTRUCT)
        return true;
    for (int i = 0; i < d->ninputs; i++) {
        const IrValue *v = d->inputs[i];
        if (!v->type || (v->type->kind != TY_TENSOR && v->type->kind != TY_OPTIONAL))
            continue;
        const IrTensorType *t = shape_of(v);
        if (v->type->kind == TY_OPTIONAL && !t && v->def->op == OP_PRIM_CONSTANT)
            continue;           /* None: a whole dim */
        if (!t || t->dtype == DT_BOOL || t->dtype == DT_U8)
            return true;
    }
    return false;
}

/* Whether n's result shapes may depend on its inputs' values. */
static bool value_dependent(const IrNode *n)
{
    if (n->op == OP_ATEN_INDEX || n->op == OP_ATEN_INDEX_PUT)
        return n->ninputs < 2 || has_mask_index(n->inputs[1]);
    if (n->op == OP_ATEN_WHERE && n->ninputs == 1)
        return true;
    /* the overloads PyTorch tags take the repeats or indices as a tensor
     * (repeat_interleave.Tensor, tensor_split.tensor_indices_or_sections);
     * with an int or a list of ints the shapes follow from those */
    if (n->op == OP_ATEN_REPEAT_INTERLEAVE && n->ninputs <= 2)
        return true;    /* repeat_interleave(repeats, output_size): the repeats' sum */
    if (n->op == OP_ATEN_REPEAT_INTERLEAVE || n->op == OP_ATEN_TENSOR_SPLIT)
        return !n->inputs[1]->type || n->inputs[1]->type->kind == TY_TENSOR;
    return op_has_dynamic_shape(n->op);
}

static bool returns_tensors(const IrType *t)
{
    if (!t)
        return false;
    if (t->kind == TY_TENSOR)
        return true;
    if (t->kind == TY_LIST || t->kind == TY_TUPLE || t->kind == TY_OPTIONAL)
        for (int i = 0; i < t->nelems; i++)
            if (returns_tensors(t->elems[i]))
                return true;
    return false;
}

/* What the stand-ins hold, tried in this order: zeros; ones (an op that
 * refuses zeros: a division's rounding, a log-likelihood); identity
 * matrices for square matrices (factorizations and solves refuse singular
 * ones: cholesky, inverse, solve), ones otherwise; then, for an op that
 * needs a layout (view, as_strided within its storage), zeros in a
 * contiguous tensor of their own, for inputs of at most
 * STAND_IN_CONTIGUOUS_MAX elements; last, the bound inputs themselves for
 * the node's inputs that are graph inputs (contiguous zeros for the rest):
 * ops that take lengths, targets or indices that must be consistent with
 * each other (segment_reduce, ctc_loss, max_unpool) accept them. The
 * program is specialized to those inputs, and an op evaluated here is not
 * one whose result shapes depend on values (value_dependent), so the
 * shapes read off are those of any run with inputs of these shapes. */
typedef enum StandIn {
    STAND_IN_ZEROS,
    STAND_IN_ONES,
    STAND_IN_IDENTITY,
    STAND_IN_CONTIGUOUS,
    STAND_IN_BOUND,
    STAND_IN_KINDS
} StandIn;

/* A tensor of t's sizes and dtype: every stride 0 over one element (an
 * identity: over one n x n matrix). */
static RtValue *stand_in(const IrTensorType *t, StandIn kind)
{
    int64_t numel = 1;
    for (int d = 0; d < t->rank; d++)
        numel = t->sizes[d] > 0 && numel <= STAND_IN_MAX_ELEMENTS ? numel * t->sizes[d] : numel;
    if (numel > STAND_IN_MAX_ELEMENTS)
        return NULL;
    int r = t->rank;
    if (kind == STAND_IN_CONTIGUOUS || kind == STAND_IN_BOUND)
        return numel <= STAND_IN_CONTIGUOUS_MAX ? rt_tensor_take(tensor_zeros((TensorDType)t->dtype, r, t->sizes))
                                                : NULL;
    if (kind == STAND_IN_IDENTITY && r >= 2 && t->sizes[r - 1] == t->sizes[r - 2]) {
        Tensor *eye = tensor_eye(t->sizes[r - 1], -1, (TensorDType)t->dtype);
        Tensor *x = eye && r > 2 ? tensor_expand(eye, r, t->sizes) : eye ? tensor_retain(eye) : NULL;
        tensor_release(eye);
        return rt_tensor_take(x);
    }
    /* one row of the innermost size, repeated with stride 0: ops that take
     * a path by layout (embedding_bag's fast sum: a weight whose rows are
     * contiguous) take the path of a contiguous input */
    double fill = kind == STAND_IN_ZEROS ? 0.0 : 1.0;
    if (r == 0)
        return rt_tensor_take(tensor_scalar((TensorDType)t->dtype, fill));
    Tensor *row = tensor_full((TensorDType)t->dtype, 1, &t->sizes[r - 1], fill);
    Tensor *x = row ? tensor_expand(row, r, t->sizes) : NULL;
    tensor_release(row);
    return rt_tensor_take(x);
}

static bool run_once(ShapeEval *se, const ScalarLookup *lk, IrNode *n, StandIn fill, int depth, RtValue **outs);

/* Whether d computes numbers, strings or lists from shapes, dtypes and
 * other such values only (size, _infer_size, len, list and int
 * arithmetic): run on stand-ins, it gives what the program computes. */
static bool computes_from_shapes(const IrNode *d)
{
    if (d->nblocks > 0 || writes_or_controls(d) || value_dependent(d) || d->noutputs != 1 ||
        returns_tensors(d->outputs[0]->type))
        return false;
    if (op_reads_no_elements(d->op))
        return true;
    for (int i = 0; i < d->ninputs; i++)
        if (!d->inputs[i]->type || d->inputs[i]->type->kind == TY_ANY || returns_tensors(d->inputs[i]->type))
            return false;       /* a tensor's elements, or a container that may hold them */
    return true;
}

/* v's value for the run: its compile-time or decided value, a stand-in of
 * its static type, a list / tuple built of such values, or what a node that
 * computes from shapes gives on them; NULL when v has none of these. */
static RtValue *value_for(ShapeEval *se, const ScalarLookup *lk, const IrValue *v, StandIn fill, int depth,
                          bool any_number)
{
    RtValue *r = lower_static_value(lk->p, v);
    if (r)
        return rt_retain(r);
    if (fill == STAND_IN_BOUND && v->def->op == OP_PRIM_PARAM)
        for (int i = 0; i < se->ninputs && i < ir_block_nparams(se->g->top); i++)
            if (ir_block_param(se->g->top, i) == v && se->inputs[i])
                return rt_retain(se->inputs[i]);
    const IrTensorType *t = shape_of(v);
    if (t)
        return stand_in(t, fill);
    int64_t k;
    if (v->type && (v->type->kind == TY_INT || v->type->kind == TY_BOOL) && kernels_lookup_scalar(lk, v, &k))
        return v->type->kind == TY_BOOL ? rt_bool(k != 0) : rt_int(k);
    /* a number whose value the result's shape and dtype do not depend on
     * (any_number_arg): a stand-in of its type */
    if (any_number && v->type && (v->type->kind == TY_INT || v->type->kind == TY_BOOL || v->type->kind == TY_FLOAT))
        return v->type->kind == TY_BOOL ? rt_bool(false) : v->type->kind == TY_INT ? rt_int(0) : rt_float(0.0);
    IrNode *d = v->def;
    /* x.dtype of a tensor of static dtype; x.device (the result's shape
     * and dtype do not depend on where it lives) */
    const IrTensorType *of = d->op == OP_PRIM_DTYPE && d->ninputs == 1 ? shape_of(d->inputs[0]) : NULL;
    if (of)
        return rt_int(dtype_to_scalar_type((TensorDType)of->dtype));
    if (d->op == OP_PRIM_DEVICE && d->ninputs == 1)
        return rt_device("cpu");
    if (depth >= 8)
        return NULL;
    if ((d->op == OP_PRIM_LISTCONSTRUCT || d->op == OP_PRIM_TUPLECONSTRUCT) && d->noutputs == 1) {
        RtValue **items = xcalloc((size_t)d->ninputs + 1, sizeof *items);
        bool ok = true;
        for (int i = 0; i < d->ninputs && ok; i++)
            ok = (items[i] = value_for(se, lk, d->inputs[i], fill, depth + 1, any_number)) != NULL;
        RtValue *list = ok ? rt_list(d->op == OP_PRIM_LISTCONSTRUCT ? RT_LIST : RT_TUPLE, d->ninputs, items)
                           : NULL;
        for (int i = 0; i < d->ninputs; i++)
            rt_release(items[i]);
        free(items);
        return list;
    }
    if (d->op == OP_PRIM_DICTCONSTRUCT && d->noutputs == 1 && d->ninputs % 2 == 0) {
        RtValue *dict = rt_dict();
        for (int i = 0; dict && i < d->ninputs; i += 2) {
            RtValue *key = value_for(se, lk, d->inputs[i], fill, depth + 1, any_number);
            RtValue *value = key ? value_for(se, lk, d->inputs[i + 1], fill, depth + 1, any_number) : NULL;
            if (!value || !rt_dict_set(dict, key, value)) {
                rt_release(dict);
                dict = NULL;
            }
            rt_release(key);
            rt_release(value);
        }
        return dict;
    }
    /* a list, tuple or dict of tensors made by an op (split, a list's item
     * set, TensorSSA's new versions of a list or dict: immut::list_pop's
     * first result): the op run on stand-ins too, its items stand-ins of
     * the right shapes */
    bool container_of_tensors = v->type &&
                                (v->type->kind == TY_LIST || v->type->kind == TY_TUPLE ||
                                 v->type->kind == TY_DICT) &&
                                d->nblocks == 0 && d->noutputs <= 2 && !writes_or_controls(d) &&
                                !value_dependent(d);
    RtValue *outs[2] = {NULL, NULL};
    if ((computes_from_shapes(d) || container_of_tensors) && run_once(se, lk, d, fill, depth + 1, outs)) {
        RtValue *out = outs[v->def_index];
        rt_release(outs[1 - v->def_index]);
        return out;
    }
    return NULL;
}

/* Whether input i of n is a number whose value makes no difference to the
 * result's shape and dtype, only its type: aten::tensor's data, and the
 * fill value of aten::full / full_like / new_full (diffusers'
 * `torch.full((x.size(0),), t)` of a sampling loop's timestep, a run-time
 * int inside the loop's body). */
static bool any_number_arg(const IrNode *n, int i)
{
    return (n->op == OP_ATEN_TENSOR && i == 0) || (n->op == OP_ATEN_FULL && i == 1) ||
           (n->op == OP_ATEN_FULL_LIKE && i == 1) || (n->op == OP_ATEN_NEW_FULL && i == 2);
}

/* Runs n once on values for its inputs (all made before any is set, so
 * that a nested run's clearing touches none of them). */
static bool run_once(ShapeEval *se, const ScalarLookup *lk, IrNode *n, StandIn fill, int depth, RtValue **outs)
{
    RtValue **args = xcalloc((size_t)n->ninputs + 1, sizeof *args);
    bool ok = true;
    for (int i = 0; i < n->ninputs && ok; i++)
        ok = (args[i] = value_for(se, lk, n->inputs[i], fill, depth, any_number_arg(n, i))) != NULL;
    for (int i = 0; i < n->ninputs; i++)
        if (ok)
            node_exec_set(se->exec, n->inputs[i], args[i]);
        else
            rt_release(args[i]);
    free(args);
    if (ok) {
        size_t cap = tensor_set_allocation_cap(EVAL_ALLOCATION_CAP);
        ok = node_exec_node(se->exec, n);
        tensor_set_allocation_cap(cap);
        tensor_clear_error();
    }
    for (int k = 0; k < n->noutputs; k++) {
        RtValue *r = ok ? node_exec_get(se->exec, n->outputs[k]) : NULL;
        outs[k] = r ? rt_retain(r) : NULL;
        ok = ok && r;
    }
    node_exec_clear_node(se->exec, n);
    for (int i = 0; i < n->ninputs; i++)
        node_exec_clear(se->exec, n->inputs[i]);
    if (!ok)
        for (int k = 0; k < n->noutputs; k++) {
            rt_release(outs[k]);
            outs[k] = NULL;
        }
    return ok;
}

bool shape_eval_node(ShapeEval *se, const ScalarLookup *lk, IrNode *n, RtValue **outs)
{
    bool wanted = false;
    for (int k = 0; k < n->noutputs; k++)
        wanted |= returns_tensors(n->outputs[k]->type);
    if (!wanted || writes_or_controls(n) || value_dependent(n))
        return false;
    for (StandIn kind = STAND_IN_ZEROS; kind < STAND_IN_KINDS; kind++)
        if (run_once(se, lk, n, kind, 0, outs))
            return true;
    return false;
}
