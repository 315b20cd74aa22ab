/* type_query.c — prim::isinstance[types=[...]](x), the check that
 * TorchScript leaves in a graph when x's static type is a Union, Optional
 * or Any (a function taking Union[int, Tensor] inlined at several call
 * sites). Where x's static type decides the answer, TensorSSA folds it
 * (eval_isinstance_static, called from functionalize/constant_fold.c);
 * otherwise the interpreter checks the run-time value.
 *
 * The types attribute is TorchScript's list of type names: int, float, bool,
 * str, Tensor, NoneType, and the containers List[T]/list, Tuple[...]/tuple,
 * Dict[K, V]/dict. An element type is checked for lists (List[int] is not
 * List[float]); tuple and dict element types are not.
 */
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "tssa/eval.h"

enum { MAX_ISINSTANCE_TYPES = 16, TYPE_NAME_MAX = 128 };

typedef struct TypeName {
    char base[TYPE_NAME_MAX];   /* "int", "List", "Tensor" */
    char elem[TYPE_NAME_MAX];   /* "int" for List[int]; "" when absent */
} TypeName;

/* Splits "[int, List[float], Tuple[int, int]]" at its top-level commas. */
static int parse_type_list(const IrAttr *types, TypeName *out, int cap)
{
    if (!types)
        return -1;
    const char *text = types->kind == ATTR_RAW ? types->u.raw : types->kind == ATTR_STR ? types->u.s : NULL;
    if (!text)
        return -1;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '[')
        p++;
    int n = 0;
    while (*p && *p != ']' && n < cap) {
        while (*p == ' ')
            p++;
        const char *start = p;
        int depth = 0;
        while (*p && !(depth == 0 && (*p == ',' || *p == ']'))) {
            depth += *p == '[' || *p == '(';
            depth -= *p == ']' || *p == ')';
            p++;
        }
        size_t len = (size_t)(p - start);
        while (len > 0 && start[len - 1] == ' ')
            len--;
        const char *bracket = memchr(start, '[', len);
        size_t base_len = bracket ? (size_t)(bracket - start) : len;
        if (base_len == 0 || base_len >= TYPE_NAME_MAX)
            return -1;
        memcpy(out[n].base, start, base_len);
        out[n].base[base_len] = '\0';
        out[n].elem[0] = '\0';
        if (bracket && start[len - 1] == ']') {
            size_t elem_len = len - base_len - 2;
            if (elem_len < TYPE_NAME_MAX) {
                memcpy(out[n].elem, bracket + 1, elem_len);
                out[n].elem[elem_len] = '\0';
            }
        }
        n++;
        if (*p == ',')
            p++;
    }
    return n;
}

static bool base_is(const TypeName *t, const char *a, const char *b)
{
    return strcmp(t->base, a) == 0 || (b && strcmp(t->base, b) == 0);
}

/* The simple type name of a static type, or NULL for the others. */
static const char *simple_name(const IrType *t)
{
    switch (t->kind) {
    case TY_INT: return "int";
    case TY_FLOAT: return "float";
    case TY_BOOL: return "bool";
    case TY_STR: return "str";
    case TY_TENSOR: return "Tensor";
    case TY_NONE: return "NoneType";
    default: return NULL;
    }
}

/* 1 or 0 when a value of static type t is (is not) an instance of target;
 * -1 when only its run-time value can tell. */
static int static_match(const IrType *t, const TypeName *target)
{
    const char *name = simple_name(t);
    if (name)
        return strcmp(name, target->base) == 0;
    switch (t->kind) {
    case TY_LIST:
        if (!base_is(target, "List", "list"))
            return 0;
        if (!target->elem[0] || t->nelems != 1)
            return 1;
        name = simple_name(t->elems[0]);
        return name ? strcmp(name, target->elem) == 0 : -1;
    case TY_TUPLE:
        return base_is(target, "Tuple", "tuple");
    case TY_DICT:
        return base_is(target, "Dict", "dict");
    default:
        return -1;   /* Union, Optional, Any, number, classes */
    }
}

int eval_isinstance_static(const IrType *t, const IrAttr *types)
{
    TypeName names[MAX_ISINSTANCE_TYPES];
    int n = t ? parse_type_list(types, names, MAX_ISINSTANCE_TYPES) : -1;
    if (n < 0)
        return -1;
    int answer = 0;
    for (int i = 0; i < n; i++) {
        int m = static_match(t, &names[i]);
        if (m == 1)
            return 1;
        if (m < 0)
            answer = -1;
    }
    return answer;
}

static bool value_matches(const RtValue *v, const TypeName *target, const IrType *static_type)
{
    switch (v->kind) {
    case RT_INT: return strcmp(target->base, "int") == 0;
    case RT_FLOAT: return strcmp(target->base, "float") == 0;
    case RT_BOOL: return strcmp(target->base, "bool") == 0;
    case RT_STR: return strcmp(target->base, "str") == 0;
    case RT_TENSOR: return strcmp(target->base, "Tensor") == 0;
    case RT_NONE: return strcmp(target->base, "NoneType") == 0;
    case RT_TUPLE: return base_is(target, "Tuple", "tuple");
    case RT_DICT: return base_is(target, "Dict", "dict");
    case RT_LIST: {
        if (!base_is(target, "List", "list"))
            return false;
        if (!target->elem[0])
            return true;
        if (v->u.list.n == 0) {
            /* An empty list's element type is only in its static type. */
            int m = static_type ? static_match(static_type, target) : -1;
            return m != 0;
        }
        TypeName elem;
        elem.elem[0] = '\0';
        snprintf(elem.base, sizeof elem.base, "%s", target->elem);
        for (int i = 0; i < v->u.list.n; i++)
            if (!value_matches(v->u.list.items[i], &elem, NULL))
                return false;
        return true;
    }
    default:
        return false;
    }
}

/* prim::isinstance[types=[...]](Any x) -> bool */
bool eval_op_isinstance(EvalCall *c)
{
    TypeName names[MAX_ISINSTANCE_TYPES];
    if (!eval_nargs(c, 1, 1))
        return false;
    int n = parse_type_list(ir_attr_find(c->node, "types"), names, MAX_ISINSTANCE_TYPES);
    if (n < 0)
        return eval_fail(c, "prim::isinstance without a readable types attribute");
    bool match = false;
    for (int i = 0; i < n && !match; i++)
        match = value_matches(c->args[0], &names[i], c->node->inputs[0]->type);
    return eval_out_value(c, 0, rt_bool(match));
}
