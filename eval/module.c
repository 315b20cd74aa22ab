/* module.c — prim::GetAttr: module attributes from the weights file.
 *
 * A module value (RT_OBJECT) is its dotted path from the root ("" for %self,
 * then "backbone", "backbone.0"). prim::GetAttr[name="weight"] on it reads
 * the attribute "backbone.0.weight", by the type the graph gives the result:
 *   a class type       another module, or an object of a TorchScript class
 *                      (torchvision's BoxCoder held by a detection head):
 *                      the longer path, under which its own attributes
 *                      are; "None" in the metadata for an Optional one;
 *   Tensor             the tensor of that name in the safetensors file (the
 *                      same tensor on every read, so in-place updates of a
 *                      buffer persist, as in PyTorch); a missing one is an
 *                      error naming it, or None for an Optional[Tensor];
 *   bool/int/float/str the string stored under that name in the file's
 *                      __metadata__ map, parsed by the type ("true"/"false",
 *                      Python int and float literals, strings verbatim;
 *                      "None" for an Optional); lists, tuples and dicts
 *                      (nested, of any of these) as JSON, parsed by the
 *                      graph's type: arrays for lists and tuples, objects
 *                      for dicts (keys are strings, parsed by the key type),
 *                      {"__tensor__": "NAME"} for a tensor stored under NAME,
 *                      {"__object__": "PATH"} for a class object whose
 *                      attributes are stored under PATH.NAME.
 *                      An absent `training` is false: the ref backend runs
 *                      modules in inference mode.
 *   a tensor name whose metadata is {"__tensor__": "OTHER"} is the same
 *   tensor as OTHER (tied weights, written once by the exporter).
 *
 * prim::SetAttr[name="x"](module, value) assigns "path.x" for the rest of
 * the run, as `self.x = value` does in PyTorch: the run keeps the value (a
 * reference, so a tensor assigned and then written in place is seen written
 * by later reads), and every later prim::GetAttr of that path reads it
 * instead of the weights file. A list or dict attribute read from the file
 * is remembered the same way at its first read, so that every read of it
 * in the run is the same object and an item written into it
 * (`self._cache[key] = anchors`) is seen by the next read, as in PyTorch.
 * The table belongs to the run (EvalRun): each
 * run starts from the weights file's values (README: module state). This is
 * the oracle's imperative reading; the compiled backends get the same
 * meaning from functionalize/module_state.c, which threads the attribute
 * through the graph as a value instead.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* One scalar of the given type from text [s, end); NULL if it does not parse. */
static RtValue *parse_scalar(const char *s, size_t len, IrTypeKind kind)
{
    char buf[128];
    while (len > 0 && isspace((unsigned char)*s))
        s++, len--;
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0 || len >= sizeof buf)
        return NULL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    switch (kind) {
    case TY_BOOL:
        if (strcmp(buf, "true") == 0 || strcmp(buf, "True") == 0)
            return rt_bool(true);
        if (strcmp(buf, "false") == 0 || strcmp(buf, "False") == 0)
            return rt_bool(false);
        return NULL;
    case TY_INT: {
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (*end || errno)
            return NULL;
        return rt_int(v);
    }
    case TY_FLOAT: {
        double v = strtod(buf, &end);
        if (*end)
            return NULL;
        return rt_float(v);
    }
    case TY_NUMBER:
    case TY_ANY: {
        RtValue *v = parse_scalar(buf, len, TY_INT);
        if (!v)
            v = parse_scalar(buf, len, TY_FLOAT);
        if (!v)
            v = parse_scalar(buf, len, TY_BOOL);
        return v;
    }
    default:
        return NULL;
    }
}

/* The tensor a {"__tensor__": "NAME"} object names, as a new value; NULL
 * when j is not such an object or the file has no tensor of that name. */
static RtValue *json_tensor(const Safetensors *weights, const cJSON *j)
{
    const cJSON *name = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "__tensor__") : NULL;
    Tensor *t = cJSON_IsString(name) && weights ? safetensors_get(weights, name->valuestring) : NULL;
    return t ? rt_tensor_take(t) : NULL;
}

/* The object a {"__object__": "PATH"} names (a TorchScript class object
 * inside a container, its attributes stored under PATH.NAME), as a new
 * value; NULL when j is not such an object. PATH must be a dotted path of
 * non-empty names without '<' (no module path is empty, and marker objects
 * such as grad-mode scopes are spelled with '<'). */
static RtValue *json_object(const cJSON *j)
{
    const cJSON *path = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "__object__") : NULL;
    if (!cJSON_IsString(path) || cJSON_GetArraySize(j) != 1)
        return NULL;
    const char *s = path->valuestring;
    size_t len = strlen(s);
    if (len == 0 || s[0] == '.' || s[len - 1] == '.' || strstr(s, "..") || strchr(s, '<'))
        return NULL;
    return rt_object(s);
}

enum { JSON_MAX_DEPTH = 64 };

/* A JSON value as a run-time value of the given type; NULL if it does not fit. */
static RtValue *json_value(const Safetensors *weights, const cJSON *j, const IrType *type, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return NULL;
    switch (type->kind) {
    case TY_OPTIONAL:
        if (cJSON_IsNull(j))
            return rt_none();
        return type->nelems == 1 ? json_value(weights, j, type->elems[0], depth + 1) : NULL;
    case TY_NONE:
        return cJSON_IsNull(j) ? rt_none() : NULL;
    case TY_BOOL:
        return cJSON_IsBool(j) ? rt_bool(cJSON_IsTrue(j)) : NULL;
    case TY_INT:
        if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) ||
            fabs(j->valuedouble) > 9007199254740992.0)   /* 2^53: exact in a double */
            return NULL;
        return rt_int((int64_t)j->valuedouble);
    case TY_FLOAT:
        return cJSON_IsNumber(j) ? rt_float(j->valuedouble) : NULL;
    case TY_NUMBER:
    case TY_ANY:
        if (cJSON_IsBool(j))
            return rt_bool(cJSON_IsTrue(j));
        if (cJSON_IsNumber(j))
            return j->valuedouble == floor(j->valuedouble) && fabs(j->valuedouble) <= 9007199254740992.0
                       ? rt_int((int64_t)j->valuedouble)
                       : rt_float(j->valuedouble);
        if (cJSON_IsString(j))
            return rt_str(j->valuestring);
        return json_tensor(weights, j);
    case TY_STR:
        return cJSON_IsString(j) ? rt_str(j->valuestring) : NULL;
    case TY_TENSOR:
        return json_tensor(weights, j);
    case TY_CLASS:
        return json_object(j);
    case TY_LIST:
    case TY_TUPLE: {
        if (!cJSON_IsArray(j) || (type->kind == TY_LIST && type->nelems != 1) ||
            (type->kind == TY_TUPLE && cJSON_GetArraySize(j) != type->nelems))
            return NULL;
        RtValue *seq = rt_list(type->kind == TY_TUPLE ? RT_TUPLE : RT_LIST, 0, NULL);
        int index = 0;
        const cJSON *item;
        cJSON_ArrayForEach(item, j) {
            const IrType *elem = type->kind == TY_LIST ? type->elems[0] : type->elems[index];
            RtValue *v = json_value(weights, item, elem, depth + 1);
            if (!v || !rt_list_reserve(seq, index + 1)) {
                rt_release(v);
                rt_release(seq);
                return NULL;
            }
            rt_list_append(seq, v);
            rt_release(v);
            index++;
        }
        return seq;
    }
    case TY_DICT: {
        if (!cJSON_IsObject(j) || type->nelems != 2)
            return NULL;
        RtValue *d = rt_dict();
        const cJSON *item;
        cJSON_ArrayForEach(item, j) {
            /* Keys are JSON strings; an int, float or bool key is parsed back. */
            RtValue *key = type->elems[0]->kind == TY_STR
                               ? rt_str(item->string)
                               : parse_scalar(item->string, strlen(item->string), type->elems[0]->kind);
            RtValue *v = key ? json_value(weights, item, type->elems[1], depth + 1) : NULL;
            bool ok = v && rt_dict_set(d, key, v);
            rt_release(key);
            rt_release(v);
            if (!ok) {
                rt_release(d);
                return NULL;
            }
        }
        return d;
    }
    default:
        return NULL;
    }
}

/* A container attribute written as JSON; NULL if text is not JSON or does
 * not fit the type. */
static RtValue *attribute_from_json(const Safetensors *weights, const char *text, const IrType *type)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        return NULL;
    RtValue *v = json_value(weights, j, type, 0);
    cJSON_Delete(j);
    return v;
}

RtValue *eval_value_from_json(const char *text, const IrType *declared)
{
    /* require_null_terminated: "[1,2]x" is not a list. */
    cJSON *j = cJSON_ParseWithOpts(text, NULL, true);
    if (!j)
        return NULL;
    RtValue *v = json_value(NULL, j, declared, 0);
    cJSON_Delete(j);
    return v;
}

/* A non-module, non-tensor attribute from the file's __metadata__. */
static RtValue *attribute_from_metadata(const Safetensors *weights, const char *path,
                                        const IrType *declared, char **why)
{
    const IrType *type = declared;
    bool optional = false;
    while (type->kind == TY_OPTIONAL && type->nelems > 0) {
        type = type->elems[0];
        optional = true;
    }
    const char *text = weights ? safetensors_metadata(weights, path) : NULL;
    if (!text) {
        const char *last = strrchr(path, '.');
        if (strcmp(last ? last + 1 : path, "training") == 0 && type->kind == TY_BOOL)
            return rt_bool(false);
        if (optional)
            return rt_none();
        *why = xprintf(weights ? "module attribute '%s' is not in the weights file's __metadata__"
                               : "module attribute '%s' is needed but no --weights file was given",
                       path);
        return NULL;
    }
    if (strcmp(text, "None") == 0 && (optional || type->kind == TY_NONE))
        return rt_none();
    RtValue *v = NULL;
    switch (type->kind) {
    case TY_STR:
        v = rt_str(text);
        break;
    case TY_DEVICE:
        v = rt_device(text);
        break;
    case TY_LIST:
    case TY_TUPLE:
    case TY_DICT:
        v = attribute_from_json(weights, text, type);
        break;
    default:
        v = parse_scalar(text, strlen(text), type->kind);
        break;
    }
    if (!v)
        *why = xprintf("module attribute '%s' = \"%s\" does not parse as the graph's type %s", path,
                       text, ir_type_kind_name(type->kind));
    return v;
}

const char *eval_module_tensor_name(const Safetensors *weights, const char *path, char **owned)
{
    *owned = NULL;
    const char *text = weights ? safetensors_metadata(weights, path) : NULL;
    cJSON *j = text && *text == '{' ? cJSON_Parse(text) : NULL;
    const cJSON *name = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "__tensor__") : NULL;
    if (cJSON_IsString(name))
        *owned = xstrdup(name->valuestring);
    cJSON_Delete(j);
    return *owned ? *owned : path;
}

RtValue *eval_module_attribute(const Safetensors *weights, const char *path, const IrType *declared,
                               char **why)
{
    *why = NULL;
    const IrType *type = declared;
    bool optional = false;
    while (type->kind == TY_OPTIONAL && type->nelems > 0) {
        type = type->elems[0];
        optional = true;
    }
    if (type->kind == TY_CLASS) {
        /* A module or an object: its attributes are under the path. A None
         * in an Optional object slot is "None". */
        const char *text = optional && weights ? safetensors_metadata(weights, path) : NULL;
        return text && strcmp(text, "None") == 0 ? rt_none() : rt_object(path);
    }
    if (type->kind != TY_TENSOR)
        return attribute_from_metadata(weights, path, declared, why);
    Tensor *t = weights ? safetensors_get(weights, path) : NULL;
    const char *text = weights ? safetensors_metadata(weights, path) : NULL;
    if (t)
        return rt_tensor_take(t);
    RtValue *tied = text ? attribute_from_json(weights, text, type) : NULL;
    if (tied)
        return tied;
    if (optional || (text && strcmp(text, "None") == 0))
        return rt_none();
    *why = xprintf(weights ? "weight '%s' is not in the weights file"
                           : "weight '%s' is needed but no --weights file was given", path);
    return NULL;
}

/* One attribute the run assigned: its dotted path and value. */
struct EvalAssignedAttr {
    char *path;
    RtValue *value;
};

static struct EvalAssignedAttr *assigned_find(EvalRun *run, const char *path)
{
    for (int i = 0; i < run->nassigned; i++)
        if (strcmp(run->assigned[i].path, path) == 0)
            return &run->assigned[i];
    return NULL;
}

void eval_assigned_attrs_free(EvalRun *run)
{
    for (int i = 0; i < run->nassigned; i++) {
        free(run->assigned[i].path);
        rt_release(run->assigned[i].value);
    }
    free(run->assigned);
    run->assigned = NULL;
    run->nassigned = run->assigned_cap = 0;
}

/* From now on in this run, the attribute at path is v (a new reference). */
static void remember(EvalRun *run, const char *path, RtValue *v)
{
    struct EvalAssignedAttr *slot = assigned_find(run, path);
    if (!slot) {
        if (run->nassigned == run->assigned_cap) {
            run->assigned_cap = run->assigned_cap ? 2 * run->assigned_cap : 4;
            run->assigned = xrealloc(run->assigned, sizeof *run->assigned * (size_t)run->assigned_cap);
        }
        slot = &run->assigned[run->nassigned++];
        slot->path = xstrdup(path);
        slot->value = NULL;
    }
    rt_release(slot->value);
    slot->value = rt_retain(v);
}

/* "backbone.0" + "weight" -> "backbone.0.weight" (base "" is the root). */
static void attribute_path(TextBuf *path, const char *base, const char *name)
{
    textbuf_printf(path, "%s%s%s", base, base[0] ? "." : "", name);
}

/* prim::SetAttr[name="..."](object, value): a module attribute assigned (see
 * the header), or a grad-mode scope's bookkeeping (grad_scope.c), a no-op. */
bool eval_op_setattr(EvalCall *c)
{
    const IrAttr *name = ir_attr_find(c->node, "name");
    if (!eval_nargs(c, 2, 2))
        return false;
    if (eval_is_grad_scope_object(c->args[0]))
        return true;
    if (!name || name->kind != ATTR_STR)
        return eval_fail(c, "prim::SetAttr without a name");
    if (eval_kind(c, 0) != RT_OBJECT)
        return eval_fail(c, "attribute '%s' of a %s (not a module)", name->u.s,
                         rt_kind_name(eval_kind(c, 0)));
    if (eval_kind(c, 1) == RT_OBJECT)
        return eval_fail(c, "assigning a module to the attribute '%s' is not supported", name->u.s);
    TextBuf path = {0};
    attribute_path(&path, c->args[0]->u.s, name->u.s);
    remember(c->run, textbuf_cstr(&path), c->args[1]);
    textbuf_release(&path);
    return true;
}

/* prim::GetAttr[name="..."](module) */
bool eval_op_getattr(EvalCall *c)
{
    const IrAttr *name = ir_attr_find(c->node, "name");
    if (!eval_nargs(c, 1, 1))
        return false;
    if (!name || name->kind != ATTR_STR)
        return eval_fail(c, "prim::GetAttr without a name");
    if (eval_kind(c, 0) != RT_OBJECT)
        return eval_fail(c, "attribute '%s' of a %s (not a module)", name->u.s,
                        rt_kind_name(eval_kind(c, 0)));
    TextBuf path = {0};
    attribute_path(&path, c->args[0]->u.s, name->u.s);
    const struct EvalAssignedAttr *assigned = assigned_find(c->run, textbuf_cstr(&path));
    if (assigned) {
        textbuf_release(&path);
        return eval_out_value(c, 0, rt_retain(assigned->value));
    }
    char *why = NULL;
    RtValue *v = eval_module_attribute(c->run->weights, textbuf_cstr(&path), eval_out_type(c, 0), &why);
    if (v && (v->kind == RT_LIST || v->kind == RT_DICT))
        remember(c->run, textbuf_cstr(&path), v);
    textbuf_release(&path);
    bool ok = v ? eval_out_value(c, 0, v) : eval_fail(c, "%s", why);
    free(why);
    return ok;
}
