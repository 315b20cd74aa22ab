/* bindings.c — the command line's NAME=VALUE bindings (and --weights)
 * resolved against the graph's inputs.
 *
 * NAME is an input's debug name without its ".N" suffix (%a.1 is `a`).
 * VALUE is read according to the input's declared type:
 *   Tensor          a path ending in .npy; a refined type (Float(*, 3)) must
 *                   agree with the file's dtype and rank
 *   int             an int literal;  float: a float or int literal (inf,
 *                   nan, 1e-3);  bool: true/false;  Scalar: int or float
 *   str             the text itself;  Device: its name ("cpu")
 *   T[], (T, U)     a JSON array fitting the type: [3,3], [0.5,1.0],
 *                   [true,false], nested lists, null for an Optional item;
 *                   no blanks (args.txt is split at them)
 *   Tensor[], (Tensor, Tensor), Tensor?[]
 *                   .npy paths in brackets: [p3.npy,p4.npy], None for an
 *                   Optional item, [] for an empty list
 *   Dict(str, Tensor)  {p3:a.npy,p4:b.npy}, keys of letters, digits, _ .
 *   T?              "none" (or "None") for None, else as T
 *   Any             None, a .npy path, true/false, an int or float literal,
 *                   else the text as a str
 * "None" for an input that is not Optional (nor NoneType, Any or str) is an
 * error naming the input. The graph text carries no default values (a
 * forward's `timestep: Optional[Tensor] = None` is `%timestep : Tensor?`),
 * so every input is bound; frontend/export.py writes the defaults a program
 * was run with into args.txt.
 *   a class type    the module from --weights (%self); it takes no binding
 * Anything that does not fit — a missing or unknown name, a duplicate, a
 * literal for a tensor, a .npy for an int, a module input without weights —
 * is reported with the input's name and resolution fails (the driver exits
 * 2). So is a module attribute the graph reads (a prim::GetAttr chain from
 * the module input) that the weights file lacks or whose __metadata__ text
 * does not parse as the declared type: the user's input is wrong, and it is
 * found before any work rather than halfway through a run. Objects of
 * TorchScript classes that an attribute's list, tuple or dict holds
 * ({"__object__": PATH}) are checked for every attribute the graph reads of
 * their class. All checks run
 * before any input is used, and nothing leaks on failure.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/eval.h"
#include "tssa/frontend.h"
#include "tssa/io.h"
#include "tssa/util.h"
#include "tssa/value.h"

typedef struct Binder {
    IrGraph *graph;
    FILE *err;
} Binder;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *graph_file(const Binder *b)
{
    return b->graph->file ? b->graph->file : "<graph>";
}

static bool input_error(const Binder *b, const char *name, const IrType *type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool input_error(const Binder *b, const char *name, const IrType *type, const char *fmt, ...)
{
    TextBuf what = {0}, ty = {0};
    if (type)
        ir_type_format(&ty, type);
    textbuf_printf(&what, "input '%s'%s%s%s: ", name, type ? " (" : "", type ? textbuf_cstr(&ty) : "",
              type ? ")" : "");
    va_list ap;
    va_start(ap, fmt);
    textbuf_vprintf(&what, fmt, ap);
    va_end(ap);
    diag_error(b->err, graph_file(b), "%s", textbuf_cstr(&what));
    textbuf_release(&what);
    textbuf_release(&ty);
    return false;
}

/* ---------------------------------------------------------------- literals */

static bool parse_int(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno)
        return false;
    *v = x;
    return true;
}

static bool parse_float(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || (errno && isfinite(x) && x != 0))
        return false;
    *v = x;
    return true;
}

static bool is_none_literal(const char *s)
{
    return strcmp(s, "none") == 0 || strcmp(s, "None") == 0;
}

/* ---------------------------------------------------------------- values */

static bool tensor_fits(const Binder *b, const char *name, const IrType *type, const Tensor *t)
{
    const IrTensorType *tt = &type->tensor;
    if (tt->dtype >= 0 && tt->dtype != (int)t->dtype)
        return input_error(b, name, type, "the graph declares %s, the file holds %s",
                           dtype_ts_name((TensorDType)tt->dtype), dtype_name(t->dtype));
    if (tt->rank >= 0 && tt->rank != t->ndim)
        return input_error(b, name, type, "the graph declares %d dims, the file holds %d",
                           tt->rank, t->ndim);
    return true;
}

/* Whether a list or tuple of type t can be written as JSON on the command
 * line: its items, nested, are ints, floats, bools, numbers, strs or
 * Optional of them (no tensors or objects: they have no JSON spelling here). */
static bool json_bindable(const IrType *t, int depth)
{
    if (depth > 16)
        return false;
    switch (t->kind) {
    case TY_INT:
    case TY_FLOAT:
    case TY_BOOL:
    case TY_NUMBER:
    case TY_STR:
        return depth > 0;
    case TY_OPTIONAL:
        return depth > 0 && t->nelems == 1 && json_bindable(t->elems[0], depth + 1);
    case TY_LIST:
    case TY_TUPLE:
        if (t->kind == TY_LIST && t->nelems != 1)
            return false;
        for (int i = 0; i < t->nelems; i++)
            if (!json_bindable(t->elems[i], depth + 1))
                return false;
        return true;
    default:
        return false;
    }
}

static RtValue *value_for_type(const Binder *b, const char *name, const IrType *type,
                               const char *text);

/* A list or tuple whose items are tensors (or Optional tensors): Tensor[],
 * (Tensor, Tensor), Tensor?[]. */
static bool holds_tensors(const IrType *t)
{
    if ((t->kind != TY_LIST && t->kind != TY_TUPLE) || (t->kind == TY_LIST && t->nelems != 1))
        return false;
    for (int i = 0; i < t->nelems; i++) {
        const IrType *e = t->elems[i];
        if (e->kind == TY_OPTIONAL && e->nelems == 1)
            e = e->elems[0];
        if (e->kind != TY_TENSOR)
            return false;
    }
    return true;
}

/* What text holds between its opening and closing bracket (pair[0] and
 * pair[1]), a fresh string for the caller to cut at commas; NULL after a
 * message showing the expected `form`. */
static char *bracketed(const Binder *b, const char *name, const IrType *type, const char *text, const char *pair,
                       const char *form)
{
    size_t len = strlen(text);
    if (len < 2 || text[0] != pair[0] || text[len - 1] != pair[1]) {
        input_error(b, name, type, "expected %s (.npy paths, no blanks), got '%s'", form, text);
        return NULL;
    }
    char *inner = xmalloc(len - 1);
    memcpy(inner, text + 1, len - 2);
    inner[len - 2] = '\0';
    return inner;
}

/* `[a.npy,b.npy]` (None for an Optional item, `[]` for an empty list) for an
 * input that holds tensors: feature pyramids passed as List[Tensor], as
 * torchvision's detection heads take them. */
static RtValue *tensor_items_value(const Binder *b, const char *name, const IrType *type, const char *text)
{
    char *inner = bracketed(b, name, type, text, "[]", "[a.npy,b.npy,...]");
    if (!inner)
        return NULL;
    RtValue *v = rt_list(type->kind == TY_TUPLE ? RT_TUPLE : RT_LIST, 0, NULL);
    int count = 0;
    bool ok = true;
    for (char *item = inner, *next; ok && *inner && item; item = next, count++) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (type->kind == TY_TUPLE && count >= type->nelems) {
            input_error(b, name, type, "expected %d items, got more", type->nelems);
            ok = false;
            break;
        }
        const IrType *elem = type->elems[type->kind == TY_TUPLE ? count : 0];
        RtValue *x = *item ? value_for_type(b, name, elem, item) : NULL;
        if (!*item)
            input_error(b, name, type, "an empty item in '%s'", text);
        ok = x != NULL;
        if (ok) {
            rt_list_append(v, x);
            rt_release(x);
        }
    }
    free(inner);
    if (ok && type->kind == TY_TUPLE && count < type->nelems) {
        input_error(b, name, type, "expected %d items, got %d", type->nelems, count);
        ok = false;
    }
    if (!ok)
        rt_release(v);
    return ok ? v : NULL;
}

/* `{p3:a.npy,p4:b.npy}` for a Dict(str, Tensor) input (torchvision's
 * feature pyramid network takes its levels so): keys are letters, digits,
 * _ and . (args.txt is split at blanks), in the order given, each once. */
static RtValue *tensor_dict_value(const Binder *b, const char *name, const IrType *type, const char *text)
{
    char *inner = bracketed(b, name, type, text, "{}", "{key:a.npy,...}");
    if (!inner)
        return NULL;
    RtValue *d = rt_dict();
    bool ok = true;
    for (char *item = inner, *next; ok && *inner && item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        char *colon = strchr(item, ':');
        bool key_ok = colon && colon > item;
        for (const char *k = item; key_ok && k < colon; k++)
            key_ok = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
                     *k == '_' || *k == '.';
        if (!key_ok) {
            input_error(b, name, type, "expected key:path items, got '%s'", item);
            ok = false;
            break;
        }
        *colon = '\0';
        RtValue *key = rt_str(item);
        bool again = rt_dict_find(d, key) >= 0;
        RtValue *v = again ? NULL : value_for_type(b, name, type->elems[1], colon + 1);
        if (again)
            input_error(b, name, type, "key '%s' given twice", item);
        ok = v && rt_dict_set(d, key, v);
        rt_release(key);
        rt_release(v);
    }
    free(inner);
    if (!ok)
        rt_release(d);
    return ok ? d : NULL;
}

/* The value of `text` for an input of the given type, or NULL after a message. */
static RtValue *value_for_type(const Binder *b, const char *name, const IrType *type,
                               const char *text)
{
    bool npy = ends_with(text, ".npy");
    int64_t i;
    double f;
    if (is_none_literal(text) && type->kind != TY_OPTIONAL && type->kind != TY_NONE &&
        type->kind != TY_ANY && type->kind != TY_STR) {
        input_error(b, name, type, "None binds only an Optional input (T?), and this one is not");
        return NULL;
    }
    switch (type->kind) {
    case TY_OPTIONAL:
        if (is_none_literal(text))
            return rt_none();
        return type->nelems ? value_for_type(b, name, type->elems[0], text) : NULL;
    case TY_TENSOR: {
        if (!npy) {
            input_error(b, name, type, "a tensor input takes a .npy file, got '%s'", text);
            return NULL;
        }
        Tensor *t = npy_read(text, b->err);
        if (!t) {
            input_error(b, name, type, "cannot read '%s'", text);
            return NULL;
        }
        if (!tensor_fits(b, name, type, t)) {
            tensor_release(t);
            return NULL;
        }
        return rt_tensor_take(t);
    }
    case TY_INT:
        if (!npy && parse_int(text, &i))
            return rt_int(i);
        input_error(b, name, type, "expected an int literal, got '%s'", text);
        return NULL;
    case TY_FLOAT:
        if (!npy && parse_float(text, &f))
            return rt_float(f);
        input_error(b, name, type, "expected a float literal, got '%s'", text);
        return NULL;
    case TY_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
            return rt_bool(text[0] == 't');
        input_error(b, name, type, "expected true or false, got '%s'", text);
        return NULL;
    case TY_NUMBER:
        if (!npy && parse_int(text, &i))
            return rt_int(i);
        if (!npy && parse_float(text, &f))
            return rt_float(f);
        input_error(b, name, type, "expected a number, got '%s'", text);
        return NULL;
    case TY_STR:
        return rt_str(text);
    case TY_LIST:
    case TY_TUPLE: {
        if (holds_tensors(type))
            return tensor_items_value(b, name, type, text);
        if (!json_bindable(type, 0))
            break;
        RtValue *v = npy ? NULL : eval_value_from_json(text, type);
        if (!v)
            input_error(b, name, type, "expected a JSON array that fits the type, such as [3,3], "
                        "[0.5,1.0] or [true,false], got '%s'", text);
        return v;
    }
    case TY_DICT:
        if (type->nelems == 2 && type->elems[0]->kind == TY_STR && type->elems[1]->kind == TY_TENSOR)
            return tensor_dict_value(b, name, type, text);
        break;
    case TY_DEVICE:
        return rt_device(text);
    case TY_NONE:
        if (is_none_literal(text))
            return rt_none();
        input_error(b, name, type, "expected none, got '%s'", text);
        return NULL;
    case TY_ANY:
        if (npy) {
            Tensor *t = npy_read(text, b->err);
            if (!t) {
                input_error(b, name, type, "cannot read '%s'", text);
                return NULL;
            }
            return rt_tensor_take(t);
        }
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
            return rt_bool(text[0] == 't');
        if (parse_int(text, &i))
            return rt_int(i);
        if (parse_float(text, &f))
            return rt_float(f);
        if (is_none_literal(text))
            return rt_none();
        return rt_str(text);
    default:
        break;
    }
    input_error(b, name, type, "this type cannot be bound from the command line");
    return NULL;
}

/* ---------------------------------------------------------------- resolution */

static bool is_module_type(const IrType *t)
{
    return t->kind == TY_CLASS;
}

/* Every module attribute the graph reads (prim::GetAttr chains from a
 * module input, in any block) must be in the weights file and parse as the
 * type the graph declares, or the run would stop halfway: checked here,
 * before any work, with prim::GetAttr's own semantics. */
typedef struct AttrCheck {
    const Binder *b;
    const Safetensors *weights;
    char **path;            /* by value id: the module path it holds, or NULL */
    /* Every prim::GetAttr on a value of a class type: the attributes the
     * graph reads of an object it reaches through a list, tuple or dict
     * (`for coder in self.coders: coder.weights`), whose path no GetAttr
     * chain gives. */
    IrNode **class_reads;
    int nclass_reads, cap_class_reads;
    char **checked;         /* object paths whose reads were checked */
    int nchecked, cap_checked;
    bool ok;
} AttrCheck;

static const char *getattr_name(const IrNode *n)
{
    const IrAttr *name = ir_attr_find(n, "name");
    if (n->op != OP_PRIM_GETATTR || n->ninputs != 1 || n->noutputs != 1 || !name ||
        name->kind != ATTR_STR)
        return NULL;
    return name->u.s;
}

static void collect_class_read(IrNode *n, void *ctx)
{
    AttrCheck *c = ctx;
    if (!getattr_name(n) || n->inputs[0]->type->kind != TY_CLASS || !n->inputs[0]->type->name)
        return;
    if (c->nclass_reads == c->cap_class_reads) {
        c->cap_class_reads = c->cap_class_reads ? 2 * c->cap_class_reads : 16;
        c->class_reads = xrealloc(c->class_reads, (size_t)c->cap_class_reads * sizeof *c->class_reads);
    }
    c->class_reads[c->nclass_reads++] = n;
}

/* Objects nest at most this deep below a container (a hostile graph may
 * declare a class that holds itself). */
enum { OBJECT_CHECK_DEPTH = 32 };

static void check_read(AttrCheck *c, const IrNode *n, const char *path, int depth);

/* The attributes the graph reads of the object at `path`, of class
 * `type`, each checked once per path. */
static void check_object(AttrCheck *c, const char *path, const IrType *type, int depth)
{
    if (!c->ok || !type->name || depth > OBJECT_CHECK_DEPTH)
        return;
    for (int i = 0; i < c->nchecked; i++)
        if (strcmp(c->checked[i], path) == 0)
            return;
    if (c->nchecked == c->cap_checked) {
        c->cap_checked = c->cap_checked ? 2 * c->cap_checked : 16;
        c->checked = xrealloc(c->checked, (size_t)c->cap_checked * sizeof *c->checked);
    }
    c->checked[c->nchecked++] = xstrdup(path);
    for (int i = 0; i < c->nclass_reads && c->ok; i++) {
        const IrType *held = c->class_reads[i]->inputs[0]->type;
        if (strcmp(held->name, type->name) == 0)
            check_read(c, c->class_reads[i], path, depth + 1);
    }
}

/* The objects inside an attribute's value (v, of declared type t). */
static void check_objects_in(AttrCheck *c, const RtValue *v, const IrType *t, int depth)
{
    while (t->kind == TY_OPTIONAL && t->nelems == 1)
        t = t->elems[0];
    if (!c->ok || depth > OBJECT_CHECK_DEPTH)
        return;
    if (v->kind == RT_OBJECT && t->kind == TY_CLASS) {
        check_object(c, v->u.s, t, depth);
    } else if ((v->kind == RT_LIST || v->kind == RT_TUPLE) &&
               (t->kind == TY_LIST || t->kind == TY_TUPLE)) {
        for (int i = 0; i < v->u.list.n && c->ok; i++) {
            const IrType *elem = t->kind == TY_LIST ? t->elems[0] : i < t->nelems ? t->elems[i] : NULL;
            if (elem)
                check_objects_in(c, v->u.list.items[i], elem, depth + 1);
        }
    } else if (v->kind == RT_DICT && t->kind == TY_DICT && t->nelems == 2) {
        for (int i = 1; i < v->u.list.n && c->ok; i += 2)
            check_objects_in(c, v->u.list.items[i], t->elems[1], depth + 1);
    }
}

/* prim::GetAttr node n read from the module or object at `base`. */
static void check_read(AttrCheck *c, const IrNode *n, const char *base, int depth)
{
    const char *name = getattr_name(n);
    char *path = xprintf("%s%s%s", base, base[0] ? "." : "", name);
    char *why = NULL;
    RtValue *v = eval_module_attribute(c->weights, path, n->outputs[0]->type, &why);
    if (!v) {
        if (c->b->err)
            fprintf(c->b->err, "%s:%d: error: prim::GetAttr: %s\n", graph_file(c->b), n->line, why);
        c->ok = false;
    } else if (v->kind == RT_OBJECT) {
        if (depth == 0 && !c->path[n->outputs[0]->id]) {
            c->path[n->outputs[0]->id] = path;
            path = NULL;
        } else if (depth > 0) {
            check_object(c, v->u.s, n->outputs[0]->type, depth);
        }
    } else {
        check_objects_in(c, v, n->outputs[0]->type, depth);
    }
    rt_release(v);
    free(why);
    free(path);
}

static void check_attribute(IrNode *n, void *ctx)
{
    AttrCheck *c = ctx;
    if (!c->ok || n->ninputs != 1 || n->noutputs != 1 || !c->path[n->inputs[0]->id])
        return;
    if (getattr_name(n))
        check_read(c, n, c->path[n->inputs[0]->id], 0);
    else if (n->op == OP_PRIM_UNCHECKED_CAST && !c->path[n->outputs[0]->id])
        /* `if self.o is not None: self.o.k`: the Optional object, cast. */
        c->path[n->outputs[0]->id] = xstrdup(c->path[n->inputs[0]->id]);
}

static bool check_module_attributes(const Binder *b, IrGraph *g, const Safetensors *weights)
{
    AttrCheck c = {.b = b, .weights = weights, .ok = true,
                   .path = xcalloc((size_t)g->nvalues + 1, sizeof(char *))};
    for (int i = 0; i < ir_block_nparams(g->top); i++)
        if (is_module_type(ir_block_param(g->top, i)->type))
            c.path[ir_block_param(g->top, i)->id] = xstrdup("");
    ir_walk(g->top, collect_class_read, &c);
    ir_walk(g->top, check_attribute, &c);
    for (uint32_t i = 0; i <= g->nvalues; i++)
        free(c.path[i]);
    free(c.path);
    for (int i = 0; i < c.nchecked; i++)
        free(c.checked[i]);
    free(c.checked);
    free(c.class_reads);
    return c.ok;
}

bool bindings_check_weights(IrGraph *g, const Safetensors *weights, FILE *err)
{
    Binder b = {g, err};
    return check_module_attributes(&b, g, weights);
}

bool bindings_resolve(IrGraph *g, int nbind, char **bind, const char *weights_path,
                      RtValue ***inputs, int *ninputs, Safetensors **weights, FILE *err)
{
    Binder b = {g, err};
    IrBlock *top = g->top;
    int n = ir_block_nparams(top);
    *inputs = NULL;
    *ninputs = 0;
    *weights = NULL;

    char **names = xcalloc((size_t)n, sizeof *names);
    const char **given = xcalloc((size_t)n, sizeof *given);
    RtValue **values = xcalloc((size_t)n, sizeof *values);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        char buf[256];
        names[i] = xstrdup(ir_value_base_name(ir_block_param(top, i), buf, sizeof buf));
    }

    /* Match each NAME=VALUE to one input. */
    for (int k = 0; k < nbind && ok; k++) {
        const char *eq = strchr(bind[k], '=');
        if (!eq || eq == bind[k]) {
            diag_error(err, graph_file(&b), "binding '%s' is not NAME=VALUE", bind[k]);
            ok = false;
            break;
        }
        size_t len = (size_t)(eq - bind[k]);
        int match = -1, matches = 0;
        for (int i = 0; i < n; i++)
            if (strlen(names[i]) == len && strncmp(names[i], bind[k], len) == 0) {
                if (match < 0)
                    match = i;
                matches++;
            }
        if (match < 0) {
            TextBuf list = {0};
            textbuf_puts(&list, "");
            for (int i = 0; i < n; i++)
                textbuf_printf(&list, "%s%s", i ? ", " : "", names[i]);
            diag_error(err, graph_file(&b), "no graph input named '%.*s' (the inputs are: %s)",
                       (int)len, bind[k], n ? textbuf_cstr(&list) : "none");
            textbuf_release(&list);
            ok = false;
        } else if (matches > 1) {
            ok = input_error(&b, names[match], NULL, "%d graph inputs share this name", matches);
        } else if (given[match]) {
            ok = input_error(&b, names[match], NULL, "bound twice ('%s' and '%s')", given[match],
                             eq + 1);
        } else if (is_module_type(ir_block_param(top, match)->type)) {
            ok = input_error(&b, names[match], ir_block_param(top, match)->type,
                             "a module input takes its value from --weights, not a binding");
        } else {
            given[match] = eq + 1;
        }
    }

    /* Every input needs a value; modules need the weights. */
    bool has_module = false;
    for (int i = 0; i < n && ok; i++) {
        const IrType *type = ir_block_param(top, i)->type;
        if (is_module_type(type)) {
            has_module = true;
            if (!weights_path)
                ok = input_error(&b, names[i], type,
                                 "a module input needs --weights FILE.safetensors");
        } else if (!given[i]) {
            ok = type->kind == TY_OPTIONAL
                     ? input_error(&b, names[i], type, "missing binding: pass %s=VALUE, or %s=None",
                                   names[i], names[i])
                     : input_error(&b, names[i], type, "missing binding: pass %s=VALUE", names[i]);
        }
    }
    if (ok && weights_path) {
        *weights = safetensors_open(weights_path, err);
        if (!*weights) {
            ok = false;
        } else if (!has_module && err) {
            /* Harmless, but likely a mistake on the command line. */
            fprintf(err, "%s: warning: --weights given, but the graph has no module input\n",
                    graph_file(&b));
        }
    }
    if (ok && has_module)
        ok = check_module_attributes(&b, g, *weights);
    for (int i = 0; i < n && ok; i++) {
        const IrType *type = ir_block_param(top, i)->type;
        values[i] = is_module_type(type) ? rt_object("")
                                         : value_for_type(&b, names[i], type, given[i]);
        ok = values[i] != NULL;
    }

    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(given);
    if (!ok) {
        for (int i = 0; i < n; i++)
            rt_release(values[i]);
        free(values);
        safetensors_close(*weights);
        *weights = NULL;
        return false;
    }
    *inputs = values;
    *ninputs = n;
    return true;
}
