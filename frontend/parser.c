/* parser.c — reads TorchScript graph text into an IrGraph.
 *
 * Recursive descent over the tokens of lexer.c, one function per rule:
 *
 *   graph   := 'graph' '(' [param {',' param}] ')' ':' NL body 'return' '(' refs ')' NL
 *   param   := VALUE [':' type]
 *   body    := {stmt}                       (every line at one column)
 *   stmt    := [outs] '=' KIND [attrs] '(' refs ')' [COMMENT] NL {block}
 *   outs    := VALUE [':' type] {',' VALUE [':' type]}
 *   attrs   := '[' NAME '=' RAW {',' NAME '=' RAW} ']'
 *   block   := 'blockN' '(' [param {',' param}] ')' ':' NL body '->' '(' refs ')' NL
 *   type    := base {'[]' | '?'}
 *   base    := '(' types ')' | Tensor-like ['(' dims ')'] | Dict(..) | Union(..)
 *            | Future(..) | simple name | qualified class name | Other[(...)]
 *
 * Scoping is checked while reading: a value is visible from the end of its
 * node (after the node's blocks) or from the start of its block, until that
 * block ends. Using a value that is undefined or out of scope, defining a
 * name twice, wrong block arity of prim::If / prim::Loop, a line at the
 * wrong column, and a file that ends before its '-> (...)' or 'return' are
 * all errors located at the offending token. The finished graph is then run
 * through ir_verify as a last check. Any error unwinds (longjmp) to
 * ir_parse, which frees the half-built graph and returns NULL; all memory
 * used while parsing lives in the Parser or the graph's arena, so nothing
 * leaks on that path.
 *
 * Identical type texts share one IrType (a cache keyed by the text), which
 * keeps million-node graphs small and fast to read.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/lexer.h"
#include "tssa/diag.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

enum { MAX_BLOCK_DEPTH = 128, MAX_TYPE_DEPTH = 64, MAX_TENSOR_RANK = 64 };

typedef struct OutSpec {
    size_t offset;
    const char *name;
    size_t len;
    IrType *type;
} OutSpec;

typedef struct Parser {
    ParseFail fail;
    Lexer lx;
    IrGraph *g;
    StrMap type_cache;          /* type text -> IrType */
    IrType *default_type;       /* plain Tensor, for values written without a type */
    unsigned char *visible;     /* by value id */
    size_t visible_cap;
    IrValue **scope;            /* values defined in the open blocks, innermost last */
    size_t nscope, cap_scope;
    OutSpec *outs;              /* outputs of the statements being read */
    size_t nouts, cap_outs;
    int block_depth;
} Parser;

#define FAIL(p, off, ...) parse_fail_at(&(p)->fail, (off), __VA_ARGS__)

static void *grow_buffer(Parser *p, void *buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return buf;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *nb = realloc(buf, ncap * elem);
    if (!nb)
        diag_die("out of memory while parsing");
    if (elem == 1)
        memset((char *)nb + *cap, 0, ncap - *cap);
    *cap = ncap;
    return nb;
}

/* ---------------------------------------------------------------- tokens */

static bool is_punct(const Token *t, char c)
{
    return t->kind == TK_PUNCT && t->punct == c;
}

static bool is_ident(const Token *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == TK_IDENT && t->len == n && memcmp(t->text, word, n) == 0;
}

/* "block" followed by digits: a block header. */
static bool is_block_header(const Token *t)
{
    if (t->kind != TK_IDENT || t->len <= 5 || memcmp(t->text, "block", 5) != 0)
        return false;
    for (size_t i = 5; i < t->len; i++)
        if (t->text[i] < '0' || t->text[i] > '9')
            return false;
    return true;
}

static Token expect_punct(Parser *p, char c, const char *context)
{
    Token t = lex_next(&p->lx);
    if (!is_punct(&t, c)) {
        char buf[64];
        FAIL(p, t.start, "expected '%c' %s, found %s", c, context, tok_describe(&t, buf, sizeof buf));
    }
    return t;
}

/* The end of a line: an optional trailing comment, then NEWLINE or EOF.
 * Returns the comment (as a token) in *comment when asked. */
static void expect_line_end(Parser *p, const char *after, Token *comment)
{
    Token t = lex_next(&p->lx);
    if (comment)
        comment->kind = TK_EOF;
    if (t.kind == TK_COMMENT) {
        if (comment)
            *comment = t;
        t = lex_next(&p->lx);
    }
    if (t.kind != TK_NEWLINE && t.kind != TK_EOF) {
        char buf[64];
        FAIL(p, t.start, "expected the end of the line after %s, found %s", after,
             tok_describe(&t, buf, sizeof buf));
    }
}

/* ---------------------------------------------------------------- scope */

static void mark_visible(Parser *p, IrValue *v)
{
    p->visible = grow_buffer(p, p->visible, &p->visible_cap, (size_t)v->id + 1, 1);
    p->visible[v->id] = 1;
    p->scope = grow_buffer(p, p->scope, &p->cap_scope, p->nscope + 1, sizeof *p->scope);
    p->scope[p->nscope++] = v;
}

static void close_scope(Parser *p, size_t mark)
{
    while (p->nscope > mark)
        p->visible[p->scope[--p->nscope]->id] = 0;
}

static int value_line(const IrValue *v)
{
    return v->def ? (v->def->op == OP_PRIM_PARAM ? v->def->owner->line : v->def->line) : 0;
}

static IrValue *resolve(Parser *p, const Token *t)
{
    IrValue *v = ir_graph_lookup_n(p->g, t->text, t->len);
    if (!v)
        FAIL(p, t->start, "undefined value %%%.*s", (int)t->len, t->text);
    if (v->id >= p->visible_cap || !p->visible[v->id])
        FAIL(p, t->start, "%%%.*s is not visible here: it is defined on line %d inside a "
             "block that has ended", (int)t->len, t->text, value_line(v));
    return v;
}

/* Defines a value named by the text at `offset` as the next output of n. */
static IrValue *define(Parser *p, IrNode *n, const OutSpec *o)
{
    IrValue *old;
    IrValue *v = ir_node_add_output_exact(n, o->type ? o->type : p->default_type, o->name,
                                          o->len, &old);
    if (!v)
        FAIL(p, o->offset, "duplicate definition of %%%.*s (first defined on line %d)",
             (int)o->len, o->name, value_line(old));
    mark_visible(p, v);
    return v;
}

/* ---------------------------------------------------------------- types */

static IrType *parse_type_expr(Parser *p, int depth);

static bool adjacent(Parser *p, const Token *prev)
{
    const Token *t = lex_peek(&p->lx);
    return t->start == prev->start + prev->len;
}

static const char *const tensor_scalar_names[] = {
    "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf",
    "ComplexFloat", "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16",
    "QUInt4x2", "QUInt2x4", "Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16",
    "Float8_e5m2", "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz", "UInt16",
    "UInt32", "UInt64",
};

static int tensor_dtype_of(const Token *t)
{
    static const struct { const char *name; TensorDType dt; } map[] = {
        {"Bool", DT_BOOL}, {"Byte", DT_U8}, {"Char", DT_I8}, {"Short", DT_I16},
        {"Int", DT_I32}, {"Long", DT_I64}, {"Float", DT_F32}, {"Double", DT_F64},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (is_ident(t, map[i].name))
            return (int)map[i].dt;
    return -1;
}

static bool is_tensor_type_name(const Token *t)
{
    if (is_ident(t, "Tensor"))
        return true;
    for (size_t i = 0; i < sizeof tensor_scalar_names / sizeof tensor_scalar_names[0]; i++)
        if (is_ident(t, tensor_scalar_names[i]))
            return true;
    return false;
}

static int64_t parse_dim(Parser *p)
{
    Token t = lex_next(&p->lx);
    if (is_punct(&t, '*'))
        return -1;
    int64_t v = 0;
    if (t.kind == TK_NUMBER && t.len <= 18) {
        size_t i = 0;
        for (; i < t.len && t.text[i] >= '0' && t.text[i] <= '9'; i++)
            v = v * 10 + (t.text[i] - '0');
        if (i == t.len)
            return v;
    }
    char buf[64];
    FAIL(p, t.start, "expected a size (a number or '*') in a tensor type, found %s",
         tok_describe(&t, buf, sizeof buf));
}

/* '(' dims [, strides=[...]] [, requires_grad=N] [, device=D] ')' */
static void parse_tensor_details(Parser *p, IrTensorType *tt)
{
    int64_t sizes[MAX_TENSOR_RANK], strides[MAX_TENSOR_RANK];
    int rank = 0, nstrides = -1;
    Token open = expect_punct(p, '(', "to open a tensor type's details");
    if (!is_punct(lex_peek(&p->lx), ')')) {
        for (;;) {
            const Token *t = lex_peek(&p->lx);
            if (t->kind == TK_IDENT) {
                Token key = lex_next(&p->lx);
                expect_punct(p, '=', "after a tensor type field name");
                if (is_ident(&key, "strides")) {
                    expect_punct(p, '[', "to open the strides");
                    nstrides = 0;
                    while (!is_punct(lex_peek(&p->lx), ']')) {
                        if (nstrides == MAX_TENSOR_RANK)
                            FAIL(p, key.start, "more than %d strides", MAX_TENSOR_RANK);
                        strides[nstrides++] = parse_dim(p);
                        if (!is_punct(lex_peek(&p->lx), ']'))
                            expect_punct(p, ',', "between strides");
                    }
                    lex_next(&p->lx);
                } else if (is_ident(&key, "requires_grad")) {
                    Token v = lex_next(&p->lx);
                    if (v.kind != TK_NUMBER || v.len != 1 || (v.text[0] != '0' && v.text[0] != '1'))
                        FAIL(p, v.start, "requires_grad must be 0 or 1");
                    tt->requires_grad = v.text[0] - '0';
                } else if (is_ident(&key, "device")) {
                    Token d = lex_next(&p->lx);
                    if (d.kind != TK_IDENT)
                        FAIL(p, d.start, "expected a device such as cpu or cuda:0");
                    size_t end = d.start + d.len;
                    if (is_punct(lex_peek(&p->lx), ':')) {
                        lex_next(&p->lx);
                        Token idx = lex_next(&p->lx);
                        if (idx.kind != TK_NUMBER)
                            FAIL(p, idx.start, "expected a device index after ':'");
                        end = idx.start + idx.len;
                    }
                    tt->device = ir_intern_n(p->g, p->lx.text + d.start, end - d.start);
                } else {
                    FAIL(p, key.start, "unknown tensor type field '%.*s'", (int)key.len, key.text);
                }
            } else {
                if (rank == MAX_TENSOR_RANK)
                    FAIL(p, t->start, "tensor type of more than %d dimensions", MAX_TENSOR_RANK);
                sizes[rank++] = parse_dim(p);
            }
            if (is_punct(lex_peek(&p->lx), ')'))
                break;
            expect_punct(p, ',', "between the parts of a tensor type");
        }
    }
    lex_next(&p->lx);
    if (nstrides >= 0 && nstrides != rank)
        FAIL(p, open.start, "tensor type has %d sizes but %d strides", rank, nstrides);
    tt->rank = rank;
    tt->undefined_shape = false;
    tt->sizes = arena_alloc(p->g->arena, sizeof *tt->sizes * (size_t)(rank + 1));
    memcpy(tt->sizes, sizes, sizeof *sizes * (size_t)rank);
    if (nstrides >= 0) {
        tt->strides = arena_alloc(p->g->arena, sizeof *tt->strides * (size_t)(rank + 1));
        memcpy(tt->strides, strides, sizeof *strides * (size_t)rank);
    }
}

/* '(' type {',' type} ')' (or with '[' ']') into t->elems; `exact` > 0
 * demands that count. */
static void parse_type_args(Parser *p, IrType *t, int depth, int exact, const char *what,
                            char open_char)
{
    char close_char = open_char == '[' ? ']' : ')';
    Token open = expect_punct(p, open_char, what);
    IrType *elems[64];
    int n = 0;
    if (!is_punct(lex_peek(&p->lx), close_char)) {
        for (;;) {
            if (n == 64)
                FAIL(p, open.start, "more than 64 types in %s", what);
            elems[n++] = parse_type_expr(p, depth + 1);
            if (is_punct(lex_peek(&p->lx), close_char))
                break;
            expect_punct(p, ',', "between types");
        }
    }
    lex_next(&p->lx);
    if (exact > 0 && n != exact)
        FAIL(p, open.start, "%s takes %d type%s, found %d", what, exact, exact > 1 ? "s" : "", n);
    t->nelems = n;
    t->elems = arena_alloc(p->g->arena, sizeof *t->elems * (size_t)(n + 1));
    memcpy(t->elems, elems, sizeof *elems * (size_t)n);
}

static IrType *parse_base_type(Parser *p, int depth)
{
    static const struct { const char *name; IrTypeKind kind; } simple[] = {
        {"int", TY_INT}, {"float", TY_FLOAT}, {"bool", TY_BOOL}, {"str", TY_STR},
        {"NoneType", TY_NONE}, {"Device", TY_DEVICE}, {"ScalarType", TY_SCALARTYPE},
        {"Layout", TY_LAYOUT}, {"MemoryFormat", TY_MEMORYFORMAT}, {"Any", TY_ANY},
        {"Generator", TY_GENERATOR},
    };
    Token t = lex_next(&p->lx);
    IrGraph *g = p->g;
    if (is_punct(&t, '(')) {
        lex_seek(&p->lx, t.start);      /* parse_type_args wants the '(' */
        IrType *tuple = ir_type_simple(g, TY_TUPLE);
        parse_type_args(p, tuple, depth, 0, "a tuple type", '(');
        return tuple;
    }
    if (t.kind != TK_IDENT) {
        char buf[64];
        FAIL(p, t.start, "expected a type, found %s", tok_describe(&t, buf, sizeof buf));
    }
    if (is_tensor_type_name(&t)) {
        IrType *tt = ir_type_tensor(g);
        if (!is_ident(&t, "Tensor")) {
            tt->tensor.scalar = ir_intern_n(g, t.text, t.len);
            tt->tensor.dtype = tensor_dtype_of(&t);
        }
        if (is_punct(lex_peek(&p->lx), '(') && adjacent(p, &t))
            parse_tensor_details(p, &tt->tensor);
        return tt;
    }
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (is_ident(&t, simple[i].name))
            return ir_type_simple(g, simple[i].kind);
    if (is_ident(&t, "number") || is_ident(&t, "Scalar")) {
        IrType *num = ir_type_simple(g, TY_NUMBER);
        num->name = ir_intern_n(g, t.text, t.len);
        return num;
    }
    if (is_ident(&t, "Dict") || is_ident(&t, "Union") || is_ident(&t, "Future")) {
        IrTypeKind kind = is_ident(&t, "Dict") ? TY_DICT : is_ident(&t, "Union") ? TY_UNION : TY_FUTURE;
        IrType *c = ir_type_simple(g, kind);
        int exact = kind == TY_DICT ? 2 : kind == TY_FUTURE ? 1 : 0;
        /* torch 1.13 prints Future[T]; others print Future(T), Dict(K, V). */
        bool square = is_punct(lex_peek(&p->lx), '[') && adjacent(p, &t);
        if (square)
            c->name = "[";
        char what[32];
        snprintf(what, sizeof what, "%.*s%s", (int)t.len, t.text, square ? "[...]" : "(...)");
        parse_type_args(p, c, depth, exact, what, square ? '[' : '(');
        return c;
    }
    IrType *other = ir_type_simple(g, memchr(t.text, '.', t.len) ? TY_CLASS : TY_OTHER);
    size_t end = t.start + t.len;
    const Token *next = lex_peek(&p->lx);
    if ((is_punct(next, '(') || is_punct(next, '<')) && adjacent(p, &t)) {
        /* A type this parser has no structure for, such as RRef(int) or
         * Enum<__torch__.Color>: keep its text, brackets balanced. */
        other->kind = TY_OTHER;
        int nest = 0;
        size_t i = next->start;
        for (; i < p->lx.len && p->lx.text[i] != '\n'; i++) {
            char c = p->lx.text[i];
            if (c == '(' || c == '<' || c == '[')
                nest++;
            else if ((c == ')' || c == '>' || c == ']') && --nest == 0)
                break;
        }
        if (i >= p->lx.len || p->lx.text[i] == '\n')
            FAIL(p, next->start, "unbalanced brackets in type '%.*s'", (int)t.len, t.text);
        end = i + 1;
        lex_seek(&p->lx, end);
    }
    other->name = ir_intern_n(g, p->lx.text + t.start, end - t.start);
    return other;
}

static IrType *parse_type_expr(Parser *p, int depth)
{
    const Token *first = lex_peek(&p->lx);
    if (depth > MAX_TYPE_DEPTH)
        FAIL(p, first->start, "type nested deeper than %d levels", MAX_TYPE_DEPTH);
    IrType *t = parse_base_type(p, depth);
    for (;;) {
        const Token *n = lex_peek(&p->lx);
        size_t prev_end = n->start;
        /* Postfix [] and ? only when written right after the type. */
        if (prev_end > 0 && (p->lx.text[prev_end - 1] == ' ' || p->lx.text[prev_end - 1] == '\t'))
            return t;
        if (is_punct(n, '?')) {
            lex_next(&p->lx);
            t = ir_type_optional(p->g, t);
        } else if (is_punct(n, '[')) {
            Token open = lex_next(&p->lx);
            Token close = lex_next(&p->lx);
            if (!is_punct(&close, ']') || close.start != open.start + 1)
                FAIL(p, open.start, "expected '[]' after a type");
            t = ir_type_list(p->g, t);
        } else {
            return t;
        }
    }
}

/* A type at the lexer's position, shared with earlier identical texts. */
static IrType *parse_type(Parser *p)
{
    Lexer *lx = &p->lx;
    if (lx->have_peek)
        lex_seek(lx, lx->peeked.start);
    lex_skip_spaces(lx);
    size_t start = lx->pos, end = lex_scan_type_end(lx);
    if (end == start)
        FAIL(p, start, "expected a type");
    IrType *cached = strmap_get(&p->type_cache, lx->text + start, end - start);
    if (cached) {
        lex_seek(lx, end);
        return cached;
    }
    IrType *t = parse_type_expr(p, 0);
    const Token *after = lex_peek(lx);
    if (after->start < end)
        FAIL(p, after->start, "unexpected '%c' in a type", lx->text[after->start]);
    strmap_put(&p->type_cache, lx->text + start, end - start, t);
    return t;
}

/* ---------------------------------------------------------------- nodes */

static void parse_attrs(Parser *p, IrNode *n)
{
    expect_punct(p, '[', "to open attributes");
    for (;;) {
        Token name = lex_next(&p->lx);
        if (name.kind != TK_IDENT) {
            char buf[64];
            FAIL(p, name.start, "expected an attribute name, found %s",
                 tok_describe(&name, buf, sizeof buf));
        }
        const char *key = ir_intern_n(p->g, name.text, name.len);
        if (ir_attr_find(n, key))
            FAIL(p, name.start, "attribute '%s' given twice", key);
        expect_punct(p, '=', "after an attribute name");
        size_t vs, ve;
        lex_scan_attr_value(&p->lx, &vs, &ve);
        if (ve == vs)
            FAIL(p, vs, "missing value for attribute '%s'", key);
        IrAttr *a = ir_attr_add(n, key, ATTR_RAW);
        const char *bad = ir_attr_from_text(p->g, a, p->lx.text + vs, ve - vs);
        if (bad)
            FAIL(p, vs, "%s", bad);
        Token sep = lex_next(&p->lx);
        if (is_punct(&sep, ']'))
            return;
        if (!is_punct(&sep, ','))
            FAIL(p, sep.start, "expected ',' or ']' after an attribute value");
    }
}

/* '(' [VALUE {',' VALUE}] ')' as inputs of n (a node or a block return). */
static void parse_refs(Parser *p, IrNode *n, const char *context)
{
    expect_punct(p, '(', context);
    if (is_punct(lex_peek(&p->lx), ')')) {
        lex_next(&p->lx);
        return;
    }
    for (;;) {
        Token v = lex_next(&p->lx);
        if (v.kind != TK_VALUE) {
            char buf[64];
            FAIL(p, v.start, "expected a value (%%name) %s, found %s", context,
                 tok_describe(&v, buf, sizeof buf));
        }
        ir_node_add_input(n, resolve(p, &v));
        Token sep = lex_next(&p->lx);
        if (is_punct(&sep, ')'))
            return;
        if (!is_punct(&sep, ',')) {
            char buf[64];
            FAIL(p, sep.start, "expected ',' or ')' %s, found %s", context,
                 tok_describe(&sep, buf, sizeof buf));
        }
    }
}

/* One typed parameter of the graph or a block. */
static void parse_param(Parser *p, IrNode *param_node)
{
    Token v = lex_next(&p->lx);
    if (v.kind != TK_VALUE) {
        char buf[64];
        FAIL(p, v.start, "expected a parameter (%%name : type), found %s",
             tok_describe(&v, buf, sizeof buf));
    }
    OutSpec o = {v.start, v.text, v.len, NULL};
    if (is_punct(lex_peek(&p->lx), ':')) {
        lex_next(&p->lx);
        o.type = parse_type(p);
    }
    define(p, param_node, &o);
}

static void parse_body(Parser *p, IrBlock *b, const Token *opener);

static void check_control_arity(Parser *p, IrNode *n, const Token *kind_tok, int noutputs)
{
    size_t at = kind_tok->start;
    if (n->op == OP_PRIM_IF) {
        if (n->nblocks != 2)
            FAIL(p, at, "prim::If needs 2 blocks (then, else), found %d", n->nblocks);
        if (n->ninputs != 1)
            FAIL(p, at, "prim::If takes 1 input (the condition), found %d", n->ninputs);
        for (int i = 0; i < 2; i++) {
            IrBlock *blk = n->blocks[i];
            if (ir_block_nparams(blk) != 0)
                FAIL(p, at, "block%d of prim::If (line %d) must have no parameters", i, blk->line);
            if (ir_block_nreturns(blk) != noutputs)
                FAIL(p, at, "block%d of prim::If (line %d) returns %d value%s but the node has "
                     "%d output%s", i, blk->line, ir_block_nreturns(blk),
                     ir_block_nreturns(blk) == 1 ? "" : "s", noutputs, noutputs == 1 ? "" : "s");
        }
    } else if (n->op == OP_PRIM_LOOP) {
        if (n->nblocks != 1)
            FAIL(p, at, "prim::Loop needs 1 block, found %d", n->nblocks);
        if (n->ninputs < 2)
            FAIL(p, at, "prim::Loop takes (max_trip_count, condition, carried...), found %d "
                 "input%s", n->ninputs, n->ninputs == 1 ? "" : "s");
        int carried = n->ninputs - 2;
        IrBlock *blk = n->blocks[0];
        if (noutputs != carried)
            FAIL(p, at, "prim::Loop carries %d value%s but has %d output%s", carried,
                 carried == 1 ? "" : "s", noutputs, noutputs == 1 ? "" : "s");
        if (ir_block_nparams(blk) != carried + 1)
            FAIL(p, at, "the block of prim::Loop (line %d) has %d parameter%s, expected %d "
                 "(iteration, carried...)", blk->line, ir_block_nparams(blk),
                 ir_block_nparams(blk) == 1 ? "" : "s", carried + 1);
        if (ir_block_nreturns(blk) != carried + 1)
            FAIL(p, at, "the block of prim::Loop (line %d) returns %d value%s, expected %d "
                 "(condition, carried...)", blk->line, ir_block_nreturns(blk),
                 ir_block_nreturns(blk) == 1 ? "" : "s", carried + 1);
    }
}

/* The blocks under node n, whose line starts at column node_col. */
static void parse_blocks(Parser *p, IrNode *n, int node_col)
{
    int block_col = -1;
    for (;;) {
        const Token *t = lex_peek(&p->lx);
        if (!is_block_header(t) || !t->line_start || t->col <= node_col)
            return;
        if (block_col < 0)
            block_col = t->col;
        else if (t->col != block_col)
            FAIL(p, t->start, "misindented block header: expected column %d like block0",
                 block_col + 1);
        Token hdr = lex_next(&p->lx);
        char want[32];
        int wn = snprintf(want, sizeof want, "block%d", n->nblocks);
        if ((size_t)wn != hdr.len || memcmp(want, hdr.text, hdr.len) != 0)
            FAIL(p, hdr.start, "expected %s here, found '%.*s'", want, (int)hdr.len, hdr.text);
        if (p->block_depth >= MAX_BLOCK_DEPTH)
            FAIL(p, hdr.start, "blocks nested deeper than %d levels", MAX_BLOCK_DEPTH);
        IrBlock *blk = ir_node_add_block(n);
        blk->line = blk->param->line = hdr.line;
        size_t mark = p->nscope;
        expect_punct(p, '(', "after the block name");
        if (!is_punct(lex_peek(&p->lx), ')')) {
            for (;;) {
                parse_param(p, blk->param);
                if (is_punct(lex_peek(&p->lx), ')'))
                    break;
                expect_punct(p, ',', "between block parameters");
            }
        }
        lex_next(&p->lx);
        expect_punct(p, ':', "after the block parameters");
        expect_line_end(p, "the block header", NULL);
        p->block_depth++;
        parse_body(p, blk, &hdr);
        p->block_depth--;
        close_scope(p, mark);
    }
}

/* torch prints float constants of 1e10 and more that are whole numbers
 * without a '.' ("10000000000"), which reads as an int; the output's type
 * says it is a float. Printing the float gives the same text back. */
static void match_constant_to_type(Parser *p, IrNode *n, const IrType *type)
{
    IrAttr *a = ir_attr_find(n, "value");
    if (a && a->kind == ATTR_INT && type && type->kind == TY_FLOAT) {
        a->kind = ATTR_FLOAT;
        a->u.f = (double)a->u.i;
    }
    /* Tensor constants printed with their data ({2.5}, small reprs) get it
     * decoded, using the output's refined type for dtype and shape. */
    if (a && a->kind == ATTR_TENSOR && a->u.t.text && !a->u.t.tensor) {
        a->u.t.tensor = ir_tensor_from_text(a->u.t.text, type);
        if (a->u.t.tensor)
            ir_graph_own_tensor(p->g, a->u.t.tensor);
    }
}

/* ", scope: NAME" after a traced node's inputs: NAME runs to the comment
 * or the end of the line. */
static const char *parse_scope(Parser *p)
{
    lex_next(&p->lx);
    Token word = lex_next(&p->lx);
    if (!is_ident(&word, "scope"))
        FAIL(p, word.start, "expected 'scope:' after a node's inputs");
    expect_punct(p, ':', "after 'scope'");
    Lexer *lx = &p->lx;
    lex_skip_spaces(lx);
    size_t start = lx->pos, end = start;
    while (end < lx->len && lx->text[end] != '\n' && lx->text[end] != '#')
        end++;
    size_t stop = end;
    while (stop > start && (lx->text[stop - 1] == ' ' || lx->text[stop - 1] == '\t' ||
                            lx->text[stop - 1] == '\r'))
        stop--;
    if (stop == start)
        FAIL(p, start, "missing scope name after 'scope:'");
    lex_seek(lx, end);
    return arena_strndup(p->g->arena, lx->text + start, stop - start);
}

/* A statement's column for indentation checks: torch prints a node without
 * outputs as its indent followed by " = ", so its '=' sits one further. */
static int stmt_column(Parser *p, const Token *t)
{
    if (is_punct(t, '=') && t->col > 0 && p->lx.text[t->start - 1] == ' ')
        return t->col - 1;
    return t->col;
}

/* The column of t in characters from 1, as diagnostics count (t->col is
 * in bytes): UTF-8 continuation bytes before it on its line do not count. */
static int char_column(const Parser *p, const Token *t)
{
    const unsigned char *line = (const unsigned char *)p->lx.text + t->start - t->col;
    int col = 1;
    for (int i = 0; i < t->col; i++)
        col += (line[i] & 0xc0) != 0x80;
    return col;
}

/* stmt := [outs] '=' KIND [attrs] '(' refs ')' [COMMENT] NL {block} */
static void parse_stmt(Parser *p, IrBlock *b)
{
    const Token *first = lex_peek(&p->lx);
    int col = stmt_column(p, first), line = first->line;
    size_t outs_base = p->nouts;
    if (!is_punct(first, '=')) {
        for (;;) {
            Token v = lex_next(&p->lx);
            if (v.kind != TK_VALUE) {
                char buf[64];
                FAIL(p, v.start, "expected an output value (%%name), found %s",
                     tok_describe(&v, buf, sizeof buf));
            }
            OutSpec o = {v.start, v.text, v.len, NULL};
            if (is_punct(lex_peek(&p->lx), ':')) {
                lex_next(&p->lx);
                o.type = parse_type(p);
            }
            p->outs = grow_buffer(p, p->outs, &p->cap_outs, p->nouts + 1, sizeof *p->outs);
            p->outs[p->nouts++] = o;
            if (!is_punct(lex_peek(&p->lx), ','))
                break;
            lex_next(&p->lx);
        }
    }
    expect_punct(p, '=', "between a node's outputs and its kind");
    Token ns = lex_next(&p->lx);
    if (ns.kind != TK_IDENT) {
        char buf[64];
        FAIL(p, ns.start, "expected a node kind such as aten::add, found %s",
             tok_describe(&ns, buf, sizeof buf));
    }
    Token cc = lex_next(&p->lx);
    Token name = lex_next(&p->lx);
    if (cc.kind != TK_COLONCOLON || name.kind != TK_IDENT || cc.start != ns.start + ns.len ||
        name.start != cc.start + 2)
        FAIL(p, ns.start, "expected a node kind written namespace::name, such as aten::add");
    const char *kind = ir_intern_n(p->g, p->lx.text + ns.start, name.start + name.len - ns.start);
    IrNode *n = ir_node_new(p->g, kind);
    if (n->op == OP_PRIM_PARAM || n->op == OP_PRIM_RETURN)
        FAIL(p, ns.start, "%s is internal to blocks and cannot be written as a node", kind);
    n->line = line;
    n->col = char_column(p, &ns);
    if (is_punct(lex_peek(&p->lx), '[') && adjacent(p, &name))
        parse_attrs(p, n);
    parse_refs(p, n, "in the node's inputs");
    if (is_punct(lex_peek(&p->lx), ','))
        n->scope = parse_scope(p);
    Token comment;
    expect_line_end(p, "the node", &comment);
    if (comment.kind == TK_COMMENT)
        n->comment = arena_strndup(p->g->arena, comment.text, comment.len);
    ir_append(b, n);
    parse_blocks(p, n, col);
    int noutputs = (int)(p->nouts - outs_base);
    check_control_arity(p, n, &ns, noutputs);
    if (n->op == OP_PRIM_CONSTANT && noutputs == 1)
        match_constant_to_type(p, n, p->outs[outs_base].type);
    for (size_t i = outs_base; i < p->nouts; i++) {
        OutSpec o = p->outs[i];     /* copied: define may not move the array, but be safe */
        define(p, n, &o);
    }
    p->nouts = outs_base;
}

/* '->' '(' refs ')' or 'return' '(' refs ')', ending block b. */
static void parse_block_end(Parser *p, IrBlock *b)
{
    Token t = lex_next(&p->lx);
    b->ret->line = t.line;
    parse_refs(p, b->ret, t.kind == TK_ARROW ? "in the block's results" : "in the graph's results");
    expect_line_end(p, t.kind == TK_ARROW ? "the block's results" : "the graph's results", NULL);
}

/* The statements of block b up to its '-> (...)' (or, for the top block,
 * 'return (...)'); `opener` is the block header, NULL for the top block. */
static void parse_body(Parser *p, IrBlock *b, const Token *opener)
{
    bool top = opener == NULL;
    int header_col = top ? -1 : opener->col;
    int opener_line = top ? 0 : opener->line;
    int body_col = -1;
    for (;;) {
        const Token *t = lex_peek(&p->lx);
        char buf[64];
        if (t->kind == TK_EOF) {
            if (top)
                FAIL(p, t->start, "unexpected end of input: the graph has no 'return (...)' line");
            FAIL(p, t->start, "unexpected end of input: the block opened on line %d has no "
                 "'-> (...)' line", opener_line);
        }
        if (!top && t->col <= header_col)
            FAIL(p, t->start, "this line is not indented under the block opened on line %d, "
                 "which has not ended with '-> (...)'", opener_line);
        int col = stmt_column(p, t);
        if (body_col < 0)
            body_col = col;
        else if (col != body_col)
            FAIL(p, t->start, "misindented line: expected column %d like the lines before it",
                 body_col + 1);
        if (t->kind == TK_ARROW) {
            if (top)
                FAIL(p, t->start, "'-> (...)' outside a block (the graph ends with 'return')");
            parse_block_end(p, b);
            return;
        }
        if (is_ident(t, "return")) {
            if (!top)
                FAIL(p, t->start, "'return' inside a block (blocks end with '-> (...)')");
            parse_block_end(p, b);
            return;
        }
        if (is_block_header(t))
            FAIL(p, t->start, "block header '%.*s' is not indented under a node",
                 (int)t->len, t->text);
        if (t->kind != TK_VALUE && !is_punct(t, '='))
            FAIL(p, t->start, "expected a node ('%%out : type = kind(...)')%s, found %s",
                 top ? " or 'return'" : " or '->'", tok_describe(t, buf, sizeof buf));
        parse_stmt(p, b);
    }
}

static void parse_graph(Parser *p)
{
    IrGraph *g = p->g;
    Token t = lex_next(&p->lx);
    if (t.kind == TK_EOF)
        FAIL(p, t.start, "empty input: expected a graph ('graph(...):')");
    if (!is_ident(&t, "graph")) {
        char buf[64];
        FAIL(p, t.start, "expected 'graph(' at the start of the graph text, found %s",
             tok_describe(&t, buf, sizeof buf));
    }
    g->top->line = g->top->param->line = t.line;
    expect_punct(p, '(', "after 'graph'");
    while (lex_peek(&p->lx)->kind == TK_NEWLINE)
        lex_next(&p->lx);
    if (!is_punct(lex_peek(&p->lx), ')')) {
        for (;;) {
            parse_param(p, g->top->param);
            if (is_punct(lex_peek(&p->lx), ')'))
                break;
            expect_punct(p, ',', "between graph parameters");
            while (lex_peek(&p->lx)->kind == TK_NEWLINE)
                lex_next(&p->lx);
        }
    }
    lex_next(&p->lx);
    expect_punct(p, ':', "after the graph parameters");
    expect_line_end(p, "the graph header", NULL);
    parse_body(p, g->top, NULL);
    const Token *rest = lex_peek(&p->lx);
    if (is_ident(rest, "with"))
        FAIL(p, rest->start, "subgraphs ('with %s = graph(...)') are not supported",
             "prim::Name_N");
    if (rest->kind != TK_EOF)
        FAIL(p, rest->start, "unexpected text after the graph's 'return' line");
}

/* ---------------------------------------------------------------- entry */

typedef struct VerifyToDiag {
    Parser *p;
    bool reported;
} VerifyToDiag;

static void report_verify(void *ctx, const IrNode *where, const char *message)
{
    VerifyToDiag *v = ctx;
    if (v->reported)
        return;
    v->reported = true;
    int line = where ? where->line : 0;
    if (line <= 0 && where && where->op == OP_PRIM_RETURN && where->owner)
        line = where->owner->line;
    diag_error_line(v->p->fail.err, &v->p->fail.src, line > 0 ? line : 1, 1,
                    "malformed graph: %s", message);
}

IrGraph *ir_parse(const char *text, size_t len, const char *file, FILE *err)
{
    Parser *p = calloc(1, sizeof *p);
    if (!p)
        diag_die("out of memory starting to parse");
    p->fail.err = err;
    p->fail.src.file = file ? file : "<input>";
    p->fail.src.text = text ? text : "";
    p->fail.src.len = text ? len : 0;
    strmap_init(&p->type_cache);
    IrGraph *volatile g = ir_graph_new();
    p->g = g;
    p->default_type = ir_type_tensor(g);
    g->file = ir_intern(g, p->fail.src.file);
    if (setjmp(p->fail.jump) == 0) {
        lex_validate(&p->fail, p->fail.src.text, p->fail.src.len);
        lex_init(&p->lx, &p->fail, p->fail.src.text, p->fail.src.len);
        parse_graph(p);
        VerifyToDiag vd = {p, false};
        if (!ir_verify_report(g, report_verify, &vd)) {
            ir_graph_free(g);
            g = NULL;
        }
    } else {
        ir_graph_free(g);
        g = NULL;
    }
    strmap_release(&p->type_cache);
    free(p->visible);
    free(p->scope);
    free(p->outs);
    free(p);
    return g;
}

IrGraph *ir_parse_file(const char *path, FILE *err)
{
    char *text;
    size_t len;
    if (!file_read_all(path, TEXT_INPUT_LIMIT, &text, &len, err))
        return NULL;
    IrGraph *g = ir_parse(text, len, path, err);
    free(text);
    return g;
}
