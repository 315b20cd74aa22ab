/* node_exec.c — single nodes and blocks on the evaluator's bindings (see
 * include/tssa/eval.h).
 *
 * A NodeExec owns the value slots of one graph; nodes and blocks run through
 * the interpreter's own runner (eval_node_run, eval_block_run in interp.c), so
 * every op, prim::If and prim::Loop behave exactly as on the oracle.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "tssa/eval.h"
#include "tssa/util.h"

struct NodeExec {
    EvalRun run;
    uint32_t nvalues, nnodes;
};

NodeExec *node_exec_new(IrGraph *g, const Safetensors *weights, FILE *err)
{
    NodeExec *x = xcalloc(1, sizeof *x);
    x->nvalues = g->nvalues;
    x->nnodes = g->nnodes;
    x->run.graph = g;
    x->run.weights = weights;
    x->run.slots = xcalloc(g->nvalues ? g->nvalues : 1, sizeof(RtValue *));
    x->run.constants = xcalloc(g->nnodes ? g->nnodes : 1, sizeof(RtValue *));
    x->run.err = err;
    x->run.backend = "ref";
    return x;
}

NodeExec *node_exec_clone(const NodeExec *x)
{
    NodeExec *copy = node_exec_new(x->run.graph, x->run.weights, x->run.err);
    copy->run.backend = x->run.backend;
    copy->run.group_runner = x->run.group_runner;
    copy->run.group_ctx = x->run.group_ctx;
    copy->run.node_runner = x->run.node_runner;
    copy->run.node_ctx = x->run.node_ctx;
    copy->run.cloner = x->run.cloner;
    copy->run.cloner_ctx = x->run.cloner_ctx;
    for (uint32_t i = 0; i < x->nvalues; i++)
        if (x->run.slots[i])
            copy->run.slots[i] = rt_retain(x->run.slots[i]);
    return copy;
}

void node_exec_free(NodeExec *x)
{
    if (!x)
        return;
    for (uint32_t i = 0; i < x->nvalues; i++)
        rt_release(x->run.slots[i]);
    for (uint32_t i = 0; i < x->nnodes; i++)
        rt_release(x->run.constants[i]);
    free(x->run.slots);
    free(x->run.constants);
    eval_assigned_attrs_free(&x->run);
    free(x->run.message);
    free(x);
}

void node_exec_set_backend(NodeExec *x, const char *name)
{
    x->run.backend = name;
}

void node_exec_set_err(NodeExec *x, FILE *err)
{
    x->run.err = err;
}

void node_exec_set_node_runner(NodeExec *x, NodeExecNodeRunner fn, void *ctx)
{
    x->run.node_runner = fn;
    x->run.node_ctx = ctx;
}

void node_exec_set_cloner(NodeExec *x, NodeExecCloner fn, void *ctx)
{
    x->run.cloner = fn;
    x->run.cloner_ctx = ctx;
}

RtValue *node_exec_clone_tensor(NodeExec *x, const RtValue *v)
{
    RtValue *copy = x->run.cloner ? x->run.cloner(x->run.cloner_ctx, v, true) : NULL;
    if (copy)
        return copy;
    Tensor *t = tensor_clone(v->u.t);
    return t ? rt_tensor_take(t) : NULL;
}

RtValue *node_exec_tensor_like(NodeExec *x, const RtValue *v)
{
    RtValue *like = x->run.cloner ? x->run.cloner(x->run.cloner_ctx, v, false) : NULL;
    if (like)
        return like;
    const Tensor *src = v->u.t;
    Tensor *t = tensor_empty_unfilled(src->dtype, src->ndim, src->sizes);
    return t ? rt_tensor_take(t) : NULL;
}

void node_exec_set_group_runner(NodeExec *x, NodeExecGroupRunner fn, void *ctx)
{
    x->run.group_runner = fn;
    x->run.group_ctx = ctx;
}

/* The graph grew after x was made (a pass added nodes): slots for the new
 * values and constants, empty. */
static void grow(NodeExec *x)
{
    const IrGraph *g = x->run.graph;
    if (g->nvalues > x->nvalues) {
        x->run.slots = xrealloc(x->run.slots, g->nvalues * sizeof(RtValue *));
        memset(x->run.slots + x->nvalues, 0, (g->nvalues - x->nvalues) * sizeof(RtValue *));
        x->nvalues = g->nvalues;
    }
    if (g->nnodes > x->nnodes) {
        x->run.constants = xrealloc(x->run.constants, g->nnodes * sizeof(RtValue *));
        memset(x->run.constants + x->nnodes, 0, (g->nnodes - x->nnodes) * sizeof(RtValue *));
        x->nnodes = g->nnodes;
    }
}

void node_exec_set(NodeExec *x, const IrValue *v, RtValue *value)
{
    if (v->id >= x->nvalues)
        grow(x);
    rt_release(x->run.slots[v->id]);
    x->run.slots[v->id] = value;
}

RtValue *node_exec_get(const NodeExec *x, const IrValue *v)
{
    return v->id < x->nvalues ? x->run.slots[v->id] : NULL;
}

void node_exec_clear(NodeExec *x, const IrValue *v)
{
    node_exec_set(x, v, NULL);
}

static void clear_block(NodeExec *x, const IrBlock *b)
{
    for (int i = 0; i < ir_block_nparams(b); i++)
        node_exec_clear(x, ir_block_param(b, i));
    IR_FOREACH_NODE(n, b)
        node_exec_clear_node(x, n);
}

void node_exec_clear_node(NodeExec *x, const IrNode *n)
{
    for (int i = 0; i < n->noutputs; i++)
        node_exec_clear(x, n->outputs[i]);
    for (int b = 0; b < n->nblocks; b++)
        clear_block(x, n->blocks[b]);
}

bool node_exec_node(NodeExec *x, IrNode *n)
{
    grow(x);
    return eval_node_run(&x->run, n, x->run.err);
}

bool node_exec_node_in_place(NodeExec *x, IrNode *n)
{
    x->run.write_in_place = true;
    bool ok = eval_node_run(&x->run, n, x->run.err);
    x->run.write_in_place = false;
    return ok;
}

bool node_exec_block(NodeExec *x, IrBlock *b)
{
    return eval_block_run(&x->run, b, x->run.err);
}
