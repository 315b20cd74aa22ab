/* functionalize_private.h — what the TensorSSA passes share beyond the
 * public header: the alias analysis tables, view steps (how to re-create a
 * view as an immut:: access or assign), and small graph-building helpers.
 * Not for use outside functionalize/.
 */
#ifndef TSSA_FUNCTIONALIZE_PRIVATE_H
#define TSSA_FUNCTIONALIZE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "tssa/functionalize.h"
#include "tssa/ir.h"
#include "tssa/tensor.h"

/* ---------------------------------------------------------------- helpers (graph_edit.c) */

/* Tensor or Optional[Tensor]: a value that may hold storage. */
bool tssa_is_tensor_value(const IrValue *v);
/* Lists and tuples whose elements may be tensors. */
bool tssa_is_container_value(const IrValue *v);
/* Tensor[]: the lists whose elements list_elements.c and object_names.c follow. */
bool tssa_is_tensor_list(const IrValue *v);
/* n is a list or dict op (OPC_SCALAR, a list, tuple or dict operand) with
 * a tensor result: that result is one of the container's elements
 * (list.pop(), dict.get/pop/setdefault, the immut:: pops: `-> t(*)` in
 * their schemas) or a tensor operand (a default), never a new tensor. */
bool tssa_returns_element(const IrNode *n);
/* The int of a prim::Constant output, when v is one. */
bool tssa_const_int(const IrValue *v, int64_t *out);
bool tssa_const_bool(const IrValue *v, bool *out);
bool tssa_is_none(const IrValue *v);
/* A list of constant ints built by prim::ListConstruct (at most cap). */
bool tssa_const_int_list(const IrValue *v, int64_t *buf, int cap, int *n);
/* Input i of n as a constant int; dflt when n has fewer inputs (a schema
 * default). False when the input is not a constant int. */
bool tssa_const_int_arg(const IrNode *n, int i, int64_t dflt, int64_t *out);
/* A new int constant inserted before `pos`. */
IrValue *tssa_emit_int(IrGraph *g, IrNode *pos, int64_t value);
/* A new node of op with the given inputs and one output, inserted before
 * pos. name NULL gives a fresh number; type NULL gives plain Tensor. */
IrValue *tssa_emit_node(IrGraph *g, IrNode *pos, OpId op, IrValue *const *inputs, int ninputs,
                   IrType *type, const char *name);
/* The base name of v ("b" for "b.5"), for naming new versions of it. */
const char *tssa_base_name(const IrValue *v, char *buf, size_t size);
/* The op has effects beyond its outputs (mutation, raising, printing, list
 * appends, unknown ops): DCE keeps it and CSE leaves it alone. */
bool tssa_node_has_effects(const IrNode *n);
/* What the value at input `index` of `user` becomes across a merge: an
 * If's result (a block return), a Loop's result (the body's return) or
 * its body parameter (a Loop's initial value); NULL otherwise. */
IrValue *tssa_merge_target(const IrNode *user, int index);
/* True if the op is deterministic and reads only its inputs. */
bool tssa_node_is_pure(const IrNode *n);
/* "conv1.1.weight": the dotted path of a prim::GetAttr chain (the module
 * input itself not named), in g's arena. */
const char *tssa_attribute_path(IrGraph *g, const IrNode *n);
/* True if the chain of prim::GetAttr ending at n starts at a graph input. */
bool tssa_attribute_chain_from_input(const IrNode *n);
/* Appends "tssa: kept imperative: why" to the node's comment. */
void tssa_note_imperative(IrNode *n, const char *why);

/* ---------------------------------------------------------------- view steps (view_steps.c) */

/* How a view was made from its parent. */
typedef enum TssaStepKind {
    TSSA_STEP_NONE,         /* a root */
    TSSA_STEP_VIEW,         /* node is an aten view op; args are inputs 1.. */
    TSSA_STEP_IDENTITY,     /* the same tensor (alias, detach, unchecked_cast) */
    TSSA_STEP_PIECE,        /* element `piece` of a chunk/split/unbind list (node) */
} TssaStepKind;

typedef struct TssaStep {
    TssaStepKind kind;
    IrNode *node;           /* the view op, or the list-making op for pieces */
    int piece;
    /* A piece taken at a run-time index (parts[k]): that index (piece is
     * then -1), normalized and bounds-checked where the step is re-created. */
    IrValue *index;
} TssaStep;

/* The immut:: access twin of an aten view op, or OP_UNKNOWN. */
OpId tssa_access_op_of_view(OpId view);
/* The assign twin (immut::<v>_rev) of an access op, or OP_UNKNOWN. */
OpId tssa_assign_op_of_access(OpId access);
/* Whether the step can be re-created as immut:: ops; otherwise *why says
 * which op lacks a functional form. */
bool tssa_step_supported(const TssaStep *s, const char **why);
/* parent's region, copied: the immut:: access of the step, before pos. */
IrValue *tssa_step_access(IrGraph *g, const TssaStep *s, IrValue *parent, IrNode *pos,
                          IrType *type, const char *name);
/* parent with the step's region replaced by src, before pos. */
IrValue *tssa_step_assign(IrGraph *g, const TssaStep *s, IrValue *parent, IrValue *src,
                          IrNode *pos, IrType *type, const char *name);

/* ---------------------------------------------------------------- alias analysis (alias.c) */

typedef enum TssaRootKind {
    TSSA_ROOT_FRESH,        /* result of an op that allocates its storage */
    TSSA_ROOT_INPUT,        /* graph input */
    TSSA_ROOT_ATTRIBUTE,    /* module attribute (prim::GetAttr) */
    TSSA_ROOT_CONTAINER,    /* taken out of a list or tuple */
    TSSA_ROOT_MERGE,        /* prim::If output, loop-carried value */
    TSSA_ROOT_MAYBE,        /* reshape-like: a view or a copy, decided at run time */
    TSSA_ROOT_OPAQUE,       /* result of an op whose aliasing is not known */
} TssaRootKind;

typedef struct TssaValueInfo {
    int root;               /* index into roots, -1 for non-tensors */
    IrValue *parent;        /* NULL for roots */
    TssaStep step;          /* how this value was made from parent */
    int64_t last_use;       /* position of the last use (-1: none) */
    int64_t tree_last_use;  /* the same over this value and its view subtree */
} TssaValueInfo;

typedef struct TssaRoot {
    IrValue *value;
    TssaRootKind kind;
    const char *detail;     /* what made it: the op, the attribute path */
    int cls;                /* union-find parent (root indices) */
    IrValue **tree;         /* the root and every view of it, in program order */
    int ntree, cap_tree;
    int nmutations;
    bool escapes;           /* stored in a list/tuple that outlives its reads, or
                             * joined by control flow to a value that is */
    bool merged;            /* control flow joins it to another root (an If
                             * result, a loop-carried value, what flows in) */
    int nstores;            /* times the root's tree is put into a container directly */
    IrNode *store;          /* the (last) node that put it there */
    /* For a tensor read out of a Tensor[] by aten::__getitem__: that node,
     * whose list and index a write-back of the element sets. */
    IrNode *slot;
    bool imperative;        /* mutation left imperative */
    const char *reason;     /* why (arena string) */
} TssaRoot;

/* A list slot holding a written tensor: aten::_set_item(list, index, new). */
typedef struct TssaSlot {
    IrValue *list;
    int64_t index;
    IrValue *index_value;   /* the index as a value (a loop's count), or NULL: index */
} TssaSlot;

/* Every other name and slot of the tensor a write changes, where
 * object_names.c decided them (resolved); rewrite_mutation.c gives each
 * the new version. */
typedef struct TssaObjectPlan {
    bool resolved;
    IrValue **names;        /* read after the write: tssa::update(new, name) */
    int nnames;
    TssaSlot *slots;        /* every slot holding the tensor at the write */
    int nslots;
    /* Read after the write and the written tensor on every iteration of
     * the loop around it but the first (counter 0): they get
     * prim::If(counter == 0){name}{new}. */
    IrValue **later_names;
    int nlater;
    /* The written tensor on that loop's first iteration only: they get
     * prim::If(counter == 0){new}{name}. */
    IrValue **first_names;
    int nfirst;
    IrValue *counter;
} TssaObjectPlan;

typedef struct TssaMutation {
    IrNode *node;           /* the in-place op; after inplace_to_functional its copy_ */
    IrValue *target;        /* the tensor written */
    int root;
    int64_t pos;            /* program position of the original op */
    bool imperative;
    const char *reason;     /* why it stays imperative (arena string) */
    /* The source written is known to have the target's shape and dtype
     * (the out-of-place twin of an in-place op that keeps them). */
    bool src_matches_target;
    /* Set where alias.c's rules refused and object_names.c found every
     * name and slot of the tensor (then the slots replace root->slot). */
    TssaObjectPlan plan;
} TssaMutation;

struct TssaAlias {
    IrGraph *g;
    TssaOptions opt;
    uint32_t nvalues, nnodes;   /* sizes of the tables: later values are not analysed */
    TssaValueInfo *values;      /* by value id */
    int64_t *pos;               /* pre-order position by node id (-1: not in the graph) */
    int64_t *block_end;         /* for prim::Param sentinels (by node id): position of the block's end */
    TssaRoot *roots;
    int nroots, cap_roots;
    TssaMutation *mutations;
    int nmutations, cap_mutations;
    int nclasses_shared;        /* classes of more than one root (for printing) */
};

/* Root index of a class representative. */
int tssa_alias_class(TssaAlias *a, int root);
const TssaValueInfo *tssa_alias_info(const TssaAlias *a, const IrValue *v);
/* Position of n in program order (pre-order, a block's end after its
 * nodes), or -1 for nodes made after the analysis. */
int64_t tssa_alias_pos(const TssaAlias *a, const IrNode *n);
/* True if the definition of v dominates node position of m (same or an
 * enclosing block, earlier). */
bool tssa_alias_dominates(const TssaAlias *a, const IrValue *v, const IrNode *m);
/* The position after which a use of v counts as "after" the mutation at
 * node m: m itself, or the start of the outermost loop around m that does
 * not define v (its next iteration comes back to earlier uses). */
int64_t tssa_alias_after_threshold(const TssaAlias *a, const IrValue *v, const IrNode *m);

/* Gives node n, made by a pass to stand where `at` stands (in at's block,
 * right before it), at's position, so position queries work on it. */
void tssa_alias_adopt(TssaAlias *a, IrNode *n, const IrNode *at);

/* ---------------------------------------------------------------- list elements (list_elements.c) */

/* The classes of Tensor[] values (one list under several names) and what
 * goes in and out of them; made after alias.c classified the values. */
typedef struct TssaListElements TssaListElements;
TssaListElements *tssa_list_elements_new(TssaAlias *a);
void tssa_list_elements_free(TssaListElements *le);
/* aten::_set_item(l, i, l[i]): puts back what it read from the same slot,
 * with nothing written to the list in between. */
bool tssa_list_elements_self_store(TssaListElements *le, const IrNode *set);
/* The root was put directly into a list whose every slot holds a tensor of
 * its own that no other container holds (valid once alias.c counted the
 * stores and last uses). */
bool tssa_list_elements_owned_store(TssaListElements *le, const TssaRoot *root);
/* The root is put into a container once, and only after the write at m
 * through `element` (not in a loop around m that does not make element):
 * the container gets the version renaming gives it, the new one. */
bool tssa_list_elements_stored_later(TssaListElements *le, const TssaRoot *root,
                                     const IrValue *element, const IrNode *m);
/* `other` is never the tensor `element` (read out of an owned list) is:
 * a fresh tensor not put into that list, or a tensor read out of another
 * container (sound where alias.c checks that no name of the element is
 * stored in a container). */
bool tssa_list_elements_distinct(TssaListElements *le, const TssaRoot *element, const TssaRoot *other);
/* Why a write at m through the element root->slot reads cannot be written
 * back to its slot, or NULL (see the file's rules 1-3). */
const char *tssa_list_elements_unsafe(TssaListElements *le, const TssaRoot *root, const IrNode *m);

/* ---------------------------------------------------------------- object names (object_names.c) */

/* Which names and list slots hold the tensor a write changes, where the
 * write's block decides them (see the file's rules). */
typedef struct TssaObjectNames TssaObjectNames;
TssaObjectNames *tssa_object_names_new(TssaAlias *a);
void tssa_object_names_free(TssaObjectNames *on);
/* Fills plan (resolved) and returns NULL, or returns why the names of the
 * written tensor are not all known. */
const char *tssa_object_names_resolve(TssaObjectNames *on, const TssaMutation *m, TssaObjectPlan *plan);

/* ---------------------------------------------------------------- regions (view_regions.c) */

/* True when the regions of views a and b (two values of one root's tree)
 * provably share no element, from constant select/slice/narrow arguments
 * along their chains. False when unknown. */
bool tssa_regions_disjoint(const TssaAlias *al, const IrValue *a, const IrValue *b);

/* module_state.c: module attributes assigned with prim::SetAttr become
 * values threaded through the graph (If results, loop-carried values); no
 * SetAttr is left unless the pass declined the graph. Returns the nodes
 * removed. */
size_t tssa_thread_module_state(IrGraph *g, const Safetensors *weights);

/* ---------------------------------------------------------------- layouts (view_layouts.c) */

/* What is known of a tensor value's memory layout. */
typedef enum TssaLayoutKind {
    TSSA_LAYOUT_UNKNOWN,
    TSSA_LAYOUT_CONTIGUOUS,     /* row-major, sizes unknown */
    TSSA_LAYOUT_STRIDED,        /* sizes and strides known (in t) */
} TssaLayoutKind;

typedef struct TssaLayout {
    TssaLayoutKind kind;
    Tensor t;                   /* only ndim, sizes, strides: tensor_view_strides reads these */
} TssaLayout;

TssaLayout tssa_layout_contiguous(void);
/* Strided, row-major strides for the sizes. */
TssaLayout tssa_layout_row_major(int ndim, const int64_t *sizes);
/* Known to be row-major (PyTorch's is_contiguous: size-1 dims aside). */
bool tssa_layout_known_contiguous(const TssaLayout *l);
int64_t tssa_layout_numel(const TssaLayout *l);
/* view(shape) of a strided layout (one -1 inferred); false when the view
 * fails (the shape does not fit, or computeStride finds no strides). */
bool tssa_layout_view_shape(const TssaLayout *in, const int64_t *shape, int n, TssaLayout *out);
/* The strided layout l after view op n (second: the layout of n's input 1,
 * for view_as and expand_as, or NULL); false when unknown. */
bool tssa_layout_after_view(const IrNode *n, const TssaLayout *second, TssaLayout *l);
/* View op n keeps a row-major input row-major whatever its sizes. */
bool tssa_layout_keeps_contiguous(const IrNode *n);
/* Piece k of the list of views n (unbind, chunk, split) of input layout in. */
bool tssa_layout_piece(const IrNode *n, int64_t k, const TssaLayout *in, TssaLayout *out);
/* The sizes flatten(start, end) node n gives the strided layout l. */
bool tssa_layout_flatten_shape(const IrNode *n, const TssaLayout *l, int64_t *shape, int *count);

/* reshape_decide.c: reshape, flatten, ravel, reshape_as and contiguous
 * whose input's layout is known become the view or the copy PyTorch makes
 * (aten::view, view_as, clone + view, or the input itself); returns how
 * many. opt->inputs, when set, gives the graph inputs' sizes and strides. */
size_t tssa_decide_reshapes(IrGraph *g, const TssaOptions *opt);
/* grad_scope.c: removes `with torch.no_grad():` scopes; returns the nodes removed. */
size_t tssa_drop_grad_scopes(IrGraph *g);
/* metadata_inplace.c: squeeze_, t_, ... -> their view, read by every later
 * use of self where that is exact; the number rewritten. */
size_t tssa_metadata_inplace_to_views(IrGraph *g);

#endif
