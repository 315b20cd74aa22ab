/* fuse.c — vertical fusion: fusable nodes become tssa::FusionGroup nodes.
 *
 * Preconditions: the program is specialized and shapes are inferred; the
 * graph is functional (TensorSSA), so a group may compute its outputs as
 * fresh tensors (a view it returns becomes a copy: nothing writes through
 * it any more).
 *
 * Walks every block in program order (the top level, loop bodies, branches)
 * and puts each node kir_fusable() accepts into a group:
 *   - into the group of one of its producers (the latest, so chains fuse:
 *     sigmoid -> add -> mul -> slice_rev -> view is one group), or
 *   - into a group that reads one of the same inputs (siblings: the three
 *     slice assigns of a box decoding read the same tensor), also through
 *     views n takes along (min(b[:, 0], b[:, 2]) and max(b[:, 0], b[:, 2])
 *     read b), unless n reads a value of that group broadcast, or
 *   - into a new group.
 * A node joins a group only while the group stays one step of the block:
 * no node outside the group that runs before the new member may use a value
 * of the group (the group runs where its last member was). Nodes a loop's
 * plan treats specially (its slicers x[i], aten::select at the counter, and
 * its writes out[i] = v straight in the body) are not fusable, so loops keep
 * their shape; TensorSSA's accesses and assigns at other run-time indices
 * (inside a body's Ifs) are, guarded (kir_build.c, runtime_index).
 * A group of views and casts only would copy what a view gives for free:
 * such groups are dissolved.
 *
 * Result: each group is one node in its block, where its last member was
 * (a node outside it that read a member's value before then follows it);
 * its block's params are the values its members read from outside (in first
 * use order), its outputs the members' values used after it, and its
 * comment lists the absorbed nodes with their source lines.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

enum { MAX_GROUP_NODES = 256 };

typedef struct Group {
    IrNode **nodes;
    int n, cap;
    int id;
} Group;

typedef struct Fuser {
    LowerProgram *p;
    IrGraph *g;
    Group *groups;              /* by group id */
    int ngroups, capgroups;
    int *group_of;              /* by node id: group id + 1, or 0 */
    bool *pending;              /* by node id: a fusable view waiting for a consumer */
    uint32_t nnodes;
    int made;
} Fuser;

static int group_of(const Fuser *f, const IrNode *n)
{
    return n->id < f->nnodes ? f->group_of[n->id] - 1 : -1;
}

/* The per-node tables cover the graph's nodes (clones are new nodes). */
static void cover_nodes(Fuser *f)
{
    uint32_t n = f->g->nnodes;
    if (n <= f->nnodes)
        return;
    f->group_of = xrealloc(f->group_of, ((size_t)n + 1) * sizeof *f->group_of);
    f->pending = xrealloc(f->pending, ((size_t)n + 1) * sizeof *f->pending);
    memset(f->group_of + f->nnodes, 0, ((size_t)n + 1 - f->nnodes) * sizeof *f->group_of);
    memset(f->pending + f->nnodes, 0, ((size_t)n + 1 - f->nnodes) * sizeof *f->pending);
    f->nnodes = n;
}

static bool in_group(const Fuser *f, const IrNode *n, int gid)
{
    return group_of(f, n) == gid;
}

/* A ListConstruct only n reads (cat's and stack's list goes with them). */
static bool list_for(const IrNode *user, const IrNode *n)
{
    return user->op == OP_PRIM_LISTCONSTRUCT && user->noutputs == 1 &&
           user->outputs[0]->nuses == 1 && user->outputs[0]->uses[0].user == n;
}

/* Whether a node outside group gid that runs before n reads v. A waiting
 * view (one that will run inside its consumer's kernel) counts where its
 * consumers are. */
static bool read_before(const Fuser *f, int gid, const IrValue *v, const IrNode *n)
{
    for (int u = 0; u < v->nuses; u++) {
        const IrNode *user = v->uses[u].user;
        if (user == n || in_group(f, user, gid) || list_for(user, n) || user->op == OP_PRIM_RETURN)
            continue;
        if (user->id < f->nnodes && f->pending[user->id] && user->noutputs == 1) {
            if (read_before(f, gid, user->outputs[0], n))
                return true;
            continue;
        }
        /* users in nested blocks count where their top node is */
        const IrNode *at = user;
        while (at->owner != n->owner && at->owner->owner)
            at = at->owner->owner;
        if (at->owner == n->owner && ir_node_is_before(at, n))
            return true;
    }
    return false;
}

/* Whether n may join group gid: no node outside the group that comes
 * before n uses a value of the group. */
static bool may_join(const Fuser *f, int gid, const IrNode *n)
{
    const Group *gr = &f->groups[gid];
    if (gr->n >= MAX_GROUP_NODES || gr->nodes[0]->owner != n->owner)
        return false;
    for (int i = 0; i < gr->n; i++) {
        const IrNode *m = gr->nodes[i];
        for (int o = 0; o < m->noutputs; o++)
            if (read_before(f, gid, m->outputs[o], n))
                return false;
    }
    return true;
}

static void add_to(Fuser *f, int gid, IrNode *n)
{
    Group *gr = &f->groups[gid];
    if (gr->n == gr->cap) {
        gr->cap = gr->cap ? gr->cap * 2 : 8;
        gr->nodes = xrealloc(gr->nodes, (size_t)gr->cap * sizeof *gr->nodes);
    }
    gr->nodes[gr->n++] = n;
    f->group_of[n->id] = gid + 1;
}

static int new_group(Fuser *f)
{
    if (f->ngroups == f->capgroups) {
        f->capgroups = f->capgroups ? f->capgroups * 2 : 16;
        f->groups = xrealloc(f->groups, (size_t)f->capgroups * sizeof *f->groups);
    }
    Group *gr = &f->groups[f->ngroups];
    memset(gr, 0, sizeof *gr);
    gr->id = f->ngroups;
    return f->ngroups++;
}

/* Moves every node of group `from` into group `to`. */
static void merge_groups(Fuser *f, int to, int from)
{
    Group *src = &f->groups[from];
    for (int i = 0; i < src->n; i++)
        add_to(f, to, src->nodes[i]);
    src->n = 0;
}

static bool computes(const IrNode *n);

static int64_t numel_of(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    int64_t n = 1;
    for (int d = 0; t && d < t->rank; d++)
        n *= t->sizes[d];
    return t ? n : -1;
}

/* Whether n reads v broadcast many times over (a box's bounds against every
 * pixel of a mask): fused, v's whole computation would run once per element
 * of n instead of once per element of v, so v is better computed apart. */
static bool broadcast_read(const IrNode *n, const IrValue *v)
{
    int64_t small = numel_of(v), big = n->noutputs ? numel_of(n->outputs[0]) : -1;
    return small >= 0 && big >= 0 && small * 16 < big && computes(v->def);
}

/* Adds gid to the producer groups seen so far when n may join it. */
static void consider(Fuser *f, const IrNode *n, int gid, int *groups, int *ngroups)
{
    if (gid < 0 || f->groups[gid].n == 0)
        return;
    for (int i = 0; i < *ngroups; i++)
        if (groups[i] == gid)
            return;
    if (*ngroups < 16 && may_join(f, gid, n))
        groups[(*ngroups)++] = gid;
}

static bool view_for(const Fuser *f, const IrNode *v, const IrNode *n);

/* Whether n reads a value of group gid broadcast (broadcast_read, directly
 * or through the views it takes along): in gid, that value would be
 * computed again for every element of n. */
static bool reads_broadcast_from(const Fuser *f, const IrNode *n, int gid)
{
    for (int i = 0; i < n->ninputs; i++) {
        const IrNode *def = n->inputs[i]->def;
        if (group_of(f, def) == gid && broadcast_read(n, n->inputs[i]))
            return true;
        for (const IrNode *user = n, *v = def; view_for(f, v, user); user = v, v = v->inputs[0]->def)
            if (group_of(f, v->inputs[0]->def) == gid && broadcast_read(n, v->inputs[0]))
                return true;
    }
    return false;
}

/* The latest of best and the groups of in's readers that n may join as a
 * sibling. Through a view (in is what n's views view), not one whose value
 * n reads broadcast: mask_crop's pixel test reads the four box bounds
 * through views, and would join their group and compute them per pixel. */
static int sibling_group(Fuser *f, const IrNode *n, const IrValue *in, bool through_view, int best)
{
    for (int u = 0; u < in->nuses; u++) {
        int gid = group_of(f, in->uses[u].user);
        if (gid > best && may_join(f, gid, n) && !(through_view && reads_broadcast_from(f, n, gid)))
            best = gid;
    }
    return best;
}

/* The group n joins: its producers' groups, merged into one (n runs where
 * its last producer group would: each may run there, so all may), else a
 * sibling's. */
static int choose_group(Fuser *f, const IrNode *n)
{
    int groups[16], ngroups = 0, best = -1;
    for (int i = 0; i < n->ninputs; i++) {
        const IrNode *def = n->inputs[i]->def;
        if (!broadcast_read(n, n->inputs[i]))
            consider(f, n, group_of(f, def), groups, &ngroups);
        /* through the waiting views n will take along, to what they view */
        for (const IrNode *user = n, *v = def; view_for(f, v, user); user = v, v = v->inputs[0]->def)
            if (!broadcast_read(n, v->inputs[0]))
                consider(f, n, group_of(f, v->inputs[0]->def), groups, &ngroups);
        /* cat and stack: the producers of their list's tensors */
        for (int k = 0; list_for(def, n) && k < def->ninputs; k++)
            consider(f, n, group_of(f, def->inputs[k]->def), groups, &ngroups);
    }
    for (int i = 0; i < ngroups; i++)
        if (groups[i] > best)
            best = groups[i];
    for (int i = 0; i < ngroups; i++)
        if (groups[i] != best && f->groups[best].n + f->groups[groups[i]].n < MAX_GROUP_NODES)
            merge_groups(f, best, groups[i]);
    if (best >= 0)
        return best;
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *in = n->inputs[i];
        if (!in->type || in->type->kind != TY_TENSOR)
            continue;
        best = sibling_group(f, n, in, false, best);
        /* through the waiting views n will take along, to what they view:
         * min(boxes[:, 0], boxes[:, 2]) and max(boxes[:, 0], boxes[:, 2])
         * read boxes through views of their own */
        for (const IrNode *user = n, *v = in->def; view_for(f, v, user); user = v, v = v->inputs[0]->def)
            best = sibling_group(f, n, v->inputs[0], true, best);
    }
    return best;
}

static bool computes(const IrNode *n)
{
    return !op_is_view(n->op) && n->op != OP_ATEN_CLONE && n->op != OP_ATEN_CONTIGUOUS &&
           n->op != OP_ATEN_DETACH && n->op != OP_ATEN_ALIAS && n->op != OP_ATEN_EXPAND &&
           n->op != OP_ATEN_EXPAND_AS && n->op != OP_ATEN_PERMUTE && n->op != OP_ATEN_TRANSPOSE &&
           n->op != OP_ATEN_T && n->op != OP_ATEN_SQUEEZE && n->op != OP_ATEN_UNSQUEEZE &&
           n->op != OP_ATEN_FLATTEN && n->op != OP_ATEN_SELECT && n->op != OP_ATEN_SLICE &&
           n->op != OP_ATEN_NARROW;
}

static void scan_block(Fuser *f, IrBlock *b);

/* A view that waits for its consumer: only n reads it (so the group that n
 * joins can take it without making the view's result an output). */
static bool view_for(const Fuser *f, const IrNode *v, const IrNode *n)
{
    if (v->id >= f->nnodes || !f->pending[v->id] || v->owner != n->owner)
        return false;
    for (int u = 0; u < v->outputs[0]->nuses; u++)
        if (v->outputs[0]->uses[u].user != n)
            return false;
    return true;
}

/* A node whose values cost nothing to compute again: a function of the
 * index alone (arange, a fill) or a view (index arithmetic on its input).
 * Each consumer gets its own copy: a kernel reads the view's input through
 * the view's index map instead of a materialized copy. */
static bool is_free(const Fuser *f, const IrNode *n)
{
    if (n->noutputs != 1 || !kir_fusable(f->p, n))
        return false;
    switch (n->op) {
    case OP_ATEN_ARANGE: case OP_ATEN_ZEROS: case OP_ATEN_ONES: case OP_ATEN_FULL:
        return true;
    default:
        return !computes(n) && n->ninputs > 0 && n->inputs[0]->type &&
               n->inputs[0]->type->kind == TY_TENSOR;
    }
}

/* A copy of free node src (and of the free nodes it reads) before `at`. */
static IrNode *clone_free(Fuser *f, IrNode *src, IrNode *at)
{
    IrNode *c = ir_node_new(f->g, src->kind);
    for (int i = 0; i < src->ninputs; i++) {
        IrValue *in = src->inputs[i];
        bool tensor = in->type && in->type->kind == TY_TENSOR;
        ir_node_add_input(c, tensor && is_free(f, in->def) ? clone_free(f, in->def, at)->outputs[0]
                                                           : in);
    }
    ir_node_add_output(c, src->outputs[0]->type, NULL);
    c->comment = src->comment;
    c->line = src->line;
    ir_insert_before(c, at);
    cover_nodes(f);
    f->pending[c->id] = true;
    return c;
}

/* Gives n its own copy of every free value it reads that others read too. */
static void own_free_inputs(Fuser *f, IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++) {
        IrValue *in = n->inputs[i];
        if (in->nuses > 1 && in->type && in->type->kind == TY_TENSOR && in->def->owner == n->owner &&
            in->def->id < f->nnodes && f->pending[in->def->id] && is_free(f, in->def))
            ir_node_set_input(n, i, clone_free(f, in->def, n)->outputs[0]);
    }
}

/* Puts the waiting views n reads (and the views they read) into group gid. */
static void pull_views(Fuser *f, int gid, const IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++) {
        IrNode *v = n->inputs[i]->def;
        if (!view_for(f, v, n))
            continue;
        f->pending[v->id] = false;
        pull_views(f, gid, v);
        add_to(f, gid, v);
    }
}

/* A cat's or stack's list that others read too (a loop over the same
 * proposals, say) is built again for n alone, just before it: a list
 * construction only names its tensors, and the kernel computes cat from
 * the list's own elements (kir_build's cat_at), which it cannot do with a
 * list from outside the group. Returns the list n now reads. */
static IrNode *own_list(Fuser *f, IrNode *n)
{
    IrNode *list = n->inputs[0]->def;
    if (list->op != OP_PRIM_LISTCONSTRUCT || list->noutputs != 1 || list->owner != n->owner)
        return list;
    IrNode *c = ir_node_new(f->g, list->kind);
    for (int i = 0; i < list->ninputs; i++)
        ir_node_add_input(c, list->inputs[i]);
    ir_node_add_output(c, list->outputs[0]->type, NULL);
    c->comment = list->comment;
    c->line = list->line;
    ir_insert_before(c, n);
    cover_nodes(f);
    ir_node_set_input(n, 0, c->outputs[0]);
    return c;
}

static void scan_node(Fuser *f, IrNode *n)
{
    for (int i = 0; i < n->nblocks; i++)
        scan_block(f, n->blocks[i]);
    if (!kir_fusable(f->p, n))
        return;
    if (is_free(f, n)) {
        /* it joins its consumers' groups (copied for each), if any come */
        f->pending[n->id] = true;
        return;
    }
    IrNode *list = n->inputs[0]->def;
    if ((n->op == OP_ATEN_CAT || n->op == OP_ATEN_STACK) && !list_for(list, n))
        list = own_list(f, n);
    bool takes_list = (n->op == OP_ATEN_CAT || n->op == OP_ATEN_STACK) && list_for(list, n);
    own_free_inputs(f, n);
    if (takes_list)
        own_free_inputs(f, list);
    int gid = choose_group(f, n);
    if (gid < 0 && !computes(n)) {
        /* a view of values outside every group: it joins its consumer's
         * group, if one comes (alone it would only copy) */
        f->pending[n->id] = true;
        return;
    }
    if (gid < 0)
        gid = new_group(f);
    pull_views(f, gid, n);
    /* cat and stack take their list along (only they read it), and the
     * free values in it */
    if (takes_list) {
        pull_views(f, gid, list);
        add_to(f, gid, list);
    }
    add_to(f, gid, n);
}

static void scan_block(Fuser *f, IrBlock *b)
{
    IR_FOREACH_NODE(n, b)
        scan_node(f, n);
}

/* ---------------------------------------------------------------- making groups */

static bool member(const Fuser *f, const IrNode *n, int gid)
{
    return in_group(f, n, gid);
}

/* A value of the group read after it: by a node outside the group or by
 * the block's return. */
static bool used_outside(const Fuser *f, const IrValue *v, int gid)
{
    for (int u = 0; u < v->nuses; u++)
        if (!member(f, v->uses[u].user, gid))
            return true;
    return false;
}

static void source_list(TextBuf *t, const Group *gr)
{
    textbuf_printf(t, "fused %d nodes:", gr->n);
    for (int i = 0; i < gr->n; i++) {
        const IrNode *n = gr->nodes[i];
        textbuf_printf(t, "%s %s", i ? "," : "", n->kind);
        if (n->comment)
            textbuf_printf(t, " (%s)", n->comment[0] == ' ' ? n->comment + 1 : n->comment);
    }
}

static int by_program_order(const void *a, const void *b)
{
    const IrNode *x = *(IrNode *const *)a, *y = *(IrNode *const *)b;
    return (x->order > y->order) - (x->order < y->order);
}

/* Views outside the group that read its outputs and stood before its last
 * member (may_join let them: they count where their consumers are) move
 * after the group node, with the waiting views they feed. */
static void move_views_after(Fuser *f, IrValue *v, IrNode *after)
{
    for (int u = 0; u < v->nuses; u++) {
        IrNode *user = v->uses[u].user;
        if (user->owner != after->owner || user->op == OP_PRIM_RETURN || user->id >= f->nnodes ||
            !f->pending[user->id] || group_of(f, user) >= 0 || !ir_node_is_before(user, after))
            continue;
        ir_move_after(user, after);
        for (int o = 0; o < user->noutputs; o++)
            move_views_after(f, user->outputs[o], user);
    }
}

/* Whether a node other than `reader` and outside group gid reads v. */
static bool read_outside(const Fuser *f, const IrValue *v, const IrNode *reader, int gid)
{
    for (int u = 0; u < v->nuses; u++)
        if (v->uses[u].user != reader && !member(f, v->uses[u].user, gid))
            return true;
    return false;
}

static void make_group(Fuser *f, int gid)
{
    Group *gr = &f->groups[gid];
    IrGraph *g = f->g;
    /* A waiting view a member reads that no group took (its consumer was
     * scanned while it still had other readers) comes along now: it is
     * index arithmetic inside the kernel, and left outside it would stand
     * where it was, between values of the group. */
    for (int i = 0; i < gr->n; i++) {
        IrNode *m = gr->nodes[i];
        for (int k = 0; k < m->ninputs; k++) {
            IrNode *d = m->inputs[k]->def;
            if (d->owner == m->owner && d->id < f->nnodes && f->pending[d->id] &&
                group_of(f, d) < 0 && gr->n < MAX_GROUP_NODES) {
                /* a free value others read too (torch.full's timestep
                 * tensor, whose prim::device feeds an arange the group
                 * reads): the group takes its own copy, or the readers
                 * would follow the group and the arange precede it, a
                 * cycle kernels_restore_def_order never leaves */
                if (is_free(f, d) && read_outside(f, d->outputs[0], m, gid)) {
                    d = clone_free(f, d, m);
                    ir_node_set_input(m, k, d->outputs[0]);
                }
                f->pending[d->id] = false;
                add_to(f, gid, d);
            }
        }
    }
    qsort(gr->nodes, (size_t)gr->n, sizeof *gr->nodes, by_program_order);
    IrNode *last = gr->nodes[gr->n - 1];
    IrNode *fg = ir_node_new_op(g, OP_TSSA_FUSION_GROUP);
    ir_insert_after(fg, last);
    fg->comment = gr->nodes[0]->comment;
    fg->line = gr->nodes[0]->line;
    IrBlock *blk = ir_node_add_block(fg);
    /* inputs: values read from outside, first use first */
    for (int i = 0; i < gr->n; i++) {
        IrNode *n = gr->nodes[i];
        for (int k = 0; k < n->ninputs; k++) {
            IrValue *in = n->inputs[k];
            if (member(f, in->def, gid))
                continue;
            IrValue *prm = NULL;
            for (int j = 0; j < fg->ninputs; j++)
                if (fg->inputs[j] == in)
                    prm = ir_block_param(blk, j);
            if (!prm) {
                ir_node_add_input(fg, in);
                prm = ir_block_add_param(blk, in->type, NULL);
            }
            ir_node_set_input(n, k, prm);
        }
    }
    /* outputs: values used after the group */
    for (int i = 0; i < gr->n; i++) {
        IrNode *n = gr->nodes[i];
        for (int o = 0; o < n->noutputs; o++) {
            IrValue *v = n->outputs[o];
            if (!used_outside(f, v, gid))
                continue;
            IrValue *out = ir_node_add_output(fg, v->type, NULL);
            for (int u = v->nuses - 1; u >= 0; u--) {
                IrNode *user = v->uses[u].user;
                if (!member(f, user, gid))
                    ir_node_set_input(user, v->uses[u].index, out);
            }
            ir_block_add_return(blk, v);
        }
    }
    for (int i = 0; i < gr->n; i++)
        ir_move_before(gr->nodes[i], blk->ret);
    for (int o = 0; o < fg->noutputs; o++)
        move_views_after(f, fg->outputs[o], fg);
    TextBuf t = {0};
    source_list(&t, gr);
    textbuf_putc(&t, '\0');
    fg->comment = ir_intern(g, t.data);
    free(t.data);
    f->made++;
}

/* Free nodes every consumer copied: nothing reads them any more. */
static void remove_dead_free(Fuser *f, IrBlock *b)
{
    for (IrNode *n = b->ret->prev, *prev; n != b->param; n = prev) {
        prev = n->prev;
        for (int i = 0; i < n->nblocks; i++)
            remove_dead_free(f, n->blocks[i]);
        if (n->id < f->nnodes && f->pending[n->id] && group_of(f, n) < 0 && n->noutputs == 1 &&
            n->outputs[0]->nuses == 0 && is_free(f, n)) {
            f->pending[n->id] = false;
            ir_node_destroy(n);
        }
    }
}

int kernels_fuse(LowerProgram *p)
{
    IrGraph *g = lower_ir_graph(p);
    Fuser f = {.p = p, .g = g, .nnodes = g->nnodes};
    f.group_of = xcalloc((size_t)g->nnodes + 1, sizeof *f.group_of);
    f.pending = xcalloc((size_t)g->nnodes + 1, sizeof *f.pending);
    scan_block(&f, g->top);
    remove_dead_free(&f, g->top);
    for (int gid = 0; gid < f.ngroups; gid++) {
        Group *gr = &f.groups[gid];
        if (gr->n == 0)
            continue;       /* merged into another */
        bool any = false;
        for (int i = 0; i < gr->n; i++)
            any |= computes(gr->nodes[i]);
        if (any) {
            make_group(&f, gid);
        } else {
            for (int i = 0; i < gr->n; i++)
                f.group_of[gr->nodes[i]->id] = 0;
        }
    }
    /* Making the groups gave them their own copies of free values they
     * read (a select of a module's anchors): the originals nobody reads
     * any more go too (left, yolov5_detect's lowering took one for work
     * that hangs loose and kept the whole program one filter). */
    remove_dead_free(&f, g->top);
    /* A node outside a group that stood between its members and read one
     * of them (chunk's pieces written back with slice_rev between the
     * clone and the add that fused with it) now stands before the group
     * node that defines what it reads: it moves after it. */
    kernels_restore_def_order(g->top);
    for (int gid = 0; gid < f.ngroups; gid++)
        free(f.groups[gid].nodes);
    free(f.groups);
    free(f.group_of);
    free(f.pending);
    lower_graph_grown(p);
    return f.made;
}
