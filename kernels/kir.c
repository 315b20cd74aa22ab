/* kir.c — building kernel IR (kir.h): hash-consed index expressions and
 * element expressions, with the algebra that keeps index arithmetic small
 * (constants folded, x*1 and x+0 dropped, (a*c)/c = a where exact).
 *
 * Interning compares the bytes of a zero-filled node, so every field that
 * identifies a node must be set by its constructor alone, and the derived
 * fields (vars, id) are filled after the lookup.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kir.h"

typedef struct InternTable {
    const void **items;
    size_t cap, n;
} InternTable;

struct KirBuilder {
    Arena *arena;
    InternTable idx, expr, tests;
    int nvars;
    uint32_t next_id;
    /* Extents of the loop variables of the expression being built (0:
     * unknown): an index below its divisor needs no / or %. */
    int64_t extent[KIR_MAX_VARS];
};

/* The util layer's string hash, on the bytes of a node key. */
static uint64_t hash_bytes(const void *p, size_t len)
{
    return strmap_hash((const char *)p, len);
}

/* The interned copy of the bytes at key: the first `len` identify it (they
 * must be zero-padded), the `size - len` after them are derived fields the
 * caller fills in the fresh copy. */
static const void *intern(Arena *a, InternTable *t, const void *key, size_t len, size_t size,
                          bool *fresh)
{
    if (t->n * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        const void **items = xcalloc(cap, sizeof *items);
        for (size_t i = 0; i < t->cap; i++) {
            const void *it = t->items[i];
            if (!it)
                continue;
            size_t j = hash_bytes(it, len) & (cap - 1);
            while (items[j])
                j = (j + 1) & (cap - 1);
            items[j] = it;
        }
        free(t->items);
        t->items = items;
        t->cap = cap;
    }
    size_t j = hash_bytes(key, len) & (t->cap - 1);
    for (; t->items[j]; j = (j + 1) & (t->cap - 1))
        if (memcmp(t->items[j], key, len) == 0) {
            *fresh = false;
            return t->items[j];
        }
    void *copy = arena_alloc(a, size);
    memcpy(copy, key, size);
    t->items[j] = copy;
    t->n++;
    *fresh = true;
    return copy;
}

KirBuilder *kir_builder_new(void)
{
    KirBuilder *b = xcalloc(1, sizeof *b);
    b->arena = arena_new();
    b->nvars = KIR_MAX_RANK;    /* 0..KIR_MAX_RANK-1: output dims; then reductions */
    return b;
}

void kir_builder_free(KirBuilder *b)
{
    if (!b)
        return;
    free(b->idx.items);
    free(b->expr.items);
    free(b->tests.items);
    arena_free(b->arena);
    free(b);
}

Arena *kir_arena(KirBuilder *b) { return b->arena; }
int kir_new_var(KirBuilder *b) { return b->nvars++; }
int kir_nvars(const KirBuilder *b) { return b->nvars; }

/* ---------------------------------------------------------------- indices */

static const KIdx *idx_intern(KirBuilder *b, KIdx *k)
{
    bool fresh;
    KIdx *r = (KIdx *)intern(b->arena, &b->idx, k, offsetof(KIdx, vars), sizeof *k, &fresh);
    if (fresh) {
        r->vars = (r->kind == KI_VAR ? 1ull << r->var : 0) | (r->a ? r->a->vars : 0) |
                  (r->b ? r->b->vars : 0);
        if (r->kind == KI_VAR && r->var >= b->nvars)
            b->nvars = r->var + 1;
    }
    return r;
}

const KIdx *kidx_const(KirBuilder *b, int64_t c)
{
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_CONST;
    k.c = c;
    return idx_intern(b, &k);
}

const KIdx *kidx_var(KirBuilder *b, int var)
{
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_VAR;
    k.var = var;
    return idx_intern(b, &k);
}

const KIdx *kidx_param(KirBuilder *b, int input)
{
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_PARAM;
    k.var = input;
    return idx_intern(b, &k);
}

const KIdx *kidx_add(KirBuilder *b, const KIdx *x, const KIdx *y)
{
    if (x->kind == KI_CONST && y->kind == KI_CONST)
        return kidx_const(b, x->c + y->c);
    if (x->kind == KI_CONST && x->c == 0)
        return y;
    if (y->kind == KI_CONST && y->c == 0)
        return x;
    if (x->kind == KI_CONST) {          /* constants last: x + c */
        const KIdx *t = x;
        x = y;
        y = t;
    }
    if (y->kind == KI_CONST && x->kind == KI_ADD && x->b->kind == KI_CONST)
        return kidx_add(b, x->a, kidx_const(b, x->b->c + y->c));
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_ADD;
    k.a = x;
    k.b = y;
    return idx_intern(b, &k);
}

const KIdx *kidx_mul(KirBuilder *b, const KIdx *x, int64_t c)
{
    if (c == 0)
        return kidx_const(b, 0);
    if (c == 1)
        return x;
    if (x->kind == KI_CONST)
        return kidx_const(b, x->c * c);
    if (x->kind == KI_MUL)
        return kidx_mul(b, x->a, x->c * c);
    if (x->kind == KI_ADD)      /* distribute: keeps offsets affine in the variables */
        return kidx_add(b, kidx_mul(b, x->a, c), kidx_mul(b, x->b, c));
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_MUL;
    k.a = x;
    k.c = c;
    return idx_intern(b, &k);
}

/* Whether every value of x is a multiple of c (so x / c is exact). */
static bool multiple_of(const KIdx *x, int64_t c)
{
    switch (x->kind) {
    case KI_CONST: return x->c % c == 0;
    case KI_MUL:   return x->c % c == 0;
    case KI_ADD:   return multiple_of(x->a, c) && multiple_of(x->b, c);
    default:       return false;
    }
}

/* x / c for x a multiple of c. */
static const KIdx *exact_div(KirBuilder *b, const KIdx *x, int64_t c)
{
    switch (x->kind) {
    case KI_CONST: return kidx_const(b, x->c / c);
    case KI_MUL:   return kidx_mul(b, x->a, x->c / c);
    default:       return kidx_add(b, exact_div(b, x->a, c), exact_div(b, x->b, c));
    }
}

void kir_set_extent(KirBuilder *b, int var, int64_t extent)
{
    if (var >= 0 && var < KIR_MAX_VARS)
        b->extent[var] = extent;
}

bool kidx_bounds_params(const KIdx *x, const int64_t *vlo, const int64_t *vhi, const int64_t *param_limit,
                        int64_t *lo, int64_t *hi)
{
    int64_t alo, ahi, blo, bhi;
    switch (x->kind) {
    case KI_CONST:
        *lo = *hi = x->c;
        return true;
    case KI_VAR:
        if (x->var >= KIR_MAX_VARS || vhi[x->var] < vlo[x->var])
            return false;
        *lo = vlo[x->var];
        *hi = vhi[x->var];
        return true;
    case KI_PARAM:
        if (!param_limit || param_limit[x->var] < 1)
            return false;
        *lo = 0;
        *hi = param_limit[x->var] - 1;
        return true;
    case KI_ADD:
        if (!kidx_bounds_params(x->a, vlo, vhi, param_limit, &alo, &ahi) ||
            !kidx_bounds_params(x->b, vlo, vhi, param_limit, &blo, &bhi))
            return false;
        *lo = alo + blo;
        *hi = ahi + bhi;
        return true;
    case KI_MUL:
        if (!kidx_bounds_params(x->a, vlo, vhi, param_limit, &alo, &ahi))
            return false;
        *lo = x->c >= 0 ? alo * x->c : ahi * x->c;
        *hi = x->c >= 0 ? ahi * x->c : alo * x->c;
        return true;
    case KI_DIV:
        if (!kidx_bounds_params(x->a, vlo, vhi, param_limit, &alo, &ahi) || alo < 0)
            return false;
        *lo = alo / x->c;
        *hi = ahi / x->c;
        return true;
    case KI_MOD:
        if (!kidx_bounds_params(x->a, vlo, vhi, param_limit, &alo, &ahi) || alo < 0)
            return false;
        if (ahi < x->c) {
            *lo = alo;
            *hi = ahi;
        } else if (ahi / x->c == alo / x->c) {
            *lo = alo % x->c;
            *hi = ahi % x->c;
        } else {
            *lo = 0;
            *hi = x->c - 1;
        }
        return true;
    }
    return false;
}

bool kidx_bounds(const KIdx *x, const int64_t *vlo, const int64_t *vhi, int64_t *lo, int64_t *hi)
{
    return kidx_bounds_params(x, vlo, vhi, NULL, lo, hi);
}

int64_t kidx_stride(const KIdx *x, int var)
{
    if (!((x->vars >> var) & 1))
        return 0;
    switch (x->kind) {
    case KI_VAR:
        return 1;
    case KI_ADD: {
        int64_t a = kidx_stride(x->a, var), b = kidx_stride(x->b, var);
        return a == INT64_MIN || b == INT64_MIN ? INT64_MIN : a + b;
    }
    case KI_MUL: {
        int64_t a = kidx_stride(x->a, var);
        return a == INT64_MIN ? INT64_MIN : a * x->c;
    }
    default:
        return INT64_MIN;
    }
}

bool kidx_range(const KirBuilder *b, const KIdx *x, int64_t *lo, int64_t *hi)
{
    int64_t vlo[KIR_MAX_VARS], vhi[KIR_MAX_VARS];
    for (int i = 0; i < KIR_MAX_VARS; i++) {
        vlo[i] = 0;
        vhi[i] = b->extent[i] - 1;      /* extent 0: unknown (hi < lo) */
    }
    return kidx_bounds(x, vlo, vhi, lo, hi);
}

/* 0 <= x < c for every value of the loop variables. */
static bool below(const KirBuilder *b, const KIdx *x, int64_t c)
{
    int64_t lo, hi;
    return kidx_range(b, x, &lo, &hi) && lo >= 0 && hi < c;
}

const KIdx *kidx_div(KirBuilder *b, const KIdx *x, int64_t c)
{
    if (c == 1)
        return x;
    if (x->kind == KI_CONST)
        return kidx_const(b, x->c / c);
    if (multiple_of(x, c))
        return exact_div(b, x, c);
    /* (m*c + r) / c = m when 0 <= r < c */
    if (x->kind == KI_ADD && multiple_of(x->a, c) && below(b, x->b, c))
        return exact_div(b, x->a, c);
    if (below(b, x, c))
        return kidx_const(b, 0);
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_DIV;
    k.a = x;
    k.c = c;
    return idx_intern(b, &k);
}

const KIdx *kidx_mod(KirBuilder *b, const KIdx *x, int64_t c)
{
    if (c == 1)
        return kidx_const(b, 0);
    if (x->kind == KI_CONST)
        return kidx_const(b, x->c % c);
    if (multiple_of(x, c))
        return kidx_const(b, 0);
    if (x->kind == KI_ADD && multiple_of(x->a, c) && below(b, x->b, c))
        return x->b;
    if (below(b, x, c))
        return x;
    KIdx k;
    memset(&k, 0, sizeof k);
    k.kind = KI_MOD;
    k.a = x;
    k.c = c;
    return idx_intern(b, &k);
}

/* ---------------------------------------------------------------- expressions */

static const KExpr *expr_intern(KirBuilder *b, KExpr *e)
{
    bool fresh;
    KExpr *r = (KExpr *)intern(b->arena, &b->expr, e, offsetof(KExpr, vars), sizeof *e, &fresh);
    if (fresh) {
        uint64_t v = r->at ? r->at->vars : 0;
        for (int i = 0; i < r->nargs; i++)
            v |= r->args[i]->vars;
        for (int i = 0; i < r->ntests; i++)
            v |= r->tests[i].x->vars;
        if (r->kind == KX_REDUCE)
            v &= ~(1ull << r->var);
        r->vars = v;
        r->id = b->next_id++;
    }
    return r;
}

static KExpr blank(KExprKind kind, TensorDType dtype)
{
    KExpr e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.dtype = dtype;
    e.compute = dtype;
    return e;
}

const KExpr *kx_load(KirBuilder *b, int input, TensorDType dtype, const KIdx *at)
{
    KExpr e = blank(KX_LOAD, dtype);
    e.input = input;
    e.at = at;
    return expr_intern(b, &e);
}

const KExpr *kx_const(KirBuilder *b, TensorDType dtype, double c)
{
    KExpr e = blank(KX_CONST, dtype);
    e.c = dtype == DT_BOOL ? (c != 0) : c;
    return expr_intern(b, &e);
}

const KExpr *kx_scalar(KirBuilder *b, int input, TensorDType dtype)
{
    KExpr e = blank(KX_SCALAR, dtype);
    e.input = input;
    return expr_intern(b, &e);
}

const KExpr *kx_index(KirBuilder *b, TensorDType dtype, const KIdx *at)
{
    KExpr e = blank(KX_INDEX, dtype);
    e.at = at;
    return expr_intern(b, &e);
}

const KExpr *kx_cast(KirBuilder *b, const KExpr *x, TensorDType dtype)
{
    if (x->dtype == dtype)
        return x;
    if (x->kind == KX_CONST)
        return kx_const(b, dtype, x->c);
    KExpr e = blank(KX_CAST, dtype);
    e.nargs = 1;
    e.args[0] = x;
    return expr_intern(b, &e);
}

const KExpr *kx_op(KirBuilder *b, int op, TensorDType dtype, TensorDType compute,
                   const KExpr *const *args, int nargs)
{
    KExpr e = blank(KX_OP, dtype);
    e.compute = compute;
    e.op = op;
    e.nargs = nargs;
    for (int i = 0; i < nargs && i < 4; i++)
        e.args[i] = args[i];
    return expr_intern(b, &e);
}

/* Test arrays are interned by content (up to KIR_MAX_RANK tests: one per
 * dimension of a region), so equal selects are one node. */
typedef struct TestsKey {
    int n;
    KTest t[KIR_MAX_RANK];
} TestsKey;

const KExpr *kx_select(KirBuilder *b, const KTest *tests, int ntests, const KExpr *in,
                       const KExpr *out)
{
    /* Tests the loop extents decide are dropped (always true) or decide
     * the select (never true). */
    TestsKey key;
    memset(&key, 0, sizeof key);
    for (int i = 0; i < ntests && key.n < KIR_MAX_RANK; i++) {
        int64_t lo, hi;
        if (kidx_range(b, tests[i].x, &lo, &hi)) {
            if (hi < tests[i].lo || lo >= tests[i].hi)
                return out;
            if (lo >= tests[i].lo && hi < tests[i].hi && (tests[i].step <= 1 || lo == hi))
                if (tests[i].step <= 1 || (lo - tests[i].lo) % tests[i].step == 0)
                    continue;
        }
        key.t[key.n++] = tests[i];
    }
    if (key.n == 0)
        return in;
    bool fresh;
    const TestsKey *canon = intern(b->arena, &b->tests, &key, sizeof key, sizeof key, &fresh);
    KExpr e = blank(KX_SELECT, in->dtype);
    e.nargs = 2;
    e.args[0] = in;
    e.args[1] = out;
    e.ntests = key.n;
    e.tests = canon->t;
    (void)ntests;
    return expr_intern(b, &e);
}

const KExpr *kx_reduce(KirBuilder *b, KReduce r, int var, int64_t extent, const KExpr *body,
                       TensorDType dtype)
{
    KExpr e = blank(KX_REDUCE, dtype);
    e.reduce = r;
    e.var = var;
    e.extent = extent;
    e.nargs = 1;
    e.args[0] = body;
    return expr_intern(b, &e);
}

const char *kir_ctype(TensorDType t)
{
    switch (t) {
    case DT_BOOL: return "bool";
    case DT_U8:   return "uint8_t";
    case DT_I8:   return "int8_t";
    case DT_I16:  return "int16_t";
    case DT_I32:  return "int32_t";
    case DT_I64:  return "int64_t";
    case DT_F32:  return "float";
    case DT_F64:  return "double";
    default:      return NULL;
    }
}
