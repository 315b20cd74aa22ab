/* ops_immut.h — the bindings of TensorSSA's immutable ops (ops_immut.c):
 * immut::<view> (access), immut::<view>_rev (assign) and immut::assign.
 */
#ifndef TSSA_EVAL_OPS_IMMUT_H
#define TSSA_EVAL_OPS_IMMUT_H

#include "eval/eval_internal.h"

/* The binding of an immut:: op (OPC_ACCESS or OPC_ASSIGN in the op table),
 * or NULL for any other op. dispatch.c consults it for those classes. */
EvalOpFn eval_immut_binding(OpId op);

#endif
