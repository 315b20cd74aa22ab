/* interp.c — the node runner: runs a node, or a block node by node, with
 * PyTorch's imperative semantics.
 *
 * Every IrValue has a slot (indexed by its dense id) holding its current
 * RtValue. A block runs its nodes in order; a node reads its inputs' slots,
 * and its results replace the old contents of its outputs' slots (a node
 * inside a loop body is run once per iteration). Control flow is handled
 * here:
 *   prim::If(cond)                 runs block 0 or block 1; its outputs are
 *                                  the chosen block's results.
 *   prim::Loop(max_trip, cond, carried...)
 *                                  block(i, carried...) -> (cond, carried...):
 *                                  iterates while i < max_trip and cond holds
 *                                  (while loops pass INT64_MAX and a
 *                                  condition, for loops a true constant);
 *                                  its outputs are the last carried values.
 *   prim::Constant                 decoded from the node's "value" attribute
 *                                  and its output type (constants.c).
 * Every other node goes through the binding table (dispatch.c).
 *
 * Aliasing is exact because nothing is copied on the way: a slot holds a
 * reference to the very RtValue (and Tensor) an op returned, so views made
 * by one op and in-place writes made by another share storage exactly as in
 * PyTorch.
 *
 * A failing node is reported once, where it fails, as
 *   FILE:LINE: error: KIND: WHAT
 * with FILE:LINE from the node's source comment (" model.py:12:8"), else the
 * graph file and the node's line in it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"

/* ---------------------------------------------------------------- locations */

/* "FILE:LINE" of the node: from a source comment "path:line:col", else the
 * graph text's own position. */
static void node_location(const EvalRun *run, const IrNode *n, char *buf, size_t size)
{
    const char *comment = n->comment;
    if (comment) {
        while (isspace((unsigned char)*comment))
            comment++;
        size_t len = strlen(comment);
        while (len > 0 && isspace((unsigned char)comment[len - 1]))
            len--;
        /* Walk back over ":COL", then ":LINE". */
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
    const char *file = run->graph->file ? run->graph->file : "<graph>";
    snprintf(buf, size, "%s:%d", file, n->line);
}

static void report(const EvalRun *run, const IrNode *n, FILE *err, const char *what)
{
    char loc[1024];
    node_location(run, n, loc, sizeof loc);
    if (err)
        fprintf(err, "%s: error: %s: %s\n", loc, n->kind, what);
}

/* ---------------------------------------------------------------- slots */

static void slot_set(EvalRun *run, const IrValue *v, RtValue *value)
{
    rt_release(run->slots[v->id]);
    run->slots[v->id] = value;
}

/* Drops what the nodes of b (and of blocks inside them) made: values that
 * are out of scope once an iteration has handed its results on. */
static void clear_made(EvalRun *run, const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->noutputs; i++)
            slot_set(run, n->outputs[i], NULL);
        for (int k = 0; k < n->nblocks; k++)
            clear_made(run, n->blocks[k]);
    }
}


/* ---------------------------------------------------------------- control flow */

static bool if_run(EvalCall *c, FILE *err)
{
    IrNode *n = c->node;
    bool cond;
    if (!eval_nargs(c, 1, 1) || !eval_arg_bool(c, 0, &cond))
        return false;
    if (n->nblocks != 2)
        return eval_fail(c, "prim::If needs 2 blocks, has %d", n->nblocks);
    IrBlock *b = n->blocks[cond ? 0 : 1];
    if (!eval_block_run(c->run, b, err))
        return false;
    if (ir_block_nreturns(b) != n->noutputs)
        return eval_fail(c, "the block returns %d values for %d outputs", ir_block_nreturns(b),
                        n->noutputs);
    for (int i = 0; i < n->noutputs; i++)
        eval_out_value(c, i, rt_retain(c->run->slots[ir_block_return(b, i)->id]));
    return true;
}

static bool loop_run(EvalCall *c, FILE *err)
{
    IrNode *n = c->node;
    EvalRun *run = c->run;
    if (n->nblocks != 1)
        return eval_fail(c, "prim::Loop needs 1 block, has %d", n->nblocks);
    IrBlock *body = n->blocks[0];
    int ncarried = c->nargs - 2;
    if (ncarried < 0 || n->noutputs != ncarried || ir_block_nparams(body) != ncarried + 1 ||
        ir_block_nreturns(body) != ncarried + 1)
        return eval_fail(c,
                        "malformed loop: %d inputs, %d outputs, %d block params, %d block results",
                        c->nargs, n->noutputs, ir_block_nparams(body), ir_block_nreturns(body));
    int64_t max_trip = INT64_MAX;
    bool has_max, cond;
    if (!eval_arg_int_opt(c, 0, &max_trip, &has_max) || !eval_arg_bool(c, 1, &cond))
        return false;
    if (!has_max)
        max_trip = INT64_MAX;

    /* The loop's state lives in the outputs: carried values in, carried
     * values out, one iteration at a time. */
    for (int k = 0; k < ncarried; k++)
        eval_out_value(c, k, rt_retain(c->args[2 + k]));
    for (int64_t i = 0; cond && i < max_trip; i++) {
        slot_set(run, ir_block_param(body, 0), rt_int(i));
        /* Moved, not shared: a body that extends a carried list then holds
         * its only reference and may extend it in place (eval_arg_owned). */
        for (int k = 0; k < ncarried; k++) {
            slot_set(run, ir_block_param(body, 1 + k), c->outs[k]);
            c->outs[k] = NULL;
        }
        if (!eval_block_run(run, body, err))
            return false;
        const RtValue *next_cond = run->slots[ir_block_return(body, 0)->id];
        if (next_cond->kind != RT_BOOL && next_cond->kind != RT_INT)
            return eval_fail(c, "the loop condition is a %s, expected bool",
                            rt_kind_name(next_cond->kind));
        cond = next_cond->u.i != 0;
        for (int k = 0; k < ncarried; k++)
            eval_out_value(c, k, rt_retain(run->slots[ir_block_return(body, 1 + k)->id]));
        /* The carried values now live only in the outputs, so the next
         * iteration owns them alone (see the move above). */
        clear_made(run, body);
        for (int k = 0; k < ncarried; k++)
            slot_set(run, ir_block_param(body, 1 + k), NULL);
    }
    return true;
}

/* A group over the iterations of a data-parallel loop (ir.h), interpreted:
 * its block once per iteration (param 0 the iteration), the results stacked
 * along a new dim 0. */
static bool iterations_run(EvalCall *c, FILE *err)
{
    IrNode *n = c->node;
    EvalRun *run = c->run;
    IrBlock *b = n->blocks[0];
    int64_t iterations = ir_group_iterations(n);
    if (n->noutputs != 1)
        return eval_fail(c, "malformed tssa::FusionGroup over iterations");
    Tensor *all = NULL;
    bool ok = true;
    for (int i = 1; i < c->nargs; i++)
        slot_set(run, ir_block_param(b, i), rt_retain(c->args[i]));
    for (int64_t it = 0; ok && it < iterations; it++) {
        slot_set(run, ir_block_param(b, 0), rt_int(it));
        ok = eval_block_run(run, b, err);
        const RtValue *r = ok ? run->slots[ir_block_return(b, 0)->id] : NULL;
        if (ok && r->kind != RT_TENSOR)
            ok = eval_fail(c, "an iteration's result is a %s, expected a tensor", rt_kind_name(r->kind));
        if (ok && !all) {
            int64_t sizes[TENSOR_MAX_DIMS] = {iterations};
            const Tensor *t = r->u.t;
            if (t->ndim + 1 > TENSOR_MAX_DIMS)
                ok = eval_fail(c, "%s", "an iteration's result has too many dims to stack");
            else {
                memcpy(sizes + 1, t->sizes, (size_t)t->ndim * sizeof *sizes);
                ok = (all = tensor_empty(t->dtype, t->ndim + 1, sizes)) != NULL;
            }
        }
        if (ok) {
            Tensor *row = tensor_select(all, 0, it);
            ok = row && tensor_copy_(row, r->u.t);
            tensor_release(row);
        }
        clear_made(run, b);
    }
    for (int i = 0; i < c->nargs; i++)
        slot_set(run, ir_block_param(b, i), NULL);
    if (ok)
        eval_out_value(c, 0, rt_tensor_take(all));
    else
        tensor_release(all);
    return ok;
}

/* A fused group: its compiled kernel when the runner has one, else its
 * block, interpreted (the oracle's semantics, op by op). */
static bool group_run(EvalCall *c, FILE *err)
{
    IrNode *n = c->node;
    EvalRun *run = c->run;
    if (n->nblocks != 1 || ir_block_nparams(n->blocks[0]) != c->nargs ||
        ir_block_nreturns(n->blocks[0]) != n->noutputs)
        return eval_fail(c, "malformed tssa::FusionGroup");
    if (run->group_runner) {
        int ran = run->group_runner(run->group_ctx, n, c->args, c->outs, err);
        if (ran != 0)
            return ran > 0;
    }
    if (ir_group_iterations(n) > 0)
        return iterations_run(c, err);
    IrBlock *b = n->blocks[0];
    for (int i = 0; i < c->nargs; i++)
        slot_set(run, ir_block_param(b, i), rt_retain(c->args[i]));
    bool ok = eval_block_run(run, b, err);
    for (int i = 0; ok && i < n->noutputs; i++)
        eval_out_value(c, i, rt_retain(run->slots[ir_block_return(b, i)->id]));
    clear_made(run, b);
    for (int i = 0; i < c->nargs; i++)
        slot_set(run, ir_block_param(b, i), NULL);
    return ok;
}

/* ---------------------------------------------------------------- nodes */

/* Runs one node; on failure reports it (unless a nested node already did)
 * and returns false. */
bool eval_node_run(EvalRun *run, IrNode *n, FILE *err)
{
    RtValue *args_small[16], *outs_small[8];
    RtValue **args = n->ninputs <= 16 ? args_small : xmalloc((size_t)n->ninputs * sizeof *args);
    RtValue **outs =
        n->noutputs <= 8 ? outs_small : xmalloc((size_t)n->noutputs * sizeof *outs);
    for (int i = 0; i < n->noutputs; i++)
        outs[i] = NULL;
    EvalCall call = {run, n, args, n->ninputs, outs, n->noutputs, 0};

    bool ok = true, reported = false;
    for (int i = 0; i < n->ninputs && ok; i++) {
        args[i] = run->slots[n->inputs[i]->id];
        if (!args[i])
            ok = eval_fail(&call, "input %%%s has no value here", n->inputs[i]->name);
    }
    if (ok && run->node_runner && n->op != OP_PRIM_CONSTANT && n->op != OP_PRIM_IF &&
        n->op != OP_PRIM_LOOP) {
        tensor_clear_error();
        int ran = run->node_runner(run->node_ctx, n, args, outs, run->write_in_place);
        if (ran != 0) {
            ok = ran > 0;       /* a failure is reported below, with the node's place */
            goto ran_elsewhere;
        }
    }
    if (ok) {
        tensor_clear_error();
        switch (n->op) {
        case OP_PRIM_CONSTANT:
            ok = eval_constant(&call);
            break;
        case OP_PRIM_IF:
            ok = if_run(&call, err);
            reported = !ok && !run->message;
            break;
        case OP_PRIM_LOOP:
            ok = loop_run(&call, err);
            reported = !ok && !run->message;
            break;
        case OP_TSSA_FUSION_GROUP:
            ok = group_run(&call, err);
            reported = !ok && !run->message;
            break;
        default:
            if (n->nblocks > 0)
                ok = eval_fail_unimplemented(&call);
            else
                ok = eval_dispatch(&call);
            if (ok && n->noutputs > 0 && outs[0] && outs[0]->kind == RT_TENSOR)
                eval_tally_op(n->op);   /* tensor work, not int arithmetic */
            break;
        }
    }
ran_elsewhere:
    for (int i = 0; ok && i < n->noutputs; i++)
        if (!outs[i])
            ok = eval_fail(&call, "the op produced no value for output %%%s", n->outputs[i]->name);
    if (ok) {
        for (int i = 0; i < n->noutputs; i++)
            slot_set(run, n->outputs[i], outs[i]);
        /* Arguments the binding took for its result (eval_arg_take): their
         * other uses have all run, so their slots are dead. */
        for (int i = 0; call.taken && i < n->ninputs && i < (int)(8 * sizeof call.taken); i++)
            if ((call.taken >> i & 1u) && run->slots[n->inputs[i]->id] == args[i])
                slot_set(run, n->inputs[i], NULL);
    } else {
        for (int i = 0; i < n->noutputs; i++)
            rt_release(outs[i]);
        if (!reported) {
            const char *kernel = tensor_last_error();
            report(run, n, err,
                   run->message        ? run->message
                   : kernel && *kernel ? kernel
                                       : "failed");
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

bool eval_block_run(EvalRun *run, IrBlock *b, FILE *err)
{
    IR_FOREACH_NODE(n, b) {
        if (!eval_node_run(run, n, err))
            return false;
    }
    for (int i = 0; i < ir_block_nreturns(b); i++)
        if (!run->slots[ir_block_return(b, i)->id]) {
            if (err)
                fprintf(err, "%s:%d: error: block result %%%s has no value\n",
                        run->graph->file ? run->graph->file : "<graph>", b->line,
                        ir_block_return(b, i)->name);
            return false;
        }
    return true;
}
