/* ops_convert.c — dtype and device conversions: aten::to with its many
 * overloads, type_as, and the casts .float(), .long() ...
 *
 * PyTorch returns self itself when nothing changes (same dtype, copy=False),
 * so `x.to(torch.float32) is x` and writes through the result reach x; this
 * binding returns the very same value in that case. The ref backend keeps
 * every tensor in host memory, so a device argument changes nothing.
 *
 * aten::to overloads, told apart by argument count and kinds:
 *   to.dtype(self, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat?)  5
 *   to.other(self, Tensor other, bool non_blocking, bool copy, MemoryFormat?)     5
 *   to.prim_Device(self, Device? device, int? dtype, bool non_blocking, bool copy) 5
 *   to.device(self, Device device, ScalarType dtype, bool non_blocking, bool copy,
 *             MemoryFormat?)                                                       6
 *   to.dtype_layout(self, ScalarType? dtype, Layout?, Device?, bool? pin_memory,
 *                   bool non_blocking, bool copy, MemoryFormat?)                  8
 *   to.prim_dtype(self, int? dtype, bool non_blocking, bool copy)                 4
 *   to.prim_other(self, bool non_blocking, bool copy)                             3
 */
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* Self when dt is self's dtype and no copy is asked for, else a converted
 * copy (keeping a dense tensor's strides, as PyTorch's preserve_format
 * does). dt < 0 keeps the dtype. */
static bool convert(EvalCall *c, Tensor *self, int dt, bool copy)
{
    if (dt < 0 || dt == (int)self->dtype) {
        if (!copy)
            return eval_out_arg(c, 0, 0);
        return eval_out_tensor(c, 0, tensor_clone_preserve(self));
    }
    return eval_out_tensor(c, 0, tensor_to_dtype(self, (TensorDType)dt));
}

/* The dtype (ScalarType? at argument dt_arg; none when dt_arg < 0) and the
 * copy flag (bool at argument copy_arg) of an aten::to overload. */
static bool dtype_copy_args(EvalCall *c, int dt_arg, int copy_arg, int *dt, bool *copy)
{
    return (dt_arg < 0 || eval_arg_dtype_opt(c, dt_arg, dt)) && eval_arg_bool(c, copy_arg, copy);
}

bool eval_op_to(EvalCall *c)
{
    Tensor *self, *other;
    int dt = -1;
    bool copy = false, ok;
    if (!eval_arg_tensor(c, 0, &self))
        return false;
    switch (c->nargs) {
    case 3: ok = dtype_copy_args(c, -1, 2, &dt, &copy); break; /* prim_other */
    case 4: ok = dtype_copy_args(c, 1, 3, &dt, &copy); break;  /* prim_dtype */
    case 5:
        if (eval_is_tensor(c, 1)) { /* other */
            ok = eval_arg_tensor(c, 1, &other) && dtype_copy_args(c, -1, 3, &dt, &copy);
            if (ok)
                dt = (int)other->dtype;
        } else if (eval_kind(c, 1) == RT_INT) { /* dtype */
            ok = dtype_copy_args(c, 1, 3, &dt, &copy);
        } else { /* prim_Device */
            ok = dtype_copy_args(c, 2, 4, &dt, &copy);
        }
        break;
    case 6: ok = dtype_copy_args(c, 2, 4, &dt, &copy); break; /* device */
    case 8: ok = dtype_copy_args(c, 1, 6, &dt, &copy); break; /* dtype_layout */
    default: return eval_fail(c, "no aten::to overload takes %d arguments", c->nargs);
    }
    return ok && convert(c, self, dt, copy);
}

/* type_as(Tensor self, Tensor other) */
bool eval_op_type_as(EvalCall *c)
{
    Tensor *self, *other;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &other) &&
           convert(c, self, (int)other->dtype, false);
}

/* self.float(), .double(), .long(), .int(), .bool() (memory_format ignored). */
static bool cast(EvalCall *c, TensorDType dt)
{
    Tensor *self;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &self) && convert(c, self, (int)dt, false);
}
bool eval_op_cast_float(EvalCall *c) { return cast(c, DT_F32); }
bool eval_op_cast_double(EvalCall *c) { return cast(c, DT_F64); }
bool eval_op_cast_long(EvalCall *c) { return cast(c, DT_I64); }
bool eval_op_cast_int(EvalCall *c) { return cast(c, DT_I32); }
bool eval_op_cast_bool(EvalCall *c) { return cast(c, DT_BOOL); }
