/* shapes.h — static shape and dtype inference on a specialized program
 * (kernels/shape_infer.c; the queries shape_of, shape_same and shape_count
 * read its types back: kernels/shape_query.c).
 *
 * After lower_specialize every scalar the program computes from its bound
 * inputs' sizes is a compile-time value, so most tensors have a shape and a
 * dtype known before anything runs. shape_infer works them out, op by op,
 * with PyTorch's rules (broadcasting, type promotion, views, reductions,
 * products, convolutions, creation ops), and writes them into the graph as
 * refined tensor types (Float(64, 128)), which the printer shows. A value
 * whose shape depends on data (nonzero, masked_select, a loop whose carried
 * shape changes per iteration) or on an op without a rule keeps what it had
 * (sizes it cannot know print as '*'); shape_of says NULL for it.
 */
#ifndef TSSA_SHAPES_H
#define TSSA_SHAPES_H

#include <stdbool.h>
#include <stdio.h>

#include "tssa/ir.h"
#include "tssa/lower.h"
#include "tssa/value.h"

/* Refines the type of every tensor-valued IrValue of lower_ir_graph(p),
 * nested blocks included. `inputs` are the bound graph inputs. A rule that
 * does not hold for these shapes (operands that do not broadcast, a view of
 * the wrong element count, mm's inner sizes) leaves its value unknown: the
 * node then runs on the reference kernels and fails with PyTorch's message,
 * its node and source line (exit status 1), as it would without fusion.
 * Returns true (*status 0); err and status are kept for passes to come that
 * may refuse a program before it runs. */
bool shape_infer(LowerProgram *p, RtValue **inputs, int ninputs, FILE *err, int *status);

/* v's type when it is a tensor whose dtype and every size are known, else NULL. */
const IrTensorType *shape_of(const IrValue *v);

/* Whether a and b are tensors of the same static dtype and sizes. */
bool shape_same(const IrValue *a, const IrValue *b);

/* Tensor-typed values of g (block parameters and node outputs, nested
 * blocks included) whose type shape_of knows, and those it does not. */
void shape_count(const IrGraph *g, int *refined, int *unknown);

#endif
