/* verify.c — the invariant checker every pass can run (ir_verify).
 *
 * One walk over the graph in program order keeps a "visible" flag per value
 * id: a block's parameters become visible at its start, a node's outputs
 * right after the node (so its own blocks cannot see them), and everything a
 * block defined stops being visible when the block ends. An input that is
 * not visible at its use is used before, or outside the scope of, its
 * definition. The same walk checks list links, node ownership, use-list
 * entries (each input's use_slot must point back at it) and the shapes of
 * prim::If and prim::Loop. A second walk checks the other direction: every
 * recorded use belongs to a live node in the graph that really has the value
 * as that input, and every value is the one its name maps to. Cost: linear in
 * nodes + inputs + uses.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/util.h"

typedef struct Verifier {
    IrGraph *g;
    IrVerifyReport report;
    void *ctx;
    bool ok;
    unsigned char *visible;     /* by value id */
    unsigned char *reached;     /* by node id: in the graph and walked */
    uint32_t nvalues, nnodes;
    size_t ninputs, nuses;      /* totals, which must agree */
} Verifier;

static void problem(Verifier *vf, const IrNode *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(Verifier *vf, const IrNode *where, const char *fmt, ...)
{
    vf->ok = false;
    if (!vf->report)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vf->report(vf->ctx, where, msg);
}

static bool value_known(Verifier *vf, const IrValue *v)
{
    return v && v->id < vf->nvalues;
}

static void set_visible(Verifier *vf, const IrValue *v, unsigned char on)
{
    if (value_known(vf, v))
        vf->visible[v->id] = on;
}

static void check_outputs(Verifier *vf, const IrNode *n)
{
    for (int i = 0; i < n->noutputs; i++) {
        const IrValue *v = n->outputs[i];
        if (!value_known(vf, v) || v->def != n || v->def_index != i) {
            problem(vf, n, "output %d of %s does not record %s as its definition", i, n->kind,
                    n->kind);
            continue;
        }
        if (!v->name || ir_graph_lookup(vf->g, v->name) != v)
            problem(vf, n, "the name of output %%%s of %s does not map back to it",
                    v->name ? v->name : "?", n->kind);
    }
}

static void check_inputs(Verifier *vf, const IrNode *n, const IrNode *where)
{
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *v = n->inputs[i];
        vf->ninputs++;
        if (!value_known(vf, v)) {
            problem(vf, where, "input %d of %s is not a value of this graph", i, n->kind);
            continue;
        }
        if (!v->def || v->def->dead) {
            problem(vf, where, "%s uses %%%s, whose defining node was destroyed", n->kind,
                    v->name);
        } else if (!vf->visible[v->id]) {
            problem(vf, where, "%s uses %%%s where its definition does not reach (used before "
                    "it is defined, or outside the block that defines it)", n->kind, v->name);
        }
        int slot = n->use_slots ? n->use_slots[i] : -1;
        if (slot < 0 || slot >= v->nuses || v->uses[slot].user != n || v->uses[slot].index != i)
            problem(vf, where, "the use list of %%%s does not record input %d of %s", v->name,
                    i, n->kind);
    }
}

static void check_control(Verifier *vf, const IrNode *n)
{
    if (n->op == OP_PRIM_IF) {
        if (n->nblocks != 2) {
            problem(vf, n, "prim::If has %d blocks, expected 2", n->nblocks);
            return;
        }
        if (n->ninputs != 1)
            problem(vf, n, "prim::If has %d inputs, expected 1 (the condition)", n->ninputs);
        for (int b = 0; b < 2; b++) {
            const IrBlock *blk = n->blocks[b];
            if (ir_block_nparams(blk) != 0)
                problem(vf, n, "block%d of prim::If has %d parameters, expected none", b,
                        ir_block_nparams(blk));
            if (ir_block_nreturns(blk) != n->noutputs)
                problem(vf, n, "block%d of prim::If returns %d values but the node has %d "
                        "outputs", b, ir_block_nreturns(blk), n->noutputs);
        }
    } else if (n->op == OP_PRIM_LOOP) {
        if (n->nblocks != 1) {
            problem(vf, n, "prim::Loop has %d blocks, expected 1", n->nblocks);
            return;
        }
        if (n->ninputs < 2) {
            problem(vf, n, "prim::Loop has %d inputs, expected (max_trip_count, condition, "
                    "carried...)", n->ninputs);
            return;
        }
        int carried = n->ninputs - 2;
        const IrBlock *blk = n->blocks[0];
        if (n->noutputs != carried)
            problem(vf, n, "prim::Loop carries %d values but has %d outputs", carried,
                    n->noutputs);
        if (ir_block_nparams(blk) != carried + 1)
            problem(vf, n, "the block of prim::Loop has %d parameters, expected %d (iteration, "
                    "carried...)", ir_block_nparams(blk), carried + 1);
        if (ir_block_nreturns(blk) != carried + 1)
            problem(vf, n, "the block of prim::Loop returns %d values, expected %d (condition, "
                    "carried...)", ir_block_nreturns(blk), carried + 1);
    }
}

static void walk_block(Verifier *vf, const IrBlock *b, const IrNode *owner);

static void walk_node(Verifier *vf, const IrNode *n)
{
    check_inputs(vf, n, n);
    check_control(vf, n);
    for (int i = 0; i < n->nblocks; i++) {
        if (!n->blocks[i] || n->blocks[i]->owner != n) {
            problem(vf, n, "block%d of %s does not record %s as its owner", i, n->kind, n->kind);
            continue;
        }
        walk_block(vf, n->blocks[i], n);
    }
    check_outputs(vf, n);
    for (int i = 0; i < n->noutputs; i++)
        set_visible(vf, n->outputs[i], 1);
}

static void walk_block(Verifier *vf, const IrBlock *b, const IrNode *owner)
{
    const IrNode *where = owner ? owner : b->ret;
    if (!b->param || !b->ret || b->param->owner != b || b->ret->owner != b ||
        b->param->op != OP_PRIM_PARAM || b->ret->op != OP_PRIM_RETURN) {
        problem(vf, where, "a block of %s has broken param/return sentinels",
                owner ? owner->kind : "the graph");
        return;
    }
    vf->reached[b->param->id] = vf->reached[b->ret->id] = 1;
    check_outputs(vf, b->param);
    for (int i = 0; i < b->param->noutputs; i++)
        set_visible(vf, b->param->outputs[i], 1);
    const IrNode *prev = b->param;
    for (const IrNode *n = b->param->next; n; n = n->next) {
        if (n->prev != prev || n->owner != b || n->graph != vf->g || n->id >= vf->nnodes) {
            problem(vf, where, "the node list of a block is broken near %s", n->kind);
            return;
        }
        if (n == b->ret)
            break;
        if (n->dead)
            problem(vf, n, "destroyed node %s is still in a block", n->kind);
        if (n->op == OP_PRIM_PARAM || n->op == OP_PRIM_RETURN)
            problem(vf, n, "%s appears as an ordinary node", n->kind);
        if (n->order <= prev->order)
            problem(vf, n, "program order numbers of %s are out of order", n->kind);
        vf->reached[n->id] = 1;
        walk_node(vf, n);
        prev = n;
    }
    check_inputs(vf, b->ret, b->ret->line ? b->ret : where);
    /* What the block defined goes out of scope. */
    for (int i = 0; i < b->param->noutputs; i++)
        set_visible(vf, b->param->outputs[i], 0);
    for (const IrNode *n = b->param->next; n && n != b->ret; n = n->next)
        for (int i = 0; i < n->noutputs; i++)
            set_visible(vf, n->outputs[i], 0);
}

/* Every recorded use of each value defined in b belongs to a reached, live
 * node that has the value at that input. */
static void check_uses_of(Verifier *vf, const IrNode *def)
{
    for (int i = 0; i < def->noutputs; i++) {
        const IrValue *v = def->outputs[i];
        if (!value_known(vf, v))
            continue;
        vf->nuses += (size_t)v->nuses;
        for (int u = 0; u < v->nuses; u++) {
            const IrNode *user = v->uses[u].user;
            int index = v->uses[u].index;
            if (!user || user->id >= vf->nnodes || !vf->reached[user->id] || user->dead) {
                problem(vf, def, "%%%s has a use by %s that is not in the graph (destroyed or "
                        "never inserted)", v->name, user ? user->kind : "nothing");
            } else if (index < 0 || index >= user->ninputs || user->inputs[index] != v) {
                problem(vf, def, "%%%s records a use as input %d of %s, which is not it",
                        v->name, index, user->kind);
            }
        }
    }
}

static void check_uses_block(Verifier *vf, const IrBlock *b)
{
    check_uses_of(vf, b->param);
    for (const IrNode *n = b->param->next; n && n != b->ret; n = n->next) {
        check_uses_of(vf, n);
        for (int i = 0; i < n->nblocks; i++)
            if (n->blocks[i] && n->blocks[i]->param)
                check_uses_block(vf, n->blocks[i]);
    }
}

bool ir_verify_report(IrGraph *g, IrVerifyReport report, void *ctx)
{
    Verifier vf = {.g = g, .report = report, .ctx = ctx, .ok = true};
    vf.nvalues = g->nvalues;
    vf.nnodes = g->nnodes;
    vf.visible = calloc(g->nvalues + 1, 1);
    vf.reached = calloc(g->nnodes + 1, 1);
    if (!vf.visible || !vf.reached)
        diag_die("out of memory verifying a graph");
    walk_block(&vf, g->top, NULL);
    if (vf.ok) {
        check_uses_block(&vf, g->top);
        if (vf.ok && vf.ninputs != vf.nuses)
            problem(&vf, g->top->ret, "use lists record %zu uses but nodes have %zu inputs",
                    vf.nuses, vf.ninputs);
    }
    free(vf.visible);
    free(vf.reached);
    return vf.ok;
}

typedef struct VerifyPrinter {
    FILE *err;
    const char *file;
} VerifyPrinter;

static void print_problem(void *ctx, const IrNode *where, const char *message)
{
    VerifyPrinter *p = ctx;
    if (!p->err)
        return;
    if (where && where->line > 0)
        fprintf(p->err, "%s:%d: error: ir_verify: %s\n", p->file, where->line, message);
    else
        fprintf(p->err, "%s: error: ir_verify: %s\n", p->file, message);
}

bool ir_verify(IrGraph *g, FILE *err)
{
    VerifyPrinter p = {err, g->file ? g->file : "<graph>"};
    return ir_verify_report(g, print_problem, &p);
}
