/* grad_scope.c — `with torch.no_grad():` (and enable_grad, inference_mode,
 * set_grad_enabled) as TorchScript inlines it:
 *
 *   %g : __torch__.torch.autograd.grad_mode.no_grad = prim::CreateObject()
 *    = prim::SetAttr[name="prev"](%g, %false)      (its inlined __init__)
 *   %e : NoneType = prim::Enter(%g)
 *   ...
 *   %x : Tensor = prim::Exit(%g)
 *
 * tssa-stream runs forward passes only and never records gradients, so a
 * grad-mode scope changes nothing: the object is a marker, entering and
 * leaving do nothing. Any other class is refused by name. TensorSSA drops
 * these nodes before alias analysis (functionalize/grad_scope.c). The
 * scope's own prim::SetAttr (self.prev) is run by module.c's binding, which
 * asks eval_is_grad_scope_object.
 */
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "tssa/eval.h"

/* The grad-mode classes by the last part of their TorchScript name. */
static const char *const GRAD_MODE_CLASSES[] = {"no_grad", "enable_grad", "set_grad_enabled",
                                                "inference_mode"};

bool eval_is_grad_mode_class(const IrType *t)
{
    if (!t || t->kind != TY_CLASS || !t->name)
        return false;
    const char *dot = strrchr(t->name, '.');
    const char *last = dot ? dot + 1 : t->name;
    static const char prefix[] = "__torch__.torch.autograd.";   /* grad_mode.no_grad, ... */
    if (strncmp(t->name, prefix, sizeof prefix - 1) != 0)
        return false;
    for (size_t i = 0; i < sizeof GRAD_MODE_CLASSES / sizeof *GRAD_MODE_CLASSES; i++)
        if (strcmp(last, GRAD_MODE_CLASSES[i]) == 0)
            return true;
    return false;
}

/* Marker objects are RT_OBJECTs whose path cannot be a module path. */
#define GRAD_SCOPE_PATH "<grad mode scope>"

bool eval_op_create_object(EvalCall *c)
{
    const IrType *t = c->node->noutputs == 1 ? c->node->outputs[0]->type : NULL;
    if (!eval_nargs(c, 0, 0))
        return false;
    if (!eval_is_grad_mode_class(t)) {
        TextBuf name = {0};
        if (t)
            ir_type_format(&name, t);
        else
            textbuf_puts(&name, "?");
        eval_fail(c, "this object of class %s is not supported: an object created in the "
                     "program must be used only through its attributes, set in the block that "
                     "creates it (or be a grad-mode scope such as torch.no_grad())",
                  textbuf_cstr(&name));
        textbuf_release(&name);
        return false;
    }
    return eval_out_value(c, 0, rt_object(GRAD_SCOPE_PATH));
}

bool eval_is_grad_scope_object(const RtValue *v)
{
    return v->kind == RT_OBJECT && strcmp(v->u.s, GRAD_SCOPE_PATH) == 0;
}

static bool enter_or_exit(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (!eval_is_grad_scope_object(c->args[0]))
        return eval_fail(c, "%s of a %s: only grad-mode scopes (torch.no_grad()) are supported",
                         c->node->kind, rt_kind_name(c->args[0]->kind));
    for (int i = 0; i < c->nouts; i++)
        if (!eval_out_value(c, i, rt_none()))
            return false;
    return true;
}

bool eval_op_enter(EvalCall *c) { return enter_or_exit(c); }
bool eval_op_exit(EvalCall *c) { return enter_or_exit(c); }
