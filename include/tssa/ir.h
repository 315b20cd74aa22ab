/* ir.h — the in-memory TorchScript graph every pass of tssa-stream works on.
 *
 * Shape of the IR (the same as TorchScript's own):
 *   IrGraph  owns one top IrBlock, an arena for everything it allocates, and
 *            the table of value names.
 *   IrBlock  is a doubly linked list of IrNodes framed by two sentinel nodes:
 *            `param` (prim::Param, whose outputs are the block parameters) and
 *            `ret` (prim::Return, whose inputs are the block results). Using
 *            real nodes for both makes block parameters ordinary definitions
 *            and block results ordinary uses, so use lists need no special
 *            cases.
 *   IrNode   has a kind (an interned "ns::name" string plus its entry in the
 *            op table, OP_UNKNOWN when the op is not listed), inputs, outputs,
 *            attributes, nested blocks (prim::If, prim::Loop) and the source
 *            comment TorchScript printed after it.
 *   IrValue  is defined by exactly one node (or a block's param node) and
 *            records every use as (node, input index).
 *
 * Memory: every IrGraph allocation comes from the graph's arena and is freed
 * by ir_graph_free. Destroying a node unlinks it; its memory stays until the
 * graph is freed (passes never pay for bookkeeping of small frees).
 *
 * Names: every value has a unique name ("x.1", "b", "17"), given when it is
 * created. Numeric names are names like any other, so printing keeps the
 * numbers TorchScript printed and print -> parse -> print is a fixpoint.
 */
#ifndef TSSA_IR_H
#define TSSA_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/ops.h"
#include "tssa/util.h"

typedef struct IrGraph IrGraph;
typedef struct IrBlock IrBlock;
typedef struct IrNode IrNode;
typedef struct IrValue IrValue;
typedef struct IrType IrType;
struct Tensor;

/* ---------------------------------------------------------------- types */

typedef enum IrTypeKind {
    TY_TENSOR,
    TY_INT,
    TY_FLOAT,
    TY_BOOL,
    TY_STR,
    TY_NONE,
    TY_DEVICE,
    TY_SCALARTYPE,
    TY_LAYOUT,
    TY_MEMORYFORMAT,
    TY_NUMBER,      /* "number" / "Scalar" */
    TY_ANY,
    TY_GENERATOR,
    TY_LIST,        /* elem[0][] */
    TY_OPTIONAL,    /* elem[0]? */
    TY_TUPLE,       /* (elem[0], ..., elem[n-1]) */
    TY_DICT,        /* Dict(elem[0], elem[1]) */
    TY_UNION,       /* Union(elem...) */
    TY_FUTURE,      /* Future(elem[0]) */
    TY_CLASS,       /* __torch__.m.Sequential: name */
    TY_OTHER,       /* anything else: name holds its text verbatim */
} IrTypeKind;

/* A tensor type as TorchScript prints it: "Tensor", or a refined one such as
 * Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) or Float(*, 4).
 * Every part is optional and printed back only if it was present. */
typedef struct IrTensorType {
    const char *scalar;     /* "Float", "Long", ...; NULL for plain "Tensor" */
    int dtype;              /* TensorDType of scalar, or -1 */
    int rank;               /* -1: sizes not given */
    int64_t *sizes;         /* rank entries, -1 for '*' */
    int64_t *strides;       /* NULL when not given; -1 entries for '*' */
    int requires_grad;      /* -1 not given, else 0/1 */
    const char *device;     /* NULL when not given, else "cpu", "cuda:0" */
    bool undefined_shape;   /* printed with no parenthesised part */
} IrTensorType;

/* Types are immutable once made and may be shared by many values (the
 * parser gives every value with the same type text one IrType): make a new
 * type rather than editing v->type in place. */
struct IrType {
    IrTypeKind kind;
    IrTensorType tensor;    /* TY_TENSOR */
    int nelems;
    IrType **elems;         /* LIST, OPTIONAL, TUPLE, DICT, UNION, FUTURE */
    const char *name;       /* CLASS, OTHER; names of named tuples */
};

IrType *ir_type_simple(IrGraph *g, IrTypeKind kind);
IrType *ir_type_tensor(IrGraph *g);                 /* plain "Tensor" */
/* A refined tensor type, printed as Float(64, 128) (strides given: with
 * strides=[...]): dtype a TensorDType or -1 (plain Tensor), rank -1 for no
 * sizes, sizes[i] -1 for '*'. The arrays are copied. */
IrType *ir_type_tensor_refined(IrGraph *g, int dtype, int rank, const int64_t *sizes,
                               const int64_t *strides);
IrType *ir_type_list(IrGraph *g, IrType *elem);
IrType *ir_type_optional(IrGraph *g, IrType *elem);
IrType *ir_type_tuple(IrGraph *g, int n, IrType **elems);
bool ir_type_equal(const IrType *a, const IrType *b);
/* Appends the TorchScript spelling of t to the buffer; returns its length. */
void ir_type_print(FILE *out, const IrType *t);
const char *ir_type_kind_name(IrTypeKind k);

/* ---------------------------------------------------------------- attributes */

typedef enum IrAttrKind {
    ATTR_INT,       /* i: also bools, printed 0/1 as TorchScript does */
    ATTR_FLOAT,     /* f */
    ATTR_STR,       /* s */
    ATTR_INTS,      /* is */
    ATTR_FLOATS,    /* fs */
    ATTR_STRS,      /* ss */
    ATTR_TENSOR,    /* t: see IrTensorConst */
    ATTR_RAW,       /* anything else (ival tuples, types, graphs): kept verbatim */
} IrAttrKind;

/* A tensor attribute. TorchScript prints one-element tensors as {2.5} or {3},
 * small ones as their repr, others as <Tensor> (data not in the text). */
typedef struct IrTensorConst {
    struct Tensor *tensor;  /* the data when known, else NULL */
    const char *text;       /* the exact printed spelling: "{1}", "<Tensor>" */
} IrTensorConst;

typedef struct IrAttr {
    const char *name;       /* interned */
    IrAttrKind kind;
    int n;                  /* element count of list kinds */
    union {
        int64_t i;
        double f;
        const char *s;
        int64_t *is;
        double *fs;
        const char **ss;
        IrTensorConst t;
        const char *raw;
    } u;
    const char *spelling;   /* the value's text as read, kept only when printing the
                               decoded value would differ ("1.5e3", odd escapes);
                               printed back verbatim; the ir_attr_set_* calls clear it */
} IrAttr;

/* ---------------------------------------------------------------- values */

typedef struct IrUse {
    IrNode *user;
    int index;              /* which input of user */
} IrUse;

struct IrValue {
    const char *name;       /* unique within the graph; never NULL */
    IrType *type;
    IrNode *def;            /* defining node (a block's param node for params) */
    int def_index;          /* which output of def */
    IrUse *uses;
    int nuses, cap_uses;
    uint32_t id;            /* dense index, for side tables in passes */
    void *aux;              /* scratch pointer owned by the running pass */
};

/* ---------------------------------------------------------------- nodes */

struct IrNode {
    const char *kind;       /* interned "aten::add" */
    OpId op;                /* entry in the op table, OP_UNKNOWN if absent */
    IrValue **inputs;
    int ninputs, cap_inputs;
    IrValue **outputs;
    int noutputs, cap_outputs;
    IrAttr *attrs;
    int nattrs, cap_attrs;
    IrBlock **blocks;
    int nblocks, cap_blocks;
    IrBlock *owner;         /* block that holds this node */
    IrNode *prev, *next;
    const char *comment;    /* trailing "# file.py:3:8" text without '#', or NULL */
    const char *scope;      /* traced graphs: the text after ", scope: ", or NULL */
    int line;               /* line in the graph text it was read from, 0 if made */
    int col;                /* column of its kind on that line (characters, from 1) */
    uint32_t id;            /* dense index, for side tables in passes */
    bool dead;              /* destroyed; memory still in the arena */
    void *aux;              /* scratch pointer owned by the running pass */
    /* Maintained by frontend/ir.c; read-only elsewhere. */
    IrGraph *graph;         /* graph whose arena holds this node */
    int64_t order;          /* increases along the owner block's node list */
    int *use_slots;         /* use_slots[i]: where (this, i) sits in inputs[i]->uses */
};

struct IrBlock {
    IrGraph *graph;
    IrNode *owner;          /* node this block belongs to; NULL for the top block */
    IrNode *param;          /* sentinel: outputs are the block parameters */
    IrNode *ret;            /* sentinel: inputs are the block results */
    int line;               /* line of "blockN(...)" in the text, 0 if made */
};

struct IrGraph {
    Arena *arena;
    IrBlock *top;
    const char *file;       /* path the graph was read from, for messages */
    uint32_t nvalues;       /* ids handed out so far */
    uint32_t nnodes;
    struct NameTable *names;
    uint64_t next_number;   /* next candidate for a fresh numeric name */
};

/* ---------------------------------------------------------------- building */

IrGraph *ir_graph_new(void);
void ir_graph_free(IrGraph *g);
const char *ir_intern(IrGraph *g, const char *s);   /* interned copy of s */
/* Interned copy of the printf-formatted text (cut at 511 bytes): the
 * reasons passes attach to nodes. */
const char *ir_internf(IrGraph *g, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* A detached node of the given kind; insert it with ir_insert_*. kind is
 * copied and looked up in the op table. */
IrNode *ir_node_new(IrGraph *g, const char *kind);
IrNode *ir_node_new_op(IrGraph *g, OpId op);
void ir_node_add_input(IrNode *n, IrValue *v);
void ir_node_set_input(IrNode *n, int i, IrValue *v);
void ir_node_remove_input(IrNode *n, int i);
void ir_node_remove_all_inputs(IrNode *n);
/* A new output; name NULL gives a fresh numeric name, otherwise the name is
 * made unique (x -> x.1 -> x.2) if already taken. */
IrValue *ir_node_add_output(IrNode *n, IrType *type, const char *name);
/* Only for outputs without uses. */
void ir_node_remove_output(IrNode *n, int i);
IrBlock *ir_node_add_block(IrNode *n);
IrValue *ir_block_add_param(IrBlock *b, IrType *type, const char *name);
void ir_block_remove_param(IrBlock *b, int i);
void ir_block_add_return(IrBlock *b, IrValue *v);
void ir_block_remove_return(IrBlock *b, int i);

/* Name handling: rename v (made unique); look a value up by exact name. */
void ir_value_set_name(IrGraph *g, IrValue *v, const char *name);
IrValue *ir_graph_lookup(IrGraph *g, const char *name);
/* The name without its ".N" suffix: "a.1" -> "a" (written into buf). */
const char *ir_value_base_name(const IrValue *v, char *buf, size_t size);

/* ---------------------------------------------------------------- attributes */

IrAttr *ir_attr_find(const IrNode *n, const char *name);
/* A tssa::FusionGroup over the iterations of a data-parallel loop (made by
 * kernels/horizontal.c) has int attribute `iterations` = N: its block
 * computes one iteration's result with block param 0 as the iteration
 * index (the node's input 0 is a placeholder), and its one output stacks
 * the N results along a new dim 0. Returns N, or 0 for a plain group. */
int64_t ir_group_iterations(const IrNode *group);
void ir_attr_set_int(IrNode *n, const char *name, int64_t v);
void ir_attr_set_float(IrNode *n, const char *name, double v);
void ir_attr_set_str(IrNode *n, const char *name, const char *v);
void ir_attr_set_ints(IrNode *n, const char *name, const int64_t *v, int count);
void ir_attr_set_floats(IrNode *n, const char *name, const double *v, int count);
IrAttr *ir_attr_add(IrNode *n, const char *name, IrAttrKind kind);
/* A tensor attribute holding t; the graph takes over the reference and
 * releases it in ir_graph_free. text is its printed form (NULL: <Tensor>). */
void ir_attr_set_tensor(IrNode *n, const char *name, struct Tensor *t, const char *text);

/* ---------------------------------------------------------------- editing */

void ir_insert_before(IrNode *n, IrNode *pos);
void ir_insert_after(IrNode *n, IrNode *pos);
void ir_append(IrBlock *b, IrNode *n);      /* before b's return */
void ir_prepend(IrBlock *b, IrNode *n);     /* after b's params */
void ir_move_before(IrNode *n, IrNode *pos);
void ir_move_after(IrNode *n, IrNode *pos);
/* Unlinks n, drops its uses and those in its blocks. Its outputs must have
 * no uses left. */
void ir_node_destroy(IrNode *n);
void ir_replace_all_uses(IrValue *from, IrValue *to);
/* Replace uses of from by to only at users after `after` in program order
 * (users inside later nodes' blocks count); used by renaming passes. */
void ir_replace_uses_after(IrValue *from, IrValue *to, IrNode *after);

/* ---------------------------------------------------------------- walking */

IrNode *ir_block_first(const IrBlock *b);   /* first real node, or b->ret */
static inline IrNode *ir_node_next(const IrNode *n) { return n->next; }
static inline bool ir_node_is_end(const IrNode *n) { return n->kind && n->op == OP_PRIM_RETURN; }
#define IR_FOREACH_NODE(n, b) \
    for (IrNode *n = ir_block_first(b); n->op != OP_PRIM_RETURN; n = n->next)
static inline int ir_block_nparams(const IrBlock *b) { return b->param->noutputs; }
static inline IrValue *ir_block_param(const IrBlock *b, int i) { return b->param->outputs[i]; }
static inline int ir_block_nreturns(const IrBlock *b) { return b->ret->ninputs; }
static inline IrValue *ir_block_return(const IrBlock *b, int i) { return b->ret->inputs[i]; }
/* True when a is before b in program order (both in the same graph); a node
 * inside a block of b counts as after b's position only if b contains it. */
bool ir_node_is_before(const IrNode *a, const IrNode *b);
/* The first prim::Print or aten::warn that n is or holds in its nested
 * blocks (messages on stderr/stdout: host actions whose order matters but
 * that make no value), or NULL. */
const IrNode *ir_node_prints(const IrNode *n);
/* Depth-first pre-order visit of every node in b and its nested blocks. */
typedef void (*IrNodeVisitor)(IrNode *n, void *ctx);
void ir_walk(IrBlock *b, IrNodeVisitor visit, void *ctx);
size_t ir_graph_count_nodes(const IrGraph *g);

/* ---------------------------------------------------------------- checking */

/* Checks the invariants every pass relies on: each use is dominated by its
 * definition (earlier in the same or an enclosing block), use lists match
 * inputs exactly, prim::If has 2 blocks returning as many values as it has
 * outputs, prim::Loop has 1 block with (iter, carried...) params returning
 * (cond, carried...), no input refers to a destroyed node, names are unique.
 * On failure writes one message per problem to err (may be NULL) and returns
 * false. */
bool ir_verify(IrGraph *g, FILE *err);

/* Objects of TorchScript classes created by the program (prim::CreateObject)
 * and used only through prim::SetAttr in their own block and prim::GetAttr
 * below it are replaced by their attributes' values: each read takes the
 * value of the last write of its name (ir/fresh_objects.c). Other objects
 * are left as they are. Returns how many objects went. */
int ir_replace_fresh_objects(IrGraph *g);

/* Checks the graph against the op table (ir/check_ops.c): every node's op
 * that must run (on the top block's path, or in the If branch that a
 * condition known from constants and the input ranks selects) is one the
 * table lists (an unknown op where a run may not reach it fails only when
 * reached, at run time), and an op that
 * only makes tensors declares no result of another type (%y : int =
 * aten::relu(%x) is refused). Ops that double as Python builtins on
 * numbers, lists or strings (op_has_builtin_forms) may return either.
 * Writes "FILE:LINE:COL: error: WHAT" per problem and returns false. */
/* input_ranks[i]: the rank of the tensor bound to graph input i, or -1 (not
 * a tensor, or not bound); NULL when nothing is bound. */
bool ir_check_ops(const IrGraph *g, const int *input_ranks, int ninput_ranks, FILE *err);

/* ---------------------------------------------------------------- for readers */
/* What a reader of graph text (frontend/parser.c) needs beyond the building
 * API above: lookups by (pointer, length) so the parser needs no temporary
 * copies, one-probe output naming, and the verifier's report hook so a
 * broken invariant becomes an error located at the offending node. */

const char *ir_intern_n(IrGraph *g, const char *s, size_t len);
IrValue *ir_graph_lookup_n(IrGraph *g, const char *name, size_t len);
/* The graph takes over one reference to t (released by ir_graph_free). */
void ir_graph_own_tensor(IrGraph *g, struct Tensor *t);
/* Adds an output named exactly name[0..len) to n when no live value has
 * that name; otherwise adds nothing and returns NULL with the holder of the
 * name in *taken. One hash probe: the parser's hot path. */
IrValue *ir_node_add_output_exact(IrNode *n, IrType *type, const char *name, size_t len,
                                  IrValue **taken);

/* Called once per problem ir_verify finds; `where` is the node at fault
 * (never NULL: a block problem names the block's owner or the graph's
 * return node). */
typedef void (*IrVerifyReport)(void *ctx, const IrNode *where, const char *message);
bool ir_verify_report(IrGraph *g, IrVerifyReport report, void *ctx);

/* Appends the TorchScript spelling of t to a buffer. */
void ir_type_format(TextBuf *sb, const IrType *t);

#endif
