/* check_ops.c — the graph against the op table (ir_check_ops, see ir.h).
 *
 * The parser accepts any namespace::name as a node kind, so that any graph
 * TorchScript prints can be read and printed back. Everything after that
 * needs to know what each op means, so before any stage works on a graph
 * the driver checks it here: an op the table does not list is the user's
 * error (exit 2), found at once rather than when the run reaches it, and a
 * result declared with a type the op cannot produce is a graph that lies.
 *
 * Code that cannot run is not checked: the branch of a prim::If whose
 * condition is known and selects the other branch. TorchScript's inliner
 * leaves such branches behind: F.max_pool2d keeps the return_indices=True
 * path (aten::max_pool2d_with_indices) under a constant False, and
 * F.interpolate keeps one branch per mode and input rank, chosen by
 * comparing a constant string and `input.dim()`. So a condition is known
 * when it follows from constants and the ranks of the bound tensor inputs
 * (when the driver has bound them) through ==, !=, <, <=, >, >=, `not`,
 * `is None` and the If nodes `and`/`or` become. An op there cannot fail
 * this run.
 *
 * Nor is an op the table does not list refused where it may not run: in a
 * branch of a prim::If whose condition is not known, or in a loop body
 * (which may run no iteration). Only what must run is refused here; such a
 * node that a run reaches fails there (exit 1, naming the op, the types it
 * was called with and its line: eval_fail_unimplemented), and a run that
 * does not reach it is not affected. (TorchScript scripts every branch of
 * a program, so a program keeps ops in paths a run-time flag turns off.)
 *
 * Every node, dead branches included, must have at least as many inputs
 * as its op's schema needs (op_min_args; the Tensor overloads' count when
 * its first input is a Tensor): the passes after this check index a node's
 * inputs by position, as its schema lays them out. Nor may it have more
 * than any overload takes (op_max_args): the fused backends read the
 * inputs they know and would run such a node with the rest ignored.
 *
 * The type check is deliberately one-sided: only ops that make nothing but
 * tensors are checked (op_returns_tensors_only), and only that their
 * results are tensor-like. Ops that double as Python builtins on numbers,
 * lists and strings are not, since their result type depends on the
 * overload, which the op table does not record.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/util.h"

typedef struct OpCheck {
    const IrGraph *g;
    const int *input_ranks;     /* per graph input: its rank when bound to a tensor, else -1 */
    int ninput_ranks;
    struct Known *known;        /* by value id: what known_value found, once found */
    bool *known_done;           /* by value id: known[id] is filled in */
    FILE *err;
    bool ok;
} OpCheck;

/* A Tensor, or an Optional, list or tuple of tensor-like types, or Any. */
static bool tensor_like(const IrType *t)
{
    switch (t->kind) {
    case TY_TENSOR:
    case TY_ANY:
        return true;
    case TY_OPTIONAL:
    case TY_LIST:
    case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (!tensor_like(t->elems[i]))
                return false;
        return true;
    default:
        return false;
    }
}

static void check_block(OpCheck *c, IrBlock *b, bool must_run);

/* What the check knows about a scalar value without running anything: a
 * constant, the rank of a bound tensor input (aten::dim), and what follows
 * from those through comparisons, `not`, `is None` and the If nodes that
 * TorchScript makes of `and`/`or`. */
typedef enum KnownKind { KNOWN_NOTHING, KNOWN_INT, KNOWN_FLOAT, KNOWN_STR, KNOWN_NONE } KnownKind;

typedef struct Known {
    KnownKind kind;
    int64_t i;          /* KNOWN_INT (bools too) */
    double f;           /* KNOWN_FLOAT */
    const char *s;      /* KNOWN_STR */
} Known;

enum { KNOWN_MAX_DEPTH = 64 };  /* an If chain deeper than this is not followed */

static Known known_value(const OpCheck *c, const IrValue *v, int depth);

static Known known_int(int64_t i) { return (Known){.kind = KNOWN_INT, .i = i}; }

static Known known_constant(const IrNode *def)
{
    const IrAttr *value = ir_attr_find(def, "value");
    if (!value)
        return def->noutputs == 1 && def->outputs[0]->type && def->outputs[0]->type->kind == TY_NONE
                   ? (Known){.kind = KNOWN_NONE}
                   : (Known){0};
    switch (value->kind) {
    case ATTR_INT: return known_int(value->u.i);
    case ATTR_FLOAT: return (Known){.kind = KNOWN_FLOAT, .f = value->u.f};
    case ATTR_STR: return (Known){.kind = KNOWN_STR, .s = value->u.s};
    default: return (Known){0};
    }
}

/* -1, 0, 1 for a < b, a == b, a > b; 2 when the two cannot be compared. */
static int known_compare(Known a, Known b)
{
    if (a.kind == KNOWN_STR && b.kind == KNOWN_STR) {
        int d = strcmp(a.s, b.s);
        return (d > 0) - (d < 0);
    }
    if (a.kind == KNOWN_INT && b.kind == KNOWN_INT)
        return (a.i > b.i) - (a.i < b.i);
    if ((a.kind == KNOWN_INT || a.kind == KNOWN_FLOAT) && (b.kind == KNOWN_INT || b.kind == KNOWN_FLOAT)) {
        double x = a.kind == KNOWN_INT ? (double)a.i : a.f, y = b.kind == KNOWN_INT ? (double)b.i : b.f;
        return x != x || y != y ? 2 : (x > y) - (x < y);
    }
    return 2;
}

static Known known_node_output(const OpCheck *c, const IrNode *def, int index, int depth)
{
    switch (def->op) {
    case OP_PRIM_CONSTANT:
        return known_constant(def);
    case OP_ATEN_DIM: {
        const IrValue *x = def->inputs[0];
        if (def->ninputs != 1 || x->def != c->g->top->param)
            return (Known){0};
        int rank = x->def_index < c->ninput_ranks ? c->input_ranks[x->def_index] : -1;
        return rank >= 0 ? known_int(rank) : (Known){0};
    }
    case OP_PRIM_UNCHECKED_CAST:
        return def->ninputs == 1 ? known_value(c, def->inputs[0], depth + 1) : (Known){0};
    case OP_ATEN_NOT: {
        Known a = def->ninputs == 1 ? known_value(c, def->inputs[0], depth + 1) : (Known){0};
        return a.kind == KNOWN_INT ? known_int(!a.i) : (Known){0};
    }
    case OP_ATEN_IS:
    case OP_ATEN_ISNOT: {
        if (def->ninputs != 2)
            return (Known){0};
        Known a = known_value(c, def->inputs[0], depth + 1), b = known_value(c, def->inputs[1], depth + 1);
        if (a.kind == KNOWN_NOTHING || b.kind == KNOWN_NOTHING ||
            (a.kind != KNOWN_NONE && b.kind != KNOWN_NONE))
            return (Known){0};
        bool same = a.kind == b.kind;   /* one is None: `is` holds only if both are */
        return known_int(def->op == OP_ATEN_IS ? same : !same);
    }
    case OP_ATEN_EQ: case OP_ATEN_NE: case OP_ATEN_LT: case OP_ATEN_LE: case OP_ATEN_GT: case OP_ATEN_GE: {
        if (def->ninputs != 2)
            return (Known){0};
        int d = known_compare(known_value(c, def->inputs[0], depth + 1),
                              known_value(c, def->inputs[1], depth + 1));
        if (d == 2)
            return (Known){0};
        switch (def->op) {
        case OP_ATEN_EQ: return known_int(d == 0);
        case OP_ATEN_NE: return known_int(d != 0);
        case OP_ATEN_LT: return known_int(d < 0);
        case OP_ATEN_LE: return known_int(d <= 0);
        case OP_ATEN_GT: return known_int(d > 0);
        default: return known_int(d >= 0);
        }
    }
    case OP_PRIM_IF: {
        if (def->nblocks != 2 || def->ninputs != 1)
            return (Known){0};
        Known cond = known_value(c, def->inputs[0], depth + 1);
        if (cond.kind != KNOWN_INT)
            return (Known){0};
        const IrNode *ret = def->blocks[cond.i ? 0 : 1]->ret;
        return index < ret->ninputs ? known_value(c, ret->inputs[index], depth + 1) : (Known){0};
    }
    default:
        return (Known){0};
    }
}

/* Memoized by value, so a graph of comparisons of comparisons is walked
 * once per value, not once per path to it. */
static Known known_value(const OpCheck *c, const IrValue *v, int depth)
{
    if (depth > KNOWN_MAX_DEPTH || !v->def || v->id >= c->g->nvalues)
        return (Known){0};
    if (!c->known_done[v->id]) {
        c->known[v->id] = known_node_output(c, v->def, v->def_index, depth);
        c->known_done[v->id] = true;
    }
    return c->known[v->id];
}

/* The block of an If that the known facts rule out, or -1. */
static int dead_branch(const OpCheck *c, const IrNode *n)
{
    if (n->op != OP_PRIM_IF || n->ninputs != 1 || n->nblocks != 2)
        return -1;
    Known cond = known_value(c, n->inputs[0], 0);
    if (cond.kind != KNOWN_INT)
        return -1;
    return cond.i ? 1 : 0;
}

/* must_run: n runs whenever the graph does (see the header). */
static void check_node(OpCheck *c, IrNode *n, bool must_run)
{
    DiagSource src = {.file = c->g->file ? c->g->file : "<graph>"};
    if (n->op == OP_UNKNOWN && !must_run)
        return;
    if (n->op == OP_UNKNOWN) {
        diag_error_line(c->err, &src, n->line, n->col,
                        "unknown op '%s': the op table does not list it, so it cannot be "
                        "compiled or run%s%s", n->kind, op_unknown_hint(n->kind) ? ": " : "",
                        op_unknown_hint(n->kind) ? op_unknown_hint(n->kind) : "");
        c->ok = false;
        return;
    }
    if (!op_returns_tensors_only(n->op))
        return;
    for (int i = 0; i < n->noutputs; i++) {
        const IrType *t = n->outputs[i]->type;
        if (t && !tensor_like(t)) {
            TextBuf text = {0};
            ir_type_format(&text, t);
            diag_error_line(c->err, &src, n->line, n->col,
                            "%s returns tensors, but its result %%%s is declared %s", n->kind,
                            n->outputs[i]->name, textbuf_cstr(&text));
            textbuf_release(&text);
            c->ok = false;
        }
    }
}

/* Too few or too many inputs for any overload of the op: refused with the
 * schema. */
static void check_arity_block(OpCheck *c, IrBlock *b)
{
    DiagSource src = {.file = c->g->file ? c->g->file : "<graph>"};
    IR_FOREACH_NODE(n, b) {
        const char *schema = NULL;
        const IrType *first = n->ninputs > 0 ? n->inputs[0]->type : NULL;
        int need = op_min_args(n->op, first && first->kind == TY_TENSOR, &schema);
        if (n->ninputs < need) {
            diag_error_line(c->err, &src, n->line, n->col,
                            "%s takes at least %d argument%s, got %d: %s", n->kind, need,
                            need == 1 ? "" : "s", n->ninputs, schema);
            c->ok = false;
        }
        int most = op_max_args(n->op, &schema);
        if (most >= 0 && n->ninputs > most) {
            diag_error_line(c->err, &src, n->line, n->col,
                            "%s takes at most %d argument%s, got %d: %s", n->kind, most,
                            most == 1 ? "" : "s", n->ninputs, schema);
            c->ok = false;
        }
        for (int i = 0; i < n->nblocks; i++)
            check_arity_block(c, n->blocks[i]);
    }
}

/* must_run: b's nodes run whenever the graph does: the top block, and the
 * branch of an If that must run and whose condition is known to select it. */
static void check_block(OpCheck *c, IrBlock *b, bool must_run)
{
    IR_FOREACH_NODE(n, b) {
        check_node(c, n, must_run);
        int dead = dead_branch(c, n);
        for (int i = 0; i < n->nblocks; i++)
            if (i != dead)
                check_block(c, n->blocks[i], must_run && n->op == OP_PRIM_IF && dead >= 0);
    }
}

bool ir_check_ops(const IrGraph *g, const int *input_ranks, int ninput_ranks, FILE *err)
{
    OpCheck c = {.g = g, .input_ranks = input_ranks, .ninput_ranks = input_ranks ? ninput_ranks : 0,
                 .known = xcalloc((size_t)g->nvalues + 1, sizeof(Known)),
                 .known_done = xcalloc((size_t)g->nvalues + 1, sizeof(bool)), .err = err, .ok = true};
    check_arity_block(&c, g->top);
    if (c.ok)       /* the walk below reads inputs the arity check vouched for */
        check_block(&c, g->top, true);
    free(c.known);
    free(c.known_done);
    return c.ok;
}
