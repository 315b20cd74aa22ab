/* alias.c — alias analysis for TensorSSA: which tensors share storage, and
 * which mutations can be taken out of the program without changing it.
 *
 * Must-alias. Every tensor value has a root, the value that owns its
 * storage, and a path from the root: each view records its parent and the
 * step that made it (view_steps.c). Roots are results of ops that allocate
 * (and clones, creation ops), graph inputs, module attributes, tensors
 * taken out of lists and tuples, values merged by prim::If and prim::Loop,
 * results of reshape-like ops (a view or a copy, only known at run time),
 * and results of ops whose aliasing the op table does not give.
 *
 * May-alias. Two roots may share storage without the program saying so:
 * graph inputs (unless the caller knows the bound inputs are disjoint),
 * two prim::GetAttr of one attribute path, an If/Loop result and the
 * outside values that flow into it, a reshape-like result and its input, an
 * opaque result and the op's inputs, tensors stored in lists and tuples
 * that outlive their reads and anything later taken out of a list. These
 * relations are kept as union-find classes over roots.
 *
 * Safety. A mutation of root R is rewritten only if no other root S of R's
 * class that is alive at the write (its definition dominates it) is read
 * after it: then whether S shares R's storage cannot be observed. "After"
 * is measured on a pre-order numbering of the nodes (a block's end after
 * its nodes); inside a loop that does not define S, every use of S in the
 * loop counts as after (the next iteration reads it again). Writes to
 * tensors taken out of containers, to tensors stored in containers that
 * are read later, to opaque results, or through a view without an immut::
 * form, and in-place ops without an out-of-place form, are unsafe too. A
 * tensor read out of a Tensor[] by __getitem__ is the exception when
 * list_elements.c proves its slot can be set back (rewrite_mutation.c then
 * writes the new version to the slot) and no container other than an owned
 * list may hold it. A value stored in a container is stored under every
 * name control flow joins to it (a loop's result is the last value it
 * appended), so "stored" follows every merge, both ways; and a value read
 * out of a container is not new in each iteration (last iteration's l[0]
 * is this one's), so merges join the class of container contents without
 * join_merges' exception for values made inside the loop. A write refused
 * only because another name may observe its tensor (a list element, a
 * tensor stored in a list) is functional after all where object_names.c
 * finds every name and slot holding the tensor (the mutation's plan,
 * which rewrite_mutation.c gives the new version); its comment otherwise
 * says why they are not all known. One
 * unsafe mutation makes its whole class imperative: mixing in-place and
 * functional versions of the same storage would lose writes.
 *
 * Cost: linear in nodes and uses, plus for each mutation its class members
 * (only classes of more than one root) and the views of its root.
 */
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/eval.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

/* ---------------------------------------------------------------- tables */

const TssaValueInfo *tssa_alias_info(const TssaAlias *a, const IrValue *v)
{
    if (!v || v->id >= a->nvalues || a->values[v->id].root < 0)
        return NULL;
    return &a->values[v->id];
}

int64_t tssa_alias_pos(const TssaAlias *a, const IrNode *n)
{
    return n && n->id < a->nnodes ? a->pos[n->id] : -1;
}

/* Last position inside n (itself for plain nodes, its last block's end for
 * control nodes, the block's end for a block's prim::Param). */
static int64_t node_end(const TssaAlias *a, const IrNode *n)
{
    return n && n->id < a->nnodes ? a->block_end[n->id] : -1;
}

int tssa_alias_class(TssaAlias *a, int r)
{
    while (a->roots[r].cls != r) {
        a->roots[r].cls = a->roots[a->roots[r].cls].cls;
        r = a->roots[r].cls;
    }
    return r;
}

static void join(TssaAlias *a, int r, int s)
{
    if (r < 0 || s < 0)
        return;
    r = tssa_alias_class(a, r);
    s = tssa_alias_class(a, s);
    if (r != s)
        a->roots[s].cls = r;
}

static int add_root(TssaAlias *a, IrValue *v, TssaRootKind kind, const char *detail)
{
    if (a->nroots == a->cap_roots) {
        a->cap_roots = a->cap_roots ? a->cap_roots * 2 : 64;
        a->roots = xrealloc(a->roots, sizeof *a->roots * (size_t)a->cap_roots);
    }
    int r = a->nroots++;
    TssaRoot *root = &a->roots[r];
    memset(root, 0, sizeof *root);
    root->value = v;
    root->kind = kind;
    root->detail = detail;
    root->cls = r;
    TssaValueInfo *info = &a->values[v->id];
    info->root = r;
    info->parent = NULL;
    info->step.kind = TSSA_STEP_NONE;
    return r;
}

static void add_view(TssaAlias *a, IrValue *v, IrValue *parent, TssaStepKind kind, IrNode *node,
                     int piece)
{
    TssaValueInfo *info = &a->values[v->id];
    info->root = a->values[parent->id].root;
    info->parent = parent;
    info->step.kind = kind;
    info->step.node = node;
    info->step.piece = piece;
    info->step.index = NULL;
}

static int root_of(const TssaAlias *a, const IrValue *v)
{
    return v->id < a->nvalues ? a->values[v->id].root : -1;
}

/* ---------------------------------------------------------------- positions */

typedef struct Walk {
    TssaAlias *a;
    int64_t next;
    IrValue **defs;         /* tensor values in definition order */
    size_t ndefs, cap_defs;
    int64_t *mut_pos;       /* positions of nodes that may write tensors, sorted */
    size_t nmut, cap_mut;
    int container_class;    /* a root in the class of container contents, or -1 */
    int input_class;        /* a root in the class of the graph inputs, or -1 */
    bool attributes_reassigned;
    bool list_inputs;       /* a graph input is a list or tuple that may hold tensors */
    IrNode **views_list;    /* by value id: the chunk/split/unbind node of a list of views */
    TssaListElements *lists;
    struct AttrPath {
        const char *path;
        int root;
    } *attrs;
    int nattrs, cap_attrs;
} Walk;

static void number_block(TssaAlias *a, IrBlock *b, int64_t *next)
{
    a->pos[b->param->id] = (*next)++;
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        a->pos[n->id] = (*next)++;
        for (int i = 0; i < n->nblocks; i++)
            number_block(a, n->blocks[i], next);
        a->block_end[n->id] = n->nblocks ? *next - 1 : a->pos[n->id];
    }
    a->pos[b->ret->id] = (*next)++;
    a->block_end[b->param->id] = a->pos[b->ret->id];
    a->block_end[b->ret->id] = a->pos[b->ret->id];
}

static bool inside(const TssaAlias *a, const IrNode *outer, const IrNode *n)
{
    int64_t p = tssa_alias_pos(a, n), lo = tssa_alias_pos(a, outer);
    return p > lo && p <= node_end(a, outer);
}

bool tssa_alias_dominates(const TssaAlias *a, const IrValue *v, const IrNode *m)
{
    const IrNode *d = v->def;
    if (d->dead || m->dead)
        return false;
    /* Results of a control node exist only after its blocks; a block's
     * parameters from its start. */
    int64_t pd = d->op == OP_PRIM_PARAM ? tssa_alias_pos(a, d) : node_end(a, d);
    int64_t pm = tssa_alias_pos(a, m);
    if (pd < 0 || pm < 0 || pd >= pm)
        return false;
    const IrBlock *b = d->owner;
    return tssa_alias_pos(a, b->param) <= pm && pm <= node_end(a, b->param);
}

int64_t tssa_alias_after_threshold(const TssaAlias *a, const IrValue *v, const IrNode *m)
{
    int64_t threshold = tssa_alias_pos(a, m);
    for (const IrBlock *b = m->owner; b && b->owner; b = b->owner->owner) {
        const IrNode *n = b->owner;
        if (n->op != OP_PRIM_LOOP)
            continue;
        if (inside(a, n, v->def))
            break;      /* v is made anew in every iteration of n and outer loops */
        threshold = tssa_alias_pos(a, n);
    }
    return threshold;
}

/* ---------------------------------------------------------------- classification */

static void remember_def(Walk *w, IrValue *v)
{
    if (w->ndefs == w->cap_defs) {
        w->cap_defs = w->cap_defs ? w->cap_defs * 2 : 256;
        w->defs = xrealloc(w->defs, sizeof *w->defs * w->cap_defs);
    }
    w->defs[w->ndefs++] = v;
}

static void remember_write(Walk *w, int64_t pos)
{
    if (w->nmut == w->cap_mut) {
        w->cap_mut = w->cap_mut ? w->cap_mut * 2 : 64;
        w->mut_pos = xrealloc(w->mut_pos, sizeof *w->mut_pos * w->cap_mut);
    }
    w->mut_pos[w->nmut++] = pos;
}

static void join_container_class(Walk *w, int r)
{
    if (w->container_class < 0)
        w->container_class = r;
    else
        join(w->a, w->container_class, r);
}

static void classify_getattr(Walk *w, IrValue *v, IrNode *n)
{
    TssaAlias *a = w->a;
    const char *read_path = tssa_attribute_path(a->g, n);
    int r = add_root(a, v, TSSA_ROOT_ATTRIBUTE, read_path);
    /* Tied tensors (two paths, one tensor) join under the stored name. */
    char *owned;
    const char *stored = eval_module_tensor_name(a->opt.weights, read_path, &owned);
    const char *path = stored == read_path ? read_path : ir_intern(a->g, stored);
    free(owned);
    for (int i = 0; i < w->nattrs; i++)
        if (strcmp(w->attrs[i].path, path) == 0) {
            join(a, w->attrs[i].root, r);
            return;
        }
    if (w->nattrs == w->cap_attrs) {
        w->cap_attrs = w->cap_attrs ? w->cap_attrs * 2 : 16;
        w->attrs = xrealloc(w->attrs, sizeof *w->attrs * (size_t)w->cap_attrs);
    }
    w->attrs[w->nattrs].path = path;
    w->attrs[w->nattrs].root = r;
    w->nattrs++;
}

/* A piece of the list of views n makes can be taken at a run-time index:
 * view_steps.c re-creates it from the normalized index (unbind, chunk,
 * split by one size; not split by a list of sizes, whose offsets are
 * sums over the pieces before). */
static bool runtime_piece_ok(const IrNode *n)
{
    switch (n->op) {
    case OP_ATEN_UNBIND:
    case OP_ATEN_CHUNK:
        return n->ninputs >= 2;
    case OP_ATEN_SPLIT:
        return n->ninputs >= 2 && n->inputs[1]->type && n->inputs[1]->type->kind == TY_INT;
    default:
        return false;
    }
}

/* The list of views made by chunk/split/unbind that v is an element of. */
static IrNode *views_list_node(const Walk *w, const IrValue *list)
{
    return list->id < w->a->nvalues ? w->views_list[list->id] : NULL;
}

static void classify_extraction(Walk *w, IrNode *n)
{
    TssaAlias *a = w->a;
    IrNode *list_node = n->ninputs ? views_list_node(w, n->inputs[0]) : NULL;
    for (int i = 0; i < n->noutputs; i++) {
        IrValue *v = n->outputs[i];
        if (!tssa_is_tensor_value(v))
            continue;
        int64_t k = i;
        IrValue *runtime_index = NULL;
        bool piece = list_node && root_of(a, list_node->inputs[0]) >= 0;
        if (piece && n->op == OP_ATEN_GETITEM && !(tssa_const_int(n->inputs[1], &k) && k >= 0)) {
            piece = runtime_piece_ok(list_node);
            runtime_index = n->inputs[1];
            k = -1;
        }
        if (piece && n->op != OP_PRIM_LISTUNPACK && n->op != OP_ATEN_GETITEM)
            piece = false;
        if (piece) {
            add_view(a, v, list_node->inputs[0], TSSA_STEP_PIECE, list_node, (int)k);
            a->values[v->id].step.index = runtime_index;
        } else {
            int r = add_root(a, v, TSSA_ROOT_CONTAINER, n->kind);
            join_container_class(w, r);
            const IrType *lt = n->ninputs == 2 ? n->inputs[0]->type : NULL;
            if (n->op == OP_ATEN_GETITEM && lt && lt->kind == TY_LIST && lt->nelems == 1 &&
                lt->elems[0]->kind == TY_TENSOR && v->type->kind == TY_TENSOR)
                a->roots[r].slot = n;   /* a write through it may set the slot back */
        }
    }
}

static void classify_node(Walk *w, IrNode *n)
{
    TssaAlias *a = w->a;
    const OpInfo *info = op_info(n->op);
    /* Only where module_state.c declined the graph (it threads assigned
     * attributes as values and leaves no SetAttr otherwise). */
    if (n->op == OP_PRIM_SETATTR)
        w->attributes_reassigned = true;
    if (n->op == OP_UNKNOWN || (op_is_inplace(n->op) && n->op != OP_ATEN_APPEND &&
                                n->op != OP_PRIM_SETATTR))
        remember_write(w, a->pos[n->id]);

    switch (n->op) {
    case OP_PRIM_LISTUNPACK:
    case OP_PRIM_TUPLEUNPACK:
    case OP_PRIM_TUPLEINDEX:
    case OP_ATEN_GETITEM:
        classify_extraction(w, n);
        return;
    case OP_PRIM_GETATTR:
        if (n->noutputs == 1 && tssa_is_tensor_value(n->outputs[0]))
            classify_getattr(w, n->outputs[0], n);
        return;
    case OP_PRIM_IF:
    case OP_PRIM_LOOP:
        for (int i = 0; i < n->noutputs; i++)
            if (tssa_is_tensor_value(n->outputs[i]))
                add_root(a, n->outputs[i], TSSA_ROOT_MERGE, n->kind);
        return;
    default:
        break;
    }

    if (info->alias == ALIAS_VIEWS && n->noutputs == 1 && n->ninputs >= 1 &&
        root_of(a, n->inputs[0]) >= 0) {
        w->views_list[n->outputs[0]->id] = n;
        return;
    }
    for (int i = 0; i < n->noutputs; i++) {
        IrValue *v = n->outputs[i];
        if (!tssa_is_tensor_value(v))
            continue;
        IrValue *in0 = n->ninputs ? n->inputs[0] : NULL;
        bool from_tensor = in0 && root_of(a, in0) >= 0;
        if (tssa_returns_element(n)) {
            /* an element of the container or a tensor operand (d.get(k, t)
             * is t when k is missing): it joins both */
            int r = add_root(a, v, TSSA_ROOT_CONTAINER, n->kind);
            join_container_class(w, r);
            for (int j = 0; j < n->ninputs; j++)
                join(a, r, root_of(a, n->inputs[j]));
        } else if (n->op == OP_UNKNOWN) {
            int r = add_root(a, v, TSSA_ROOT_OPAQUE, n->kind);
            for (int j = 0; j < n->ninputs; j++) {
                join(a, r, root_of(a, n->inputs[j]));
                if (tssa_is_container_value(n->inputs[j]))
                    join_container_class(w, r);
            }
        } else if (info->mutates >= 0 && v->nuses == 0) {
            /* The result of an in-place op whose uses were forwarded to
             * the tensor it names (forward_aliases.c). */
            continue;
        } else if (from_tensor && i == 0 &&
                   (info->alias == ALIAS_SELF || n->op == OP_ATEN_ALIAS || n->op == OP_ATEN_DETACH)) {
            int mut = info->mutates >= 0 ? info->mutates : 0;
            IrValue *self = n->inputs[mut];
            if (root_of(a, self) >= 0)
                add_view(a, v, self, TSSA_STEP_IDENTITY, n, 0);
            else
                add_root(a, v, TSSA_ROOT_OPAQUE, n->kind);
        } else if (from_tensor && i == 0 && info->alias == ALIAS_VIEW) {
            add_view(a, v, in0, TSSA_STEP_VIEW, n, 0);
        } else if (from_tensor && i == 0 && info->alias == ALIAS_MAYBE) {
            int r = add_root(a, v, TSSA_ROOT_MAYBE, n->kind);
            join(a, r, root_of(a, in0));
        } else {
            add_root(a, v, TSSA_ROOT_FRESH, n->kind);
        }
    }
}

static void classify_block(Walk *w, IrBlock *b);

/* Loop-carried tensors and If results are merges of the values flowing in;
 * a value made inside the control node itself flows, it does not alias
 * anything still reachable (see the file comment). */
static void join_merges(Walk *w, IrNode *n)
{
    TssaAlias *a = w->a;
    if (n->op == OP_PRIM_IF) {
        for (int i = 0; i < n->noutputs; i++) {
            int o = root_of(a, n->outputs[i]);
            if (o < 0)
                continue;
            for (int b = 0; b < n->nblocks; b++) {
                if (i >= ir_block_nreturns(n->blocks[b]))
                    continue;
                int r = root_of(a, ir_block_return(n->blocks[b], i));
                if (r >= 0 && !inside(a, n, a->roots[r].value->def))
                    join(a, o, r);
            }
        }
        return;
    }
    IrBlock *body = n->blocks[0];
    for (int j = 0; j < n->noutputs; j++) {
        int o = root_of(a, n->outputs[j]);
        int p = 1 + j < ir_block_nparams(body) ? root_of(a, ir_block_param(body, 1 + j)) : -1;
        int init = 2 + j < n->ninputs ? root_of(a, n->inputs[2 + j]) : -1;
        int back = 1 + j < ir_block_nreturns(body) ? root_of(a, ir_block_return(body, 1 + j)) : -1;
        join(a, o, init);
        join(a, p, init);
        if (back >= 0 && !inside(a, n, a->roots[back].value->def)) {
            join(a, o, back);
            join(a, p, back);
        }
    }
}

static void classify_block(Walk *w, IrBlock *b)
{
    TssaAlias *a = w->a;
    IrNode *owner = b->owner;
    for (int i = 0; i < ir_block_nparams(b); i++) {
        IrValue *v = ir_block_param(b, i);
        if (!owner) {
            if (tssa_is_tensor_value(v)) {
                int r = add_root(a, v, TSSA_ROOT_INPUT, "graph input");
                if (!a->opt.inputs_disjoint) {
                    if (w->input_class < 0)
                        w->input_class = r;
                    join(a, w->input_class, r);
                }
            } else if (tssa_is_container_value(v)) {
                /* Tensors inside a list input may alias the other inputs. */
                w->list_inputs = true;
            }
        } else if (owner->op == OP_PRIM_LOOP && i > 0 && tssa_is_tensor_value(v)) {
            add_root(a, v, TSSA_ROOT_MERGE, "loop-carried");
        }
        if (root_of(a, v) >= 0)
            remember_def(w, v);
    }
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        if (n->op == OP_PRIM_LOOP)
            classify_node(w, n);    /* params of the body refer to nothing yet */
        for (int i = 0; i < n->nblocks; i++)
            classify_block(w, n->blocks[i]);
        if (n->op != OP_PRIM_LOOP)
            classify_node(w, n);
        if (n->op == OP_PRIM_IF || n->op == OP_PRIM_LOOP)
            join_merges(w, n);
        for (int i = 0; i < n->noutputs; i++)
            if (root_of(a, n->outputs[i]) >= 0)
                remember_def(w, n->outputs[i]);
    }
}

/* ---------------------------------------------------------------- containers */

static int cmp_pos(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* True if some write lies strictly between positions lo and hi. */
static bool write_between(const Walk *w, int64_t lo, int64_t hi)
{
    size_t l = 0, h = w->nmut;
    while (l < h) {
        size_t mid = (l + h) / 2;
        if (w->mut_pos[mid] <= lo)
            l = mid + 1;
        else
            h = mid;
    }
    return l < w->nmut && w->mut_pos[l] < hi;
}

/* A list or tuple is transparent when it is consumed at once: every user
 * is in its block, reads the elements without keeping them (not an
 * extraction, not control flow, not a nested block's result), and no write
 * happens between the container and its users. Its elements then behave
 * as if read where the container is made. */
static bool container_transparent(const Walk *w, const IrValue *list, int depth)
{
    const TssaAlias *a = w->a;
    if (depth > 8)
        return false;
    const IrNode *def = list->def;
    for (int i = 0; i < list->nuses; i++) {
        const IrNode *u = list->uses[i].user;
        if (u->owner != def->owner || tssa_alias_pos(a, u) < 0)
            return false;
        switch (u->op) {
        case OP_PRIM_LISTUNPACK:
        case OP_PRIM_TUPLEUNPACK:
        case OP_PRIM_TUPLEINDEX:
        case OP_ATEN_GETITEM:
        case OP_ATEN_APPEND:
        case OP_ATEN_LIST:
        case OP_PRIM_UNCHECKED_CAST:
        case OP_PRIM_IF:
        case OP_PRIM_LOOP:
        case OP_UNKNOWN:
        case OP_PRIM_SETATTR:
            return false;
        case OP_PRIM_RETURN:
            if (u->owner->owner)
                return false;
            break;
        case OP_PRIM_LISTCONSTRUCT:
        case OP_PRIM_TUPLECONSTRUCT:
            if (!container_transparent(w, u->outputs[0], depth + 1))
                return false;
            break;
        default:
            /* A view or alias of the container itself (not of another
             * input, as index_put_'s self) keeps it. */
            if (op_info(u->op)->alias != ALIAS_NONE && list->uses[i].index == 0)
                return false;
            break;
        }
        if (write_between(w, tssa_alias_pos(a, def), tssa_alias_pos(a, u)))
            return false;
    }
    return true;
}

/* v is put into a container by node n. */
static void mark_escape(Walk *w, const IrValue *v, IrNode *n)
{
    int r = root_of(w->a, v);
    if (r < 0)
        return;
    w->a->roots[r].escapes = true;
    w->a->roots[r].nstores++;
    w->a->roots[r].store = n;
    join_container_class(w, r);
}

static void find_escapes(Walk *w, IrBlock *b)
{
    TssaAlias *a = w->a;
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            find_escapes(w, n->blocks[i]);
        switch (n->op) {
        case OP_PRIM_LISTCONSTRUCT:
        case OP_PRIM_TUPLECONSTRUCT: {
            bool any = false;
            for (int i = 0; i < n->ninputs; i++)
                any |= root_of(a, n->inputs[i]) >= 0 || tssa_is_container_value(n->inputs[i]);
            if (any && n->noutputs == 1 && !container_transparent(w, n->outputs[0], 0))
                for (int i = 0; i < n->ninputs; i++)
                    mark_escape(w, n->inputs[i], n);
            break;
        }
        case OP_PRIM_DICTCONSTRUCT:
        case OP_ATEN_APPEND:
        case OP_ATEN_INSERT:
        case OP_ATEN_SETDEFAULT:
            for (int i = n->op == OP_PRIM_DICTCONSTRUCT ? 0 : 1; i < n->ninputs; i++)
                mark_escape(w, n->inputs[i], n);
            break;
        case OP_PRIM_SETATTR:
            /* Left only where module_state.c declined the graph: a later
             * prim::GetAttr may read the value back. */
            if (n->ninputs == 2)
                mark_escape(w, n->inputs[1], n);
            break;
        case OP_ATEN_SET_ITEM:
            /* l[i] += v puts back the element it read: nothing new is stored. */
            if (n->ninputs == 3 && !tssa_list_elements_self_store(w->lists, n))
                mark_escape(w, n->inputs[2], n);
            break;
        default:
            if (n->noutputs == 1 && views_list_node(w, n->outputs[0]) == n) {
                /* Uses other than extraction keep the whole list of views. */
                const IrValue *list = n->outputs[0];
                for (int i = 0; i < list->nuses; i++) {
                    const IrNode *u = list->uses[i].user;
                    if (u->op == OP_PRIM_LISTUNPACK)
                        continue;
                    int64_t k;
                    if (u->op == OP_ATEN_GETITEM && tssa_const_int(u->inputs[1], &k) && k >= 0)
                        continue;
                    if (u->op == OP_ATEN_GETITEM && u->ninputs == 2 && runtime_piece_ok(n))
                        continue;   /* a piece at a run-time index (classify_extraction) */
                    if (!container_transparent(w, list, 0))
                        mark_escape(w, n->inputs[0], n);
                    break;
                }
            }
            break;
        }
    }
}

/* A value stored in a container under one name is stored under every name
 * control flow joins to it: a loop's result is the value its last iteration
 * appended, its initial value the one the first iteration stored. join_merges
 * leaves out a value made inside the control node (renaming carries its
 * versions out), which is no help for a container holding the object, so
 * escapes follow every merge edge, both ways, to a fixed point. */
typedef struct MergeEdges {
    int *pairs;             /* root indices, two per edge */
    size_t n, cap;
} MergeEdges;

static void add_edge(MergeEdges *e, int r, int s)
{
    if (r < 0 || s < 0 || r == s)
        return;
    if (e->n + 2 > e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->pairs = xrealloc(e->pairs, sizeof *e->pairs * e->cap);
    }
    e->pairs[e->n++] = r;
    e->pairs[e->n++] = s;
}

static void collect_edges(const TssaAlias *a, IrBlock *b, MergeEdges *e)
{
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            collect_edges(a, n->blocks[i], e);
        if (n->op == OP_PRIM_IF) {
            for (int i = 0; i < n->noutputs; i++)
                for (int k = 0; k < n->nblocks; k++)
                    if (i < ir_block_nreturns(n->blocks[k]))
                        add_edge(e, root_of(a, n->outputs[i]), root_of(a, ir_block_return(n->blocks[k], i)));
        } else if (n->op == OP_PRIM_LOOP && n->nblocks == 1) {
            IrBlock *body = n->blocks[0];
            for (int j = 0; j < n->noutputs; j++) {
                int o = root_of(a, n->outputs[j]);
                int p = 1 + j < ir_block_nparams(body) ? root_of(a, ir_block_param(body, 1 + j)) : -1;
                add_edge(e, o, p);
                if (2 + j < n->ninputs)
                    add_edge(e, p, root_of(a, n->inputs[2 + j]));
                if (1 + j < ir_block_nreturns(body))
                    add_edge(e, p, root_of(a, ir_block_return(body, 1 + j)));
            }
        }
    }
}

static void propagate_through_merges(Walk *w)
{
    TssaAlias *a = w->a;
    MergeEdges e = {0};
    collect_edges(a, a->g->top, &e);
    for (size_t k = 0; k < e.n; k++)
        a->roots[e.pairs[k]].merged = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 0; k < e.n; k += 2) {
            TssaRoot *r = &a->roots[e.pairs[k]], *s = &a->roots[e.pairs[k + 1]];
            if (r->escapes == s->escapes)
                continue;
            r->escapes = s->escapes = true;
            join_container_class(w, e.pairs[k]);
            join_container_class(w, e.pairs[k + 1]);
            changed = true;
        }
    }
    /* Nor is a value read out of a container new in each iteration, as an
     * allocation is: last iteration's l[0], carried, is this one's. So a
     * merge and what flows into it share a class whenever either is in the
     * class of container contents. */
    for (bool changed = w->container_class >= 0; changed;) {
        changed = false;
        int cc = tssa_alias_class(a, w->container_class);
        for (size_t k = 0; k < e.n; k += 2) {
            int r = tssa_alias_class(a, e.pairs[k]), s = tssa_alias_class(a, e.pairs[k + 1]);
            if (r != s && (r == cc || s == cc)) {
                join(a, r, s);
                cc = tssa_alias_class(a, w->container_class);
                changed = true;
            }
        }
    }
    free(e.pairs);
}

/* ---------------------------------------------------------------- uses */

static void compute_last_uses(TssaAlias *a, Walk *w)
{
    for (size_t i = 0; i < w->ndefs; i++) {
        IrValue *v = w->defs[i];
        int64_t last = -1;
        for (int u = 0; u < v->nuses; u++) {
            int64_t p = tssa_alias_pos(a, v->uses[u].user);
            if (p > last)
                last = p;
        }
        a->values[v->id].last_use = last;
        a->values[v->id].tree_last_use = last;
    }
    /* Views come after their parents in definition order. */
    for (size_t i = w->ndefs; i-- > 0;) {
        IrValue *v = w->defs[i];
        TssaValueInfo *info = &a->values[v->id];
        if (info->parent) {
            TssaValueInfo *up = &a->values[info->parent->id];
            if (info->tree_last_use > up->tree_last_use)
                up->tree_last_use = info->tree_last_use;
        }
        TssaRoot *root = &a->roots[info->root];
        if (root->ntree == root->cap_tree) {
            root->cap_tree = root->cap_tree ? root->cap_tree * 2 : 4;
            root->tree = xrealloc(root->tree, sizeof *root->tree * (size_t)root->cap_tree);
        }
        root->tree[root->ntree++] = v;
    }
    /* Trees were filled backwards; put them in program order. */
    for (int r = 0; r < a->nroots; r++) {
        TssaRoot *root = &a->roots[r];
        for (int i = 0, j = root->ntree - 1; i < j; i++, j--) {
            IrValue *t = root->tree[i];
            root->tree[i] = root->tree[j];
            root->tree[j] = t;
        }
    }
}

/* ---------------------------------------------------------------- safety */

static const char *fmt_reason(TssaAlias *a, const char *fmt, const char *x, const char *y,
                              const char *z)
{
    size_t len = strlen(fmt) + strlen(x) + strlen(y) + strlen(z) + 1;
    char *s = arena_alloc(a->g->arena, len);
    snprintf(s, len, fmt, x, y, z);
    return s;
}

static const char *root_kind_words(TssaRootKind k)
{
    switch (k) {
    case TSSA_ROOT_FRESH: return "fresh";
    case TSSA_ROOT_INPUT: return "graph input";
    case TSSA_ROOT_ATTRIBUTE: return "module attribute";
    case TSSA_ROOT_CONTAINER: return "taken from a list or tuple";
    case TSSA_ROOT_MERGE: return "merged by control flow";
    case TSSA_ROOT_MAYBE: return "view or copy, not decided at compile time";
    case TSSA_ROOT_OPAQUE: return "opaque";
    }
    return "?";
}

/* Whether the in-place op has a functional rewrite (inplace_to_functional.c).
 * A metadata one (squeeze_) left by metadata_inplace.c has none: it changes
 * which elements self names, which no copy into self can do. */
static bool has_functional_form(OpId op)
{
    if (op_inplace_is_metadata(op))
        return false;
    switch (op) {
    case OP_ATEN_COPY_:
    case OP_ATEN_FILL_:
    case OP_ATEN_ZERO_:
        return true;
    default:
        return op_functional_variant(op) != OP_UNKNOWN;
    }
}

static const char *chain_unsupported(const TssaAlias *a, const IrValue *v)
{
    for (const TssaValueInfo *info = tssa_alias_info(a, v); info && info->parent;
         info = tssa_alias_info(a, info->parent)) {
        const char *why = NULL;
        if (!tssa_step_supported(&info->step, &why))
            return why;
    }
    return NULL;
}

/* Members of every class of more than one root, gathered once. */
typedef struct Classes {
    int *start;     /* by class representative: offset into members, -1 if single */
    int *count;
    int *members;
} Classes;

static void gather_classes(TssaAlias *a, Classes *c)
{
    int n = a->nroots;
    c->start = xcalloc((size_t)n, sizeof *c->start);
    c->count = xcalloc((size_t)n, sizeof *c->count);
    c->members = xcalloc((size_t)n, sizeof *c->members);
    for (int r = 0; r < n; r++)
        c->count[tssa_alias_class(a, r)]++;
    int at = 0;
    for (int r = 0; r < n; r++) {
        c->start[r] = at;
        at += c->count[r];
        if (c->count[r] > 1)
            a->nclasses_shared++;
    }
    int *fill = xcalloc((size_t)n, sizeof *fill);
    for (int r = 0; r < n; r++) {
        int k = tssa_alias_class(a, r);
        c->members[c->start[k] + fill[k]++] = r;
    }
    free(fill);
}

static void free_classes(Classes *c)
{
    free(c->start);
    free(c->count);
    free(c->members);
}

/* Some value of the root's tree is an operand of an op the table does not
 * know (which may keep it in what it returns). */
static bool root_used_by_unknown(const TssaAlias *a, const TssaRoot *root)
{
    (void)a;
    for (int t = 0; t < root->ntree; t++) {
        const IrValue *v = root->tree[t];
        for (int u = 0; u < v->nuses; u++)
            if (v->uses[u].user->op == OP_UNKNOWN)
                return true;
    }
    return false;
}

/* Views of the root read after the write are re-read from the new root:
 * each needs an immut:: form too. */
static const char *stale_view_reason(TssaAlias *a, const TssaMutation *m)
{
    TssaRoot *root = &a->roots[m->root];
    for (int i = 0; i < root->ntree; i++) {
        IrValue *v = root->tree[i];
        if (v == root->value || !tssa_alias_dominates(a, v, m->node))
            continue;
        if (a->values[v->id].last_use <= tssa_alias_after_threshold(a, v, m->node))
            continue;
        const char *why = chain_unsupported(a, v);
        if (why)
            return fmt_reason(a, "%%%s, a view made by %s (no immut:: form), is read after this write%s",
                              v->name, why, "");
    }
    return NULL;
}

/* Why mutation m cannot be functionalized, or NULL. *aliasing says the
 * reason is another name that may observe the written tensor, which
 * object_names.c may still decide. */
static const char *unsafe_reason(TssaAlias *a, const Classes *c, TssaListElements *lists,
                                 const TssaMutation *m, bool *aliasing)
{
    *aliasing = false;
    TssaRoot *root = &a->roots[m->root];
    const char *rname = root->value->name;
    const char *why;
    if ((m->node->op == OP_ATEN_COPY_ || m->node->op == OP_ATEN_FILL_) && m->node->ninputs < 2)
        return fmt_reason(a, "%s has no source operand%s%s", m->node->kind, "", "");
    if (!has_functional_form(m->node->op))
        return fmt_reason(a, "%s has no out-of-place form%s%s", m->node->kind, "", "");
    switch (root->kind) {
    case TSSA_ROOT_CONTAINER:
        if (!root->slot) {
            *aliasing = true;
            return fmt_reason(a, "writes %%%s, taken from a list or tuple (%s), which may alias other tensors%s",
                              rname, root->detail, "");
        }
        if (root_used_by_unknown(a, root))
            return fmt_reason(a, "writes %%%s, an element of %%%s, used by an op that is not known "
                                 "(it may keep it)%s", rname, root->slot->inputs[0]->name, "");
        if ((why = tssa_list_elements_unsafe(lists, root, m->node))) {
            *aliasing = true;
            return fmt_reason(a, "writes %%%s, an element of %%%s: %s", rname,
                              root->slot->inputs[0]->name, why);
        }
        break;
    case TSSA_ROOT_OPAQUE:
        return fmt_reason(a, "writes %%%s, made by %s, whose aliasing is not known%s", rname,
                          root->detail, "");
    default:
        break;
    }
    /* A fresh tensor stored once, after the write and not in a loop around
     * it that it was made outside of, is stored as the new version:
     * renaming gives the store the current one (torchvision's
     * `torch.empty(()).fill_(s)` put in a list, a padded buffer written and
     * then sliced into a list). A store before the write, or one of a name
     * control flow joins to it, may hold the object the write changes. */
    if (root->escapes &&
        !(root->kind == TSSA_ROOT_FRESH && !root->merged &&
          tssa_list_elements_stored_later(lists, root, root->value, m->node))) {
        *aliasing = true;
        return fmt_reason(a, "%%%s is stored in a list or tuple that is read later%s%s", rname, "", "");
    }
    why = chain_unsupported(a, m->target);
    if (why)
        return fmt_reason(a, "writes through %s, which has no immut:: form%s%s", why, "", "");
    *aliasing = true;   /* the other names of the tensor, from here on */

    int cls = tssa_alias_class(a, m->root);
    for (int i = 0; c->count[cls] > 1 && i < c->count[cls]; i++) {
        int s = c->members[c->start[cls] + i];
        if (s == m->root)
            continue;
        /* Not the element's tensor (list_elements.c): neither is what it
         * is stored in or passed to. Any name of the element's tensor is
         * another member of this class, checked here on its own. */
        if (root->slot && tssa_list_elements_distinct(lists, root, &a->roots[s]))
            continue;
        /* A list element's write is written back to its slot only: no
         * other container may hold the same tensor. The element is a
         * fresh tensor stored only in its list (list_elements.c), so a
         * container holding a graph input, a module attribute or another
         * allocation does not hold it; one holding a name control flow,
         * an unknown op or a reshape may have given it might, unless it
         * is stored there only after the write (it then stores the new
         * version: renaming gives the store the current one). */
        if (root->slot && root_used_by_unknown(a, &a->roots[s]))
            return fmt_reason(a, "writes %%%s, an element of %%%s, which may be %%%s, used by an op "
                                 "that is not known (it may keep it)",
                              rname, root->slot->inputs[0]->name, a->roots[s].value->name);
        TssaRootKind skind = a->roots[s].kind;
        if (root->slot && a->roots[s].nstores && skind != TSSA_ROOT_FRESH &&
            skind != TSSA_ROOT_INPUT && skind != TSSA_ROOT_ATTRIBUTE &&
            !tssa_list_elements_owned_store(lists, &a->roots[s]) &&
            !tssa_list_elements_stored_later(lists, &a->roots[s], root->value, m->node))
            return fmt_reason(a, "writes %%%s, an element of %%%s, which may be %%%s, put into a "
                                 "container that is not a list of tensors of its own",
                              rname, root->slot->inputs[0]->name, a->roots[s].value->name);
        /* Two allocations never share storage, whatever merges (a loop
         * carrying either one) put them in one class. */
        if (root->kind == TSSA_ROOT_FRESH && a->roots[s].kind == TSSA_ROOT_FRESH)
            continue;
        IrValue *sv = a->roots[s].value;
        if (!tssa_alias_dominates(a, sv, m->node)) {
            /* Another prim::GetAttr of the same module tensor that does not
             * come before the write reads what the write leaves behind: the
             * functional form would give it the old value. */
            if (root->kind == TSSA_ROOT_ATTRIBUTE && a->roots[s].kind == TSSA_ROOT_ATTRIBUTE) {
                *aliasing = false;
                return fmt_reason(a, "module attribute %s is read again by %%%s, which this write must "
                                     "reach%s", root->detail, sv->name, "");
            }
            continue;
        }
        int64_t threshold = tssa_alias_after_threshold(a, sv, m->node);
        if (a->values[sv->id].tree_last_use > threshold) {
            char first[512];
            snprintf(first, sizeof first, "%%%s (%s)", rname, root_kind_words(root->kind));
            return fmt_reason(a, "%s may alias %%%s (%s), which is read after this write", first,
                              sv->name, root_kind_words(a->roots[s].kind));
        }
    }
    *aliasing = false;
    return stale_view_reason(a, m);
}

static void record_mutations(TssaAlias *a, IrBlock *b)
{
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            record_mutations(a, n->blocks[i]);
        int mut = op_info(n->op)->mutates;
        if (n->op == OP_UNKNOWN) {
            /* An unknown op named like an in-place one ("aten::foo_")
             * writes its first input as far as we can tell. */
            size_t len = strlen(n->kind);
            if (len > 2 && n->kind[len - 1] == '_' && n->kind[len - 2] != '_')
                mut = 0;
        }
        if (mut < 0 || mut >= n->ninputs || n->op == OP_ATEN_APPEND || n->op == OP_PRIM_SETATTR)
            continue;
        IrValue *target = n->inputs[mut];
        int r = root_of(a, target);
        if (r < 0)
            continue;
        if (a->nmutations == a->cap_mutations) {
            a->cap_mutations = a->cap_mutations ? a->cap_mutations * 2 : 32;
            a->mutations = xrealloc(a->mutations, sizeof *a->mutations * (size_t)a->cap_mutations);
        }
        TssaMutation *m = &a->mutations[a->nmutations++];
        m->node = n;
        m->target = target;
        m->root = r;
        m->pos = a->pos[n->id];
        m->imperative = false;
        m->src_matches_target = false;
        m->reason = NULL;
        memset(&m->plan, 0, sizeof m->plan);
        a->roots[r].nmutations++;
    }
}

/* The innermost node around n holding blocks that is not an If or Loop
 * (block propagation only knows how values leave those), or NULL. */
static const IrNode *unknown_block_holder(const IrNode *n)
{
    for (const IrBlock *b = n->owner; b && b->owner; b = b->owner->owner)
        if (b->owner->op != OP_PRIM_IF && b->owner->op != OP_PRIM_LOOP)
            return b->owner;
    return NULL;
}

/* The roots that stay functional in a class kept imperative: an element
 * of an owned list whose own writes are safe, provably not the tensor of
 * any root of its class written in place and kept imperative (one class
 * holds everything kept in any container, so one list's hazard would
 * otherwise keep every other list's writes in place). Found from all
 * candidates down to a fixed point: a candidate that may be the tensor of
 * a non-exempt written root is not exempt. */
static bool *list_elements_exempt(TssaAlias *a, const Classes *c, TssaListElements *lists,
                                  const char *const *class_reason)
{
    bool *own_unsafe = xcalloc((size_t)a->nroots + 1, sizeof *own_unsafe);
    bool *exempt = xcalloc((size_t)a->nroots + 1, sizeof *exempt);
    /* A write object_names.c decided is never exempt: distinctness here
     * rests on alias.c's own rules having passed the root's writes (no
     * name of the element stored elsewhere), which such a write did not. */
    for (int i = 0; i < a->nmutations; i++)
        own_unsafe[a->mutations[i].root] |= a->mutations[i].reason != NULL ||
                                            a->mutations[i].plan.resolved;
    for (int r = 0; r < a->nroots; r++)
        exempt[r] = a->roots[r].slot && a->roots[r].nmutations && !own_unsafe[r] &&
                    class_reason[tssa_alias_class(a, r)];
    for (bool changed = true; changed;) {
        changed = false;
        for (int r = 0; r < a->nroots; r++) {
            if (!exempt[r])
                continue;
            int cls = tssa_alias_class(a, r);
            for (int i = 0; i < c->count[cls]; i++) {
                int s = c->members[c->start[cls] + i];
                if (s == r || !a->roots[s].nmutations || exempt[s] ||
                    tssa_list_elements_distinct(lists, &a->roots[r], &a->roots[s]))
                    continue;
                exempt[r] = false;
                changed = true;
                break;
            }
        }
    }
    free(own_unsafe);
    return exempt;
}

/* A write alias.c refused for another name of its tensor: functional
 * after all when object_names.c finds every name and slot (the plan),
 * and the views read after it can be re-read. */
static const char *resolve_names(TssaAlias *a, TssaObjectNames *on, TssaMutation *m, const char *why)
{
    const char *unresolved = tssa_object_names_resolve(on, m, &m->plan);
    if (unresolved)
        return fmt_reason(a, "%s; not every name of the tensor is known: %s%s", why, unresolved, "");
    const char *stale = chain_unsupported(a, m->target);
    if (stale)
        stale = fmt_reason(a, "writes through %s, which has no immut:: form%s%s", stale, "", "");
    else
        stale = stale_view_reason(a, m);
    if (stale)
        memset(&m->plan, 0, sizeof m->plan);
    return stale;
}

static void decide_safety(TssaAlias *a, TssaListElements *lists, TssaObjectNames *on,
                          bool attributes_reassigned)
{
    Classes c;
    gather_classes(a, &c);
    const char **class_reason = xcalloc((size_t)a->nroots, sizeof *class_reason);
    for (int i = 0; i < a->nmutations; i++) {
        TssaMutation *m = &a->mutations[i];
        const char *why = NULL;
        const IrNode *holder = unknown_block_holder(m->node);
        if (m->node->op == OP_UNKNOWN)
            why = fmt_reason(a, "%s is not a known op%s%s", m->node->kind, "", "");
        else if (holder)
            why = fmt_reason(a, "the write is inside a block of %s, which only prim::If and "
                                "prim::Loop may hold here%s%s", holder->kind, "", "");
        else if (attributes_reassigned && a->roots[m->root].kind == TSSA_ROOT_ATTRIBUTE)
            why = fmt_reason(a, "module attributes are reassigned by prim::SetAttr%s%s%s", "", "", "");
        else {
            bool aliasing;
            why = unsafe_reason(a, &c, lists, m, &aliasing);
            /* Only tensors kept in lists have names object_names.c can
             * follow (a graph input or a merged value never resolves). */
            const TssaRoot *root = &a->roots[m->root];
            if (why && aliasing && (root->kind == TSSA_ROOT_CONTAINER || root->escapes))
                why = resolve_names(a, on, m, why);
        }
        int cls = tssa_alias_class(a, m->root);
        m->reason = why;
        if (why && !class_reason[cls])
            class_reason[cls] = why;
    }
    bool *exempt = list_elements_exempt(a, &c, lists, class_reason);
    for (int r = 0; r < a->nroots; r++) {
        const char *why = class_reason[tssa_alias_class(a, r)];
        if (why && !exempt[r]) {
            a->roots[r].imperative = true;
            a->roots[r].reason = why;
        }
    }
    free(exempt);
    for (int i = 0; i < a->nmutations; i++) {
        TssaMutation *m = &a->mutations[i];
        m->imperative = a->roots[m->root].imperative;
        if (m->imperative && !m->reason)
            m->reason = fmt_reason(a, "shares storage (may-alias) with a write kept imperative: %s%s%s",
                                   a->roots[m->root].reason, "", "");
    }
    free(class_reason);
    free_classes(&c);
}

/* ---------------------------------------------------------------- entry */

TssaAlias *tssa_alias_analyze(IrGraph *g, const TssaOptions *opt)
{
    TssaAlias *a = xcalloc(1, sizeof *a);
    a->g = g;
    a->opt = *opt;
    a->nvalues = g->nvalues;
    a->nnodes = g->nnodes;
    a->values = xcalloc(a->nvalues, sizeof *a->values);
    for (uint32_t i = 0; i < a->nvalues; i++) {
        a->values[i].root = -1;
        a->values[i].last_use = -1;
        a->values[i].tree_last_use = -1;
    }
    a->pos = xcalloc(a->nnodes, sizeof *a->pos);
    a->block_end = xcalloc(a->nnodes, sizeof *a->block_end);
    for (uint32_t i = 0; i < a->nnodes; i++)
        a->pos[i] = a->block_end[i] = -1;
    int64_t next = 0;
    number_block(a, g->top, &next);

    Walk w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.container_class = -1;
    w.input_class = -1;
    w.views_list = xcalloc(a->nvalues, sizeof *w.views_list);
    classify_block(&w, g->top);
    if (w.nmut > 1)
        qsort(w.mut_pos, w.nmut, sizeof *w.mut_pos, cmp_pos);
    w.lists = tssa_list_elements_new(a);
    find_escapes(&w, g->top);
    propagate_through_merges(&w);
    if (w.list_inputs && !opt->inputs_disjoint && w.input_class >= 0 && w.container_class >= 0)
        join(a, w.input_class, w.container_class);
    compute_last_uses(a, &w);
    record_mutations(a, g->top);
    TssaObjectNames *on = tssa_object_names_new(a);
    decide_safety(a, w.lists, on, w.attributes_reassigned);
    tssa_object_names_free(on);
    tssa_list_elements_free(w.lists);

    free(w.defs);
    free(w.mut_pos);
    free(w.views_list);
    free(w.attrs);
    return a;
}

void tssa_alias_free(TssaAlias *a)
{
    if (!a)
        return;
    for (int r = 0; r < a->nroots; r++)
        free(a->roots[r].tree);
    free(a->roots);
    free(a->mutations);
    free(a->values);
    free(a->pos);
    free(a->block_end);
    free(a);
}

void tssa_alias_adopt(TssaAlias *a, IrNode *n, const IrNode *at)
{
    if (n->id >= a->nnodes) {
        uint32_t size = a->g->nnodes > n->id + 1 ? a->g->nnodes : n->id + 1;
        a->pos = xrealloc(a->pos, sizeof *a->pos * size);
        a->block_end = xrealloc(a->block_end, sizeof *a->block_end * size);
        for (uint32_t i = a->nnodes; i < size; i++)
            a->pos[i] = a->block_end[i] = -1;
        a->nnodes = size;
    }
    a->pos[n->id] = tssa_alias_pos(a, at);
    a->block_end[n->id] = a->pos[n->id];
}

size_t tssa_alias_imperative_count(const TssaAlias *a)
{
    size_t n = 0;
    for (int i = 0; i < a->nmutations; i++)
        n += a->mutations[i].imperative;
    return n;
}

/* ---------------------------------------------------------------- printing */

static int view_depth(const TssaAlias *a, const IrValue *v)
{
    int d = 0;
    for (const TssaValueInfo *info = tssa_alias_info(a, v); info && info->parent;
         info = tssa_alias_info(a, info->parent))
        d++;
    return d;
}

static void print_step(FILE *out, const TssaValueInfo *info)
{
    const IrNode *n = info->step.node;
    switch (info->step.kind) {
    case TSSA_STEP_NONE:
        return;
    case TSSA_STEP_PIECE:
        if (info->step.index)
            fprintf(out, "piece %%%s of %s(", info->step.index->name, n->kind);
        else
            fprintf(out, "piece %d of %s(", info->step.piece, n->kind);
        break;
    case TSSA_STEP_IDENTITY:
    case TSSA_STEP_VIEW:
        fprintf(out, "%s(", n->kind);
        break;
    }
    for (int i = 0; i < n->ninputs; i++)
        fprintf(out, "%s%%%s", i ? ", " : "", n->inputs[i]->name);
    fputc(')', out);
}

static void print_chain(FILE *out, const TssaAlias *a, const IrValue *v)
{
    const IrValue *path[256];
    int n = 0;
    for (const IrValue *at = v; at && n < 256;) {
        path[n++] = at;
        const TssaValueInfo *info = tssa_alias_info(a, at);
        at = info ? info->parent : NULL;
    }
    fputs("  chain: ", out);
    for (int i = n - 1; i >= 0; i--) {
        const TssaValueInfo *info = tssa_alias_info(a, path[i]);
        if (i < n - 1) {
            const IrNode *s = info->step.node;
            fprintf(out, " -%s%s-> ", s->kind, info->step.kind == TSSA_STEP_PIECE ? "[k]" : "");
        }
        fprintf(out, "%%%s", path[i]->name);
    }
}

void tssa_alias_print(FILE *out, const TssaAlias *a)
{
    fprintf(out, "# alias analysis: %d roots, %d mutations, %d may-alias classes\n", a->nroots,
            a->nmutations, a->nclasses_shared);
    for (int r = 0; r < a->nroots; r++) {
        const TssaRoot *root = &a->roots[r];
        const char *kind = root_kind_words(root->kind);
        fprintf(out, "# root %%%s: %s", root->value->name, kind);
        if (root->detail && strcmp(root->detail, kind) != 0)
            fprintf(out, " (%s)", root->detail);
        if (root->escapes)
            fputs(", stored in a container", out);
        if (root->nmutations)
            fprintf(out, ", written %d time%s, %s", root->nmutations, root->nmutations == 1 ? "" : "s",
                    root->imperative ? "kept imperative" : "functionalized");
        fputc('\n', out);
        for (int i = 0; i < root->ntree; i++) {
            const IrValue *v = root->tree[i];
            if (v == root->value)
                continue;
            const TssaValueInfo *info = tssa_alias_info(a, v);
            fprintf(out, "#   %*s%%%s = ", 2 * (view_depth(a, v) - 1), "", v->name);
            print_step(out, info);
            print_chain(out, a, v);
            fputc('\n', out);
        }
    }
    TssaAlias *mut = (TssaAlias *)a;   /* find compresses paths; it changes no answer */
    for (int r = 0; r < a->nroots; r++) {
        if (tssa_alias_class(mut, r) != r)
            continue;
        int count = 0;
        for (int s = 0; s < a->nroots; s++)
            count += tssa_alias_class(mut, s) == r;
        if (count < 2)
            continue;
        fputs("# may alias:", out);
        for (int s = 0; s < a->nroots; s++)
            if (tssa_alias_class(mut, s) == r)
                fprintf(out, " %%%s", a->roots[s].value->name);
        fputc('\n', out);
    }
    for (int i = 0; i < a->nmutations; i++) {
        const TssaMutation *m = &a->mutations[i];
        const TssaRoot *root = &a->roots[m->root];
        fprintf(out, "# write %s", m->node->kind);
        if (m->node->line)
            fprintf(out, " (line %d)", m->node->line);
        fprintf(out, " to %%%s, root %%%s: ", m->target->name, root->value->name);
        if (m->imperative) {
            fprintf(out, "kept imperative: %s\n", m->reason);
            continue;
        }
        fputs("functionalized", out);
        if (m->plan.resolved) {
            /* object_names.c's plan: the other names and slots it sets. */
            fputs(" (also", out);
            for (int k = 0; k < m->plan.nnames; k++)
                fprintf(out, " %%%s", m->plan.names[k]->name);
            for (int k = 0; k < m->plan.nlater; k++)
                fprintf(out, " %%%s(after the first iteration)", m->plan.later_names[k]->name);
            for (int k = 0; k < m->plan.nfirst; k++)
                fprintf(out, " %%%s(on the first iteration)", m->plan.first_names[k]->name);
            for (int k = 0; k < m->plan.nslots; k++) {
                const TssaSlot *slot = &m->plan.slots[k];
                if (slot->index_value)
                    fprintf(out, " %%%s[%%%s]", slot->list->name, slot->index_value->name);
                else
                    fprintf(out, " %%%s[%lld]", slot->list->name, (long long)slot->index);
            }
            fputc(')', out);
        }
        fputc('\n', out);
    }
}
