/* eval_ops.h — the op bindings of the evaluator. Each takes an EvalCall
 * (eval_internal.h) and returns false after recording what went wrong.
 *
 * The bindings are not listed here: each op's row in the op table
 * (include/tssa/ops.h, its `eval` column) names its binding, and this header
 * expands the table into their prototypes, as dispatch.c expands it into the
 * table from OpId to binding. A binding shared by several rows
 * (eval_op_false_query) is declared once per row, which C allows. The
 * eval_* helpers at the end serve several bindings (the same op name is a
 * tensor op or a Python builtin depending on its arguments).
 */
#ifndef TSSA_EVAL_OPS_H
#define TSSA_EVAL_OPS_H

#include "eval/eval_internal.h"
#include "tssa/ops.h"

/* EVAL_IF_BOUND(eval, tokens...): the tokens, unless the row's eval column
 * is NOEVAL, then nothing. NOEVAL is told apart by pasting it onto
 * EVAL_PROBE_: only EVAL_PROBE_NOEVAL is a macro, and its expansion shifts
 * a 1 into the place EVAL_SECOND picks, where any other name leaves the 0. */
#define EVAL_PROBE_NOEVAL ~, 1
#define EVAL_SECOND_(a, b, ...) b
#define EVAL_SECOND(...) EVAL_SECOND_(__VA_ARGS__)
#define EVAL_IS_NOEVAL(eval) EVAL_SECOND(EVAL_PROBE_##eval, 0, ~)
#define EVAL_CAT_(a, b) a##b
#define EVAL_CAT(a, b) EVAL_CAT_(a, b)
#define EVAL_IF_BOUND_0(...) __VA_ARGS__
#define EVAL_IF_BOUND_1(...)
#define EVAL_IF_BOUND(eval, ...) EVAL_CAT(EVAL_IF_BOUND_, EVAL_IS_NOEVAL(eval))(__VA_ARGS__)

/* One prototype per row with a binding: bool eval_op_<eval>(EvalCall *c); */
#define EVAL_DECLARE_BINDING(id, name, cls, mut, alias, eval) \
    EVAL_IF_BOUND(eval, bool eval_op_##eval(EvalCall *c);)
TSSA_OPS(EVAL_DECLARE_BINDING)
#undef EVAL_DECLARE_BINDING

/* ops_dict.c: the dict forms of ops shared with lists (scalar_ops.c calls them). */
bool eval_dict_getitem(EvalCall *c); bool eval_dict_set_item(EvalCall *c);
bool eval_dict_pop(EvalCall *c); bool eval_dict_contains(EvalCall *c);
bool eval_dict_len(EvalCall *c); bool eval_dict_clear(EvalCall *c);
bool eval_dict_delete(EvalCall *c);
/* scalar_ops.c: l *= n on a list (aten::mul_'s list form). */
bool eval_list_repeat_in_place(EvalCall *c);

/* ops_str.c */
bool eval_str_split(EvalCall *c);

/* scalar_ops.c */
bool eval_scalar_op(EvalCall *c);
bool eval_sequence_slice(EvalCall *c);
bool eval_list_index_of(EvalCall *c);
bool eval_list_reduce(EvalCall *c);

#endif
