/* module_state.c — module attributes assigned in forward (prim::SetAttr)
 * made values threaded through the graph, as TensorSSA does for tensors.
 *
 * `self.count += 1`, `self._cache = anchors`, `self.cell.hidden = h`: each
 * attribute that a prim::SetAttr assigns (its key is its dotted path from
 * %self, "cell.hidden") becomes an SSA value:
 *
 *   - its value at the start of the run is one prim::GetAttr chain placed at
 *     the top of the graph (the weights file's value);
 *   - walking the graph in program order, a prim::GetAttr of the key reads
 *     the latest value (its uses are given it, the node goes) and a
 *     prim::SetAttr makes its value the latest (the node goes);
 *   - an If whose blocks assign the key gets a result for it (each block
 *     returns its latest value), a Loop whose body assigns it a loop-carried
 *     value (the latest value before the loop comes in, the body's latest
 *     goes round, the result is the value after the loop).
 *
 * A list or dict attribute is one object in PyTorch, whichever read gives
 * it: an item written into it (`self._cache[key] = anchors`) is seen by every
 * later read. So every prim::GetAttr of a list or dict attribute is a key as
 * well, assigned or not: its reads all become the one value read at the top
 * (or the latest assigned), and list_versions.c then versions the writes
 * into it as it does for any list or dict value. The same holds for a
 * tensor attribute read more than once and written in place through one
 * of its reads (`self.total.add_(t)`, then `self.total` read again): its
 * reads become one value, whose writes alias analysis then rewrites like
 * any other root's, where two prim::GetAttr of it would each be a root that
 * the other's write must reach (alias.c keeps such writes imperative).
 * Tied tensors are one tensor under several paths (`self.head.weight =
 * self.embed.weight`; the exporter stores it once and names it from the
 * other paths, {"__tensor__": "embed.weight"}, eval_module_tensor_name):
 * their reads are counted together, and the keys of one tensor start from
 * one shared read, so `self.head.weight.mul_(2.0)` is renamed into a later
 * `self.embed.weight` like any other use of the written value; a later
 * prim::SetAttr of one of the paths unties it (its own latest value).
 *
 * The values left at the end of the top block are the module's state after
 * the run. Every run starts from the weights file's values (README: module
 * state across runs): the program is compiled once for the attribute values
 * it starts from (scalars decide trip counts and branches at compile time),
 * so a state carried into the next run would be another program. With no
 * reader after the run, the final values need no write-back and DCE drops
 * what nothing reads; the eager run of the exported case started from the
 * same file, so the outputs (the state returned included) agree.
 *
 * Precondition: grad-mode scopes are gone (grad_scope.c), so every SetAttr
 * left is a module's. Postcondition: no prim::SetAttr is left, unless the
 * pass declined the whole graph, which it does (changing nothing) when a
 * SetAttr's object is not a prim::GetAttr chain from %self, when it assigns
 * a module, when a node with blocks other than If and Loop assigns, or when
 * more than 64 attributes are assigned. The graph is then left to the
 * passes that handle SetAttr imperatively (alias.c keeps the program one
 * filter and the interpreter runs the SetAttr, eval/module.c).
 *
 * Runs first in prepare, before constant folding: folding an int attribute
 * from the weights file is right only for reads that no assignment precedes,
 * which after this pass are exactly the reads left.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/eval.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

#define MAX_KEYS 64

typedef struct Key {
    const char *path;       /* "cell.hidden" (graph arena) */
    const char *name;       /* its last part, for the new values' names */
    IrNode *read;           /* a prim::GetAttr of it in the graph, NULL if none */
} Key;

/* A tensor attribute's reads (see written_reads). */
typedef struct TensorReads {
    const char *tensor;     /* the stored tensor's name (tensor_identity) */
    int count;
    bool written;           /* some read is written in place */
} TensorReads;

typedef struct State {
    IrGraph *g;
    const Safetensors *weights;
    TensorReads *tensor_reads;
    int ntensor_reads, tensor_reads_cap;
    Key keys[MAX_KEYS];
    int nkeys;
    uint64_t *writes;       /* by node id: the keys the node (and its blocks) assign */
    uint32_t nnodes;
    uint64_t threaded;      /* the keys read somewhere: those that become values */
    IrNode *top_cursor;     /* the last node placed at the graph's top */
    size_t removed;
} State;

static bool is_self(const IrGraph *g, const IrValue *v)
{
    return g->top->param->noutputs > 0 && v == g->top->param->outputs[0] &&
           v->type && v->type->kind == TY_CLASS;
}

/* The dotted path of module value v from %self ("" for %self), or NULL. */
static const char *module_path(State *s, const IrValue *v)
{
    if (is_self(s->g, v))
        return "";
    if (v->def->op == OP_PRIM_GETATTR && tssa_attribute_chain_from_input(v->def) && v->type &&
        v->type->kind == TY_CLASS)
        return tssa_attribute_path(s->g, v->def);
    return NULL;
}

static const char *attr_name(const IrNode *n)
{
    const IrAttr *a = ir_attr_find(n, "name");
    return a && a->kind == ATTR_STR ? a->u.s : NULL;
}

/* The key index a prim::GetAttr or prim::SetAttr n names, or -1. With add,
 * an unknown key is added (-1 when the table is full). */
static int key_of(State *s, const IrNode *n, bool add)
{
    const char *name = attr_name(n);
    const char *base = n->ninputs >= 1 ? module_path(s, n->inputs[0]) : NULL;
    if (!name || !base)
        return -1;
    TextBuf path = {0};
    textbuf_printf(&path, "%s%s%s", base, base[0] ? "." : "", name);
    int found = -1;
    for (int i = 0; i < s->nkeys && found < 0; i++)
        if (strcmp(s->keys[i].path, textbuf_cstr(&path)) == 0)
            found = i;
    if (found >= 0 || !add || s->nkeys == MAX_KEYS) {
        textbuf_release(&path);
        return found;
    }
    Key *k = &s->keys[s->nkeys];
    k->path = ir_intern(s->g, textbuf_cstr(&path));
    textbuf_release(&path);
    k->name = name;
    k->read = NULL;
    return s->nkeys++;
}

/* A use of v as the operand an op writes in place. */
static bool written_in_place(const IrValue *v)
{
    for (int i = 0; i < v->nuses; i++) {
        const IrNode *u = v->uses[i].user;
        if (op_info(u->op)->mutates == v->uses[i].index)
            return true;
    }
    return false;
}

static bool is_tensor_attribute_read(const IrNode *n)
{
    if (n->op != OP_PRIM_GETATTR || n->noutputs != 1 || !tssa_attribute_chain_from_input(n))
        return false;
    const IrType *t = n->outputs[0]->type;
    while (t && t->kind == TY_OPTIONAL && t->nelems == 1)
        t = t->elems[0];
    return t && t->kind == TY_TENSOR;
}

/* The tensor a tensor attribute path holds at the start of the run, named
 * as the weights file stores it: tied paths (`self.head.weight =
 * self.embed.weight`, written once by the exporter, {"__tensor__": OTHER}
 * for the others) give the same name (graph arena). */
static const char *tensor_identity(State *s, const char *path)
{
    char *owned;
    const char *stored = eval_module_tensor_name(s->weights, path, &owned);
    const char *name = stored == path ? path : ir_intern(s->g, stored);
    free(owned);
    return name;
}

static void count_tensor_read(IrNode *n, void *ctx)
{
    State *s = ctx;
    if (!is_tensor_attribute_read(n))
        return;
    const char *tensor = tensor_identity(s, tssa_attribute_path(s->g, n));
    TensorReads *r = NULL;
    for (int i = 0; i < s->ntensor_reads && !r; i++)
        if (strcmp(s->tensor_reads[i].tensor, tensor) == 0)
            r = &s->tensor_reads[i];
    if (!r) {
        if (s->ntensor_reads == s->tensor_reads_cap) {
            s->tensor_reads_cap = s->tensor_reads_cap ? 2 * s->tensor_reads_cap : 8;
            s->tensor_reads = xrealloc(s->tensor_reads, sizeof *s->tensor_reads * (size_t)s->tensor_reads_cap);
        }
        r = &s->tensor_reads[s->ntensor_reads++];
        *r = (TensorReads){tensor, 0, false};
    }
    r->count++;
    r->written |= written_in_place(n->outputs[0]);
}

/* n reads a tensor attribute that the graph reads more than once (under
 * any of its tied paths) and writes in place through one of its reads (see
 * the header). */
static bool written_reads(State *s, const IrNode *n)
{
    if (!is_tensor_attribute_read(n))
        return false;
    const char *tensor = tensor_identity(s, tssa_attribute_path(s->g, n));
    for (int i = 0; i < s->ntensor_reads; i++)
        if (strcmp(s->tensor_reads[i].tensor, tensor) == 0)
            return s->tensor_reads[i].count > 1 && s->tensor_reads[i].written;
    return false;
}

/* Collects the keys assigned (and the list and dict attributes read);
 * false when a SetAttr is one the pass cannot
 * thread (see the header). */
static bool collect_keys(State *s, IrBlock *b)
{
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            if (!collect_keys(s, n->blocks[i]))
                return false;
        const IrType *read = n->op == OP_PRIM_GETATTR && n->noutputs == 1 ? n->outputs[0]->type : NULL;
        if ((read && (read->kind == TY_LIST || read->kind == TY_DICT)) || written_reads(s, n))
            (void)key_of(s, n, true);           /* best effort: a full table declines nothing */
        if (n->op != OP_PRIM_SETATTR)
            continue;
        const IrType *t = n->ninputs == 2 ? n->inputs[1]->type : NULL;
        if (!t || t->kind == TY_CLASS || key_of(s, n, true) < 0)
            return false;
    }
    return true;
}

/* writes[] for every node of b; returns the union. False (in *ok) when a
 * node with blocks that is neither If nor Loop assigns. Also finds a read
 * of every key, whose chain the initial value copies. */
static uint64_t mark_writes(State *s, IrBlock *b, bool *ok)
{
    uint64_t all = 0;
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        uint64_t w = 0;
        for (int i = 0; i < n->nblocks; i++)
            w |= mark_writes(s, n->blocks[i], ok);
        if (w && n->op != OP_PRIM_IF && n->op != OP_PRIM_LOOP)
            *ok = false;
        int k = n->op == OP_PRIM_SETATTR || n->op == OP_PRIM_GETATTR ? key_of(s, n, false) : -1;
        if (k >= 0 && n->op == OP_PRIM_SETATTR)
            w |= UINT64_C(1) << k;
        if (k >= 0 && n->op == OP_PRIM_GETATTR && !s->keys[k].read)
            s->keys[k].read = n;
        if (n->id < s->nnodes)
            s->writes[n->id] = w;
        all |= w;
    }
    return all;
}

/* A copy, placed at the top of the graph, of the prim::GetAttr chain that
 * ends in read (the chain's modules first). */
static IrValue *copy_chain(State *s, IrNode *read)
{
    IrValue *object = read->inputs[0];
    if (!is_self(s->g, object))
        object = copy_chain(s, object->def);
    IrNode *n = ir_node_new_op(s->g, OP_PRIM_GETATTR);
    ir_attr_set_str(n, "name", attr_name(read));
    ir_node_add_input(n, object);
    char buf[128];
    IrValue *v = ir_node_add_output(n, read->outputs[0]->type,
                                    tssa_base_name(read->outputs[0], buf, sizeof buf));
    if (s->top_cursor)
        ir_insert_after(n, s->top_cursor);
    else
        ir_prepend(s->g->top, n);
    s->top_cursor = n;
    return v;
}

static IrType *key_type(const State *s, int k)
{
    return s->keys[k].read->outputs[0]->type;
}

static void thread_block(State *s, IrBlock *b, IrValue **latest);

/* An If whose blocks assign keys `w`: one result per key. */
static void thread_if(State *s, IrNode *n, uint64_t w, IrValue **latest)
{
    for (int i = 0; i < n->nblocks; i++) {
        IrValue *local[MAX_KEYS];
        memcpy(local, latest, sizeof local);
        thread_block(s, n->blocks[i], local);
        for (int k = 0; k < s->nkeys; k++)
            if (w >> k & 1)
                ir_block_add_return(n->blocks[i], local[k]);
    }
    for (int k = 0; k < s->nkeys; k++)
        if (w >> k & 1)
            latest[k] = ir_node_add_output(n, key_type(s, k), s->keys[k].name);
}

/* A Loop whose body assigns keys `w`: one loop-carried value per key. */
static void thread_loop(State *s, IrNode *n, uint64_t w, IrValue **latest)
{
    IrBlock *body = n->blocks[0];
    IrValue *local[MAX_KEYS];
    memcpy(local, latest, sizeof local);
    for (int k = 0; k < s->nkeys; k++)
        if (w >> k & 1) {
            ir_node_add_input(n, latest[k]);
            local[k] = ir_block_add_param(body, key_type(s, k), s->keys[k].name);
        }
    thread_block(s, body, local);
    for (int k = 0; k < s->nkeys; k++)
        if (w >> k & 1) {
            ir_block_add_return(body, local[k]);
            latest[k] = ir_node_add_output(n, key_type(s, k), s->keys[k].name);
        }
}

/* latest[k]: the value of key k at this point of the program. */
static void thread_block(State *s, IrBlock *b, IrValue **latest)
{
    for (IrNode *n = ir_block_first(b), *next; n != b->ret; n = next) {
        next = n->next;
        uint64_t w = n->id < s->nnodes ? s->writes[n->id] & s->threaded : 0;
        int k = n->op == OP_PRIM_SETATTR || n->op == OP_PRIM_GETATTR ? key_of(s, n, false) : -1;
        if (k >= 0 && n->op == OP_PRIM_GETATTR && n->outputs[0] == latest[k]) {
            continue;                               /* the run's first value, copy_chain's */
        } else if (k >= 0 && n->op == OP_PRIM_GETATTR) {
            ir_replace_all_uses(n->outputs[0], latest[k]);
            ir_node_destroy(n);
            s->removed++;
        } else if (k >= 0 && n->op == OP_PRIM_SETATTR) {
            latest[k] = n->inputs[1];
            ir_node_destroy(n);
            s->removed++;
        } else if (w && n->op == OP_PRIM_IF) {
            thread_if(s, n, w, latest);
        } else if (w && n->op == OP_PRIM_LOOP) {
            thread_loop(s, n, w, latest);
        } else {
            for (int i = 0; i < n->nblocks; i++) {  /* reads only */
                IrValue *local[MAX_KEYS];
                memcpy(local, latest, sizeof local);
                thread_block(s, n->blocks[i], local);
            }
        }
    }
}

/* The first value of an earlier key that holds the same tensor as key k at
 * the start of the run (tied paths), or NULL: tied paths share one read, so
 * that an in-place write through either is renamed into every later read of
 * both, as PyTorch's one tensor shows it. Assigning one of the paths later
 * (prim::SetAttr) unties it: from there on it has its own latest value. */
static IrValue *tied_first_value(State *s, int k, IrValue *const *latest)
{
    if (!is_tensor_attribute_read(s->keys[k].read))
        return NULL;
    const char *tensor = tensor_identity(s, s->keys[k].path);
    for (int j = 0; j < k; j++)
        if (latest[j] && is_tensor_attribute_read(s->keys[j].read) &&
            strcmp(tensor_identity(s, s->keys[j].path), tensor) == 0)
            return latest[j];
    return NULL;
}

size_t tssa_thread_module_state(IrGraph *g, const Safetensors *weights)
{
    State s = {.g = g, .weights = weights};
    ir_walk(g->top, count_tensor_read, &s);
    bool threadable = collect_keys(&s, g->top);
    free(s.tensor_reads);
    if (!threadable || s.nkeys == 0)
        return 0;
    s.nnodes = g->nnodes;
    s.writes = xcalloc(s.nnodes ? s.nnodes : 1, sizeof *s.writes);
    bool ok = true;
    mark_writes(&s, g->top, &ok);
    if (ok) {
        /* The run's first values; a key never read needs none (its
         * assignments have no reader and simply go). */
        IrValue *latest[MAX_KEYS] = {0};
        for (int k = 0; k < s.nkeys; k++)
            if (s.keys[k].read) {
                IrValue *tied = tied_first_value(&s, k, latest);
                latest[k] = tied ? tied : copy_chain(&s, s.keys[k].read);
                s.threaded |= UINT64_C(1) << k;
            }
        thread_block(&s, g->top, latest);
    }
    free(s.writes);
    if (s.removed)
        s.removed += tssa_dce(g);                /* the chains of the SetAttrs' objects */
    return s.removed;
}
