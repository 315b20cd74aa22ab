/* view_steps.c — re-creating one step of a view chain as immut:: ops.
 *
 * Alias analysis records, for every view, its parent and the step that made
 * it: an aten view op (select, slice, t, ...), an identity (alias, detach,
 * unchecked_cast), or one piece of a chunk/split/unbind list. Rewriting a
 * mutation needs two things per step, both as copies: the access (the
 * parent's region, immut::<view>(parent, args...)) and the assign (the
 * parent with that region replaced, immut::<view>_rev(parent, src, args...)).
 *
 * Pieces have no view op of their own; they are expressed through the op
 * that selects the same region: unbind piece k is select(dim, k); a split
 * or chunk piece is slice(dim, start, end, 1), with start and end computed
 * from the piece size (constants where the sizes are constant, otherwise
 * int arithmetic on aten::size, emitted once after the chunk node; slice
 * clamps the last piece's end exactly as chunk and split shorten it).
 */
#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

OpId tssa_access_op_of_view(OpId view)
{
    switch (view) {
    case OP_ATEN_SELECT: return OP_IMMUT_SELECT;
    case OP_ATEN_SLICE: return OP_IMMUT_SLICE;
    case OP_ATEN_SQUEEZE: return OP_IMMUT_SQUEEZE;
    case OP_ATEN_UNSQUEEZE: return OP_IMMUT_UNSQUEEZE;
    case OP_ATEN_VIEW: return OP_IMMUT_VIEW;
    case OP_ATEN_RESHAPE: return OP_IMMUT_RESHAPE;
    case OP_ATEN_EXPAND: return OP_IMMUT_EXPAND;
    case OP_ATEN_EXPAND_AS: return OP_IMMUT_EXPAND_AS;
    case OP_ATEN_PERMUTE: return OP_IMMUT_PERMUTE;
    case OP_ATEN_TRANSPOSE: return OP_IMMUT_TRANSPOSE;
    case OP_ATEN_T: return OP_IMMUT_T;
    case OP_ATEN_NARROW: return OP_IMMUT_NARROW;
    case OP_ATEN_DIAGONAL: return OP_IMMUT_DIAGONAL;
    default: return OP_UNKNOWN;
    }
}

OpId tssa_assign_op_of_access(OpId access)
{
    switch (access) {
    case OP_IMMUT_SELECT: return OP_IMMUT_SELECT_REV;
    case OP_IMMUT_SLICE: return OP_IMMUT_SLICE_REV;
    case OP_IMMUT_SQUEEZE: return OP_IMMUT_SQUEEZE_REV;
    case OP_IMMUT_UNSQUEEZE: return OP_IMMUT_UNSQUEEZE_REV;
    case OP_IMMUT_VIEW: return OP_IMMUT_VIEW_REV;
    case OP_IMMUT_RESHAPE: return OP_IMMUT_RESHAPE_REV;
    case OP_IMMUT_EXPAND: return OP_IMMUT_EXPAND_REV;
    case OP_IMMUT_EXPAND_AS: return OP_IMMUT_EXPAND_AS_REV;
    case OP_IMMUT_REPEAT: return OP_IMMUT_REPEAT_REV;
    case OP_IMMUT_PERMUTE: return OP_IMMUT_PERMUTE_REV;
    case OP_IMMUT_TRANSPOSE: return OP_IMMUT_TRANSPOSE_REV;
    case OP_IMMUT_T: return OP_IMMUT_T_REV;
    case OP_IMMUT_NARROW: return OP_IMMUT_NARROW_REV;
    case OP_IMMUT_DIAGONAL: return OP_IMMUT_DIAGONAL_REV;
    case OP_IMMUT_INDEX: return OP_IMMUT_INDEX_REV;
    default: return OP_UNKNOWN;
    }
}

/* aten::split(x, int[] sizes, dim) is split_with_sizes under another name. */
static bool split_has_size_list(const IrNode *n)
{
    return n->op == OP_ATEN_SPLIT_WITH_SIZES ||
           (n->ninputs > 1 && n->inputs[1]->type && n->inputs[1]->type->kind == TY_LIST);
}

enum { MAX_SPLIT_PIECES = 4096 };

bool tssa_step_supported(const TssaStep *s, const char **why)
{
    switch (s->kind) {
    case TSSA_STEP_NONE:
    case TSSA_STEP_IDENTITY:
        return true;
    case TSSA_STEP_VIEW:
        if (tssa_access_op_of_view(s->node->op) != OP_UNKNOWN)
            return true;
        *why = s->node->kind;
        return false;
    case TSSA_STEP_PIECE:
        if (s->index && split_has_size_list(s->node))
            break;
        switch (s->node->op) {
        case OP_ATEN_UNBIND:
        case OP_ATEN_CHUNK:
            return s->node->ninputs >= 2;
        case OP_ATEN_SPLIT:
        case OP_ATEN_SPLIT_WITH_SIZES:
            if (s->node->ninputs < 2)
                break;
            if (split_has_size_list(s->node)) {
                int64_t sizes[MAX_SPLIT_PIECES];
                int n;
                if (!tssa_const_int_list(s->node->inputs[1], sizes, MAX_SPLIT_PIECES, &n) ||
                    s->piece >= n)
                    break;
            }
            return true;
        default:
            break;
        }
        *why = s->node->kind;
        return false;
    }
    return false;
}

/* The dim argument of a list-making op: input 2 for chunk/split, 1 for
 * unbind, and 0 when absent (their schema default). */
static IrValue *piece_dim(IrGraph *g, const IrNode *n, IrNode *pos)
{
    int at = n->op == OP_ATEN_UNBIND ? 1 : 2;
    if (n->ninputs > at)
        return n->inputs[at];
    return tssa_emit_int(g, pos, 0);
}

static IrValue *emit_int_op(IrGraph *g, IrNode *pos, OpId op, IrValue *a, IrValue *b)
{
    IrValue *in[2] = {a, b};
    return tssa_emit_node(g, pos, op, in, 2, ir_type_simple(g, TY_INT), NULL);
}

/* The piece size of aten::chunk(x, chunks, dim), ceil(size(x, dim) / chunks),
 * computed once, right after the chunk node (every version of x has x's
 * shape, so one computation serves every access and assign of its pieces);
 * remembered in the chunk node's aux, which rewrite_mutation clears. */
static IrValue *chunk_size(IrGraph *g, IrNode *chunk)
{
    if (chunk->aux)
        return chunk->aux;
    IrNode *pos = chunk->next;
    IrValue *size_in[2] = {chunk->inputs[0], piece_dim(g, chunk, pos)};
    IrValue *size = tssa_emit_node(g, pos, OP_ATEN_SIZE, size_in, 2, ir_type_simple(g, TY_INT), NULL);
    IrValue *chunks = chunk->inputs[1];
    IrValue *up = emit_int_op(g, pos, OP_ATEN_ADD, size, chunks);
    up = emit_int_op(g, pos, OP_ATEN_SUB, up, tssa_emit_int(g, pos, 1));
    IrValue *piece_size = emit_int_op(g, pos, OP_ATEN_FLOORDIV, up, chunks);
    chunk->aux = piece_size;
    return piece_size;
}

static IrValue *emit_str(IrGraph *g, IrNode *pos, const char *text)
{
    IrNode *n = ir_node_new_op(g, OP_PRIM_CONSTANT);
    ir_attr_set_str(n, "value", text);
    IrValue *v = ir_node_add_output(n, ir_type_simple(g, TY_STR), NULL);
    ir_insert_before(n, pos);
    return v;
}

/* The piece a run-time index k names in the list of views n made, before
 * pos: k % len(list), after raising as the list's __getitem__ does where
 * k is outside -len..len-1 (floor(k / len) is then neither 0 nor -1). */
static IrValue *piece_index(IrGraph *g, const TssaStep *s, IrNode *pos)
{
    IrValue *list = s->node->outputs[0], *k = s->index;
    IrValue *len = tssa_emit_node(g, pos, OP_ATEN_LEN, &list, 1, ir_type_simple(g, TY_INT), NULL);
    IrValue *q = emit_int_op(g, pos, OP_ATEN_FLOORDIV, k, len);
    IrValue *q1 = emit_int_op(g, pos, OP_ATEN_ADD, q, tssa_emit_int(g, pos, 1));
    IrValue *qq = emit_int_op(g, pos, OP_ATEN_MUL, q, q1);
    IrValue *cmp[2] = {qq, tssa_emit_int(g, pos, 0)};
    IrValue *bad = tssa_emit_node(g, pos, OP_ATEN_NE, cmp, 2, ir_type_simple(g, TY_BOOL), NULL);
    IrNode *check = ir_node_new_op(g, OP_PRIM_IF);
    ir_node_add_input(check, bad);
    IrBlock *raise = ir_node_add_block(check);
    ir_node_add_block(check);
    ir_insert_before(check, pos);
    IrNode *r = ir_node_new_op(g, OP_PRIM_RAISEEXCEPTION);
    ir_node_add_input(r, emit_str(g, raise->ret, "IndexError: list index out of range"));
    IrNode *none = ir_node_new_op(g, OP_PRIM_CONSTANT);
    IrValue *nonev = ir_node_add_output(none, ir_type_simple(g, TY_NONE), NULL);
    ir_insert_before(none, raise->ret);
    ir_node_add_input(r, nonev);
    ir_insert_before(r, raise->ret);
    check->comment = pos->comment;
    check->line = pos->line;
    return emit_int_op(g, pos, OP_ATEN_REMAINDER, k, len);
}

/* The access op and its arguments (after the parent) selecting piece
 * s->piece of the list made by s->node. Returns the argument count. */
static int piece_args(IrGraph *g, const TssaStep *s, IrValue *parent, IrNode *pos, OpId *op,
                      IrValue **args)
{
    const IrNode *n = s->node;
    int64_t k = s->piece;
    IrValue *dim = piece_dim(g, n, pos);
    IrValue *index = s->index ? piece_index(g, s, pos) : NULL;
    if (n->op == OP_ATEN_UNBIND) {
        *op = OP_IMMUT_SELECT;
        args[0] = dim;
        args[1] = index ? index : tssa_emit_int(g, pos, k);
        return 2;
    }
    IrValue *start, *end;
    if (index) {
        IrValue *piece_size = n->op == OP_ATEN_SPLIT ? n->inputs[1] : chunk_size(g, s->node);
        start = emit_int_op(g, pos, OP_ATEN_MUL, piece_size, index);
        end = emit_int_op(g, pos, OP_ATEN_ADD, start, piece_size);
    } else if (split_has_size_list(n)) {
        int64_t sizes[MAX_SPLIT_PIECES];
        int count = 0;
        tssa_const_int_list(n->inputs[1], sizes, MAX_SPLIT_PIECES, &count);
        int64_t at = 0;
        for (int i = 0; i < k && i < count; i++)
            at += sizes[i];
        start = tssa_emit_int(g, pos, at);
        end = tssa_emit_int(g, pos, at + (k < count ? sizes[k] : 0));
    } else {
        IrValue *piece_size = n->op == OP_ATEN_SPLIT ? n->inputs[1] : chunk_size(g, s->node);
        int64_t constant;
        if (tssa_const_int(piece_size, &constant)) {
            start = tssa_emit_int(g, pos, constant * k);
            end = tssa_emit_int(g, pos, constant * (k + 1));
        } else {
            start = k == 0 ? tssa_emit_int(g, pos, 0)
                           : emit_int_op(g, pos, OP_ATEN_MUL, piece_size, tssa_emit_int(g, pos, k));
            end = emit_int_op(g, pos, OP_ATEN_ADD, start, piece_size);
        }
    }
    *op = OP_IMMUT_SLICE;
    args[0] = dim;
    args[1] = start;
    args[2] = end;
    args[3] = tssa_emit_int(g, pos, 1);
    return 4;
}

enum { MAX_STEP_ARGS = 16 };

/* The access op of a step and its arguments after the parent. */
static int step_args(IrGraph *g, const TssaStep *s, IrValue *parent, IrNode *pos, OpId *op,
                     IrValue **args)
{
    if (s->kind == TSSA_STEP_PIECE)
        return piece_args(g, s, parent, pos, op, args);
    *op = tssa_access_op_of_view(s->node->op);
    int n = 0;
    for (int i = 1; i < s->node->ninputs && n < MAX_STEP_ARGS; i++)
        args[n++] = s->node->inputs[i];
    return n;
}

IrValue *tssa_step_access(IrGraph *g, const TssaStep *s, IrValue *parent, IrNode *pos,
                          IrType *type, const char *name)
{
    if (s->kind == TSSA_STEP_NONE || s->kind == TSSA_STEP_IDENTITY)
        return parent;
    IrValue *in[MAX_STEP_ARGS + 1];
    OpId op;
    in[0] = parent;
    int n = step_args(g, s, parent, pos, &op, in + 1);
    return tssa_emit_node(g, pos, op, in, n + 1, type, name);
}

IrValue *tssa_step_assign(IrGraph *g, const TssaStep *s, IrValue *parent, IrValue *src,
                          IrNode *pos, IrType *type, const char *name)
{
    IrValue *in[MAX_STEP_ARGS + 2];
    in[0] = parent;
    in[1] = src;
    if (s->kind == TSSA_STEP_NONE || s->kind == TSSA_STEP_IDENTITY)
        return tssa_emit_node(g, pos, OP_IMMUT_ASSIGN, in, 2, type, name);
    OpId op;
    int n = step_args(g, s, parent, pos, &op, in + 2);
    return tssa_emit_node(g, pos, tssa_assign_op_of_access(op), in, n + 2, type, name);
}
