/* TEMPORARY LOCAL STUB (not committed): reads refined types as given. */
#include "tssa/shapes.h"
bool shape_infer(LowerProgram *p, RtValue **inputs, int ninputs, FILE *err, int *status)
{ (void)p; (void)inputs; (void)ninputs; (void)err; *status = 0; return true; }
const IrTensorType *shape_of(const IrValue *v)
{
    if (!v->type || v->type->kind != TY_TENSOR) return NULL;
    const IrTensorType *t = &v->type->tensor;
    if (t->dtype < 0 || t->rank < 0) return NULL;
    for (int i = 0; i < t->rank; i++) if (t->sizes[i] < 0) return NULL;
    return t;
}
