/* replicate.c — the actors every rank fires for itself: the inputs and
 * the data movement that only takes them apart.
 *
 * Every rank holds the program's inputs (rank 0 reads them and shares them
 * once, before any run), so a channel whose items are made from the inputs
 * alone by moving and viewing them (splitters, joiners, identities, routes,
 * a loop's Unstack handing out row slices, views, sizes, allocations)
 * carries nothing a consumer's rank could not make itself. Such actors are
 * replicated: each rank fires its own copy, keeps the items its own actors
 * pop and drops the rest, and no message ever carries them; the cost model
 * prices their channels at nothing (partition.c). This is how a rank that
 * runs a slice of a data-parallel loop gets the slice of the inputs it
 * needs without rank 0 sending it.
 *
 * Result: replicated[a] for every actor a of the flat view: a is the input,
 * or a moves items (splitter, joiner, identity, separator, route) or is a
 * work filter whose nodes only view, size, allocate or compute numbers
 * (and a loop's Unstack whose invariant nodes do only that), and every
 * channel into a comes from a replicated actor.
 *
 * The owned tail is the mirror image at the other end: the output and the
 * actors before it that only gather (joiners, identities, routes, and a
 * loop's Stack whose iterations each overwrite their own rows, with the
 * movers that feed it). Every rank fires them too. Into the part before
 * the Stacks, an item made on another rank enters as a placeholder naming
 * that rank, and a Stack skips its write, so each rank's copy of a result
 * holds the rows it computed; the executor sends those rows to rank 0
 * once, for the outputs that are written, and never for runs whose outputs
 * nobody reads (--repeat). Into the part after the Stacks, items go to
 * rank 0 as messages, as before (the other ranks' outputs are not
 * written: placeholders). */
#include <stdlib.h>

#include "scheduler/sched_internal.h"
#include "tssa/ir.h"
#include "tssa/lower.h"
#include "tssa/util.h"

/* Whether every output of n is a number (a slice's bounds: s * m). */
static bool makes_numbers(const IrNode *n)
{
    for (int i = 0; i < n->noutputs; i++) {
        const IrType *t = n->outputs[i]->type;
        if (!t || (t->kind != TY_INT && t->kind != TY_FLOAT && t->kind != TY_BOOL))
            return false;
    }
    return n->noutputs > 0;
}

/* Whether n costs next to nothing to run again on another rank: a view, a
 * number, a shape, an allocation (creation ops, not random ones). */
static bool cheap_node(const IrNode *n)
{
    if (n->nblocks > 0)
        return false;
    OpClass cls = op_info(n->op)->cls;
    return op_is_view(n->op) || cls == OPC_SCALAR || cls == OPC_CONSTANT || cls == OPC_CREATION ||
           op_reads_no_elements(n->op) || makes_numbers(n);
}

static bool cheap_nodes(IrNode *const *nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (!cheap_node(nodes[i]))
            return false;
    return true;
}

static bool moves_only(const StreamActor *a)
{
    switch (a->kind) {
    case ACTOR_INPUT:
    case ACTOR_SPLITTER:
    case ACTOR_JOINER:
        return true;
    case ACTOR_OUTPUT:
        return false;
    case ACTOR_FILTER:
        break;
    }
    const StreamFilter *f = &a->node->filter;
    if (f->role == FILTER_IDENTITY || f->role == FILTER_SEPARATOR)
        return true;
    const LowerWork *w = f->work;
    if (f->role != FILTER_WORK || !w)
        return false;
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        return true;
    case LOWER_WORK_UNSTACK:
        return cheap_nodes(w->nodes, w->nnodes) &&
               (!w->plan || cheap_nodes(w->plan->hoisted, w->plan->nhoisted));
    case LOWER_WORK_REGION:
        return w->nnodes > 0 && cheap_nodes(w->nodes, w->nnodes);
    default:
        return false;
    }
}

bool *sched_replicated_actors(const StreamFlat *f)
{
    bool *rep = xcalloc((size_t)f->nactors + 1, sizeof *rep);
    /* a fixpoint from the input forward: an actor joins once all its
     * producers have (at most one pass per actor) */
    for (bool grew = true; grew;) {
        grew = false;
        for (int a = 0; a < f->nactors; a++) {
            const StreamActor *actor = &f->actors[a];
            if (rep[a] || !moves_only(actor))
                continue;
            bool all = true;
            for (int p = 0; p < actor->nin && all; p++)
                all = rep[f->channels[actor->in[p]].src];
            if (all) {
                rep[a] = true;
                grew = true;
            }
        }
    }
    return rep;
}

/* ---------------------------------------------------------------- the owned tail */

/* Whether a only moves items on (a joiner, an identity, a route). */
static bool passes_on(const StreamActor *a)
{
    if (a->kind == ACTOR_JOINER)
        return true;
    if (a->kind != ACTOR_FILTER)
        return false;
    const StreamFilter *f = &a->node->filter;
    if (f->role == FILTER_IDENTITY)
        return true;
    const LowerWork *w = f->work;
    return f->role == FILTER_WORK && w && w->kind == LOWER_WORK_ROUTE;
}

/* Whether a is a loop's Stack whose every carried value is a tensor its
 * iterations overwrite whole (LoopPlan.overwrites): each iteration's write
 * fills its own rows, so a rank can apply only its own iterations' writes
 * and leave the other rows to the ranks that computed them. */
static bool stacks_rows(const StreamActor *a)
{
    if (a->kind != ACTOR_FILTER || a->node->filter.role != FILTER_WORK)
        return false;
    const LowerWork *w = a->node->filter.work;
    if (!w || w->kind != LOWER_WORK_LOOP_STACK || !w->plan)
        return false;
    const LoopPlan *plan = w->plan;
    int ncarried = plan->loop->ninputs - 2;
    for (int k = 0; k < ncarried; k++)
        if (plan->carried[k] != LOOP_CARRIED_WRITTEN || !plan->overwrites[k])
            return false;
    return ncarried > 0 && !plan->feedback;
}

/* Whether every channel out of a goes to an actor marked `want`. */
static bool all_out_to(const StreamFlat *f, const unsigned char *mark, const StreamActor *a, unsigned char want)
{
    for (int p = 0; p < a->nout; p++)
        if (mark[f->channels[a->out[p]].dst] != want)
            return false;
    return true;
}

unsigned char *sched_owned_tail_actors(const StreamFlat *f)
{
    unsigned char *tail = xcalloc((size_t)f->nactors + 1, sizeof *tail);
    for (int a = 0; a < f->nactors; a++)
        if (f->actors[a].kind == ACTOR_OUTPUT)
            tail[a] = TAIL_AFTER_STACK;
    /* after the Stacks: what only passes items on to the output */
    for (bool grew = true; grew;) {
        grew = false;
        for (int a = 0; a < f->nactors; a++)
            if (!tail[a] && passes_on(&f->actors[a]) && all_out_to(f, tail, &f->actors[a], TAIL_AFTER_STACK)) {
                tail[a] = TAIL_AFTER_STACK;
                grew = true;
            }
    }
    /* the Stacks that feed it, and what only passes items on to them */
    for (bool grew = true; grew;) {
        grew = false;
        for (int a = 0; a < f->nactors; a++) {
            const StreamActor *actor = &f->actors[a];
            if (tail[a])
                continue;
            bool stack = stacks_rows(actor) && all_out_to(f, tail, actor, TAIL_AFTER_STACK);
            if (stack || (passes_on(actor) && all_out_to(f, tail, actor, TAIL_BEFORE_STACK))) {
                tail[a] = TAIL_BEFORE_STACK;
                grew = true;
            }
        }
    }
    return tail;
}
