/* rewrite_mutation.c — Algorithm 1 of the TensorSSA paper: every write
 * becomes a new version of its root, announced with tssa::update.
 *
 * Precondition: inplace_to_functional ran, so each safe write is
 * aten::copy_(v, src), where v = s_k(... s_1(R)) is a view of root R along
 * the steps s_1..s_k recorded by alias analysis (k = 0 when v is R).
 *
 * Pass up. The new root is built from the inside out, each level being the
 * old parent with the child's region replaced:
 *     a_1 = access(s_1, R) ... a_{k-1} = access(s_{k-1}, a_{k-2})
 *     n_k = src;  n_{i-1} = assign(s_i, a_{i-1}, n_i)   (a_0 = R)
 *     tssa::update(n_0, R)
 * (k = 0: n_0 = immut::assign(R, src)).
 *
 * Pass down. Every other view w of R that is alive at the write (its
 * definition dominates it) and read after it is re-read from the new root
 * along its own chain, w' = access(...access(R)), with tssa::update(w', w).
 * With fewer copies on, a view whose region provably does not overlap v's
 * keeps its old value (view_regions.c); and when the source already has v's
 * shape and dtype (x.add_(1) -> add(x, 1)), a whole-root write needs no
 * immut::assign and v's own new value is the source, not a re-read.
 * Identity steps (unchecked_cast) above the written view need no assign.
 * A root read out of a tensor list (alias.c's slot, list_elements.c) is
 * also written back to its slot: aten::_set_item(l, i, R) after the marker.
 * Where object_names.c decided every name and slot of the written tensor
 * (the mutation's plan), each other name read after the write gets
 * tssa::update(new, name) and each slot aten::_set_item(l, c, R) instead.
 *
 * All new nodes name the *original* values (R, the chains' arguments); the
 * rename pass later makes each use read the version current at its place,
 * which is exactly what the update markers say. Finally the aten views of
 * every functionalized root become immut:: accesses (copies), so no value
 * of the result aliases another.
 */
#include <stdlib.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

enum { MAX_CHAIN = 256 };

static void emit_update(IrGraph *g, IrNode *pos, IrValue *new_version, IrValue *old)
{
    IrNode *u = ir_node_new_op(g, OP_TSSA_UPDATE);
    ir_node_add_input(u, new_version);
    ir_node_add_input(u, old);
    ir_insert_before(u, pos);
}

/* prim::If(counter == 0) { on_first } else { otherwise }, before pos: a
 * name that is the written tensor on every iteration of the loop around
 * the write but the first, or on the first only (object_names.c's later
 * and first names), gets the new version on those iterations. */
static IrValue *select_by_first(IrGraph *g, IrNode *pos, IrValue *counter, IrValue *on_first,
                                IrValue *otherwise)
{
    IrValue *args[2] = {counter, tssa_emit_int(g, pos, 0)};
    IrValue *first = tssa_emit_node(g, pos, OP_ATEN_EQ, args, 2, ir_type_simple(g, TY_BOOL), NULL);
    IrNode *sel = ir_node_new_op(g, OP_PRIM_IF);
    ir_node_add_input(sel, first);
    ir_block_add_return(ir_node_add_block(sel), on_first);
    ir_block_add_return(ir_node_add_block(sel), otherwise);
    IrValue *out = ir_node_add_output(sel, ir_type_tensor(g), NULL);
    sel->comment = pos->comment;
    sel->line = pos->line;
    ir_insert_before(sel, pos);
    return out;
}

/* chain[0] = root, ..., chain[k] = v; returns k, or -1 if too deep. */
static int chain_of(const TssaAlias *a, IrValue *v, IrValue **chain)
{
    IrValue *rev[MAX_CHAIN];
    int n = 0;
    for (IrValue *at = v; at; n++) {
        if (n == MAX_CHAIN)
            return -1;
        rev[n] = at;
        const TssaValueInfo *info = tssa_alias_info(a, at);
        at = info ? info->parent : NULL;
    }
    for (int i = 0; i < n; i++)
        chain[i] = rev[n - 1 - i];
    return n - 1;
}

/* The re-read of w from the (renamed) root, built once per write: the
 * value's aux holds it while the write is processed. */
static IrValue *reread(IrGraph *g, const TssaAlias *a, IrValue *root, IrValue *w, IrNode *pos)
{
    if (w == root)
        return root;
    if (w->aux)
        return w->aux;
    const TssaValueInfo *info = tssa_alias_info(a, w);
    IrValue *parent = reread(g, a, root, info->parent, pos);
    char buf[128];
    IrValue *fresh = tssa_step_access(g, &info->step, parent, pos, w->type,
                                      tssa_base_name(w, buf, sizeof buf));
    w->aux = fresh;
    return fresh;
}

static void rewrite_one(IrGraph *g, TssaAlias *a, TssaMutation *m, bool fewer_copies,
                        size_t *skipped, size_t *merged)
{
    IrNode *node = m->node;
    IrValue *v = node->inputs[0], *src = node->inputs[1];
    TssaRoot *root = &a->roots[m->root];
    IrValue *r = root->value;
    IrValue *chain[MAX_CHAIN + 1];
    int k = chain_of(a, v, chain);
    if (k < 0 || chain[0] != r)
        diag_die("rewrite_mutation: view chain of %%%s does not reach its root", v->name);
    char buf[128];

    /* Pass up. */
    IrValue *access[MAX_CHAIN + 1];
    access[0] = r;
    for (int i = 1; i < k; i++)
        access[i] = tssa_step_access(g, &tssa_alias_info(a, chain[i])->step, access[i - 1], node,
                                     chain[i]->type, NULL);
    IrValue *cur = src;
    if (k == 0 && fewer_copies && m->src_matches_target)
        (*merged)++;
    else if (k == 0)
        cur = tssa_step_assign(g, &(TssaStep){TSSA_STEP_IDENTITY, NULL, 0, NULL}, r, src, node, r->type,
                               tssa_base_name(r, buf, sizeof buf));
    bool src_fits = fewer_copies && m->src_matches_target;
    for (int i = k; i >= 1; i--) {
        const TssaStep *step = &tssa_alias_info(a, chain[i])->step;
        /* An identity step needs no assign once the value already has the
         * parent's shape and dtype: above the written view, or when the
         * source is known to fit it. */
        if (step->kind == TSSA_STEP_IDENTITY && (i < k || src_fits)) {
            if (i == k)
                (*merged)++;
            continue;
        }
        IrValue *parent = chain[i - 1];
        cur = tssa_step_assign(g, step, access[i - 1], cur, node, parent->type,
                               i == 1 ? tssa_base_name(r, buf, sizeof buf) : NULL);
    }
    emit_update(g, node, cur, r);
    if (m->plan.resolved) {
        /* object_names.c found every other name and slot of the tensor:
         * each gets the new version (renaming makes this use of R read
         * it). */
        for (int i = 0; i < m->plan.nnames; i++)
            emit_update(g, node, cur, m->plan.names[i]);
        for (int i = 0; i < m->plan.nlater; i++)
            emit_update(g, node, select_by_first(g, node, m->plan.counter, m->plan.later_names[i], cur),
                        m->plan.later_names[i]);
        for (int i = 0; i < m->plan.nfirst; i++)
            emit_update(g, node, select_by_first(g, node, m->plan.counter, cur, m->plan.first_names[i]),
                        m->plan.first_names[i]);
        for (int i = 0; i < m->plan.nslots; i++) {
            const TssaSlot *slot = &m->plan.slots[i];
            IrValue *list = slot->list;
            IrValue *index = slot->index_value ? slot->index_value : tssa_emit_int(g, node, slot->index);
            IrValue *args[3] = {list, index, r};
            IrValue *set = tssa_emit_node(g, node, OP_ATEN_SET_ITEM, args, 3, list->type, NULL);
            set->def->comment = node->comment;
            set->def->line = node->line;
        }
    } else if (root->slot) {
        /* The list slot R was read from is one more alias of R: set it to
         * the new version (renaming makes this use of R read it), which
         * list_versions.c turns into a new version of the list. */
        IrNode *read = root->slot;
        IrValue *args[3] = {read->inputs[0], read->inputs[1], r};
        IrValue *set = tssa_emit_node(g, node, OP_ATEN_SET_ITEM, args, 3, read->inputs[0]->type, NULL);
        set->def->comment = node->comment;
        set->def->line = node->line;
    }

    /* Pass down. */
    for (int i = 0; i < root->ntree; i++) {
        IrValue *w = root->tree[i];
        if (w == r || w->def->dead || !tssa_alias_dominates(a, w, node))
            continue;
        if (a->values[w->id].last_use <= tssa_alias_after_threshold(a, w, node))
            continue;
        if (fewer_copies && tssa_regions_disjoint(a, w, v)) {
            (*skipped)++;
            continue;
        }
        /* The written view's new value is the source itself when it fits. */
        if (w == v && src_fits) {
            emit_update(g, node, src, w);
            (*skipped)++;
            continue;
        }
        emit_update(g, node, reread(g, a, r, w, node), w);
    }
    for (int i = 0; i < root->ntree; i++)
        root->tree[i]->aux = NULL;

    for (int i = 0; i < node->noutputs; i++)
        ir_replace_all_uses(node->outputs[i], v);
    ir_node_destroy(node);
    m->node = NULL;
}

/* Views of functionalized roots become copies: immut::<view> with the same
 * arguments, keeping the value's name. */
static void views_to_accesses(IrGraph *g, TssaAlias *a)
{
    for (int r = 0; r < a->nroots; r++) {
        TssaRoot *root = &a->roots[r];
        if (!root->nmutations || root->imperative)
            continue;
        for (int i = 0; i < root->ntree; i++) {
            IrValue *w = root->tree[i];
            const TssaValueInfo *info = tssa_alias_info(a, w);
            if (info->step.kind != TSSA_STEP_VIEW || w->def->dead)
                continue;
            OpId op = tssa_access_op_of_view(w->def->op);
            if (op == OP_UNKNOWN)
                continue;
            IrNode *old = w->def;
            IrValue *copy = tssa_emit_node(g, old, op, old->inputs, old->ninputs, w->type, NULL);
            copy->def->comment = old->comment;
            copy->def->line = old->line;
            const char *name = w->name;
            ir_replace_all_uses(w, copy);
            ir_node_destroy(old);
            ir_value_set_name(g, copy, name);
        }
    }
}

size_t tssa_rewrite_mutation(IrGraph *g, TssaAlias *a, bool fewer_copies, TssaReport *report)
{
    size_t count = 0, skip = 0, merged = 0;
    for (int r = 0; r < a->nroots; r++)
        for (int i = 0; i < a->roots[r].ntree; i++) {
            IrValue *v = a->roots[r].tree[i];
            v->aux = NULL;
            const TssaValueInfo *info = tssa_alias_info(a, v);
            if (info->step.node)
                info->step.node->aux = NULL;    /* view_steps.c's chunk sizes */
        }
    for (int i = 0; i < a->nmutations; i++) {
        TssaMutation *m = &a->mutations[i];
        if (m->imperative || !m->node)
            continue;
        if (m->node->op != OP_ATEN_COPY_)
            diag_die("rewrite_mutation: %s was not turned into aten::copy_", m->node->kind);
        rewrite_one(g, a, m, fewer_copies, &skip, &merged);
        count++;
    }
    views_to_accesses(g, a);
    if (report) {
        report->rereads_skipped += skip;
        report->assigns_merged += merged;
    }
    return count;
}
