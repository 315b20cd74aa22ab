/* node_exec.c — single nodes and blocks on the ref interpreter's bindings
 * (see node_exec.h).
 *
 * The interpreter's own node runner (interp.c) is private to it, so this file
 * keeps a second, equally small one over the same pieces: ref_constant for
 * prim::Constant, ref_dispatch for every op, and the same control flow for
 * prim::If and prim::Loop (a loop's state lives in its output slots, one
 * iteration at a time). Only the control-flow glue is repeated here; every op
 * runs through the shared binding table, so results equal the oracle's.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ref/node_exec.h"
#include "backends/ref/ref.h"

struct NodeExec {
    RefRun run;
    uint32_t nvalues, nnodes;
};

NodeExec *node_exec_new(IrGraph *g, const Safetensors *weights, FILE *err)
{
    NodeExec *x = ref_xcalloc(1, sizeof *x);
    x->nvalues = g->nvalues;
    x->nnodes = g->nnodes;
    x->run.graph = g;
    x->run.weights = weights;
    x->run.slots = ref_xcalloc(g->nvalues ? g->nvalues : 1, sizeof(RtValue *));
    x->run.constants = ref_xcalloc(g->nnodes ? g->nnodes : 1, sizeof(RtValue *));
    x->run.err = err;
    return x;
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
    free(x->run.message);
    free(x);
}

void node_exec_set_err(NodeExec *x, FILE *err)
{
    x->run.err = err;
}

void node_exec_set(NodeExec *x, const IrValue *v, RtValue *value)
{
    rt_release(x->run.slots[v->id]);
    x->run.slots[v->id] = value;
}

RtValue *node_exec_get(const NodeExec *x, const IrValue *v)
{
    return x->run.slots[v->id];
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

/* ---------------------------------------------------------------- errors */

/* "FILE:LINE" from the node's source comment "path:line:col", else the
 * graph text's own position (the interpreter's convention). */
static void node_location(const RefRun *run, const IrNode *n, char *buf, size_t size)
{
    const char *comment = n->comment;
    if (comment) {
        while (isspace((unsigned char)*comment))
            comment++;
        size_t len = strlen(comment);
        while (len > 0 && isspace((unsigned char)comment[len - 1]))
            len--;
        size_t end = len, colon[2];
        int found = 0;
        while (found < 2 && end > 0) {
            size_t p = end;
            while (p > 0 && isdigit((unsigned char)comment[p - 1]))
                p--;
            if (p == end || p == 0 || comment[p - 1] != ':')
                break;
            colon[found++] = p - 1;
            end = p - 1;
        }
        if (found == 2 && colon[1] > 0) {
            snprintf(buf, size, "%.*s", (int)colon[0], comment);
            return;
        }
    }
    snprintf(buf, size, "%s:%d", run->graph->file ? run->graph->file : "<graph>", n->line);
}

/* ---------------------------------------------------------------- control flow */

static bool block_run(NodeExec *x, IrBlock *b);

static bool if_run(NodeExec *x, RefCall *c)
{
    IrNode *n = c->node;
    bool cond;
    if (!ref_nargs(c, 1, 1) || !ref_arg_bool(c, 0, &cond))
        return false;
    if (n->nblocks != 2)
        return ref_fail(c, "prim::If needs 2 blocks, has %d", n->nblocks);
    IrBlock *b = n->blocks[cond ? 0 : 1];
    if (!block_run(x, b))
        return false;
    if (ir_block_nreturns(b) != n->noutputs)
        return ref_fail(c, "the block returns %d values for %d outputs", ir_block_nreturns(b),
                        n->noutputs);
    for (int i = 0; i < n->noutputs; i++)
        ref_out_value(c, i, rt_retain(node_exec_get(x, ir_block_return(b, i))));
    return true;
}

static bool loop_run(NodeExec *x, RefCall *c)
{
    IrNode *n = c->node;
    if (n->nblocks != 1)
        return ref_fail(c, "prim::Loop needs 1 block, has %d", n->nblocks);
    IrBlock *body = n->blocks[0];
    int ncarried = c->nargs - 2;
    if (ncarried < 0 || n->noutputs != ncarried || ir_block_nparams(body) != ncarried + 1 ||
        ir_block_nreturns(body) != ncarried + 1)
        return ref_fail(c, "malformed loop: %d inputs, %d outputs, %d block params, %d block results",
                        c->nargs, n->noutputs, ir_block_nparams(body), ir_block_nreturns(body));
    int64_t max_trip = INT64_MAX;
    bool has_max, cond;
    if (!ref_arg_int_opt(c, 0, &max_trip, &has_max) || !ref_arg_bool(c, 1, &cond))
        return false;
    if (!has_max)
        max_trip = INT64_MAX;
    for (int k = 0; k < ncarried; k++)
        ref_out_value(c, k, rt_retain(c->args[2 + k]));
    for (int64_t i = 0; cond && i < max_trip; i++) {
        node_exec_set(x, ir_block_param(body, 0), rt_int(i));
        for (int k = 0; k < ncarried; k++)
            node_exec_set(x, ir_block_param(body, 1 + k), rt_retain(c->outs[k]));
        if (!block_run(x, body))
            return false;
        const RtValue *next = node_exec_get(x, ir_block_return(body, 0));
        if (next->kind != RT_BOOL && next->kind != RT_INT)
            return ref_fail(c, "the loop condition is a %s, expected bool", rt_kind_name(next->kind));
        cond = next->u.i != 0;
        for (int k = 0; k < ncarried; k++)
            ref_out_value(c, k, rt_retain(node_exec_get(x, ir_block_return(body, 1 + k))));
    }
    return true;
}

/* ---------------------------------------------------------------- nodes */

/* Runs one node; reports a failure once, at the innermost failing node. */
static bool node_run(NodeExec *x, IrNode *n)
{
    RefRun *run = &x->run;
    RtValue *args_small[16], *outs_small[8];
    RtValue **args = n->ninputs <= 16 ? args_small : ref_xmalloc((size_t)n->ninputs * sizeof *args);
    RtValue **outs = n->noutputs <= 8 ? outs_small : ref_xmalloc((size_t)n->noutputs * sizeof *outs);
    for (int i = 0; i < n->noutputs; i++)
        outs[i] = NULL;
    RefCall call = {run, n, args, n->ninputs, outs, n->noutputs};

    bool ok = true, reported = false;
    for (int i = 0; i < n->ninputs && ok; i++) {
        args[i] = run->slots[n->inputs[i]->id];
        if (!args[i])
            ok = ref_fail(&call, "input %%%s has no value here", n->inputs[i]->name);
    }
    if (ok) {
        tensor_clear_error();
        switch (n->op) {
        case OP_PRIM_CONSTANT:
            ok = ref_constant(&call);
            break;
        case OP_PRIM_IF:
            ok = if_run(x, &call);
            reported = !ok && !run->message;
            break;
        case OP_PRIM_LOOP:
            ok = loop_run(x, &call);
            reported = !ok && !run->message;
            break;
        default:
            ok = n->nblocks > 0 ? ref_fail(&call, "op not supported by the ref backend")
                                : ref_dispatch(&call);
            break;
        }
    }
    for (int i = 0; ok && i < n->noutputs; i++)
        if (!outs[i])
            ok = ref_fail(&call, "the op produced no value for output %%%s", n->outputs[i]->name);
    if (ok) {
        for (int i = 0; i < n->noutputs; i++)
            node_exec_set(x, n->outputs[i], outs[i]);
    } else {
        for (int i = 0; i < n->noutputs; i++)
            rt_release(outs[i]);
        if (!reported && run->err) {
            const char *kernel = tensor_last_error();
            char loc[1024];
            node_location(run, n, loc, sizeof loc);
            fprintf(run->err, "%s: error: %s: %s\n", loc, n->kind,
                    run->message ? run->message : kernel && *kernel ? kernel : "failed");
        }
        free(run->message);
        run->message = NULL;
    }
    if (args != args_small)
        free(args);
    if (outs != outs_small)
        free(outs);
    return ok;
}

static bool block_run(NodeExec *x, IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (!node_run(x, n))
            return false;
    }
    for (int i = 0; i < ir_block_nreturns(b); i++)
        if (!node_exec_get(x, ir_block_return(b, i))) {
            if (x->run.err)
                fprintf(x->run.err, "%s:%d: error: block result %%%s has no value\n",
                        x->run.graph->file ? x->run.graph->file : "<graph>", b->line,
                        ir_block_return(b, i)->name);
            return false;
        }
    return true;
}

bool node_exec_node(NodeExec *x, IrNode *n)
{
    return node_run(x, n);
}

bool node_exec_block(NodeExec *x, IrBlock *b)
{
    return block_run(x, b);
}
