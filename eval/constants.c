/* constants.c — the value of a prim::Constant node.
 *
 * The "value" attribute holds the data; the output's type says how to read
 * it, because TorchScript prints bools as 0/1 and devices as strings:
 *   no value                      None
 *   int attribute                 bool, float or int by the output type
 *   float / str attribute         float; str, or a Device
 *   int / float / str lists       lists (bool[] from ints)
 *   tensor attribute              the tensor, cloned once per run and then
 *                                 shared by every use of the node (as
 *                                 TorchScript shares a constant); "<Tensor>"
 *                                 has no data in the text: a runtime error
 *   other text (ATTR_RAW)         Python literals as TorchScript prints them:
 *                                 annotate(List[int], []), tuples "(1, 2.5)",
 *                                 nested lists, True/False/None, strings
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"

static const IrType *strip_optional(const IrType *t)
{
    while (t && t->kind == TY_OPTIONAL && t->nelems > 0)
        t = t->elems[0];
    return t;
}

/* ---------------------------------------------------------------- raw literals */

typedef struct RawParser {
    const char *p;
} RawParser;

static void raw_space(RawParser *rp)
{
    while (isspace((unsigned char)*rp->p))
        rp->p++;
}

static bool raw_accept(RawParser *rp, const char *word)
{
    raw_space(rp);
    size_t n = strlen(word);
    if (strncmp(rp->p, word, n) != 0)
        return false;
    rp->p += n;
    return true;
}

/* Element type i of a list or tuple type (NULL when unknown). */
static const IrType *raw_elem_type(const IrType *t, int i)
{
    t = strip_optional(t);
    if (!t)
        return NULL;
    if (t->kind == TY_LIST && t->nelems > 0)
        return t->elems[0];
    if (t->kind == TY_TUPLE && i < t->nelems)
        return t->elems[i];
    return NULL;
}

static RtValue *raw_value(RawParser *rp, const IrType *type);

static RtValue *raw_sequence(RawParser *rp, const IrType *type, char close, RtKind kind)
{
    RtValue *seq = rt_list(kind, 0, NULL);
    int i = 0;
    raw_space(rp);
    while (*rp->p != close) {
        RtValue *item = raw_value(rp, raw_elem_type(type, i));
        if (!item) {
            rt_release(seq);
            return NULL;
        }
        rt_list_append(seq, item);
        rt_release(item);
        i++;
        raw_space(rp);
        if (*rp->p == ',') {
            rp->p++;
            raw_space(rp);
        } else if (*rp->p != close) {
            rt_release(seq);
            return NULL;
        }
    }
    rp->p++;
    return seq;
}

static RtValue *raw_string(RawParser *rp)
{
    char quote = *rp->p++;
    TextBuf sb = {0};
    textbuf_puts(&sb, "");
    while (*rp->p && *rp->p != quote) {
        char ch = *rp->p++;
        if (ch == '\\' && *rp->p) {
            char e = *rp->p++;
            ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? '\0' : e;
        }
        textbuf_printf(&sb, "%c", ch);
    }
    if (*rp->p != quote) {
        textbuf_release(&sb);
        return NULL;
    }
    rp->p++;
    RtValue *v = rt_str(textbuf_cstr(&sb));
    textbuf_release(&sb);
    return v;
}

static RtValue *raw_number(RawParser *rp, const IrType *type)
{
    const char *start = rp->p;
    char *end;
    errno = 0;
    long long i = strtoll(start, &end, 10);
    bool integral =
        end != start && !errno && !strchr(".eEn", *end) && !isalpha((unsigned char)*end);
    const IrType *t = strip_optional(type);
    if (integral) {
        rp->p = end;
        if (t && t->kind == TY_FLOAT)
            return rt_float((double)i);
        if (t && t->kind == TY_BOOL)
            return rt_bool(i != 0);
        return rt_int(i);
    }
    double f = strtod(start, &end);
    if (end == start)
        return NULL;
    rp->p = end;
    return rt_float(f);
}

static RtValue *raw_value(RawParser *rp, const IrType *type)
{
    raw_space(rp);
    if (raw_accept(rp, "annotate(")) {
        /* annotate(TYPE, VALUE): skip the type up to its top-level comma. */
        int depth = 0;
        for (; *rp->p && !(depth == 0 && *rp->p == ','); rp->p++)
            depth += (*rp->p == '(' || *rp->p == '[') - (*rp->p == ')' || *rp->p == ']');
        if (*rp->p != ',')
            return NULL;
        rp->p++;
        RtValue *v = raw_value(rp, type);
        if (v && !raw_accept(rp, ")")) {
            rt_release(v);
            return NULL;
        }
        return v;
    }
    if (raw_accept(rp, "["))
        return raw_sequence(rp, type, ']', RT_LIST);
    if (raw_accept(rp, "("))
        return raw_sequence(rp, type, ')', RT_TUPLE);
    if (raw_accept(rp, "True"))
        return rt_bool(true);
    if (raw_accept(rp, "False"))
        return rt_bool(false);
    if (raw_accept(rp, "None"))
        return rt_none();
    if (*rp->p == '"' || *rp->p == '\'')
        return raw_string(rp);
    return raw_number(rp, type);
}

/* ---------------------------------------------------------------- constants */

static bool constant_list(EvalCall *c, const IrAttr *a, const IrType *elem_type)
{
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int k = 0; k < a->n; k++) {
        RtValue *item;
        if (a->kind == ATTR_INTS)
            item = elem_type && elem_type->kind == TY_BOOL ? rt_bool(a->u.is[k] != 0)
                                                           : rt_int(a->u.is[k]);
        else if (a->kind == ATTR_FLOATS)
            item = rt_float(a->u.fs[k]);
        else
            item = rt_str(a->u.ss[k]);
        rt_list_append(list, item);
        rt_release(item);
    }
    return eval_out_value(c, 0, list);
}

bool eval_constant(EvalCall *c)
{
    EvalRun *run = c->run;
    IrNode *n = c->node;
    if (n->noutputs != 1)
        return eval_fail(c, "a constant has one output, this one has %d", n->noutputs);
    const IrAttr *a = ir_attr_find(n, "value");
    const IrType *type = strip_optional(n->outputs[0]->type);
    if (!a)
        return eval_out_value(c, 0, rt_none());
    switch (a->kind) {
    case ATTR_INT:
        if (type->kind == TY_BOOL)
            return eval_out_value(c, 0, rt_bool(a->u.i != 0));
        if (type->kind == TY_FLOAT)
            return eval_out_value(c, 0, rt_float((double)a->u.i));
        return eval_out_value(c, 0, rt_int(a->u.i));
    case ATTR_FLOAT:
        return eval_out_value(c, 0, rt_float(a->u.f));
    case ATTR_STR:
        if (type->kind == TY_DEVICE)
            return eval_out_value(c, 0, rt_device(a->u.s));
        return eval_out_value(c, 0, rt_str(a->u.s));
    case ATTR_INTS:
    case ATTR_FLOATS:
    case ATTR_STRS:
        return constant_list(c, a, type->kind == TY_LIST && type->nelems ? type->elems[0] : NULL);
    case ATTR_TENSOR:
        if (!a->u.t.tensor)
            return eval_fail(c, "tensor constant data not in the graph text (%s)",
                            a->u.t.text ? a->u.t.text : "<Tensor>");
        if (!run->constants[n->id]) {
            Tensor *copy = tensor_clone_preserve(a->u.t.tensor);
            if (!copy)
                return eval_fail_kernel(c, "cannot copy the tensor constant");
            run->constants[n->id] = rt_tensor_take(copy);
        }
        return eval_out_value(c, 0, rt_retain(run->constants[n->id]));
    case ATTR_RAW: {
        RawParser rp = {a->u.raw ? a->u.raw : ""};
        RtValue *v = raw_value(&rp, type);
        raw_space(&rp);
        if (v && !*rp.p)
            return eval_out_value(c, 0, v);
        rt_release(v);
        break;
    }
    }
    return eval_fail(c, "constant value %s is not implemented on the %s backend",
                     a->kind == ATTR_RAW && a->u.raw ? a->u.raw : "",
                     c->run->backend ? c->run->backend : "ref");
}
