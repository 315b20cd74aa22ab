/* gen_graph_text.h — writes synthetic TorchScript graph text of a chosen
 * size, for the parser benchmark (header-only: experiments build each
 * bench_*.c on its own).
 *
 * The graph repeats one "layer" shaped like real model code: constants, a
 * ListConstruct, a chain of views (slice, select, view, transpose) with an
 * in-place add_ through one of them, a matmul, a prim::If with two blocks,
 * and a prim::Loop carrying a tensor through three iterations. Values carry
 * refined tensor types (Float(64, 128, strides=[128, 1], ...)) and source
 * comments, as torch prints them. Each layer reads the previous layer's
 * result, so the text is one long dependency chain, as a deep model is.
 * Layers are added until the node count (nested nodes included) reaches the
 * target; the exact count is returned.
 */
#ifndef TSSA_EXPERIMENTS_GEN_GRAPH_TEXT_H
#define TSSA_EXPERIMENTS_GEN_GRAPH_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct GenText {
    char *data;
    size_t len, cap;
    long nodes;
    long line;
} GenText;

static void gen_printf(GenText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void gen_printf(GenText *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            break;
        }
        t->cap = t->cap * 2 + (size_t)n + 1;
        t->data = realloc(t->data, t->cap);
        if (!t->data) {
            fprintf(stderr, "out of memory generating graph text\n");
            exit(1);
        }
    }
}

/* One node line: counts the node and its source line. */
static void gen_node(GenText *t, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void gen_node(GenText *t, int indent, const char *fmt, ...)
{
    char body[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    t->nodes++;
    t->line++;
    gen_printf(t, "%*s%s # model.py:%ld:8\n", indent, "", body, t->line % 5000 + 1);
}

#define GEN_F2(a, b) "Float(" #a ", " #b ", strides=[" #b ", 1], requires_grad=0, device=cpu)"

/* Appends a graph of at least `target` nodes to t (t zero-initialized).
 * Inline: benchmarks that only use gen_node need not call it. */
static inline void gen_graph_text(GenText *t, long target)
{
    gen_printf(t, "graph(%%x.1 : " GEN_F2(64, 128) ",\n"
                  "      %%w.1 : " GEN_F2(128, 128) ",\n"
                  "      %%n.1 : int):\n");
    gen_node(t, 2, "%%true : bool = prim::Constant[value=1]()");
    gen_node(t, 2, "%%n64 : int = prim::Constant[value=64]()");
    gen_node(t, 2, "%%n128 : int = prim::Constant[value=128]()");
    const char *prev = "x.1";
    char prev_buf[32];
    for (long i = 0; t->nodes < target; i++) {
        gen_node(t, 2, "%%%ld : int = prim::Constant[value=0]()", 10 * i + 1);
        gen_node(t, 2, "%%%ld : int = prim::Constant[value=1]()", 10 * i + 2);
        gen_node(t, 2, "%%%ld : float = prim::Constant[value=0.5]()", 10 * i + 3);
        gen_node(t, 2, "%%%ld : float = prim::Constant[value=1.0000000000000001e-05]()", 10 * i + 4);
        gen_node(t, 2, "%%shape.%ld : int[] = prim::ListConstruct(%%n64, %%n128)", i);
        gen_node(t, 2, "%%sl.%ld : " GEN_F2(32, 128) " = aten::slice(%%%s, %%%ld, %%%ld, %%n64, %%%ld)",
                 i, prev, 10 * i + 1, 10 * i + 1, 10 * i + 2);
        gen_node(t, 2, "%%row.%ld : Float(128, strides=[1], requires_grad=0, device=cpu) = "
                       "aten::select(%%sl.%ld, %%%ld, %%%ld)", i, i, 10 * i + 1, 10 * i + 2);
        gen_node(t, 2, "%%v.%ld : " GEN_F2(64, 128) " = aten::view(%%%s, %%shape.%ld)", i, prev, i);
        gen_node(t, 2, "%%t.%ld : Float(128, 64, strides=[1, 128], requires_grad=0, device=cpu) = "
                       "aten::transpose(%%v.%ld, %%%ld, %%%ld)", i, i, 10 * i + 1, 10 * i + 2);
        gen_node(t, 2, "%%a.%ld : Tensor = aten::add_(%%row.%ld, %%%ld, %%%ld)", i, i,
                 10 * i + 3, 10 * i + 2);
        gen_node(t, 2, "%%m.%ld : " GEN_F2(64, 128) " = aten::matmul(%%%s, %%w.1)", i, prev);
        gen_node(t, 2, "%%c.%ld : bool = aten::gt(%%n.1, %%%ld)", i, 10 * i + 2);
        gen_node(t, 2, "%%r.%ld : Tensor = prim::If(%%c.%ld)", i, i);
        gen_printf(t, "    block0():\n");
        gen_node(t, 6, "%%b.%ld : Tensor = aten::relu(%%m.%ld)", i, i);
        gen_printf(t, "      -> (%%b.%ld)\n    block1():\n", i);
        gen_node(t, 6, "%%e.%ld : Tensor = aten::neg(%%m.%ld)", i, i);
        gen_printf(t, "      -> (%%e.%ld)\n", i);
        gen_node(t, 2, "%%h.%ld : Tensor = prim::Loop(%%n.1, %%true, %%r.%ld)", i, i);
        gen_printf(t, "    block0(%%it.%ld : int, %%acc.%ld : Tensor):\n", i, i);
        gen_node(t, 6, "%%s.%ld : Tensor = aten::mul(%%acc.%ld, %%%ld)", i, i, 10 * i + 3);
        gen_node(t, 6, "%%u.%ld : Tensor = aten::add(%%s.%ld, %%t.%ld, %%%ld)", i, i, i, 10 * i + 4);
        gen_printf(t, "      -> (%%true, %%u.%ld)\n", i);
        snprintf(prev_buf, sizeof prev_buf, "h.%ld", i);
        prev = prev_buf;
    }
    gen_printf(t, "  return (%%%s)\n", prev);
}

#endif
