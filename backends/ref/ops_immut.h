/* ops_immut.h — the ref bindings of TensorSSA's immutable ops (ops_immut.c):
 * immut::<view> (access), immut::<view>_rev (assign) and immut::assign.
 */
#ifndef TSSA_REF_OPS_IMMUT_H
#define TSSA_REF_OPS_IMMUT_H

#include "backends/ref/ref.h"

/* The binding of an immut:: op (OPC_ACCESS or OPC_ASSIGN in the op table),
 * or NULL for any other op. dispatch.c consults it for those classes. */
RefOpFn ref_immut_binding(OpId op);

#endif
