/* printer.c — writes a graph as TorchScript prints it (torch/csrc/jit/ir's
 * Graph::print and Node::print), so the output reads back with ir_parse and
 * matches what torch printed, byte for byte, for graphs read from it.
 *
 *   graph(%x.1 : Tensor,                 inputs joined by ",\n      "
 *         %n : int):
 *     %a : Tensor = aten::relu(%x.1) # f.py:3:8
 *     %b : Tensor = prim::If(%c)         a node at indent I (2 at top)
 *       block0():                        its blocks at I + 2
 *         -> (%a)                        block bodies and "->" at I + 4
 *       block1():
 *         -> (%x.1)
 *     return (%b)
 *
 * A node with no outputs prints its indent, then " = ". Traced graphs add
 * ", scope: NAME" after the inputs, kept in IrNode.scope. Attributes print in
 * their order as [name=value, ...]; one that kept its spelling from the
 * input (because the canonical form below would differ) prints that text.
 * Floats follow c10's IValue repr: integral values below 1e10 as "2.",
 * others with 17 significant digits ("1.0000000000000001e-05", "inf").
 * Everything is formatted into one buffer, flushed to the FILE in chunks.
 */
#include <math.h>
#include <stdio.h>

#include "frontend/frontend_internal.h"
#include "frontend/printer.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/util.h"

void ir_format_double(TextBuf *tb, double v)
{
    int cls = fpclassify(v);
    if ((cls == FP_NORMAL || cls == FP_ZERO) && fabs(v) < 1e10) {
        int64_t i = (int64_t)v;
        if ((double)i == v) {
            /* -0.0 must read back as a negative zero. */
            if (i == 0 && signbit(v))
                textbuf_putc(tb, '-');
            textbuf_int(tb, i);
            textbuf_putc(tb, '.');
            return;
        }
    }
    if (isnan(v)) {
        textbuf_puts(tb, "nan");
        return;
    }
    if (isinf(v)) {
        textbuf_puts(tb, v < 0 ? "-inf" : "inf");
        return;
    }
    textbuf_printf(tb, "%.17g", v);
}

void ir_print_double(FILE *out, double v)
{
    TextBuf tb;
    textbuf_init(&tb, out);
    ir_format_double(&tb, v);
    textbuf_release(&tb);
}

void ir_format_string_literal(TextBuf *tb, const char *s)
{
    textbuf_putc(tb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': textbuf_puts(tb, "\\\\"); break;
        case '"': textbuf_puts(tb, "\\\""); break;
        case '\'': textbuf_puts(tb, "\\'"); break;
        case '\a': textbuf_puts(tb, "\\a"); break;
        case '\b': textbuf_puts(tb, "\\b"); break;
        case '\f': textbuf_puts(tb, "\\f"); break;
        case '\n': textbuf_puts(tb, "\\n"); break;
        case '\r': textbuf_puts(tb, "\\r"); break;
        case '\t': textbuf_puts(tb, "\\t"); break;
        case '\v': textbuf_puts(tb, "\\v"); break;
        default:
            /* Control bytes as three-digit octal, as c10 prints them; bytes
             * of multi-byte UTF-8 characters stay as they are. */
            if (*p < 0x20 || *p == 0x7f)
                textbuf_printf(tb, "\\%03o", *p);
            else
                textbuf_putc(tb, (char)*p);
        }
    }
    textbuf_putc(tb, '"');
}

void ir_format_attr_value(TextBuf *tb, const IrAttr *a)
{
    if (a->spelling) {
        textbuf_puts(tb, a->spelling);
        return;
    }
    switch (a->kind) {
    case ATTR_INT:
        textbuf_int(tb, a->u.i);
        return;
    case ATTR_FLOAT:
        ir_format_double(tb, a->u.f);
        return;
    case ATTR_STR:
        ir_format_string_literal(tb, a->u.s ? a->u.s : "");
        return;
    case ATTR_INTS:
    case ATTR_FLOATS:
    case ATTR_STRS:
        textbuf_putc(tb, '[');
        for (int i = 0; i < a->n; i++) {
            if (i)
                textbuf_puts(tb, ", ");
            if (a->kind == ATTR_INTS)
                textbuf_int(tb, a->u.is[i]);
            else if (a->kind == ATTR_FLOATS)
                ir_format_double(tb, a->u.fs[i]);
            else
                ir_format_string_literal(tb, a->u.ss[i] ? a->u.ss[i] : "");
        }
        textbuf_putc(tb, ']');
        return;
    case ATTR_TENSOR:
        textbuf_puts(tb, a->u.t.text ? a->u.t.text : "<Tensor>");
        return;
    case ATTR_RAW:
        textbuf_puts(tb, a->u.raw ? a->u.raw : "");
        return;
    }
}

static void format_value_ref(TextBuf *tb, const IrValue *v)
{
    textbuf_putc(tb, '%');
    textbuf_puts(tb, v->name);
}

static void format_refs(TextBuf *tb, IrValue *const *vals, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            textbuf_puts(tb, ", ");
        format_value_ref(tb, vals[i]);
    }
}

static void format_typed(TextBuf *tb, IrValue *const *vals, int n, const char *sep)
{
    for (int i = 0; i < n; i++) {
        if (i)
            textbuf_puts(tb, sep);
        format_value_ref(tb, vals[i]);
        textbuf_puts(tb, " : ");
        ir_type_format(tb, vals[i]->type);
    }
}

void ir_format_node(TextBuf *tb, const IrNode *n, int indent)
{
    textbuf_spaces(tb, indent);
    format_typed(tb, n->outputs, n->noutputs, ", ");
    textbuf_puts(tb, " = ");
    textbuf_puts(tb, n->kind);
    if (n->nattrs) {
        textbuf_putc(tb, '[');
        for (int i = 0; i < n->nattrs; i++) {
            if (i)
                textbuf_puts(tb, ", ");
            textbuf_puts(tb, n->attrs[i].name);
            textbuf_putc(tb, '=');
            ir_format_attr_value(tb, &n->attrs[i]);
        }
        textbuf_putc(tb, ']');
    }
    textbuf_putc(tb, '(');
    format_refs(tb, n->inputs, n->ninputs);
    textbuf_putc(tb, ')');
    if (n->scope) {
        textbuf_puts(tb, ", scope: ");
        textbuf_puts(tb, n->scope);
    }
    if (n->comment) {
        textbuf_puts(tb, " # ");
        textbuf_puts(tb, n->comment);
    }
    textbuf_putc(tb, '\n');
    for (int b = 0; b < n->nblocks; b++) {
        const IrBlock *blk = n->blocks[b];
        textbuf_spaces(tb, indent + 2);
        textbuf_puts(tb, "block");
        textbuf_int(tb, b);
        textbuf_putc(tb, '(');
        format_typed(tb, blk->param->outputs, blk->param->noutputs, ", ");
        textbuf_puts(tb, "):\n");
        for (const IrNode *m = blk->param->next; m != blk->ret; m = m->next)
            ir_format_node(tb, m, indent + 4);
        textbuf_spaces(tb, indent + 4);
        textbuf_puts(tb, "-> (");
        format_refs(tb, blk->ret->inputs, blk->ret->ninputs);
        textbuf_puts(tb, ")\n");
    }
}

void ir_format_graph(TextBuf *tb, const IrGraph *g)
{
    const IrBlock *top = g->top;
    textbuf_puts(tb, "graph(");
    format_typed(tb, top->param->outputs, top->param->noutputs, ",\n      ");
    textbuf_puts(tb, "):\n");
    for (const IrNode *n = top->param->next; n != top->ret; n = n->next)
        ir_format_node(tb, n, 2);
    textbuf_puts(tb, "  return (");
    format_refs(tb, top->ret->inputs, top->ret->ninputs);
    textbuf_puts(tb, ")\n");
}

void ir_print(FILE *out, const IrGraph *g)
{
    TextBuf tb;
    textbuf_init(&tb, out);
    ir_format_graph(&tb, g);
    textbuf_release(&tb);
}

void ir_print_node(FILE *out, const IrNode *n, int indent)
{
    TextBuf tb;
    textbuf_init(&tb, out);
    ir_format_node(&tb, n, indent);
    textbuf_release(&tb);
}
