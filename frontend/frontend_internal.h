/* frontend_internal.h — what the graph-text reader's files share (private to
 * frontend/): decoding an attribute's value and a tensor constant from their
 * text.
 */
#ifndef TSSA_FRONTEND_INTERNAL_H
#define TSSA_FRONTEND_INTERNAL_H

#include <stddef.h>

#include "tssa/ir.h"

/* Attribute values may nest brackets (ival tuples, lists of lists) this
 * deep; deeper is refused, so nothing that walks a value recursively later
 * (the evaluator's constant converter) can overflow the stack. */
#define ATTR_MAX_NESTING 256
#define ATTR_MAX_NESTING_TEXT "256"

/* Fills a (name already set) from the raw text of its value (attrtext.c).
 * Returns NULL, or what is wrong with the text (an integer literal beyond
 * int64, nesting beyond ATTR_MAX_NESTING) for the caller to report. */
const char *ir_attr_from_text(IrGraph *g, IrAttr *a, const char *text, size_t len);

/* The data of a tensor constant printed as {v} or as a small repr, or NULL
 * (<Tensor>, or text it cannot read); `type` is the constant's output type
 * (tensor_text.c). The caller owns the result. */
struct Tensor *ir_tensor_from_text(const char *text, const IrType *type);

#endif
