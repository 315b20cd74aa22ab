/* fresh_objects.c — objects of TorchScript classes created inside the
 * program, replaced by their attributes' values (ir_replace_fresh_objects).
 *
 * `b = BoxCoder((1., 2., 3., 4.))` followed by `b.decode(...)` inlines to
 *
 *   %b : __torch__.BoxCoder = prim::CreateObject()
 *    = prim::SetAttr[name="weights"](%b, %w)          (its inlined __init__)
 *    = prim::SetAttr[name="bbox_xform_clip"](%b, %c)
 *   ...
 *   %weights : (float, float, float, float) = prim::GetAttr[name="weights"](%b)
 *
 * Such an object is a record of values that never leaves the program: each
 * prim::GetAttr reads the value of the last prim::SetAttr of that name
 * before it. This pass makes that explicit (scalar replacement of an
 * aggregate): the GetAttr's uses take the SetAttr's value, and the
 * CreateObject, its SetAttrs and GetAttrs go. Afterwards no backend sees
 * the object, so every backend runs it and lowering treats the values as
 * any other.
 *
 * Precondition (checked per object; an object that fails it is left as it
 * is, and the interpreter refuses it at run time naming the class): every
 * use of the object is a prim::SetAttr on it (as the object, not as the
 * value) in the block that creates it, after the CreateObject, or a
 * prim::GetAttr on it anywhere below that block, preceded in that block by
 * a SetAttr of its name. So the reaching write of every read is known from
 * the node order alone. Objects that escape (returned, put in a list,
 * passed to prim::Enter as grad-mode scopes are) are never touched.
 *
 * Objects that do escape into lists, loops and branches (torchaudio's
 * forced-alignment tutorial builds a path of `Point(j, t, prob)` records by
 * appends, reverses it and reads `path[k].score`) become tuples of their
 * attributes when their whole class is a record (records_to_tuples below):
 * every object of the class is created in the program, all its attributes
 * set right after its CreateObject, in its block, before any other use,
 * and never written again; its values are only read by attribute, kept in
 * lists, tuples, loops and branches, and moved by list operations (no
 * identity test, no graph input or output holds one). Then the object is a
 * value like any tuple: the CreateObject and its SetAttrs become a
 * prim::TupleConstruct of the attributes (in the first object's order of
 * writes), each prim::GetAttr a prim::TupleUnpack's element, and every
 * type naming the class (Point, Point[], (Point, int)) the tuple type.
 *
 * prim::SetAttr on modules (self.x = ...) is not this pass's business: a
 * module is not created by the program.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/ir.h"
#include "tssa/util.h"

static const char *attr_name(const IrNode *n)
{
    const IrAttr *a = ir_attr_find(n, "name");
    return a && a->kind == ATTR_STR ? a->u.s : NULL;
}

/* The node in `block` that holds n (n itself, or the node whose blocks
 * contain n); NULL when n is not inside block. */
static const IrNode *ancestor_in(const IrNode *n, const IrBlock *block)
{
    while (n && n->owner != block)
        n = n->owner ? n->owner->owner : NULL;
    return n;
}

/* The SetAttr of `name` on the object that a read at `at` (a node of the
 * object's block) sees: the last one before it. */
static const IrNode *reaching_write(IrNode *const *writes, int nwrites, const char *name,
                                    const IrNode *at)
{
    const IrNode *found = NULL;
    for (int i = 0; i < nwrites; i++)
        if (strcmp(attr_name(writes[i]), name) == 0 && ir_node_is_before(writes[i], at) &&
            (!found || ir_node_is_before(found, writes[i])))
            found = writes[i];
    return found;
}

/* Replaces one object when it meets the precondition; true if it did. */
static bool replace_object(IrNode *create)
{
    IrValue *obj = create->outputs[0];
    IrBlock *home = create->owner;
    int nuses = obj->nuses;
    IrNode **writes = xcalloc((size_t)nuses + 1, sizeof *writes);
    IrNode **reads = xcalloc((size_t)nuses + 1, sizeof *reads);
    const IrNode **sources = xcalloc((size_t)nuses + 1, sizeof *sources);
    int nwrites = 0, nreads = 0;
    bool ok = true;
    for (int i = 0; i < nuses && ok; i++) {
        IrNode *user = obj->uses[i].user;
        bool named = attr_name(user) != NULL;
        if (user->op == OP_PRIM_SETATTR && obj->uses[i].index == 0 && user->ninputs == 2 && named &&
            user->owner == home && ir_node_is_before(create, user))
            writes[nwrites++] = user;
        else if (user->op == OP_PRIM_GETATTR && user->ninputs == 1 && user->noutputs == 1 && named &&
                 ancestor_in(user, home))
            reads[nreads++] = user;
        else
            ok = false;
    }
    for (int i = 0; i < nreads && ok; i++) {
        sources[i] = reaching_write(writes, nwrites, attr_name(reads[i]), ancestor_in(reads[i], home));
        ok = sources[i] != NULL;
    }
    if (ok) {
        for (int i = 0; i < nreads; i++) {
            ir_replace_all_uses(reads[i]->outputs[0], sources[i]->inputs[1]);
            ir_node_destroy(reads[i]);
        }
        for (int i = 0; i < nwrites; i++)
            ir_node_destroy(writes[i]);
        ir_node_destroy(create);
    }
    free(writes);
    free(reads);
    free(sources);
    return ok;
}

typedef struct Creates {
    IrNode **nodes;
    int n, cap;
} Creates;

static void collect_create(IrNode *n, void *ctx)
{
    Creates *c = ctx;
    if (n->op != OP_PRIM_CREATEOBJECT || n->noutputs != 1 || n->ninputs != 0 ||
        n->outputs[0]->type->kind != TY_CLASS)
        return;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->nodes = xrealloc(c->nodes, (size_t)c->cap * sizeof *c->nodes);
    }
    c->nodes[c->n++] = n;
}

/* ---------------------------------------------------------------- records */

static bool is_class(const IrType *t, const char *cls)
{
    return t && t->kind == TY_CLASS && t->name && strcmp(t->name, cls) == 0;
}

static bool type_mentions(const IrType *t, const char *cls)
{
    if (!t)
        return false;
    if (is_class(t, cls))
        return true;
    for (int i = 0; i < t->nelems; i++)
        if (type_mentions(t->elems[i], cls))
            return true;
    return false;
}

/* t with the class replaced by the tuple type; NULL when t holds the class
 * in a type this pass cannot rebuild (a dict, a union, a named tuple). */
static IrType *type_substitute(IrGraph *g, IrType *t, const char *cls, IrType *tuple)
{
    if (!type_mentions(t, cls))
        return t;
    if (is_class(t, cls))
        return tuple;
    IrType *elems[16];
    if (t->nelems > 16)
        return NULL;
    for (int i = 0; i < t->nelems; i++)
        if (!(elems[i] = type_substitute(g, t->elems[i], cls, tuple)))
            return NULL;
    switch (t->kind) {
    case TY_LIST: return ir_type_list(g, elems[0]);
    case TY_OPTIONAL: return ir_type_optional(g, elems[0]);
    case TY_TUPLE: return t->name ? NULL : ir_type_tuple(g, t->nelems, elems);
    default: return NULL;
    }
}

/* The ops that may hold or move a value whose type mentions the class:
 * containers, list operations, control flow. None of them looks at an
 * object's identity. */
static bool moves_records(const IrNode *n)
{
    switch (n->op) {
    case OP_PRIM_LISTCONSTRUCT: case OP_PRIM_LISTUNPACK:
    case OP_PRIM_TUPLECONSTRUCT: case OP_PRIM_TUPLEUNPACK: case OP_PRIM_TUPLEINDEX:
    case OP_ATEN_APPEND: case OP_ATEN_INSERT: case OP_ATEN_EXTEND: case OP_ATEN_POP:
    case OP_ATEN_REVERSE: case OP_ATEN_SET_ITEM: case OP_ATEN_GETITEM: case OP_ATEN_LEN:
    case OP_ATEN_LIST: case OP_ATEN_SLICE: case OP_ATEN_ADD:
    case OP_PRIM_IF: case OP_PRIM_LOOP: case OP_PRIM_RETURN: case OP_PRIM_UNCHECKED_CAST:
        return true;
    default:
        return false;
    }
}

typedef struct Record {
    IrGraph *g;
    const char *cls;
    int nfields;
    const char *names[16];
    IrType *types[16];
    IrNode **writes;        /* every creation SetAttr, by create: nfields each */
    IrNode **creates;
    int ncreates;
    IrType *tuple;          /* the record's tuple type, once the fields are known */
    bool ok;
} Record;

static int field_index(const Record *r, const char *name)
{
    for (int i = 0; i < r->nfields; i++)
        if (strcmp(r->names[i], name) == 0)
            return i;
    return -1;
}

static bool is_creation_write(const Record *r, const IrNode *n)
{
    for (int i = 0; i < r->ncreates * r->nfields; i++)
        if (r->writes[i] == n)
            return true;
    return false;
}

/* One object's creation writes, in field order, into w; false when they
 * are not the record's: each field set once, in the object's block,
 * before every other use of the object. */
static bool creation_writes(Record *r, IrNode *create, IrNode **w, bool first)
{
    IrValue *obj = create->outputs[0];
    IrBlock *home = create->owner;
    int nset = 0;
    for (int i = 0; i < obj->nuses; i++) {
        IrNode *u = obj->uses[i].user;
        if (u->op != OP_PRIM_SETATTR || obj->uses[i].index != 0)
            continue;
        const char *name = attr_name(u);
        if (!name || u->ninputs != 2 || u->owner != home)
            return false;
        int k = field_index(r, name);
        if (first && k < 0) {
            if (r->nfields == 16)
                return false;
            k = r->nfields++;
            r->names[k] = name;
            r->types[k] = u->inputs[1]->type;
        }
        if (k < 0 || w[k] || !ir_type_equal(u->inputs[1]->type, r->types[k]))
            return false;
        w[k] = u;
        nset++;
    }
    if (nset != r->nfields)
        return false;
    for (int i = 0; i < obj->nuses; i++) {
        IrNode *u = obj->uses[i].user;
        if (u->op == OP_PRIM_SETATTR && obj->uses[i].index == 0)
            continue;
        const IrNode *at = ancestor_in(u, home);
        for (int k = 0; at && k < r->nfields; k++)
            if (!ir_node_is_before(w[k], at))
                return false;
    }
    return true;
}

/* Every node of the graph treats the class as a record. */
static void check_uses(IrNode *n, void *ctx)
{
    Record *r = ctx;
    if (!r->ok)
        return;
    for (int b = 0; b < n->nblocks; b++)
        for (int i = 0; i < ir_block_nparams(n->blocks[b]); i++)
            if (type_mentions(ir_block_param(n->blocks[b], i)->type, r->cls) &&
                !type_substitute(r->g, ir_block_param(n->blocks[b], i)->type, r->cls, r->tuple))
                r->ok = false;
    bool mentions = false;
    for (int i = 0; i < n->ninputs; i++)
        mentions |= type_mentions(n->inputs[i]->type, r->cls);
    for (int i = 0; i < n->noutputs; i++) {
        if (!type_mentions(n->outputs[i]->type, r->cls))
            continue;
        mentions = true;
        if (!type_substitute(r->g, n->outputs[i]->type, r->cls, r->tuple))
            r->ok = false;
    }
    if (!mentions)
        return;
    if (n->op == OP_PRIM_CREATEOBJECT && is_class(n->outputs[0]->type, r->cls))
        return;
    if (n->op == OP_PRIM_GETATTR && n->ninputs == 1 && is_class(n->inputs[0]->type, r->cls)) {
        const char *name = attr_name(n);
        if (!name || field_index(r, name) < 0 || n->noutputs != 1)
            r->ok = false;
        return;
    }
    if (n->op == OP_PRIM_SETATTR) {
        if (!is_creation_write(r, n))
            r->ok = false;
        return;
    }
    if (!moves_records(n))
        r->ok = false;
}

static void retype(IrNode *n, void *ctx)
{
    Record *r = ctx;
    for (int b = 0; b < n->nblocks; b++)
        for (int i = 0; i < ir_block_nparams(n->blocks[b]); i++) {
            IrValue *v = ir_block_param(n->blocks[b], i);
            v->type = type_substitute(r->g, v->type, r->cls, r->tuple);
        }
    for (int i = 0; i < n->noutputs; i++)
        n->outputs[i]->type = type_substitute(r->g, n->outputs[i]->type, r->cls, r->tuple);
}

typedef struct Reads {
    IrNode **nodes;
    int n, cap;
    const char *cls;
} Reads;

static void collect_read(IrNode *n, void *ctx)
{
    Reads *rd = ctx;
    if (n->op != OP_PRIM_GETATTR || n->ninputs != 1 || !is_class(n->inputs[0]->type, rd->cls))
        return;
    if (rd->n == rd->cap) {
        rd->cap = rd->cap ? 2 * rd->cap : 16;
        rd->nodes = xrealloc(rd->nodes, (size_t)rd->cap * sizeof *rd->nodes);
    }
    rd->nodes[rd->n++] = n;
}

/* Makes class cls, whose objects the program creates by `creates`, a tuple
 * when it is a record (see the header); the number of objects replaced. */
static int records_to_tuples(IrGraph *g, const char *cls, IrNode **creates, int ncreates)
{
    Record r = {.g = g, .cls = cls, .creates = creates, .ncreates = ncreates, .ok = true};
    r.writes = xcalloc((size_t)ncreates * 16 + 1, sizeof *r.writes);
    for (int c = 0; c < ncreates && r.ok; c++)
        r.ok = creation_writes(&r, creates[c], r.writes + (size_t)c * 16, c == 0) &&
               r.nfields > 0;
    /* writes are kept 16 apart per create; pack them for is_creation_write */
    for (int c = 1; c < ncreates && r.ok; c++)
        for (int k = 0; k < r.nfields; k++)
            r.writes[c * r.nfields + k] = r.writes[(size_t)c * 16 + k];
    IrType *tuple = r.ok ? ir_type_tuple(g, r.nfields, r.types) : NULL;
    r.tuple = tuple;
    for (int i = 0; r.ok && i < ir_block_nparams(g->top); i++)
        r.ok = !type_mentions(ir_block_param(g->top, i)->type, cls);
    for (int i = 0; r.ok && i < ir_block_nreturns(g->top); i++)
        r.ok = !type_mentions(ir_block_return(g->top, i)->type, cls);
    if (r.ok)
        ir_walk(g->top, check_uses, &r);
    if (!r.ok) {
        free(r.writes);
        return 0;
    }
    /* Reads first (they name the class type on their input), then the
     * objects, then every type. */
    Reads rd = {.cls = cls};
    ir_walk(g->top, collect_read, &rd);
    for (int i = 0; i < rd.n; i++) {
        IrNode *get = rd.nodes[i];
        int k = field_index(&r, attr_name(get));
        IrNode *unpack = ir_node_new_op(g, OP_PRIM_TUPLEUNPACK);
        ir_node_add_input(unpack, get->inputs[0]);
        for (int f = 0; f < r.nfields; f++)
            ir_node_add_output(unpack, tuple->elems[f], NULL);
        ir_insert_before(unpack, get);
        ir_replace_all_uses(get->outputs[0], unpack->outputs[k]);
        ir_node_destroy(get);
    }
    free(rd.nodes);
    for (int c = 0; c < ncreates; c++) {
        IrNode **w = r.writes + (size_t)c * r.nfields;
        IrNode *last = w[0];
        for (int k = 1; k < r.nfields; k++)
            if (ir_node_is_before(last, w[k]))
                last = w[k];
        IrNode *make = ir_node_new_op(g, OP_PRIM_TUPLECONSTRUCT);
        for (int k = 0; k < r.nfields; k++)
            ir_node_add_input(make, w[k]->inputs[1]);
        ir_node_add_output(make, tuple, NULL);
        ir_insert_after(make, last);
        for (int k = 0; k < r.nfields; k++)
            ir_node_destroy(w[k]);
        ir_replace_all_uses(creates[c]->outputs[0], make->outputs[0]);
        ir_node_destroy(creates[c]);
    }
    ir_walk(g->top, retype, &r);
    free(r.writes);
    return ncreates;
}

/* The objects left after scalar replacement, class by class. */
static int replace_records(IrGraph *g)
{
    Creates c = {0};
    ir_walk(g->top, collect_create, &c);
    int replaced = 0;
    bool *done = xcalloc((size_t)c.n + 1, sizeof *done);
    IrNode **same = xcalloc((size_t)c.n + 1, sizeof *same);
    for (int i = 0; i < c.n; i++) {
        if (done[i])
            continue;
        const char *cls = c.nodes[i]->outputs[0]->type->name;
        int nsame = 0;
        for (int j = i; j < c.n; j++)
            if (!done[j] && is_class(c.nodes[j]->outputs[0]->type, cls)) {
                same[nsame++] = c.nodes[j];
                done[j] = true;
            }
        if (cls)
            replaced += records_to_tuples(g, cls, same, nsame);
    }
    free(same);
    free(done);
    free(c.nodes);
    return replaced;
}

/* An object held by another (`self.inner = Inner(3)` in an inlined
 * __init__) is a SetAttr's value until its holder is replaced, so the walk
 * repeats until a round replaces nothing: each round removes at least one
 * CreateObject, so it ends. Records come last: an object scalar
 * replacement takes needs no tuple. */
int ir_replace_fresh_objects(IrGraph *g)
{
    int replaced = 0;
    for (int round = -1; round != 0;) {
        Creates c = {0};
        ir_walk(g->top, collect_create, &c);
        round = 0;
        for (int i = 0; i < c.n; i++)
            round += replace_object(c.nodes[i]);
        free(c.nodes);
        replaced += round;
    }
    return replaced + replace_records(g);
}
