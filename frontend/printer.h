/* printer.h — the printer's formatting functions, for the parser (which
 * compares an attribute's source text with its canonical spelling to decide
 * whether to keep the source text) and for tests. Private to frontend/. */
#ifndef TSSA_FRONTEND_PRINTER_H
#define TSSA_FRONTEND_PRINTER_H

#include "tssa/ir.h"
#include "tssa/util.h"

void ir_format_double(TextBuf *tb, double v);
void ir_format_string_literal(TextBuf *tb, const char *s);
/* The value part of an attribute (its spelling, when it kept one). */
void ir_format_attr_value(TextBuf *tb, const IrAttr *a);
/* One node and its blocks; `indent` spaces before the node (2 at top level). */
void ir_format_node(TextBuf *tb, const IrNode *n, int indent);
void ir_format_graph(TextBuf *tb, const IrGraph *g);

#endif
