/* ir_private.h — what the frontend's own files share beyond ir.h: lookups
 * by (pointer, length) so the parser needs no temporary copies, and the
 * verifier's report hook so the parser can turn a broken invariant into an
 * error located at the offending node. Not for use outside frontend/.
 */
#ifndef TSSA_FRONTEND_IR_PRIVATE_H
#define TSSA_FRONTEND_IR_PRIVATE_H

#include <stddef.h>

#include "tssa/ir.h"

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

/* Appends the TorchScript spelling of t to a buffer (types.c). */
struct TextBuf;
void ir_type_format(struct TextBuf *sb, const IrType *t);

/* Fills a (name already set) from the raw text of its value (attrtext.c). */
void ir_attr_from_text(IrGraph *g, IrAttr *a, const char *text, size_t len);

/* The data of a tensor constant printed as {v} or as a small repr, or NULL
 * (<Tensor>, or text it cannot read); `type` is the constant's output type
 * (tensor_text.c). The caller owns the result. */
struct Tensor *ir_tensor_from_text(const char *text, const IrType *type);

#endif
